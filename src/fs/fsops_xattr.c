/* fsops_xattr.c - the passthrough's extended attributes: SRC's own (with
 * the xattr option) and the computed ones of the xattr hook.
 */
#include "fsops_i.h"

#include <errno.h>
#include <limits.h>
#include <sys/xattr.h>

#include "fspath.h"

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

void fs_xattr_fill_ops(const struct fs *fs, struct fuse_operations *ops)
{
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
