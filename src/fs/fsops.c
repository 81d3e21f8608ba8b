/* fsops.c - the passthrough operations (see fsops.h).
 *
 * Every operation maps to the matching *at() syscall on (dirfd, name) from
 * fspath, or to the open fd kept in fi->fh.  No fd is held per inode: only
 * open files and directories own one, so libraries of any size fit in the
 * fd limit.  Errors are the underlying syscall's errno, unchanged.
 */
#include "fsops.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "dirahead.h"
#include "fspath.h"

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
};

/* A view directory's listing, taken whole when the kernel reads from
 * offset 0 (one consistent snapshot) and handed out in pieces with offsets:
 * libfuse turns entries the view gives with attributes (FUSE_FILL_DIR_PLUS)
 * into readdirplus entries only for fillers called with offsets, and each
 * one the kernel gets so saves it a lookup. */
struct fs_ventry {
	char *name;
	struct stat st;
	bool has_st;
	enum fuse_fill_dir_flags flags;
};

struct fs_vlist {
	struct fs_ventry *e;
	size_t n, cap;
	int err;
	bool filled;	/* taken (a first read may come at an offset: seekdir) */
};

/* An open directory: its stream, read ahead with attributes while the
 * kernel lists it with readdirplus and listed in pieces at stable telldir()
 * offsets; for a view directory (dd NULL) the snapshot of its listing. */
struct fs_dir {
	struct fs_vlist vl;
	struct dirahead_dir *dd;
	struct stat st;		/* of the directory at opendir */
	bool known;		/* the kernel has every entry with attributes */
	bool plus_whole;	/* this listing sent every entry with attributes */
	struct timespec started;
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
};

static struct fs_vfile *fs_vfile_of(const struct fuse_file_info *fi)
{
	return (struct fs_vfile *)(uintptr_t)fi->fh;
}

/* The attributes of an open entry: those of the entry at open, with the
 * size and times the book has now for a real-file entry (a view's own
 * file keeps what it was at open, as its handle does). */
static int fs_vfile_stat(const struct fs_vfile *vf, struct stat *st)
{
	struct stat cur;

	if (vf->fd < 0) {
		*st = vf->st;
		return 0;
	}
	if (fstat(vf->fd, &cur) < 0)
		return -errno;
	*st = vf->st;
	st->st_size = cur.st_size;
	st->st_blocks = cur.st_blocks;
	st->st_mtim = cur.st_mtim;
	st->st_ctim = cur.st_ctim;
	st->st_atim = cur.st_atim;
	return 0;
}

/* The entry at path when one is open: the kernel asks for an open file's
 * attributes by path (fstat() sends no handle), after its book may be gone. */
static int fs_open_entry_stat(struct fs *fs, const char *path, struct stat *st)
{
	struct fs_vfile *vf;
	int ret = -ENOENT;

	pthread_mutex_lock(&fs->open_lock);
	for (vf = fs->open_entries; vf; vf = vf->next) {
		if (strcmp(vf->path, path) == 0) {
			ret = fs_vfile_stat(vf, st);
			break;
		}
	}
	pthread_mutex_unlock(&fs->open_lock);
	return ret;
}

static struct fs *fs_cur(void)
{
	return fuse_get_context()->private_data;
}

/* After any change to SRC (see struct fs gen). */
static void fs_changed(struct fs *fs)
{
	atomic_fetch_add(&fs->gen, 1);
}

int fs_new(struct fs **out, int rootfd, const struct fs_options *opt)
{
	struct fs *fs = calloc(1, sizeof(*fs));

	if (!fs)
		return -ENOMEM;
	fs->rootfd = rootfd;
	fs->opt = *opt;
	fs->as_root = geteuid() == 0;
	if (dirahead_new(&fs->dra, &fs->gen) != 0) {
		free(fs);
		return -ENOMEM;
	}
	pthread_mutex_init(&fs->listed_lock, NULL);
	pthread_mutex_init(&fs->open_lock, NULL);
	*out = fs;
	return 0;
}

void fs_free(struct fs *fs)
{
	if (!fs)
		return;
	dirahead_free(fs->dra);
	pthread_mutex_destroy(&fs->listed_lock);
	pthread_mutex_destroy(&fs->open_lock);
	free(fs);
}

void fs_set_change_hook(struct fs *fs, fs_change_fn fn, void *arg)
{
	fs->hook = fn;
	fs->hook_arg = arg;
}

int fs_add_view(struct fs *fs, const char *name, const struct fs_view_ops *ops, void *arg)
{
	size_t i;

	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	for (i = 0; i < fs->nviews; i++)
		if (!strcmp(fs->views[i].name, name))
			return -EEXIST;
	if (fs->nviews == FS_MAX_VIEWS)
		return -ENOSPC;
	fs->views[fs->nviews++] = (struct fs_view){ name, strlen(name), ops, arg, false };
	return 0;
}

int fs_hide_name(struct fs *fs, const char *name)
{
	static const struct fs_view_ops none;
	int ret = fs_add_view(fs, name, &none, NULL);

	if (!ret)
		fs->views[fs->nviews - 1].hidden = true;
	return ret;
}

void fs_set_xattr_hook(struct fs *fs, const struct fs_xattr_ops *ops, void *arg)
{
	fs->xops = ops;
	fs->xops_arg = arg;
}

/* The view owning path, with *rel set to the path below the view's
 * directory; NULL when SRC serves path. */
static const struct fs_view *fs_view_of(const struct fs *fs, const char *path, const char **rel)
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

/* Reports a change to the hook.  libfuse unlinks an open file by renaming
 * it to a .fuse_hidden name and removes that name at the last close: for
 * the library the file left at the rename, and the hidden name never
 * existed, so only the library name is reported, as what happened to it. */
