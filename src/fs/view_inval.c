/* view_inval.c - the views' invalidation thread: the view paths handed to
 * the kernel are remembered, and invalidated once the index moves on. */
#include "views_i.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Remembers a view path the kernel now caches (rel, or rel/name when name
 * is not NULL), for the next invalidation. */
void views_served_add(struct views *v, enum view_kind k, const char *rel, const char *name)
{
	const char *part[6] = { "/", v->names[k], *rel ? "/" : "", rel, name ? "/" : "",
				name ? name : "" };
	uint64_t h = 0xcbf29ce484222325u ^ 7;
	struct sbuf p;
	size_t i;
	char *s;
	int known;

	if (!v->has_thread)
		return;
	/* views_hash() of the path, without building it: every listing of a
	 * folder hands out the same entries again. */
	for (i = 0; i < 6; i++)
		h = views_hash_more(h, part[i]);
	h = (h ^ h >> 31) | 1;
	pthread_mutex_lock(&v->lock);
	for (i = (size_t)h % SEEN_SLOTS; v->seen[i] && v->seen[i] != h; i = (i + 1) % SEEN_SLOTS)
		;
	known = v->seen[i] == h;
	pthread_mutex_unlock(&v->lock);
	if (known)
		return;
	sbuf_init(&p);
	if (sbuf_addf(&p, "%s%s%s%s%s%s", part[0], part[1], part[2], part[3], part[4], part[5]))
		goto out;
	pthread_mutex_lock(&v->lock);
	for (i = (size_t)h % SEEN_SLOTS; v->seen[i] && v->seen[i] != h; i = (i + 1) % SEEN_SLOTS)
		;
	if (!v->seen[i] && v->nserved < SERVED_MAX && (s = sbuf_detach(&p, NULL))) {
		v->seen[i] = h;
		v->served[v->nserved++] = s;
	}
	pthread_mutex_unlock(&v->lock);
out:
	sbuf_release(&p);
}

/* ---- invalidation thread ---- */

void views_changed(void *arg)
{
	struct views *v = arg;

	pthread_mutex_lock(&v->lock);
	v->dirty = 1;
	pthread_cond_signal(&v->cond);
	pthread_mutex_unlock(&v->lock);
}


static void *views_thread(void *arg)
{
	struct views *v = arg;
	uint64_t last_gen = views_open(v) ? idx_generation(v->ix) : 0, gen;
	struct timespec ts;
	char **paths;
	size_t n, i, k;
	char top[NAME_MAX + 2];

	pthread_mutex_lock(&v->lock);
	while (!v->stop) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += 1;
		while (!v->stop && !v->dirty &&
		       pthread_cond_timedwait(&v->cond, &v->lock, &ts) != ETIMEDOUT)
			;
		if (v->stop)
			break;
		v->dirty = 0;
		pthread_mutex_unlock(&v->lock);
		/* Let a burst of changes settle into one invalidation. */
		nanosleep(&(struct timespec){ 0, 5000000 }, NULL);
		gen = views_open(v) ? idx_generation(v->ix) : 0;
		/* before the kernel forgets sizes: the next open measures again */
		snap_stale(v, gen == last_gen);
		snprintf(top, sizeof(top), "/%s/status", v->names[VK_META]);
		fuse_invalidate_path(v->fuse, top);
		pthread_mutex_lock(&v->lock);
		if (gen == last_gen)
			continue;
		last_gen = gen;
		paths = v->served;
		n = v->nserved;
		v->served = calloc(SERVED_MAX, sizeof(*v->served));
		v->nserved = 0;
		if (!v->served) {	/* keep the old set: it is invalidated again */
			v->served = paths;
			v->nserved = n;
			paths = NULL;
		} else {
			memset(v->seen, 0, SEEN_SLOTS * sizeof(*v->seen));
		}
		pthread_mutex_unlock(&v->lock);
		for (k = 0; k < VK_N; k++) {
			snprintf(top, sizeof(top), "/%s", v->names[k]);
			fuse_invalidate_path(v->fuse, top);
		}
		for (i = 0; paths && i < n; i++) {
			fuse_invalidate_path(v->fuse, paths[i]);
			free(paths[i]);
		}
		free(paths);
		grp_prebuild(v);
		pthread_mutex_lock(&v->lock);
	}
	pthread_mutex_unlock(&v->lock);
	return NULL;
}

int views_start(struct views *v, struct fuse *f)
{
	int ret;

	v->fuse = f;
	ret = -pthread_create(&v->thread, NULL, views_thread, v);
	v->has_thread = !ret;
	return ret;
}

void views_stop(struct views *v)
{
	if (!v || !v->has_thread)
		return;
	pthread_mutex_lock(&v->lock);
	v->stop = 1;
	pthread_cond_signal(&v->cond);
	pthread_mutex_unlock(&v->lock);
	pthread_join(v->thread, NULL);
	v->has_thread = 0;
}
