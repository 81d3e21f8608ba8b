/* idx_near.c - candidate queries of the band tables: simhash neighbours,
 * min-hash band candidates and books by text hash. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "byteorder.h"
#include "grow.h"
#include "idx_i.h"
#include "rsort.h"

struct hits {
	struct idx_hit *v;
	size_t n, cap;
};

static int hits_push(struct hits *h, uint64_t id, uint32_t dist)
{
	if (ARRAY_GROW(h->v, h->cap, h->n + 1))
		return -ENOMEM;
	h->v[h->n].id = id;
	h->v[h->n].dist = dist;
	h->n++;
	return 0;
}

static int hit_cmp_dist(const void *a, const void *b)
{
	const struct idx_hit *x = a, *y = b;

	if (x->dist != y->dist)
		return x->dist < y->dist ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Adds to h the copies of every representative among its hits (in tx),
 * at their representative's distance (a group has one simhash). */
static int hits_expand(struct kvs_tx *tx, struct hits *h)
{
	uint64_t *ids = NULL;
	size_t n0 = h->n, i, j, n, cap = 0;
	uint8_t kb[8];
	struct brec b;
	struct kvs_val v;
	int ret = 0;

	for (i = 0; i < n0 && ret == 0; i++) {
		be_put(kb, h->v[i].id, 8);
		if (kvs_get(tx, DB_BOOK, kb, 8, &v) || idx_brec_decode(&v, &b) ||
		    !(b.flags & BOOK_F_COPIES))
			continue;
		n = 0;
		ret = idx_group_read(tx, h->v[i].id, &ids, &n, &cap);
		for (j = 0; ret == 0 && j < n; j++)
			if (ids[j] != h->v[i].id)
				ret = hits_push(h, ids[j], h->v[i].dist);
	}
	free(ids);
	return ret;
}

struct near_arg {
	const struct band_layout *bl;
	const uint8_t *sh, *key;
	size_t klen, plen;
	uint32_t d, b;
	struct hits *h;
	int expand;
};

/* One row of band b's entries with sh's value. */
static int near_row(const struct kvs_val *k, const struct kvs_val *v, void *arg)
{
	struct near_arg *a = arg;
	const uint8_t *cand = v->data;
	uint32_t dist;

	if (k->len < a->plen || memcmp(k->data, a->key, a->plen) != 0)
		return 1;
	if (k->len != a->klen || v->len != IDX_SH_BYTES)
		return 0;
	dist = band_distance(a->sh, cand);
	/* report a pair only from the first band it shares */
	if (dist > a->d || band_first_shared(a->bl, a->sh, cand) != a->b)
		return 0;
	return hits_push(a->h, be_get((const uint8_t *)k->data + a->plen, 8), dist);
}

static int near_txn(struct kvs_tx *tx, void *arg)
{
	struct near_arg *a = arg;
	struct kvs_cur *cur = NULL;
	uint8_t key[1 + 8 + 8];
	int ret;

	uint8_t *keys = NULL;

	a->h->n = 0;	/* a rerun starts over */
	a->key = key;
	ret = kvs_cur_open(tx, DB_SHBAND, &cur);
	if (ret == 0 && a->bl->nbands) {
		keys = malloc((size_t)a->bl->nbands * sizeof(key));
		if (!keys)
			ret = -ENOMEM;
		for (a->b = 0; ret == 0 && a->b < a->bl->nbands; a->b++)
			idx_shband_key(a->bl, a->sh, a->b, 0, keys + a->b * sizeof(key), &a->klen);
		if (ret == 0)
			ret = kvs_cur_prefetch(cur, keys, a->klen, a->bl->nbands, a->plen);
		free(keys);
	}
	for (a->b = 0; ret == 0 && a->b < a->bl->nbands; a->b++) {
		idx_shband_key(a->bl, a->sh, a->b, 0, key, &a->klen);
		ret = idx_cursor_walk(cur, key, a->klen, near_row, a);
	}
	kvs_cur_close(cur);
	if (ret == 0 && a->expand)
		ret = hits_expand(tx, a->h);
	return ret;
}

