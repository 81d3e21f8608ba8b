/* idx_txn.c - transactions of the index over its store (kvs.h): the write
 * helper (idx_write(), with the meta values a write caches) and the
 * read-side walkers. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "byteorder.h"
#include "grow.h"
#include "idx_i.h"

int idx_meta_load(struct wtx *w)
{
	struct kvs_val v;
	int ret, k;

	if (w->meta_loaded)
		return 0;
	w->nextid = 1;
	memset(w->counts, 0, sizeof(w->counts));
	ret = idx_w_get(w, DB_META, "nextid", 6, &v);
	if (ret == 0 && v.len == 8)
		w->nextid = be_get(v.data, 8);
	else if (ret && ret != -ENOENT)
		return ret;
	ret = idx_w_get(w, DB_META, "counts", 6, &v);
	if (ret == 0 && v.len == sizeof(w->counts))
		for (k = 0; k <= IDX_NSTATES; k++)
			w->counts[k] = be_get((const uint8_t *)v.data + 8 * k, 8);
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

struct write_arg {
	struct idx *ix;
	write_fn fn;
	void *arg;
};

/* One run of a write: a fresh wtx each time the store runs it. */
static int write_run(struct kvs_tx *tx, void *arg)
{
	struct write_arg *a = arg;
	struct wtx w;
	int ret, r2;

	memset(&w, 0, sizeof(w));
	w.ix = a->ix;
	w.tx = tx;
	ret = a->fn(&w, a->arg);
	if (ret < 0)
		return ret;
	r2 = meta_flush(&w);
	return r2 ? r2 : ret;
}

int idx_write(struct idx *ix, write_fn fn, void *arg)
{
	struct write_arg a = { ix, fn, arg };

	return kvs_write(ix->kv, write_run, &a);
}

/* ---- the read side ---- */

/* Calls fn from the row ret and (k, v) say the cursor is on, then each
 * next one. */
static int cursor_walk_from(struct kvs_cur *cur, int ret, struct kvs_val *k, struct kvs_val *v,
			    idx_row_fn fn, void *arg)
{
	int r;

	for (; ret == 0; ret = kvs_cur_next(cur, k, v)) {
		r = fn(k, v, arg);
		if (r)
			return r < 0 ? r : 0;
	}
	return ret == -ENOENT ? 0 : ret;
}

int idx_cursor_walk(struct kvs_cur *cur, const void *start, size_t slen, idx_row_fn fn, void *arg)
{
	struct kvs_val k, v;

	return cursor_walk_from(cur, kvs_cur_seek(cur, start, slen, &k, &v), &k, &v, fn, arg);
}

int idx_cursor_walk_next(struct kvs_cur *cur, idx_row_fn fn, void *arg)
{
	struct kvs_val k, v;

	return cursor_walk_from(cur, kvs_cur_next(cur, &k, &v), &k, &v, fn, arg);
}

int idx_walk(struct kvs_tx *tx, int db, const void *start, size_t slen, idx_row_fn fn, void *arg)
{
	struct kvs_cur *cur = NULL;
	int ret = kvs_cur_open(tx, db, &cur);

	if (ret)
		return ret;
	ret = idx_cursor_walk(cur, start, slen, fn, arg);
	kvs_cur_close(cur);
	return ret;
}

struct read_walk_arg {
	int db;
	void (*reset)(void *arg);
	idx_row_fn fn;
	void *arg;
};

static int read_walk_fn(struct kvs_tx *tx, void *arg)
{
	struct read_walk_arg *a = arg;

	a->reset(a->arg);
	return idx_walk(tx, a->db, NULL, 0, a->fn, a->arg);
}

int idx_read_walk(struct idx *ix, int db, void (*reset)(void *arg), idx_row_fn fn, void *arg)
{
	struct read_walk_arg a = { db, reset, fn, arg };

	return kvs_read(ix->kv, read_walk_fn, &a);
}

int idx_read_get(struct idx *ix, int db, const void *key, size_t klen, kvs_get_fn fn, void *arg)
{
	return kvs_read_get(ix->kv, db, key, klen, fn, arg);
}

struct prefix_arg {
	const uint8_t *prefix;
	size_t plen;
	uint64_t **ids;
	size_t *n, *cap;
	int db;
};

static int prefix_row(const struct kvs_val *k, const struct kvs_val *v, void *arg)
{
	struct prefix_arg *a = arg;

	(void)v;
	if (k->len < a->plen || memcmp(k->data, a->prefix, a->plen) != 0)
		return 1;
	if (k->len != a->plen + 8)
		return 0;
	if (ARRAY_GROW(*a->ids, *a->cap, *a->n + 1))
		return -ENOMEM;
	(*a->ids)[(*a->n)++] = be_get((const uint8_t *)k->data + a->plen, 8);
	return 0;
}

int idx_ids_with_prefix(struct kvs_cur *cur, const uint8_t *prefix, size_t plen, uint64_t **ids,
			size_t *n, size_t *cap)
{
	struct prefix_arg a = { prefix, plen, ids, n, cap, 0 };

	return idx_cursor_walk(cur, prefix, plen, prefix_row, &a);
}

static int read_ids_fn(struct kvs_tx *tx, void *arg)
{
	struct prefix_arg *a = arg;

	*a->n = 0;	/* a rerun starts over */
	return idx_walk(tx, a->db, a->prefix, a->plen, prefix_row, a);
}

int idx_read_ids(struct idx *ix, int db, const uint8_t *prefix, size_t plen, uint64_t **ids,
		 size_t *n)
{
	size_t cap = 0;
	struct prefix_arg a = { prefix, plen, ids, n, &cap, db };
	int ret;

	*ids = NULL;
	*n = 0;
	ret = kvs_read(ix->kv, read_ids_fn, &a);
	if (ret) {
		free(*ids);
		*ids = NULL;
		*n = 0;
	}
	return ret;
}
