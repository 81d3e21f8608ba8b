/* idx_uqkey.c - pruning-key postings (uqkey, uqbook): writing and removing a
 * book's postings, and the candidates that share many keys. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "byteorder.h"
#include "idx_i.h"
#include "rsort.h"

#define UQ_POSTING 12	/* bytes of a uqkey posting: id, key count, high-key count */

/* Keys with IDX_UQ_HI among n ascending big-endian keys: the tail. */
static uint32_t uq_count_hi(const uint8_t *keys, uint32_t n)
{
	uint32_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (keys[4 * (size_t)mid] & 0x80)
			hi = mid;
		else
			lo = mid + 1;
	}
	return n - lo;
}

/* The posting of book id, which has n keys, nhi of them with IDX_UQ_HI
 * (n <= IDX_UQ_MAX, so both fit 16 bits). */
static void uq_posting(uint8_t p[UQ_POSTING], uint64_t id, uint32_t n, uint32_t nhi)
{
	be_put(p, id, 8);
	be_put(p + 8, n, 2);
	be_put(p + 10, nhi, 2);
}

/* Removes the pruning-key postings of id (none stored: nothing to do), and
 * its uqbook row unless keep_row (a representative demoted to a copy keeps
 * its keys, to have its postings written again if it is promoted). */
int idx_uq_remove(struct wtx *w, uint64_t id, int keep_row)
{
	uint8_t kb[8], post[UQ_POSTING], *keys = NULL;
	struct kvs_val v;
	uint32_t n;
	int ret;

	be_put(kb, id, 8);
	ret = idx_w_get(w, DB_UQBOOK, kb, 8, &v);
	if (ret == -ENOENT)
		return 0;
	if (ret)
		return ret;
	n = (uint32_t)(v.len / 4);
	uq_posting(post, id, n, uq_count_hi(v.data, n));
	if (n) {
		/* copy out: the deletes below may move the page */
		keys = malloc((size_t)n * 4);
		if (!keys)
			return -ENOMEM;
		memcpy(keys, v.data, (size_t)n * 4);
		ret = kvs_dup_del(w->tx, DB_UQKEY, keys, 4, n, post, UQ_POSTING);
	}
	free(keys);
	return ret || keep_row ? ret : idx_w_del(w, DB_UQBOOK, kb, 8);
}

/* Puts the postings of id for its n big-endian keys (uqbook's value). */
int idx_uq_put_postings(struct wtx *w, uint64_t id, const uint8_t *keys, uint32_t n)
{
	uint8_t post[UQ_POSTING];

	uq_posting(post, id, n, uq_count_hi(keys, n));
	return kvs_dup_add(w->tx, DB_UQKEY, keys, 4, n, post, UQ_POSTING);
}

