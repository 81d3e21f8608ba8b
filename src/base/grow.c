/* grow.c - geometric growth of malloc'd arrays (grow.h). */
#include "grow.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Small arrays start at this many elements: fewer reallocations for the
 * common lists of a few dozen entries. */
#define GROW_MIN 16

int array_grow(void *vp, size_t *cap, size_t need, size_t elem)
{
	void *old, *p;
	size_t nc;

	if (need <= *cap)
		return 0;
	nc = *cap < GROW_MIN / 2 ? GROW_MIN : *cap * 2;
	if (nc < need)
		nc = need;
	if (elem && nc > SIZE_MAX / elem)
		return -ENOMEM;
	/* vp points at a T *: every object pointer has the representation of
	 * a void * on the platforms we build for (POSIX requires it). */
	memcpy(&old, vp, sizeof(old));
	p = realloc(old, nc * elem);
	if (!p)
		return -ENOMEM;
	memcpy(vp, &p, sizeof(p));
	*cap = nc;
	return 0;
}
