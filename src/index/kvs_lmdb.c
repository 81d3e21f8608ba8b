/* kvs_lmdb.c - the LMDB backend of the index's key-value store (kvs.h,
 * kvs_lmdb.h; kvs.c routes the calls here through kvs_lmdb_ops): the one
 * place LMDB codes become errno, transactions with map growth, cursors,
 * the dup (DUPSORT | DUPFIXED) calls and the flusher. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kvs_lmdb.h"

int idx_err(int rc)
{
	switch (rc) {
	case MDB_SUCCESS:
		return 0;
	case MDB_NOTFOUND:
		return -ENOENT;
	case MDB_KEYEXIST:
		return -EEXIST;
	case MDB_MAP_FULL:
	case MDB_TXN_FULL:
	case MDB_PAGE_FULL:
		return -ENOSPC;
	case MDB_READERS_FULL:
	case MDB_TLS_FULL:
	case MDB_MAP_RESIZED:
		return -EAGAIN;
	case MDB_DBS_FULL:
		return -EMFILE;
	case MDB_BAD_VALSIZE:
		return -EINVAL;
	default:
		/* corruption, version mismatch, incompatible, internal */
		return rc > 0 ? -rc : -EIO;
	}
}

static const uint8_t empty_val[1];
static const struct kvs_ops kvs_lmdb_ops;

static void kval(struct kvs_val *o, const MDB_val *v)
{
	o->data = v->mv_data;
	o->len = v->mv_size;
}

/* ---- the store ---- */

