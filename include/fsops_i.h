/* fsops_i.h - what the parts of the passthrough share (fsops.c: the
 * struct fs and its extension points; fsops_node.c: names and attributes;
 * fsops_file.c: open files; fsops_dir.c: directories; fsops_xattr.c:
 * extended attributes).  Private to src/fs/fsops*.c.
 *
 * The small helpers every operation calls are static inline here, so the
 * read and write paths make no call from one file into another.
 */
#ifndef FSOPS_I_H
#define FSOPS_I_H

#include "fsops.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

#include "fspath.h"

struct dirahead;
struct fs_links;

struct fs_view {
	const char *name;
	size_t len;
	const struct fs_view_ops *ops;
	void *arg;
	bool hidden;		/* fs_hide_name(): not listed, all ENOENT */
};

/* A directory whose whole listing went to the kernel with attributes
 * (readdirplus), and when: while it is unchanged and the kernel still
 * holds those entries, listing it again needs no attributes.  A slot
 * collision only costs attributes sent again. */
#define FS_LISTED_SLOTS 4096
struct fs_listed {
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
	struct timespec ctime;
	struct timespec at;	/* CLOCK_MONOTONIC when the listing started */
};

struct fs {
	int rootfd;
	/* Bumped after every change made to SRC: attributes read ahead
	 * (dirahead.h) that are older are fetched again. */
	_Atomic uint64_t gen;
	struct dirahead *dra;
	double entry_timeout;	/* seconds the kernel keeps entries we send */
	pthread_mutex_t listed_lock;
	struct fs_listed listed[FS_LISTED_SLOTS];
	struct fs_options opt;
	bool as_root;		/* new nodes need handing to the caller */
	fs_change_fn hook;
	void *hook_arg;
	size_t nviews;
	struct fs_view views[FS_MAX_VIEWS];
	const struct fs_xattr_ops *xops;
	void *xops_arg;
	pthread_mutex_t open_lock;
	struct fs_vfile *open_entries;	/* open real-file entries, by path */
	struct fs_links *links;		/* names of hard-linked files (fsops_links.c) */
};

/* An open view file: the view's own handle (fd -1), or a file of SRC
 * opened for a real-file entry (fs_view_ops.source), with the entry's
 * attributes at open. */
struct fs_vfile {
	int fd;
	uint64_t fh;
	struct stat st;
	/* listed in fs->open_entries under their FUSE path (when path is
	 * set), so an fstat() (a GETATTR without a handle) finds them once
	 * the entry is gone (its book deleted or renamed) */
	struct fs_vfile *next;
	char *path;
	uid_t uid;	/* who opened it: found by path for that user only */
};

static inline struct fs_vfile *fs_vfile_of(const struct fuse_file_info *fi)
{
	return (struct fs_vfile *)(uintptr_t)fi->fh;
}

static inline struct fs *fs_cur(void)
{
	return fuse_get_context()->private_data;
}

/* After any change to SRC (see struct fs gen). */
static inline void fs_changed(struct fs *fs)
{
	atomic_fetch_add(&fs->gen, 1);
}

/* The view owning path, with *rel set to the path below the view's
 * directory; NULL when SRC serves path. */
static inline const struct fs_view *fs_view_of(const struct fs *fs, const char *path,
						const char **rel)
{
	const char *rest;
	size_t i;

	if (!fs->nviews || !path)
		return NULL;
	for (i = 0; i < fs->nviews; i++) {
		rest = fspath_under(path, fs->views[i].name, fs->views[i].len);
		if (rest) {
			if (rel)
				*rel = *rest == '/' ? rest + 1 : rest;
			return &fs->views[i];
		}
	}
	return NULL;
}

/* Reports a completed change of SRC to the change hook (fsops.c): path
 * and path2 are FUSE paths ("/dir/book.epub"), path2 NULL unless the
 * change has two names. */
void fs_notify(const struct fs *fs, enum fs_change what, const char *path, const char *path2);

/* Names and attributes (fsops_node.c). */
int fs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi);
/* Hands the node at fp (or the open fd >= 0) that root just created to the
 * caller; 0 or -errno. */
int fs_give_to_caller(const struct fs *fs, const struct fspath *fp, int fd);
/* Removes the node at fp again (unlinkat() flags), keeping errno. */
void fs_undo_create(const struct fspath *fp, int flags);

/* Open view files (fsops_file.c): the attributes of the open entry vf, or
 * of the entry open at the FUSE path path (-ENOENT: none is). */
int fs_vfile_stat(const struct fs_vfile *vf, struct stat *st);
int fs_open_entry_stat(struct fs *fs, const char *path, struct stat *st);

/* Hard links (fsops_links.c).  Every name of a file is its own kernel
 * inode with its own cached attributes: the names of files with several
 * links that the kernel was given are remembered by inode, and a change
 * through one name drops the kernel's attributes of the others.  Paths are
 * FUSE paths; the calls are thread-safe and cost an atomic load while no
 * hard-linked file was seen. */
int fs_links_new(struct fs_links **out);
void fs_links_free(struct fs_links *l);
/* Whether any name is remembered (when not, callers skip the stat they
 * would make for the others). */
bool fs_links_any(const struct fs *fs);
/* path was handed to the kernel with the attributes st: remembered when a
 * non-directory has several links; its inode forgotten at one link. */
void fs_links_seen(struct fs *fs, const char *path, const struct stat *st);
/* The file st was changed through path (st: its attributes before or
 * after): the kernel forgets the attributes of its other names. */
void fs_links_changed(struct fs *fs, const char *path, const struct stat *st);
/* path, one of the names of st (its attributes before), is gone (unlink,
 * renamed over): forgotten, and the kernel forgets the others'. */
void fs_links_gone(struct fs *fs, const char *path, const struct stat *st);
/* from was renamed to to (swapped with exchange): the names at or below
 * it follow. */
void fs_links_moved(struct fs *fs, const char *from, const char *to, bool exchange);
/* After a change through path (or the open fd >= 0): fs_links_changed()
 * with the file's attributes now. */
void fs_links_touched(struct fs *fs, const char *path, int fd);
/* The attributes of path (not followed) when fs_links_any(), for taking
 * them before a change; -ENOENT otherwise, or -errno. */
int fs_links_stat(const struct fs *fs, const char *path, struct stat *st);

/* Each part puts its operations into ops (fs_get_operations()). */
void fs_node_fill_ops(struct fuse_operations *ops);
void fs_file_fill_ops(struct fuse_operations *ops);
void fs_dir_fill_ops(struct fuse_operations *ops);
void fs_xattr_fill_ops(const struct fs *fs, struct fuse_operations *ops);

#endif
