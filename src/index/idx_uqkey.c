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
	uint8_t kb[8], key[4], post[UQ_POSTING];
	uint32_t *keys = NULL, n, i;
	MDB_val v;
	int ret, rc;

	be_put(kb, id, 8);
	ret = idx_w_get(w, DB_UQBOOK, kb, 8, &v);
	if (ret == -ENOENT)
		return 0;
	if (ret)
		return ret;
	n = (uint32_t)(v.mv_size / 4);
	uq_posting(post, id, n, uq_count_hi(v.mv_data, n));
	if (n) {
		/* copy out: the deletes below may move the page */
		keys = malloc(n * sizeof(*keys));
		if (!keys)
			return -ENOMEM;
		for (i = 0; i < n; i++)
			keys[i] = (uint32_t)be_get((const uint8_t *)v.mv_data + 4 * i, 4);
	}
	for (i = 0; ret == 0 && i < n; i++) {
		MDB_val k = idx_mval(key, 4), d = idx_mval(post, UQ_POSTING);

		be_put(key, keys[i], 4);
		rc = mdb_del(w->txn, w->ix->db[DB_UQKEY], &k, &d);
		if (rc == MDB_MAP_FULL)
			w->mapfull = 1;
		ret = rc == MDB_NOTFOUND ? 0 : idx_err(rc);
	}
	free(keys);
	return ret || keep_row ? ret : idx_w_del(w, DB_UQBOOK, kb, 8);
}

/* Puts the postings of id for its n big-endian keys (uqbook's value). */
int idx_uq_put_postings(struct wtx *w, uint64_t id, const uint8_t *keys, uint32_t n)
{
	uint8_t post[UQ_POSTING];
	MDB_cursor *cur = NULL;
	uint32_t i;
	int ret = 0, rc;

	uq_posting(post, id, n, uq_count_hi(keys, n));
	/* one cursor for every posting (mdb_put() sets one up per call) */
	rc = mdb_cursor_open(w->txn, w->ix->db[DB_UQKEY], &cur);
	if (rc)
		return idx_err(rc);
	for (i = 0; ret == 0 && i < n; i++) {
		MDB_val k = idx_mval(keys + 4 * (size_t)i, 4), d = idx_mval(post, UQ_POSTING);

		rc = mdb_cursor_put(cur, &k, &d, 0);
		if (rc == MDB_MAP_FULL)
			w->mapfull = 1;
		ret = rc == MDB_KEYEXIST ? 0 : idx_err(rc);
	}
	mdb_cursor_close(cur);
	return ret;
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

/* Appends the postings of key (4 bytes) to r, unless more than max books
 * hold it (a frequent key): then nothing is appended and *stop is set.
 * Reads a page of postings per call (MDB_DUPFIXED); a posting whose counts
 * cannot be a book's is left out. */
static int uq_postings(MDB_cursor *cur, const uint8_t *key, uint32_t max, struct uqread *r,
		       int *stop)
{
	uint64_t hi = key[0] >> 7, pid;
	MDB_val k = idx_mval(key, 4), v;
	size_t cnt = 0, i, m;
	uint32_t nk, nhi;
	int rc, ret;

	*stop = 0;
	rc = mdb_cursor_get(cur, &k, &v, MDB_SET_KEY);
	if (rc == MDB_NOTFOUND)
		return 0;
	if (rc == 0)
		rc = mdb_cursor_count(cur, &cnt);
	if (rc)
		return idx_err(rc);
	if (cnt > max) {
		*stop = 1;
		return 0;
	}
	if (v.mv_size != UQ_POSTING)
		return 0;	/* not a posting of this layout */
	/* one value: GET_MULTIPLE leaves v as it is */
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_GET_MULTIPLE); rc == 0;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT_MULTIPLE)) {
		m = v.mv_size / UQ_POSTING;
		ret = uqread_room(r, m);
		if (ret)
			return ret;
		for (i = 0; i < m; i++) {
			const uint8_t *p = (const uint8_t *)v.mv_data + i * UQ_POSTING;

			pid = be_get(p, 8);
			nk = (uint32_t)be_get(p + 8, 2);
			nhi = (uint32_t)be_get(p + 10, 2);
			if (pid == 0 || pid >> 63 || nk > IDX_UQ_MAX || nhi > nk)
				continue;
			r->ids[r->n] = pid << 1 | hi;
			r->cnt[r->n++] = nk << 16 | nhi;
		}
	}
	return rc == MDB_NOTFOUND ? 0 : idx_err(rc);
}

