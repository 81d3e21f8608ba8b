/* queue.c - coalescing work queue with worker threads (see queue.h). */
#include "queue.h"
#include "memtune.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#define QUEUE_PATH_MAX 4095
#define QUEUE_MAX_THREADS 64

enum job_state { JOB_PENDING, JOB_RUNNING };

struct job {
	struct job *hnext;		/* path table chain */
	struct job *prev, *next;	/* pending list of its priority */
	uint64_t hash;
	uint8_t state;
	uint8_t prio;
	uint8_t again;			/* pushed while running: run once more */
	uint8_t again_prio;
	size_t len;
	char path[];
};

struct jlist {
	struct job *head, *tail;
};

struct queue {
	pthread_mutex_t lock;
	pthread_cond_t work;		/* a job is pending, or stopping */
	pthread_cond_t idle;		/* nothing pending or running */
	struct job **table;		/* by path; every job, pending or running */
	size_t tsize, njobs;		/* tsize is a power of two */
	struct jlist list[2];		/* pending jobs by priority */
	int stopping, cancel;
	struct queue_stats st;
	queue_work_fn fn;
	void *arg;
	int nice;
	unsigned nthreads;
	pthread_t *threads;
};

static void list_append(struct jlist *l, struct job *j)
{
	j->next = NULL;
	j->prev = l->tail;
	if (l->tail)
		l->tail->next = j;
	else
		l->head = j;
	l->tail = j;
}

static void list_remove(struct jlist *l, struct job *j)
{
	if (j->prev)
		j->prev->next = j->next;
	else
		l->head = j->next;
	if (j->next)
		j->next->prev = j->prev;
	else
		l->tail = j->prev;
	j->prev = j->next = NULL;
}

static struct job *table_find(struct queue *q, uint64_t hash, const char *path, size_t len)
{
	struct job *j;

	for (j = q->table[hash & (q->tsize - 1)]; j; j = j->hnext)
		if (j->hash == hash && j->len == len && memcmp(j->path, path, len) == 0)
			return j;
	return NULL;
}

static void table_remove(struct queue *q, struct job *j)
{
	struct job **pp = &q->table[j->hash & (q->tsize - 1)];

	while (*pp != j)
		pp = &(*pp)->hnext;
	*pp = j->hnext;
	q->njobs--;
}

/* Inserts j, doubling the table when it gets full; keeps going without
 * growing if memory is short (chains just get longer). */
static void table_insert(struct queue *q, struct job *j)
{
	if (q->njobs >= q->tsize) {
		size_t nsize = q->tsize * 2, i;
		struct job **nt = calloc(nsize, sizeof(*nt));

		if (nt) {
			for (i = 0; i < q->tsize; i++) {
				struct job *e = q->table[i], *next;

				for (; e; e = next) {
					next = e->hnext;
					e->hnext = nt[e->hash & (nsize - 1)];
					nt[e->hash & (nsize - 1)] = e;
				}
			}
			free(q->table);
			q->table = nt;
			q->tsize = nsize;
		}
	}
	j->hnext = q->table[j->hash & (q->tsize - 1)];
	q->table[j->hash & (q->tsize - 1)] = j;
	q->njobs++;
}

static void make_pending(struct queue *q, struct job *j, uint8_t prio)
{
	j->state = JOB_PENDING;
	j->prio = prio;
	list_append(&q->list[prio], j);
	q->st.pending++;
	pthread_cond_signal(&q->work);
}

int queue_push(struct queue *q, const char *path, enum queue_prio prio)
{
	size_t len;
	uint64_t hash;
	struct job *j, *e;
	uint8_t p = prio == QUEUE_HIGH ? 1 : 0;

	if (!path || !*path)
		return -EINVAL;
	len = strlen(path);
	if (len > QUEUE_PATH_MAX)
		return -ENAMETOOLONG;
	/* allocate and hash before taking the lock */
	hash = XXH3_64bits(path, len);
	j = malloc(sizeof(*j) + len + 1);
	if (!j)
		return -ENOMEM;
	memset(j, 0, sizeof(*j));
	j->hash = hash;
	j->len = len;
	memcpy(j->path, path, len + 1);

	pthread_mutex_lock(&q->lock);
	if (q->stopping) {
		pthread_mutex_unlock(&q->lock);
		free(j);
		return -ESHUTDOWN;
	}
	q->st.pushed++;
	e = table_find(q, hash, path, len);
	if (e) {
		if (e->state == JOB_PENDING) {
			q->st.coalesced++;
			if (p > e->prio) {
				list_remove(&q->list[e->prio], e);
				e->prio = p;
				list_append(&q->list[p], e);
			}
		} else {
			if (e->again)
				q->st.coalesced++;
			e->again = 1;
			if (p > e->again_prio)
				e->again_prio = p;
		}
		pthread_mutex_unlock(&q->lock);
		free(j);
		return 0;
	}
	table_insert(q, j);
	make_pending(q, j, p);
	pthread_mutex_unlock(&q->lock);
	return 0;
}

