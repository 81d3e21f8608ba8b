/* judge.h - which books relate to a book, and how: the judgement.
 *
 * Candidates come from the index: every book within the simhash threshold
 * (exact, band.h), every book sharing a min-hash LSH band (containment and
 * partial overlap, which simhash cannot see), every book with the same
 * text hash, and the books sharing many pruning keys (sampled unique words
 * and shingle anchors, idx.h: a short text inside a long one, OCR-heavy
 * copies, which whole-book sketches miss).  Each candidate is compared with
 * the book on the stored records (book_compare() from the smaller id's
 * side, so a pair has one verdict whichever book is listed: all scores, the
 * relation class of relate.h).
 *
 * The indexing work judges each book once (judge_book()) and stores every
 * relation found in the index (idx_rels_set()), from which simlist.h reads
 * the similar lists back and idx_link_groups() the clusters.  Comparisons
 * made at read time (a book not judged yet) can be cached per pair in a
 * struct judge_cache, valid while both books keep their fingerprints.
 */
#ifndef JUDGE_H
#define JUDGE_H

#include <stddef.h>
#include <stdint.h>

#include "idx.h"
#include "relate.h"

struct book;

/* The comparison of books a < b, from a's side (book_compare(a, b)): a
 * pair has one verdict, whichever book is listed or judged, so a stored
 * list and one computed at read time agree. */
struct judge_pair {
	uint64_t a, b;		/* a < b; used != 0 marks a filled slot */
	uint64_t tag_a, tag_b;	/* fingerprint tags the result is valid for */
	int used;
	enum relate_class cls;	/* a's side */
	unsigned score;		/* judge_score() */
	int dist;
	double jaccard, cover_a, cover_b;	/* fraction of a found in b, of b in a */
};

struct judge_cache;

/* A comparison cache holding at most max_pairs results (0: 1 << 18, about
 * 38 MB once filled); when full it starts over.  Thread-safe.  NULL on
 * -ENOMEM; the caller frees it with judge_cache_free(). */
struct judge_cache *judge_cache_new(size_t max_pairs);
void judge_cache_free(struct judge_cache *c);

/* Candidate sources (judge_candidates()). */
#define JUDGE_SRC_NEAR 1u	/* simhash within idx_max_d() (exact, band.h) */
#define JUDGE_SRC_MINHASH 2u	/* a shared whole-book min-hash LSH band */
#define JUDGE_SRC_TEXT 4u	/* the same exact-text hash */
#define JUDGE_SRC_UNIQUE 8u	/* many shared pruning keys (unique words, shingle anchors) */
#define JUDGE_SRC_NAMES 16u	/* names and numbers in one order (names.h): other translations */
#define JUDGE_SRC_ALL 31u

/* The candidate representatives of book f from the sources (an OR of
 * JUDGE_SRC_*): ids sorted, unique, without f; without f's exemptions
 * unless keep_exempt.  At most 2000 per source (nearest or most shared
 * first; 200 for the pruning keys).  Representatives stand for their copies
 * (judge_expand()); the books with f's own text come one by one (the text
 * source).  *out malloc'd (free()).  0, -ENOMEM, -EIO. */
int judge_gather(struct idx *ix, const struct idx_file *f, unsigned sources, int keep_exempt,
		 uint64_t **out, size_t *nout);

/* The candidates a similar list verifies for book id, from the sources:
 * judge_gather() with exempted ones kept, each expanded into its copies
 * (judge_expand()), then the books exempted from id dropped; ids ascending,
 * unique, without id itself.  For diagnostics (which source finds a pair)
 * and tests.  *ids is malloc'd (free()).  0, -ENOENT (id has no
 * fingerprint), -ENOMEM, -EIO. */
int judge_candidates(struct idx *ix, uint64_t id, unsigned sources, uint64_t **ids, size_t *n);

/* The books a related book rel stands for in the list of book f: rel's
 * group of copies (idx_copies(), identical fingerprints, so each relates to
 * f exactly as rel does and is compared once, through rel) without f; just
 * rel when it has no copies, or when it has f's text (those copies are
 * candidates of their own, through the text source, each compared with f:
 * identical file or same text).  Candidate sources and stored relations
 * name representatives only; every reader that shows books (lists, stored
 * relations) expands them with this.  *ids malloc'd (free()), ascending;
 * *n >= 1 unless rel is f.  0, -ENOMEM, -errno of the index. */
int judge_expand(struct idx *ix, const struct idx_file *f, const struct idx_file *rel,
		 uint64_t **ids, size_t *n);

/* Compares book af (its record loaded on demand into *ba, which the caller
 * frees with book_free()) with book cf, from the smaller id's side, into *r
 * (r->a < r->b; r->used 0 when not compared); from the cache c when it
 * holds the pair on both fingerprints (c may be NULL), else stored in it.
 * 0, -ENOMEM, -ENOTSUP (a record of another version), -errno of the index
 * or of the record's decoding. */
int judge_compare(struct idx *ix, struct judge_cache *c, const struct idx_file *af,
		  struct book **ba, const struct idx_file *cf, struct judge_pair *r);

/* The class from the other book's side (containment swapped). */
enum relate_class judge_mirror(enum relate_class cls);

/* The relation of books a and b from a's point of view (the verdict of
 * the smaller id's side, mirrored for the other, as the lists show it),
 * from the cache (c may be NULL) or a comparison of their records: *cls.
 * 0, -ENOENT (no fingerprint), -ENOMEM, -EIO. */
int judge_relation(struct idx *ix, struct judge_cache *c, uint64_t a, uint64_t b,
		   enum relate_class *cls);

/* The percentage a list shows for a relation, one meaning for every
 * class: the share of the listed book's text found in the other
 * (cover_this), except for a part of the listed book (cls_this
 * RELATE_A_CONTAINS_B: "part of this"), where it is the share of that
 * part found in the listed book (cover_other).  Identical file and same
 * text: 100; otherwise 1..99, and 100 only when all of it was found
 * (another translation: near 1, its wording is not shared); 0 for
 * unrelated.  The covers are judge_shares()'s. */
unsigned judge_share(enum relate_class cls_this, double cover_this, double cover_other);
/* The fractions of a found in b (*a) and of b found in a (*b) that the
 * lists show: the anchor shares (relate_signals share_a/b: the word
 * 5-gram containment), for books too short for anchors the block cover,
 * else the matched text windows. */
void judge_shares(const struct relate_signals *sig, double *a, double *b);
/* judge_share() of the relation from a's side (the pair's score). */
unsigned judge_score(const struct relate_signals *sig, const struct relate_result *rel);

/* Clusters (clusters/ and `simbook clusters`, groups.h): the pairs whose
 * verified relation is identical file, same text or near duplicate are
 * stored as links, and groups.h clusters them (average linkage, so a weak
 * link does not chain two works); containment and overlap do not link (a
 * volume belongs to its complete edition's similar/ list, not to its group
 * of copies).  The pairs come from every candidate source. */

/* Judges book id against each of its candidates (those of
 * judge_gather(), exemptions included: they hide relations at read
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
int judge_book(struct idx *ix, uint64_t id);
/* judge_book() when the nlater books later[] (may be NULL when nlater
 * is 0) were stored together with id and will be judged after it: the
 * pairs with them are left to their own judgement, so a batch of books
 * stored in one transaction compares each of its pairs once, as books
 * stored one by one do.  Same returns. */
int judge_batch(struct idx *ix, uint64_t id, const uint64_t *later, size_t nlater);

#endif
