/* libroot.c - locating a library and its index (libroot.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "libroot.h"
#include "rcluri.h"

void libroot_release(struct libroot *lr)
{
	free(lr->root);
	free(lr->index);
	free(lr->hidden);
	lr->root = lr->index = lr->hidden = NULL;
	lr->created = 0;
}

/* 1 when p is a or lies below a (both resolved, absolute). */
static int under(const char *p, const char *a)
{
	size_t n = strlen(a);

	if (!strcmp(a, "/"))
		return 1;
	return !strncmp(p, a, n) && (p[n] == '\0' || p[n] == '/');
}

/* Sets lr->index (a copy of idx_real) and lr->hidden from where idx_real
 * lies relative to lr->root. */
static int place_index(struct libroot *lr, const char *idx_real)
{
	const char *slash = strrchr(idx_real, '/');
	size_t rl = strlen(lr->root);

	lr->index = strdup(idx_real);
	if (!lr->index)
		return -ENOMEM;
	if (!under(idx_real, lr->root))
		return 0;
	/* Inside: only as a direct child of the root. */
	if (!strcmp(idx_real, lr->root) || (size_t)(slash - idx_real) != (rl > 1 ? rl : 0))
		return -EINVAL;
	lr->hidden = strdup(slash + 1);
	return lr->hidden ? 0 : -ENOMEM;
}

/* The resolved path of a folder that may not exist yet into buf: its own
 * when it exists, else its resolved parent's joined with its last name. */
static int resolve_new(const char *path, char *buf)
{
	char parent[PATH_MAX];
	const char *name, *up_dir;
	char *slash;
	size_t n;

	if (realpath(path, buf))
		return 0;
	if (errno != ENOENT)
		return -errno;
	n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	if (n >= sizeof(parent))
		return -ENAMETOOLONG;
	memcpy(parent, path, n);
	parent[n] = '\0';
	slash = strrchr(parent, '/');
	if (slash) {
		*slash = '\0';
		name = slash + 1;
		up_dir = slash == parent ? "/" : parent;
	} else {
		name = parent;
		up_dir = ".";
	}
	if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
		return -ENOENT;
	if (!realpath(up_dir, buf))
		return -errno;
	if (strlen(buf) + 1 + strlen(name) >= PATH_MAX)
		return -ENAMETOOLONG;
	if (strcmp(buf, "/"))
		strcat(buf, "/");
	strcat(buf, name);
	return 0;
}

int libroot_plan(struct libroot *lr, const char *dir, const char *index)
{
	char buf[PATH_MAX];
	struct stat st;
	char *dflt = NULL;
	int ret = 0;

	memset(lr, 0, sizeof(*lr));
	if (!realpath(dir, buf)) {
		ret = -errno;
		goto out;
	}
	if (stat(buf, &st) < 0 || !S_ISDIR(st.st_mode)) {
		ret = -ENOTDIR;
		goto out;
	}
	lr->root = strdup(buf);
	if (!lr->root) {
		ret = -ENOMEM;
		goto out;
	}
	if (rcluri_is_uri(index)) {
		/* a Redis index: no folder to place */
		lr->index = strdup(index);
		ret = lr->index ? 0 : -ENOMEM;
		goto out;
	}
	if (!index) {
		if (asprintf(&dflt, "%s%s%s", lr->root, strcmp(lr->root, "/") ? "/" : "",
			     LIBROOT_INDEX_NAME) < 0) {
			dflt = NULL;
			ret = -ENOMEM;
			goto out;
		}
		index = dflt;
	}
	ret = resolve_new(index, buf);
	if (!ret)
		ret = place_index(lr, buf);
out:
	free(dflt);
	if (ret)
		libroot_release(lr);
	return ret;
}

