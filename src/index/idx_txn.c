/* idx_txn.c - transactions of the LMDB index: the one place LMDB codes become
 * errno, read transactions, the write helper (idx_write()) and the read-side
 * cursor walker. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "byteorder.h"
#include "grow.h"
#include "idx_i.h"

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

/* Adopts a map size another process grew.  Called without maplock held. */
static void adopt_map(struct idx *ix)
{
	pthread_rwlock_wrlock(&ix->maplock);
	mdb_env_set_mapsize(ix->env, 0);
	pthread_rwlock_unlock(&ix->maplock);
}

int idx_rtx_begin(struct idx *ix, MDB_txn **txn)
{
	int rc;

	for (;;) {
		pthread_rwlock_rdlock(&ix->maplock);
		rc = mdb_txn_begin(ix->env, NULL, MDB_RDONLY, txn);
		if (rc == 0)
			return 0;
		pthread_rwlock_unlock(&ix->maplock);
		if (rc != MDB_MAP_RESIZED)
			return idx_err(rc);
		adopt_map(ix);
	}
}

void idx_rtx_end(struct idx *ix, MDB_txn *txn)
{
	mdb_txn_abort(txn);
	pthread_rwlock_unlock(&ix->maplock);
}

static int grow_map(struct idx *ix)
{
	MDB_envinfo info;
	int ret = 0;

	pthread_rwlock_wrlock(&ix->maplock);
	mdb_env_info(ix->env, &info);
	if ((uint64_t)info.me_mapsize >= MAP_LIMIT)
		ret = -ENOSPC;
	else
		ret = idx_err(mdb_env_set_mapsize(ix->env, info.me_mapsize * 2));
	pthread_rwlock_unlock(&ix->maplock);
	return ret;
}

int idx_w_get(struct wtx *w, int db, const void *k, size_t klen, MDB_val *v)
{
	MDB_val key = idx_mval(k, klen);

	return idx_err(mdb_get(w->txn, w->ix->db[db], &key, v));
}

int idx_w_put(struct wtx *w, int db, const void *k, size_t klen, const void *v, size_t vlen)
{
	MDB_val key = idx_mval(k, klen), val = idx_mval(v ? v : empty_val, vlen);
	int rc = mdb_put(w->txn, w->ix->db[db], &key, &val, 0);

	if (rc == MDB_MAP_FULL)
		w->mapfull = 1;
	return idx_err(rc);
}

/* Deleting a missing key is not an error. */
int idx_w_del(struct wtx *w, int db, const void *k, size_t klen)
{
	MDB_val key = idx_mval(k, klen);
	int rc = mdb_del(w->txn, w->ix->db[db], &key, NULL);

	if (rc == MDB_MAP_FULL)
		w->mapfull = 1;
	return rc == MDB_NOTFOUND ? 0 : idx_err(rc);
}

int idx_meta_load(struct wtx *w)
{
	MDB_val v;
	int ret, k;

	if (w->meta_loaded)
		return 0;
	w->nextid = 1;
	memset(w->counts, 0, sizeof(w->counts));
	ret = idx_w_get(w, DB_META, "nextid", 6, &v);
	if (ret == 0 && v.mv_size == 8)
		w->nextid = be_get(v.mv_data, 8);
	else if (ret && ret != -ENOENT)
		return ret;
	ret = idx_w_get(w, DB_META, "counts", 6, &v);
	if (ret == 0 && v.mv_size == sizeof(w->counts))
		for (k = 0; k <= IDX_NSTATES; k++)
			w->counts[k] = be_get((const uint8_t *)v.mv_data + 8 * k, 8);
	else if (ret && ret != -ENOENT)
		return ret;
	w->meta_loaded = 1;
	return 0;
}

static int meta_flush(struct wtx *w)
{
	uint8_t b[8 * (IDX_NSTATES + 1)];
	int ret, k;

	if (!w->meta_dirty)
		return 0;
	be_put(b, w->nextid, 8);
	ret = idx_w_put(w, DB_META, "nextid", 6, b, 8);
	if (ret)
		return ret;
	for (k = 0; k <= IDX_NSTATES; k++)
		be_put(b + 8 * k, w->counts[k], 8);
	return idx_w_put(w, DB_META, "counts", 6, b, sizeof(b));
}

/* Moves the counters from one (state, has fingerprint) to another; 0 = none. */
int idx_count_move(struct wtx *w, uint8_t from_state, int from_fp, uint8_t to_state, int to_fp)
{
	int ret = idx_meta_load(w);

	if (ret)
		return ret;
	if (from_state && w->counts[from_state])
		w->counts[from_state]--;
	if (from_fp && w->counts[0])
		w->counts[0]--;
	if (to_state)
		w->counts[to_state]++;
	if (to_fp)
		w->counts[0]++;
	w->meta_dirty = 1;
	return 0;
}

/* Runs fn in one write transaction: commit when it returns >= 0 (returned),
 * abort otherwise; when the map was full, grow it and run fn again. */
