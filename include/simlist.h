/* simlist.h - the books similar to one book, ranked and named for a view.
 *
 * Candidates come from the index: every book within the simhash threshold
 * (exact, band.h), every book sharing a min-hash LSH band (containment and
 * partial overlap, which simhash cannot see), every book with the same
 * text hash, and the books sharing many pruning keys (sampled unique words
 * and shingle anchors, idx.h: a short text inside a long one, OCR-heavy
 * copies, which whole-book sketches miss).  Each candidate is compared with the book on the stored records
 * (book_compare() from the smaller id's side, so a pair has one verdict
 * whichever book is listed: all scores, the relation class of relate.h);
 * unrelated ones and "not a duplicate" exemptions are dropped.
 *
 * The indexing work does that once per book (simlist_judge()) and stores
 * every relation found in the index (idx_rels_set()); a list is then read
 * back (simlist_get(): one range read, the exemptions, the entries' paths)
 * with no comparison.  A book not judged yet (between its idx_put() and its
 * judgement, or in an index upgraded from schema 4 until the daemon has
 * judged it) has its list computed at read time (simlist_compute()), with
 * comparisons cached per pair in a struct simcache, valid while both books
 * keep their fingerprints.
 *
 * Ranking (best first): identical file, same text, near duplicate, one
 * contains the other, overlap; within a class by score (descending), then
 * path.  Entry names "RR SSS% RELATION - BASENAME": RR the 1-based rank,
 * zero-padded to at least two digits so a name-sorted listing keeps the
 * rank order; SSS the score; the rank makes names unique.
 */
#ifndef SIMLIST_H
#define SIMLIST_H

#include <stddef.h>
#include <stdint.h>

#include "idx.h"
#include "relate.h"
#include "sbuf.h"

