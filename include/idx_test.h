/* idx_test.h - entry points of the index for tests, benchmarks and fuzz
 * targets only (the product does not call them).  Implemented in
 * src/index/idx*.c; ownership and errors as in idx.h.
 */
#ifndef IDX_TEST_H
#define IDX_TEST_H

#include <stddef.h>
#include <stdint.h>

#include "idx.h"

/* Flushes committed writes to disk. */
int idx_sync(struct idx *ix);
/* idx_put() of the n books ids[i] (stat sts[i], fingerprint fps[i]) in one
 * write transaction: all or nothing (bulk loads, where a commit per book
 * dominates).  -ENOENT when any id is unknown; else as idx_put(). */
int idx_put_many(struct idx *ix, const uint64_t *ids, const struct idx_stat *sts,
		 const struct idx_fp *fps, size_t n);
/* Removes the file whose id is id, wherever it is now (as idx_unlink() for
 * one file, by id instead of path, so a newer file at the same path keeps
 * its entry).  -ENOENT when the id is unknown. */
int idx_drop(struct idx *ix, uint64_t id);
/* Every pair of books within d bits (d <= idx_max_d()), each once, sorted by
 * (a, b); exempted pairs are included (filter with idx_exempt_ids()).  A
 * group of k copies gives its k(k-1)/2 pairs: for tools and benchmarks of
 * the band tables, not for the views. */
int idx_near_pairs(struct idx *ix, uint32_t d, struct idx_pair **pairs, size_t *n);
/* Groups of simhash neighbours: connected components (size >= 2) of the
 * pairs within d bits, minus exempted pairs; unverified (the clusters/ view
 * reads idx_link_groups()).  Computed on demand from the band
 * index (measured: see docs/BENCHMARKS.md); cache under idx_generation().
 * Groups are sorted by size (descending) then smallest id; ids ascending
 * within a group.  Free with idx_groups_release(). */
int idx_clusters(struct idx *ix, uint32_t d, struct idx_groups *g);
/* Books linked to id, exemptions included: *ids malloc'd, ascending.
 * Links are stored between representatives (idx_copies()). */
int idx_links_of(struct idx *ix, uint64_t id, uint64_t **ids, size_t *n);
/* 1 when the pair is exempted, 0 when not, -errno. */
int idx_exempt_has(struct idx *ix, uint64_t a, uint64_t b);
/* For tests and repair tools: writes raw bytes into sub-database db (by its
 * name, e.g. "files"), bypassing every rule, so tests can plant hostile
 * values.  Not for normal use. */
int idx_debug_raw_put(struct idx *ix, const char *db, const void *key, size_t klen,
		      const void *val, size_t vlen);

/* Groups of near duplicates as stored (the clusters before average
 * linkage, the harness's baseline): connected components (size >= 2) of
 * the pairs the links stand for, minus exempted pairs, from one pass over
 * the clusters and copies tables (no comparison, no band lookup).  A group
 * of copies is joined whole, and a link between two representatives joins
 * every member of one group to every member of the other; an exemption
 * removes its one pair.  Groups are sorted by size (descending) then
 * smallest id; ids ascending within a group.  Free with
 * idx_groups_release(). */
int idx_link_groups(struct idx *ix, struct idx_groups *g);

#endif
