/* Unit tests for queue: counting, coalescing, reruns, priorities, shutdown under load. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "check.h"
#include "queue.h"

#define NPATHS 512

/* Shared by the work function and the tests. */
static atomic_uint runs[NPATHS];
static atomic_ulong seq;
static atomic_ulong last_push[NPATHS], last_run[NPATHS];
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static int gate_closed, gate_waiting;
static char order[64];
static atomic_uint order_len;

static unsigned path_no(const char *path)
{
	return (unsigned)strtoul(path + 1, NULL, 10) % NPATHS;
}

static void reset(void)
{
	unsigned i;

	for (i = 0; i < NPATHS; i++) {
		runs[i] = 0;
		last_push[i] = 0;
		last_run[i] = 0;
	}
	seq = 0;
	order_len = 0;
}

static int count_fn(void *arg, const char *path)
{
	unsigned n = path_no(path), o;

	(void)arg;
	last_run[n] = ++seq;
	runs[n]++;
	o = order_len++;
	if (o < sizeof(order) - 1)
		order[o] = path[0];
	pthread_mutex_lock(&gate_lock);
	while (gate_closed) {
		gate_waiting = 1;
		pthread_cond_broadcast(&gate_cond);
		pthread_cond_wait(&gate_cond, &gate_lock);
	}
	pthread_mutex_unlock(&gate_lock);
	return path[0] == 'f' ? -EIO : 0;
}

static void gate_close(void)
{
	pthread_mutex_lock(&gate_lock);
	gate_closed = 1;
	gate_waiting = 0;
	pthread_mutex_unlock(&gate_lock);
}

/* Waits until a job is blocked at the gate. */
static void gate_wait_blocked(void)
{
	pthread_mutex_lock(&gate_lock);
	while (!gate_waiting)
		pthread_cond_wait(&gate_cond, &gate_lock);
	pthread_mutex_unlock(&gate_lock);
}

static void gate_open(void)
{
	pthread_mutex_lock(&gate_lock);
	gate_closed = 0;
	pthread_cond_broadcast(&gate_cond);
	pthread_mutex_unlock(&gate_lock);
}

static void test_counting(void)
{
	struct queue_opts o = { 2, 0, count_fn, NULL };
	struct queue_stats st;
	struct queue *q = NULL;
	char p[32];
	unsigned i, bad = 0;

	reset();
	REQUIRE(queue_new(&q, &o) == 0);
	for (i = 0; i < 20000; i++) {
		snprintf(p, sizeof(p), "%c%u", i % 100 == 0 ? 'f' : 'p', i);
		REQUIRE(queue_push(q, p, QUEUE_LOW) == 0);
	}
	CHECK_EQ_INT(queue_wait_idle(q, 60000), 0);
	queue_stats(q, &st);
	CHECK_EQ_INT(st.done + st.coalesced, 20000);
	CHECK_EQ_INT(st.pushed, 20000);
	CHECK_EQ_INT(st.coalesced, 0);	/* distinct paths */
	CHECK_EQ_INT(st.failed, 200);
	CHECK_EQ_INT(st.pending, 0);
	CHECK_EQ_INT(st.running, 0);
	CHECK_EQ_INT(st.threads, 2);
	for (i = 0; i < NPATHS; i++)
		bad += runs[i] == 0;
	CHECK_EQ_INT(bad, 0);
	CHECK_EQ_INT(queue_push(q, "", QUEUE_LOW), -EINVAL);
	queue_free(q);
}

static void test_coalescing_and_rerun(void)
{
	struct queue_opts o = { 1, 0, count_fn, NULL };
	struct queue_stats st;
	struct queue *q = NULL;
	int i;

	reset();
	gate_close();
	REQUIRE(queue_new(&q, &o) == 0);
	REQUIRE(queue_push(q, "a1", QUEUE_LOW) == 0);
	gate_wait_blocked();			/* a1 is running */
	for (i = 0; i < 100; i++)
		REQUIRE(queue_push(q, "b2", QUEUE_LOW) == 0);
	for (i = 0; i < 5; i++)
		REQUIRE(queue_push(q, "a1", QUEUE_LOW) == 0);
	queue_stats(q, &st);
	CHECK_EQ_INT(st.pending, 1);
	CHECK_EQ_INT(st.running, 1);
	CHECK_EQ_INT(queue_wait_idle(q, 50), -ETIMEDOUT);
	gate_open();
	CHECK_EQ_INT(queue_wait_idle(q, 10000), 0);
	queue_stats(q, &st);
	CHECK_EQ_INT(runs[1], 2);	/* once, then once more for the pushes while running */
	CHECK_EQ_INT(runs[2], 1);
	CHECK_EQ_INT(st.coalesced, 99 + 4);
	CHECK_EQ_INT(st.reruns, 1);
	CHECK_EQ_INT(st.done, 3);
	queue_free(q);
}

