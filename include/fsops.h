/* fsops.h - the passthrough filesystem behind simbookfs.
 *
 * A struct fs answers the FUSE high-level operations for one mount: every
 * path is served from SRC through a directory fd opened before mounting,
 * with the caller's ownership for new nodes when the daemon runs as root,
 * and the underlying filesystem's exact errno.  Two extension points let
 * later modules plug in without touching the passthrough:
 *
 *   - a change hook, told about every completed change to SRC that can
 *     affect a file's content or name (for the indexing queue);
 *   - views: reserved top-level directory names whose whole subtree is
 *     answered by a read-only view module instead of SRC.
 *
 * Include this header before <fuse.h>: it selects the libfuse API version.
 */
#ifndef FSOPS_H
#define FSOPS_H

#ifndef FUSE_USE_VERSION
#define FUSE_USE_VERSION 314
#endif
#include <fuse.h>
#include <stdbool.h>
#include <sys/stat.h>

struct fs;

struct fs_options {
	bool xattr;		/* pass extended attributes through (off: the
				 * kernel learns ENOTSUP once and stops asking) */
	unsigned int max_read;	/* READ request size cap in bytes given to the
				 * kernel as the max_read mount option (0: none) */
};

/* Kinds of change reported to the hook.  path and path2 are relative to
 * SRC ("dir/book.epub", never a leading '/'). */
enum fs_change {
	FS_CHANGE_WRITE,	/* path's content may have changed: release of a
				 * file opened for writing, truncate, the target
				 * of copy_file_range; path2 NULL */
	FS_CHANGE_UNLINK,	/* path no longer exists; path2 NULL */
	FS_CHANGE_RENAME,	/* path moved to path2, replacing what path2 named;
				 * for a directory, everything below moved too */
	FS_CHANGE_EXCHANGE,	/* path and path2 swapped places (RENAME_EXCHANGE) */
	FS_CHANGE_LINK,		/* path2 is a new hard link to path */
	FS_CHANGE_PERM,		/* directory path changed mode or owner (who may
				 * search it); path2 NULL */
};

/* Called on the FUSE worker thread right after the change succeeded on SRC,
 * before the reply reaches the caller (release is the exception: close()
 * has already returned).  Several threads may call it at once.  The strings
 * live only during the call.  It must be quick and must not touch the
 * mount (queue the work).  A write may be reported more than once (e.g.
 * ftruncate, then release of the same fd); rmdir is not reported (only
 * empty directories go).  Names for which fspath_fuse_hidden() holds (an
 * open file unlinked through the mount lives on under one until its last
 * close) are never reported: the rename to one is reported as an unlink of
 * the old name, a rename or link from one as a write of the new name, and
 * anything done to such a name alone is not reported at all. */
typedef void (*fs_change_fn)(void *arg, enum fs_change what, const char *path,
			     const char *path2);

/* A view answers the subtree "/NAME/..." read-only.  rel is the path below
 * the view's directory: "" for the directory itself, else "a/b".  Every
 * callback returns 0 (or a byte count for read) or -errno; callbacks left
 * NULL answer ENOENT (getattr, readdir, readlink) or EACCES (open).  Every
 * modifying operation on a view path fails with EROFS, xattrs with ENODATA.
 * The view's getattr of "" must describe a directory.  fi->fh is the view's
 * own from open to release.  Inode numbers (st_ino) are shown as given:
 * pick ones SRC cannot use (e.g. counting down from FS_VIEW_INO); a view
 * directory reported with st_ino 0 is listed as FS_VIEW_INO - its index. */
