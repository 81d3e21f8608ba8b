/* Unit tests for band: layouts, the pigeonhole guarantee, near pairs vs brute force. */
#include <errno.h>
#include <stdint.h>

#include "band.h"
#include "check.h"
#include "simgen.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static void test_layouts(void)
{
	struct band_layout bl;
	uint32_t d, b, sum;

	CHECK_EQ_INT(band_layout_init(&bl, 7), 0);
	CHECK_EQ_INT(bl.nbands, 8);
	CHECK_EQ_INT(bl.value_bytes, 2);
	for (b = 0; b < 8; b++) {
		CHECK_EQ_INT(bl.off[b], 16 * b);
		CHECK_EQ_INT(bl.width[b], 16);
	}
	for (d = 0; d <= BAND_MAX_D; d++) {
		REQUIRE(band_layout_init(&bl, d) == 0);
		CHECK(bl.nbands >= d + 1);
		sum = 0;
		for (b = 0; b < bl.nbands; b++) {
			CHECK_EQ_INT(bl.off[b], sum);
			CHECK(bl.width[b] >= 1 && bl.width[b] <= 64);
			sum += bl.width[b];
		}
		CHECK_EQ_INT(sum, 128);
	}
	CHECK_EQ_INT(band_layout_init(&bl, BAND_MAX_D + 1), -EINVAL);
}

static void test_values(void)
{
	static const uint8_t sh[16] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
					0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10 };
	uint8_t other[16];
	struct band_layout bl;

	band_layout_init(&bl, 7);
	CHECK_EQ_INT(band_value(&bl, sh, 0), 0x0123);
	CHECK_EQ_INT(band_value(&bl, sh, 3), 0xcdef);
	CHECK_EQ_INT(band_value(&bl, sh, 4), 0xfedc);
	CHECK_EQ_INT(band_value(&bl, sh, 7), 0x3210);
	band_layout_init(&bl, 2);	/* 43 + 43 + 42 bits */
	CHECK_EQ_INT(bl.width[0], 43);
	CHECK_EQ_INT(bl.width[2], 42);
	CHECK(band_value(&bl, sh, 0) == (0x0123456789abcdefull >> 21));
	CHECK(band_value(&bl, sh, 2) == (0xfedcba9876543210ull & ((1ull << 42) - 1)));
	CHECK_EQ_INT(band_distance(sh, sh), 0);
	simgen_flip(&rng_state, sh, other, 5);
	CHECK_EQ_INT(band_distance(sh, other), 5);
}

/* Every pair within d shares a band, for every layout, on random pairs. */
static void test_pigeonhole(void)
{
	struct band_layout bl;
	uint8_t a[16], b[16];
	uint32_t d, k, i, misses = 0, far_shared = 0;

	for (d = 0; d <= BAND_MAX_D; d++) {
		band_layout_init(&bl, d);
		for (i = 0; i < (d == 7 ? 200000u : 3000u); i++) {
			simgen_sh(&rng_state, a);
			k = (uint32_t)(simgen_next(&rng_state) % (d + 1));
			simgen_flip(&rng_state, a, b, k);
			if (band_first_shared(&bl, a, b) >= bl.nbands)
				misses++;
		}
	}
	CHECK_EQ_INT(misses, 0);
	/* the check is not vacuous: pairs far apart usually share no band */
	band_layout_init(&bl, 7);
	for (i = 0; i < 1000; i++) {
		simgen_sh(&rng_state, a);
		simgen_flip(&rng_state, a, b, 40);
		far_shared += band_first_shared(&bl, a, b) < bl.nbands;
	}
	CHECK(far_shared < 500);
}

static int pair_cmp(const void *x, const void *y)
{
	const struct band_pair *a = x, *b = y;

	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return a->b < b->b ? -1 : a->b > b->b;
}

static void check_pairs_vs_brute(uint32_t max_d, uint32_t d, size_t n)
{
	uint8_t (*sh)[16] = malloc(n * sizeof(*sh));
	struct band_pair *got = NULL, *want = NULL;
	size_t ngot = 0, nwant = 0, i, j;
	struct band_layout bl;

	REQUIRE(sh);
	band_layout_init(&bl, max_d);
	/* groups of near copies plus unrelated hashes */
	for (i = 0; i < n; i++) {
		if (i % 3 && i > 0)
			simgen_flip(&rng_state, sh[i - 1], sh[i], (uint32_t)(simgen_next(&rng_state) % (d + 3)));
		else
			simgen_sh(&rng_state, sh[i]);
	}
	want = malloc(n * n / 2 * sizeof(*want) + sizeof(*want));
	REQUIRE(want);
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++) {
			uint32_t dist = band_distance(sh[i], sh[j]);

			if (dist <= d) {
				want[nwant].a = (uint32_t)i;
				want[nwant].b = (uint32_t)j;
				want[nwant].dist = dist;
				nwant++;
			}
		}
	CHECK_EQ_INT(band_pairs(&bl, (const uint8_t (*)[16])sh, n, d, &got, &ngot), 0);
	CHECK(nwant > n / 3);
	CHECK_EQ_INT(ngot, nwant);
	if (ngot == nwant && ngot) {
		qsort(got, ngot, sizeof(*got), pair_cmp);
		for (i = 0; i < ngot; i++)
			if (got[i].a != want[i].a || got[i].b != want[i].b || got[i].dist != want[i].dist)
				break;
		CHECK_EQ_INT(i, ngot);
	}
	free(got);
	free(want);
	free(sh);
}

static void test_pairs(void)
{
	struct band_pair *p = NULL;
	struct band_layout bl;
	size_t n = 99;

	check_pairs_vs_brute(7, 7, 3000);
	check_pairs_vs_brute(7, 3, 2000);
	check_pairs_vs_brute(10, 10, 2000);
	check_pairs_vs_brute(2, 2, 1500);
	band_layout_init(&bl, 7);
	CHECK_EQ_INT(band_pairs(&bl, NULL, 0, 7, &p, &n), 0);
	CHECK_EQ_INT(n, 0);
	CHECK_EQ_INT(band_pairs(&bl, NULL, 0, 8, &p, &n), -EINVAL);
}

/* Many identical hashes: every pair once. */
static void test_pairs_identical(void)
{
	uint8_t sh[50][16];
	struct band_pair *p = NULL;
	struct band_layout bl;
	size_t n = 0, i;

	memset(sh, 0xab, sizeof(sh));
	band_layout_init(&bl, 7);
	CHECK_EQ_INT(band_pairs(&bl, (const uint8_t (*)[16])sh, 50, 7, &p, &n), 0);
	CHECK_EQ_INT(n, 50 * 49 / 2);
	for (i = 0; i < n; i++)
		CHECK(p[i].a < p[i].b && p[i].dist == 0);
	free(p);
}

int main(void)
{
	RUN(test_layouts);
	RUN(test_values);
	RUN(test_pigeonhole);
	RUN(test_pairs);
	RUN(test_pairs_identical);
	return CHECK_DONE();
}
