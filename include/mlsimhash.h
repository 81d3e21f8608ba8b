/* mlsimhash.h - S3: shingle-based multi-lexicon simhash (ALGORITHMS.md §3).
 *
 * Definition (stored bits):
 *  - features: word 2-shingles (each pair of consecutive words, every
 *    occurrence counted); a one-word text has one feature, that word.
 *    Shingle hash s = XXH3_64bits_withSeed({w1, w2} as two little-endian
 *    uint64 word hashes (wordhash.h), 16 bytes, MLSH_SEED); for a one-word
 *    text, the same over its word hash alone (8 bytes).
 *  - lexicon i (0..MLSH_LEXICONS-1) holds the shingles whose bit i of
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

#define MLSH_SEED UINT64_C(0x53335f6d756c7469)
#define MLSH_LEXICONS 5

struct mlsh_value {
	uint64_t fp[MLSH_LEXICONS];
};

struct mlsh;	/* opaque streaming state */

struct mlsh *mlsh_new(void);	/* NULL on -ENOMEM */
void mlsh_free(struct mlsh *ml);
void mlsh_reset(struct mlsh *ml);
/* Normalised bytes, split anywhere.  0 or -ENOMEM. */
int mlsh_update(struct mlsh *ml, const void *buf, size_t len);
/* Alternative to mlsh_update: one word hash (wordhash.h) at a time, in text
 * order; do not mix the two on one text. */
void mlsh_add_word(struct mlsh *ml, uint64_t word_hash);
/* Value of the text fed since the last reset; resets ml. */
void mlsh_final(struct mlsh *ml, struct mlsh_value *out);
int mlsh_compute(const void *text, size_t len, struct mlsh_value *out);

/* Smallest Hamming distance over same-lexicon pairs, 0..64; *which (if not
 * NULL) receives the lexicon reaching it.  Two books match at threshold t
 * if the result is <= t. */
unsigned mlsh_distance(const struct mlsh_value *a, const struct mlsh_value *b, unsigned *which);

#endif
