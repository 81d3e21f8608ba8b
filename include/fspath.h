/* fspath.h - resolve mount paths against the source directory's fd.
 *
 * The passthrough never builds absolute path strings: a FUSE path "/a/b/c"
 * becomes the name "c" under the directory "a/b" of SRC, opened relative
 * to the fd of SRC taken before mounting (so mounting over SRC itself
 * works).  The parent is opened with openat2(RESOLVE_NO_SYMLINKS |
 * RESOLVE_BENEATH): the kernel has already resolved every symlink on the
 * way, so one found there means a directory was swapped for a symlink
 * since, and following it could lead a daemon that serves other users
 * (allow_other, often as root) outside SRC.  The caller's *at() call does
 * not follow the last component where that matters (AT_SYMLINK_NOFOLLOW,
 * O_NOFOLLOW).  Parents too long for one call (PATH_MAX) are opened a
 * chunk of components at a time, so paths of any depth work; no fd is
 * kept once the operation is done.
 */
#ifndef FSPATH_H
#define FSPATH_H

#include <stddef.h>
#include <sys/stat.h>

struct fspath {
	int dirfd;		/* the root fd, or an owned O_PATH fd of the parent */
	const char *name;	/* one component, or "." for the root itself */
	int owned;		/* dirfd is ours: fspath_release() closes it */
};

#define FSPATH_INIT { -1, NULL, 0 }

/* Resolves the FUSE path (which starts with '/') against rootfd so that
 * (fp->dirfd, fp->name) names it for *at() calls.  fp->name points into
 * path: it lives as long as path does.  Returns 0, or -errno from opening
 * the parent (ENOENT; ENOTDIR or ELOOP for a symlink in the way;
 * ENAMETOOLONG for a component over NAME_MAX; EACCES, EMFILE, ...). */
int fspath_resolve(struct fspath *fp, int rootfd, const char *path);

/* Closes the walked parent fd, if any; fp can be resolved again. */
void fspath_release(struct fspath *fp);

/* fstat() of the directory that contains fp->name.  Returns 0 or -errno. */
int fspath_parent_stat(const struct fspath *fp, struct stat *st);

/* Writes "/proc/self/fd/N/NAME" for fp into buf (size bytes): the form the
 * path-only syscalls (the xattr family) take.  Returns 0 or
 * -ENAMETOOLONG. */
int fspath_proc(const struct fspath *fp, char *buf, size_t size);

/* If path is "/top" or lies below it ("/top/..."), returns what follows
 * "/top" ("" or "/..."), pointing into path; otherwise NULL.  top has no
 * slashes. */
const char *fspath_under(const char *path, const char *top, size_t toplen);

/* 1 when the last component of path (any form: "/a/b", "a/b", "b") is a
 * name libfuse gives a file unlinked while open: ".fuse_hidden" and 16 hex
 * digits.  The file stays in SRC under that name until its last close, then
 * libfuse removes it.  Such a file is no longer part of the library: it is
 * never indexed, listed or reported as a change. */
int fspath_fuse_hidden(const char *path);

/* 1 when name (one component) is the status folder of a simbookfs mount:
 * ".simbookfs", or a name ending in it (a mount's -o viewprefix=).  Found
 * in a library, it is a copy of a mount or a mount nested in it; its files
 * (status, errors, not-duplicates) are the daemon's reports, never books,
 * so the scan does not enter it. */
int fspath_status_dir(const char *name);

/* "dir/name", or "name" when dir is "" (relative paths below SRC).  The
 * result is malloc'd and the caller frees it; NULL on -ENOMEM. */
char *fspath_join(const char *dir, const char *name);

/* Decodes /proc/self/mountinfo's octal escapes (\040 for a space) in s, in
 * place. */
void fspath_unescape_mountinfo(char *s);

#endif
