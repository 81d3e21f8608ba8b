/* nouns.c - capitalised words that are common nouns (see nouns.h). */
#include "nouns.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#define SUF_LEN 2	/* letters of a lower-case word's ending */

/* A hash of the code points [skip, skip + take) of a word, lower-cased;
 * *ncp (if not NULL): its code points in all. */
static uint64_t fold_hash(const char *text, const struct nouns_tok *t, uint32_t skip,
			  uint32_t take, uint32_t *ncp)
{
	const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)text + t->off;
	utf8proc_ssize_t left = t->len, k;
	utf8proc_int32_t c;
	uint64_t h = 0xCBF29CE484222325u;
	uint32_t i = 0;

	while (left > 0) {
		k = utf8proc_iterate(p, left, &c);
		if (k < 1) {
			k = 1;
			c = 0xFFFD;
		}
		if (i >= skip && i - skip < take)
			h = (h ^ (uint64_t)(uint32_t)utf8proc_tolower(c)) * 0x100000001B3u;
		i++;
		p += k;
		left -= k;
	}
	if (ncp)
		*ncp = i;
	return h ^ h >> 29;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int has(const uint64_t *set, size_t n, uint64_t h)
{
	return bsearch(&h, set, n, sizeof(*set), cmp_u64) != NULL;
}

/* A lower-case word (or its ending) and whether a capital followed it. */
struct follow {
	uint64_t key;
	uint64_t cap;
};

static int cmp_follow(const void *a, const void *b)
{
	return cmp_u64(&((const struct follow *)a)->key, &((const struct follow *)b)->key);
}

static int has_follow(const struct follow *f, size_t n, uint64_t key)
{
	struct follow k = { key, 0 };

	return bsearch(&k, f, n, sizeof(*f), cmp_follow) != NULL;
}

/* Sorts f[0, n) and keeps in f (as keys, sorted) the keys followed at least
 * min times, by a capital in at least share_pct percent of them; returns
 * how many. */
static size_t pre_noun(struct follow *f, size_t n, size_t min, unsigned share_pct)
{
	size_t i = 0, j, k = 0, cap;

	qsort(f, n, sizeof(*f), cmp_follow);
	while (i < n) {
		for (j = i, cap = 0; j < n && f[j].key == f[i].key; j++)
			cap += f[j].cap;
		if (j - i >= min && 100 * cap >= share_pct * (j - i))
			f[k++].key = f[i].key;
		i = j;
	}
	return k;
}

/* A distinct capitalised word. */
struct word {
	uint64_t whole, prefix, end;	/* fold hashes: the word, its first
					 * letters, its last (0: too short) */
	uint64_t h;		/* the caller's */
	uint32_t ncp, cap;	/* code points; written inside a sentence */
	size_t tok;		/* one of its tokens */
};

static int cmp_whole(const void *a, const void *b)
{
	return cmp_u64(&((const struct word *)a)->whole, &((const struct word *)b)->whole);
}

static int cmp_prefix(const void *a, const void *b)
{
	return cmp_u64(&((const struct word *)a)->prefix, &((const struct word *)b)->prefix);
}

static int cmp_end(const void *a, const void *b)
{
	return cmp_u64(&((const struct word *)a)->end, &((const struct word *)b)->end);
}

/* Sorts w[0, nw) by the key cmp sorts by (key: its value) and adds to out
 * the words written inside a sentence of each run of at least min words
 * with the same key (0: none). */
static void by_key(struct word *w, size_t nw, int (*cmp)(const void *, const void *),
		   uint64_t (*key)(const struct word *), size_t min, uint64_t *out, size_t *nout)
{
	size_t i, j, k;

	qsort(w, nw, sizeof(*w), cmp);
	for (i = 0; i < nw; i = j) {
		for (j = i + 1; j < nw && key(&w[j]) == key(&w[i]); j++)
			;
		if (key(&w[i]) && j - i >= min)
			for (k = i; k < j; k++)
				if (w[k].cap)
					out[(*nout)++] = w[k].h;
	}
}

static uint64_t key_prefix(const struct word *w)
{
	return w->prefix;
}

static uint64_t key_end(const struct word *w)
{
	return w->end;
}

/* Whether token t is a word with a capital first (not a number). */
static int capitalised(const char *text, const struct nouns_tok *t)
{
	unsigned char b = (unsigned char)text[t->off];

	return t->cls == NOUNS_CAP || (t->cls == NOUNS_OTHER && !(b >= '0' && b <= '9'));
}

