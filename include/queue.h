/* queue.h - the indexing work queue: worker threads over a coalescing queue
 * of relative paths.
 *
 * The enqueuer never waits for the work: queue_push() copies the path and
 * returns after O(1) work under a short lock (amortised: the path table
 * doubles now and then).  Jobs are keyed by path:
 *  - a path pushed again while its job is still pending is one job (counted
 *    as coalesced);
 *  - a path pushed while its job is running runs once more after it ends
 *    (however many pushes came meanwhile), so the last write is always seen.
 * Two priorities: QUEUE_HIGH jobs (a file just written through the mount)
 * run before QUEUE_LOW ones (the background scan); pushing a pending low job
 * as high moves it up.  Within a priority, first in first out.
 *
 * The work function runs on a worker thread, never with a queue lock held; it
 * may call queue_push() and queue_stats(), but not queue_wait_idle() or
 * queue_free() (they would wait for itself).
 */
#ifndef QUEUE_H
#define QUEUE_H

#include <stdint.h>

struct queue;

enum queue_prio {
	QUEUE_LOW = 0,
	QUEUE_HIGH = 1,
};

enum queue_stop {
	QUEUE_DRAIN,	/* run every pending job (and reruns) before stopping */
	QUEUE_CANCEL,	/* drop pending jobs; wait only for running ones */
};

/* Does the work for path (relative, NUL-terminated, valid during the call).
 * Returns 0 or -errno; failures are only counted (the function records its
 * own errors, e.g. in the index). */
typedef int (*queue_work_fn)(void *arg, const char *path);

struct queue_opts {
	unsigned threads;	/* 0 = one per online CPU (at most 64) */
	int nice;		/* added to the workers' nice value (0 = none), so
				 * indexing yields to the filesystem's own threads */
	queue_work_fn fn;
	void *arg;		/* passed to fn */
};

struct queue_stats {
	uint64_t pushed;	/* queue_push() calls accepted */
	uint64_t coalesced;	/* pushes absorbed by a pending (or already re-armed) job */
	uint64_t reruns;	/* jobs run again because pushed while running */
	uint64_t done;		/* work calls finished */
	uint64_t failed;	/* of which returned < 0 */
	uint64_t cancelled;	/* pending jobs dropped by QUEUE_CANCEL */
	uint32_t pending;	/* jobs waiting */
	uint32_t running;	/* jobs in a work call now */
	uint32_t threads;
};

/* Starts the workers.  Returns 0 and *out, -EINVAL (no fn), -ENOMEM, or
 * -errno from pthread_create. */
int queue_new(struct queue **out, const struct queue_opts *opts);
/* Queues path (copied; at most 4095 bytes).  Returns 0, -EINVAL,
 * -ENAMETOOLONG, -ENOMEM, or -ESHUTDOWN once queue_free() has begun. */
int queue_push(struct queue *q, const char *path, enum queue_prio prio);
/* Waits until nothing is pending or running, at most timeout_ms (< 0 =
 * forever).  Returns 0 or -ETIMEDOUT.  Not from inside the work function. */
int queue_wait_idle(struct queue *q, int timeout_ms);
/* A consistent snapshot of the counters. */
void queue_stats(struct queue *q, struct queue_stats *st);
/* Stops the workers (how: drain or cancel) and joins them.  From the moment
 * it is called, pushes fail with -ESHUTDOWN, so other threads (filesystem
 * operations racing an unmount) may keep calling queue_push() until
 * queue_free().  Calling it again does nothing.  Not from inside the work
 * function. */
void queue_stop(struct queue *q, enum queue_stop how);
/* Stops (draining, unless queue_stop() was called) and frees q.  No other
 * thread may use q any more.  NULL is allowed. */
void queue_free(struct queue *q);

#endif
