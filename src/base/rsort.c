/* rsort.c - radix sort of 64-bit integers (see rsort.h). */
#include "rsort.h"

#include <stdlib.h>
#include <string.h>

/* Below this, counting 8 digits costs more than comparing. */
#define RSORT_MIN 64

int rsort_cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

void rsort_u64(uint64_t *v, size_t n)
{
	size_t cnt[8][256], i, d, sum, t;
	uint64_t *tmp = NULL, *src = v, *dst, *sw, all_or = 0, all_and = ~(uint64_t)0;

	if (n < 2)
		return;
	if (n < RSORT_MIN || !(tmp = malloc(n * sizeof(*tmp)))) {
		qsort(v, n, sizeof(*v), rsort_cmp_u64);
		return;
	}
	memset(cnt, 0, sizeof(cnt));
	for (i = 0; i < n; i++) {
		uint64_t x = v[i];

		all_or |= x;
		all_and &= x;
		for (d = 0; d < 8; d++)
			cnt[d][(x >> (8 * d)) & 0xff]++;
	}
	dst = tmp;
	for (d = 0; d < 8; d++) {
		/* a digit equal in every value leaves the order as it is */
		if ((((all_or ^ all_and) >> (8 * d)) & 0xff) == 0)
			continue;
		for (sum = 0, i = 0; i < 256; i++) {
			t = cnt[d][i];
			cnt[d][i] = sum;
			sum += t;
		}
		for (i = 0; i < n; i++)
			dst[cnt[d][(src[i] >> (8 * d)) & 0xff]++] = src[i];
		sw = src;
		src = dst;
		dst = sw;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(tmp);
}