/* The distinct capitalised words of tok, sorted by whole; *nw of them. */
static struct word *cap_words(const char *text, const struct nouns_tok *tok, size_t n,
			      size_t *nw)
{
	struct word *w = malloc((n ? n : 1) * sizeof(*w));
	size_t i, k = 0;

	*nw = 0;
	if (!w)
		return NULL;
	for (i = 0; i < n; i++) {
		if (!capitalised(text, &tok[i]))
			continue;
		w[k].whole = fold_hash(text, &tok[i], 0, UINT32_MAX, &w[k].ncp);
		w[k].prefix = w[k].ncp >= NOUNS_PREFIX ?
			      fold_hash(text, &tok[i], 0, NOUNS_PREFIX, NULL) : 0;
		w[k].end = w[k].ncp > NOUNS_END + 1 ?
			   fold_hash(text, &tok[i], w[k].ncp - NOUNS_END, NOUNS_END, NULL) : 0;
		w[k].h = tok[i].h;
		w[k].cap = tok[i].cls == NOUNS_CAP;
		w[k].tok = i;
		k++;
	}
	qsort(w, k, sizeof(*w), cmp_whole);
	for (i = 0; i < k; i++) {
		if (*nw && w[*nw - 1].whole == w[i].whole) {
			w[*nw - 1].cap |= w[i].cap;
			continue;
		}
		w[(*nw)++] = w[i];
	}
	return w;
}

/* Adds to out the words of w[0, nw) that share their first NOUNS_PREFIX
 * letters with another, end with another of NOUNS_TAIL letters or more,
 * or share their last NOUNS_END letters with NOUNS_END_MIN - 1 others
 * (w sorted by whole on entry). */
static void by_form(const char *text, const struct nouns_tok *tok, struct word *w, size_t nw,
		    uint64_t *out, size_t *nout)
{
	uint64_t *whole = malloc((nw ? nw : 1) * sizeof(*whole));
	size_t i, nwhole = 0;
	uint32_t s;

	if (whole) {	/* without it, no compounds: fewer nouns, still a sketch */
		for (i = 0; i < nw; i++)
			if (w[i].ncp >= NOUNS_TAIL)
				whole[nwhole++] = w[i].whole;
		for (i = 0; i < nw; i++)
			for (s = 1; w[i].cap && s + NOUNS_TAIL <= w[i].ncp; s++)
				if (has(whole, nwhole, fold_hash(text, &tok[w[i].tok], s,
								 UINT32_MAX, NULL))) {
					out[(*nout)++] = w[i].h;
					break;
				}
		free(whole);
	}
	by_key(w, nw, cmp_prefix, key_prefix, 2, out, nout);
	by_key(w, nw, cmp_end, key_end, NOUNS_END_MIN, out, nout);
}

int nouns_mark(const char *text, const struct nouns_tok *tok, size_t n, uint64_t **nouns,
	       size_t *nn)
{
	struct follow *fw = NULL, *fs = NULL;
	struct word *w = NULL;
	uint64_t *out = NULL;
	size_t i, nfw = 0, nfs = 0, nw = 0, nout = 0, k;
	uint32_t ncp;
	int ret = -ENOMEM;

	*nouns = NULL;
	*nn = 0;
	fw = malloc((n ? n : 1) * sizeof(*fw));
	fs = malloc((n ? n : 1) * sizeof(*fs));
	out = malloc((4 * n + 1) * sizeof(*out));	/* a mark per token, three per word */
	if (!fw || !fs || !out)
		goto out;
	for (i = 0; i + 1 < n; i++)
		if (tok[i].cls == NOUNS_LOWER) {
			fw[nfw].key = fold_hash(text, &tok[i], 0, UINT32_MAX, NULL);
			fw[nfw++].cap = tok[i + 1].cls == NOUNS_CAP;
		}
	nfw = pre_noun(fw, nfw, NOUNS_DET_MIN, 50);
	/* the endings of the other words: an article's would stand for
	 * every word ending like it */
	for (i = 0; i + 1 < n; i++)
		if (tok[i].cls == NOUNS_LOWER &&
		    !has_follow(fw, nfw, fold_hash(text, &tok[i], 0, UINT32_MAX, &ncp)) &&
		    ncp > SUF_LEN) {
			fs[nfs].key = fold_hash(text, &tok[i], ncp - SUF_LEN, SUF_LEN, NULL);
			fs[nfs++].cap = tok[i + 1].cls == NOUNS_CAP;
		}
	nfs = pre_noun(fs, nfs, NOUNS_SUF_MIN, 40);
	/* after an article or an inflected adjective */
	for (i = 1; i < n; i++) {
		uint64_t key;

		if (tok[i].cls != NOUNS_CAP || tok[i - 1].cls != NOUNS_LOWER)
			continue;
		key = fold_hash(text, &tok[i - 1], 0, UINT32_MAX, &ncp);
		if (has_follow(fw, nfw, key) || (ncp > SUF_LEN &&
				has_follow(fs, nfs, fold_hash(text, &tok[i - 1], ncp - SUF_LEN,
							      SUF_LEN, NULL))))
			out[nout++] = tok[i].h;
	}
	w = cap_words(text, tok, n, &nw);
	if (!w)
		goto out;
	by_form(text, tok, w, nw, out, &nout);
	qsort(out, nout, sizeof(*out), cmp_u64);
	for (i = k = 0; i < nout; i++)
		if (!k || out[k - 1] != out[i])
			out[k++] = out[i];
	*nouns = out;
	*nn = k;
	out = NULL;
	ret = 0;
out:
	free(fw);
	free(fs);
	free(w);
	free(out);
	return ret;
}
