/* relate.h - the relation class of two books, from their comparison scores.
 *
 * The classes adapt the Google Books relations (ALGORITHMS.md §2) to
 * e-books: identical file; same text in another format or markup; near
 * duplicate (with an estimate of how much differs); one book contains the
 * other (a volume inside the complete work, a story inside an anthology);
 * overlapping text; the same work in other wording (another translation:
 * names and numbers in order, no text shared); unrelated.
 *
 * relate_decide() is a pure function of the signals below, which the
 * fingerprint comparison produces (book.h fills them from two records).
 * The rule, its thresholds and where each comes from are documented at
 * relate_params_default() in relate.c and in docs/ACCURACY.md; the harness
 * (bench/accuracy.c) measures it.
 */
#ifndef RELATE_H
#define RELATE_H

#include <stdint.h>

enum relate_class {
	RELATE_UNRELATED = 0,
	RELATE_IDENTICAL_FILE,
	RELATE_SAME_TEXT,
	RELATE_NEAR_DUPLICATE,
	RELATE_A_CONTAINS_B,	/* B is a contiguous part of A */
	RELATE_B_CONTAINS_A,	/* A is a contiguous part of B */
	RELATE_OVERLAP,
	/* the same work in other wording: another translation (or language)
	 * whose names and numbers align in order but whose text is not
	 * shared; never a duplicate.  Appended: stored classes keep their
	 * values. */
	RELATE_OTHER_TRANSLATION,
	RELATE_NCLASSES
};

/* Comparison scores of books A and B.  A score that was not computed is
 * given as a negative value (or 0 for counts), and the rule does without. */
struct relate_signals {
	int same_file;		/* 1: the files' bytes are identical */
	int same_text;		/* 1: the normalised texts' hashes are equal */
	uint64_t words_a, words_b;	/* words of the normalised texts */
	int simhash_distance;	/* S1 Hamming distance 0..128 */
	int rsimhash_distance;	/* S4 symmetric robust distance 0..128 */
	int mlsimhash_distance;	/* S3 best same-lexicon distance, 0..64 */
	double jaccard;		/* S2 min-hash Jaccard estimate of 5-shingles */
	double bsim;		/* S4 Broder B-similarity as a fraction 0..1 */
	double dupniq_cs;	/* S5 |LCS| / sqrt(|X||Y|) */
	double dupniq_its;	/* S5 log|LCS| / log(|X|+|Y|-|LCS|) */
	uint32_t dupniq_common;	/* S5 distinctive words in both books */
	uint32_t dupniq_lcs;	/* S5 of them, the longest run in the same
				 * order in both (|LCS|) */
	double span_cover_a;	/* S5: fraction of A's words inside the span
				 * of the LCS (first to last aligned word) */
	double span_cover_b;	/* the same for B */
	double block_cover_a;	/* S5: fraction of A's words inside aligned
				 * blocks: runs of LCS words with no gap wider
				 * than a few dozen unique-word spacings, so a
				 * replaced or missing part leaves a hole but
				 * scattered OCR damage does not */
	double block_cover_b;	/* the same for B */
	double block_density;	/* S5: LCS pairs per distinctive word inside
				 * the blocks, on the side with fewer (align.h);
				 * 0 without a block */
	double stretch_cover_a;	/* S5 as fp computes it: words inside stretches
				 * of LCS words with equal gaps of at most
				 * DUPNIQ_GAP words (dupniq.h); not read by the
				 * rule, measured against block cover */
	double stretch_cover_b;
	double chunk_cover_a;	/* fraction of A's text windows whose sketch
				 * matches a window of B */
	double chunk_cover_b;	/* fraction of B's windows matched by A's */
	double share_a;		/* fraction of A's word 5-shingles found in B,
				 * from the anchor samples (anchorshare.h);
				 * -1 when A has too few anchors.  What the
				 * views list (judge_share()); the rule reads
				 * it to tell rewording from noise */
	double share_b;		/* the same for B in A */
	const char *lang_a;	/* A's language (lang.h: ISO 639-1), NULL or ""
				 * when unknown */
	const char *lang_b;	/* the same for B */
};

/* Books shorter than this (words) may align nothing even when related:
 * too few unique words for a block, a single text window. */
#define RELATE_SHORT_WORDS 1000

/* Thresholds of the rule (see relate.c for the meaning and the source of
 * each default). */
struct relate_params {
	int simhash_near;	/* S1 distance at or below: near duplicate */
	int rsimhash_near;	/* S4 distance at or below: near duplicate */
	double its_min;		/* S5 its at or above: related */
	double cs_min;		/* S5 cs at or above: related */
	double jaccard_min;	/* S2 Jaccard at or above: related */
	double cover_min;	/* less aligned than this on both sides: unrelated */
	double cover_whole;	/* aligned at least this much: (nearly) all of it */
	double windows_wording;	/* matched text windows at or above: shared
				 * wording (relate.c, other_wording()) */
	int simhash_wording;	/* S1 distance at or below, with cs_min:
				 * the same wording under OCR damage */
};

struct relate_result {
	enum relate_class cls;
	double difference;	/* near duplicate: estimated fraction of the
				 * text that differs, 0..1; else -1 */
	const char *rule;	/* static text naming the rule that decided */
};

/* The defaults (the operating point chosen on the accuracy harness). */
void relate_params_default(struct relate_params *p);
/* Decides the class.  p may be NULL for the defaults.  Never fails. */
void relate_decide(const struct relate_signals *s, const struct relate_params *p,
		   struct relate_result *out);
/* Stable lower-case name ("near-duplicate", "a-contains-b", ...), used in
 * the CLI's output and JSON; "?" for an out-of-range value. */
const char *relate_class_name(enum relate_class c);

#endif