#define FS_VIEW_INO ((ino_t)0x7fffffffffffffffULL)
struct fs_view_ops {
	int (*getattr)(void *arg, const char *rel, struct stat *st);
	/* Fill with filler(buf, name, st_or_NULL, 0, flags) for every entry,
	 * "." and ".." included.  flags FUSE_FILL_DIR_PLUS with the complete
	 * attributes getattr would give hands the entry to the kernel with
	 * them (readdirplus: no lookup follows); the view must then count the
	 * entry as cached by the kernel, like a looked-up one.  The listing
	 * is taken whole at each read from offset 0. */
	int (*readdir)(void *arg, const char *rel, void *buf, fuse_fill_dir_t filler);
	/* Like readlink(2) but NUL-terminates within size. */
	int (*readlink)(void *arg, const char *rel, char *buf, size_t size);
	/* A view's own file: getattr is asked before open (a file gone is
	 * not opened) and again after it; the second answer (a view should
	 * give the attributes of the content this open serves) is what the
	 * open file shows, also once the entry is gone. */
	int (*open)(void *arg, const char *rel, struct fuse_file_info *fi);
	int (*read)(void *arg, const char *rel, char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi);
	void (*release)(void *arg, const char *rel, struct fuse_file_info *fi);
	/* unlink(2) of a view entry (NULL: EROFS).  For views where removing
	 * an entry means something (e.g. "not a duplicate"); it never touches
	 * SRC. */
	int (*unlink)(void *arg, const char *rel);
	/* For a view entry that stands for a file of SRC (a real-file view
	 * entry; NULL: the view has none): writes that file's path relative
	 * to SRC ("dir/book.epub") into buf (size bytes, NUL-terminated) and
	 * returns 0; -EINVAL when rel is no such entry; else -errno (-ENOENT:
	 * the file is gone).  The entry's getattr should describe the file as
	 * a read-only regular file (its size and times).  open() of such an
	 * entry opens the SRC file read-only through the passthrough instead
	 * of calling open/read/release: reads are served from its fd at native
	 * speed, fstat() of the open file answers from that fd with the
	 * entry's st_ino and mode (even once the entry is gone), and the
	 * caller must be able to search every folder above the file in SRC
	 * (EACCES otherwise), as through the passthrough. */
	int (*source)(void *arg, const char *rel, char *buf, size_t size);
	/* write(2) to a view's own file (NULL: every open for writing is
	 * EROFS).  With it, an open for writing (O_WRONLY, O_RDWR or O_TRUNC)
	 * of an entry that is not a real-file entry goes to open(), which
	 * refuses what it does not take (-EROFS, -EACCES); each write()
	 * arrives whole (up to the mount's max_write, 128 KiB at least) with
	 * its offset.  Returns the bytes taken or -errno, which the writer's
	 * write() fails with. */
	int (*write)(void *arg, const char *rel, const char *buf, size_t size, off_t off,
		     struct fuse_file_info *fi);
};

/* Creates the filesystem for SRC's directory fd rootfd (kept open by the
 * caller until fs_free).  Returns 0 and *out, or -ENOMEM. */
int fs_new(struct fs **out, int rootfd, const struct fs_options *opt);
void fs_free(struct fs *fs);

/* Registers a change hook (NULL fn: none).  Call before mounting. */
void fs_set_change_hook(struct fs *fs, fs_change_fn fn, void *arg);

/* Reserves the top-level name (no '/', not "." or "..") for view ops;
 * name and ops must outlive fs.  A SRC entry of the same name is hidden
 * from the mount while the view is registered.  Call before mounting.
 * Returns 0, -EINVAL (bad name), -EEXIST (already reserved) or -ENOSPC
 * (FS_MAX_VIEWS reached). */
#define FS_MAX_VIEWS 16
int fs_add_view(struct fs *fs, const char *name, const struct fs_view_ops *ops, void *arg);

/* Hides the top-level SRC entry name (no '/', not "." or "..") from the
 * mount: it is not listed and every path under it answers ENOENT (writes
 * EROFS).  For the daemon's own files inside SRC (the index folder).  name
 * must outlive fs; uses a view slot.  Call before mounting.  Returns as
 * fs_add_view(). */
int fs_hide_name(struct fs *fs, const char *name);

/* Computed extended attributes of SRC's files (e.g. a book's identifier).
 * path is relative to SRC ("dir/book.epub").  get answers like
 * getxattr(2) (size 0: the length only) or -ENODATA when name is not one of
 * its own, so the passthrough (if on) answers; list writes its names
 * (NUL-terminated, like listxattr(2); size 0: the length only).  Called on
 * FUSE worker threads, concurrently. */
struct fs_xattr_ops {
	int (*get)(void *arg, const char *path, const char *name, char *value, size_t size);
	int (*list)(void *arg, const char *path, char *list, size_t size);
};

/* Registers computed xattrs (NULL: none); ops and arg must outlive fs.  With
 * them, getxattr and listxattr are answered even without the xattr option
 * (other names: ENODATA; setxattr stays unsupported).  Call before
 * fs_get_operations(). */
void fs_set_xattr_hook(struct fs *fs, const struct fs_xattr_ops *ops, void *arg);

/* Fills ops with the operations for fs (which ones depends on the options,
 * e.g. no xattr handlers without xattr).  Pass fs as fuse_new()'s
 * private_data. */
void fs_get_operations(const struct fs *fs, struct fuse_operations *ops);

#endif