static void fs_notify(const struct fs *fs, enum fs_change what, const char *path, const char *path2)
{
	bool h1, h2;

	if (!fs->hook || !path)
		return;
	h1 = fspath_fuse_hidden(path);
	h2 = path2 && fspath_fuse_hidden(path2);
	if (h1 || h2) {
		if (h1 && (h2 || !path2))
			return;
		if (what == FS_CHANGE_RENAME && h2)
			what = FS_CHANGE_UNLINK;	/* path went away */
		else if (what == FS_CHANGE_LINK && h2)
			return;				/* path itself is unchanged */
		else
			what = FS_CHANGE_WRITE;		/* the library name got the content */
		if (h1)
			path = path2;
		path2 = NULL;
	}
	fs->hook(fs->hook_arg, what, path + 1, path2 ? path2 + 1 : NULL);
}

/* Hands a node just created by root to the caller, as a kernel filesystem
 * would create it: the caller's uid, and the caller's gid unless the parent
 * directory is setgid (then the group the kernel inherited stays).  fd >= 0
 * names the node, else (fp) without following a symlink. */
static int fs_give_to_caller(const struct fs *fs, const struct fspath *fp, int fd)
{
	struct fuse_context *ctx = fuse_get_context();
	struct stat parent;
	gid_t gid = ctx->gid;
	int ret;

	if (!fs->as_root || (ctx->uid == 0 && ctx->gid == 0))
		return 0;
	ret = fspath_parent_stat(fp, &parent);
	if (ret)
		return ret;
	if (parent.st_mode & S_ISGID)
		gid = (gid_t)-1;
	if (fd >= 0)
		ret = fchown(fd, ctx->uid, gid);
	else
		ret = fchownat(fp->dirfd, fp->name, ctx->uid, gid, AT_SYMLINK_NOFOLLOW);
	return ret < 0 ? -errno : 0;
}

/* Undoes a creation whose ownership could not be set, so that no node owned
 * by root is left behind for a user. */
static void fs_undo_create(const struct fspath *fp, int flags)
{
	int saved = errno;

	unlinkat(fp->dirfd, fp->name, flags);
	errno = saved;
}

static int fs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	struct fs *fs = fs_cur();
	const struct fs_view *v;
	struct fspath fp = FSPATH_INIT;
	const char *rel;
	int ret;

	if ((v = fs_view_of(fs, path, &rel))) {
		/* An open real-file entry stays what it was, even once gone. */
		if (fi && fs_vfile_of(fi)->fd >= 0)
			return fs_vfile_stat(fs_vfile_of(fi), st);
		ret = v->ops->getattr ? v->ops->getattr(v->arg, rel, st) : -ENOENT;
		if (ret == -ENOENT)
			ret = fs_open_entry_stat(fs, path, st);
		return ret;
	}
	if (fi)
		return fstat((int)fi->fh, st) < 0 ? -errno : 0;
	ret = fspath_resolve(&fp, fs->rootfd, path);
	if (ret)
		return ret;
	ret = fstatat(fp.dirfd, fp.name, st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
	fspath_release(&fp);
	return ret;
}

static int fs_readlink(const char *path, char *buf, size_t size)
{
	struct fs *fs = fs_cur();
	const struct fs_view *v;
	struct fspath fp = FSPATH_INIT;
	const char *rel;
	ssize_t n;
	int ret;

	if ((v = fs_view_of(fs, path, &rel)))
		return v->ops->readlink ? v->ops->readlink(v->arg, rel, buf, size) : -ENOENT;
	ret = fspath_resolve(&fp, fs->rootfd, path);
	if (ret)
		return ret;
	n = readlinkat(fp.dirfd, fp.name, buf, size - 1);
	if (n < 0) {
		ret = -errno;
		goto out;
	}
	buf[n] = '\0';
out:
	fspath_release(&fp);
	return ret;
}

static int fs_mknod(const char *path, mode_t mode, dev_t rdev)
{
	struct fs *fs = fs_cur();
	struct fspath fp = FSPATH_INIT;
	int ret;

	if (fs_view_of(fs, path, NULL))
		return -EROFS;
	ret = fspath_resolve(&fp, fs->rootfd, path);
	if (ret)
		return ret;
	if (mknodat(fp.dirfd, fp.name, mode, rdev) < 0) {
		ret = -errno;
		goto out;
	}
	ret = fs_give_to_caller(fs, &fp, -1);
	if (ret)
		fs_undo_create(&fp, 0);
out:
	fspath_release(&fp);
	fs_changed(fs);
	return ret;
}

static int fs_mkdir(const char *path, mode_t mode)
{
	struct fs *fs = fs_cur();
	struct fspath fp = FSPATH_INIT;
	int ret;

	if (fs_view_of(fs, path, NULL))
		return -EROFS;
	ret = fspath_resolve(&fp, fs->rootfd, path);
	if (ret)
		return ret;
	if (mkdirat(fp.dirfd, fp.name, mode) < 0) {
		ret = -errno;
		goto out;
	}
	ret = fs_give_to_caller(fs, &fp, -1);
	if (ret)
		fs_undo_create(&fp, AT_REMOVEDIR);
out:
	fspath_release(&fp);
	fs_changed(fs);
	return ret;
}

static int fs_symlink(const char *target, const char *path)
{
	struct fs *fs = fs_cur();
	struct fspath fp = FSPATH_INIT;
	int ret;

	if (fs_view_of(fs, path, NULL))
		return -EROFS;
	ret = fspath_resolve(&fp, fs->rootfd, path);
	if (ret)
		return ret;
	if (symlinkat(target, fp.dirfd, fp.name) < 0) {
		ret = -errno;
		goto out;
	}
	ret = fs_give_to_caller(fs, &fp, -1);
	if (ret)
		fs_undo_create(&fp, 0);
out:
	fspath_release(&fp);
	fs_changed(fs);
	return ret;
}

static int fs_remove(const char *path, int flags)
{
	struct fs *fs = fs_cur();
	const struct fs_view *v;
	struct fspath fp = FSPATH_INIT;
	const char *rel;
	int ret;

	if ((v = fs_view_of(fs, path, &rel)))
		return !flags && v->ops->unlink ? v->ops->unlink(v->arg, rel) : -EROFS;
	ret = fspath_resolve(&fp, fs->rootfd, path);
	if (ret)
		return ret;
	ret = unlinkat(fp.dirfd, fp.name, flags) < 0 ? -errno : 0;
	fspath_release(&fp);
	fs_changed(fs);
	if (!ret && !flags)
		fs_notify(fs, FS_CHANGE_UNLINK, path, NULL);
	return ret;
}