static int near_query(struct idx *ix, const uint8_t sh[IDX_SH_BYTES], uint32_t d, int expand,
		      struct idx_hit **hits, size_t *n)
{
	const struct band_layout *bl = &ix->bl;
	struct hits h = { NULL, 0, 0 };
	struct near_arg a = { bl, sh, NULL, 0, 1 + (size_t)bl->value_bytes, d, 0, &h, expand };
	int ret;

	*hits = NULL;
	*n = 0;
	if (d > bl->max_d)
		return -EINVAL;
	ret = kvs_read(ix->kv, near_txn, &a);
	if (ret) {
		free(h.v);
		return ret;
	}
	if (h.n)
		qsort(h.v, h.n, sizeof(*h.v), hit_cmp_dist);
	*hits = h.v;
	*n = h.n;
	return 0;
}

int idx_near(struct idx *ix, const uint8_t sh[IDX_SH_BYTES], uint32_t d, struct idx_hit **hits,
	     size_t *n)
{
	return near_query(ix, sh, d, 1, hits, n);
}

int idx_near_reps(struct idx *ix, const uint8_t sh[IDX_SH_BYTES], uint32_t d,
		  struct idx_hit **hits, size_t *n)
{
	return near_query(ix, sh, d, 0, hits, n);
}

static int hit_cmp_shared(const void *a, const void *b)
{
	const struct idx_hit *x = a, *y = b;

	if (x->dist != y->dist)
		return x->dist > y->dist ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

struct mh_arg {
	const uint64_t *bands;
	uint32_t n;
	uint64_t *ids;
	size_t nids, cap;
};

static int mh_txn(struct kvs_tx *tx, void *arg)
{
	struct mh_arg *a = arg;
	struct kvs_cur *cur = NULL;
	uint8_t prefix[10];
	uint32_t i;
	int ret;

	uint8_t *keys = NULL;

	a->nids = 0;	/* a rerun starts over */
	ret = kvs_cur_open(tx, DB_MHBAND, &cur);
	if (ret == 0 && a->n) {
		keys = malloc((size_t)a->n * sizeof(prefix));
		if (!keys)
			ret = -ENOMEM;
		for (i = 0; ret == 0 && i < a->n; i++) {
			be_put(keys + i * sizeof(prefix), i, 2);
			be_put(keys + i * sizeof(prefix) + 2, a->bands[i], 8);
		}
		if (ret == 0)
			ret = kvs_cur_prefetch(cur, keys, sizeof(prefix), a->n, sizeof(prefix));
		free(keys);
	}
	for (i = 0; ret == 0 && i < a->n; i++) {
		be_put(prefix, i, 2);
		be_put(prefix + 2, a->bands[i], 8);
		ret = idx_ids_with_prefix(cur, prefix, 10, &a->ids, &a->nids, &a->cap);
	}
	kvs_cur_close(cur);
	return ret;
}

int idx_mh_candidates(struct idx *ix, const uint64_t *bands, uint32_t n, uint32_t min_shared,
		      struct idx_hit **hits, size_t *nhits)
{
	struct hits h = { NULL, 0, 0 };
	struct mh_arg a = { bands, n, NULL, 0, 0 };
	uint64_t *ids;
	size_t nids, s, e;
	int ret;

	*hits = NULL;
	*nhits = 0;
	if (n > MH_MAX)
		return -EINVAL;
	if (min_shared == 0)
		min_shared = 1;
	ret = kvs_read(ix->kv, mh_txn, &a);
	ids = a.ids;
	nids = a.nids;
	if (ret)
		goto out;
	if (nids)
		rsort_u64(ids, nids);
	for (s = 0; s < nids; s = e) {
		for (e = s + 1; e < nids && ids[e] == ids[s]; e++)
			;
		if (e - s >= min_shared) {
			ret = hits_push(&h, ids[s], (uint32_t)(e - s));
			if (ret)
				goto out;
		}
	}
	if (h.n)
		qsort(h.v, h.n, sizeof(*h.v), hit_cmp_shared);
	*hits = h.v;
	*nhits = h.n;
	h.v = NULL;
out:
	free(h.v);
	free(ids);
	return ret;
}

int idx_by_text_hash(struct idx *ix, const uint8_t hsh[IDX_SH_BYTES], uint64_t **ids, size_t *n)
{
	return idx_read_ids(ix, DB_TEXT, hsh, IDX_SH_BYTES, ids, n);
}