int libroot_create(struct libroot *lr)
{
	struct stat st;

	if (rcluri_is_uri(lr->index))
		return 0;
	if (mkdir(lr->index, 0700) == 0) {
		lr->created = 1;
		return 0;
	}
	if (errno != EEXIST)
		return -errno;
	/* A file, or a symbolic link to nowhere, in the folder's place. */
	if (stat(lr->index, &st) < 0)
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

int libroot_place(struct libroot *lr, const char *dir, const char *index)
{
	int ret = libroot_plan(lr, dir, index);

	if (!ret)
		ret = libroot_create(lr);
	if (ret)
		libroot_release(lr);
	return ret;
}

/* Cuts dir to its parent; 0 when dir was "/" already. */
static int up(char *dir)
{
	char *slash = strrchr(dir, '/');

	if (!strcmp(dir, "/"))
		return 0;
	if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	return 1;
}

/* The resolved path of path's folder: path itself when it is a folder, else
 * its parent. */
static int start_dir(const char *path, char *buf)
{
	struct stat st;

	if (!realpath(path, buf))
		return -errno;
	if (stat(buf, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		up(buf);
	return 0;
}

int libroot_above(const char *path, const char *name, char **dir)
{
	char d[PATH_MAX], buf[PATH_MAX * 2];
	struct stat st;
	int ret;

	*dir = NULL;
	ret = start_dir(path, d);
	if (ret)
		return ret;
	for (;;) {
		snprintf(buf, sizeof(buf), "%s%s%s", d, strcmp(d, "/") ? "/" : "", name);
		if (stat(buf, &st) == 0)
			break;
		if (!up(d))
			return -ENOENT;
	}
	*dir = strdup(d);
	return *dir ? 0 : -ENOMEM;
}

int libroot_find(struct libroot *lr, const char *path, const char *index, const char *root,
		 libroot_probe probe, void *arg)
{
	char dir[PATH_MAX], buf[PATH_MAX + sizeof(LIBROOT_INDEX_NAME) + 1];
	struct stat st;
	int ret;

	memset(lr, 0, sizeof(*lr));
	ret = start_dir(path, dir);
	if (ret)
		goto out;
	if (root) {
		if (!realpath(root, buf)) {
			ret = -errno;
			goto out;
		}
		lr->root = strdup(buf);
	} else if (index) {
		/* The nearest folder the probe recognises. */
		strcpy(buf, dir);
		while (!probe || !probe(arg, buf)) {
			if (!probe || !up(buf)) {
				ret = -ENOENT;
				goto out;
			}
		}
		lr->root = strdup(buf);
	} else {
		/* The nearest folder holding the default index folder. */
		ret = libroot_above(dir, LIBROOT_INDEX_NAME "/", &lr->root);
		if (ret)
			goto out;
	}
	if (!lr->root) {
		ret = -ENOMEM;
		goto out;
	}
	if (rcluri_is_uri(index)) {
		lr->index = strdup(index);
		ret = !lr->index ? -ENOMEM : !under(dir, lr->root) ? -EXDEV : 0;
		goto out;
	}
	if (!index) {
		snprintf(buf, sizeof(buf), "%s%s%s", lr->root, strcmp(lr->root, "/") ? "/" : "",
			 LIBROOT_INDEX_NAME);
		index = buf;
	} else if (!realpath(index, buf)) {
		ret = -errno;
		goto out;
	}
	if (stat(buf, &st) < 0) {
		ret = -errno;
		goto out;
	}
	if (!S_ISDIR(st.st_mode)) {
		ret = -ENOTDIR;
		goto out;
	}
	ret = place_index(lr, buf);
	if (!ret && !under(dir, lr->root))
		ret = -EXDEV;
out:
	if (ret)
		libroot_release(lr);
	return ret;
}

int libroot_rel(const struct libroot *lr, const char *path, char **rel)
{
	char buf[PATH_MAX];
	size_t n = strlen(lr->root);
	const char *r;

	*rel = NULL;
	if (!realpath(path, buf))
		return -errno;
	if (!under(buf, lr->root))
		return -EXDEV;
	r = !strcmp(lr->root, "/") ? buf + 1 : buf + n;
	if (*r == '/')
		r++;
	*rel = strdup(r);
	return *rel ? 0 : -ENOMEM;
}

int libroot_in_index(const struct libroot *lr, const char *rel)
{
	size_t n;

	if (!lr->hidden)
		return 0;
	n = strlen(lr->hidden);
	return !strncmp(rel, lr->hidden, n) && (rel[n] == '\0' || rel[n] == '/');
}
