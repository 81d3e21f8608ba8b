/* dupniq.c - S5: sequence of words occurring once, LCS by LIS (dupniq.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dupniq.h"
#include "fpcore_i.h"
#include "rsort.h"
#include "wordhash.h"

/* The word table keeps keys and positions apart so that the probes, done
 * for every word, only touch the dense key array: a key is the word hash
 * with bit 0 replaced by a "seen twice" flag (two words whose hashes differ
 * only in bit 0 count as one: a 2^-63 event); 0 marks a free slot. */
#define SEEN_TWICE UINT64_C(1)

static uint64_t key_of(uint64_t word_hash)
{
	uint64_t k = word_hash & ~SEEN_TWICE;

	return k ? k : 2;
}

struct dupniq {
	struct wordhash wh;
	uint64_t *key;
	uint32_t *pos;		/* first occurrence of each key */
	size_t cap, used;	/* cap is a power of two */
	uint32_t nwords;
	int failed;		/* an allocation failed for this text */
	/* Each word is entered one call late, after its slot was prefetched:
	 * the table outgrows the L1 cache and a miss per word was a tenth of
	 * the whole fingerprinting time. */
	int pending;
	uint64_t pend_key;
	uint32_t pend_pos;
};

void dupniq_seq_init(struct dupniq_seq *s)
{
	memset(s, 0, sizeof(*s));
}

void dupniq_seq_release(struct dupniq_seq *s)
{
	free(s->hash);
	free(s->pos);
	dupniq_seq_init(s);
}

int dupniq_seq_copy(struct dupniq_seq *dst, const struct dupniq_seq *src)
{
	struct dupniq_seq t;

	dupniq_seq_init(&t);
	t.n = src->n;
	t.nwords = src->nwords;
	if (src->n) {
		t.hash = malloc(src->n * sizeof(*t.hash));
		t.pos = malloc(src->n * sizeof(*t.pos));
		if (!t.hash || !t.pos) {
			dupniq_seq_release(&t);
			return -ENOMEM;
		}
		memcpy(t.hash, src->hash, src->n * sizeof(*t.hash));
		memcpy(t.pos, src->pos, src->n * sizeof(*t.pos));
	}
	dupniq_seq_release(dst);
	*dst = t;
	return 0;
}

struct dupniq *dupniq_new(void)
{
	struct dupniq *dq = calloc(1, sizeof(*dq));

	if (!dq)
		return NULL;
	wordhash_init(&dq->wh);
	return dq;
}

void dupniq_free(struct dupniq *dq)
{
	if (!dq)
		return;
	wordhash_release(&dq->wh);
	free(dq->key);
	free(dq->pos);
	free(dq);
}

void dupniq_reset(struct dupniq *dq)
{
	sbuf_setlen(&dq->wh.part, 0);
	dq->wh.nwords = 0;
	if (dq->key)
		memset(dq->key, 0, dq->cap * sizeof(*dq->key));
	dq->used = 0;
	dq->nwords = 0;
	dq->failed = 0;
	dq->pending = 0;
}

static int grow(struct dupniq *dq)
{
	size_t ncap = dq->cap ? dq->cap * 2 : 4096, i, j;
	uint64_t *nk;
	uint32_t *np;

	if (ncap > SIZE_MAX / sizeof(*nk))
		return -ENOMEM;
	nk = calloc(ncap, sizeof(*nk));
	np = malloc(ncap * sizeof(*np));
	if (!nk || !np) {
		free(nk);
		free(np);
		return -ENOMEM;
	}
	for (i = 0; i < dq->cap; i++) {
		if (!dq->key[i])
			continue;
		for (j = dq->key[i] & ~SEEN_TWICE & (ncap - 1); nk[j]; j = (j + 1) & (ncap - 1))
			;
		nk[j] = dq->key[i];
		np[j] = dq->pos[i];
	}
	free(dq->key);
	free(dq->pos);
	dq->key = nk;
	dq->pos = np;
	dq->cap = ncap;
	return 0;
}