static void *worker(void *p)
{
	struct queue *q = p;
	struct job *j;
	int rc, ran = 0;

	if (q->nice) {
		/* On Linux nice is per thread: lower only this worker.  Best
		 * effort: a failure leaves the worker at normal priority. */
		id_t tid = (id_t)syscall(SYS_gettid);

		(void)setpriority(PRIO_PROCESS, tid, getpriority(PRIO_PROCESS, tid) + q->nice);
	}
	pthread_mutex_lock(&q->lock);
	for (;;) {
		if (ran && !q->list[1].head && !q->list[0].head && !q->stopping) {
			/* out of work: hand back what the books read took */
			ran = 0;
			pthread_mutex_unlock(&q->lock);
			memtune_idle();
			pthread_mutex_lock(&q->lock);
			continue;
		}
		while (!q->list[1].head && !q->list[0].head && !q->stopping)
			pthread_cond_wait(&q->work, &q->lock);
		j = q->list[1].head ? q->list[1].head : q->list[0].head;
		if (!j)
			break;	/* stopping and nothing left */
		list_remove(&q->list[j->prio], j);
		q->st.pending--;
		j->state = JOB_RUNNING;
		q->st.running++;
		pthread_mutex_unlock(&q->lock);

		rc = q->fn(q->arg, j->path);
		ran = 1;

		pthread_mutex_lock(&q->lock);
		q->st.running--;
		q->st.done++;
		if (rc < 0)
			q->st.failed++;
		if (j->again && !q->cancel) {
			j->again = 0;
			q->st.reruns++;
			make_pending(q, j, j->again_prio);
			j->again_prio = 0;
		} else {
			table_remove(q, j);
			free(j);
		}
		if (!q->st.pending && !q->st.running)
			pthread_cond_broadcast(&q->idle);
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

int queue_new(struct queue **out, const struct queue_opts *opts)
{
	struct queue *q = NULL;
	unsigned n, i;
	long cpus;
	int ret;

	*out = NULL;
	if (!opts || !opts->fn)
		return -EINVAL;
	n = opts->threads;
	if (n == 0) {
		cpus = sysconf(_SC_NPROCESSORS_ONLN);
		n = cpus > 0 ? (unsigned)cpus : 1;
	}
	if (n > QUEUE_MAX_THREADS)
		n = QUEUE_MAX_THREADS;
	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	q->tsize = 1024;
	q->table = calloc(q->tsize, sizeof(*q->table));
	q->threads = calloc(n, sizeof(*q->threads));
	if (!q->table || !q->threads) {
		free(q->table);
		free(q->threads);
		free(q);
		return -ENOMEM;
	}
	q->fn = opts->fn;
	q->arg = opts->arg;
	q->nice = opts->nice;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->work, NULL);
	pthread_cond_init(&q->idle, NULL);
	for (i = 0; i < n; i++) {
		ret = -pthread_create(&q->threads[i], NULL, worker, q);
		if (ret) {
			q->nthreads = i;
			q->st.threads = i;
			queue_stop(q, QUEUE_CANCEL);
			queue_free(q);
			return ret;
		}
	}
	q->nthreads = n;
	q->st.threads = n;
	*out = q;
	return 0;
}

int queue_wait_idle(struct queue *q, int timeout_ms)
{
	struct timespec ts;
	int ret = 0;

	clock_gettime(CLOCK_REALTIME, &ts);
	if (timeout_ms >= 0) {
		ts.tv_sec += timeout_ms / 1000;
		ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
	}
	pthread_mutex_lock(&q->lock);
	while ((q->st.pending || q->st.running) && ret == 0) {
		if (timeout_ms < 0)
			pthread_cond_wait(&q->idle, &q->lock);
		else
			ret = -pthread_cond_timedwait(&q->idle, &q->lock, &ts);
	}
	if (ret && !q->st.pending && !q->st.running)
		ret = 0;
	pthread_mutex_unlock(&q->lock);
	return ret;
}

void queue_stats(struct queue *q, struct queue_stats *st)
{
	pthread_mutex_lock(&q->lock);
	*st = q->st;
	pthread_mutex_unlock(&q->lock);
}

void queue_stop(struct queue *q, enum queue_stop how)
{
	struct job *j;
	unsigned i;
	size_t k;

	pthread_mutex_lock(&q->lock);
	if (q->stopping) {
		pthread_mutex_unlock(&q->lock);
		return;
	}
	q->stopping = 1;
	if (how == QUEUE_CANCEL) {
		q->cancel = 1;
		for (k = 0; k < 2; k++) {
			while ((j = q->list[k].head) != NULL) {
				list_remove(&q->list[k], j);
				table_remove(q, j);
				free(j);
				q->st.pending--;
				q->st.cancelled++;
			}
		}
		if (!q->st.running)
			pthread_cond_broadcast(&q->idle);
	}
	pthread_cond_broadcast(&q->work);
	pthread_mutex_unlock(&q->lock);
	for (i = 0; i < q->nthreads; i++)
		pthread_join(q->threads[i], NULL);
}

void queue_free(struct queue *q)
{
	if (!q)
		return;
	queue_stop(q, QUEUE_DRAIN);
	/* every worker is gone: the table holds no job now */
	free(q->table);
	free(q->threads);
	pthread_cond_destroy(&q->work);
	pthread_cond_destroy(&q->idle);
	pthread_mutex_destroy(&q->lock);
	free(q);
}
