/* dupniq.h - S5: DUPNIQ, the ordered sequence of words occurring once
 * (ALGORITHMS.md §5).
 *
 * Definition (stored):
 *  - the words of the text (wordhash.h) that occur exactly once, in text
 *    order; each entry holds the top 32 bits of its word hash and its word
 *    index in the book (0-based), so aligned spans can be reported.
 *  - entries whose 32-bit hash equals another entry's are dropped (both),
 *    so every hash occurs at most once per sequence, which the LIS needs.
 *    (Two words whose 64-bit hashes differ in bit 0 only count as one word:
 *    the table uses that bit as a flag; a 2^-63 event.)
 * Comparison: the LCS of two sequences only uses words present in both,
 * each once per side, so it is the longest increasing subsequence of the
 * other side's indices taken in this side's order, O(n log n).
 */
#ifndef DUPNIQ_H
#define DUPNIQ_H

#include <stddef.h>
#include <stdint.h>

struct dupniq_seq {
	uint32_t n;		/* entries */
	uint32_t *hash;		/* n word hashes (top 32 bits), owned */
	uint32_t *pos;		/* n word indices, strictly ascending, owned */
	uint32_t nwords;	/* words in the whole text */
};

/* Empty sequence, allocates nothing. */
void dupniq_seq_init(struct dupniq_seq *s);
/* Frees the arrays; s is empty again. */
void dupniq_seq_release(struct dupniq_seq *s);
/* Deep copy into an initialised dst (released first).  0 or -ENOMEM. */
int dupniq_seq_copy(struct dupniq_seq *dst, const struct dupniq_seq *src);

/* A lookup table over a sequence's word hashes (hash -> entry index), so
 * comparing one sequence with another costs O(n) instead of a sort. */
struct dupniq_lookup {
	uint32_t *key;		/* word hash per slot */
	uint32_t *idx;		/* entry index + 1 per slot; 0 = empty */
	uint32_t mask;		/* slots - 1 */
};
/* Builds the table of s (t need not be initialised).  0 or -ENOMEM. */
int dupniq_lookup_init(struct dupniq_lookup *t, const struct dupniq_seq *s);
/* The index in s of the entry with hash h (the first one, should a hostile
 * sequence repeat a hash), or -1. */
long dupniq_lookup_find(const struct dupniq_lookup *t, uint32_t h);
void dupniq_lookup_release(struct dupniq_lookup *t);

struct dupniq;	/* opaque builder */

struct dupniq *dupniq_new(void);	/* NULL on -ENOMEM */
void dupniq_free(struct dupniq *dq);
void dupniq_reset(struct dupniq *dq);
/* Normalised bytes, split anywhere.  0 or -ENOMEM. */
int dupniq_update(struct dupniq *dq, const void *buf, size_t len);
/* Alternative to dupniq_update: one word hash at a time, in text order.
 * 0 or -ENOMEM. */
int dupniq_add_word(struct dupniq *dq, uint64_t word_hash);
/* Moves the sequence of the text fed since the last reset into out (an
 * initialised sequence, released first) and resets dq.  0 or -ENOMEM (after
 * an earlier -ENOMEM from this text too). */
int dupniq_final(struct dupniq *dq, struct dupniq_seq *out);
int dupniq_compute(const void *text, size_t len, struct dupniq_seq *out);

struct dupniq_result {
	uint32_t common;	/* words in both sequences */
	uint32_t lcs;		/* |LCS|, 0 when pruned */
	int pruned;		/* 1: common < min_lcs, LCS not computed */
	double cs;		/* |LCS| / sqrt(|X| |Y|), 0..1 */
	double its;		/* log|LCS| / log(|X| + |Y| - |LCS|), 0..1;
				 * 0 when |LCS| < 2 */
	/* Aligned span on each side: word indices of the first and last LCS
	 * words (0 when lcs == 0) and the fraction of that book's words inside
	 * the span, 0..1. */
	uint32_t a_first, a_last, b_first, b_last;
	double a_cover, b_cover;
	/* Words inside aligned stretches: the sum of the gaps between
	 * consecutive LCS words where both gaps are at most DUPNIQ_GAP words
	 * and about equal (|ga - gb| <= (ga + gb) / 8 + 3: the same text lies
	 * between them), as a fraction of that book's words, 0..1.  Unlike
	 * the span, stray matches far from the rest (a shared preface,
	 * licence or index) and chance matches between unrelated books add
	 * little. */
	double a_covered, b_covered;
};

#define DUPNIQ_GAP 500

/* Compares x with y.  When the number of common words is below min_lcs
 * (0: never prune) the LCS cannot reach it: only common is filled and
 * pruned is set.  0 or -ENOMEM. */
int dupniq_compare(const struct dupniq_seq *x, const struct dupniq_seq *y,
		   uint32_t min_lcs, struct dupniq_result *res);

/* The LCS of x and y itself, as dupniq_compare() finds it: the words of x
 * found in y, in x's order, and the longest chain of them in y's order too,
 * so that a caller that also needs the chain (align.h) finds it once. */
struct dupniq_lcs {
	uint32_t *xi, *yi;	/* m common words: index in x, index in y */
	uint32_t *chain;	/* len indices into xi/yi, ascending in both */
	uint32_t m, len;
	int pruned;		/* 1: m < min_lcs, chain not computed (len 0) */
};

void dupniq_lcs_init(struct dupniq_lcs *l);	/* empty, allocates nothing */
void dupniq_lcs_release(struct dupniq_lcs *l);
/* Fills l (initialised; released first) for x against y; the chain is
 * skipped when fewer than min_lcs words are common (0: never).  0 or
 * -ENOMEM (l is then empty). */
int dupniq_lcs_find(const struct dupniq_seq *x, const struct dupniq_seq *y, uint32_t min_lcs,
		    struct dupniq_lcs *l);
/* dupniq_compare(x, y, min_lcs, res) from l = dupniq_lcs_find(x, y,
 * min_lcs); the same scores. */
void dupniq_compare_lcs(const struct dupniq_seq *x, const struct dupniq_seq *y,
			const struct dupniq_lcs *l, struct dupniq_result *res);
/* Smallest |LCS| with which either cs >= cs_min or its >= its_min can hold
 * for sequence lengths nx, ny (the pruning bound); pass a threshold <= 0 to
 * ignore that score. */
uint32_t dupniq_lcs_lower_bound(uint32_t nx, uint32_t ny, double cs_min, double its_min);

/* Pruning keys for an index (DUPNIQ's pruning as a candidate source): the
 * hashes of the sequence's words whose hash falls in a fixed 1 in
 * DUPNIQ_KEY_SAMPLE sample (a function of the word alone, so two books
 * sample the same words and the keys they share estimate their common
 * unique words / DUPNIQ_KEY_SAMPLE), ascending, without repeats; at most
 * max of them (the smallest values: the same rule in every book).  Unlike
 * shingles, single words survive OCR errors around them; but a word unique
 * in a short text is often repeated in a long book that contains it, so
 * the index pairs these keys with shingle anchors (fp.h).  *keys is
 * malloc'd (free(); NULL when *n is 0).
 * 0 or -ENOMEM. */
#define DUPNIQ_KEY_SAMPLE 16u
#define DUPNIQ_KEYS_MAX 2048u
int dupniq_keys(const struct dupniq_seq *s, uint32_t max, uint32_t **keys, uint32_t *n);

#endif
