/* test_rsort.c - the radix sort gives qsort()'s order on random arrays of
 * every size around its thresholds, with few or many distinct digits, all
 * values equal, and values at both ends of the range. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rsort.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int cmp(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

/* Sorts v both ways and compares. */
static int same_as_qsort(const uint64_t *v, size_t n)
{
	uint64_t *a = malloc((n ? n : 1) * sizeof(*a)), *b = malloc((n ? n : 1) * sizeof(*b));
	int ok;

	if (!a || !b) {
		free(a);
		free(b);
		return 0;
	}
	memcpy(a, v, n * sizeof(*a));
	memcpy(b, v, n * sizeof(*b));
	rsort_u64(a, n);
	qsort(b, n, sizeof(*b), cmp);
	ok = !memcmp(a, b, n * sizeof(*a));
	free(a);
	free(b);
	return ok;
}

static void test_random(void)
{
	static const size_t sizes[] = { 0, 1, 2, 3, 63, 64, 65, 100, 1000, 4097, 50000 };
	static const uint64_t masks[] = {
		~0ull, 0xffull, 0xff00ff0000000000ull, 0xffffffff00000000ull, 0x1ull, 0xf0f0ull,
	};
	uint64_t *v = malloc(50000 * sizeof(*v));
	size_t s, m, i;

	REQUIRE(v);
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		for (m = 0; m < sizeof(masks) / sizeof(masks[0]); m++) {
			for (i = 0; i < sizes[s]; i++)
				v[i] = (next() & masks[m]) | 0x0000001200000000ull;
			CHECK(same_as_qsort(v, sizes[s]));
		}
	free(v);
}

static void test_edges(void)
{
	uint64_t v[300];
	size_t i;

	for (i = 0; i < 300; i++)
		v[i] = 42;
	CHECK(same_as_qsort(v, 300));
	for (i = 0; i < 300; i++)
		v[i] = i % 3 == 0 ? 0 : i % 3 == 1 ? UINT64_MAX : UINT64_MAX / 2;
	CHECK(same_as_qsort(v, 300));
	for (i = 0; i < 300; i++)
		v[i] = 300 - i;		/* descending */
	CHECK(same_as_qsort(v, 300));
	rsort_u64(v, 300);
	for (i = 0; i < 300; i++)
		CHECK(v[i] == i + 1);
}

int main(void)
{
	RUN(test_random);
	RUN(test_edges);
	return CHECK_DONE();
}