static int enter(struct dupniq *dq, uint64_t k, uint32_t pos)
{
	size_t j, mask;

	if ((dq->used + 1) * 4 > dq->cap * 3 && grow(dq) < 0) {
		dq->failed = 1;
		return -ENOMEM;
	}
	/* word hashes are XXH3 values: their low bits index the table as is */
	mask = dq->cap - 1;
	for (j = k & mask; dq->key[j]; j = (j + 1) & mask) {
		if ((dq->key[j] & ~SEEN_TWICE) == k) {
			dq->key[j] |= SEEN_TWICE;
			return 0;
		}
	}
	dq->key[j] = k;
	dq->pos[j] = pos;
	dq->used++;
	return 0;
}

/* Enters the word held back by the last call, if any. */
static int enter_pending(struct dupniq *dq)
{
	if (!dq->pending)
		return 0;
	dq->pending = 0;
	return enter(dq, dq->pend_key, dq->pend_pos);
}

int dupniq_add_word(struct dupniq *dq, uint64_t word_hash)
{
	uint64_t k = key_of(word_hash);

	if (dq->failed)
		return -ENOMEM;
	if (dq->cap)
		__builtin_prefetch(&dq->key[k & (dq->cap - 1)], 1);
	if (enter_pending(dq) < 0)
		return -ENOMEM;
	dq->pending = 1;
	dq->pend_key = k;
	dq->pend_pos = dq->nwords++;
	return 0;
}

static void word_cb(void *ctx, uint64_t h, uint32_t idx)
{
	(void)idx;
	dupniq_add_word(ctx, h);
}

int dupniq_update(struct dupniq *dq, const void *buf, size_t len)
{
	int ret = wordhash_update(&dq->wh, buf, len, word_cb, dq);

	if (ret < 0)
		dq->failed = 1;
	return dq->failed ? -ENOMEM : 0;
}

int dupniq_final(struct dupniq *dq, struct dupniq_seq *out)
{
	/* hash << 32 | pos, then pos << 32 | hash: integer sorts of the
	 * entries (every word's first position is its own, so both orders
	 * are total) */
	uint64_t *e = NULL;
	struct dupniq_seq s;
	size_t i, n = 0, k;
	int ret = 0;

	dupniq_seq_init(&s);
	wordhash_final(&dq->wh, word_cb, dq);
	if (!dq->failed)
		enter_pending(dq);
	if (dq->failed) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < dq->cap; i++)
		n += dq->key[i] && !(dq->key[i] & SEEN_TWICE);
	if (n) {
		e = malloc(n * sizeof(*e));
		if (!e) {
			ret = -ENOMEM;
			goto out;
		}
	}
	for (i = 0, k = 0; i < dq->cap; i++)
		if (dq->key[i] && !(dq->key[i] & SEEN_TWICE))
			e[k++] = (dq->key[i] >> 32) << 32 | dq->pos[i];
	/* drop every entry whose 32-bit hash is not unique */
	rsort_u64(e, n);
	for (i = 0, k = 0; i < n; ) {
		size_t j = i + 1;

		while (j < n && e[j] >> 32 == e[i] >> 32)
			j++;
		if (j == i + 1)
			e[k++] = e[i] << 32 | e[i] >> 32;
		i = j;
	}
	n = k;
	rsort_u64(e, n);
	if (n) {
		s.hash = malloc(n * sizeof(*s.hash));
		s.pos = malloc(n * sizeof(*s.pos));
		if (!s.hash || !s.pos) {
			ret = -ENOMEM;
			goto out;
		}
	}
	for (i = 0; i < n; i++) {
		s.hash[i] = (uint32_t)e[i];
		s.pos[i] = (uint32_t)(e[i] >> 32);
	}
	s.n = (uint32_t)n;
	s.nwords = dq->nwords;
	dupniq_seq_release(out);
	*out = s;
	dupniq_seq_init(&s);
out:
	dupniq_seq_release(&s);
	free(e);
	dupniq_reset(dq);
	return ret;
}

int dupniq_compute(const void *text, size_t len, struct dupniq_seq *out)
{
	struct dupniq *dq = dupniq_new();
	int ret;

	if (!dq)
		return -ENOMEM;
	ret = dupniq_update(dq, text, len);
	if (dupniq_final(dq, out) < 0)
		ret = -ENOMEM;
	dupniq_free(dq);
	return ret;
}


static uint32_t slot_of(uint32_t h, uint32_t mask)
{
	return (h * 0x9E3779B1u ^ h >> 15) & mask;
}

