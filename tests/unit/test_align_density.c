/* Unit tests for the block density of align.h: the share of the
 * distinctive words inside the blocks that align. */
#include <stdlib.h>

#include "align.h"
#include "check.h"

/* n entries, one every 30 words, hashes from base. */
static int make_seq(struct dupniq_seq *s, uint32_t n, uint32_t base)
{
	uint32_t i;

	s->n = n;
	s->nwords = n * 30;
	s->hash = malloc(n * sizeof(*s->hash));
	s->pos = malloc(n * sizeof(*s->pos));
	if (!s->hash || !s->pos)
		return -1;
	for (i = 0; i < n; i++) {
		s->hash[i] = base + i * 2654435761u;
		s->pos[i] = i * 30;
	}
	return 0;
}

static void free_seq(struct dupniq_seq *s)
{
	free(s->hash);
	free(s->pos);
}

/* Whole copy: every word aligned; a third changed (OCR-like): two in
 * three; every other word kept only in B's first half: the blocks there
 * hold one in two; nothing aligned: 0. */
static void test_density(void)
{
	struct dupniq_seq a, b;
	struct align_cover c;
	uint32_t i;

	REQUIRE(make_seq(&a, 1000, 7) == 0);
	REQUIRE(make_seq(&b, 1000, 7) == 0);
	REQUIRE(align_blocks(&a, &b, 0, &c) == 0);
	CHECK(c.density > 0.99);
	for (i = 0; i < 1000; i += 3)
		b.hash[i] ^= 0x5555;
	REQUIRE(align_blocks(&a, &b, 0, &c) == 0);
	CHECK(c.density > 0.64 && c.density < 0.69);
	for (i = 0; i < 1000; i++)
		b.hash[i] = a.hash[i] ^ (i >= 500 || (i & 1) ? 0x5555u : 0u);
	REQUIRE(align_blocks(&a, &b, 0, &c) == 0);
	CHECK(c.density > 0.45 && c.density < 0.55);
	CHECK(c.cover_a > 0.45 && c.cover_a < 0.55);
	for (i = 0; i < 1000; i++)
		b.hash[i] = 0x77777777u ^ i;
	REQUIRE(align_blocks(&a, &b, 0, &c) == 0);
	CHECK(c.density == 0.0);
	free_seq(&a);
	free_seq(&b);
}

int main(void)
{
	RUN(test_density);
	return CHECK_DONE();
}
