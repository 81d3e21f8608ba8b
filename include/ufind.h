/* ufind.h - union-find (disjoint sets) over the indexes 0..n-1.
 *
 * Path halving, and the smaller root always wins a union: the partition
 * and every root are the same whatever order the unions come in, so
 * groups built on it list the same way on every run.
 */
#ifndef UFIND_H
#define UFIND_H

#include <stddef.h>

struct ufind {
	size_t *parent;	/* owned; parent[x] == x for a root */
	size_t n;
};

/* Makes n singletons.  Returns 0 or -ENOMEM (u is then empty; releasing
 * it is harmless). */
int ufind_init(struct ufind *u, size_t n);

/* Frees the sets; u is empty afterwards. */
void ufind_release(struct ufind *u);

/* The root of x's set (x < n): the smallest index ever joined into it. */
size_t ufind_find(struct ufind *u, size_t x);

/* Joins the sets of a and b.  Returns the root of the union. */
size_t ufind_union(struct ufind *u, size_t a, size_t b);

#endif
