/* mlsimhash.c - S3: multi-lexicon simhash over word 2-shingles
 * (mlsimhash.h). */
#include <errno.h>
#include <stdlib.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "fpcore_i.h"
#include "mlsimhash.h"
#include "wordhash.h"

/* All lexicons share one 8-word counter: word i of each input is the
 * shingle hash when the shingle belongs to lexicon i and 0 otherwise, so a
 * lexicon only counts its own shingles (members[i] of them). */
_Static_assert(MLSIMHASH_LEXICONS <= FPC_MAXW, "one counter word per lexicon");

struct mlsh {
	struct wordhash wh;
	uint64_t prev;
	uint64_t nwords;
	uint64_t members[MLSIMHASH_LEXICONS];
	struct fpc_bitctr bc;
};

struct mlsh *mlsimhash_new(void)
{
	struct mlsh *ml = malloc(sizeof(*ml));

	if (!ml)
		return NULL;
	wordhash_init(&ml->wh);
	mlsimhash_reset(ml);
	return ml;
}

void mlsimhash_free(struct mlsh *ml)
{
	if (!ml)
		return;
	wordhash_release(&ml->wh);
	free(ml);
}

void mlsimhash_reset(struct mlsh *ml)
{
	unsigned i;

	sbuf_setlen(&ml->wh.part, 0);
	ml->wh.nwords = 0;
	ml->prev = 0;
	ml->nwords = 0;
	for (i = 0; i < MLSIMHASH_LEXICONS; i++)
		ml->members[i] = 0;
	fpc_bitctr_init(&ml->bc, FPC_MAXW);
}

static inline void add_shingle(struct mlsh *ml, uint64_t s)
{
	uint64_t m = fpc_mix(s), *slot = fpc_bitctr_slot(&ml->bc);
	unsigned i;

	/* no branch on the random membership bits */
	for (i = 0; i < MLSIMHASH_LEXICONS; i++) {
		uint64_t in = (m >> i) & 1;

		slot[i] = s & (0 - in);
		ml->members[i] += in;
	}
	for (; i < FPC_MAXW; i++)
		slot[i] = 0;
	fpc_bitctr_commit(&ml->bc);
}

void mlsimhash_add_word(struct mlsh *ml, uint64_t word_hash)
{
	if (ml->nwords++ > 0) {
		uint8_t b[16];

		fpc_put_le64(b, ml->prev);
		fpc_put_le64(b + 8, word_hash);
		add_shingle(ml, XXH3_64bits_withSeed(b, 16, MLSIMHASH_SEED));
	}
	ml->prev = word_hash;
}

static void word_cb(void *ctx, uint64_t h, uint32_t idx)
{
	(void)idx;
	mlsimhash_add_word(ctx, h);
}

int mlsimhash_update(struct mlsh *ml, const void *buf, size_t len)
{
	return wordhash_update(&ml->wh, buf, len, word_cb, ml);
}

void mlsimhash_final(struct mlsh *ml, struct mlsimhash_value *out)
{
	uint64_t counts[64 * FPC_MAXW];
	unsigned i, j;

	wordhash_final(&ml->wh, word_cb, ml);
	if (ml->nwords == 1) {
		uint8_t b[8];

		fpc_put_le64(b, ml->prev);
		add_shingle(ml, XXH3_64bits_withSeed(b, 8, MLSIMHASH_SEED));
	}
	fpc_bitctr_counts(&ml->bc, counts);
	for (i = 0; i < MLSIMHASH_LEXICONS; i++) {
		out->fp[i] = 0;
		for (j = 0; j < 64; j++)
			if (2 * counts[64 * i + j] > ml->members[i])
				out->fp[i] |= UINT64_C(1) << j;
	}
	mlsimhash_reset(ml);
}

int mlsimhash_compute(const void *text, size_t len, struct mlsimhash_value *out)
{
	struct mlsh *ml = mlsimhash_new();
	int ret;

	if (!ml)
		return -ENOMEM;
	ret = mlsimhash_update(ml, text, len);
	mlsimhash_final(ml, out);
	mlsimhash_free(ml);
	return ret;
}

unsigned mlsimhash_distance(const struct mlsimhash_value *a, const struct mlsimhash_value *b, unsigned *which)
{
	unsigned i, d, best = 65, at = 0;

	for (i = 0; i < MLSIMHASH_LEXICONS; i++) {
		d = (unsigned)fpc_popcount64(a->fp[i] ^ b->fp[i]);
		if (d < best) {
			best = d;
			at = i;
		}
	}
	if (which)
		*which = at;
	return best;
}
