/* chunksketch.c - per-chunk min-hash sketches and their alignment (chunksketch.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chunksketch.h"
#include "fpcore_i.h"
#include "minhash.h"
#include "wordhash.h"

#define EMPTY32 UINT32_MAX
#define LAG MINHASH_SHINGLE	/* words kept until their shingle is complete */

struct cset {
	struct chunksketch_chunk *c;
	uint32_t n, cap;
};

struct chunksketch {
	struct wordhash wh;
	uint64_t last[LAG];		/* last words, ring by nwords */
	uint32_t spine_of[LAG];		/* spine chunk of each of those words */
	uint32_t nwords;
	int brk;			/* a spine break precedes the next word */
	int failed;
	struct cset spine, win;
};

void chunksketch_book_init(struct chunksketch_book *b)
{
	memset(b, 0, sizeof(*b));
}

void chunksketch_book_release(struct chunksketch_book *b)
{
	free(b->spine.c);
	free(b->win.c);
	chunksketch_book_init(b);
}

static int set_copy(struct chunksketch_set *dst, const struct chunksketch_set *src)
{
	dst->n = 0;
	dst->c = NULL;
	if (!src->n)
		return 0;
	dst->c = malloc(src->n * sizeof(*dst->c));
	if (!dst->c)
		return -ENOMEM;
	memcpy(dst->c, src->c, src->n * sizeof(*dst->c));
	dst->n = src->n;
	return 0;
}

int chunksketch_book_copy(struct chunksketch_book *dst, const struct chunksketch_book *src)
{
	struct chunksketch_book t;

	chunksketch_book_init(&t);
	if (set_copy(&t.spine, &src->spine) < 0 || set_copy(&t.win, &src->win) < 0) {
		chunksketch_book_release(&t);
		return -ENOMEM;
	}
	t.nwords = src->nwords;
	chunksketch_book_release(dst);
	*dst = t;
	return 0;
}

struct chunksketch *chunksketch_new(void)
{
	struct chunksketch *ck = calloc(1, sizeof(*ck));

	if (!ck)
		return NULL;
	wordhash_init(&ck->wh);
	return ck;
}

void chunksketch_free(struct chunksketch *ck)
{
	if (!ck)
		return;
	wordhash_release(&ck->wh);
	free(ck->spine.c);
	free(ck->win.c);
	free(ck);
}

void chunksketch_reset(struct chunksketch *ck)
{
	sbuf_setlen(&ck->wh.part, 0);
	ck->wh.nwords = 0;
	ck->nwords = 0;
	ck->brk = 0;
	ck->failed = 0;
	ck->spine.n = 0;
	ck->win.n = 0;
}

static int open_chunk(struct cset *s, uint32_t first)
{
	struct chunksketch_chunk *c;

	if (s->n == s->cap) {
		uint32_t ncap = s->cap ? s->cap * 2 : 16;

		if (ncap < s->cap)
			return -ENOMEM;
		c = realloc(s->c, (size_t)ncap * sizeof(*c));
		if (!c)
			return -ENOMEM;
		s->c = c;
		s->cap = ncap;
	}
	c = &s->c[s->n++];
	c->first = first;
	c->nwords = 0;
	memset(c->v, 0xff, sizeof(c->v));
	return 0;
}

static void sketch_add(struct chunksketch_chunk *c, uint64_t h)
{
	unsigned bin = (unsigned)(h >> 60);
	uint32_t v = (uint32_t)(h >> 28);

	if (v < c->v[bin])
		c->v[bin] = v;
}

/* Adds the shingle that starts at word idx (hash h). */
static void add_shingle(struct chunksketch *ck, uint32_t idx, uint32_t spine, uint64_t h)
{
	sketch_add(&ck->spine.c[spine], h);
	sketch_add(&ck->win.c[idx / CHUNKSKETCH_WINDOW], h);
}

/* shingle: the hash of the shingle ending with this word, or 0 with
 * have_sh == 0 to compute it here. */
