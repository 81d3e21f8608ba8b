/* minhash.h - S2/S4: min-hash of word 5-shingles (ALGORITHMS.md §2, §4).
 *
 * Definition (stored bits):
 *  - shingle hash: XXH3_64bits_withSeed(the 5 word hashes (wordhash.h) as
 *    little-endian uint64, 40 bytes, MINHASH_SEED).  A text of 1 to 4 words
 *    has one shingle of all its words; the empty text has none.
 *  - signature (one-permutation hashing): bin = top 7 bits of the shingle
 *    hash (MINHASH_K = 128 bins), value = the low 57 bits; each bin keeps
 *    its smallest value.  Empty bins are filled by optimal densification:
 *    for empty bin i, attempts t = 1, 2, ... probe bin
 *    mix((i * 2^32 + t) XOR MINHASH_SEED) mod 128 (mix: splitmix64 finaliser)
 *    and copy the value of the first bin that was non-empty before
 *    densification (after 4096 failed attempts, the next non-empty bin
 *    upwards, cyclically, so the fill always ends).  No shingle: every
 *    value is MINHASH_EMPTY.
 *  - classic scheme (for comparison in benchmarks and the accuracy
 *    harness, not stored): value i = min over shingles of
 *    mix(shingle hash ^ seed_i), seed_i = mix(MINHASH_SEED + i + 1).
 * Both give a struct minhash_sig, compared with the same functions; the
 * fraction of equal values estimates the Jaccard similarity of the two
 * books' shingle sets.
 */
#ifndef MINHASH_H
#define MINHASH_H

#include <stddef.h>
#include <stdint.h>

#define MINHASH_SEED UINT64_C(0x53325f6d696e6835)
#define MINHASH_K 128
#define MINHASH_SHINGLE 5
#define MINHASH_EMPTY UINT64_MAX

struct minhash_sig {
	uint64_t v[MINHASH_K];
	uint64_t nshingles;	/* shingle occurrences seen (not distinct) */
};

enum minhash_scheme {
	MINHASH_OPH,		/* one-permutation hashing + optimal densification */
	MINHASH_CLASSIC,	/* MINHASH_K independent hash functions (slow) */
};

struct minhash;	/* opaque streaming state */

struct minhash *minhash_new(enum minhash_scheme scheme);	/* NULL on -ENOMEM */
void minhash_free(struct minhash *mh);
void minhash_reset(struct minhash *mh);
/* Normalised bytes, split anywhere.  0 or -ENOMEM. */
int minhash_update(struct minhash *mh, const void *buf, size_t len);
/* Alternative to minhash_update: one word hash at a time, in text order. */
void minhash_add_word(struct minhash *mh, uint64_t word_hash);
/* As minhash_add_word, given the hash of the shingle that ends with this
 * word (minhash_shingle() of the last MINHASH_SHINGLE words; ignored for a
 * text's first MINHASH_SHINGLE - 1 words), so that one pass computes it
 * once for several consumers (fp.h). */
void minhash_add_word_sh(struct minhash *mh, uint64_t word_hash, uint64_t shingle);
/* Signature of the text fed since the last reset; resets mh. */
void minhash_final(struct minhash *mh, struct minhash_sig *out);
int minhash_compute(enum minhash_scheme scheme, const void *text, size_t len,
		    struct minhash_sig *out);

/* Broder's B-similarity: the number of equal values, 0..MINHASH_K (values
 * that are MINHASH_EMPTY on both sides do not count). */
unsigned minhash_bsim(const struct minhash_sig *a, const struct minhash_sig *b);
/* Jaccard estimate, bsim / MINHASH_K, 0..1. */
double minhash_jaccard(const struct minhash_sig *a, const struct minhash_sig *b);
/* The shingle hash of n (1..MINHASH_SHINGLE) word hashes. */
uint64_t minhash_shingle(const uint64_t *words, unsigned n);
/* Optimal densification of k <= MINHASH_K bins (empty: value == empty), as
 * defined above (mod k instead of mod 128); used by chunksketch.h too.  A
 * larger k leaves the bins as they are. */
void minhash_densify(uint64_t *bins, unsigned k, uint64_t empty);

/* LSH band keys: key i (0..nbands-1) = XXH3_64bits_withSeed(values
 * [i*rows, (i+1)*rows) as big-endian uint64, MINHASH_SEED + i), so equal
 * rows in different bands never collide.  Needs nbands * rows <= MINHASH_K;
 * returns 0 or -EINVAL.  Two books with Jaccard J share a band with
 * probability 1 - (1 - J^rows)^nbands. */
int minhash_bands(const struct minhash_sig *sig, unsigned nbands, unsigned rows, uint64_t *keys);

#endif
