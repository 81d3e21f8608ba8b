/* anchorshare.c - share of a book's 5-shingles found in another, from the
 * anchor samples (anchorshare.h). */
#include "anchorshare.h"

#include <errno.h>
#include <stdlib.h>

#define LOW31 0x7FFFFFFFu

static int u32_cmp(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

/* The low 31 bits of src[0..n), ascending and unique, into dst; their number. */
static uint32_t fold(const uint32_t *src, uint32_t n, uint32_t *dst)
{
	uint32_t i, k = 0;

	for (i = 0; i < n; i++)
		dst[i] = src[i] & LOW31;
	qsort(dst, n, sizeof(*dst), u32_cmp);
	for (i = 0; i < n; i++)
		if (!k || dst[k - 1] != dst[i])
			dst[k++] = dst[i];
	return k;
}

/* found of n anchors found: their fraction, except that every anchor of
 * a small sample found does not show the text whole (a 7,000-word story
 * with 4% of it missing has ~55 anchors, all found half the time): just
 * under 1 then. */
static double share(uint32_t found, uint32_t n)
{
	if (found == n && n < ANCHORSHARE_WHOLE)
		return (n - 0.5) / n;
	return (double)found / n;
}

int anchorshare(const uint32_t *a, uint32_t na, int capped_a, const uint32_t *b, uint32_t nb,
		int capped_b, double *share_a, double *share_b)
{
	uint32_t *fa, *fb, ka, kb, lim = LOW31, i = 0, j = 0, ca = 0, cb = 0, both = 0;

	*share_a = *share_b = -1.0;
	if (!na || !nb)
		return 0;
	fa = malloc(((size_t)na + nb) * sizeof(*fa));
	if (!fa)
		return -ENOMEM;
	fb = fa + na;
	ka = fold(a, na, fa);
	kb = fold(b, nb, fb);
	/* a capped sample is complete only up to its largest kept value */
	if (capped_a && fa[ka - 1] < lim)
		lim = fa[ka - 1];
	if (capped_b && fb[kb - 1] < lim)
		lim = fb[kb - 1];
	while (i < ka && j < kb && fa[i] <= lim && fb[j] <= lim) {
		if (fa[i] == fb[j]) {
			both++;
			i++;
			j++;
		} else if (fa[i] < fb[j]) {
			i++;
		} else {
			j++;
		}
	}
	for (i = 0; i < ka && fa[i] <= lim; i++)
		ca++;
	for (j = 0; j < kb && fb[j] <= lim; j++)
		cb++;
	if (ca >= ANCHORSHARE_MIN)
		*share_a = share(both, ca);
	if (cb >= ANCHORSHARE_MIN)
		*share_b = share(both, cb);
	free(fa);
	return 0;
}