/* Slot of id in an open-addressed table of mask + 1 slots (0 = empty). */
static size_t uq_slot(const uint64_t *tab, size_t mask, uint64_t id)
{
	size_t s = (size_t)((id * 0x9e3779b97f4a7c15ull) >> 32) & mask;

	while (tab[s] && tab[s] != id)
		s = (s + 1) & mask;
	return s;
}

int idx_uq_candidates(struct idx *ix, uint64_t id, uint32_t max_postings, uint32_t min_shared,
		      struct idx_uq_hit **hits, size_t *nhits, struct idx_uq_stats *stats)
{
	struct idx_uq_hit *h = NULL;
	struct uqread r = { 0 };
	uint64_t *tab = NULL;
	uint32_t *tcnt = NULL, n = 0, i, c;
	size_t nh = 0, s, e, mask = 15, slot;
	MDB_cursor *cur = NULL;
	MDB_txn *txn = NULL;
	uint8_t kb[8], *own = NULL;
	MDB_val k, v;
	int rc, ret, stop;

	*hits = NULL;
	*nhits = 0;
	memset(stats, 0, sizeof(*stats));
	if (min_shared == 0)
		min_shared = 1;
	if (max_postings == 0 || max_postings > IDX_UQ_POSTINGS_MAX)
		return -EINVAL;
	ret = idx_rtx_begin(ix, &txn);
	if (ret)
		return ret;
	be_put(kb, id, 8);
	k = idx_mval(kb, 8);
	rc = mdb_get(txn, ix->db[DB_UQBOOK], &k, &v);
	if (rc) {
		ret = rc == MDB_NOTFOUND ? 0 : idx_err(rc);
		goto out;
	}
	n = (uint32_t)(v.mv_size / 4);
	own = malloc(n ? (size_t)n * 4 : 1);
	if (!own) {
		ret = -ENOMEM;
		goto out;
	}
	memcpy(own, v.mv_data, (size_t)n * 4);
	stats->keys = n;
	stats->keys_hi = uq_count_hi(own, n);
	rc = mdb_cursor_open(txn, ix->db[DB_UQKEY], &cur);
	if (rc)
		ret = idx_err(rc);
	for (i = 0; ret == 0 && i < n; i++) {
		ret = uq_postings(cur, own + 4 * (size_t)i, max_postings, &r, &stop);
		stats->stopped += (uint32_t)stop;
	}
	stats->postings = r.n;
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
	if (cur)
		mdb_cursor_close(cur);
	idx_rtx_end(ix, txn);
	free(own);
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

static int hi_keys_get(int ret, const MDB_val *v, void *arg)
{
	struct hikeys_arg *a = arg;
	uint32_t n, nhi, i;

	if (ret == 0 && (v->mv_size % 4 || v->mv_size / 4 > IDX_UQ_MAX))
		ret = -EIO;
	if (ret)
		return ret;
	n = (uint32_t)(v->mv_size / 4);
	nhi = uq_count_hi(v->mv_data, n);
	if (!nhi)
		return 0;
	*a->keys = malloc((size_t)nhi * sizeof(**a->keys));
	if (!*a->keys)
		return -ENOMEM;
	for (i = 0; i < nhi; i++)
		(*a->keys)[i] = (uint32_t)be_get((const uint8_t *)v->mv_data + 4 * (size_t)(n - nhi + i),
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
