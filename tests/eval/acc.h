/* acc.h - the accuracy harness: a labelled corpus of book pairs built with
 * the mutations of mutate.h, every pair scored through the real pipeline
 * (book.h), and precision / recall / F1 per method, per relation class and
 * for the combined relate() decision.
 *
 * The corpus is a function of the seed and of the base texts: the Project
 * Gutenberg books under BOOKS/texts when present (their bodies, header and
 * licence stripped), else, and always in addition, synthetic pseudo-English
 * books (mut_synth).  See docs/ACCURACY.md for the corpus, the labels and
 * the results.
 */
#ifndef ACC_H
#define ACC_H

#include <stdint.h>
#include <stdio.h>

#include "relate.h"

struct acc_opts {
	uint64_t seed;		/* corpus seed (mutations, synthetic books) */
	int quick;		/* small synthetic corpus only (the unit test) */
	const char *books;	/* the real-book corpus folder, or NULL */
	int half;		/* 0: every base book; 1 or 2: only the even or
				 * odd-numbered ones (train / held-out split) */
	int real;		/* also score BOOKS/RELATIONS.tsv and every
				 * other pair of real books */
	int sweep;		/* print the full threshold sweep per method */
	FILE *out;		/* report as Markdown; NULL: silent */
	FILE *dump;		/* every pair's signals as TSV; NULL: none */
	int index;		/* also put every book into a real index and
				 * score the pairs its views list (simlist.h)
				 * against the labels, next to book_compare() */
};

/* Measured figures of one run (the targets of docs/ACCURACY.md). */
struct acc_summary {
	unsigned pairs, positives, negatives;
	double near_p, near_r, near_f1;		/* near-duplicate class, OCR <= 5% */
	double contain_p, contain_r, contain_f1;	/* containment class */
	double overlap_p, overlap_r, overlap_f1;	/* partial duplicates */
	double same_text_p, same_text_r;	/* format variants */
	double neg_flagged;	/* unrelated and same-author pairs not called unrelated */
	/* relate() against the best single method at its best threshold, for
	 * the near-duplicate class (near duplicates vs every other pair) and
	 * for any relation (related vs unrelated and same-author pairs) */
	double combined_f1, best_single_f1;
	const char *best_single;	/* which method (static) */
	double combined_any_f1, best_single_any_f1;
	const char *best_single_any;
	double macro_f1;	/* mean class F1: the tuning objective */
	/* real books (opts.real): pairs listed as related found related, and
	 * other pairs flagged */
	unsigned real_pos, real_pos_found, real_neg, real_neg_flagged;
	/* translations (synthetic and real): how many, and how many were
	 * called near duplicate, containment or overlap; sparse-alignment
	 * negatives and how many were called anything but unrelated */
	unsigned transl, transl_dup, sparse, sparse_flagged;
	/* opts.index: the views' answer against book_compare()'s.  A pair
	 * "differs" when the class the views list (none = unrelated) is not
	 * the class relate() gives the pair compared in memory; why: no
	 * candidate source proposed it, or the comparison of the stored
	 * records gave another class. */
	double index_macro_f1;		/* mean class F1 of the listed pairs */
	unsigned index_differ, index_no_candidate, index_verify_differs;
	unsigned index_asymmetric;	/* listed on one side only */
};

/* Builds the corpus, scores it with relate parameters p (NULL: defaults)
 * and fills *sum.  Returns 0 or a negative errno (a base book that cannot be
 * read or fingerprinted, a temporary file that cannot be written). */
int acc_run(const struct acc_opts *o, const struct relate_params *p, struct acc_summary *sum);

/* Like acc_run, but first searches relate parameters for the best mean
 * class F1 on the train half (even-numbered base books, seed): one
 * parameter at a time from the defaults, a change kept only when strictly
 * better.  Then reports the chosen point on the held-out half (the other
 * base books, seed + 1).  *best receives the chosen parameters. */
int acc_tune(const struct acc_opts *o, struct relate_params *best, struct acc_summary *sum);

#endif
