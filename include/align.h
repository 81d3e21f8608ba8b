/* align.h - where two books' unique-word sequences (DUPNIQ, dupniq.h)
 * align: the LCS itself, cut into blocks.
 *
 * The DUPNIQ scores say how long the common subsequence is and the span
 * says where it starts and ends; neither tells a book whose middle was
 * replaced from one with errors scattered everywhere.  Here the LCS pairs
 * (word positions in A and in B) are walked in order; two consecutive
 * pairs belong to one block when both gaps between them are at most
 * gap_factor times the median gap between consecutive LCS words on that
 * side (never under ALIGN_MIN_GAP words, never over ALIGN_MAX_SPACINGS
 * times the book's mean spacing of unique words, counted with the smaller
 * unique-word count of the two books, so the chance matches of
 * unrelated books, far apart, make no block).  Scattered OCR damage removes
 * unique words evenly, which raises the median with the gaps, and leaves
 * the blocks whole; a replaced or missing part of the text leaves a hole
 * far wider than the median.  The cover of a book is the fraction of its
 * words inside blocks of at least ALIGN_MIN_PAIRS pairs that are dense: the
 * pairs are at least ALIGN_MIN_DENSITY of the distinctive words inside the
 * block on one side, so that a few names aligned across two books that
 * share no wording (another translation, two books of one history) never
 * "cover" the text between them.  Copies keep far more: at 10% OCR errors
 * about half of the original's distinctive words still align.
 */
#ifndef ALIGN_H
#define ALIGN_H

#include <stdint.h>

#include "dupniq.h"

#define ALIGN_GAP_FACTOR 20.0
#define ALIGN_MIN_GAP 50
#define ALIGN_MAX_SPACINGS 50.0
#define ALIGN_MIN_PAIRS 3
#define ALIGN_MIN_DENSITY 0.10

struct align_cover {
	uint32_t lcs;		/* pairs in the LCS */
	uint32_t blocks;	/* blocks of ALIGN_MIN_PAIRS or more pairs */
	double cover_a;		/* fraction of A's words inside blocks, 0..1 */
	double cover_b;		/* the same for B */
	double density;		/* pairs per distinctive word inside the
				 * blocks, on the side with fewer (0 without
				 * a block): most of them in a copy, even an
				 * OCR-damaged one; the names and numbers alone
				 * in another translation */
};

/* Aligns a with b.  gap_factor <= 0 means ALIGN_GAP_FACTOR.  Returns 0 or
 * -ENOMEM (out is then zeroed). */
int align_blocks(const struct dupniq_seq *a, const struct dupniq_seq *b, double gap_factor,
		 struct align_cover *out);
/* The same from the LCS of a against b found already (dupniq_lcs_find(a, b,
 * 0, l), as fp_compare_lcs() leaves it): compares that need both the DUPNIQ
 * scores and the blocks find the LCS once.  0 or -ENOMEM. */
int align_blocks_lcs(const struct dupniq_seq *a, const struct dupniq_seq *b,
		     const struct dupniq_lcs *l, double gap_factor, struct align_cover *out);

#endif