static int fs_unlink(const char *path)
{
	return fs_remove(path, 0);
}

static int fs_rmdir(const char *path)
{
	return fs_remove(path, AT_REMOVEDIR);
}

/* Resolves two paths for the two-name operations. */
static int fs_resolve2(const struct fs *fs, const char *a, const char *b, struct fspath *fa,
		       struct fspath *fb)
{
	int ret;

	if (fs_view_of(fs, a, NULL) || fs_view_of(fs, b, NULL))
		return -EROFS;
	ret = fspath_resolve(fa, fs->rootfd, a);
	if (ret)
		return ret;
	ret = fspath_resolve(fb, fs->rootfd, b);
	if (ret)
		fspath_release(fa);
	return ret;
}

static int fs_rename(const char *from, const char *to, unsigned int flags)
{
	struct fs *fs = fs_cur();
	struct fspath fa = FSPATH_INIT, fb = FSPATH_INIT;
	int ret;

	ret = fs_resolve2(fs, from, to, &fa, &fb);
	if (ret)
		return ret;
	ret = renameat2(fa.dirfd, fa.name, fb.dirfd, fb.name, flags) < 0 ? -errno : 0;
	fspath_release(&fa);
	fspath_release(&fb);
	fs_changed(fs);
	if (!ret)
		fs_notify(fs, flags & RENAME_EXCHANGE ? FS_CHANGE_EXCHANGE : FS_CHANGE_RENAME,
			  from, to);
	return ret;
}

static int fs_link(const char *from, const char *to)
{
	struct fs *fs = fs_cur();
	struct fspath fa = FSPATH_INIT, fb = FSPATH_INIT;
	int ret;

	ret = fs_resolve2(fs, from, to, &fa, &fb);
	if (ret)
		return ret;
	ret = linkat(fa.dirfd, fa.name, fb.dirfd, fb.name, 0) < 0 ? -errno : 0;
	fspath_release(&fa);
	fspath_release(&fb);
	fs_changed(fs);
	if (!ret) {
		/* The high-level API gives each name its own kernel inode: drop
		 * the old name's cached attributes so its link count is fresh. */
		fuse_invalidate_path(fuse_get_context()->fuse, from);
		fs_notify(fs, FS_CHANGE_LINK, from, to);
	}
	return ret;
}

static int fs_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	struct fs *fs = fs_cur();
	struct fspath fp = FSPATH_INIT;
	int ret;

	if (fs_view_of(fs, path, NULL))
		return -EROFS;
	if (fi) {
		ret = fchmod((int)fi->fh, mode) < 0 ? -errno : 0;
	} else {
		ret = fspath_resolve(&fp, fs->rootfd, path);
		if (!ret)
			ret = fchmodat(fp.dirfd, fp.name, mode, 0) < 0 ? -errno : 0;
		fspath_release(&fp);
	}
	fs_changed(fs);
	return ret;
}

static int fs_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
	struct fs *fs = fs_cur();
	struct fspath fp = FSPATH_INIT;
	int ret;

	if (fs_view_of(fs, path, NULL))
		return -EROFS;
	if (fi) {
		ret = fchown((int)fi->fh, uid, gid) < 0 ? -errno : 0;
	} else {
		ret = fspath_resolve(&fp, fs->rootfd, path);
		if (!ret)
			ret = fchownat(fp.dirfd, fp.name, uid, gid, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
		fspath_release(&fp);
	}
	fs_changed(fs);
	return ret;
}

static int fs_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	struct fs *fs = fs_cur();
	struct fspath fp = FSPATH_INIT;
	int fd = -1, ret;

	if (fs_view_of(fs, path, NULL))
		return -EROFS;
	if (fi) {
		ret = ftruncate((int)fi->fh, size) < 0 ? -errno : 0;
		goto out;
	}
	ret = fspath_resolve(&fp, fs->rootfd, path);
	if (ret)
		return ret;
	fd = openat(fp.dirfd, fp.name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	ret = ftruncate(fd, size) < 0 ? -errno : 0;
out:
	if (fd >= 0)
		close(fd);
	fspath_release(&fp);
	fs_changed(fs);
	if (!ret)
		fs_notify(fs, FS_CHANGE_WRITE, path, NULL);
	return ret;
}

static int fs_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
	struct fs *fs = fs_cur();
	struct fspath fp = FSPATH_INIT;
	int ret;

	if (fs_view_of(fs, path, NULL))
		return -EROFS;
	if (fi) {
		ret = futimens((int)fi->fh, tv) < 0 ? -errno : 0;
	} else {
		ret = fspath_resolve(&fp, fs->rootfd, path);
		if (!ret)
			ret = utimensat(fp.dirfd, fp.name, tv, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
		fspath_release(&fp);
	}
	fs_changed(fs);
	return ret;
}

static void fs_open_flags(struct fuse_file_info *fi)
{
	/* O_DIRECT callers get uncached I/O end to end. */
	if (fi->flags & O_DIRECT)
		fi->direct_io = 1;
}

/* Whether the caller may search every folder above path (relative to
 * SRC): a real-file view entry reaches a file whose folders the kernel did
 * not check.  A caller with the daemon's uid is checked by the open itself. */
