/* chunksk.h - per-chunk min-hash sketches and chunk alignment
 * (ALGORITHMS.md §2: the "pages" of a book).
 *
 * Two chunkings of one book are sketched at once:
 *  - spine chunks: the chunks of the input (EPUB spine items, struct
 *    norm_doc chunk_word[]), marked with chunksk_break();
 *  - windows: fixed windows of CHUNKSK_WINDOW words (the last one shorter),
 *    independent of the file format, so an EPUB and its TXT align.
 * Sketch of a chunk (stored): the word 5-shingles starting in the chunk
 * (shingle hash as in minhash.h; a chunk's last shingles read the next
 * chunk's first words; a book of 1-4 words has one shingle), one-permutation
 * hashing into CHUNKSK_K bins by the top 4 bits, value = bits 59..28 of the
 * shingle hash (32 bits), smallest per bin, densified as in minhash.h
 * (attempt t probes mix((i * 2^32 + t) XOR MINHASH_SEED) mod CHUNKSK_K); a chunk
 * with no shingle has every value UINT32_MAX.
 */
#ifndef CHUNKSK_H
#define CHUNKSK_H

#include <stddef.h>
#include <stdint.h>

#define CHUNKSK_K 16
#define CHUNKSK_WINDOW 2000

struct chunksk_chunk {
	uint32_t first;		/* word index of the chunk's first word */
	uint32_t nwords;
	uint32_t v[CHUNKSK_K];
};

struct chunksk_set {
	uint32_t n;
	struct chunksk_chunk *c;	/* n chunks in text order, owned */
};

struct chunksk_book {
	struct chunksk_set spine;	/* spine chunks (1 when the input has none) */
	struct chunksk_set win;		/* CHUNKSK_WINDOW-word windows */
	uint32_t nwords;
};

void chunksk_book_init(struct chunksk_book *b);	/* empty, allocates nothing */
void chunksk_book_release(struct chunksk_book *b);
int chunksk_book_copy(struct chunksk_book *dst, const struct chunksk_book *src);

struct chunksk;	/* opaque builder */

struct chunksk *chunksk_new(void);	/* NULL on -ENOMEM */
void chunksk_free(struct chunksk *ck);
void chunksk_reset(struct chunksk *ck);
/* Normalised bytes, split anywhere (only between words may a spine break
 * fall).  0 or -ENOMEM. */
int chunksk_update(struct chunksk *ck, const void *buf, size_t len);
/* Alternative to chunksk_update: one word hash at a time, in text order. */
int chunksk_add_word(struct chunksk *ck, uint64_t word_hash);
/* As chunksk_add_word, given the shingle hash as for minhash_add_word_sh(). */
int chunksk_add_word_sh(struct chunksk *ck, uint64_t word_hash, uint64_t shingle);
/* The next word starts a new spine chunk (ignored before the first word
 * and when repeated without words in between). */
void chunksk_break(struct chunksk *ck);
/* Moves the sketches of the text fed since the last reset into out
 * (initialised, released first) and resets ck.  0 or -ENOMEM. */
int chunksk_final(struct chunksk *ck, struct chunksk_book *out);

/* Similarity of two chunk sketches: equal values / CHUNKSK_K, 0..1. */
double chunksk_sim(const struct chunksk_chunk *a, const struct chunksk_chunk *b);

/* A matched chunk pair: indices into the two sets. */
struct chunksk_pair {
	uint32_t a, b;
	double sim;
};

/* Matches each chunk of a with b's most similar chunk (first one on ties)
 * when their similarity is >= min_sim (and > 0).  pairs must have room for
 * a->n entries; *npairs receives how many were found, in a's order. */
void chunksk_match(const struct chunksk_set *a, const struct chunksk_set *b,
		   double min_sim, struct chunksk_pair *pairs, uint32_t *npairs);

struct chunksk_fit {
	uint32_t pairs;		/* matched chunk pairs kept for the fit */
	uint32_t outliers;	/* matched pairs dropped as off the line */
	double a_matched;	/* fraction of a's chunks in a kept pair, 0..1 */
	double b_matched;	/* fraction of b's chunks in a kept pair, 0..1 */
	/* Least-squares line p_b = slope * p_a + offset over the kept
	 * pairs' first-word indices (words).  slope 1, offset 0: same
	 * layout; offset far from 0 or matched fractions far from 1: one
	 * book is a part of the other.  slope 0, offset 0 when pairs < 2
	 * (or all kept a chunks start at the same word: then offset is the
	 * mean b position).  Outliers: the pairs are chained in a's order,
	 * a pair joining the chain (the longest one that fits) whose last
	 * pair lies no more than CHUNKSK_OUTLIER words plus half the a-step
	 * off the diagonal step from it; only the longest chain is fitted (a
	 * shared preface or licence text matching at the far end of the
	 * other book would otherwise tilt the line). */
	double slope, offset;
	double r2;		/* coefficient of determination, 0..1 */
	double mean_sim;	/* mean similarity of the matched pairs */
};

/* Aligns a's chunks with b's: chunksk_match(), then the line is fitted
 * over the pairs.  CHUNKSK_MIN_SIM, a sensible min_sim, asks for 2 equal
 * values of 16: one can come by chance from a common phrase whose shingle
 * is the minimum of its bin in two unrelated chunks, two rarely; and 5%
 * OCR-like errors still leave most chunks of a copy matched (with 4 of 16,
 * only a sixth of them were). */
#define CHUNKSK_MIN_SIM 0.125
#define CHUNKSK_OUTLIER CHUNKSK_WINDOW
/* Returns 0 or -ENOMEM (fit is then zero). */
int chunksk_align(const struct chunksk_set *a, const struct chunksk_set *b,
		   double min_sim, struct chunksk_fit *fit);

#endif