struct simlist_entry {
	uint64_t id;		/* the similar book */
	char *path;		/* its path relative to SRC, owned */
	char *name;		/* the entry name, owned (NAME_MAX bytes at most) */
	enum relate_class cls;	/* A = the listed book, B = this entry */
	unsigned score;		/* 0..100, see simlist_score() */
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

struct simcache;

/* A comparison cache holding at most max_pairs results (0: 1 << 18, about
 * 38 MB once filled); when
 * full it starts over.  Thread-safe.  NULL on -ENOMEM. */
struct simcache *simcache_new(size_t max_pairs);
void simcache_free(struct simcache *c);

/* The list of book id as the views show it: the stored relations when the
 * book's representative (itself unless it is a copy) was judged on its
 * current fingerprint, each related representative expanded into the
 * copies it stands for (simlist_expand()), plus the other books of id's
 * own text (its group of copies among them), compared (identical file or
 * same text; c caches them); else simlist_compute() (c may be NULL).
 * Both give the same list for the same candidates; a stored list also
 * holds pairs only the other book's candidates found (docs/INDEX.md).  skip, *out and returns as
 * simlist_compute(). */
int simlist_get(struct idx *ix, struct simcache *c, uint64_t id,
		int (*skip)(void *arg, const char *path), void *arg, struct simlist **out);
/* Computes the list of book id at read time: candidates gathered and
 * compared (c may be NULL: no cache).  skip(arg, path) (may be NULL) drops
 * candidates by path (e.g. files the mount cannot show).  *out is malloc'd
 * (simlist_free()).  0, -ENOENT (id has no fingerprint), -ENOMEM, -EIO. */
int simlist_compute(struct idx *ix, struct simcache *c, uint64_t id,
		    int (*skip)(void *arg, const char *path), void *arg, struct simlist **out);
void simlist_free(struct simlist *l);

/* Candidate sources (simlist_candidates()). */
#define SIMLIST_SRC_NEAR 1u	/* simhash within idx_max_d() (exact, band.h) */
#define SIMLIST_SRC_MINHASH 2u	/* a shared whole-book min-hash LSH band */
#define SIMLIST_SRC_TEXT 4u	/* the same exact-text hash */
#define SIMLIST_SRC_UNIQUE 8u	/* many shared pruning keys (unique words, shingle anchors) */
#define SIMLIST_SRC_ALL 15u

/* The candidates simlist_compute() verifies for book id, from the sources
 * (an OR of SIMLIST_SRC_*): ids ascending, unique, without id itself and
 * the books exempted from it; at most 2000 representatives per source
 * (nearest or most shared first; 200 for the pruning keys), each expanded
 * into its copies (simlist_expand()).  For diagnostics (which source finds a pair) and tests.
 * *ids is malloc'd (free()).  0, -ENOENT (id has no fingerprint), -ENOMEM,
 * -EIO. */
int simlist_candidates(struct idx *ix, uint64_t id, unsigned sources, uint64_t **ids, size_t *n);

/* The books a related book rel stands for in the list of book f: rel's
 * group of copies (idx_copies(), identical fingerprints, so each relates to
 * f exactly as rel does and is compared once, through rel) without f; just
 * rel when it has no copies, or when it has f's text (those copies are
 * candidates of their own, through the text source, each compared with f:
 * identical file or same text).  Candidate sources and stored relations
 * name representatives only; every reader that shows books (lists, stored
 * relations) expands them with this.  *ids malloc'd (free()), ascending;
 * *n >= 1 unless rel is f.  0, -ENOMEM, -errno of the index. */
int simlist_expand(struct idx *ix, const struct idx_file *f, const struct idx_file *rel,
		   uint64_t **ids, size_t *n);

/* The relation of books a and b from a's point of view (the verdict of
 * the smaller id's side, mirrored for the other, as the lists show it),
 * from the cache (c may be NULL) or a comparison of their records: *cls.
 * 0, -ENOENT (no fingerprint), -ENOMEM, -EIO. */
int simlist_relation(struct idx *ix, struct simcache *c, uint64_t a, uint64_t b,
		     enum relate_class *cls);

/* Clusters (clusters/ and `simbook clusters`): a cluster is a connected
 * group of books whose verified relation is identical file, same text or
 * near duplicate; containment and overlap do not join a cluster (a volume
 * belongs to its complete edition's similar/ list, not to its group of
 * copies).  The pairs come from every candidate source of the similar lists
 * (simhash within the threshold, min-hash bands, text hash, pruning keys),
 * so every near duplicate shown in similar/ links its two books in
 * clusters/. */

/* Judges book id against each of its candidates (those of
 * simlist_compute(), exemptions included: they hide relations at read
 * time, so an undone exemption brings the entry back without a
 * comparison) and stores every related pair with its scores in the index,
 * the ones that join a cluster as links too, and id as judged
 * (idx_rels_set()).  Only a representative is judged, and not against its
 * own copies: a copy (idx_file.is_copy) is in its representative's cluster
 * by definition, and its list is its representative's relations expanded
 * plus its own group (so n copies of a text cost n, not n^2, comparisons
 * and rows).  Each pair is compared from the smaller id's side, on the
 * stored records, so the verdict does not depend on which book was indexed
 * last.  Called once by the indexing work after each idx_put(): the book
 * indexed later of a pair finds the earlier one, so every pair is judged.
 * When id went or became a copy while it was judged, the representative of
 * its fingerprint is judged instead.  Costs what a cold similar list costs.
 * 0, -ENOENT (id has no fingerprint), -ENOMEM, -EIO, -ENOSPC. */
int simlist_judge(struct idx *ix, uint64_t id);
/* simlist_judge() when the nlater books later[] (may be NULL when nlater
 * is 0) were stored together with id and will be judged after it: the
 * pairs with them are left to their own judgement, so a batch of books
 * stored in one transaction compares each of its pairs once, as books
 * stored one by one do.  Same returns. */
int simlist_judge_batch(struct idx *ix, uint64_t id, const uint64_t *later, size_t nlater);

/* The groups of clusters/: idx_link_groups() (the stored links minus
 * exemptions, one pass; same order rules as idx_clusters()).  Free with
 * idx_groups_release(). */
int simlist_clusters(struct idx *ix, struct idx_groups *g);

/* Members of a group whose metadata title is looked at for its title. */
#define SIMLIST_TITLE_MEMBERS 8

/* The title of a group (of the clusters/ and duplicates/ views and the
 * matching simbook queries): the first non-empty metadata title among the
 * books ids[0..n) (at most SIMLIST_TITLE_MEMBERS of them are looked at),
 * else the file name of path (the first member's) without its extension.
 * *title is malloc'd (caller frees).  0 or -ENOMEM. */
int simlist_group_title(struct idx *ix, const uint64_t *ids, size_t n, const char *path,
			char **title);

/* Groups for duplicates/: idx_text_groups() with exempted pairs split
 * apart (the connected components of each group's non-exempted pairs).
 * Same order rules.  Free with idx_groups_release(). */
int simlist_text_groups(struct idx *ix, struct idx_groups *g);

/* ---- the pure parts (unit-tested) ---- */

/* The relation's label in entry names, from the listed book's side:
 * "identical file", "same text", "near duplicate", "part of this" (the
 * entry is contained in the listed book), "contains this", "overlap". */
const char *simlist_label(enum relate_class cls);
/* The score shown: 100 for identical file and same text; a near duplicate's
 * 100 * (1 - estimated difference), at most 99; for containment the part of
 * the contained book found in the other; for overlap the larger covered
 * fraction (or the Jaccard estimate). */
unsigned simlist_score(const struct relate_signals *sig, const struct relate_result *rel);
/* Sorts l->v by rank and (re)names the entries.  0 or -ENOMEM. */
int simlist_rank(struct simlist *l);
/* Writes "RR SSS% LABEL - BASENAME" into out (emptied first), cutting the
 * base name (UTF-8 safe, keeping its extension) to fit NAME_MAX bytes.
 * width: digits of the rank.  0 or -ENOMEM. */
int simlist_name(struct sbuf *out, size_t rank, int width, unsigned score,
		 const char *label, const char *base);
/* Appends base cut to at most max bytes, keeping its extension when short,
 * never splitting a UTF-8 sequence.  0 or -ENOMEM. */
int simlist_fit(struct sbuf *out, const char *base, size_t max);
/* The listing file of the list: a header line, then one line per entry,
 * tab-separated: rank, score, relation (relate_class_name), simhash
 * distance, jaccard, cover_this, cover_other, id (hex), path relative to
 * the mount root.  Tabs, newlines and backslashes in paths are escaped as
 * \t, \n, \\.  0 or -ENOMEM. */
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