static void test_priority(void)
{
	struct queue_opts o = { 1, 0, count_fn, NULL };
	struct queue *q = NULL;

	reset();
	gate_close();
	REQUIRE(queue_new(&q, &o) == 0);
	REQUIRE(queue_push(q, "x0", QUEUE_LOW) == 0);
	gate_wait_blocked();
	REQUIRE(queue_push(q, "l1", QUEUE_LOW) == 0);
	REQUIRE(queue_push(q, "m2", QUEUE_LOW) == 0);
	REQUIRE(queue_push(q, "h3", QUEUE_HIGH) == 0);
	REQUIRE(queue_push(q, "m2", QUEUE_HIGH) == 0);	/* moves up */
	gate_open();
	CHECK_EQ_INT(queue_wait_idle(q, 10000), 0);
	order[order_len < sizeof(order) ? order_len : sizeof(order) - 1] = '\0';
	CHECK_EQ_STR(order, "xhml");
	queue_free(q);
}

struct producer {
	struct queue *q;
	unsigned seed;
	unsigned accepted, refused;
};

static void *produce(void *p)
{
	struct producer *pr = p;
	char path[32];
	unsigned x = pr->seed;

	for (;;) {
		unsigned n;
		unsigned long s;
		int rc;

		x = x * 1103515245u + 12345u;
		n = (x >> 8) % NPATHS;
		snprintf(path, sizeof(path), "p%u", n);
		s = ++seq;
		rc = queue_push(pr->q, path, (x & 1) ? QUEUE_HIGH : QUEUE_LOW);
		if (rc == 0) {
			/* keep the largest push sequence number of this path */
			unsigned long cur = last_push[n];

			while (cur < s && !atomic_compare_exchange_weak(&last_push[n], &cur, s))
				;
			pr->accepted++;
		} else if (rc == -ESHUTDOWN) {
			pr->refused++;
			break;
		}
	}
	return NULL;
}

/* Drain under load: every accepted push is followed by a run of its path. */
static void test_shutdown_drain(void)
{
	struct queue_opts o = { 3, 0, count_fn, NULL };
	struct producer pr[3];
	pthread_t th[3];
	struct queue *q = NULL;
	unsigned i, bad = 0, accepted = 0;

	reset();
	REQUIRE(queue_new(&q, &o) == 0);
	for (i = 0; i < 3; i++) {
		pr[i].q = q;
		pr[i].seed = i + 1;
		pr[i].accepted = pr[i].refused = 0;
		REQUIRE(pthread_create(&th[i], NULL, produce, &pr[i]) == 0);
	}
	usleep(100000);
	queue_stop(q, QUEUE_DRAIN);	/* producers are still pushing */
	/* each producer stops at its first refused push */
	for (i = 0; i < 3; i++) {
		pthread_join(th[i], NULL);
		accepted += pr[i].accepted;
		CHECK_EQ_INT(pr[i].refused, 1);
	}
	queue_free(q);
	CHECK(accepted > 100);
	for (i = 0; i < NPATHS; i++)
		if (last_push[i] && last_run[i] < last_push[i])
			bad++;
	CHECK_EQ_INT(bad, 0);
}

static void *stop_cancel(void *q)
{
	queue_stop(q, QUEUE_CANCEL);
	return NULL;
}

/* Cancel under load: returns with nothing running, drops pending work. */
static void test_shutdown_cancel(void)
{
	struct queue_opts o = { 2, 5, count_fn, NULL };
	struct queue_stats st;
	struct producer pr;
	pthread_t th, stopper;
	struct queue *q = NULL;
	char p[32];
	unsigned i;

	reset();
	gate_close();
	REQUIRE(queue_new(&q, &o) == 0);
	for (i = 0; i < 5000; i++) {
		snprintf(p, sizeof(p), "c%u", i);
		REQUIRE(queue_push(q, p, QUEUE_LOW) == 0);
	}
	gate_wait_blocked();
	queue_stats(q, &st);
	CHECK(st.pending >= 4000);
	pr.q = q;
	pr.seed = 7;
	pr.accepted = pr.refused = 0;
	REQUIRE(pthread_create(&th, NULL, produce, &pr) == 0);
	usleep(20000);
	/* stop while the workers are still blocked, so the pending jobs are
	 * certainly there to be dropped; the stop waits for them */
	REQUIRE(pthread_create(&stopper, NULL, stop_cancel, q) == 0);
	do {
		usleep(1000);
		queue_stats(q, &st);
	} while (st.pending);
	CHECK(st.cancelled >= 4000);
	gate_open();
	pthread_join(stopper, NULL);
	queue_stats(q, &st);
	CHECK_EQ_INT(st.pending, 0);
	CHECK_EQ_INT(st.running, 0);
	pthread_join(th, NULL);
	CHECK_EQ_INT(pr.refused, 1);
	queue_free(q);
	{
		unsigned total = 0;

		for (i = 0; i < NPATHS; i++)
			total += runs[i];
		CHECK(total < 5000 + pr.accepted);	/* pending work was dropped */
	}
}

int main(void)
{
	RUN(test_counting);
	RUN(test_coalescing_and_rerun);
	RUN(test_priority);
	RUN(test_shutdown_drain);
	RUN(test_shutdown_cancel);
	return CHECK_DONE();
}
