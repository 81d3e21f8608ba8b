/* book.h - one book through the whole pipeline: file -> extraction ->
 * normalisation -> fingerprints, and the comparison of two books (scores
 * and relation class).  Used by the CLI, the accuracy harness and the
 * indexer.
 */
#ifndef BOOK_H
#define BOOK_H

#include <stddef.h>
#include <stdint.h>

#include "extract.h"
#include "fp.h"
#include "relate.h"
#include "sbuf.h"

struct book {
	enum extract_format format;
	uint64_t file_size;		/* bytes of the file (or buffer) */
	uint64_t file_hash_hi, file_hash_lo;	/* XXH3-128 of its bytes */
	char *title;			/* owned, NULL when unknown */
	char *author;			/* first creator, owned, NULL when unknown */
	/* The title and first author of the calibre metadata.opf beside the
	 * file (owned, NULL when none): the user's own, preferred to the
	 * file's; set by the indexer, not by book_load(). */
	char *opf_title, *opf_author;
	size_t nwarnings;		/* extraction warnings (see extract.h) */
	char lang[4];			/* language (lang.h): the declared one when
					 * lang_code() knows it, else lang_detect()'s;
					 * "" when unknown */
	struct fp_book fp;		/* every fingerprint of the normalised text */
};

/* Reads, extracts, normalises and fingerprints the book at path into a new
 * struct book (free with book_free()).  lim NULL: extraction defaults.
 * Returns 0 or a negative errno / EXTRACT_NOTBOOK (see extract.h); on error
 * *out is NULL and, if err is not NULL, a one-line reason naming the file is
 * appended to err. */
int book_load(const char *path, const struct extract_limits *lim,
	      struct book **out, struct sbuf *err);

/* The same for a file already in memory; name is used for messages and as
 * the format hint (may be NULL).  data is not kept. */
int book_load_buffer(const void *data, size_t len, const char *name,
		     const struct extract_limits *lim, struct book **out, struct sbuf *err);

void book_free(struct book *b);	/* NULL is fine */

/* 32 hex digits of the S1 simhash: the book's similarity identifier. */
void book_id(const struct book *b, char out[33]);

struct book_cmp {
	struct fp_scores scores;	/* raw scores (fp.h) */
	struct relate_signals sig;	/* what relate_decide() reads */
	struct relate_result rel;	/* the decision with the given params */
};

/* The same comparison from fingerprints alone (records decoded from the
 * index, fprec.h), where the caller knows whether the files are the same
 * (same_file 1 or 0).  0 or -ENOMEM. */
int book_compare_fp(const struct fp_book *a, const struct fp_book *b, int same_file,
		    const struct relate_params *p, struct book_cmp *out);

/* Compares a with b: every score, the signals of relate.h (the raw scores
 * plus the block alignment of the unique-word sequences, align.h; same_file
 * from the file hashes) and the relation decided with p (NULL: relate
 * defaults).  0 or -ENOMEM. */
int book_compare(const struct book *a, const struct book *b,
		 const struct relate_params *p, struct book_cmp *out);

#endif