static inline int add_word(struct chunksketch *ck, uint64_t word_hash, int have_sh, uint64_t shingle)
{
	uint32_t idx = ck->nwords, sp;
	uint64_t w[LAG];
	unsigned i;

	if (ck->failed)
		return -ENOMEM;
	if (ck->spine.n == 0 || (ck->brk && ck->spine.c[ck->spine.n - 1].nwords)) {
		if (open_chunk(&ck->spine, idx) < 0)
			goto fail;
	}
	ck->brk = 0;
	if (idx % CHUNKSKETCH_WINDOW == 0 && open_chunk(&ck->win, idx) < 0)
		goto fail;
	sp = ck->spine.n - 1;
	ck->spine.c[sp].nwords++;
	ck->win.c[ck->win.n - 1].nwords++;
	ck->last[idx % LAG] = word_hash;
	ck->spine_of[idx % LAG] = sp;
	ck->nwords++;
	if (ck->nwords >= LAG) {
		uint32_t start = ck->nwords - LAG;

		if (!have_sh) {
			for (i = 0; i < LAG; i++)
				w[i] = ck->last[(start + i) % LAG];
			shingle = minhash_shingle(w, LAG);
		}
		add_shingle(ck, start, ck->spine_of[start % LAG], shingle);
	}
	return 0;
fail:
	ck->failed = 1;
	return -ENOMEM;
}

int chunksketch_add_word(struct chunksketch *ck, uint64_t word_hash)
{
	return add_word(ck, word_hash, 0, 0);
}

int chunksketch_add_word_sh(struct chunksketch *ck, uint64_t word_hash, uint64_t shingle)
{
	return add_word(ck, word_hash, 1, shingle);
}

static void word_cb(void *ctx, uint64_t h, uint32_t idx)
{
	(void)idx;
	chunksketch_add_word(ctx, h);
}

int chunksketch_update(struct chunksketch *ck, const void *buf, size_t len)
{
	if (wordhash_update(&ck->wh, buf, len, word_cb, ck) < 0)
		ck->failed = 1;
	return ck->failed ? -ENOMEM : 0;
}

void chunksketch_break(struct chunksketch *ck)
{
	wordhash_flush(&ck->wh, word_cb, ck);
	ck->brk = 1;
}

static void densify_set(struct cset *s)
{
	uint64_t bins[CHUNKSKETCH_K];
	uint32_t i;
	unsigned k;

	for (i = 0; i < s->n; i++) {
		for (k = 0; k < CHUNKSKETCH_K; k++)
			bins[k] = s->c[i].v[k];
		minhash_densify(bins, CHUNKSKETCH_K, EMPTY32);
		for (k = 0; k < CHUNKSKETCH_K; k++)
			s->c[i].v[k] = (uint32_t)bins[k];
	}
}

/* Hands the array over, trimmed to size. */
static void detach(struct cset *s, struct chunksketch_set *out)
{
	out->n = s->n;
	out->c = s->n ? s->c : NULL;
	if (!s->n)
		free(s->c);
	s->c = NULL;
	s->n = s->cap = 0;
}

int chunksketch_final(struct chunksketch *ck, struct chunksketch_book *out)
{
	uint64_t w[LAG];
	uint32_t i;
	int ret = 0;

	wordhash_final(&ck->wh, word_cb, ck);
	if (ck->failed) {
		ret = -ENOMEM;
		goto out;
	}
	if (ck->nwords > 0 && ck->nwords < LAG) {
		for (i = 0; i < ck->nwords; i++)
			w[i] = ck->last[i];
		add_shingle(ck, 0, 0, minhash_shingle(w, ck->nwords));
	}
	densify_set(&ck->spine);
	densify_set(&ck->win);
	chunksketch_book_release(out);
	detach(&ck->spine, &out->spine);
	detach(&ck->win, &out->win);
	out->nwords = ck->nwords;
out:
	chunksketch_reset(ck);
	return ret;
}

double chunksketch_sim(const struct chunksketch_chunk *a, const struct chunksketch_chunk *b)
{
	unsigned k, n = 0;

	for (k = 0; k < CHUNKSKETCH_K; k++)
		n += a->v[k] == b->v[k] && a->v[k] != EMPTY32;
	return (double)n / CHUNKSKETCH_K;
}

void chunksketch_match(const struct chunksketch_set *a, const struct chunksketch_set *b,
		   double min_sim, struct chunksketch_pair *pairs, uint32_t *npairs)
{
	uint32_t i, j, n = 0;

	for (i = 0; i < a->n && b->n; i++) {
		double best = -1, s;
		uint32_t at = 0;

		for (j = 0; j < b->n; j++) {
			s = chunksketch_sim(&a->c[i], &b->c[j]);
			if (s > best) {
				best = s;
				at = j;
			}
		}
		if (best < min_sim || best <= 0)
			continue;
		pairs[n].a = i;
		pairs[n].b = at;
		pairs[n].sim = best;
		n++;
	}
	*npairs = n;
}

