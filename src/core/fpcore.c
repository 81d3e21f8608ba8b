/* fpcore.c - the bit-sliced counter of fpcore_i.h, with an AVX2 build of
 * its inner block chosen at run time and a portable one elsewhere. */
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "fpcore_i.h"

int fpc_portable;

typedef uint64_t fpc_v4 __attribute__((vector_size(32)));

#define CSA(h, l, a, b, c) do { \
	__typeof__(a) csa_a = (a), csa_b = (b), csa_c = (c); \
	__typeof__(a) csa_u = csa_a ^ csa_b; \
	(h) = (csa_a & csa_b) | (csa_u & csa_c); \
	(l) = csa_u ^ csa_c; \
} while (0)

/* Input i of the block, words w_ .. w_ + 3, read where it lies (copying
 * the inputs to the stack first costs a loop of moves). */
typedef uint64_t fpc_v4_in __attribute__((vector_size(32), aligned(8), may_alias));

#define IN(T, i) ((T)*(const fpc_v4_in *)&bc->buf[(i)][w_])

/* Reduces 16 inputs per group of STEP words (a 4-word vector):
 * ones..eights are the running carry-save planes, sixteens goes into the
 * rippling planes. */
#define BLOCK_BODY(T, STEP) do { \
	unsigned w_, i_; \
	for (w_ = 0; w_ < bc->nw; w_ += (STEP)) { \
		T ones_, twos_, fours_, eights_, sixteens_; \
		T twosA_, twosB_, foursA_, foursB_, eightsA_, eightsB_, x_, c_; \
		memcpy(&ones_, &bc->ones[w_], sizeof(T)); \
		memcpy(&twos_, &bc->twos[w_], sizeof(T)); \
		memcpy(&fours_, &bc->fours[w_], sizeof(T)); \
		memcpy(&eights_, &bc->eights[w_], sizeof(T)); \
		CSA(twosA_, ones_, ones_, IN(T, 0), IN(T, 1)); \
		CSA(twosB_, ones_, ones_, IN(T, 2), IN(T, 3)); \
		CSA(foursA_, twos_, twos_, twosA_, twosB_); \
		CSA(twosA_, ones_, ones_, IN(T, 4), IN(T, 5)); \
		CSA(twosB_, ones_, ones_, IN(T, 6), IN(T, 7)); \
		CSA(foursB_, twos_, twos_, twosA_, twosB_); \
		CSA(eightsA_, fours_, fours_, foursA_, foursB_); \
		CSA(twosA_, ones_, ones_, IN(T, 8), IN(T, 9)); \
		CSA(twosB_, ones_, ones_, IN(T, 10), IN(T, 11)); \
		CSA(foursA_, twos_, twos_, twosA_, twosB_); \
		CSA(twosA_, ones_, ones_, IN(T, 12), IN(T, 13)); \
		CSA(twosB_, ones_, ones_, IN(T, 14), IN(T, 15)); \
		CSA(foursB_, twos_, twos_, twosA_, twosB_); \
		CSA(eightsB_, fours_, fours_, foursA_, foursB_); \
		CSA(sixteens_, eights_, eights_, eightsA_, eightsB_); \
		memcpy(&bc->ones[w_], &ones_, sizeof(T)); \
		memcpy(&bc->twos[w_], &twos_, sizeof(T)); \
		memcpy(&bc->fours[w_], &fours_, sizeof(T)); \
		memcpy(&bc->eights[w_], &eights_, sizeof(T)); \
		/* ripple into the planes; the carry dies out after a few */ \
		x_ = sixteens_; \
		for (i_ = 0; i_ < FPC_PLANES; i_++) { \
			T p_; \
			memcpy(&p_, &bc->plane[i_][w_], sizeof(T)); \
			c_ = p_ & x_; \
			p_ ^= x_; \
			memcpy(&bc->plane[i_][w_], &p_, sizeof(T)); \
			x_ = c_; \
			if (ALLZERO(x_)) \
				break; \
		} \
	} \
} while (0)

static void block_v4_generic(struct fpc_bitctr *bc)
{
#define ALLZERO(x) (((x)[0] | (x)[1] | (x)[2] | (x)[3]) == 0)
	BLOCK_BODY(fpc_v4, 4);
#undef ALLZERO
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2")))
static void block_v4_avx2(struct fpc_bitctr *bc)
{
#define ALLZERO(x) _mm256_testz_si256((__m256i)(x), (__m256i)(x))
	BLOCK_BODY(fpc_v4, 4);
#undef ALLZERO
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
