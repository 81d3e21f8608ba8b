/* dirahead.c - reads directories ahead of their consumer (see dirahead.h).
 *
 * Each dirahead_dir keeps the entries read from its stream but not yet taken in
 * an array (live part [head, head + n)).  The helper reads a small batch of
 * names under the directory's lock, fetches their attributes without it
 * (busy set: the stream is ahead of the array meanwhile, so the consumer
 * waits for the batch rather than read past it), then appends them.  The
 * consumer reads the stream itself only when nothing is ahead.
 */
#include "dirahead.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

/* Entries per helper batch: short enough that a consumer waiting for one
 * waits some 20 us. */
#define DRA_BATCH 16u

struct dirahead_dir {
	struct dirahead *dra;
	pthread_mutex_t lock;
	pthread_cond_t cv;		/* busy cleared */
	DIR *dp;
	struct dirahead_entry *e;		/* live entries: e[head .. head + n) */
	size_t cap;
	unsigned head, n;
	long pos;			/* offset of e[head] (of the stream when n == 0) */
	unsigned want;			/* entries the helper keeps ahead */
	int err;			/* readdir failed (-errno), until a seek */
	bool eof;
	bool busy;			/* the helper has a batch out of the array */
	/* dra->lock */
	bool queued;
	struct dirahead_dir *next_job;
};

struct dirahead {
	const _Atomic uint64_t *gen;
	pthread_mutex_t lock;
	pthread_cond_t work;		/* a job or quit */
	pthread_cond_t idle;		/* cur changed */
	struct dirahead_dir *jobs;
	struct dirahead_dir *cur;		/* being read ahead by the helper */
	pthread_t thread;
	bool started, failed, quit;
};

int dirahead_new(struct dirahead **out, const _Atomic uint64_t *gen)
{
	struct dirahead *dra = calloc(1, sizeof(*dra));

	if (!dra)
		return -ENOMEM;
	dra->gen = gen;
	pthread_mutex_init(&dra->lock, NULL);
	pthread_cond_init(&dra->work, NULL);
	pthread_cond_init(&dra->idle, NULL);
	*out = dra;
	return 0;
}

void dirahead_free(struct dirahead *dra)
{
	if (!dra)
		return;
	pthread_mutex_lock(&dra->lock);
	dra->quit = true;
	pthread_cond_broadcast(&dra->work);
	pthread_mutex_unlock(&dra->lock);
	if (dra->started)
		pthread_join(dra->thread, NULL);
	pthread_mutex_destroy(&dra->lock);
	pthread_cond_destroy(&dra->work);
	pthread_cond_destroy(&dra->idle);
	free(dra);
}

int dirahead_dir_new(struct dirahead *dra, DIR *dp, struct dirahead_dir **out)
{
	struct dirahead_dir *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	d->dra = dra;
	d->dp = dp;
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->cv, NULL);
	*out = d;
	return 0;
}

/* Drops every entry ahead; d->lock held, not busy. */
static void dirahead_drop(struct dirahead_dir *d)
{
	unsigned i;

	for (i = 0; i < d->n; i++)
		free(d->e[d->head + i].name);
	d->head = d->n = 0;
}

void dirahead_dir_free(struct dirahead_dir *d)
{
	struct dirahead *dra;
	struct dirahead_dir **pp;

	if (!d)
		return;
	dra = d->dra;
	pthread_mutex_lock(&dra->lock);
	if (d->queued) {
		for (pp = &dra->jobs; *pp != d; pp = &(*pp)->next_job)
			;
		*pp = d->next_job;
		d->queued = false;
	}
	while (dra->cur == d)
		pthread_cond_wait(&dra->idle, &dra->lock);
	pthread_mutex_unlock(&dra->lock);
	dirahead_drop(d);
	free(d->e);
	closedir(d->dp);
	pthread_mutex_destroy(&d->lock);
	pthread_cond_destroy(&d->cv);
	free(d);
}

int dirahead_dir_fd(const struct dirahead_dir *d)
{
	return dirfd(d->dp);
}

/* Reads up to max names from the stream into out (attributes not fetched);
 * d->lock held.  Sets eof or err at the end.  Returns how many. */
static unsigned dirahead_read(struct dirahead_dir *d, struct dirahead_entry *out, unsigned max)
{
	struct dirent *de;
	unsigned k = 0;

	while (k < max && !d->eof && !d->err) {
		errno = 0;
		de = readdir(d->dp);
		if (!de) {
			if (errno)
				d->err = -errno;
			else
				d->eof = true;
			break;
		}
		out[k].name = strdup(de->d_name);
		if (!out[k].name) {
			d->err = -ENOMEM;
			break;
		}
		out[k].ino = de->d_ino;
		out[k].type = de->d_type;
		out[k].next = telldir(d->dp);
		out[k].st_err = 1;
		out[k].gen = 0;
		k++;
	}
	return k;
}

/* Appends k entries; d->lock held.  On ENOMEM they are lost, and so is the
 * position: the error is reported like a failed readdir. */
