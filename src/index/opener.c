/* opener.c - the index opened on a thread of its own while the mount
 * already serves SRC (see opener.h). */
#include "opener.h"
#include "rcl.h"
#include "rcluri.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

struct opener {
	int rootfd;
	struct opener_opts o;
	pthread_t thread;
	int has_thread;
	/* published once (release), read by any thread (acquire) */
	_Atomic(struct indexer *) ixr;
	atomic_int stop;
	pthread_mutex_t lock;		/* the fields below */
	pthread_cond_t cond;		/* wakes a test delay on stop */
	enum opener_state state;
	uint64_t done, total;
	int error;
	int64_t since;			/* OPENER_UNAVAILABLE: from (epoch seconds) */
	struct timespec t0, t1;		/* the open started; ended (t1 zero until then) */
};

static double seconds_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static void opener_notify(struct opener *op)
{
	if (op->o.io.notify)
		op->o.io.notify(op->o.io.notify_arg);
}

/* Sleeps ms unless stopped. */
static void opener_sleep(struct opener *op, unsigned ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&op->lock);
	while (!atomic_load(&op->stop) &&
	       pthread_cond_timedwait(&op->cond, &op->lock, &ts) != ETIMEDOUT)
		;
	pthread_mutex_unlock(&op->lock);
}

/* The test delay: sleeps op->o.test_delay_ms unless stopped. */
static void opener_delay(struct opener *op)
{
	if (op->o.test_delay_ms)
		opener_sleep(op, op->o.test_delay_ms);
}

/* 1 for an error that says the index cannot be reached now (worth trying
 * again), not that it is wrong: a shared index's server out of reach, or
 * an index file whose check could not finish because its readers were
 * held up (idx_open(): -ETIMEDOUT, no verdict on the file). */
static int opener_unreachable(const struct opener *op, int err)
{
	if (!rcluri_is_uri(op->o.io.index_dir))
		return err == -ETIMEDOUT;
	return rcl_transport_error(err);
}

/* idx_opts.progress: records the phase and count; non-zero once
 * opener_free() asked to stop. */
static int opener_progress(void *arg, enum idx_open_phase phase, uint64_t done, uint64_t total)
{
	struct opener *op = arg;
	enum opener_state s = phase == IDX_OPEN_REBUILD ? OPENER_REBUILDING : OPENER_UPGRADING;
	int changed;

	pthread_mutex_lock(&op->lock);
	changed = op->state != s;
	op->state = s;
	op->done = done;
	op->total = total;
	pthread_mutex_unlock(&op->lock);
	if (changed)
		opener_notify(op);
	opener_delay(op);
	return atomic_load(&op->stop);
}

static void opener_set(struct opener *op, enum opener_state s, int error)
{
	pthread_mutex_lock(&op->lock);
	op->state = s;
	op->error = error;
	clock_gettime(CLOCK_MONOTONIC, &op->t1);
	pthread_mutex_unlock(&op->lock);
}

static void *opener_main(void *arg)
{
	struct opener *op = arg;
	struct indexer *ixr = NULL;
	unsigned pause_ms = OPENER_RETRY_FIRST_MS;
	int ret;

	opener_delay(op);
	ret = atomic_load(&op->stop) ? -ECANCELED : indexer_new(&ixr, op->rootfd, &op->o.io);
	/* Out of reach: tried again, with a growing pause, until it answers
	 * or the mount ends. */
	while (ret && opener_unreachable(op, ret) && !atomic_load(&op->stop)) {
		int first;

		pthread_mutex_lock(&op->lock);
		first = op->state != OPENER_UNAVAILABLE;
		if (first)
			op->since = (int64_t)time(NULL);
		op->state = OPENER_UNAVAILABLE;
		op->error = ret;
		pthread_mutex_unlock(&op->lock);
		if (first)
			opener_notify(op);
		opener_sleep(op, pause_ms);
		pause_ms = pause_ms * 2 > OPENER_RETRY_MAX_MS ? OPENER_RETRY_MAX_MS : pause_ms * 2;
		ret = atomic_load(&op->stop) ? -ECANCELED :
					       indexer_new(&ixr, op->rootfd, &op->o.io);
	}
	if (op->o.opened)
		op->o.opened(op->o.arg, ixr, ret);
	if (ret) {
		opener_set(op, OPENER_FAILED, ret);
		opener_notify(op);
		return NULL;
	}
	atomic_store_explicit(&op->ixr, ixr, memory_order_release);
	opener_set(op, OPENER_OPEN, 0);
	/* the views show the books known so far at once */
	opener_notify(op);
	/* After the publication: the scan finds every change that was not
	 * reported to the indexer (opener.h). */
	ret = indexer_start(ixr);
	if (ret) {
		opener_set(op, OPENER_FAILED, ret);
		opener_notify(op);
	}
	return NULL;
}

int opener_new(struct opener **out, int rootfd, const struct opener_opts *opts)
{
	struct opener *op = calloc(1, sizeof(*op));
	pthread_condattr_t ca;

	*out = NULL;
	if (!op)
		return -ENOMEM;
	op->rootfd = rootfd;
	op->o = *opts;
	op->o.io.open_progress = opener_progress;
	op->o.io.open_progress_arg = op;
	op->state = OPENER_OPENING;
	atomic_init(&op->ixr, NULL);
	atomic_init(&op->stop, 0);
	clock_gettime(CLOCK_MONOTONIC, &op->t0);
	pthread_mutex_init(&op->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&op->cond, &ca);
	pthread_condattr_destroy(&ca);
	*out = op;
	return 0;
}

int opener_start(struct opener *op)
{
	int ret;

	if (op->has_thread)
		return -EBUSY;
	pthread_mutex_lock(&op->lock);
	clock_gettime(CLOCK_MONOTONIC, &op->t0);
	pthread_mutex_unlock(&op->lock);
	ret = -pthread_create(&op->thread, NULL, opener_main, op);
	op->has_thread = !ret;
	return ret;
}

struct indexer *opener_indexer(struct opener *op)
{
	return atomic_load_explicit(&op->ixr, memory_order_acquire);
}

void opener_info(struct opener *op, struct opener_info *info)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	pthread_mutex_lock(&op->lock);
	info->state = op->state;
	info->done = op->done;
	info->total = op->total;
	info->error = op->error;
	info->since = op->since;
	info->seconds = seconds_between(&op->t0, op->t1.tv_sec || op->t1.tv_nsec ? &op->t1 : &now);
	pthread_mutex_unlock(&op->lock);
}

const char *opener_state_name(enum opener_state s)
{
	static const char *const names[] = {
		[OPENER_OPENING] = "opening", [OPENER_UPGRADING] = "upgrading",
		[OPENER_REBUILDING] = "rebuilding", [OPENER_OPEN] = "open",
		[OPENER_FAILED] = "failed", [OPENER_UNAVAILABLE] = "unavailable",
	};

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "unknown";
}

void opener_free(struct opener *op)
{
	if (!op)
		return;
	pthread_mutex_lock(&op->lock);
	atomic_store(&op->stop, 1);
	pthread_cond_broadcast(&op->cond);
	pthread_mutex_unlock(&op->lock);
	if (op->has_thread)
		pthread_join(op->thread, NULL);
	indexer_free(atomic_load(&op->ixr));
	pthread_cond_destroy(&op->cond);
	pthread_mutex_destroy(&op->lock);
	free(op);
}
