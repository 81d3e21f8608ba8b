/* grow.h - growing a malloc'd array geometrically.
 *
 *	struct item *v = NULL; size_t n = 0, cap = 0;
 *	if (ARRAY_GROW(v, cap, n + 1))
 *		return -ENOMEM;
 *	v[n++] = x;
 *
 * The capacity at least doubles, so n appends cost O(n) copies in all.
 */
#ifndef GROW_H
#define GROW_H

#include <stddef.h>

/* Makes room for at least need elements of elem bytes in the array whose
 * address is vp (a T ** for an array of T; *vp may be NULL) with capacity
 * *cap.  Returns 0 (*vp and *cap updated when it had to grow), or -ENOMEM
 * (also on size overflow) with *vp and *cap unchanged. */
int array_grow(void *vp, size_t *cap, size_t need, size_t elem);

/* array_grow() for an array variable v (any T *) and its size_t capacity. */
#define ARRAY_GROW(v, cap, need) array_grow(&(v), &(cap), (need), sizeof(*(v)))

#endif
