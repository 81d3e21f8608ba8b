/* ufind.c - union-find over indexes (ufind.h). */
#include "ufind.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

int ufind_init(struct ufind *u, size_t n)
{
	size_t i;

	u->n = 0;
	u->parent = NULL;
	if (n > SIZE_MAX / sizeof(*u->parent))
		return -ENOMEM;
	u->parent = malloc((n ? n : 1) * sizeof(*u->parent));
	if (!u->parent)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		u->parent[i] = i;
	u->n = n;
	return 0;
}

void ufind_release(struct ufind *u)
{
	free(u->parent);
	u->parent = NULL;
	u->n = 0;
}

size_t ufind_find(struct ufind *u, size_t x)
{
	size_t *p = u->parent;

	while (p[x] != x) {
		p[x] = p[p[x]];
		x = p[x];
	}
	return x;
}

size_t ufind_union(struct ufind *u, size_t a, size_t b)
{
	a = ufind_find(u, a);
	b = ufind_find(u, b);
	if (a == b)
		return a;
	if (a < b) {
		u->parent[b] = a;
		return a;
	}
	u->parent[a] = b;
	return b;
}
