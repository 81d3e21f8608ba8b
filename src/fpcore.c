/* fpcore.c - the bit-sliced counter of fpcore_i.h, with an AVX2 build of
 * its inner block chosen at run time and a portable one elsewhere. */
#include <string.h>

#include "fpcore_i.h"

int fpc_portable;

typedef uint64_t fpc_v4 __attribute__((vector_size(32)));

#define CSA(h, l, a, b, c) do { \
	__typeof__(a) csa_a = (a), csa_b = (b), csa_c = (c); \
	__typeof__(a) csa_u = csa_a ^ csa_b; \
	(h) = (csa_a & csa_b) | (csa_u & csa_c); \
	(l) = csa_u ^ csa_c; \
} while (0)

/* Reduces 16 inputs per group of STEP words (a 4-word vector):
 * ones..eights are the running carry-save planes, sixteens goes into the
 * rippling planes. */
#define BLOCK_BODY(T, STEP) do { \
	unsigned w_, i_; \
	for (w_ = 0; w_ < bc->nw; w_ += (STEP)) { \
		T in_[16], ones_, twos_, fours_, eights_, sixteens_; \
		T twosA_, twosB_, foursA_, foursB_, eightsA_, eightsB_, x_, c_; \
		for (i_ = 0; i_ < 16; i_++) \
			memcpy(&in_[i_], &bc->buf[i_][w_], sizeof(T)); \
		memcpy(&ones_, &bc->ones[w_], sizeof(T)); \
		memcpy(&twos_, &bc->twos[w_], sizeof(T)); \
		memcpy(&fours_, &bc->fours[w_], sizeof(T)); \
		memcpy(&eights_, &bc->eights[w_], sizeof(T)); \
		CSA(twosA_, ones_, ones_, in_[0], in_[1]); \
		CSA(twosB_, ones_, ones_, in_[2], in_[3]); \
		CSA(foursA_, twos_, twos_, twosA_, twosB_); \
		CSA(twosA_, ones_, ones_, in_[4], in_[5]); \
		CSA(twosB_, ones_, ones_, in_[6], in_[7]); \
		CSA(foursB_, twos_, twos_, twosA_, twosB_); \
		CSA(eightsA_, fours_, fours_, foursA_, foursB_); \
		CSA(twosA_, ones_, ones_, in_[8], in_[9]); \
		CSA(twosB_, ones_, ones_, in_[10], in_[11]); \
		CSA(foursA_, twos_, twos_, twosA_, twosB_); \
		CSA(twosA_, ones_, ones_, in_[12], in_[13]); \
		CSA(twosB_, ones_, ones_, in_[14], in_[15]); \
		CSA(foursB_, twos_, twos_, twosA_, twosB_); \
		CSA(eightsB_, fours_, fours_, foursA_, foursB_); \
		CSA(sixteens_, eights_, eights_, eightsA_, eightsB_); \
		memcpy(&bc->ones[w_], &ones_, sizeof(T)); \
		memcpy(&bc->twos[w_], &twos_, sizeof(T)); \
		memcpy(&bc->fours[w_], &fours_, sizeof(T)); \
		memcpy(&bc->eights[w_], &eights_, sizeof(T)); \
		x_ = sixteens_; \
		for (i_ = 0; i_ < FPC_PLANES; i_++) { \
			T p_; \
			memcpy(&p_, &bc->plane[i_][w_], sizeof(T)); \
			c_ = p_ & x_; \
			p_ ^= x_; \
			memcpy(&bc->plane[i_][w_], &p_, sizeof(T)); \
			x_ = c_; \
		} \
	} \
} while (0)

static void block_v4_generic(struct fpc_bitctr *bc)
{
	BLOCK_BODY(fpc_v4, 4);
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2")))
static void block_v4_avx2(struct fpc_bitctr *bc)
{
	BLOCK_BODY(fpc_v4, 4);
}
#endif

void fpc_bitctr_init(struct fpc_bitctr *bc, unsigned nw)
{
	memset(bc, 0, sizeof(*bc));
	bc->nw = nw;
}

/* Adds the plane counts (times 16) into count[] and clears the planes. */
static void flush_planes(struct fpc_bitctr *bc)
{
	unsigned i, b;

	for (i = 0; i < FPC_PLANES; i++) {
		for (b = 0; b < bc->nw * 64; b++)
			bc->count[b] += ((bc->plane[i][b / 64] >> (b % 64)) & 1) << (i + 4);
		memset(bc->plane[i], 0, sizeof(bc->plane[i]));
	}
	bc->nblocks = 0;
}

void fpc_bitctr_block(struct fpc_bitctr *bc)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (fpc_avx2())
		block_v4_avx2(bc);
	else
#endif
		block_v4_generic(bc);
	bc->nbuf = 0;
	if (++bc->nblocks == (UINT32_C(1) << FPC_PLANES) - 1)
		flush_planes(bc);
}

void fpc_bitctr_counts(const struct fpc_bitctr *bc, uint64_t *counts)
{
	unsigned b, i, w, s;

	for (b = 0; b < bc->nw * 64; b++) {
		uint64_t c = bc->count[b];

		w = b / 64;
		s = b % 64;
		for (i = 0; i < FPC_PLANES; i++)
			c += ((bc->plane[i][w] >> s) & 1) << (i + 4);
		c += ((bc->eights[w] >> s) & 1) << 3;
		c += ((bc->fours[w] >> s) & 1) << 2;
		c += ((bc->twos[w] >> s) & 1) << 1;
		c += (bc->ones[w] >> s) & 1;
		for (i = 0; i < bc->nbuf; i++)
			c += (bc->buf[i][w] >> s) & 1;
		counts[b] = c;
	}
}
