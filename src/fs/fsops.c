/* fsops.c - the passthrough filesystem (see fsops.h): the struct fs with
 * its extension points (views, change hook, computed xattrs), the mount's
 * init and the table of operations.  The operations are in fsops_node.c
 * (names and attributes), fsops_file.c (open files), fsops_dir.c
 * (directories) and fsops_xattr.c (extended attributes).
 *
 * Every operation maps to the matching *at() syscall on (dirfd, name) from
 * fspath, or to the open fd kept in fi->fh.  No fd is held per inode: only
 * open files and directories own one, so libraries of any size fit in the
 * fd limit.  Errors are the underlying syscall's errno, unchanged.
 */
#include "fsops_i.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "dirahead.h"
#include "fspath.h"

int fs_new(struct fs **out, int rootfd, const struct fs_options *opt)
{
	struct fs *fs = calloc(1, sizeof(*fs));

	if (!fs)
		return -ENOMEM;
	fs->rootfd = rootfd;
	fs->opt = *opt;
	fs->as_root = geteuid() == 0;
	if (fs_links_new(&fs->links) != 0) {
		free(fs);
		return -ENOMEM;
	}
	if (dirahead_new(&fs->dra, &fs->gen) != 0) {
		fs_links_free(fs->links);
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
	fs_links_free(fs->links);
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

/* Reports a change to the hook.  libfuse unlinks an open file by renaming
 * it to a .fuse_hidden name and removes that name at the last close: for
 * the library the file left at the rename, and the hidden name never
 * existed, so only the library name is reported, as what happened to it. */
void fs_notify(const struct fs *fs, enum fs_change what, const char *path, const char *path2)
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

static int fs_statfs(const char *path, struct statvfs *st)
{
	(void)path;
	return fstatvfs(fs_cur()->rootfd, st) < 0 ? -errno : 0;
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

void fs_get_operations(const struct fs *fs, struct fuse_operations *ops)
{
	memset(ops, 0, sizeof(*ops));
	ops->init = fs_init;
	ops->statfs = fs_statfs;
	fs_node_fill_ops(ops);
	fs_file_fill_ops(ops);
	fs_dir_fill_ops(ops);
	fs_xattr_fill_ops(fs, ops);
}