static int fs_may_reach(const struct fs *fs, const char *path)
{
	struct fuse_context *ctx = fuse_get_context();
	gid_t groups[64];
	char dir[PATH_MAX];
	const char *slash;
	struct stat st;
	int ng = -1, i, ok;

	if (ctx->uid == 0 || ctx->uid == geteuid())
		return 0;
	for (slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
		if ((size_t)(slash - path) >= sizeof(dir))
			return -ENAMETOOLONG;
		memcpy(dir, path, (size_t)(slash - path));
		dir[slash - path] = '\0';
		if (fstatat(fs->rootfd, dir, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return -errno;
		if (st.st_uid == ctx->uid) {
			ok = st.st_mode & S_IXUSR;
		} else {
			ok = st.st_gid == ctx->gid;
			if (!ok && ng < 0)
				ng = fuse_getgroups((int)(sizeof(groups) / sizeof(groups[0])), groups);
			for (i = 0; !ok && i < ng && i < (int)(sizeof(groups) / sizeof(groups[0])); i++)
				ok = groups[i] == st.st_gid;
			ok = ok ? st.st_mode & S_IXGRP : st.st_mode & S_IXOTH;
		}
		if (!ok)
			return -EACCES;
	}
	return 0;
}

/* Opens path, the file of SRC behind the real-file view entry rel ("/" and
 * the path relative to SRC), read-only. */
static int fs_open_source(struct fs *fs, const struct fs_view *v, const char *rel,
			  const char *path, struct fs_vfile *vf)
{
	struct fspath fp = FSPATH_INIT;
	struct stat st;
	int fd = -1, ret;

	ret = fs_may_reach(fs, path + 1);
	if (!ret)
		ret = v->ops->getattr ? v->ops->getattr(v->arg, rel, &vf->st) : -ENOENT;
	if (!ret)
		ret = fspath_resolve(&fp, fs->rootfd, path);
	if (ret)
		return ret;
	/* Non-blocking: a FIFO swapped in since must not hang the open. */
	fd = openat(fp.dirfd, fp.name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		ret = -errno;
	else if (fstat(fd, &st) < 0)
		ret = -errno;
	else if (!S_ISREG(st.st_mode))
		ret = -ENOENT;
	if (ret && fd >= 0)
		close(fd);
	else if (!ret)
		vf->fd = fd;
	fspath_release(&fp);
	return ret;
}

static int fs_view_open(struct fs *fs, const struct fs_view *v, const char *fpath,
			const char *rel, struct fuse_file_info *fi)
{
	int wr = (fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & O_TRUNC);
	struct fs_vfile *vf;
	char path[PATH_MAX];
	int ret;

	if (wr && !v->ops->write)
		return -EROFS;
	vf = calloc(1, sizeof(*vf));
	if (!vf)
		return -ENOMEM;
	vf->fd = -1;
	path[0] = '/';
	ret = v->ops->source ? v->ops->source(v->arg, rel, path + 1, sizeof(path) - 1) : -EINVAL;
	if (!ret && wr) {
		ret = -EROFS;	/* a book behind a real-file entry */
	} else if (!ret) {
		ret = fs_open_source(fs, v, rel, path, vf);
		if (!ret && !(vf->path = strdup(fpath))) {
			close(vf->fd);
			ret = -ENOMEM;
		}
		if (!ret) {
			fs_open_flags(fi);
			pthread_mutex_lock(&fs->open_lock);
			vf->next = fs->open_entries;
			fs->open_entries = vf;
			pthread_mutex_unlock(&fs->open_lock);
		}
	} else if (ret == -EINVAL) {
		/* a view's own file (.similar.tsv) is listed too: when its book
		 * goes while it is open, an fstat() must still find it (rsync
		 * -aL failed with "fstat failed: ENOENT").  Its attributes are
		 * taken first: a file gone by then is not opened. */
		ret = v->ops->getattr ? v->ops->getattr(v->arg, rel, &vf->st) : 0;
		if (!ret)
			ret = v->ops->open ? v->ops->open(v->arg, rel, fi) : -EACCES;
		vf->fh = fi->fh;
		if (!ret && v->ops->getattr && (vf->path = strdup(fpath))) {
			pthread_mutex_lock(&fs->open_lock);
			vf->next = fs->open_entries;
			fs->open_entries = vf;
			pthread_mutex_unlock(&fs->open_lock);
		}
	}
	if (ret) {
		free(vf);
		return ret;
	}
	fi->fh = (uintptr_t)vf;
	return 0;
}

static int fs_open(const char *path, struct fuse_file_info *fi)
{
	struct fs *fs = fs_cur();
	const struct fs_view *v;
	struct fspath fp = FSPATH_INIT;
	const char *rel;
	int fd, ret;

	if ((v = fs_view_of(fs, path, &rel)))
		return fs_view_open(fs, v, path, rel, fi);
	ret = fspath_resolve(&fp, fs->rootfd, path);
	if (ret)
		return ret;
	fd = openat(fp.dirfd, fp.name, fi->flags | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	fi->fh = (uint64_t)fd;
	fs_open_flags(fi);
out:
	fspath_release(&fp);
	if (fi->flags & O_TRUNC)
		fs_changed(fs);
	return ret;
}

static int fs_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	struct fs *fs = fs_cur();
	struct fspath fp = FSPATH_INIT;
	int flags = fi->flags | O_CREAT | O_NOFOLLOW | O_CLOEXEC;
	int fd = -1, ret;

	if (fs_view_of(fs, path, NULL))
		return -EROFS;
	ret = fspath_resolve(&fp, fs->rootfd, path);
	if (ret)
		return ret;
	/* Only a node this call created may change owner: create exclusively,
	 * and fall back to opening what a racing creator made. */
	fd = openat(fp.dirfd, fp.name, flags | O_EXCL, mode);
	if (fd < 0 && errno == EEXIST && !(fi->flags & O_EXCL)) {
		fd = openat(fp.dirfd, fp.name, flags & ~O_CREAT);
		if (fd < 0) {
			ret = -errno;
			goto out;
		}
	} else if (fd < 0) {
		ret = -errno;
		goto out;
	} else {
		ret = fs_give_to_caller(fs, &fp, fd);
		if (ret) {
			close(fd);
			fd = -1;
			fs_undo_create(&fp, 0);
			goto out;
		}
	}
	fi->fh = (uint64_t)fd;
	fs_open_flags(fi);
out:
	fspath_release(&fp);
	fs_changed(fs);
	return ret;
}

static int fs_read_buf(const char *path, struct fuse_bufvec **bufp, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	struct fs *fs = fs_cur();
	const struct fs_view *v;
	struct fuse_file_info own;
	struct fuse_bufvec *bv;
	const char *rel = NULL;
	int n, fd;

	bv = malloc(sizeof(*bv));
	if (!bv)
		return -ENOMEM;
	*bv = FUSE_BUFVEC_INIT(size);
	fd = (int)fi->fh;
	if ((v = fs_view_of(fs, path, &rel)))
		fd = fs_vfile_of(fi)->fd;
	if (fd < 0) {
		own = *fi;
		own.fh = fs_vfile_of(fi)->fh;
		bv->buf[0].mem = malloc(size ? size : 1);
		if (!bv->buf[0].mem) {
			free(bv);
			return -ENOMEM;
		}
		n = v->ops->read ? v->ops->read(v->arg, rel, bv->buf[0].mem, size, off, &own) : -EIO;
		if (n < 0) {
			free(bv->buf[0].mem);
			free(bv);
			return n;
		}
		bv->buf[0].size = (size_t)n;
	} else {
		/* Hand the kernel the fd: libfuse splices file -> pipe -> device. */
		bv->buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK;
		bv->buf[0].fd = fd;
		bv->buf[0].pos = off;
	}
	*bufp = bv;
	return 0;
}

/* A write to a view's own file, handed to the view in one piece. */
static int fs_view_write(const struct fs_view *v, const char *rel, struct fuse_bufvec *buf,
			 off_t off, struct fuse_file_info *fi)
{
	size_t size = fuse_buf_size(buf);
	struct fuse_bufvec dst = FUSE_BUFVEC_INIT(size);
	struct fuse_file_info own = *fi;
	ssize_t n;
	char *mem;
	int ret;

	if (!v->ops->write || fs_vfile_of(fi)->fd >= 0)
		return -EBADF;
	mem = malloc(size ? size : 1);
	if (!mem)
		return -ENOMEM;
	dst.buf[0].mem = mem;
	n = fuse_buf_copy(&dst, buf, 0);
	own.fh = fs_vfile_of(fi)->fh;
	ret = n < 0 ? (int)n : v->ops->write(v->arg, rel, mem, (size_t)n, off, &own);
	free(mem);
	return ret;
}

static int fs_write_buf(const char *path, struct fuse_bufvec *buf, off_t off,
			struct fuse_file_info *fi)
{
	struct fuse_bufvec dst = FUSE_BUFVEC_INIT(fuse_buf_size(buf));
	const struct fs_view *v;
	const char *rel;
	ssize_t n;

	if ((v = fs_view_of(fs_cur(), path, &rel)))
		return fs_view_write(v, rel, buf, off, fi);
	dst.buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK;
	dst.buf[0].fd = (int)fi->fh;
	dst.buf[0].pos = off;
	n = fuse_buf_copy(&dst, buf, FUSE_BUF_SPLICE_NONBLOCK);
	fs_changed(fs_cur());
	return (int)n;
}

static int fs_statfs(const char *path, struct statvfs *st)
{
	(void)path;
	return fstatvfs(fs_cur()->rootfd, st) < 0 ? -errno : 0;
}

static int fs_release(const char *path, struct fuse_file_info *fi)
{
	struct fs *fs = fs_cur();
	const struct fs_view *v;
	const char *rel;

	if ((v = fs_view_of(fs, path, &rel))) {
		struct fs_vfile *vf = fs_vfile_of(fi);
		struct fuse_file_info own = *fi;

		own.fh = vf->fh;
		if (vf->path) {
			struct fs_vfile **pp;

			pthread_mutex_lock(&fs->open_lock);
			for (pp = &fs->open_entries; *pp && *pp != vf; pp = &(*pp)->next)
				;
			if (*pp)
				*pp = vf->next;
			pthread_mutex_unlock(&fs->open_lock);
			free(vf->path);
		}
		if (vf->fd >= 0)
			close(vf->fd);
		else if (v->ops->release)
			v->ops->release(v->arg, rel, &own);
		free(vf);
		return 0;
	}
	close((int)fi->fh);
	if ((fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & O_TRUNC))
		fs_notify(fs, FS_CHANGE_WRITE, path, NULL);
	return 0;
}

static int fs_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	int fd = (int)fi->fh, ret;

	if (fs_view_of(fs_cur(), path, NULL))
		return 0;
	ret = datasync ? fdatasync(fd) : fsync(fd);
	return ret < 0 ? -errno : 0;
}

static bool fs_ts_eq(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

static struct fs_listed *fs_listed_slot(struct fs *fs, const struct stat *st)
{
	return &fs->listed[(st->st_ino * 0x9e3779b97f4a7c15ULL >> 40) % FS_LISTED_SLOTS];
}

/* Whether the kernel still holds every entry of the directory, with
 * attributes, from a complete readdirplus listing of it as it is now. */
static bool fs_listed_known(struct fs *fs, const struct stat *st)
{
	struct fs_listed *l = fs_listed_slot(fs, st);
	struct timespec now;
	bool known;

	clock_gettime(CLOCK_MONOTONIC, &now);
	pthread_mutex_lock(&fs->listed_lock);
	known = l->ino == st->st_ino && l->dev == st->st_dev && fs_ts_eq(&l->mtime, &st->st_mtim) &&
		fs_ts_eq(&l->ctime, &st->st_ctim) &&
		(double)(now.tv_sec - l->at.tv_sec) + (double)(now.tv_nsec - l->at.tv_nsec) / 1e9 <
			fs->entry_timeout;
	pthread_mutex_unlock(&fs->listed_lock);
	return known;
}

static void fs_listed_record(struct fs *fs, const struct fs_dir *d)
{
	struct fs_listed *l = fs_listed_slot(fs, &d->st);

	pthread_mutex_lock(&fs->listed_lock);
	*l = (struct fs_listed){ d->st.st_dev, d->st.st_ino, d->st.st_mtim, d->st.st_ctim,
				 d->started };
	pthread_mutex_unlock(&fs->listed_lock);
}

static void fs_vlist_clear(struct fs_vlist *vl)
{
	size_t i;

	for (i = 0; i < vl->n; i++)
		free(vl->e[i].name);
	free(vl->e);
	*vl = (struct fs_vlist){ 0 };
}

/* The filler a view's readdir gets: keeps every entry. */
static int fs_vlist_add(void *buf, const char *name, const struct stat *st, off_t off,
			enum fuse_fill_dir_flags flags)
{
	struct fs_vlist *vl = buf;
	struct fs_ventry *e;

	(void)off;
	if (vl->n == vl->cap) {
		size_t cap = vl->cap ? 2 * vl->cap : 64;

		e = realloc(vl->e, cap * sizeof(*e));
		if (!e) {
			vl->err = -ENOMEM;
			return 1;
		}
		vl->e = e;
		vl->cap = cap;
	}
	e = &vl->e[vl->n];
	e->name = strdup(name);
	if (!e->name) {
		vl->err = -ENOMEM;
		return 1;
	}
	e->has_st = st != NULL;
	if (st)
		e->st = *st;
	e->flags = flags;
	vl->n++;
	return 0;
}

static int fs_opendir(const char *path, struct fuse_file_info *fi)
{
	struct fs *fs = fs_cur();
	struct fspath fp = FSPATH_INIT;
	struct fs_dir *d = NULL;
	DIR *dp = NULL;
	int fd = -1, ret;

	fi->fh = 0;
	if (fs_view_of(fs, path, NULL)) {
		d = calloc(1, sizeof(*d));
		if (!d)
			return -ENOMEM;
		fi->fh = (uintptr_t)d;
		return 0;
	}
	ret = fspath_resolve(&fp, fs->rootfd, path);
	if (ret)
		return ret;
	d = calloc(1, sizeof(*d));
	if (!d) {
		ret = -ENOMEM;
		goto out;
	}
	fd = openat(fp.dirfd, fp.name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	if (fstat(fd, &d->st) == 0)
		d->known = fs_listed_known(fs, &d->st);
	dp = fdopendir(fd);
	if (!dp) {
		ret = -errno;
		goto out;
	}
	fd = -1;
	ret = dirahead_dir_new(fs->dra, dp, &d->dd);
	if (ret)
		goto out;
	dp = NULL;
	fi->fh = (uintptr_t)d;
	d = NULL;
out:
	if (dp)
		closedir(dp);
	if (fd >= 0)
		close(fd);
	free(d);
	fspath_release(&fp);
	return ret;
}

/* Root listing while views are registered: the views' names, then SRC's
 * entries minus the names views hide, all at offset 0 (libfuse keeps the
 * whole listing), since telldir() cookies could collide with made-up
 * offsets for the views. */
static int fs_readdir_root_views(struct fs *fs, struct fs_dir *d, void *buf, fuse_fill_dir_t filler)
{
	struct dirahead_entry e;
	struct stat st;
	size_t i;
	int ret;

	for (i = 0; i < fs->nviews; i++) {
		const struct fs_view *v = &fs->views[i];

		if (v->hidden)
			continue;
		memset(&st, 0, sizeof(st));
		if (v->ops->getattr)
			v->ops->getattr(v->arg, "", &st);
		/* readdir(3) skips entries with inode 0. */
		if (!st.st_ino)
			st.st_ino = FS_VIEW_INO - i;
		st.st_mode = S_IFDIR;
		filler(buf, v->name, &st, 0, 0);
	}
	memset(&st, 0, sizeof(st));
	dirahead_seek(d->dd, 0);
	while ((ret = dirahead_peek(d->dd, false, &e)) == 1) {
		char top[NAME_MAX + 3];

		top[0] = '/';
		strcpy(top + 1, e.name);
		if (!fs_view_of(fs, top, NULL) && !fspath_fuse_hidden(e.name)) {
			st.st_ino = e.ino;
			st.st_mode = (mode_t)DTTOIF(e.type);
			filler(buf, e.name, &st, 0, 0);
		}
		dirahead_take(d->dd);
	}
	return ret;
}

/* A directory of SRC, from offset off.  ls -l lists again and again:
 * attributes the kernel still holds (d->known) are not fetched and sent
 * again.  Otherwise the helper fetches them ahead (dirahead.h): as many as
 * this reply held, while the kernel digests it, so the next request finds
 * its entries ready (a 10,000-entry ls -l is 51 requests). */
static int fs_readdir_src(struct fs *fs, struct fs_dir *d, void *buf, fuse_fill_dir_t filler,
			  off_t off, bool plus)
{
	bool attrs = plus && !d->known;
	unsigned sent = 0;
	struct dirahead_entry e;
	int ret;

	dirahead_seek(d->dd, (long)off);
	if (off == 0) {
		d->plus_whole = plus;
		clock_gettime(CLOCK_MONOTONIC, &d->started);
	} else if (!plus) {
		d->plus_whole = false;
	}
	/* The helper stops while this thread takes entries (no fighting over
	 * the lock): it reads ahead while the kernel digests the reply. */
	dirahead_ahead(d->dd, 0);
	while ((ret = dirahead_peek(d->dd, attrs, &e)) == 1) {
		enum fuse_fill_dir_flags fill = 0;
		struct stat st;

		/* Unlinked files still open are not listed, as on a local
		 * filesystem (they stay reachable by name). */
		if (!fspath_fuse_hidden(e.name)) {
			if (attrs && e.st_err == 0) {
				st = e.st;
				fill = FUSE_FILL_DIR_PLUS;
			} else {
				memset(&st, 0, sizeof(st));
				st.st_ino = e.ino;
				st.st_mode = (mode_t)DTTOIF(e.type);
			}
			if (filler(buf, e.name, &st, e.next, fill))
				break;
			sent++;
		}
		dirahead_take(d->dd);
	}
	if (ret == 0 && d->plus_whole && !d->known && d->st.st_ino)
		fs_listed_record(fs, d);
	if (ret == 1 && attrs && sent)
		dirahead_ahead(d->dd, sent);
	return ret < 0 ? ret : 0;
}

static int fs_readdir(const char *path, void *buf, fuse_fill_dir_t filler, off_t off,
		      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	struct fs *fs = fs_cur();
	struct fs_dir *d = (struct fs_dir *)(uintptr_t)fi->fh;
	const struct fs_view *v;
	const char *rel;
	bool plus = flags & FUSE_READDIR_PLUS;

	if ((v = fs_view_of(fs, path, &rel))) {
		size_t i;
		int ret;

		if (!v->ops->readdir)
			return -ENOENT;
		if (off == 0 || !d->vl.filled) {
			fs_vlist_clear(&d->vl);
			ret = v->ops->readdir(v->arg, rel, &d->vl, fs_vlist_add);
			if (!ret)
				ret = d->vl.err;
			if (ret) {
				fs_vlist_clear(&d->vl);
				return ret;
			}
			d->vl.filled = true;
		}
		for (i = (size_t)off; i < d->vl.n; i++) {
			const struct fs_ventry *e = &d->vl.e[i];

			if (filler(buf, e->name, e->has_st ? &e->st : NULL, (off_t)i + 1,
				   plus ? e->flags & FUSE_FILL_DIR_PLUS : 0))
				break;
		}
		return 0;
	}
	if (fs->nviews && path && !strcmp(path, "/"))
		return fs_readdir_root_views(fs, d, buf, filler);
	return fs_readdir_src(fs, d, buf, filler, off, plus);
}

static int fs_releasedir(const char *path, struct fuse_file_info *fi)
{
	struct fs_dir *d = (struct fs_dir *)(uintptr_t)fi->fh;

	(void)path;
	if (d) {
		dirahead_dir_free(d->dd);
		fs_vlist_clear(&d->vl);
		free(d);
	}
	return 0;
}

static int fs_fsyncdir(const char *path, int datasync, struct fuse_file_info *fi)
{
	struct fs_dir *d = (struct fs_dir *)(uintptr_t)fi->fh;
	int ret;

	(void)path;
	if (!d || !d->dd)
		return 0;
	ret = datasync ? fdatasync(dirahead_dir_fd(d->dd)) : fsync(dirahead_dir_fd(d->dd));
	return ret < 0 ? -errno : 0;
}

static void *fs_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	/* st_ino from SRC: hard links and rsync -H/find -samefile work. */
	cfg->use_ino = 1;
	/* An open file being unlinked is renamed to .fuse_hiddenXXXX in its
	 * folder and removed at its last close: with hard_remove the node
	 * loses its path, and every request that reaches us without a file
	 * handle (the fstat() of rsync, cp) fails with ESTALE. */
	cfg->hard_remove = 0;
	/* Cached pages survive open() unless mtime or size changed. */
	cfg->auto_cache = 1;
	cfg->kernel_cache = 0;
	cfg->direct_io = 0;
	fs_cur()->entry_timeout = cfg->entry_timeout;
	/* Paths stay available to read/release for view dispatch and the
	 * change hook. */
	cfg->nullpath_ok = 0;

	if (fs_cur()->opt.max_read)
		conn->max_read = fs_cur()->opt.max_read;
	if (conn->capable & FUSE_CAP_SPLICE_WRITE)
		conn->want |= FUSE_CAP_SPLICE_WRITE;
	if (conn->capable & FUSE_CAP_SPLICE_MOVE)
		conn->want |= FUSE_CAP_SPLICE_MOVE;
	if (conn->capable & FUSE_CAP_CACHE_SYMLINKS)
		conn->want |= FUSE_CAP_CACHE_SYMLINKS;
	/* The kernel clears setuid/setgid on writes by non-owners itself;
	 * our root-owned writes would keep them. */
	conn->want &= ~(unsigned)FUSE_CAP_HANDLE_KILLPRIV;
	return fs_cur();
}

static int fs_access(const char *path, int mask)
{
	struct fs *fs = fs_cur();
	struct fspath fp = FSPATH_INIT;
	const char *rel;
	struct stat st;
	int ret;

	if (fs_view_of(fs, path, &rel))
		return (mask & W_OK) ? -EROFS : fs_getattr(path, &st, NULL);
	ret = fspath_resolve(&fp, fs->rootfd, path);
	if (ret)
		return ret;
	ret = faccessat(fp.dirfd, fp.name, mask, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
	fspath_release(&fp);
	return ret;
}

static int fs_flock(const char *path, struct fuse_file_info *fi, int op)
{
	if (fs_view_of(fs_cur(), path, NULL))
		return -EOPNOTSUPP;
	return flock((int)fi->fh, op) < 0 ? -errno : 0;
}

static int fs_fallocate(const char *path, int mode, off_t off, off_t len,
			struct fuse_file_info *fi)
{
	int ret;

	if (fs_view_of(fs_cur(), path, NULL))
		return -EROFS;
	if (!fi)
		return -EOPNOTSUPP;
	ret = fallocate((int)fi->fh, mode, off, len) < 0 ? -errno : 0;
	fs_changed(fs_cur());
	return ret;
}

static ssize_t fs_copy_file_range(const char *path_in, struct fuse_file_info *fi_in,
				  off_t off_in, const char *path_out,
				  struct fuse_file_info *fi_out, off_t off_out, size_t len,
				  int flags)
{
	struct fs *fs = fs_cur();
	ssize_t n;

	if (fs_view_of(fs, path_in, NULL) || fs_view_of(fs, path_out, NULL))
		return -EXDEV;
	n = copy_file_range((int)fi_in->fh, &off_in, (int)fi_out->fh, &off_out, len,
			    (unsigned int)flags);
	fs_changed(fs);
	if (n < 0)
		return -errno;
	fs_notify(fs, FS_CHANGE_WRITE, path_out, NULL);
	return n;
}

static off_t fs_lseek(const char *path, off_t off, int whence, struct fuse_file_info *fi)
{
	struct stat st;
	off_t r;
	int ret;

	if (fs_view_of(fs_cur(), path, NULL) && fs_vfile_of(fi)->fd >= 0) {
		r = lseek(fs_vfile_of(fi)->fd, off, whence);
		return r < 0 ? -errno : r;
	}
	/* The views' own files have no holes: data up to the size, a hole at
	 * the end. */
	if (fs_view_of(fs_cur(), path, NULL)) {
		ret = fs_getattr(path, &st, NULL);
		if (ret)
			return ret;
		if (off < 0 || off >= st.st_size)
			return -ENXIO;
		return whence == SEEK_HOLE ? st.st_size : off;
	}
	r = lseek((int)fi->fh, off, whence);
	return r < 0 ? -errno : r;
}

/* Files are always ready, which the kernel says by itself once poll answers
 * ENOSYS (the first poll of any file, e.g. a Go program's epoll
 * registration).  Without this handler libfuse answers ENOSYS too but
 * leaks the poll handle it made; with it, the handle is ours to free. */
static int fs_poll(const char *path, struct fuse_file_info *fi, struct fuse_pollhandle *ph,
		   unsigned *reventsp)
{
	(void)path;
	(void)fi;
	(void)reventsp;
	if (ph)
		fuse_pollhandle_destroy(ph);
	return -ENOSYS;
}

/* The xattr family has no *at() form in glibc: go through the fd of the
 * walked parent in /proc, never following a final symlink. */
static int fs_xattr_path(const struct fs *fs, const char *path, struct fspath *fp,
			 char *buf, size_t size)
{
	int ret = fspath_resolve(fp, fs->rootfd, path);

	if (!ret) {
		ret = fspath_proc(fp, buf, size);
		if (ret)
			fspath_release(fp);
	}
	return ret;
}

static int fs_setxattr(const char *path, const char *name, const char *value, size_t size,
		       int flags)
{
	struct fs *fs = fs_cur();
	struct fspath fp = FSPATH_INIT;
	char proc[PATH_MAX];
	int ret;

	if (fs_view_of(fs, path, NULL))
		return -EROFS;
	ret = fs_xattr_path(fs, path, &fp, proc, sizeof(proc));
	if (ret)
		return ret;
	ret = lsetxattr(proc, name, value, size, flags) < 0 ? -errno : 0;
	fspath_release(&fp);
	fs_changed(fs);
	return ret;
}

static int fs_getxattr(const char *path, const char *name, char *value, size_t size)
{
	struct fs *fs = fs_cur();
	struct fspath fp = FSPATH_INIT;
	char proc[PATH_MAX];
	ssize_t n;
	int ret;

	if (fs_view_of(fs, path, NULL))
		return -ENODATA;
	if (fs->xops && fs->xops->get) {
		ret = fs->xops->get(fs->xops_arg, path + 1, name, value, size);
		if (ret != -ENODATA || !fs->opt.xattr)
			return ret;
	}
	ret = fs_xattr_path(fs, path, &fp, proc, sizeof(proc));
	if (ret)
		return ret;
	n = lgetxattr(proc, name, value, size);
	ret = n < 0 ? -errno : (int)n;
	fspath_release(&fp);
	return ret;
}

static int fs_listxattr(const char *path, char *list, size_t size)
{
	struct fs *fs = fs_cur();
	struct fspath fp = FSPATH_INIT;
	char proc[PATH_MAX];
	ssize_t n;
	int ret, own = 0;

	if (fs_view_of(fs, path, NULL))
		return 0;
	if (fs->xops && fs->xops->list) {
		own = fs->xops->list(fs->xops_arg, path + 1, list, size);
		if (own < 0 || !fs->opt.xattr)
			return own;
		if (size && (size_t)own > size)
			return -ERANGE;
	}
	ret = fs_xattr_path(fs, path, &fp, proc, sizeof(proc));
	if (ret)
		return ret;
	n = llistxattr(proc, size ? list + own : NULL, size ? size - (size_t)own : 0);
	ret = n < 0 ? -errno : (int)n + own;
	fspath_release(&fp);
	return ret;
}

static int fs_removexattr(const char *path, const char *name)
{
	struct fs *fs = fs_cur();
	struct fspath fp = FSPATH_INIT;
	char proc[PATH_MAX];
	int ret;

	if (fs_view_of(fs, path, NULL))
		return -EROFS;
	ret = fs_xattr_path(fs, path, &fp, proc, sizeof(proc));
	if (ret)
		return ret;
	ret = lremovexattr(proc, name) < 0 ? -errno : 0;
	fspath_release(&fp);
	fs_changed(fs);
	return ret;
}

void fs_get_operations(const struct fs *fs, struct fuse_operations *ops)
{
	memset(ops, 0, sizeof(*ops));
	ops->init = fs_init;
	ops->getattr = fs_getattr;
	ops->readlink = fs_readlink;
	ops->mknod = fs_mknod;
	ops->mkdir = fs_mkdir;
	ops->unlink = fs_unlink;
	ops->rmdir = fs_rmdir;
	ops->symlink = fs_symlink;
	ops->rename = fs_rename;
	ops->link = fs_link;
	ops->chmod = fs_chmod;
	ops->chown = fs_chown;
	ops->truncate = fs_truncate;
	ops->utimens = fs_utimens;
	ops->open = fs_open;
	ops->create = fs_create;
	ops->read_buf = fs_read_buf;
	ops->write_buf = fs_write_buf;
	ops->statfs = fs_statfs;
	ops->release = fs_release;
	ops->fsync = fs_fsync;
	ops->opendir = fs_opendir;
	ops->readdir = fs_readdir;
	ops->releasedir = fs_releasedir;
	ops->fsyncdir = fs_fsyncdir;
	ops->access = fs_access;
	ops->flock = fs_flock;
	ops->fallocate = fs_fallocate;
	ops->copy_file_range = fs_copy_file_range;
	ops->lseek = fs_lseek;
	ops->poll = fs_poll;
	/* Without handlers the kernel gets ENOSYS once and then answers every
	 * xattr request (security.* on each ls -l and write) by itself. */
	if (fs->opt.xattr) {
		ops->setxattr = fs_setxattr;
		ops->getxattr = fs_getxattr;
		ops->listxattr = fs_listxattr;
		ops->removexattr = fs_removexattr;
	} else if (fs->xops) {
		ops->getxattr = fs_getxattr;
		ops->listxattr = fs_listxattr;
	}
}
