/* scan.h - the incremental scan: brings the index up to date with SRC.
 *
 * Walks SRC (openat/fdopendir from one directory fd; symbolic links, devices,
 * FIFOs and sockets are skipped, as are the index's own folder and the
 * .fuse_hidden names of files unlinked while open, see fspath.h) and compares
 * each regular file's size, mtime, ctime and inode with the index:
 *  - new or changed files (and files still IDX_QUEUED from an earlier run, or
 *    whose stored record version is not the current one) are marked queued
 *    in the index and pushed to the work queue (QUEUE_LOW);
 *  - files and directories that vanished are removed from the index, except
 *    that a vanished file whose inode, size and mtime reappear under a new
 *    path is treated as renamed: it keeps its id, fingerprint and exemptions.
 * Unchanged files cost one fstatat() and a comparison (one index read per
 * directory), so a rescan with no change is fast.
 *
 * The scan runs synchronously (scan_run) or on its own thread (scan_start);
 * the index stays usable meanwhile.  Every function may be called from any
 * thread, except scan_free() (no other call may run or follow).
 */
#ifndef SCAN_H
#define SCAN_H

#include <stdint.h>

#include "idx.h"
#include "queue.h"

struct scan;

struct scan_opts {
	int src_fd;		/* directory fd of SRC (dup'd: the caller keeps
				 * its own), or -1 to open src; the daemon passes
				 * the fd it opened before mounting, since a mount
				 * over SRC hides SRC's path */
	const char *src;	/* SRC path, used when src_fd < 0 */
	struct idx *ix;		/* the index to update */
	struct queue *q;	/* where changed files go; NULL = only mark them
				 * queued in the index */
	const char *skip_dir;	/* a directory never scanned (the index folder
				 * when it lives in SRC), any path; NULL = none */
	uint32_t rec_version;	/* re-queue books whose record has another
				 * version; 0 = do not check */
	int include_hidden;	/* 1: read hidden folders (".name") too; 0: skip
				 * them (their files leave the index) */
	int extensionless;	/* 1: re-queue the files left out as plain text
				 * without an extension (SCAN_NOEXT_KIND) */
};

/* The kind of "not a book" (PATH: not a book (KIND)) of plain text without a
 * file extension, which indexer_opts.extensionless makes books. */
#define SCAN_NOEXT_KIND "plain text without a file extension"

struct scan_progress {
	int running;		/* 1 while a scan is in progress */
	uint64_t runs;		/* scans finished */
	uint64_t dirs;		/* directories read in the current/last scan */
	uint64_t files;		/* regular files seen */
	uint64_t unchanged;
	uint64_t queued;	/* new or changed files queued */
	uint64_t removed;	/* index entries removed (vanished files) */
	uint64_t renamed;	/* vanished files found again under a new path */
	uint64_t errors;	/* directories or files that could not be read */
	int last_error;		/* -errno of the last error, 0 if none */
	int64_t started_ns, finished_ns;	/* CLOCK_MONOTONIC */
};

/* Prepares a scanner.  Returns 0 and *out, -EINVAL, -ENOMEM, or -errno from
 * opening src. */
int scan_new(struct scan **out, const struct scan_opts *opts);
/* Scans now on the calling thread.  Returns 0, -EBUSY when a background scan
 * is running, -ECANCELED when scan_cancel() stopped it, or -errno of a fatal
 * error (SRC unreadable, index write failure); unreadable entries inside SRC
 * are only counted. */
int scan_run(struct scan *s);
/* Starts a scan on a background thread; -EBUSY if one is running. */
int scan_start(struct scan *s);
/* Like scan_start(), but when a scan is running it runs once more after it
 * (requests made meanwhile coalesce): for "something changed somewhere"
 * signals such as WATCH_RESCAN.  Returns 0 or -errno from pthread_create. */
int scan_request(struct scan *s);
/* Waits for the background scan; returns its scan_run() result (0 when none
 * was started). */
int scan_wait(struct scan *s);
/* Asks a running scan to stop at the next directory. */
void scan_cancel(struct scan *s);
void scan_progress(struct scan *s, struct scan_progress *p);
/* Cancels and waits for a running scan, then frees s.  NULL is allowed. */
void scan_free(struct scan *s);

#endif
