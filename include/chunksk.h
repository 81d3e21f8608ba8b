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
 * (attempt probe mix(i * 2^32 + t ^ MINHASH_SEED) mod CHUNKSK_K); a chunk
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

struct chunksk_fit {
	uint32_t pairs;		/* matched chunk pairs used for the fit */
	double a_matched;	/* fraction of a's chunks with a match, 0..1 */
	double b_matched;	/* fraction of b's chunks with a match, 0..1 */
	/* Least-squares line p_b = slope * p_a + offset over the matched
	 * pairs' first-word indices (words).  slope 1, offset 0: same
	 * layout; offset far from 0 or matched fractions far from 1: one
	 * book is a part of the other.  slope 0, offset 0 when pairs < 2
	 * (or all matched a chunks start at the same word: then offset is
	 * the mean b position). */
	double slope, offset;
	double r2;		/* coefficient of determination, 0..1 */
	double mean_sim;	/* mean similarity of the matched pairs */
};

/* Aligns a's chunks with b's: each chunk of a is matched with b's most
 * similar chunk (first one on ties) if their similarity is >= min_sim
 * (CHUNKSK_MIN_SIM is a sensible default), then the line is fitted. */
#define CHUNKSK_MIN_SIM 0.25
/* Returns 0 or -ENOMEM (fit is then zero). */
int chunksk_align(const struct chunksk_set *a, const struct chunksk_set *b,
		   double min_sim, struct chunksk_fit *fit);

#endif