static void dirahead_append(struct dirahead_dir *d, const struct dirahead_entry *in, unsigned k)
{
	unsigned i;

	if (d->head + d->n + k > d->cap && d->head) {
		memmove(d->e, d->e + d->head, d->n * sizeof(*d->e));
		d->head = 0;
	}
	if (ARRAY_GROW(d->e, d->cap, (size_t)d->n + k)) {
		for (i = 0; i < k; i++)
			free(in[i].name);
		d->err = -ENOMEM;
		return;
	}
	memcpy(d->e + d->head + d->n, in, k * sizeof(*in));
	d->n += k;
}

static void dirahead_stat(struct dirahead_dir *d, struct dirahead_entry *e, uint64_t gen)
{
	e->gen = gen;
	e->st_err = fstatat(dirfd(d->dp), e->name, &e->st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
}

/* The helper's work on d: read ahead until want entries are ready. */
static void dirahead_fill(struct dirahead *dra, struct dirahead_dir *d)
{
	struct dirahead_entry batch[DRA_BATCH];
	unsigned i, k;
	uint64_t gen;

	pthread_mutex_lock(&d->lock);
	while (!d->eof && !d->err && d->n < d->want) {
		k = dirahead_read(d, batch, d->want - d->n < DRA_BATCH ? d->want - d->n : DRA_BATCH);
		if (!k)
			break;
		d->busy = true;
		pthread_mutex_unlock(&d->lock);
		gen = atomic_load(dra->gen);
		for (i = 0; i < k; i++)
			dirahead_stat(d, &batch[i], gen);
		pthread_mutex_lock(&d->lock);
		d->busy = false;
		dirahead_append(d, batch, k);
		pthread_cond_broadcast(&d->cv);
	}
	pthread_mutex_unlock(&d->lock);
}

static void *dirahead_main(void *arg)
{
	struct dirahead *dra = arg;
	struct dirahead_dir *d;

	pthread_mutex_lock(&dra->lock);
	for (;;) {
		while (!dra->quit && !dra->jobs)
			pthread_cond_wait(&dra->work, &dra->lock);
		if (dra->quit)
			break;
		d = dra->jobs;
		dra->jobs = d->next_job;
		d->queued = false;
		dra->cur = d;
		pthread_mutex_unlock(&dra->lock);
		dirahead_fill(dra, d);
		pthread_mutex_lock(&dra->lock);
		dra->cur = NULL;
		pthread_cond_broadcast(&dra->idle);
	}
	pthread_mutex_unlock(&dra->lock);
	return NULL;
}

/* Starts the helper with every signal blocked (a process signal must reach
 * the thread that waits for it); dra->lock held.  false: no helper. */
static bool dirahead_start(struct dirahead *dra)
{
	sigset_t all, old;

	if (dra->started || dra->failed)
		return dra->started;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	dra->started = pthread_create(&dra->thread, NULL, dirahead_main, dra) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	dra->failed = !dra->started;
	return dra->started;
}

void dirahead_ahead(struct dirahead_dir *d, unsigned n)
{
	struct dirahead *dra = d->dra;
	bool more;

	pthread_mutex_lock(&d->lock);
	d->want = n < DRA_MAX_AHEAD ? n : DRA_MAX_AHEAD;
	more = d->n < d->want && !d->eof && !d->err;
	pthread_mutex_unlock(&d->lock);
	if (!more)
		return;
	pthread_mutex_lock(&dra->lock);
	/* Queued even while the helper is on d: it may be just leaving.
	 * Last in line, so that every listing gets its turn. */
	if (!d->queued && !dra->quit && dirahead_start(dra)) {
		struct dirahead_dir **pp;

		for (pp = &dra->jobs; *pp; pp = &(*pp)->next_job)
			;
		d->next_job = NULL;
		*pp = d;
		d->queued = true;
		pthread_cond_signal(&dra->work);
	}
	pthread_mutex_unlock(&dra->lock);
}

void dirahead_seek(struct dirahead_dir *d, long off)
{
	pthread_mutex_lock(&d->lock);
	while (d->busy)
		pthread_cond_wait(&d->cv, &d->lock);
	if (off == 0 || off != d->pos) {
		dirahead_drop(d);
		if (off == 0)
			rewinddir(d->dp);
		else
			seekdir(d->dp, off);
		d->pos = off;
		d->eof = false;
		d->err = 0;
	}
	pthread_mutex_unlock(&d->lock);
}

int dirahead_peek(struct dirahead_dir *d, bool attrs, struct dirahead_entry *e)
{
	struct dirahead_entry one;
	int ret = 1;

	pthread_mutex_lock(&d->lock);
	while (!d->n && d->busy)
		pthread_cond_wait(&d->cv, &d->lock);
	if (!d->n && dirahead_read(d, &one, 1))
		dirahead_append(d, &one, 1);
	if (!d->n)
		ret = d->err ? d->err : 0;
	else
		*e = d->e[d->head];
	pthread_mutex_unlock(&d->lock);
	if (ret == 1 && attrs) {
		uint64_t gen = atomic_load(d->dra->gen);

		/* The stream's fd and the name stay put while we own the entry. */
		if (e->st_err == 1 || e->gen != gen)
			dirahead_stat(d, e, gen);
	}
	return ret;
}

void dirahead_take(struct dirahead_dir *d)
{
	pthread_mutex_lock(&d->lock);
	if (d->n) {
		free(d->e[d->head].name);
		d->pos = d->e[d->head].next;
		d->head++;
		if (!--d->n)
			d->head = 0;
	}
	pthread_mutex_unlock(&d->lock);
}
