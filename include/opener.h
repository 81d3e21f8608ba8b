/* opener.h - opens a mounted library's index in the background.
 *
 * Opening the index may upgrade it in place or rebuild it (idx_open(): a
 * schema upgrade took 272 s on a million books), and the mount must answer
 * meanwhile.  opener_start() returns at once; a thread of its own then
 *  1. creates the indexer (indexer_new(): the index opens, with whatever
 *     upgrade or rebuild it needs, reporting its progress here),
 *  2. calls opts->opened (the daemon logs what the open did),
 *  3. publishes the indexer (opener_indexer() returns it from then on),
 *  4. starts it (indexer_start(): the scan at mount, the watch).
 * Until step 3 opener_indexer() returns NULL: the filesystem passes SRC
 * through and drops its change reports (a shared index's daemon writes
 * them to the outage journal, replayed at step 4), and the views show
 * their top folders empty.  Nothing is lost by dropping them: a change reported
 * before the publication was made to SRC before it, hence before the scan
 * of step 4 starts, and the scan finds new and changed files (size, mtime,
 * ctime, inode), vanished ones and renames (same inode, size and mtime
 * under a new path: the book keeps its id and marks).  From step 3 on the
 * reports go to the indexer as usual.
 *
 * An open that fails (a full disk, an index folder that cannot be written)
 * leaves the state OPENER_FAILED with the error;
 * SRC is still served.  opener_free() stops an upgrade or rebuild under
 * way (its transaction is dropped: the stored index stays as it was and
 * the next open does the work again), waits for the thread and frees the
 * indexer.
 *
 * Thread-safety: opener_indexer() and opener_info() may be called from any
 * thread at any time until opener_free().
 */
#ifndef OPENER_H
#define OPENER_H

#include <stdint.h>

#include "indexer.h"

struct opener;

enum opener_state {
	OPENER_OPENING,		/* the index is opening */
	OPENER_UPGRADING,	/* an upgrade of the index in place runs */
	OPENER_REBUILDING,	/* the index is being rebuilt (another schema or
				 * an unreadable file), ids and marks carried over */
	OPENER_OPEN,		/* the indexer runs (opener_indexer() != NULL) */
	OPENER_FAILED,		/* the index could not be opened (error) */
	OPENER_UNAVAILABLE,	/* a shared index's server cannot be reached,
				 * or the check of an index file could not
				 * finish (-ETIMEDOUT: its readers were held
				 * up) (error, since): tried again after a pause
				 * growing from OPENER_RETRY_FIRST_MS to
				 * OPENER_RETRY_MAX_MS, until it answers */
};

#define OPENER_RETRY_FIRST_MS 200
#define OPENER_RETRY_MAX_MS 3200

struct opener_info {
	enum opener_state state;
	uint64_t done, total;	/* OPENER_UPGRADING/REBUILDING: entries done of
				 * total (total 0: not known yet) */
	double seconds;		/* the open so far, or how long it took */
	int error;		/* OPENER_FAILED: -errno (-ECANCELED: stopped by
				 * opener_free()); OPENER_UNAVAILABLE: the
				 * last connection error */
	int64_t since;		/* OPENER_UNAVAILABLE: since when (seconds
				 * since the epoch) */
};

struct opener_opts {
	/* For indexer_new(): copied, but index_dir and skip_dir must stay
	 * valid until opener_free(); open_progress is the opener's own.
	 * notify also runs at every change of state (the views' status). */
	struct indexer_opts io;
	/* Called once on the opener's thread when the open ended, before
	 * the indexer is published: ixr (then err is 0), or NULL and the
	 * error.  May be NULL. */
	void (*opened)(void *arg, struct indexer *ixr, int err);
	void *arg;
	/* For tests only: sleep this many ms before opening and at every
	 * progress report of an upgrade or rebuild, so that a short one can
	 * be watched (the daemon takes it from the mount option
	 * test_open_delay_ms).  0 in normal use. */
	unsigned test_delay_ms;
};

/* Prepares the open of the index for SRC's directory fd rootfd (kept open
 * by the caller until opener_free()); state OPENER_OPENING.  Returns 0 and
 * *out, or -ENOMEM. */
int opener_new(struct opener **out, int rootfd, const struct opener_opts *opts);
/* Starts the open on the opener's thread.  0, -EBUSY (started already) or
 * -errno of pthread_create. */
int opener_start(struct opener *op);
/* The indexer once published (valid until opener_free()), else NULL. */
struct indexer *opener_indexer(struct opener *op);
/* Where the open stands. */
void opener_info(struct opener *op, struct opener_info *info);
/* "opening", "upgrading", "rebuilding", "open", "failed" or "unavailable". */
const char *opener_state_name(enum opener_state s);
/* Stops an open under way, waits for the thread and frees the indexer
 * (indexer_free()).  NULL is allowed. */
void opener_free(struct opener *op);

#endif
