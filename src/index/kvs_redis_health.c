/* kvs_redis_health.c - the Redis store's server out of reach (kvs_health()).
 *
 * The client (rcl.h) already retries a lost or refused connection until
 * its deadline, which rides out a failover.  A transaction that still
 * fails with a transport error marks the server out of reach: from then
 * on every transaction fails at once (-EHOSTDOWN), so a view, a worker or
 * the writer never waits on the network again, and the prober thread
 * connects to the URI's seeds afresh, with a short timeout, after a pause
 * that grows from PROBE_FIRST_MS to PROBE_MAX_MS.  The first probe that
 * reaches the library's master brings the store back.  The watcher
 * (kvs_watch()) hears of both changes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kvs_redis_i.h"

#define PROBE_FIRST_MS 200
#define PROBE_MAX_MS 3200
#define PROBE_TIMEOUT_MS 500

/* Tells the watcher (outside the lock: it may take locks of its own). */
static void tell(struct kvs_redis *s)
{
	void (*fn)(void *arg);
	void *arg;

	pthread_mutex_lock(&s->hlock);
	fn = s->watch_fn;
	arg = s->watch_arg;
	pthread_mutex_unlock(&s->hlock);
	if (fn)
		fn(arg);
}

int rd_gate(struct kvs_redis *s)
{
	return atomic_load_explicit(&s->down, memory_order_relaxed) ? -EHOSTDOWN : 0;
}

int rd_seen(struct kvs_redis *s, int ret)
{
	char err[200];

	if (!rcl_transport_error(ret) || atomic_load(&s->down))
		return ret;
	rcl_last_error(s->c, err, sizeof(err));
	pthread_mutex_lock(&s->hlock);
	if (!atomic_load(&s->down)) {
		snprintf(s->why, sizeof(s->why), "%s", *err ? err : strerror(-ret));
		s->since = (int64_t)time(NULL);
		atomic_store(&s->down, 1);
		pthread_cond_signal(&s->hcond);
	}
	pthread_mutex_unlock(&s->hlock);
	tell(s);
	return ret;
}

int rd_health(struct kvs *kv, char *why, size_t n, int64_t *since)
{
	struct kvs_redis *s = (struct kvs_redis *)kv;
	int down;

	pthread_mutex_lock(&s->hlock);
	down = atomic_load(&s->down);
	if (down && why && n)
		snprintf(why, n, "%s", s->why);
	if (down && since)
		*since = s->since;
	pthread_mutex_unlock(&s->hlock);
	return down;
}

/* 1 when a fresh connection reaches the library's master, else 0 with
 * why updated. */
static int probe(struct kvs_redis *s)
{
	const struct rcl_opts o = { PROBE_TIMEOUT_MS, PROBE_TIMEOUT_MS };
	const char *argv[1] = { "PING" };
	size_t argvlen[1] = { 4 };
	struct rcluri u = { 0 };
	struct rcl *c = NULL;
	struct rcl_reply *r = NULL;
	char err[200] = "";
	int ret = rcluri_parse(s->uri, &u, NULL);

	if (ret == 0)
		ret = rcl_open(&u, &o, &c);
	if (ret == 0)
		ret = rcl_command(c, s->vkey, s->vkeylen, 1, argv, argvlen, &r);
	if (ret && c)
		rcl_last_error(c, err, sizeof(err));
	rcl_reply_free(r);
	rcl_free(c);
	rcluri_release(&u);
	if (ret) {
		pthread_mutex_lock(&s->hlock);
		snprintf(s->why, sizeof(s->why), "%s", *err ? err : strerror(-ret));
		pthread_mutex_unlock(&s->hlock);
	}
	return ret == 0;
}

static void *prober(void *arg)
{
	struct kvs_redis *s = arg;
	long pause_ms = PROBE_FIRST_MS;
	struct timespec ts;

	pthread_mutex_lock(&s->hlock);
	while (!s->hstop) {
		if (!atomic_load(&s->down)) {
			pause_ms = PROBE_FIRST_MS;
			pthread_cond_wait(&s->hcond, &s->hlock);
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += pause_ms / 1000;
		ts.tv_nsec += pause_ms % 1000 * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		while (!s->hstop && pthread_cond_timedwait(&s->hcond, &s->hlock, &ts) != ETIMEDOUT)
			;
		if (s->hstop)
			break;
		pthread_mutex_unlock(&s->hlock);
		if (probe(s)) {
			atomic_store(&s->down, 0);
			tell(s);
		}
		pthread_mutex_lock(&s->hlock);
		pause_ms = pause_ms * 2 > PROBE_MAX_MS ? PROBE_MAX_MS : pause_ms * 2;
	}
	pthread_mutex_unlock(&s->hlock);
	return NULL;
}

int rd_health_init(struct kvs_redis *s)
{
	pthread_condattr_t ca;
	int ret = -pthread_condattr_init(&ca);

	if (ret)
		return ret;
	/* the prober's pauses are on the monotonic clock */
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	ret = -pthread_cond_init(&s->hcond, &ca);
	pthread_condattr_destroy(&ca);
	return ret;
}

int rd_health_start(struct kvs_redis *s)
{
	int ret = -pthread_create(&s->prober, NULL, prober, s);

	s->has_prober = !ret;
	return ret;
}

void rd_health_stop(struct kvs_redis *s)
{
	if (!s->has_prober)
		return;
	pthread_mutex_lock(&s->hlock);
	s->hstop = 1;
	pthread_cond_signal(&s->hcond);
	pthread_mutex_unlock(&s->hlock);
	pthread_join(s->prober, NULL);
	s->has_prober = 0;
}