int dupniq_lookup_init(struct dupniq_lookup *t, const struct dupniq_seq *s)
{
	uint32_t cap = 16, i, k;

	while (cap < 2 * (uint64_t)s->n && cap < (1u << 31))
		cap *= 2;
	t->mask = cap - 1;
	t->key = malloc(cap * sizeof(*t->key));
	t->idx = calloc(cap, sizeof(*t->idx));
	if (!t->key || !t->idx) {
		dupniq_lookup_release(t);
		return -ENOMEM;
	}
	for (i = 0; i < s->n; i++) {
		for (k = slot_of(s->hash[i], t->mask); t->idx[k]; k = (k + 1) & t->mask)
			if (t->key[k] == s->hash[i])
				break;
		if (t->idx[k])
			continue;	/* a repeated hash keeps its first entry */
		t->key[k] = s->hash[i];
		t->idx[k] = i + 1;
	}
	return 0;
}

long dupniq_lookup_find(const struct dupniq_lookup *t, uint32_t h)
{
	uint32_t k;

	for (k = slot_of(h, t->mask); t->idx[k]; k = (k + 1) & t->mask)
		if (t->key[k] == h)
			return (long)t->idx[k] - 1;
	return -1;
}

void dupniq_lookup_release(struct dupniq_lookup *t)
{
	free(t->key);
	free(t->idx);
	t->key = NULL;
	t->idx = NULL;
	t->mask = 0;
}

void dupniq_lcs_init(struct dupniq_lcs *l)
{
	memset(l, 0, sizeof(*l));
}

void dupniq_lcs_release(struct dupniq_lcs *l)
{
	free(l->xi);
	free(l->yi);
	free(l->chain);
	dupniq_lcs_init(l);
}

int dupniq_lcs_find(const struct dupniq_seq *x, const struct dupniq_seq *y, uint32_t min_lcs,
		    struct dupniq_lcs *l)
{
	struct dupniq_lookup ys = { NULL, NULL, 0 };
	uint32_t *tail = NULL, *prev = NULL;
	uint32_t i, m = 0, len = 0, k;
	int ret = 0;

	dupniq_lcs_release(l);
	if (!x->n || !y->n)
		return 0;
	l->xi = malloc(x->n * sizeof(*l->xi));
	l->yi = malloc(x->n * sizeof(*l->yi));
	tail = malloc(x->n * sizeof(*tail));
	prev = malloc(x->n * sizeof(*prev));
	if (!l->xi || !l->yi || !tail || !prev || dupniq_lookup_init(&ys, y)) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < x->n; i++) {
		long j = dupniq_lookup_find(&ys, x->hash[i]);

		if (j >= 0) {
			l->xi[m] = i;
			l->yi[m] = (uint32_t)j;
			m++;
		}
	}
	l->m = m;
	if (min_lcs && m < min_lcs) {
		l->pruned = 1;
		goto out;
	}
	/* patience sorting: tail[l] = index (into xi/yi) of the smallest
	 * y-index ending an increasing run of length l + 1 */
	for (i = 0; i < m; i++) {
		uint32_t lo = 0, hi = len;

		/* near duplicates keep their order: most matches extend the
		 * longest run, where the search below would end too */
		if (len && l->yi[tail[len - 1]] < l->yi[i])
			lo = hi;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (l->yi[tail[mid]] < l->yi[i])
				lo = mid + 1;
			else
				hi = mid;
		}
		prev[i] = lo ? tail[lo - 1] : UINT32_MAX;
		tail[lo] = i;
		if (lo == len)
			len++;
	}
	/* walk the chain backwards from its end; tail[] becomes the chain */
	if (len)
		for (k = tail[len - 1], i = len; k != UINT32_MAX; k = prev[k])
			tail[--i] = k;
	l->chain = tail;
	tail = NULL;
	l->len = len;
out:
	dupniq_lookup_release(&ys);
	free(tail);
	free(prev);
	if (ret)
		dupniq_lcs_release(l);
	return ret;
}

