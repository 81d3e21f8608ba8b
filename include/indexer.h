/* indexer.h - keeps a library's index up to date: fingerprint on write.
 *
 * One struct indexer per mounted library owns the index (idx.h), the work
 * queue (queue.h) and the scanner (scan.h):
 *  - indexer_written() and friends are called by the filesystem right after
 *    a change to SRC and never wait for the index: a write only queues the
 *    path (repeated writes coalesce); unlinks and renames (a rename keeps
 *    the fingerprint, id and exemptions) are appended to a list that the
 *    index writer thread applies in order, many per transaction, usually
 *    within a millisecond.  Workers and the watch apply that list before
 *    they look a path up, so queued work always sees the changes made
 *    before it (a write, then a rename, then an unlink of one path ends with
 *    neither name indexed).  Until then the views may briefly show a book
 *    under its old name; they check that a link's target exists.
 *  - worker threads read each queued file through the SRC directory fd,
 *    extract and fingerprint it (book.h) and append the record (bookrec.h),
 *    or why it is not indexed (IDX_FAILED with the reason, or IDX_NOT_BOOK),
 *    to the same list; the writer stores many books per transaction (at
 *    once when no more work is queued) and then judges each against its
 *    candidates, storing its relations (the similar lists) and cluster
 *    links (judge_batch()).
 *    A file already indexed with the same size, mtime, ctime and inode is
 *    not read again.
 *  - indexer_start() runs the incremental scan in the background (the index
 *    and the views stay usable meanwhile), then watches SRC with inotify
 *    (watch.h) so changes made behind the mount's back are followed at
 *    once, and rescans every rescan_secs as a safety net (events the watch
 *    cannot see: touch, chmod, hard links, a full inotify queue or watch
 *    limit); and, after an upgrade from schema 4 (idx_catchup_get()),
 *    the writer judges the books that have a fingerprint but no
 *    judgement whenever it has nothing to store; their lists are computed
 *    at read time meanwhile.
 * After every change of the index the notify callback runs (on the thread
 * that changed it): it must be quick and must not call back into FUSE.
 */
#ifndef INDEXER_H
#define INDEXER_H

#include <stdint.h>

#include "idx.h"

struct indexer;

struct indexer_opts {
	const char *index_dir;	/* the index's folder (created if missing) */
	const char *skip_dir;	/* a folder of SRC never indexed (the index
				 * folder when inside SRC), any path; may be NULL */
	unsigned threads;	/* fingerprinting threads (0: one per CPU) */
	unsigned rescan_secs;	/* periodic rescan of SRC (0: only at start) */
	int no_watch;		/* 1: no inotify watch (rescans only) */
	unsigned claim_secs;	/* an index shared with other processes: how
				 * long this one's claim on fingerprinting a
				 * book keeps the others off it when it dies
				 * meanwhile (0: 60) */
	int include_hidden;	/* 1: index files under hidden folders (".name",
				 * e.g. calibre's .caltrash); 0: leave them out */
	int extensionless;	/* 1: plain text without a file extension is a
				 * book; 0: not a book (COPYING, LICENSE, README:
				 * SCAN_NOEXT_KIND); other formats are books
				 * by their content either way */
	void (*notify)(void *arg);	/* the index changed (may be NULL) */
	void *notify_arg;
	/* A shared index's outage journal (ijournal.h; may be NULL; not
	 * owned, kept until indexer_free()): while the index's server is out
	 * of reach (idx_health()), the changes reported here, and the work
	 * the outage interrupted, go to it instead; it is replayed (its books
	 * fingerprinted and judged) when the server is back and at
	 * indexer_start(), then emptied. */
	struct ijr *journal;
	/* idx_opts.progress of the index's open (may be NULL): an upgrade or
	 * rebuild inside indexer_new() reports to it and can be stopped */
	int (*open_progress)(void *arg, enum idx_open_phase phase, uint64_t done, uint64_t total);
	void *open_progress_arg;
};

struct indexer_status {
	int scanning;		/* a scan runs or files wait for fingerprinting */
	uint64_t files;		/* files known to the index */
	uint64_t books;		/* files with a fingerprint */
	uint64_t failed;	/* IDX_FAILED */
	uint64_t not_books;	/* IDX_NOT_BOOK */
	uint64_t queued;	/* jobs waiting or running in the queue, plus
				 * unlinks and renames not yet in the index */
	uint64_t indexed;	/* files fingerprinted since the mount */
	uint64_t generation;	/* idx_generation() */
	int judging;		/* the books of an upgraded index are being
				 * judged (their lists are computed meanwhile) */
	int watching;		/* the inotify watch runs */
	int watch_incomplete;	/* some folders could not be watched */
	/* the current or last scan */
	int scan_running;
	uint64_t scan_runs, scan_files, scan_queued, scan_removed, scan_renamed;
	double scan_seconds;
};

/* Opens the index (with any upgrade or rebuild it needs, which can take
 * minutes on a large index: opener.h does it off the caller's thread) and
 * starts the workers for SRC's directory fd rootfd (kept open by the caller
 * until indexer_free()).  Nothing is scanned yet.  Returns 0 and *out, or
 * -errno (from idx_open, queue_new, scan_new; -ECANCELED when
 * opts->open_progress stopped the open). */
int indexer_new(struct indexer **out, int rootfd, const struct indexer_opts *opts);
/* Starts the background scan (and the periodic rescans) and the judging
 * of unjudged books when a catch-up is owed.  0 or -errno. */
int indexer_start(struct indexer *ixr);
/* Stops the scan and the workers (pending work is dropped: the next scan
 * finds it), applies the unlinks and renames still waiting, flushes and
 * closes the index.  NULL is allowed. */
void indexer_free(struct indexer *ixr);

/* The index (owned by ixr, valid until indexer_free()). */
struct idx *indexer_idx(struct indexer *ixr);

/* Changes to SRC, paths relative to SRC.  Never block on fingerprinting. */
void indexer_written(struct indexer *ixr, const char *path);
void indexer_unlinked(struct indexer *ixr, const char *path);
/* from was renamed to to (exchange: the two swapped places). */
void indexer_renamed(struct indexer *ixr, const char *from, const char *to, int exchange);
/* to is a new hard link to from. */
void indexer_linked(struct indexer *ixr, const char *from, const char *to);

/* Fingerprints path now on the calling thread (what a worker does): 0 when
 * the index holds the file's current state (indexed, failed or not a book),
 * or -errno when the index could not be updated. */
int indexer_index_file(struct indexer *ixr, const char *path);

void indexer_status(struct indexer *ixr, struct indexer_status *st);
/* Waits until no scan runs, nothing is queued and every unlink and rename
 * reported so far is in the index, at most timeout_ms
 * (< 0: forever).  0 or -ETIMEDOUT. */
int indexer_wait_idle(struct indexer *ixr, int timeout_ms);

#endif
