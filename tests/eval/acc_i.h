/* acc_i.h - what the files of the accuracy harness share (acc.h is its
 * interface): the labelled pairs and the corpus (acc_corpus.c), the
 * precision / recall counts and the per-class figures (acc_score.c), the
 * single methods (acc_methods.c), the report (acc_report.c) and the index
 * parity check (acc_parity.c).  acc.c runs them.
 */
#ifndef ACC_I_H
#define ACC_I_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "acc.h"
#include "mutate.h"
#include "book.h"
#include "idx.h"
#include "relate.h"

/* Kinds of pairs.  The first ones are built by mutation, the ACC_REAL_*
 * ones come from the real corpus and RELATIONS.tsv. */
enum acc_cat {
	ACC_IDENT,
	ACC_FORMAT,
	ACC_OCR_LOW,	/* OCR errors at 5% or less */
	ACC_OCR_HIGH,	/* OCR errors above 5% (outside the targets) */
	ACC_SENT,	/* sentence additions/removals (+1% OCR) */
	ACC_PARTIAL,	/* 15-80% replaced by another book's text */
	ACC_VOLUME,	/* a leading part inside the whole */
	ACC_ANTHOLOGY,	/* a book inside an anthology */
	ACC_PARTS,	/* 15-80% replaced in one block, several or interleaved
			 * chapters, noisy or edited, 20 KB..2 MB, both sides
			 * (acc_partial.c) */
	ACC_INSERTED,	/* the book whole with 15-60% other text inserted */
	ACC_TWO_WORKS,	/* an anthology of two whole works, against each */
	ACC_MATERIAL,	/* the text ACC_PARTS books are made from against its
			 * base: a part of it, or the whole among others */
	ACC_REVISED,	/* 5-10% of the words reworded (a revision) */
	ACC_UNREL,
	ACC_AUTHOR,	/* same author (or series), different books */
	ACC_SPARSE,	/* anthology of two books vs a third with its middle
			 * replaced: sparse chance alignment, no shared text */
	ACC_TRANSL,	/* 25-100% reworded, names and numbers kept in order */
	ACC_TRANSL_NOUNS,	/* 100% reworded, then nouns capitalised after
				 * articles (mut_nouns()) */
	ACC_REAL_EDITION,
	ACC_REAL_PART,
	ACC_REAL_UNREL,
	ACC_REAL_TRANSL,	/* RELATIONS.tsv other-translation rows */
	ACC_NCAT
};

/* Row labels of the kinds (acc_corpus.c). */
extern const char *const acc_cat_names[ACC_NCAT];

/* Groups of classes for the per-class figures: both containment
 * directions are one group. */
enum acc_group { G_IDENT, G_SAME, G_NEAR, G_CONTAIN, G_OVERLAP, G_TRANSL, G_UNREL, G_N };

/* Row labels of the groups (acc_score.c). */
extern const char *const acc_group_names[G_N];

static inline enum acc_group group_of(enum relate_class c)
{
	switch (c) {
	case RELATE_IDENTICAL_FILE: return G_IDENT;
	case RELATE_SAME_TEXT: return G_SAME;
	case RELATE_NEAR_DUPLICATE: return G_NEAR;
	case RELATE_A_CONTAINS_B:
	case RELATE_B_CONTAINS_A: return G_CONTAIN;
	case RELATE_OVERLAP: return G_OVERLAP;
	case RELATE_OTHER_TRANSLATION: return G_TRANSL;
	default: return G_UNREL;
	}
}

#define BIT(c) (1u << (c))

struct acc_pair {
	uint32_t a, b;
	uint8_t cat;
	uint8_t label;		/* enum relate_class */
	uint16_t accept;	/* BIT() of every class counted as correct */
	float param;		/* error rate, replaced fraction, ... */
	struct relate_signals sig;
	const char *name;	/* real pairs: "a <-> b", owned */
	uint8_t sub;		/* ACC_PARTS: the layout (acc_partial.c) */
};

/* A base book of the corpus: its text (owned by the corpus builder). */
struct base {
	char *text;
	size_t len;
	int author;
	char name[64];
};

struct corpus {
	struct book **books;
	size_t nbooks, capb;
	struct acc_pair *pairs;
	size_t npairs, capp;
	/* books derived from one text, one with 2% OCR errors on top: near
	 * duplicates of each other, though no pair labels them (the true
	 * groups of clusters/ join them) */
	uint32_t (*twins)[2];
	size_t ntwins, capt;
	char tmpdir[64];
	unsigned ntmp;
};

/* Loads text as a book of c (*idx its index), and adds the pair (a, b)
 * compared through book_compare() with its label (acc_corpus.c). */
int acc_corpus_load(struct corpus *c, const char *text, size_t len, const char *name,
		    uint32_t *idx);
int acc_corpus_pair(struct corpus *c, uint32_t a, uint32_t b, enum acc_cat cat,
		    enum relate_class label, unsigned accept, double param);

/* The books with parts of base i replaced or other text inserted, and the
 * anthology of two works (acc_partial.c): r is base i's generator, bv[0..nb)
 * the bases, origs[0..nb) their books.  0 or -errno. */
