/* Unit tests for the block alignment of unique-word sequences. */
#include <stdlib.h>

#include "align.h"
#include "check.h"

/* A sequence of n entries, one every `spacing` words, hashes from base. */
static int make_seq(struct dupniq_seq *s, uint32_t n, uint32_t spacing, uint32_t base)
{
	uint32_t i;

	s->n = n;
	s->nwords = n * spacing;
	s->hash = malloc(n * sizeof(*s->hash));
	s->pos = malloc(n * sizeof(*s->pos));
	if (!s->hash || !s->pos)
		return -1;
	for (i = 0; i < n; i++) {
		s->hash[i] = base + i * 2654435761u;
		s->pos[i] = i * spacing;
	}
	return 0;
}

static void free_seq(struct dupniq_seq *s)
{
	free(s->hash);
	free(s->pos);
}

static void test_identical_and_scattered(void)
{
	struct dupniq_seq a, b;
	struct align_cover c;
	uint32_t i;

	REQUIRE(make_seq(&a, 1000, 30, 7) == 0);
	REQUIRE(make_seq(&b, 1000, 30, 7) == 0);
	REQUIRE(align_blocks(&a, &b, 0, &c) == 0);
	CHECK_EQ_INT(c.lcs, 1000);
	CHECK_EQ_INT(c.blocks, 1);
	CHECK(c.cover_a > 0.99 && c.cover_b > 0.99);
	/* OCR-like damage: a third of B's unique words changed, scattered */
	for (i = 0; i < 1000; i += 3)
		b.hash[i] ^= 0x5555;
	REQUIRE(align_blocks(&a, &b, 0, &c) == 0);
	CHECK(c.lcs > 600 && c.lcs < 700);
	CHECK(c.cover_a > 0.99 && c.cover_b > 0.99);
	free_seq(&a);
	free_seq(&b);
}

static void test_hole(void)
{
	struct dupniq_seq a, b;
	struct align_cover c;
	uint32_t i;

	REQUIRE(make_seq(&a, 1000, 30, 7) == 0);
	REQUIRE(make_seq(&b, 1000, 30, 7) == 0);
	/* the middle fifth of B replaced by other text */
	for (i = 400; i < 600; i++)
		b.hash[i] = 0x80000000u + i;
	REQUIRE(align_blocks(&a, &b, 0, &c) == 0);
	CHECK_EQ_INT(c.lcs, 800);
	CHECK_EQ_INT(c.blocks, 2);
	CHECK(c.cover_a > 0.78 && c.cover_a < 0.81);
	CHECK(c.cover_b > 0.78 && c.cover_b < 0.81);
	free_seq(&a);
	free_seq(&b);
}

static void test_contained_and_unrelated(void)
{
	struct dupniq_seq a, b, u;
	struct align_cover c;
	uint32_t i;

	REQUIRE(make_seq(&a, 1000, 30, 7) == 0);
	REQUIRE(make_seq(&b, 3000, 30, 99) == 0);
	REQUIRE(make_seq(&u, 1000, 30, 12345) == 0);
	for (i = 0; i < 1000; i++)
		b.hash[1000 + i] = a.hash[i];
	REQUIRE(align_blocks(&a, &b, 0, &c) == 0);
	CHECK_EQ_INT(c.lcs, 1000);
	CHECK(c.cover_a > 0.99);
	CHECK(c.cover_b > 0.32 && c.cover_b < 0.34);
	REQUIRE(align_blocks(&b, &a, 0, &c) == 0);
	CHECK(c.cover_b > 0.99 && c.cover_a > 0.32 && c.cover_a < 0.34);
	/* no common word */
	REQUIRE(align_blocks(&a, &u, 0, &c) == 0);
	CHECK_EQ_INT(c.lcs, 0);
	CHECK(c.cover_a == 0.0 && c.cover_b == 0.0);
	/* isolated coincidences make no block */
	for (i = 0; i < 1000; i += 100)
		u.hash[i] = a.hash[i];
	REQUIRE(align_blocks(&a, &u, 0, &c) == 0);
	CHECK_EQ_INT(c.lcs, 10);
	CHECK_EQ_INT(c.blocks, 0);
	CHECK(c.cover_a == 0.0);
	free_seq(&a);
	free_seq(&b);
	free_seq(&u);
}

/* Names shared in order by two books of other wording: every 25th
 * distinctive word of each is common, so the LCS runs through both books
 * with even gaps, but 1 pair in 25 distinctive words is no shared text.
 * At 1 in 5 (a copy with most words damaged) the blocks hold. */
static void test_sparse_names(void)
{
	struct dupniq_seq a, b;
	struct align_cover c;
	uint32_t i;

	REQUIRE(make_seq(&a, 2000, 10, 7) == 0);
	REQUIRE(make_seq(&b, 2000, 10, 7) == 0);
	for (i = 0; i < 2000; i++)
		if (i % 25)
			b.hash[i] ^= 0x5555;
	REQUIRE(align_blocks(&a, &b, 0, &c) == 0);
	CHECK_EQ_INT(c.lcs, 80);
	CHECK_EQ_INT(c.blocks, 0);
	CHECK(c.cover_a == 0.0 && c.cover_b == 0.0);
	for (i = 0; i < 2000; i++)
		b.hash[i] = a.hash[i] ^ (i % 5 ? 0x5555u : 0u);
	REQUIRE(align_blocks(&a, &b, 0, &c) == 0);
	CHECK_EQ_INT(c.lcs, 400);
	CHECK(c.cover_a > 0.99 && c.cover_b > 0.99);
	free_seq(&a);
	free_seq(&b);
}

int main(void)
{
	RUN(test_identical_and_scattered);
	RUN(test_hole);
	RUN(test_contained_and_unrelated);
	RUN(test_sparse_names);
	return CHECK_DONE();
}
