/* fspath.h - resolve mount paths against the source directory's fd.
 *
 * The passthrough never builds absolute path strings: a FUSE path "/a/b/c"
 * becomes the relative name "a/b/c" under the directory fd of SRC that was
 * opened before mounting (so mounting over SRC itself works).  Names the
 * kernel's *at() calls would refuse as too long (PATH_MAX or more) are
 * resolved by walking their parent directories with O_PATH fds, a chunk of
 * components at a time, so paths of any depth work while no fd is kept
 * once the operation is done.
 */
#ifndef FSPATH_H
#define FSPATH_H

#include <stddef.h>
#include <sys/stat.h>

struct fspath {
	int dirfd;		/* the root fd, or an owned O_PATH fd of the parent */
	const char *name;	/* relative to dirfd; "." for the root itself */
	int owned;		/* dirfd is ours: fspath_release() closes it */
};

#define FSPATH_INIT { -1, NULL, 0 }

/* Resolves the FUSE path (which starts with '/') against rootfd so that
 * (fp->dirfd, fp->name) names it for *at() calls whose total path must stay
 * within maxlen bytes (pass FSPATH_MAX normally; less when the name is
 * embedded in a longer string).  fp->name points into path: it lives as
 * long as path does.  Returns 0, or -errno from walking the parents
 * (ENOENT, ENOTDIR, ELOOP, EACCES, EMFILE, ...). */
int fspath_resolve(struct fspath *fp, int rootfd, const char *path, size_t maxlen);
#define FSPATH_MAX 4095

/* Closes the walked parent fd, if any; fp can be resolved again. */
void fspath_release(struct fspath *fp);

/* lstat() of the directory that contains fp->name.  Returns 0 or -errno. */
int fspath_parent_stat(const struct fspath *fp, struct stat *st);

/* Writes "/proc/self/fd/N/NAME" for fp into buf (size bytes): the form the
 * path-only syscalls (the xattr family) take.  Resolve fp with maxlen
 * FSPATH_PROC_MAX so it fits in a PATH_MAX buffer.  Returns 0 or
 * -ENAMETOOLONG. */
int fspath_proc(const struct fspath *fp, char *buf, size_t size);
#define FSPATH_PROC_MAX (FSPATH_MAX - 32)

/* If path is "/top" or lies below it ("/top/..."), returns what follows
 * "/top" ("" or "/..."), pointing into path; otherwise NULL.  top has no
 * slashes. */
const char *fspath_under(const char *path, const char *top, size_t toplen);

#endif
