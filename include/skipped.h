/* skipped.h - the files the index holds but never compared, by kind: not
 * books (named by their content: "CBZ comic archive", "JPEG image", "plain
 * text without a file extension", ...) and books that could not be read
 * ("DRM-protected", "no text layer", "too large", "too slow", "broken",
 * "unreadable").  What .simbookfs/status counts, .simbookfs/skipped lists
 * and `simbook index` prints.
 *
 * The kind is read back from the reason the indexer stored with the file
 * (extract.h's reasons, "PATH: not a book (KIND)"), so an index written
 * before keeps working.  Every function walks the index's file entries
 * once (idx_skipped_walk()), except a skipped_cache's answers, which walk
 * only when the index changed since the counts it keeps.
 */
#ifndef SKIPPED_H
#define SKIPPED_H

#include <stddef.h>
#include <stdint.h>

#include "idx.h"
#include "sbuf.h"

/* The kind of a file in state (IDX_NOT_BOOK or IDX_FAILED) with the stored
 * reason error (may be NULL), written into buf (NUL-terminated, cut to sz
 * bytes): for a not-book the text in the parentheses of "not a book (...)",
 * else "not a book"; for a failure one of "DRM-protected", "no text layer",
 * "too slow", "too large", "unreadable", "broken".  Returns buf. */
const char *skipped_kind(enum idx_state state, const char *error, char *buf, size_t sz);

struct skipped_count {
	char *kind;		/* owned */
	uint64_t n;
};

/* The skipped files counted by kind, kinds sorted by count (descending)
 * then name. */
struct skipped {
	struct skipped_count *v;	/* owned */
	size_t n;
	uint64_t total;
};

/* Counts the skipped files of ix into s (zeroed by the call; free with
 * skipped_release()).  0 or -errno. */
int skipped_count(struct idx *ix, struct skipped *s);
void skipped_release(struct skipped *s);

/* The counts of skipped_count() kept with the index generation they were
 * counted at (idx_generation()), so that reading them again costs no walk
 * while the index stays as it is (a status file read over and over).  Any
 * number of threads may use one cache at once. */
struct skipped_cache;
/* NULL when out of memory. */
struct skipped_cache *skipped_cache_new(void);
void skipped_cache_free(struct skipped_cache *c);	/* NULL is fine */
/* skipped_count(ix, s), from c when c holds the counts of ix at its
 * current generation, or (fresh 0: a busy index, whose counts move anyway)
 * counted less than max_age_ns ago; else counted and kept.  0 or -errno. */
int skipped_cache_count(struct skipped_cache *c, struct idx *ix, int fresh, uint64_t max_age_ns,
			struct skipped *s);
/* Appends s as a JSON object {"KIND":N,...} to out.  0 or -ENOMEM. */
int skipped_json(const struct skipped *s, struct sbuf *out);
/* Appends s as text, "N KIND, N KIND" ("none" when empty).  0 or -ENOMEM. */
int skipped_text(const struct skipped *s, struct sbuf *out);
/* Appends one line per skipped file to out, in path order: the path, its
 * kind and its reason, separated by tabs, each escaped as the views' TSV
 * files are (simlist_escape()).  0 or -errno. */
int skipped_tsv(struct idx *ix, struct sbuf *out);

#endif
