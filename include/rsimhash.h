/* rsimhash.h - S4: robust simhash (ALGORITHMS.md §4).
 *
 * Definition (stored bits):
 *  - characters as in simhash.h; features: the windows of 12 consecutive
 *    characters that begin at a word start (the text's first character or
 *    one following a space), each occurrence counted; a text of 1 to 11
 *    characters has one feature, the whole text.  Anchoring on word starts
 *    keeps one 12-gram per word instead of one per character: six times
 *    less work, still tens of thousands of features for a book, and an
 *    error only changes the few 12-grams that reach it (those of the two
 *    or three words before it).
 *  - feature hash: h = XXH3_128bits_withSeed(window bytes, RSIMHASH_SEED),
 *    cut into four 32-bit parts q0..q3 (q0 = low 32 bits of h.low64, q1 its
 *    high 32 bits, q2, q3 likewise from h.high64), expanded to 512 bits:
 *    32-bit lane k (k = 0..15, bits 32k..32k+31) is
 *    fmix32(q[k % 4] ^ salt[k]) with murmur3's 32-bit finaliser and the
 *    salts listed in simfeat_i.h (the first hex digits of pi).
 *  - 512 counters as in simhash; the sign bit of position p is 1 iff
 *    counter p > 0; the 128 positions with the largest |counter| are kept
 *    (ties: lower position first) and marked in the 512-bit mask.
 * Bit p of a 512-bit array x[8] is (x[p / 64] >> (p % 64)) & 1.
 */
#ifndef RSIMHASH_H
#define RSIMHASH_H

#include <stddef.h>
#include <stdint.h>

#define RSIMHASH_SEED UINT64_C(0x5334726f62757374)
#define RSIMHASH_COUNTERS 512
#define RSIMHASH_KEEP 128

struct rsimhash_value {
	uint64_t mask[8];	/* the RSIMHASH_KEEP strongest positions */
	uint64_t sign[8];	/* sign bit of every one of the 512 counters */
};

struct rsimhash;	/* opaque streaming state */

struct rsimhash *rsimhash_new(void);	/* NULL on -ENOMEM */
void rsimhash_free(struct rsimhash *rs);
void rsimhash_reset(struct rsimhash *rs);
void rsimhash_update(struct rsimhash *rs, const void *buf, size_t len);
/* Value of the text fed since the last reset; resets rs. */
void rsimhash_final(struct rsimhash *rs, struct rsimhash_value *out);
int rsimhash_compute(const void *text, size_t len, struct rsimhash_value *out);

/* Asymmetric distance (the paper's): the number of positions in main's mask
 * where main's and other's signs differ, 0..128.  Only main's strong
 * positions are read, so a few changed n-grams in other cannot move it. */
unsigned rsimhash_distance_asym(const struct rsimhash_value *main,
				const struct rsimhash_value *other);
/* Symmetric variant: max(asym(a, b), asym(b, a)), 0..128. */
unsigned rsimhash_distance(const struct rsimhash_value *a, const struct rsimhash_value *b);

#endif
