/* fspath.c - relative path resolution for the passthrough (see fspath.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fspath.h"

/* Opens the directory named by the first len bytes of rel under dirfd.
 * Intermediate components were already looked up by the kernel as
 * directories, so the walk follows no final symlink (O_NOFOLLOW). */
static int fspath_open_dir(int dirfd, const char *rel, size_t len)
{
	char chunk[PATH_MAX];
	int fd;

	memcpy(chunk, rel, len);
	chunk[len] = '\0';
	fd = openat(dirfd, chunk, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int fspath_resolve(struct fspath *fp, int rootfd, const char *path, size_t maxlen)
{
	const char *rel = path[0] == '/' ? path + 1 : path;
	const char *last, *p;
	size_t total = strlen(rel);
	int cur = rootfd, fd, ret = 0;

	fp->dirfd = rootfd;
	fp->owned = 0;
	fp->name = rel;
	if (total == 0) {
		fp->name = ".";
		return 0;
	}
	if (total <= maxlen)
		return 0;
	last = strrchr(rel, '/');
	if (!last || (size_t)(rel + total - (last + 1)) > NAME_MAX)
		return -ENAMETOOLONG;
	/* Walk rel..last in chunks that each fit one *at() call. */
	p = rel;
	while (p < last) {
		size_t len = (size_t)(last - p);
		if (len > maxlen) {
			const char *cut = p + maxlen;
			while (cut > p && *cut != '/')
				cut--;
			if (cut == p) {
				ret = -ENAMETOOLONG;
				goto out;
			}
			len = (size_t)(cut - p);
		}
		fd = fspath_open_dir(cur, p, len);
		if (fd < 0) {
			ret = fd;
			goto out;
		}
		if (cur != rootfd)
			close(cur);
		cur = fd;
		p += len;
		while (*p == '/')
			p++;
	}
	fp->dirfd = cur;
	fp->owned = cur != rootfd;
	fp->name = last + 1;
	cur = rootfd;
out:
	if (cur != rootfd)
		close(cur);
	return ret;
}

void fspath_release(struct fspath *fp)
{
	if (fp->owned && fp->dirfd >= 0)
		close(fp->dirfd);
	fp->dirfd = -1;
	fp->owned = 0;
	fp->name = NULL;
}

int fspath_parent_stat(const struct fspath *fp, struct stat *st)
{
	const char *slash = strrchr(fp->name, '/');
	char parent[PATH_MAX];
	size_t len;
	int ret;

	if (!slash) {
		ret = fstatat(fp->dirfd, "", st, AT_EMPTY_PATH);
	} else {
		len = (size_t)(slash - fp->name);
		if (len >= sizeof(parent))
			return -ENAMETOOLONG;
		memcpy(parent, fp->name, len);
		parent[len] = '\0';
		ret = fstatat(fp->dirfd, parent, st, AT_SYMLINK_NOFOLLOW);
	}
	return ret < 0 ? -errno : 0;
}

int fspath_proc(const struct fspath *fp, char *buf, size_t size)
{
	int n = snprintf(buf, size, "/proc/self/fd/%d/%s", fp->dirfd, fp->name);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

const char *fspath_under(const char *path, const char *top, size_t toplen)
{
	if (path[0] != '/' || strncmp(path + 1, top, toplen) != 0)
		return NULL;
	path += 1 + toplen;
	return *path == '\0' || *path == '/' ? path : NULL;
}
