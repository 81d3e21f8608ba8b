/* fsops_dir.c - the passthrough's directories: a directory of SRC is read
 * ahead with attributes (dirahead.h) and not sent again while the kernel
 * holds its entries; a view directory's listing is one snapshot handed
 * out in pieces; the root lists the views' names with SRC's entries.
 */
#include "fsops_i.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dirahead.h"
#include "fspath.h"
#include "grow.h"

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
	if (ARRAY_GROW(vl->e, vl->cap, vl->n + 1)) {
		vl->err = -ENOMEM;
		return 1;
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

/* A hard-linked entry name of the directory path handed to the kernel with
 * its attributes (no lookup of it will follow). */
static void fs_links_seen_in(struct fs *fs, const char *path, const char *name,
			     const struct stat *st)
{
	char full[PATH_MAX];

	if (snprintf(full, sizeof(full), "%s/%s", strcmp(path, "/") ? path : "", name) <
	    (int)sizeof(full))
		fs_links_seen(fs, full, st);
}

/* A directory of SRC, from offset off.  ls -l lists again and again:
 * attributes the kernel still holds (d->known) are not fetched and sent
 * again.  Otherwise the helper fetches them ahead (dirahead.h): as many as
 * this reply held, while the kernel digests it, so the next request finds
 * its entries ready (a 10,000-entry ls -l is 51 requests). */
static int fs_readdir_src(struct fs *fs, const char *path, struct fs_dir *d, void *buf,
			  fuse_fill_dir_t filler, off_t off, bool plus)
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
			if (fill && st.st_nlink > 1 && !S_ISDIR(st.st_mode))
				fs_links_seen_in(fs, path, e.name, &st);
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
	return fs_readdir_src(fs, path, d, buf, filler, off, plus);
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

void fs_dir_fill_ops(struct fuse_operations *ops)
{
	ops->opendir = fs_opendir;
	ops->readdir = fs_readdir;
	ops->releasedir = fs_releasedir;
	ops->fsyncdir = fs_fsyncdir;
}