static int uqhit_cmp(const void *pa, const void *pb)
{
	const struct idx_uq_hit *a = pa, *b = pb;

	if (a->shared != b->shared)
		return a->shared > b->shared ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

/* The postings read for one query: ids[i] = id << 1 | (its key has
 * IDX_UQ_HI), cnt[i] = that book's key count << 16 | its high-key count. */
struct uqread {
	uint64_t *ids;
	uint32_t *cnt;
	size_t n, cap;
};

static int uqread_room(struct uqread *r, size_t m)
{
	size_t nc = r->cap ? r->cap : 256;
	uint64_t *ids;
	uint32_t *cnt;

	if (r->n + m <= r->cap)
		return 0;
	while (nc < r->n + m)
		nc *= 2;
	ids = realloc(r->ids, nc * sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	r->ids = ids;
	cnt = realloc(r->cnt, nc * sizeof(*cnt));
	if (!cnt)
		return -ENOMEM;
	r->cnt = cnt;
	r->cap = nc;
	return 0;
}

struct postings_arg {
	struct uqread *r;
	uint64_t hi;
};

/* A run of postings of one key; a posting whose counts cannot be a book's
 * is left out, and a key whose values are not postings of this layout is
 * read no further. */
static int postings_run(const uint8_t *vals, size_t m, size_t vlen, void *arg)
{
	struct postings_arg *a = arg;
	struct uqread *r = a->r;
	uint32_t nk, nhi;
	uint64_t pid;
	size_t i;
	int ret;

	if (vlen != UQ_POSTING)
		return 1;
	ret = uqread_room(r, m);
	if (ret)
		return ret;
	for (i = 0; i < m; i++) {
		const uint8_t *p = vals + i * UQ_POSTING;

		pid = be_get(p, 8);
		nk = (uint32_t)be_get(p + 8, 2);
		nhi = (uint32_t)be_get(p + 10, 2);
		if (pid == 0 || pid >> 63 || nk > IDX_UQ_MAX || nhi > nk)
			continue;
		r->ids[r->n] = pid << 1 | a->hi;
		r->cnt[r->n++] = nk << 16 | nhi;
	}
	return 0;
}

/* Appends the postings of key (4 bytes) to r, unless more than max books
 * hold it (a frequent key): then nothing is appended and *stop is set.
 * The count comes without reading the postings (kvs_dup_count()). */
static int uq_postings(struct kvs_cur *cur, const uint8_t *key, uint32_t max, struct uqread *r,
		       int *stop)
{
	struct postings_arg a = { r, (uint64_t)(key[0] >> 7) };
	size_t cnt = 0;
	int ret;

	*stop = 0;
	ret = kvs_dup_count(cur, key, 4, &cnt);
	if (ret || cnt == 0)
		return ret;
	if (cnt > max) {
		*stop = 1;
		return 0;
	}
	return kvs_dup_walk(cur, postings_run, &a);
}

/* Slot of id in an open-addressed table of mask + 1 slots (0 = empty). */
static size_t uq_slot(const uint64_t *tab, size_t mask, uint64_t id)
{
	size_t s = (size_t)((id * 0x9e3779b97f4a7c15ull) >> 32) & mask;

	while (tab[s] && tab[s] != id)
		s = (s + 1) & mask;
	return s;
}

struct uqcand_arg {
	uint64_t id;
	uint32_t max;
	struct uqread *r;
	struct idx_uq_stats *stats;
};

/* Reads the postings of every key of book a->id into a->r. */
static int uq_read_txn(struct kvs_tx *tx, void *arg)
{
	struct uqcand_arg *a = arg;
	struct kvs_cur *cur = NULL;
	uint8_t kb[8], *own = NULL;
	struct kvs_val v;
	uint32_t n, i;
	int ret, stop;

	a->r->n = 0;	/* a rerun starts over */
	memset(a->stats, 0, sizeof(*a->stats));
	be_put(kb, a->id, 8);
	ret = kvs_get(tx, DB_UQBOOK, kb, 8, &v);
	if (ret)
		return ret == -ENOENT ? 0 : ret;
	n = (uint32_t)(v.len / 4);
	own = malloc(n ? (size_t)n * 4 : 1);
	if (!own)
		return -ENOMEM;
	memcpy(own, v.data, (size_t)n * 4);
	a->stats->keys = n;
	a->stats->keys_hi = uq_count_hi(own, n);
	ret = kvs_cur_open(tx, DB_UQKEY, &cur);
	if (ret == 0)
		ret = kvs_dup_prefetch(cur, own, 4, n, a->max);
	for (i = 0; ret == 0 && i < n; i++) {
		ret = uq_postings(cur, own + 4 * (size_t)i, a->max, a->r, &stop);
		a->stats->stopped += (uint32_t)stop;
	}
	kvs_cur_close(cur);
	a->stats->postings = a->r->n;
	free(own);
	return ret;
}

int idx_uq_candidates(struct idx *ix, uint64_t id, uint32_t max_postings, uint32_t min_shared,
		      struct idx_uq_hit **hits, size_t *nhits, struct idx_uq_stats *stats)
{
	struct idx_uq_hit *h = NULL;
	struct uqread r = { 0 };
	uint64_t *tab = NULL;
	struct uqcand_arg a = { id, max_postings, &r, stats };
	uint32_t *tcnt = NULL, c;
	size_t nh = 0, s, e, mask = 15, slot;
	int ret;

	*hits = NULL;
	*nhits = 0;
	memset(stats, 0, sizeof(*stats));
	if (min_shared == 0)
		min_shared = 1;
	if (max_postings == 0 || max_postings > IDX_UQ_POSTINGS_MAX)
		return -EINVAL;
	ret = kvs_read(ix->kv, uq_read_txn, &a);
	if (ret || !r.n)
		goto out;
	/* every posting of a book carries its counts: keep them by id before
	 * the sort below separates them from the ids */
	while (mask + 1 < 2 * r.n)
		mask = mask * 2 + 1;
	tab = calloc(mask + 1, sizeof(*tab));
	tcnt = malloc((mask + 1) * sizeof(*tcnt));
	if (!tab || !tcnt) {
		ret = -ENOMEM;
		goto out;
	}
	for (s = 0; s < r.n; s++) {
		slot = uq_slot(tab, mask, r.ids[s] >> 1);
		if (!tab[slot]) {
			tab[slot] = r.ids[s] >> 1;
			tcnt[slot] = r.cnt[s];
		}
	}
	rsort_u64(r.ids, r.n);
	/* runs of one id (id << 1 | kind sorts both kinds of an id together) */
	for (s = 0; s < r.n; s = e) {
		for (e = s + 1; e < r.n && r.ids[e] >> 1 == r.ids[s] >> 1; e++)
			;
		nh += r.ids[s] >> 1 != id && e - s >= min_shared;
	}
	h = malloc((nh ? nh : 1) * sizeof(*h));
	if (!h) {
		ret = -ENOMEM;
		goto out;
	}
	nh = 0;
	for (s = 0; s < r.n; s = e) {
		uint32_t nhi = 0;

		for (e = s; e < r.n && r.ids[e] >> 1 == r.ids[s] >> 1; e++)
			nhi += (uint32_t)(r.ids[e] & 1);
		if (r.ids[s] >> 1 == id || e - s < min_shared)
			continue;
		c = tcnt[uq_slot(tab, mask, r.ids[s] >> 1)];
		h[nh++] = (struct idx_uq_hit){ r.ids[s] >> 1, (uint32_t)(e - s), c >> 16, nhi,
					       c & 0xffff };
	}
out:
	free(r.ids);
	free(r.cnt);
	free(tab);
	free(tcnt);
	if (ret) {
		free(h);
		return ret;
	}
	if (nh)
		qsort(h, nh, sizeof(*h), uqhit_cmp);
	else {
		free(h);
		h = NULL;
	}
	*hits = h;
	*nhits = nh;
	return 0;
}

struct hikeys_arg {
	uint32_t **keys;
	uint32_t *n;
};

static int hi_keys_get(int ret, const struct kvs_val *v, void *arg)
{
	struct hikeys_arg *a = arg;
	uint32_t n, nhi, i;

	if (ret == 0 && (v->len % 4 || v->len / 4 > IDX_UQ_MAX))
		ret = -EIO;
	if (ret)
		return ret;
	n = (uint32_t)(v->len / 4);
	nhi = uq_count_hi(v->data, n);
	if (!nhi)
		return 0;
	*a->keys = malloc((size_t)nhi * sizeof(**a->keys));
	if (!*a->keys)
		return -ENOMEM;
	for (i = 0; i < nhi; i++)
		(*a->keys)[i] = (uint32_t)be_get((const uint8_t *)v->data + 4 * (size_t)(n - nhi + i),
						 4) & ~IDX_UQ_HI;
	*a->n = nhi;
	return 0;
}

int idx_uq_hi_keys(struct idx *ix, uint64_t id, uint32_t **keys, uint32_t *n)
{
	struct hikeys_arg a = { keys, n };
	uint8_t kb[8];

	*keys = NULL;
	*n = 0;
	be_put(kb, id, 8);
	return idx_read_get(ix, DB_UQBOOK, kb, 8, hi_keys_get, &a);
}
