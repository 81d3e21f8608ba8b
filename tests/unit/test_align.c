/* Unit tests for the block alignment of unique-word sequences. */
#include <stdio.h>
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

/* How B is made: from its own hashes (base_b) with A's words put in. */
enum edit {
	E_NONE,		/* B as made */
	E_EVERY3RD,	/* OCR-like damage: a third of the words changed, scattered */
	E_HOLE,		/* B[400..600) replaced by other text */
	E_CONTAINS_A,	/* A's words at B[1000..2000) */
	E_EVERY100TH,	/* isolated coincidences: every 100th word of A */
	E_KEEP_1IN25,	/* A with all but every 25th word changed */
	E_KEEP_1IN5,	/* A with all but every 5th word changed */
};

/* One alignment: align_blocks(A, B) (of B, A when swap); lcs and blocks
 * -1 when not checked, covers in [lo, hi]. */
struct acase {
	const char *what;
	uint32_t na, nb, spacing, base_b;
	enum edit edit;
	int swap;
	int lcs_lo, lcs_hi, blocks;
	double a_lo, a_hi, b_lo, b_hi;
};

static const struct acase cases[] = {
	{ "identical", 1000, 1000, 30, 7, E_NONE, 0, 1000, 1000, 1, .99, 1, .99, 1 },
	{ "scattered damage", 1000, 1000, 30, 7, E_EVERY3RD, 0, 601, 699, -1, .99, 1, .99, 1 },
	{ "a hole", 1000, 1000, 30, 7, E_HOLE, 0, 800, 800, 2, .78, .81, .78, .81 },
	{ "contained", 1000, 3000, 30, 99, E_CONTAINS_A, 0, 1000, 1000, -1, .99, 1, .32, .34 },
	{ "containing", 1000, 3000, 30, 99, E_CONTAINS_A, 1, -1, -1, -1, .32, .34, .99, 1 },
	{ "no common word", 1000, 1000, 30, 12345, E_NONE, 0, 0, 0, -1, 0, 0, 0, 0 },
	{ "isolated coincidences make no block", 1000, 1000, 30, 12345, E_EVERY100TH, 0, 10, 10,
	  0, 0, 0, 0, 1 },
	/* Names shared in order by two books of other wording: every 25th
	 * distinctive word of each is common, so the LCS runs through both
	 * books with even gaps, but 1 pair in 25 distinctive words is no
	 * shared text.  At 1 in 5 (a copy with most words damaged) the blocks
	 * hold. */
	{ "sparse names", 2000, 2000, 10, 7, E_KEEP_1IN25, 0, 80, 80, 0, 0, 0, 0, 0 },
	{ "most words damaged", 2000, 2000, 10, 7, E_KEEP_1IN5, 0, 400, 400, -1, .99, 1, .99, 1 },
};

static void edit_b(enum edit e, const struct dupniq_seq *a, struct dupniq_seq *b)
{
	uint32_t i;

	for (i = 0; i < b->n; i++) {
		switch (e) {
		case E_NONE:
			break;
		case E_EVERY3RD:
			if (i % 3 == 0)
				b->hash[i] ^= 0x5555;
			break;
		case E_HOLE:
			if (i >= 400 && i < 600)
				b->hash[i] = 0x80000000u + i;
			break;
		case E_CONTAINS_A:
			if (i >= 1000 && i < 1000 + a->n)
				b->hash[i] = a->hash[i - 1000];
			break;
		case E_EVERY100TH:
			if (i % 100 == 0)
				b->hash[i] = a->hash[i];
			break;
		case E_KEEP_1IN25:
		case E_KEEP_1IN5:
			b->hash[i] = a->hash[i] ^ (i % (e == E_KEEP_1IN25 ? 25 : 5) ? 0x5555u : 0u);
			break;
		}
	}
}

static void test_cases(void)
{
	struct dupniq_seq a, b;
	struct align_cover c;
	size_t k;
	int failed;

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct acase *t = &cases[k];

		REQUIRE(make_seq(&a, t->na, t->spacing, 7) == 0);
		REQUIRE(make_seq(&b, t->nb, t->spacing, t->base_b) == 0);
		edit_b(t->edit, &a, &b);
		REQUIRE(align_blocks(t->swap ? &b : &a, t->swap ? &a : &b, 0, &c) == 0);
		failed = check_cur_failed;
		if (t->lcs_lo >= 0)
			CHECK(c.lcs >= (uint32_t)t->lcs_lo && c.lcs <= (uint32_t)t->lcs_hi);
		if (t->blocks >= 0)
			CHECK_EQ_INT(c.blocks, t->blocks);
		CHECK(c.cover_a >= t->a_lo && c.cover_a <= t->a_hi);
		CHECK(c.cover_b >= t->b_lo && c.cover_b <= t->b_hi);
		if (check_cur_failed != failed)
			fprintf(stderr, "  case '%s': lcs %u, %u blocks, covers %.4f %.4f\n", t->what,
				(unsigned)c.lcs, (unsigned)c.blocks, c.cover_a, c.cover_b);
		free_seq(&a);
		free_seq(&b);
	}
}

int main(void)
{
	RUN(test_cases);
	return CHECK_DONE();
}
