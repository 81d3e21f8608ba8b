/* avglink.h - average-linkage clustering of a sparse graph.
 *
 * Items 0..n-1 and edges, the pairs of items that are alike.  The linkage
 * of two clusters is the share of their pairs of items that are edges;
 * the two clusters of highest linkage are merged, again and again, while
 * that linkage is above one half.  So an item joins a cluster only when it
 * is alike with more than half of it: a chain a~b, b~c with a and c not
 * alike never makes one cluster, however long it is, where connected
 * components would join everything a path reaches.
 *
 * Equal linkages go to the pair of clusters with the lowest ranks (a
 * cluster's rank is its lowest member's; the caller gives every item a
 * distinct rank, e.g. from its content): the clusters are a function of
 * the graph and the ranks alone, not of the order the edges come in.
 */
#ifndef AVGLINK_H
#define AVGLINK_H

#include <stddef.h>
#include <stdint.h>

/* Clusters the n items joined by the ne edges[i] (pairs of item indexes;
 * self-pairs and repeats are ignored).  rank[i] is item i's rank (n
 * distinct values; NULL: the index is the rank).  On success label[i] is
 * the item of lowest rank in i's cluster (i itself when it is alone).
 * 0, -EINVAL (an index >= n), -ENOMEM. */
int avglink_cluster(size_t n, const uint32_t *rank, const uint32_t (*edges)[2], size_t ne,
		    uint32_t *label);

#endif
