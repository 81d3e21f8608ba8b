/* fsops_node.c - the passthrough's operations on names and attributes:
 * getattr, readlink, access, creating, removing, renaming and linking
 * nodes, and changing their mode, owner, size and times.  A node root
 * creates for a caller is handed to the caller (fs_give_to_caller).
 */
#include "fsops_i.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fspath.h"

/* Hands a node just created by root to the caller, as a kernel filesystem
 * would create it: the caller's uid, and the caller's gid unless the parent
 * directory is setgid (then the group the kernel inherited stays).  fd >= 0
 * names the node, else (fp) without following a symlink. */
int fs_give_to_caller(const struct fs *fs, const struct fspath *fp, int fd)
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
void fs_undo_create(const struct fspath *fp, int flags)
{
	int saved = errno;

	unlinkat(fp->dirfd, fp->name, flags);
	errno = saved;
}

int fs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	struct fs *fs = fs_cur();
	const struct fs_view *v;
	struct fspath fp = FSPATH_INIT;
	const char *rel;
	int ret;

	if ((v = fs_view_of(fs, path, &rel))) {
		/* An open entry stays what it was, even once gone. */
		if (fi && (fs_vfile_of(fi)->fd >= 0 || fs_vfile_of(fi)->path))
			return fs_vfile_stat(fs_vfile_of(fi), st);
		ret = v->ops->getattr ? v->ops->getattr(v->arg, rel, st) : -ENOENT;
		if (ret == -ENOENT)
			ret = fs_open_entry_stat(fs, path, st);
		return ret;
	}
	if (fi) {
		ret = fstat((int)fi->fh, st) < 0 ? -errno : 0;
	} else {
		ret = fspath_resolve(&fp, fs->rootfd, path);
		if (ret)
			return ret;
		ret = fstatat(fp.dirfd, fp.name, st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
		fspath_release(&fp);
	}
	if (!ret)
		fs_links_seen(fs, path, st);
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
	struct stat old;
	bool linked;
	int ret;

	if ((v = fs_view_of(fs, path, &rel)))
		return !flags && v->ops->unlink ? v->ops->unlink(v->arg, rel) : -EROFS;
	linked = !flags && fs_links_stat(fs, path, &old) == 0;
	ret = fspath_resolve(&fp, fs->rootfd, path);
	if (ret)
		return ret;
	ret = unlinkat(fp.dirfd, fp.name, flags) < 0 ? -errno : 0;
	fspath_release(&fp);
	fs_changed(fs);
	if (!ret && linked)
		fs_links_gone(fs, path, &old);
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
	struct stat sf, st;
	bool lf, lt;
	int ret;

	ret = fs_resolve2(fs, from, to, &fa, &fb);
	if (ret)
		return ret;
	/* Hard-linked files: both names' inodes as they were (a rename over
	 * a name takes a link from what it named). */
	lf = fs_links_stat(fs, from, &sf) == 0;
	lt = fs_links_stat(fs, to, &st) == 0 && !(lf && st.st_ino == sf.st_ino && st.st_dev == sf.st_dev);
	ret = renameat2(fa.dirfd, fa.name, fb.dirfd, fb.name, flags) < 0 ? -errno : 0;
	fspath_release(&fa);
	fspath_release(&fb);
	fs_changed(fs);
	if (!ret && lt && !(flags & RENAME_EXCHANGE))
		fs_links_gone(fs, to, &st);
	if (!ret && (lf || lt)) {
		fs_links_moved(fs, from, to, flags & RENAME_EXCHANGE);
		/* the moved inodes' ctime changed */
		if (lf)
			fs_links_changed(fs, to, &sf);
		if (lt && (flags & RENAME_EXCHANGE))
			fs_links_changed(fs, from, &st);
	}
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
		struct stat st;

		/* The high-level API gives each name its own kernel inode: drop
		 * the old name's cached attributes so its link count is fresh,
		 * and those of the file's other names; from is remembered as one
		 * of them (to is, once the kernel is given it). */
		fuse_invalidate_path(fuse_get_context()->fuse, from);
		if (fs_getattr(from, &st, NULL) == 0)
			fs_links_changed(fs, from, &st);
		fs_notify(fs, FS_CHANGE_LINK, from, to);
	}
	return ret;
}

/* After a chmod or chown through path: a folder's search bits or owner
 * decide who may reach the books below it (the views ask). */
static void fs_perm_touched(struct fs *fs, const char *path, struct fuse_file_info *fi)
{
	struct stat st;

	if ((fi ? fstat((int)fi->fh, &st) : fs_getattr(path, &st, NULL)) == 0 &&
	    S_ISDIR(st.st_mode))
		fs_notify(fs, FS_CHANGE_PERM, path, NULL);
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
	if (!ret)
		fs_links_touched(fs, path, fi ? (int)fi->fh : -1);
	if (!ret)
		fs_perm_touched(fs, path, fi);
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
	if (!ret)
		fs_links_touched(fs, path, fi ? (int)fi->fh : -1);
	if (!ret)
		fs_perm_touched(fs, path, fi);
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
	if (!ret) {
		fs_links_touched(fs, path, fi ? (int)fi->fh : -1);
		fs_notify(fs, FS_CHANGE_WRITE, path, NULL);
	}
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
	if (!ret)
		fs_links_touched(fs, path, fi ? (int)fi->fh : -1);
	return ret;
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

void fs_node_fill_ops(struct fuse_operations *ops)
{
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
	ops->access = fs_access;
}
