/* fspath.c - relative path resolution for the passthrough (see fspath.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fspath.h"

/* The longest path one *at() call takes (PATH_MAX with its NUL). */
#define FSPATH_MAX (PATH_MAX - 1)

/* Opens the directory name (len bytes) under dirfd without following any
 * symlink: one openat2() call, or one openat() per component where the
 * kernel lacks openat2. */
static int fspath_open_dir(int dirfd, const char *name, size_t len)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_BENEATH,
	};
	char chunk[PATH_MAX];
	char *comp, *save = NULL;
	int fd, cur = dirfd;

	memcpy(chunk, name, len);
	chunk[len] = '\0';
	fd = (int)syscall(SYS_openat2, dirfd, chunk, &how, sizeof(how));
	if (fd >= 0 || errno != ENOSYS)
		return fd < 0 ? -errno : fd;
	for (comp = strtok_r(chunk, "/", &save); comp; comp = strtok_r(NULL, "/", &save)) {
		fd = openat(cur, comp, (int)how.flags);
		if (cur != dirfd)
			close(cur);
		if (fd < 0)
			return -errno;
		cur = fd;
	}
	return cur == dirfd ? -EINVAL : cur;
}

int fspath_resolve(struct fspath *fp, int rootfd, const char *path)
{
	const char *rel = path[0] == '/' ? path + 1 : path;
	const char *last, *p;
	int cur = rootfd, fd, ret = 0;

	fp->dirfd = rootfd;
	fp->owned = 0;
	fp->name = rel;
	if (*rel == '\0') {
		fp->name = ".";
		return 0;
	}
	last = strrchr(rel, '/');
	if (!last)
		return strlen(rel) > NAME_MAX ? -ENAMETOOLONG : 0;
	if (strlen(last + 1) > NAME_MAX)
		return -ENAMETOOLONG;
	/* Walk rel..last in chunks that each fit one call. */
	p = rel;
	while (p < last) {
		size_t len = (size_t)(last - p);

		if (len > FSPATH_MAX) {
			const char *cut = p + FSPATH_MAX;

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
	return fstatat(fp->dirfd, "", st, AT_EMPTY_PATH) < 0 ? -errno : 0;
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

int fspath_status_dir(const char *name)
{
	static const char base[] = ".simbookfs";
	size_t n = strlen(name), b = sizeof(base) - 1;

	return n >= b && !strcmp(name + n - b, base);
}

int fspath_fuse_hidden(const char *path)
{
	static const char prefix[] = ".fuse_hidden";
	const char *name = strrchr(path, '/');
	size_t i;

	name = name ? name + 1 : path;
	if (strncmp(name, prefix, sizeof(prefix) - 1))
		return 0;
	name += sizeof(prefix) - 1;
	for (i = 0; i < 16; i++)
		if (!isxdigit((unsigned char)name[i]))
			return 0;
	return name[16] == '\0';
}

char *fspath_join(const char *dir, const char *name)
{
	size_t dl = strlen(dir), nl = strlen(name);
	char *p = malloc(dl + nl + 2);

	if (!p)
		return NULL;
	if (dl) {
		memcpy(p, dir, dl);
		p[dl++] = '/';
	}
	memcpy(p + dl, name, nl + 1);
	return p;
}

void fspath_unescape_mountinfo(char *s)
{
	char *d = s;

	for (; *s; s++, d++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*d = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*d = *s;
		}
	}
	*d = '\0';
}
