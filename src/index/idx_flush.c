/* idx_flush.c - the flusher thread of the LMDB index: committed writes reach
 * the disk within sync_ms (commits are MDB_NOSYNC). */
#include <pthread.h>
#include <time.h>

#include "idx_i.h"

static void *flusher_main(void *p)
{
	struct idx *ix = p;
	struct timespec ts;

	pthread_mutex_lock(&ix->flock);
	while (!ix->stopping) {
		if (!ix->dirty) {
			pthread_cond_wait(&ix->fcond, &ix->flock);
			continue;
		}
		/* let the writes of one interval gather, then sync them at once */
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += ix->sync_ms / 1000;
		ts.tv_nsec += (long)(ix->sync_ms % 1000) * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		while (!ix->stopping && pthread_cond_timedwait(&ix->fcond, &ix->flock, &ts) == 0)
			;
		ix->dirty = 0;
		pthread_mutex_unlock(&ix->flock);
		/* without MDB_WRITEMAP this is an fdatasync of the data file:
		 * it does not touch the map, so no maplock */
		mdb_env_sync(ix->env, 1);
		pthread_mutex_lock(&ix->flock);
	}
	pthread_mutex_unlock(&ix->flock);
	return NULL;
}

int idx_flusher_start(struct idx *ix)
{
	int ret = -pthread_create(&ix->flusher, NULL, flusher_main, ix);

	if (ret == 0)
		ix->has_flusher = 1;
	return ret;
}

void idx_flusher_kick(struct idx *ix)
{
	if (!ix->has_flusher)
		return;
	pthread_mutex_lock(&ix->flock);
	if (!ix->dirty) {
		ix->dirty = 1;
		pthread_cond_signal(&ix->fcond);
	}
	pthread_mutex_unlock(&ix->flock);
}

void idx_flusher_stop(struct idx *ix)
{
	if (!ix->has_flusher)
		return;
	pthread_mutex_lock(&ix->flock);
	ix->stopping = 1;
	pthread_cond_signal(&ix->fcond);
	pthread_mutex_unlock(&ix->flock);
	pthread_join(ix->flusher, NULL);
	ix->has_flusher = 0;
}
