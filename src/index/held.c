/* held.c - paths handed back after a while (see held.h).  A plain array
 * looked through every quarter of a second while it holds anything: a
 * held path costs nothing but that look, and waits at most a claim's
 * lifetime. */
#include "held.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "monoclock.h"

#define HELD_TICK_NS 250000000L

struct held_path {
	int64_t due_ns;		/* CLOCK_MONOTONIC */
	char *path;
};

struct held {
	held_fn *fn;
	void *arg;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct held_path *v;
	size_t n, cap;
	int stop, has_thread;
	pthread_t thread;
};

int held_new(struct held **out, held_fn *fn, void *arg)
{
	struct held *h = calloc(1, sizeof(*h));
	pthread_condattr_t ca;

	*out = NULL;
	if (!h)
		return -ENOMEM;
	h->fn = fn;
	h->arg = arg;
	pthread_mutex_init(&h->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&h->cond, &ca);
	pthread_condattr_destroy(&ca);
	*out = h;
	return 0;
}

/* Takes the paths whose time came out of h (lock held) into *due. */
static size_t held_take_due(struct held *h, char ***due)
{
	int64_t now = monoclock_ns();
	size_t i, k = 0, n = 0;

	*due = NULL;
	for (i = 0; i < h->n; i++)
		n += h->v[i].due_ns <= now;
	if (!n || !(*due = malloc(n * sizeof(**due))))
		return 0;
	for (i = 0, n = 0; i < h->n; i++) {
		if (h->v[i].due_ns <= now)
			(*due)[n++] = h->v[i].path;
		else
			h->v[k++] = h->v[i];
	}
	h->n = k;
	return n;
}

static void *held_thread(void *arg)
{
	struct held *h = arg;
	struct timespec ts;
	char **due;
	size_t n, i;

	pthread_mutex_lock(&h->lock);
	while (!h->stop) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += HELD_TICK_NS;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		if (!h->n)
			pthread_cond_wait(&h->cond, &h->lock);
		else
			pthread_cond_timedwait(&h->cond, &h->lock, &ts);
		n = h->stop ? 0 : held_take_due(h, &due);
		if (!n)
			continue;
		pthread_mutex_unlock(&h->lock);
		for (i = 0; i < n; i++) {
			h->fn(h->arg, due[i]);
			free(due[i]);
		}
		free(due);
		pthread_mutex_lock(&h->lock);
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

int held_add(struct held *h, const char *path, unsigned ms)
{
	char *p = strdup(path);
	int ret = 0;

	if (!p)
		return -ENOMEM;
	pthread_mutex_lock(&h->lock);
	if (!h->has_thread) {
		ret = -pthread_create(&h->thread, NULL, held_thread, h);
		h->has_thread = !ret;
	}
	if (!ret && h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 64;
		struct held_path *v = realloc(h->v, cap * sizeof(*v));

		if (v) {
			h->v = v;
			h->cap = cap;
		} else {
			ret = -ENOMEM;
		}
	}
	if (!ret) {
		h->v[h->n].due_ns = monoclock_ns() + (int64_t)ms * 1000000;
		h->v[h->n++].path = p;
		p = NULL;
		pthread_cond_signal(&h->cond);
	}
	pthread_mutex_unlock(&h->lock);
	free(p);
	return ret;
}

size_t held_count(struct held *h)
{
	size_t n;

	pthread_mutex_lock(&h->lock);
	n = h->n;
	pthread_mutex_unlock(&h->lock);
	return n;
}

void held_free(struct held *h)
{
	size_t i;

	if (!h)
		return;
	pthread_mutex_lock(&h->lock);
	h->stop = 1;
	pthread_cond_signal(&h->cond);
	pthread_mutex_unlock(&h->lock);
	if (h->has_thread)
		pthread_join(h->thread, NULL);
	for (i = 0; i < h->n; i++)
		free(h->v[i].path);
	free(h->v);
	pthread_cond_destroy(&h->cond);
	pthread_mutex_destroy(&h->lock);
	free(h);
}
