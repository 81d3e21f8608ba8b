/* chunksketch.h - per-chunk min-hash sketches and chunk alignment
 * (ALGORITHMS.md §2: the "pages" of a book).
 *
 * Two chunkings of one book are sketched at once:
 *  - spine chunks: the chunks of the input (EPUB spine items, struct
 *    norm_doc chunk_word[]), marked with chunksketch_break();
 *  - windows: fixed windows of CHUNKSKETCH_WINDOW words (the last one shorter),
 *    independent of the file format, so an EPUB and its TXT align.
 * Sketch of a chunk (stored): the word 5-shingles starting in the chunk
 * (shingle hash as in minhash.h; a chunk's last shingles read the next
 * chunk's first words; a book of 1-4 words has one shingle), one-permutation
 * hashing into CHUNKSKETCH_K bins by the top 4 bits, value = bits 59..28 of the
 * shingle hash (32 bits), smallest per bin, densified as in minhash.h
 * (attempt t probes mix((i * 2^32 + t) XOR MINHASH_SEED) mod CHUNKSKETCH_K); a chunk
 * with no shingle has every value UINT32_MAX.
 */
#ifndef CHUNKSKETCH_H
#define CHUNKSKETCH_H

#include <stddef.h>
#include <stdint.h>

#define CHUNKSKETCH_K 16
#define CHUNKSKETCH_WINDOW 2000

struct chunksketch_chunk {
	uint32_t first;		/* word index of the chunk's first word */
	uint32_t nwords;
	uint32_t v[CHUNKSKETCH_K];
};

struct chunksketch_set {
	uint32_t n;
	struct chunksketch_chunk *c;	/* n chunks in text order, owned */
};

struct chunksketch_book {
	struct chunksketch_set spine;	/* spine chunks (1 when the input has none) */
	struct chunksketch_set win;		/* CHUNKSKETCH_WINDOW-word windows */
	uint32_t nwords;
};

void chunksketch_book_init(struct chunksketch_book *b);	/* empty, allocates nothing */
void chunksketch_book_release(struct chunksketch_book *b);
int chunksketch_book_copy(struct chunksketch_book *dst, const struct chunksketch_book *src);

struct chunksketch;	/* opaque builder */

struct chunksketch *chunksketch_new(void);	/* NULL on -ENOMEM */
void chunksketch_free(struct chunksketch *ck);
void chunksketch_reset(struct chunksketch *ck);
/* Normalised bytes, split anywhere (only between words may a spine break
 * fall).  0 or -ENOMEM. */
int chunksketch_update(struct chunksketch *ck, const void *buf, size_t len);
/* Alternative to chunksketch_update: one word hash at a time, in text order. */
int chunksketch_add_word(struct chunksketch *ck, uint64_t word_hash);
/* As chunksketch_add_word, given the shingle hash as for minhash_add_word_sh(). */
int chunksketch_add_word_sh(struct chunksketch *ck, uint64_t word_hash, uint64_t shingle);
/* The next word starts a new spine chunk (ignored before the first word
 * and when repeated without words in between). */
void chunksketch_break(struct chunksketch *ck);
/* Moves the sketches of the text fed since the last reset into out
 * (initialised, released first) and resets ck.  0 or -ENOMEM. */
int chunksketch_final(struct chunksketch *ck, struct chunksketch_book *out);

/* Similarity of two chunk sketches: equal values / CHUNKSKETCH_K, 0..1. */
double chunksketch_sim(const struct chunksketch_chunk *a, const struct chunksketch_chunk *b);

/* A matched chunk pair: indices into the two sets. */
struct chunksketch_pair {
	uint32_t a, b;
	double sim;
};

/* Matches each chunk of a with b's most similar chunk (first one on ties)
 * when their similarity is >= min_sim (and > 0).  pairs must have room for
 * a->n entries; *npairs receives how many were found, in a's order. */
void chunksketch_match(const struct chunksketch_set *a, const struct chunksketch_set *b,
		   double min_sim, struct chunksketch_pair *pairs, uint32_t *npairs);

struct chunksketch_fit {
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
	 * pair lies no more than CHUNKSKETCH_OUTLIER words plus half the a-step
	 * off the diagonal step from it; only the longest chain is fitted (a
	 * shared preface or licence text matching at the far end of the
	 * other book would otherwise tilt the line). */
	double slope, offset;
	double r2;		/* coefficient of determination, 0..1 */
	double mean_sim;	/* mean similarity of the matched pairs */
};

/* Aligns a's chunks with b's: chunksketch_match(), then the line is fitted
 * over the pairs.  CHUNKSKETCH_MIN_SIM, a sensible min_sim, asks for 2 equal
 * values of 16: one can come by chance from a common phrase whose shingle
 * is the minimum of its bin in two unrelated chunks, two rarely; and 5%
 * OCR-like errors still leave most chunks of a copy matched (with 4 of 16,
 * only a sixth of them were). */
#define CHUNKSKETCH_MIN_SIM 0.125
#define CHUNKSKETCH_OUTLIER CHUNKSKETCH_WINDOW
/* Returns 0 or -ENOMEM (fit is then zero). */
int chunksketch_align(const struct chunksketch_set *a, const struct chunksketch_set *b,
		   double min_sim, struct chunksketch_fit *fit);

#endif
