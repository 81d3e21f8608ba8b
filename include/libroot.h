/* libroot.h - where a library and its index are, for the command-line tool.
 *
 * The rules are the mount's (simbookfs -o index=): the index of library
 * folder ROOT is ROOT/.simbookfs-index unless given; a given index folder is
 * either outside ROOT or directly inside it (then that top-level name is not
 * part of the library), never ROOT itself or deeper inside it.
 *
 * Commands that read the index find it from a file or folder of the library
 * by walking up to the nearest folder that holds .simbookfs-index.  With an
 * index given explicitly (it may live anywhere) and no library folder, the
 * library is the nearest folder at or above the path that the caller's probe
 * recognises as the one the index describes.
 *
 * An index given as a redis:// URI (rcluri.h) is no folder: lr->index is
 * the URI as given, nothing is resolved, created or hidden.
 *
 * The mount daemon (simbookfs) and every simbook subcommand place and find
 * indexes through this module only, so the rules cannot drift apart.
 */
#ifndef LIBROOT_H
#define LIBROOT_H

#define LIBROOT_INDEX_NAME ".simbookfs-index"

struct libroot {
	char *root;	/* the library folder, absolute and resolved */
	char *index;	/* the index folder, absolute (or a redis:// URI) */
	char *hidden;	/* the index's top-level name inside root, or NULL
			 * when the index is outside root */
	int created;	/* libroot_create() made the index folder */
};

/* For indexing folder dir with index folder index (NULL: the default):
 * where the index folder goes, checked against the rules above, creating
 * nothing (a caller that must still validate its other input creates it
 * with libroot_create() only then).  lr->index is resolved even when the
 * folder does not exist yet (its parent must).  Fills lr (release with
 * libroot_release()).  0, -EINVAL (index is dir itself or deeper inside
 * it), -ENOTDIR (dir is not a folder), -ENOMEM, -ENAMETOOLONG, or -errno of
 * realpath(). */
int libroot_plan(struct libroot *lr, const char *dir, const char *index);

/* Creates lr->index (mode 0700) when missing, and sets lr->created then.
 * 0, -ENOTDIR (something else has its name), or -errno of mkdir()/stat(). */
int libroot_create(struct libroot *lr);

/* libroot_plan() then libroot_create(): lr is released on error. */
int libroot_place(struct libroot *lr, const char *dir, const char *index);

/* The nearest folder at or above path (path itself when it is a folder, else
 * its parent; symbolic links resolved) that holds an entry called name (a
 * relative path, e.g. ".simbookfs/status"; ending in '/' it matches only a
 * folder): *dir (malloc'd, caller frees).
 * 0, -ENOENT (none up to "/"), -ENOMEM, or -errno of realpath()/stat(). */
int libroot_above(const char *path, const char *name, char **dir);

/* 1 when folder dir (absolute, resolved) is the library the index describes. */
typedef int (*libroot_probe)(void *arg, const char *dir);

/* For reading: the library that holds path (a file or a folder), given the
 * index folder (NULL: walk up from path to the nearest folder holding
 * .simbookfs-index) and the library folder (NULL: with index NULL see
 * above, else the nearest folder at or above path for which probe(arg, dir)
 * says 1).  Nothing is created.  0, -ENOENT (no index found, no folder the
 * probe accepts, or no probe), -EXDEV (path is not inside root), -ENOTDIR,
 * -ENOMEM, or -errno of realpath()/stat(). */
int libroot_find(struct libroot *lr, const char *path, const char *index, const char *root,
		 libroot_probe probe, void *arg);

/* The path of path relative to lr->root ("" for the root itself), resolved
 * (symbolic links followed) the way libroot_find() did: *rel is malloc'd.
 * 0, -EXDEV (outside the library), -ENOMEM, -errno of realpath(). */
int libroot_rel(const struct libroot *lr, const char *path, char **rel);

/* 1 when rel (relative to root) lies inside the index folder. */
int libroot_in_index(const struct libroot *lr, const char *rel);

void libroot_release(struct libroot *lr);

#endif
