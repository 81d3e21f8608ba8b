/* anchorshare.h - the share of one book's text found in another, from the
 * shingle anchors of fp.h.
 *
 * The anchors are a fixed 1-in-2^FP_ANCHOR_BITS sample of a book's word
 * 5-shingles (a function of the shingle alone), so the fraction of A's
 * anchors that are anchors of B estimates the fraction of A's 5-shingles
 * that occur in B: the 5-gram containment that RELATIONS.tsv measures.
 * Books with more than FP_ANCHORS_MAX anchors keep the smallest ones; the
 * comparison is then made below the smaller of the two sets' largest kept
 * values, where both samples are complete (bottom-k containment).
 *
 * The index stores the anchors with their top bit replaced by IDX_UQ_HI
 * (bookrec.h), so the values are compared on their low 31 bits here too,
 * in every caller: the harness and the views list the same share.  For a
 * book whose anchors were capped with kept values past 2^31 (roughly
 * 260k-520k words) the folding makes the share of a smaller book found in
 * it read low by up to the fraction of that book's anchors past the cap.
 */
#ifndef ANCHORSHARE_H
#define ANCHORSHARE_H

#include <stdint.h>

/* Fewer comparable anchors than this on a side: its share is not
 * estimated (-1): a book of under ~1000 words. */
#define ANCHORSHARE_MIN 8

/* Every anchor of a side found shows its text whole (share 1) only with
 * at least this many: then a missing 1% would leave a found anchor missing
 * with probability 1 - 0.99^400 = 98%.  Fewer: the share stays under 1. */
#define ANCHORSHARE_WHOLE 400

/* Shares of a's anchors found in b (*share_a) and of b's found in a
 * (*share_b), 0..1, or -1 where a side has fewer than ANCHORSHARE_MIN
 * comparable anchors.  a and b: na and nb anchors in any order, as fp_book
 * or the index holds them (top bit ignored); capped says, per side, that
 * the set was cut at FP_ANCHORS_MAX.  0 or -ENOMEM (shares -1). */
int anchorshare(const uint32_t *a, uint32_t na, int capped_a, const uint32_t *b, uint32_t nb,
		int capped_b, double *share_a, double *share_b);

#endif
