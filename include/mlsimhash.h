/* mlsimhash.h - S3: shingle-based multi-lexicon simhash (ALGORITHMS.md §3).
 *
 * Definition (stored bits):
 *  - features: word 2-shingles (each pair of consecutive words, every
 *    occurrence counted); a one-word text has one feature, that word.
 *    Shingle hash s = XXH3_64bits_withSeed({w1, w2} as two little-endian
 *    uint64 word hashes (wordhash.h), 16 bytes, MLSIMHASH_SEED); for a one-word
 *    text, the same over its word hash alone (8 bytes).
 *  - lexicon i (0..MLSIMHASH_LEXICONS-1) holds the shingles whose bit i of
 *    mix(s) is 1 (mix: splitmix64 finaliser), i.e. an independent random
 *    half of all shingles: a random lexicon, fixed by the seed, the same in
 *    every library.
 *  - fingerprint i: 64-bit simhash over lexicon i, bit j from bit j of s
 *    (counter > 0 gives 1).
 *  - weighting: the paper weights a shingle by its words' IDF, which needs a
 *    global collection; a distributed library has none, so every
 *    occurrence weighs 1 (term frequency), as in S1.  Frequent pairs of
 *    function words ("of the") weigh much in every lexicon; what the
 *    lexicons add is several independent samples of the text, so that a
 *    copy damaged in one sample can still match in another (the best
 *    same-lexicon pair decides).
 */
#ifndef MLSIMHASH_H
#define MLSIMHASH_H

#include <stddef.h>
#include <stdint.h>

#define MLSIMHASH_SEED UINT64_C(0x53335f6d756c7469)
#define MLSIMHASH_LEXICONS 5

struct mlsimhash_value {
	uint64_t fp[MLSIMHASH_LEXICONS];
};

struct mlsh;	/* opaque streaming state */

struct mlsh *mlsimhash_new(void);	/* NULL on -ENOMEM */
void mlsimhash_free(struct mlsh *ml);
void mlsimhash_reset(struct mlsh *ml);
/* Normalised bytes, split anywhere.  0 or -ENOMEM. */
int mlsimhash_update(struct mlsh *ml, const void *buf, size_t len);
/* Alternative to mlsimhash_update: one word hash (wordhash.h) at a time, in text
 * order; do not mix the two on one text. */
void mlsimhash_add_word(struct mlsh *ml, uint64_t word_hash);
/* Value of the text fed since the last reset; resets ml. */
void mlsimhash_final(struct mlsh *ml, struct mlsimhash_value *out);
int mlsimhash_compute(const void *text, size_t len, struct mlsimhash_value *out);

/* Smallest Hamming distance over same-lexicon pairs, 0..64; *which (if not
 * NULL) receives the lexicon reaching it.  Two books match at threshold t
 * if the result is <= t. */
unsigned mlsimhash_distance(const struct mlsimhash_value *a, const struct mlsimhash_value *b, unsigned *which);

#endif
