/* fp.h - every fingerprint of a book in one pass, and all raw scores of a
 * pair of books in one call.
 *
 * struct fp_book holds every family (see each family's header for its exact
 * definition); fprec.h stores it.  fp_compare() returns raw scores only:
 * deciding the relation between two books is relate.h's job.
 * The fingerprint modules keep no global state: different threads may use
 * different states (struct fp, struct simhash, ...) and compare books at the
 * same time.
 */
#ifndef FP_H
#define FP_H

#include <stddef.h>
#include <stdint.h>

#include "chunksketch.h"
#include "dupniq.h"
#include "minhash.h"
#include "names.h"
#include "mlsimhash.h"
#include "norm.h"
#include "rsimhash.h"
#include "simhash.h"
#include "texthash.h"

struct fp_book {
	uint64_t nbytes;		/* normalised text length in bytes */
	uint32_t nwords;
	uint32_t nchunks;		/* input chunks (0: none marked) */
	uint8_t size_class;		/* simhash_size_class(nbytes) */
	struct texthash_value text;	/* exact text hash */
	struct simhash_value sim;	/* S1, the identifier */
	struct rsimhash_value rsim;	/* S4 */
	struct mlsimhash_value mlsh;		/* S3 */
	struct minhash_sig mh;		/* S2 (one-permutation scheme) */
	struct dupniq_seq dq;		/* S5, owns its arrays */
	struct chunksketch_book ck;		/* chunk sketches, owns its arrays */
	/* Shingle anchors, for the index's candidate search only (not part of
	 * the record, not compared): the top 32 bits of the word 5-shingle
	 * hashes (minhash.h) whose low FP_ANCHOR_BITS bits are zero, a fixed
	 * 1 in 2^FP_ANCHOR_BITS sample that is a function of the shingle
	 * alone, so every anchor of a text is an anchor of any book that
	 * contains it, however long; ascending, unique, the FP_ANCHORS_MAX
	 * smallest (the same rule in every book).  nanchors 0: none. */
	uint32_t nanchors;
	uint32_t *anchors;		/* owned */
	/* Names and numbers in order (names.h), for the index's search for
	 * other translations only: made from the extracted text (case and
	 * digits), not by fp_compute(); not part of the record. */
	struct names_sketch names;
};

#define FP_ANCHOR_BITS 7
#define FP_ANCHORS_MAX 2048

/* Zeroed book (not the fingerprints of the empty text: fp_compute_text()
 * of "" gives those); allocates nothing. */
void fp_book_init(struct fp_book *b);
/* Frees the arrays; b is empty again. */
void fp_book_release(struct fp_book *b);

/* Fingerprints a normalised document (chunk breaks from doc->chunk_word;
 * word offsets are not needed; nchunks = doc->nchunks) into out
 * (initialised, released first; untouched on error).  0 or -ENOMEM. */
int fp_compute(const struct norm_doc *doc, struct fp_book *out);
/* Same for plain normalised text without chunk marks. */
int fp_compute_text(const void *text, size_t len, struct fp_book *out);

struct fp;	/* opaque streaming state: all families in one pass */

struct fp *fp_new(void);	/* NULL on -ENOMEM */
void fp_free(struct fp *f);
/* Normalised bytes, split anywhere.  0 or -ENOMEM. */
int fp_update(struct fp *f, const void *buf, size_t len);
/* The next word starts a new input chunk: call it before each chunk, the
 * first included (like chunk_word[0] == 0); nchunks counts the calls.  A
 * word cut by the end of the last piece ends here. */
void fp_break(struct fp *f);
/* Moves the fingerprints of the text fed so far into out (initialised,
 * released first; untouched on error) and makes f ready for a new text.
 * 0 or -ENOMEM. */
int fp_final(struct fp *f, struct fp_book *out);

/* Raw scores of a pair (a, b).  "a" plays the main role where a score is
 * asymmetric. */
struct fp_scores {
	int same_text;			/* texthash equal (and nbytes equal) */
	unsigned simhash_distance;	/* S1 Hamming distance, 0..128 */
	int size_class_diff;		/* b.size_class - a.size_class */
	unsigned rsim_asym_ab;		/* S4 at a's strong positions, 0..128 */
	unsigned rsim_asym_ba;		/* S4 at b's strong positions, 0..128 */
	unsigned rsim_distance;		/* S4 symmetric (max of the two) */
	unsigned mlsimhash_distance;		/* S3 min over lexicons, 0..64 */
	unsigned mlsimhash_lexicon;		/* lexicon reaching it */
	unsigned minhash_bsim;		/* equal min-hash values, 0..128 */
	double jaccard;			/* estimate, 0..1 */
	struct dupniq_result dupniq;	/* lcs, cs, its, spans, cover and
					 * covered fractions (dupniq.h) */
	struct chunksketch_fit win_fit;	/* window chunks of a against b:
					 * slope, offset, matched fractions,
					 * outliers (chunksketch.h) */
	struct chunksketch_fit spine_fit;	/* spine chunks (pairs 0 unless both
					 * books have 2 or more) */
	uint64_t a_nbytes, b_nbytes;
	uint32_t a_nwords, b_nwords;
};

/* Computes every score (DUPNIQ without pruning).  0 or -ENOMEM. */
int fp_compare(const struct fp_book *a, const struct fp_book *b, struct fp_scores *s);
/* The same, and leaves the DUPNIQ LCS of a against b in lcs (initialised
 * with dupniq_lcs_init(), released first; the caller releases it), for
 * align_blocks_lcs().  0 or -ENOMEM. */
int fp_compare_lcs(const struct fp_book *a, const struct fp_book *b, struct fp_scores *s,
		   struct dupniq_lcs *lcs);

#endif
