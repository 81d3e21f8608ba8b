/* minhash.c - min-hash of word 5-shingles, one-permutation and classic
 * schemes (minhash.h). */
#include <errno.h>
#include <stdlib.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "fpcore_i.h"
#include "minhash.h"
#include "wordhash.h"

#define VALUE_BITS 57
#define DENSIFY_TRIES 4096

struct minhash {
	enum minhash_scheme scheme;
	struct wordhash wh;
	uint64_t last[MINHASH_SHINGLE];	/* last words, ring by nwords */
	uint64_t nwords;
	uint64_t nshingles;
	uint64_t v[MINHASH_K];
	uint64_t seed[MINHASH_K];	/* classic scheme */
};

uint64_t minhash_shingle(const uint64_t *words, unsigned n)
{
	uint8_t b[8 * MINHASH_SHINGLE];
	unsigned i;

	for (i = 0; i < n; i++)
		fpc_put_le64(b + 8 * i, words[i]);
	return n == MINHASH_SHINGLE ? XXH3_64bits_withSeed(b, 8 * MINHASH_SHINGLE, MINHASH_SEED)
				    : XXH3_64bits_withSeed(b, 8 * n, MINHASH_SEED);
}

void minhash_densify(uint64_t *bins, unsigned k, uint64_t empty)
{
	uint64_t orig[MINHASH_K];
	unsigned i, j, t, any = 0;

	if (k > MINHASH_K)
		return;
	memcpy(orig, bins, k * sizeof(*bins));
	for (i = 0; i < k; i++)
		any |= orig[i] != empty;
	if (!any)
		return;
	for (i = 0; i < k; i++) {
		if (orig[i] != empty)
			continue;
		for (t = 1; t <= DENSIFY_TRIES; t++) {
			j = (unsigned)(fpc_mix(((uint64_t)i << 32 | t) ^ MINHASH_SEED) % k);
			if (orig[j] != empty)
				break;
		}
		if (t > DENSIFY_TRIES)
			for (j = (i + 1) % k; orig[j] == empty; j = (j + 1) % k)
				;
		bins[i] = orig[j];
	}
}

struct minhash *minhash_new(enum minhash_scheme scheme)
{
	struct minhash *mh = malloc(sizeof(*mh));
	unsigned i;

	if (!mh)
		return NULL;
	mh->scheme = scheme;
	wordhash_init(&mh->wh);
	for (i = 0; i < MINHASH_K; i++)
		mh->seed[i] = fpc_mix(MINHASH_SEED + i + 1);
	minhash_reset(mh);
	return mh;
}

void minhash_free(struct minhash *mh)
{
	if (!mh)
		return;
	wordhash_release(&mh->wh);
	free(mh);
}

void minhash_reset(struct minhash *mh)
{
	unsigned i;

	sbuf_setlen(&mh->wh.part, 0);
	mh->wh.nwords = 0;
	mh->nwords = 0;
	mh->nshingles = 0;
	for (i = 0; i < MINHASH_K; i++)
		mh->v[i] = MINHASH_EMPTY;
}

static void add_shingle(struct minhash *mh, uint64_t h)
{
	unsigned i;

	mh->nshingles++;
	if (mh->scheme == MINHASH_OPH) {
		unsigned bin = (unsigned)(h >> VALUE_BITS);
		uint64_t val = h & ((UINT64_C(1) << VALUE_BITS) - 1);

		if (val < mh->v[bin])
			mh->v[bin] = val;
		return;
	}
	for (i = 0; i < MINHASH_K; i++) {
		uint64_t x = fpc_mix(h ^ mh->seed[i]);

		if (x < mh->v[i])
			mh->v[i] = x;
	}
}

/* The last n words in text order. */
static void last_words(const struct minhash *mh, unsigned n, uint64_t *w)
{
	unsigned i;

	for (i = 0; i < n; i++)
		w[i] = mh->last[(mh->nwords - n + i) % MINHASH_SHINGLE];
}

void minhash_add_word_sh(struct minhash *mh, uint64_t word_hash, uint64_t shingle)
{
	mh->last[mh->nwords % MINHASH_SHINGLE] = word_hash;
	mh->nwords++;
	if (mh->nwords >= MINHASH_SHINGLE)
		add_shingle(mh, shingle);
}

void minhash_add_word(struct minhash *mh, uint64_t word_hash)
{
	uint64_t w[MINHASH_SHINGLE];

	mh->last[mh->nwords % MINHASH_SHINGLE] = word_hash;
	mh->nwords++;
	if (mh->nwords >= MINHASH_SHINGLE) {
		last_words(mh, MINHASH_SHINGLE, w);
		add_shingle(mh, minhash_shingle(w, MINHASH_SHINGLE));
	}
}

static void word_cb(void *ctx, uint64_t h, uint32_t idx)
{
	(void)idx;
	minhash_add_word(ctx, h);
}

int minhash_update(struct minhash *mh, const void *buf, size_t len)
{
	return wordhash_update(&mh->wh, buf, len, word_cb, mh);
}

void minhash_final(struct minhash *mh, struct minhash_sig *out)
{
	uint64_t w[MINHASH_SHINGLE];

	wordhash_final(&mh->wh, word_cb, mh);
	if (mh->nwords > 0 && mh->nwords < MINHASH_SHINGLE) {
		last_words(mh, (unsigned)mh->nwords, w);
		add_shingle(mh, minhash_shingle(w, (unsigned)mh->nwords));
	}
	memcpy(out->v, mh->v, sizeof(out->v));
	out->nshingles = mh->nshingles;
	if (mh->scheme == MINHASH_OPH)
		minhash_densify(out->v, MINHASH_K, MINHASH_EMPTY);
	minhash_reset(mh);
}

int minhash_compute(enum minhash_scheme scheme, const void *text, size_t len,
		    struct minhash_sig *out)
{
	struct minhash *mh = minhash_new(scheme);
	int ret;

	if (!mh)
		return -ENOMEM;
	ret = minhash_update(mh, text, len);
	minhash_final(mh, out);
	minhash_free(mh);
	return ret;
}

unsigned minhash_bsim(const struct minhash_sig *a, const struct minhash_sig *b)
{
	unsigned i, n = 0;

	for (i = 0; i < MINHASH_K; i++)
		n += a->v[i] == b->v[i] && a->v[i] != MINHASH_EMPTY;
	return n;
}

double minhash_jaccard(const struct minhash_sig *a, const struct minhash_sig *b)
{
	return (double)minhash_bsim(a, b) / MINHASH_K;
}

int minhash_bands(const struct minhash_sig *sig, unsigned nbands, unsigned rows, uint64_t *keys)
{
	uint8_t b[8 * MINHASH_K];
	unsigned i, r;

	if (nbands == 0 || rows == 0 || rows > MINHASH_K || nbands > MINHASH_K / rows)
		return -EINVAL;
	for (i = 0; i < nbands; i++) {
		for (r = 0; r < rows; r++) {
			uint64_t v = sig->v[i * rows + r];
			unsigned k;

			for (k = 0; k < 8; k++)
				b[8 * r + k] = (uint8_t)(v >> (56 - 8 * k));
		}
		keys[i] = XXH3_64bits_withSeed(b, 8 * rows, MINHASH_SEED + i);
	}
	return 0;
}