void dupniq_compare_lcs(const struct dupniq_seq *x, const struct dupniq_seq *y,
			const struct dupniq_lcs *l, struct dupniq_result *res)
{
	uint32_t len = l->len, i;

	memset(res, 0, sizeof(*res));
	res->common = l->m;
	res->pruned = l->pruned;
	res->lcs = len;
	if (len) {
		uint32_t first = l->chain[0], last = l->chain[len - 1];
		uint64_t ca = 0, cb = 0;

		for (i = 0; i + 1 < len; i++) {
			uint32_t k = l->chain[i], next = l->chain[i + 1];
			uint32_t ga = x->pos[l->xi[next]] - x->pos[l->xi[k]];
			uint32_t gb = y->pos[l->yi[next]] - y->pos[l->yi[k]];

			/* the same text between two aligned words has about
			 * the same length on both sides; chance matches in
			 * unrelated books do not */
			if (ga <= DUPNIQ_GAP && gb <= DUPNIQ_GAP &&
			    (ga > gb ? ga - gb : gb - ga) <= (ga + gb) / 8 + 3) {
				ca += ga;
				cb += gb;
			}
		}
		res->a_first = x->pos[l->xi[first]];
		res->a_last = x->pos[l->xi[last]];
		res->b_first = y->pos[l->yi[first]];
		res->b_last = y->pos[l->yi[last]];
		if (x->nwords) {
			res->a_cover = (double)(res->a_last - res->a_first + 1) / x->nwords;
			res->a_covered = (double)ca / x->nwords;
		}
		if (y->nwords) {
			res->b_cover = (double)(res->b_last - res->b_first + 1) / y->nwords;
			res->b_covered = (double)cb / y->nwords;
		}
		res->cs = len / sqrt((double)x->n * (double)y->n);
		if (len >= 2)
			res->its = log((double)len) / log((double)x->n + y->n - len);
	}
}

int dupniq_compare(const struct dupniq_seq *x, const struct dupniq_seq *y,
		   uint32_t min_lcs, struct dupniq_result *res)
{
	struct dupniq_lcs l;
	int ret;

	dupniq_lcs_init(&l);
	ret = dupniq_lcs_find(x, y, min_lcs, &l);
	if (ret)
		memset(res, 0, sizeof(*res));
	else
		dupniq_compare_lcs(x, y, &l, res);
	dupniq_lcs_release(&l);
	return ret;
}

uint32_t dupniq_lcs_lower_bound(uint32_t nx, uint32_t ny, double cs_min, double its_min)
{
	uint32_t mn = nx < ny ? nx : ny, best = mn + 1;

	if (cs_min > 0) {
		double need = ceil(cs_min * sqrt((double)nx * ny));

		if (need < best)
			best = need < 1 ? 1 : (uint32_t)need;
	}
	if (its_min > 0 && mn >= 2) {
		/* smallest L in [2, mn] with log L >= its_min * log(nx + ny - L);
		 * the left side grows and the right shrinks with L */
		uint32_t lo = 2, hi = mn + 1;

		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (log((double)mid) >= its_min * log((double)nx + ny - mid))
				hi = mid;
			else
				lo = mid + 1;
		}
		if (lo < best)
			best = lo;
	}
	return best;
}

static int u32_cmp(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

int dupniq_keys(const struct dupniq_seq *s, uint32_t max, uint32_t **keys, uint32_t *n)
{
	uint32_t *k = NULL, i, m = 0, j;

	*keys = NULL;
	*n = 0;
	for (i = 0; i < s->n; i++) {
		/* a multiplicative remix, so the sample does not depend on the
		 * bits other uses of the word hash read */
		if ((uint32_t)(s->hash[i] * UINT32_C(0x9E3779B1)) % DUPNIQ_KEY_SAMPLE)
			continue;
		if (!k) {
			k = malloc((s->n / 4 + 16) * sizeof(*k));
			if (!k)
				return -ENOMEM;
		}
		if (m == s->n / 4 + 16)
			break;	/* a sample that large is no sample: stop */
		k[m++] = s->hash[i];
	}
	if (m)
		qsort(k, m, sizeof(*k), u32_cmp);
	for (i = j = 0; i < m && j < max; i++)
		if (!j || k[j - 1] != k[i])
			k[j++] = k[i];
	if (!j) {
		free(k);
		k = NULL;
	}
	*keys = k;
	*n = j;
	return 0;
}