int kvs_lmdb_new(struct kvs **out, uint32_t sync_ms)
{
	pthread_rwlockattr_t ra;
	struct kvs *s;
	int ret;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->ops = &kvs_lmdb_ops;
	s->sync_ms = sync_ms;
	/* a resize waiting for readers must not be starved by new ones */
	pthread_rwlockattr_init(&ra);
	pthread_rwlockattr_setkind_np(&ra, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	ret = -pthread_rwlock_init(&s->maplock, &ra);
	pthread_rwlockattr_destroy(&ra);
	if (ret) {
		free(s);
		return ret;
	}
	ret = -pthread_mutex_init(&s->wlock, NULL);
	if (ret) {
		pthread_rwlock_destroy(&s->maplock);
		free(s);
		return ret;
	}
	pthread_mutex_init(&s->flock, NULL);
	pthread_cond_init(&s->fcond, NULL);
	*out = s;
	return 0;
}

int kvs_lmdb_env_open(struct kvs *s, const char *dir, uint64_t map_size, unsigned flags)
{
	int rc;

	rc = mdb_env_create(&s->env);
	if (rc)
		return rc;
	rc = mdb_env_set_maxdbs(s->env, KVS_TABLES + 4);
	if (rc == 0)
		rc = mdb_env_set_maxreaders(s->env, 512);
	if (rc == 0)
		rc = mdb_env_set_mapsize(s->env, map_size);
	if (rc == 0)
		rc = mdb_env_open(s->env, dir, MDB_NOTLS | MDB_NOSYNC | flags, 0600);
	if (rc == 0) {
		int dead = 0;

		/* free reader slots left by a process that died mid-read */
		rc = mdb_reader_check(s->env, &dead);
	}
	if (rc) {
		mdb_env_close(s->env);
		s->env = NULL;
	}
	return rc;
}

void kvs_lmdb_env_close(struct kvs *s)
{
	if (s->env)
		mdb_env_close(s->env);
	s->env = NULL;
}

int kvs_lmdb_dbi_open(struct kvs_tx *tx, int table, const char *name, unsigned flags)
{
	return mdb_dbi_open(tx->txn, name, flags, &tx->s->db[table]);
}

void kvs_lmdb_free(struct kvs *s)
{
	if (!s)
		return;
	kvs_lmdb_flusher_stop(s);
	kvs_lmdb_env_close(s);
	pthread_rwlock_destroy(&s->maplock);
	pthread_mutex_destroy(&s->wlock);
	pthread_mutex_destroy(&s->flock);
	pthread_cond_destroy(&s->fcond);
	free(s);
}

static int lm_sync(struct kvs *s)
{
	return idx_err(mdb_env_sync(s->env, 1));
}

static uint64_t lm_generation(struct kvs *s)
{
	MDB_envinfo info;

	/* reads the meta pages in the map: not while a resize remaps it */
	pthread_rwlock_rdlock(&s->maplock);
	mdb_env_info(s->env, &info);
	pthread_rwlock_unlock(&s->maplock);
	return info.me_last_txnid;
}

/* ---- the flusher: committed writes reach the disk within sync_ms ---- */

static void *flusher_main(void *p)
{
	struct kvs *s = p;
	struct timespec ts;

	pthread_mutex_lock(&s->flock);
	while (!s->stopping) {
		if (!s->dirty) {
			pthread_cond_wait(&s->fcond, &s->flock);
			continue;
		}
		/* let the writes of one interval gather, then sync them at once */
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += s->sync_ms / 1000;
		ts.tv_nsec += (long)(s->sync_ms % 1000) * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		while (!s->stopping && pthread_cond_timedwait(&s->fcond, &s->flock, &ts) == 0)
			;
		s->dirty = 0;
		pthread_mutex_unlock(&s->flock);
		/* without MDB_WRITEMAP this is an fdatasync of the data file:
		 * it does not touch the map, so no maplock */
		mdb_env_sync(s->env, 1);
		pthread_mutex_lock(&s->flock);
	}
	pthread_mutex_unlock(&s->flock);
	return NULL;
}

int kvs_lmdb_flusher_start(struct kvs *s)
{
	int ret = -pthread_create(&s->flusher, NULL, flusher_main, s);

	if (ret == 0)
		s->has_flusher = 1;
	return ret;
}

static void flusher_kick(struct kvs *s)
{
	if (!s->has_flusher)
		return;
	pthread_mutex_lock(&s->flock);
	if (!s->dirty) {
		s->dirty = 1;
		pthread_cond_signal(&s->fcond);
	}
	pthread_mutex_unlock(&s->flock);
}

void kvs_lmdb_flusher_stop(struct kvs *s)
{
	if (!s->has_flusher)
		return;
	pthread_mutex_lock(&s->flock);
	s->stopping = 1;
	pthread_cond_signal(&s->fcond);
	pthread_mutex_unlock(&s->flock);
	pthread_join(s->flusher, NULL);
	s->has_flusher = 0;
}

/* ---- transactions ---- */

/* Adopts a map size another process grew.  Called without maplock held. */
static void adopt_map(struct kvs *s)
{
	pthread_rwlock_wrlock(&s->maplock);
	mdb_env_set_mapsize(s->env, 0);
	pthread_rwlock_unlock(&s->maplock);
}

static int grow_map(struct kvs *s)
{
	MDB_envinfo info;
	int ret = 0;

	pthread_rwlock_wrlock(&s->maplock);
	mdb_env_info(s->env, &info);
	if ((uint64_t)info.me_mapsize >= KVS_MAP_LIMIT)
		ret = -ENOSPC;
	else
		ret = idx_err(mdb_env_set_mapsize(s->env, info.me_mapsize * 2));
	pthread_rwlock_unlock(&s->maplock);
	return ret;
}

/* Begins a transaction with maplock held shared (released on error). */
static int tx_begin(struct kvs *s, unsigned flags, MDB_txn **txn)
{
	int rc;

	for (;;) {
		pthread_rwlock_rdlock(&s->maplock);
		rc = mdb_txn_begin(s->env, NULL, flags, txn);
		if (rc == 0)
			return 0;
		pthread_rwlock_unlock(&s->maplock);
		if (rc != MDB_MAP_RESIZED)
			return idx_err(rc);
		adopt_map(s);
	}
}

static void rtx_end(struct kvs *s, MDB_txn *txn)
{
	mdb_txn_abort(txn);
	pthread_rwlock_unlock(&s->maplock);
}

static int lm_write(struct kvs *s, kvs_fn fn, void *arg)
{
	struct kvs_tx tx;
	int ret, rc;

	pthread_mutex_lock(&s->wlock);
	for (;;) {
		tx.ops = &kvs_lmdb_ops;
		tx.s = s;
		tx.txn = NULL;
		tx.mapfull = 0;
		ret = tx_begin(s, 0, &tx.txn);
		if (ret)
			break;
		ret = fn(&tx, arg);
		if (ret >= 0) {
			rc = mdb_txn_commit(tx.txn);
			if (rc == MDB_MAP_FULL)
				tx.mapfull = 1;
			if (rc)
				ret = idx_err(rc);
		} else {
			mdb_txn_abort(tx.txn);
		}
		pthread_rwlock_unlock(&s->maplock);
		if (ret >= 0)
			flusher_kick(s);
		if (ret < 0 && tx.mapfull) {
			ret = grow_map(s);
			if (ret == 0)
				continue;
		}
		break;
	}
	pthread_mutex_unlock(&s->wlock);
	return ret;
}

static int lm_read(struct kvs *s, kvs_fn fn, void *arg)
{
	struct kvs_tx tx = { &kvs_lmdb_ops, s, NULL, 0 };
	int ret = tx_begin(s, MDB_RDONLY, &tx.txn);

	if (ret)
		return ret;
	ret = fn(&tx, arg);
	rtx_end(s, tx.txn);
	return ret;
}

static int lm_read_get(struct kvs *s, int table, const void *k, size_t klen, kvs_get_fn fn,
		 void *arg)
{
	MDB_val key = kvs_mval(k, klen), v = { 0, NULL };
	struct kvs_val o = { NULL, 0 };
	MDB_txn *txn = NULL;
	int ret = tx_begin(s, MDB_RDONLY, &txn);

	if (ret)
		return ret;
	ret = idx_err(mdb_get(txn, s->db[table], &key, &v));
	kval(&o, &v);
	ret = fn(ret, &o, arg);
	rtx_end(s, txn);
	return ret;
}

/* ---- rows ---- */

/* A write's LMDB code as -errno; a full map is noted for kvs_write(). */
static int wrc(struct kvs_tx *tx, int rc)
{
	if (rc == MDB_MAP_FULL)
		tx->mapfull = 1;
	return idx_err(rc);
}

static int lm_get(struct kvs_tx *tx, int table, const void *k, size_t klen, struct kvs_val *v)
{
	MDB_val key = kvs_mval(k, klen), val;
	int rc = mdb_get(tx->txn, tx->s->db[table], &key, &val);

	if (rc == 0)
		kval(v, &val);
	return idx_err(rc);
}

static int lm_put(struct kvs_tx *tx, int table, const void *k, size_t klen, const void *v,
	    size_t vlen)
{
	MDB_val key = kvs_mval(k, klen), val = kvs_mval(v ? v : empty_val, vlen);

	return wrc(tx, mdb_put(tx->txn, tx->s->db[table], &key, &val, 0));
}

static int lm_del(struct kvs_tx *tx, int table, const void *k, size_t klen)
{
	MDB_val key = kvs_mval(k, klen);
	int rc = mdb_del(tx->txn, tx->s->db[table], &key, NULL);

	return rc == MDB_NOTFOUND ? 0 : wrc(tx, rc);
}

static int lm_rows(struct kvs_tx *tx, int table, uint64_t *n)
{
	MDB_stat st;
	int rc = mdb_stat(tx->txn, tx->s->db[table], &st);

	*n = rc ? 0 : (uint64_t)st.ms_entries;
	return idx_err(rc);
}

static int lm_clear(struct kvs_tx *tx, int table)
{
	return wrc(tx, mdb_drop(tx->txn, tx->s->db[table], 0));
}

/* ---- cursors: a kvs_cur holds an MDB_cursor ---- */

struct kvs_cur {
	const struct kvs_ops *ops;	/* first: kvs_ops.h */
	MDB_cursor *mc;
};

static int lm_cur_open(struct kvs_tx *tx, int table, struct kvs_cur **c)
{
	MDB_cursor *cur = NULL;
	int rc;

	*c = malloc(sizeof(**c));
	if (!*c)
		return -ENOMEM;
	rc = mdb_cursor_open(tx->txn, tx->s->db[table], &cur);
	if (rc) {
		free(*c);
		*c = NULL;
		return idx_err(rc);
	}
	(*c)->ops = &kvs_lmdb_ops;
	(*c)->mc = cur;
	return 0;
}

static void lm_cur_close(struct kvs_cur *c)
{
	mdb_cursor_close(c->mc);
	free(c);
}

static int cur_get(struct kvs_cur *c, MDB_val *k, MDB_cursor_op op, struct kvs_val *key,
		   struct kvs_val *val)
{
	MDB_val v;
	int rc = mdb_cursor_get(c->mc, k, &v, op);

	if (rc == 0) {
		kval(key, k);
		kval(val, &v);
	}
	return idx_err(rc);
}

static int lm_cur_seek(struct kvs_cur *c, const void *k, size_t klen, struct kvs_val *key,
		 struct kvs_val *val)
{
	MDB_val mk = kvs_mval(k, klen);

	return cur_get(c, &mk, k && klen ? MDB_SET_RANGE : MDB_FIRST, key, val);
}

static int lm_cur_next(struct kvs_cur *c, struct kvs_val *key, struct kvs_val *val)
{
	MDB_val mk = { 0, NULL };

	return cur_get(c, &mk, MDB_NEXT, key, val);
}

/* ---- dup tables ---- */

static int lm_dup_add(struct kvs_tx *tx, int table, const void *keys, size_t klen,
		      size_t nkeys, const void *v, size_t vlen)
{
	MDB_cursor *cur = NULL;
	size_t i;
	int rc, ret = 0;

	/* one cursor for every pair (mdb_put() sets one up per call) */
	rc = mdb_cursor_open(tx->txn, tx->s->db[table], &cur);
	if (rc)
		return idx_err(rc);
	for (i = 0; ret == 0 && i < nkeys; i++) {
		MDB_val k = kvs_mval((const uint8_t *)keys + klen * i, klen), d = kvs_mval(v, vlen);

		rc = mdb_cursor_put(cur, &k, &d, 0);
		ret = rc == MDB_KEYEXIST ? 0 : wrc(tx, rc);
	}
	mdb_cursor_close(cur);
	return ret;
}

static int lm_dup_del(struct kvs_tx *tx, int table, const void *keys, size_t klen,
		      size_t nkeys, const void *v, size_t vlen)
{
	size_t i;
	int rc, ret = 0;

	for (i = 0; ret == 0 && i < nkeys; i++) {
		MDB_val k = kvs_mval((const uint8_t *)keys + klen * i, klen), d = kvs_mval(v, vlen);

		rc = mdb_del(tx->txn, tx->s->db[table], &k, &d);
		ret = rc == MDB_NOTFOUND ? 0 : wrc(tx, rc);
	}
	return ret;
}

static int lm_dup_count(struct kvs_cur *c, const void *k, size_t klen, size_t *n)
{
	MDB_cursor *cur = c->mc;
	MDB_val key = kvs_mval(k, klen), v;
	size_t cnt = 0;
	int rc;

	*n = 0;
	rc = mdb_cursor_get(cur, &key, &v, MDB_SET_KEY);
	if (rc == MDB_NOTFOUND)
		return 0;
	if (rc == 0)
		rc = mdb_cursor_count(cur, &cnt);
	*n = rc ? 0 : cnt;
	return idx_err(rc);
}

static int lm_dup_walk(struct kvs_cur *c, kvs_dup_fn fn, void *arg)
{
	MDB_cursor *cur = c->mc;
	MDB_val k, v;
	size_t vlen;
	int rc, ret;

	/* the value size: the first value, which the cursor is on */
	rc = mdb_cursor_get(cur, &k, &v, MDB_GET_CURRENT);
	if (rc)
		return rc == MDB_NOTFOUND || rc == EINVAL ? 0 : idx_err(rc);
	vlen = v.mv_size;
	if (vlen == 0)
		return 0;
	/* a page of values a call (one value: GET_MULTIPLE leaves v as it is) */
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_GET_MULTIPLE); rc == 0;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT_MULTIPLE)) {
		ret = fn(v.mv_data, v.mv_size / vlen, vlen, arg);
		if (ret)
			return ret < 0 ? ret : 0;
	}
	return rc == MDB_NOTFOUND ? 0 : idx_err(rc);
}

/* One process writes an LMDB index (its lock): no news from others. */
static int lm_watch(struct kvs *s, void (*fn)(void *arg), void *arg)
{
	(void)s;
	(void)fn;
	(void)arg;
	return -EOPNOTSUPP;
}

static const struct kvs_ops kvs_lmdb_ops = {
	lm_write, lm_read, lm_read_get, lm_get, lm_put, lm_del, lm_rows, lm_clear, lm_cur_open,
	lm_cur_close, lm_cur_seek, lm_cur_next, lm_dup_add, lm_dup_del, lm_dup_count,
	lm_dup_walk, lm_sync, lm_generation, lm_watch, kvs_lmdb_free, NULL, NULL, NULL,
	NULL	/* no prefetch: reads are mapped memory */
};
