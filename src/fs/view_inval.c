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

#include "monoclock.h"

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

/* Caller-dependent answers: with allow_other the kernel would serve an
 * entry looked up by root to every other user for the cache timeout, so
 * the thread drops it from the kernel's cache as soon as the reply is in. */
void views_private_add(struct views *v, enum view_kind k, const char *rel, const char *name)
{
	struct sbuf p;

	/* one user only: nobody else can be served its answers */
	if (!v->has_thread || !v->shared)
		return;
	sbuf_init(&p);
	if (sbuf_addf(&p, "/%s%s%s%s%s", v->names[k], *rel ? "/" : "", rel, name ? "/" : "",
		      name ? name : "")) {
		sbuf_release(&p);
		return;
	}
	pthread_mutex_lock(&v->lock);
	if (v->npriv < PRIV_MAX)
		v->priv[v->npriv++] = sbuf_detach(&p, NULL);
	else
		v->priv_lost = 1;
	pthread_cond_signal(&v->cond);
	pthread_mutex_unlock(&v->lock);
	sbuf_release(&p);
}

/* Invalidates the private answers taken from v (lock not held): after a
 * moment, so that the replies they went out with are in the kernel. */
static void inval_private(struct views *v, char **paths, size_t n)
{
	size_t i;

	if (!n)
		return;
	nanosleep(&(struct timespec){ 0, 2000000 }, NULL);
	for (i = 0; i < n; i++) {
		fuse_invalidate_path(v->fuse, paths[i]);
		free(paths[i]);
	}
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

void views_perm_changed(struct views *v)
{
	struct timespec ts;
	uint64_t done;

	if (!v->has_thread)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 1;
	pthread_mutex_lock(&v->lock);
	done = v->perm_done;
	v->perm_req = 1;
	pthread_cond_signal(&v->cond);
	while (v->perm_done == done && !v->stop &&
	       pthread_cond_timedwait(&v->perm_cond, &v->lock, &ts) != ETIMEDOUT)
		;
	pthread_mutex_unlock(&v->lock);
}

static void *views_thread(void *arg)
{
	struct views *v = arg;
	uint64_t last_gen = views_open(v) ? idx_generation(v->ix) : 0, gen;
	int64_t checked = monoclock_ns();
	struct timespec ts;
	char **paths, **priv;
	size_t n, i, k;
	char top[NAME_MAX + 2];
	uint64_t changes;
	int force, perm;

	priv = calloc(PRIV_MAX, sizeof(*priv));
	pthread_mutex_lock(&v->lock);
	while (!v->stop) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += 1;
		while (!v->stop && !v->dirty && !v->npriv && !v->priv_lost && !v->perm_req &&
		       pthread_cond_timedwait(&v->cond, &v->lock, &ts) != ETIMEDOUT)
			;
		if (v->stop)
			break;
		n = v->npriv;
		perm = v->perm_req;
		v->perm_req = 0;
		/* a folder changed since the kernel was last told: what was
		 * kept for the callers of a folder goes too */
		changes = fsacc_changes(v->acc);
		force = v->priv_lost || perm || changes != v->acc_seen;
		if (priv) {
			memcpy(priv, v->priv, n * sizeof(*priv));
		} else {	/* no room to take them: everything goes */
			for (i = 0; i < n; i++)
				free(v->priv[i]);
			force |= n > 0;
			n = 0;
		}
		v->npriv = 0;
		v->priv_lost = 0;
		if (!v->dirty && !force && n && monoclock_ns() - checked < 1000000000) {
			pthread_mutex_unlock(&v->lock);
			inval_private(v, priv, n);
			pthread_mutex_lock(&v->lock);
			continue;
		}
		v->dirty = 0;
		pthread_mutex_unlock(&v->lock);
		inval_private(v, priv, n);
		/* A folder's mode or owner changed (through the mount or behind
		 * it): what every caller was shown may be wrong now. */
		if (perm || monoclock_ns() - checked >= 1000000000) {
			force |= fsacc_recheck(v->acc);
			checked = monoclock_ns();
			changes = fsacc_changes(v->acc);
		}
		/* Let a burst of changes settle into one invalidation. */
		nanosleep(&(struct timespec){ 0, 5000000 }, NULL);
		gen = views_open(v) ? idx_generation(v->ix) : 0;
		/* before the kernel forgets sizes: the next open measures again */
		snap_stale(v, gen == last_gen && !force);
		snprintf(top, sizeof(top), "/%s/status", v->names[VK_META]);
		fuse_invalidate_path(v->fuse, top);
		pthread_mutex_lock(&v->lock);
		if (gen == last_gen && !force)
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
		if (force)
			grp_callers_drop(v);
		for (k = 0; k < VK_N; k++) {
			snprintf(top, sizeof(top), "/%s", v->names[k]);
			fuse_invalidate_path(v->fuse, top);
		}
		/* the latest first: entries before the folders they are in,
		 * whose search bits kept others from them */
		for (i = n; paths && i-- > 0;) {
			fuse_invalidate_path(v->fuse, paths[i]);
			free(paths[i]);
		}
		free(paths);
		pthread_mutex_lock(&v->lock);
		v->acc_seen = changes;
		if (perm) {
			v->perm_done++;
			pthread_cond_broadcast(&v->perm_cond);
		}
		pthread_mutex_unlock(&v->lock);
		grp_prebuild(v);
		pthread_mutex_lock(&v->lock);
	}
	pthread_mutex_unlock(&v->lock);
	free(priv);
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
