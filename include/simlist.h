/* simlist.h - the books similar to one book, ranked and named for a view,
 * and the listing files of the views.
 *
 * A list is the relations the judgement (judge.h) stored for the book: one
 * range read, the exemptions, the entries' paths, no comparison
 * (simlist_get()).  A book not judged yet (between its idx_put() and its
 * judgement, or in an index upgraded from schema 4 until the daemon has
 * judged it) has its list computed at read time from the same candidates
 * and comparisons (simlist_compute(), comparisons cached in a struct
 * judge_cache); unrelated books and "not a duplicate" exemptions are
 * dropped either way.
 *
 * Ranking (best first): by score (judge_share(): the share of text found
 * in the other book, one meaning for every relation), then by class
 * (identical file, same text, near duplicate, one contains the other,
 * overlap), then path.  Entry names "RR SSS% RELATION - BASENAME": RR the 1-based rank,
 * zero-padded to at least two digits so a name-sorted listing keeps the
 * rank order; SSS the score; the rank makes names unique.  BASENAME is the
 * file name, or for a book with a metadata.opf title (bookrec_opf_name())
 * "TITLE - AUTHOR" with the file's extension (simlist_title_base()).
 */
#ifndef SIMLIST_H
#define SIMLIST_H

#include <stddef.h>
#include <stdint.h>

#include "idx.h"
#include "judge.h"
#include "relate.h"
#include "sbuf.h"

struct simlist_entry {
	uint64_t id;		/* the similar book */
	char *path;		/* its path relative to SRC, owned */
	char *name;		/* the entry name, owned (NAME_MAX bytes at most) */
	char *title;		/* "TITLE - AUTHOR" of its metadata.opf, owned; NULL: none */
	char lang[3];		/* its language (lang.h, ISO 639-1); "": unknown */
	enum relate_class cls;	/* A = the listed book, B = this entry */
	unsigned score;		/* 0..100, judge_share() from this side */
	int simhash_distance;	/* S1 bits */
	double jaccard;		/* S2 estimate */
	double cover_this;	/* fraction of the listed book found in this one */
	double cover_other;	/* fraction of this one found in the listed book */
};

struct simlist {
	uint64_t id;		/* the listed book */
	uint64_t generation;	/* idx_generation() it was computed at */
	size_t n;
	struct simlist_entry *v;	/* ranked */
};

/* The list of book id as the views show it: the stored relations when the
 * book's representative (itself unless it is a copy) was judged on its
 * current fingerprint, each related representative expanded into the
 * copies it stands for (judge_expand()), plus the other books of id's
 * own text (its group of copies among them), compared (identical file or
 * same text; c caches them); else simlist_compute() (c may be NULL).
 * Both give the same list for the same candidates; a stored list also
 * holds pairs only the other book's candidates found (docs/INDEX.md).
 * skip, *out and returns as simlist_compute(). */
int simlist_get(struct idx *ix, struct judge_cache *c, uint64_t id,
		int (*skip)(void *arg, const char *path), void *arg, struct simlist **out);
/* Computes the list of book id at read time: candidates gathered and
 * compared (judge_gather(), judge_compare(); c may be NULL: no cache).
 * skip(arg, path) (may be NULL) drops candidates by path (e.g. files the
 * mount cannot show).  *out is malloc'd (simlist_free()).  0, -ENOENT (id
 * has no fingerprint), -ENOMEM, -EIO. */
int simlist_compute(struct idx *ix, struct judge_cache *c, uint64_t id,
		    int (*skip)(void *arg, const char *path), void *arg, struct simlist **out);
void simlist_free(struct simlist *l);

/* ---- the pure parts (unit-tested) ---- */

/* The relation's label in entry names, from the listed book's side:
 * "identical file", "same text", "near duplicate", "part of this" (the
 * entry is contained in the listed book), "contains this", "overlap". */
const char *simlist_label(enum relate_class cls);
/* Sorts l->v by rank and (re)names the entries (by their titles when they
 * have one).  0 or -ENOMEM. */
int simlist_rank(struct simlist *l);
/* Writes "RR SSS% LABEL - BASENAME" into out (emptied first), cutting the
 * base name (UTF-8 safe, keeping its extension) to fit NAME_MAX bytes.
 * width: digits of the rank.  0 or -ENOMEM. */
int simlist_name(struct sbuf *out, size_t rank, int width, unsigned score,
		 const char *label, const char *base);
/* Writes into out (emptied first) the base name an entry with the title
 * (a metadata.opf's "TITLE - AUTHOR") takes for the file path: the title
 * with '/' made '_' and control characters made spaces, then the
 * extension of path's last component (".epub"; 16 bytes at most, as
 * simlist_fit() keeps it), so that the formats of one book differ by it
 * and file managers still open the entry by its type.  0 or -ENOMEM. */
int simlist_title_base(struct sbuf *out, const char *title, const char *path);
/* Writes into out (emptied first) the base name of an entry for path:
 * simlist_title_base() of title when title is not NULL or empty (the
 * book's metadata.opf name), else path's file name.  Every view names its
 * entries through it.  0 or -ENOMEM. */
int simlist_entry_base(struct sbuf *out, const char *title, const char *path);
/* The metadata.opf name of book id, "TITLE - AUTHOR" (bookrec_opf_name()),
 * read from its stored record: *title malloc'd, NULL when it has none (a
 * record of another version or unreadable names the book by its file
 * too).  0 or -ENOMEM. */
int simlist_book_title(struct idx *ix, uint64_t id, char **title);
/* Appends base cut to at most max bytes, keeping its extension when short,
 * never splitting a UTF-8 sequence.  0 or -ENOMEM. */
int simlist_fit(struct sbuf *out, const char *base, size_t max);
/* The listing file of the list: a header line, then one line per entry,
 * tab-separated: rank, score, relation (relate_class_name), simhash
 * distance, jaccard, cover_this, cover_other, id (hex), path relative to
 * the mount root, title (the metadata.opf's "TITLE - AUTHOR", empty when
 * none), language (the entry's ISO 639-1 code, "unknown" when not known).
 * Tabs, newlines and backslashes in paths and titles are escaped
 * as \t, \n, \\.  0 or -ENOMEM. */
int simlist_tsv(const struct simlist *l, struct sbuf *out);
/* The relative symlink target of a view entry depth folders below the
 * mount root pointing at path (relative to the root): "../" depth times,
 * then path, NUL-terminated in buf.  0 or -ENAMETOOLONG. */
int simlist_link(char *buf, size_t size, int depth, const char *path);
/* The "not a duplicate" pairs of ix, appended to out: one line per pair,
 * path TAB path (relative to SRC, escaped as in simlist_tsv()), the two
 * paths of a line and the lines in byte order (a pair whose book is being
 * removed at that moment is left out).  0, -ENOMEM or -errno of the
 * index. */
int simlist_exemptions_tsv(struct idx *ix, struct sbuf *out);
/* Appends s with tabs, newlines and backslashes escaped. 0 or -ENOMEM. */
int simlist_escape(struct sbuf *out, const char *s);
/* Undoes simlist_escape() in place (s NUL-terminated).  0, or -EINVAL when
 * a backslash is followed by anything but t, n or a backslash. */
int simlist_unescape(char *s);

#endif