int acc_partial_derive(struct corpus *c, const struct base *bv, size_t nb, size_t i,
		       const uint32_t *origs, int quick, struct mut_rng *r);
/* The recall of the ACC_PARTS and ACC_INSERTED pairs by layout, size and
 * share replaced (Markdown, to f). */
void acc_partial_report(FILE *f, const struct corpus *c, const enum relate_class *pred);

/* Builds the corpus of o into c (books and scored pairs, owned by c: free
 * with acc_corpus_release(), also after a failure).  Returns 0 or -errno. */
int acc_corpus_build(const struct acc_opts *o, struct corpus *c);
void acc_corpus_release(struct corpus *c);

/* Counts of one decision against the labels. */
struct prf {
	unsigned tp, fp, fn;
};

static inline double prec(const struct prf *m)
{
	return m->tp + m->fp ? (double)m->tp / (m->tp + m->fp) : 1.0;
}

static inline double rec(const struct prf *m)
{
	return m->tp + m->fn ? (double)m->tp / (m->tp + m->fn) : 1.0;
}

static inline double f1(const struct prf *m)
{
	double p = prec(m), r = rec(m);

	return p + r > 0 ? 2 * p * r / (p + r) : 0.0;
}

static inline int is_synth_pos(int cat)
{
	return cat <= ACC_REVISED;
}

static inline int is_synth_neg(int cat)
{
	return cat == ACC_UNREL || cat == ACC_AUTHOR || cat == ACC_SPARSE;
}

/* Translations, synthetic or real: never to be called a duplicate. */
static inline int is_transl(int cat)
{
	return cat == ACC_TRANSL || cat == ACC_TRANSL_NOUNS || cat == ACC_REAL_TRANSL;
}

/* 1 for the classes that say the texts are the same or share text. */
static inline int is_dup_class(enum relate_class c)
{
	return c == RELATE_NEAR_DUPLICATE || c == RELATE_A_CONTAINS_B ||
	       c == RELATE_B_CONTAINS_A || c == RELATE_OVERLAP;
}

/* pred[i] = relate()'s class for pair i with parameters p (pred: npairs
 * entries, the caller's). */
void acc_decide_all(const struct corpus *c, const struct relate_params *p, enum relate_class *pred);
/* g[0..G_N-1] = the figures of the decisions pred per group, over the
 * synthetic pairs except OCR above 5% (outside the targets). */
void acc_group_prf(const struct corpus *c, const enum relate_class *pred, struct prf *g);
/* Fills *s with the figures of the decisions pred. */
void acc_summarise(const struct corpus *c, const enum relate_class *pred, struct acc_summary *s);
/* The tuning objective of the decisions pred: mean class F1, minus one
 * when more than 1% of the negatives are flagged. */
double acc_objective(const struct corpus *c, const enum relate_class *pred);

/* Tasks for the single-method sweeps: which pairs are positives and which
 * negatives (others are left out). */
enum task { T_NEAR, T_ALL, T_NEAR_CLASS, T_CONTAIN_CLASS, T_REAL, T_N };

/* relate()'s F1 on task t, and the best F1 of any single method at its best
 * threshold; *best_name is static. */
void acc_best_method(const struct corpus *c, const enum relate_class *pred, enum task t,
		     double *combined, double *best_f1, const char **best_name);
/* Prints every single method against relate() per task (Markdown), and
 * with sweep every threshold. */
void acc_report_methods(FILE *f, const struct corpus *c, const enum relate_class *pred, int sweep);

/* The Markdown report of a run to o->out (nothing when it is NULL). */
void acc_report(const struct acc_opts *o, const struct corpus *c, const enum relate_class *pred,
		const struct acc_summary *s, const struct relate_params *p);
/* Every pair's signals and decision as TSV. */
void acc_dump_pairs(FILE *f, const struct corpus *c, const enum relate_class *pred);
void acc_report_params(FILE *f, const struct relate_params *p);

/* Puts every book of c into a real index and scores the pairs its views
 * list against the labels, next to book_compare()'s decisions pred; fills
 * the index_* figures of *sum and reports to o->out.  Returns 0 or -errno. */
int acc_parity_run(const struct acc_opts *o, const struct corpus *c, const enum relate_class *pred,
		   struct acc_summary *sum);

/* Indexes book b at path as the indexer does (not judged): *id its id. */
int acc_index_put(struct idx *ix, const struct book *b, const char *path, uint64_t *id);
/* Removes the closed index in folder dir: its files and the folder. */
void acc_index_remove(const char *dir);

/* The clusters of the index ix (book k is ids[k]) against the true groups
 * of c (the books joined by identical, same-text and near-duplicate
 * labels): ARI and pairwise P/R, next to the connected components of the
 * same links (the rule before); then the corpus indexed again in another
 * order, and whether its clusters are the same.  Fills the cluster_*
 * figures of *sum and reports to o->out.  0 or -errno. */
int acc_clusters_run(const struct acc_opts *o, const struct corpus *c, struct idx *ix,
		     const uint64_t *ids, struct acc_summary *sum);

#endif
