/* climount.h - a library served by a simbookfs mount, seen from simbook.
 *
 * The daemon of a mount keeps the library's index and hides its folder; a
 * mount over SRC also covers it.  The mount's .simbookfs/status names the
 * library and a path by which the daemon's owner (and root) reach the index
 * (views.h, "library"): the queries open it read-only from there while
 * the daemon goes on writing it, and `simbook index` knows the library is
 * served.
 */
#ifndef CLIMOUNT_H
#define CLIMOUNT_H

#include <stddef.h>

struct climount {
	char *mnt;	/* the mount point, absolute */
	char *src;	/* the library folder the daemon serves */
	char *index;	/* its index folder, as the daemon names it */
	char *reader;	/* the path to open the index by */
};

/* The innermost simbookfs mount holding path (symbolic links resolved):
 * 1 and its mount point in mnt (size bytes), or 0 when path is in none. */
int climount_find(const char *path, char *mnt, size_t size);

/* Reads the "library" member of the status of the mount at mnt (the
 * status folder ".simbookfs", or any top-level folder whose name ends in
 * it, for -o viewprefix=) into m (release with climount_release()).
 * 0, -ENOENT (no status with a library: -o noindex, or an older daemon),
 * -ENOMEM, -errno of reading it. */
int climount_library(const char *mnt, struct climount *m);

void climount_release(struct climount *m);

/* 1 when path names a file of a mount's status folder (its parent folder's
 * name is ".simbookfs" or ends in it, fspath_status_dir()): a report of
 * the daemon, which no command takes for a book. */
int climount_report(const char *path);

#endif