int idx_write(struct idx *ix, write_fn fn, void *arg)
{
	struct wtx w;
	int ret, rc;

	pthread_mutex_lock(&ix->wlock);
	for (;;) {
		memset(&w, 0, sizeof(w));
		w.ix = ix;
		pthread_rwlock_rdlock(&ix->maplock);
		rc = mdb_txn_begin(ix->env, NULL, 0, &w.txn);
		if (rc) {
			pthread_rwlock_unlock(&ix->maplock);
			if (rc == MDB_MAP_RESIZED) {
				adopt_map(ix);
				continue;
			}
			ret = idx_err(rc);
			break;
		}
		ret = fn(&w, arg);
		if (ret >= 0) {
			int r2 = meta_flush(&w);

			if (r2 == 0) {
				rc = mdb_txn_commit(w.txn);
				if (rc == MDB_MAP_FULL)
					w.mapfull = 1;
				if (rc)
					ret = idx_err(rc);
			} else {
				mdb_txn_abort(w.txn);
				ret = r2;
			}
		} else {
			mdb_txn_abort(w.txn);
		}
		pthread_rwlock_unlock(&ix->maplock);
		if (ret >= 0)
			idx_flusher_kick(ix);
		if (ret < 0 && w.mapfull) {
			ret = grow_map(ix);
			if (ret == 0)
				continue;
		}
		break;
	}
	pthread_mutex_unlock(&ix->wlock);
	return ret;
}

/* ---- the read side ---- */

/* The walk from the row op puts cur on (k: its start key, if op needs one). */
static int cursor_walk_op(MDB_cursor *cur, MDB_val *k, MDB_cursor_op op, idx_row_fn fn,
			  void *arg)
{
	MDB_val v;
	int rc, ret;

	for (rc = mdb_cursor_get(cur, k, &v, op); rc == 0; rc = mdb_cursor_get(cur, k, &v, MDB_NEXT)) {
		ret = fn(k, &v, arg);
		if (ret)
			return ret < 0 ? ret : 0;
	}
	return rc == MDB_NOTFOUND ? 0 : idx_err(rc);
}

int idx_cursor_walk(MDB_cursor *cur, const void *start, size_t slen, idx_row_fn fn, void *arg)
{
	MDB_val k = idx_mval(start, slen);

	return cursor_walk_op(cur, &k, start ? MDB_SET_RANGE : MDB_FIRST, fn, arg);
}

int idx_cursor_walk_next(MDB_cursor *cur, idx_row_fn fn, void *arg)
{
	MDB_val k = { 0, NULL };

	return cursor_walk_op(cur, &k, MDB_NEXT, fn, arg);
}

int idx_walk(struct idx *ix, MDB_txn *txn, int db, const void *start, size_t slen, idx_row_fn fn,
	     void *arg)
{
	MDB_cursor *cur = NULL;
	int rc = mdb_cursor_open(txn, ix->db[db], &cur), ret;

	if (rc)
		return idx_err(rc);
	ret = idx_cursor_walk(cur, start, slen, fn, arg);
	mdb_cursor_close(cur);
	return ret;
}

int idx_read_walk(struct idx *ix, int db, idx_row_fn fn, void *arg)
{
	MDB_txn *txn = NULL;
	int ret = idx_rtx_begin(ix, &txn);

	if (ret)
		return ret;
	ret = idx_walk(ix, txn, db, NULL, 0, fn, arg);
	idx_rtx_end(ix, txn);
	return ret;
}

int idx_read_get(struct idx *ix, int db, const void *key, size_t klen, idx_get_fn fn, void *arg)
{
	MDB_txn *txn = NULL;
	MDB_val k = idx_mval(key, klen), v = { 0, NULL };
	int ret = idx_rtx_begin(ix, &txn);

	if (ret)
		return ret;
	ret = fn(idx_err(mdb_get(txn, ix->db[db], &k, &v)), &v, arg);
	idx_rtx_end(ix, txn);
	return ret;
}

struct prefix_arg {
	const uint8_t *prefix;
	size_t plen;
	uint64_t **ids;
	size_t *n, *cap;
};

static int prefix_row(const MDB_val *k, const MDB_val *v, void *arg)
{
	struct prefix_arg *a = arg;

	(void)v;
	if (k->mv_size < a->plen || memcmp(k->mv_data, a->prefix, a->plen) != 0)
		return 1;
	if (k->mv_size != a->plen + 8)
		return 0;
	if (ARRAY_GROW(*a->ids, *a->cap, *a->n + 1))
		return -ENOMEM;
	(*a->ids)[(*a->n)++] = be_get((const uint8_t *)k->mv_data + a->plen, 8);
	return 0;
}

int idx_ids_with_prefix(MDB_cursor *cur, const uint8_t *prefix, size_t plen, uint64_t **ids,
			size_t *n, size_t *cap)
{
	struct prefix_arg a = { prefix, plen, ids, n, cap };

	return idx_cursor_walk(cur, prefix, plen, prefix_row, &a);
}

int idx_read_ids(struct idx *ix, int db, const uint8_t *prefix, size_t plen, uint64_t **ids,
		 size_t *n)
{
	MDB_cursor *cur = NULL;
	MDB_txn *txn = NULL;
	size_t cap = 0;
	int rc, ret;

	*ids = NULL;
	*n = 0;
	ret = idx_rtx_begin(ix, &txn);
	if (ret)
		return ret;
	rc = mdb_cursor_open(txn, ix->db[db], &cur);
	if (rc)
		ret = idx_err(rc);
	else
		ret = idx_ids_with_prefix(cur, prefix, plen, ids, n, &cap);
	if (cur)
		mdb_cursor_close(cur);
	idx_rtx_end(ix, txn);
	if (ret) {
		free(*ids);
		*ids = NULL;
		*n = 0;
	}
	return ret;
}
