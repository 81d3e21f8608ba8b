/* bookrec.h - what the index stores per book: the fingerprint record
 * (fprec.h) wrapped with the book's file facts and metadata.
 *
 * The views need more than fingerprints: the file hash (the relation
 * "identical file") and the title (names of cluster folders).  The index
 * keeps one opaque record per book; this module defines it.
 *
 * Layout, every integer big-endian (version BOOKREC_VERSION):
 *   off  size
 *     0     4  magic "SBBR"
 *     4     1  version
 *     5     1  extract format (enum extract_format)
 *     6     2  title length T (bytes, UTF-8, at most BOOKREC_META_MAX)
 *     8     2  author length A
 *    10     8  file size in bytes
 *    18    16  XXH3-128 of the file's bytes (high half first)
 *    34     2  metadata.opf title length OT (0: no metadata.opf title)
 *    36     2  metadata.opf author length OA
 *    38     2  language (lang.h: two ASCII letters; zeros when unknown)
 *    40     T  the file's own title, then A bytes of its author, OT bytes
 *              of the metadata.opf title, OA bytes of its author
 *  40+T+A+OT+OA  the fprec.h record (the rest)
 * The file's own metadata and the metadata.opf's are kept apart so that a
 * metadata.opf written or removed re-titles the book (bookrec_retitle())
 * without reading the book again.
 * The index's record version is BOOKREC_IDX_VERSION (this version and
 * fprec's together), so a change of either is seen as "refingerprint".
 */
#ifndef BOOKREC_H
#define BOOKREC_H

#include <stddef.h>
#include <stdint.h>

#include "book.h"
#include "fprec.h"
#include "idx_fp.h"
#include "sbuf.h"

#define BOOKREC_MAGIC "SBBR"
/* 2: the metadata.opf's title and author, the language, the names bands
 * (BOOKREC_NAME_BANDS); 3: the names bands of two key streams (names.h);
 * 4: no common nouns in the names stream of a text that capitalises them;
 * 5: the language of a CJK text that quotes much Latin text (lang.h) */
#define BOOKREC_VERSION 5
#define BOOKREC_HEAD_LEN 40
#define BOOKREC_META_MAX 1024	/* longer titles/authors are cut (UTF-8 safe) */
/* The first bytes of a record that hold all of its metadata. */
#define BOOKREC_META_SPAN (BOOKREC_HEAD_LEN + 4 * BOOKREC_META_MAX)
#define BOOKREC_IDX_VERSION ((uint32_t)BOOKREC_VERSION << 16 | FPREC_VERSION)

/* Min-hash LSH bands stored in the index for candidate search: 64 bands of
 * 2 rows (all 128 values), so two books with Jaccard J share a band with
 * probability 1 - (1 - J^2)^64 (J = 0.2: 0.93; J = 0.3: 0.998). */
#define BOOKREC_MH_BANDS 64
#define BOOKREC_MH_ROWS 2
/* After them, in the same band table, the NAMES_SLOTS minima of the names
 * sketch (names.h), one per band, when the book has NAMES_MIN_KEYS keys or
 * more: bands BOOKREC_MH_BANDS .. BOOKREC_MH_BANDS + NAMES_SLOTS - 1, so a
 * book with few names has the min-hash bands alone.  Candidates for other
 * translations (judge.h, JUDGE_SRC_NAMES). */
#define BOOKREC_NAME_BANDS NAMES_SLOTS

/* Appends the record of b to out.  0, -ENOMEM or -EINVAL (from fprec). */
int bookrec_encode(const struct book *b, struct sbuf *out);
/* Decodes a record into a new book (free with book_free()).  0, -ENOMEM,
 * -EBADMSG (not a record, truncated), -ENOTSUP (another version). */
int bookrec_decode(const void *buf, size_t len, struct book **out);
/* The title stored in a record without decoding the fingerprints (its
 * metadata.opf's when it has one, else the file's own): *title malloc'd
 * (NULL when the book has none).  0, -ENOMEM, -EBADMSG, -ENOTSUP.  The
 * first BOOKREC_META_SPAN bytes of a record are enough. */
int bookrec_title(const void *buf, size_t len, char **title);
/* The name a metadata.opf gives the book in the views, "TITLE - AUTHOR"
 * (as calibre names its files; "TITLE" without an author): *name malloc'd,
 * NULL when the record has no metadata.opf title (the file's own metadata
 * is often a file name or a converter's default, so it names nothing).
 * 0, -ENOMEM, -EBADMSG, -ENOTSUP.  BOOKREC_META_SPAN bytes are enough. */
int bookrec_opf_name(const void *buf, size_t len, char **name);
/* The language stored in a record (lang.h: ISO 639-1, two lower-case
 * letters) into lang, NUL-terminated; "" when unknown.  0, -EBADMSG,
 * -ENOTSUP (lang "").  BOOKREC_META_SPAN bytes are enough. */
int bookrec_lang(const void *buf, size_t len, char lang[3]);
/* Appends to out the record buf with its metadata.opf title and author
 * replaced by title and author (NULL or "": none; cut to BOOKREC_META_MAX
 * bytes), everything else unchanged.  0, -ENOMEM, -EBADMSG, -ENOTSUP. */
int bookrec_retitle(const void *buf, size_t len, const char *title, const char *author,
		    struct sbuf *out);

/* Everything the index stores for one book, ready for idx_put() (idx.h):
 * fp points into the other members. */
struct bookrec_fp {
	struct sbuf rec;			/* the record */
	uint64_t bands[BOOKREC_MH_BANDS + BOOKREC_NAME_BANDS];	/* min-hash LSH bands, names */
	uint32_t *uq;				/* pruning keys, malloc'd */
	struct idx_fp fp;
};

/* Fills *out (released with bookrec_fp_release(), also on error) from b:
 * simhash and text hash, record, bands and pruning keys (dupniq_keys()
 * with DUPNIQ_KEYS_MAX, top bit cleared, and the shingle anchors of fp.h
 * with the top bit set (IDX_UQ_HI), so the index counts the two kinds
 * apart; at most DUPNIQ_KEYS_MAX + FP_ANCHORS_MAX <= IDX_UQ_MAX), as the
 * indexer stores them.  0, -ENOMEM or -EINVAL. */
int bookrec_fp_make(const struct book *b, struct bookrec_fp *out);
void bookrec_fp_release(struct bookrec_fp *f);

#endif
