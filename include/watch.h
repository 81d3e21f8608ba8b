/* watch.h - noticing changes made to SRC behind the mount's back (inotify).
 *
 * Changes made through the mount are seen by the filesystem operations
 * themselves; this module reports the others (another program writing
 * directly into SRC while it is mounted) so the index follows them within
 * moments instead of at the next mount.  It watches every directory of SRC
 * (one inotify watch each, added recursively, also for directories created
 * or moved in later) and calls back with what changed:
 *   WATCH_FILE    a file was written and closed, or moved in: fstatat it and
 *                 queue it if it is a regular file;
 *   WATCH_GONE    path (a file or a whole directory) was deleted or moved out
 *                 of SRC: remove it (and everything under it) from the index;
 *   WATCH_RENAMED path was renamed to path2 inside SRC: rename in the index
 *                 (ids and fingerprints stay);
 *   WATCH_RESCAN  events may have been missed under path ("" = all of SRC:
 *                 the kernel's event queue overflowed, or a directory came in
 *                 with contents): run the incremental scan.
 * Changes through the mount show up here as well (the daemon's own writes hit
 * SRC); the index operations are idempotent and the queue coalesces, so this
 * costs little.  Not seen: metadata-only changes (touch, chmod) and hard
 * links made behind the mount's back; the scan at the next mount, or a
 * periodic one, catches those.
 *
 * When the per-user watch limit (fs.inotify.max_user_watches) is reached,
 * the watch is incomplete: watch_stats() says so, and the daemon should fall
 * back to periodic rescans.
 */
#ifndef WATCH_H
#define WATCH_H

#include <stdint.h>

struct watch;

enum watch_what {
	WATCH_FILE = 1,
	WATCH_GONE = 2,
	WATCH_RENAMED = 3,
	WATCH_RESCAN = 4,
};

/* Called on the watch thread; paths are relative to SRC and valid during the
 * call only; path2 is NULL except for WATCH_RENAMED. */
typedef void (*watch_fn)(void *arg, enum watch_what what, const char *path, const char *path2);

struct watch_opts {
	int src_fd;		/* directory fd of SRC (dup'd) */
	const char *skip_dir;	/* a directory not watched (the index folder), any path; may be NULL */
	watch_fn fn;
	void *arg;
};

struct watch_stats {
	uint64_t watches;	/* directories watched now */
	uint64_t events;	/* callbacks made */
	uint64_t overflows;	/* kernel queue overflows (each led to a WATCH_RESCAN) */
	int incomplete;		/* 1 when a watch could not be added (limit reached) */
};

/* Adds the watches (walking SRC) and starts the watch thread.  Returns 0 and
 * *out, -EINVAL, -ENOMEM, or -errno from inotify_init1(). */
int watch_new(struct watch **out, const struct watch_opts *opts);
void watch_stats(struct watch *w, struct watch_stats *st);
/* Stops the thread and frees w.  NULL is allowed. */
void watch_free(struct watch *w);

#endif