/* Least-squares line over the kept pairs; returns how many there are. */
static uint32_t fit_line(const struct chunksketch_set *a, const struct chunksketch_set *b,
			 const struct chunksketch_pair *pairs, const uint8_t *drop, uint32_t n,
			 struct chunksketch_fit *fit)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0, ssim = 0, vx, vy, cxy;
	uint32_t i, k = 0;

	fit->slope = fit->offset = fit->r2 = fit->mean_sim = 0;
	for (i = 0; i < n; i++) {
		double x = a->c[pairs[i].a].first, y = b->c[pairs[i].b].first;

		if (drop[i])
			continue;
		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
		syy += y * y;
		ssim += pairs[i].sim;
		k++;
	}
	if (!k)
		return 0;
	fit->mean_sim = ssim / k;
	if (k < 2)
		return k;
	vx = sxx - sx * sx / k;
	vy = syy - sy * sy / k;
	cxy = sxy - sx * sy / k;
	if (vx <= 0) {
		fit->offset = sy / k;
		return k;
	}
	fit->slope = cxy / vx;
	fit->offset = (sy - fit->slope * sx) / k;
	fit->r2 = vy > 0 ? (cxy * cxy) / (vx * vy) : 1;
	if (fit->r2 > 1)
		fit->r2 = 1;
	return k;
}

int chunksketch_align(const struct chunksketch_set *a, const struct chunksketch_set *b,
		  double min_sim, struct chunksketch_fit *fit)
{
	struct chunksketch_pair *pairs = NULL;
	uint8_t *hit = NULL, *drop = NULL;
	uint32_t i, n = 0, na = 0, nb = 0;
	int ret = 0;

	memset(fit, 0, sizeof(*fit));
	if (!a->n || !b->n)
		return 0;
	pairs = malloc((size_t)a->n * sizeof(*pairs));
	drop = calloc(a->n, 1);
	hit = calloc(b->n, 1);	/* b's chunks in a kept pair */
	if (!pairs || !drop || !hit) {
		ret = -ENOMEM;
		goto out;
	}
	chunksketch_match(a, b, min_sim, pairs, &n);
	if (n) {
		/* chains: count and last pair of each; a pair joins the longest
		 * chain it fits, or starts one */
		uint32_t nseg = 0, best = 0, *cnt = NULL, *last = NULL, *seg = NULL;

		cnt = malloc((size_t)n * sizeof(*cnt));
		last = malloc((size_t)n * sizeof(*last));
		seg = malloc((size_t)n * sizeof(*seg));
		if (!cnt || !last || !seg) {
			free(cnt);
			free(last);
			free(seg);
			ret = -ENOMEM;
			goto out;
		}
		for (i = 0; i < n; i++) {
			double ai = a->c[pairs[i].a].first, bi = b->c[pairs[i].b].first;
			uint32_t k, join = nseg;

			for (k = 0; k < nseg; k++) {
				double da = ai - a->c[pairs[last[k]].a].first;
				double db = bi - b->c[pairs[last[k]].b].first;

				if (fabs(db - da) <= CHUNKSKETCH_OUTLIER + da / 2 &&
				    (join == nseg || cnt[k] > cnt[join]))
					join = k;
			}
			if (join == nseg)
				cnt[nseg++] = 0;
			cnt[join]++;
			last[join] = i;
			seg[i] = join;
			if (cnt[join] > cnt[best])
				best = join;
		}
		for (i = 0; i < n; i++) {
			drop[i] = seg[i] != best;
			fit->outliers += drop[i];
		}
		free(cnt);
		free(last);
		free(seg);
	}
	fit_line(a, b, pairs, drop, n, fit);
	for (i = 0; i < n; i++) {
		if (drop[i])
			continue;
		na++;
		if (!hit[pairs[i].b]) {
			hit[pairs[i].b] = 1;
			nb++;
		}
	}
	fit->pairs = na;
	fit->a_matched = (double)na / a->n;
	fit->b_matched = (double)nb / b->n;
out:
	free(pairs);
	free(drop);
	free(hit);
	return ret;
}
