/* fsops_file.c - the passthrough's open files: open and create, reads and
 * writes (spliced between the fd and /dev/fuse), release and the calls on
 * an open fd; and the open files of views: a view's own file (its handle)
 * or the book of SRC behind a real-file entry, read from its fd.
 */
#include "fsops_i.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fspath.h"

/* The attributes of an open entry: those of the entry at open, with the
 * size and times the book has now for a real-file entry (a view's own
 * file keeps what it was at open, as its handle does). */
int fs_vfile_stat(const struct fs_vfile *vf, struct stat *st)
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
int fs_open_entry_stat(struct fs *fs, const char *path, struct stat *st)
{
	struct fs_vfile *vf;
	int ret = -ENOENT;
	uid_t uid = fuse_get_context()->uid;

	pthread_mutex_lock(&fs->open_lock);
	for (vf = fs->open_entries; vf; vf = vf->next) {
		/* another user's open entry may be one they cannot see */
		if (strcmp(vf->path, path) == 0 && (vf->uid == uid || uid == 0)) {
			ret = fs_vfile_stat(vf, st);
			break;
		}
	}
	pthread_mutex_unlock(&fs->open_lock);
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
	vf->uid = fuse_get_context()->uid;
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
		/* Once open, the attributes of the content it serves
		 * (fs_view_ops.open). */
		if (!ret && v->ops->getattr) {
			struct stat st;

			if (v->ops->getattr(v->arg, rel, &st) == 0)
				vf->st = st;
		}
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
	/* at once: close() does not wait for the release */
	if (n > 0)
		fs_links_touched(fs_cur(), path, (int)fi->fh);
	return (int)n;
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
	if (!ret)
		fs_links_touched(fs_cur(), path, (int)fi->fh);
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
	fs_links_touched(fs, path_out, (int)fi_out->fh);
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

void fs_file_fill_ops(struct fuse_operations *ops)
{
	ops->open = fs_open;
	ops->create = fs_create;
	ops->read_buf = fs_read_buf;
	ops->write_buf = fs_write_buf;
	ops->release = fs_release;
	ops->fsync = fs_fsync;
	ops->flock = fs_flock;
	ops->fallocate = fs_fallocate;
	ops->copy_file_range = fs_copy_file_range;
	ops->lseek = fs_lseek;
	ops->poll = fs_poll;
}
