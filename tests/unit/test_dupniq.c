/* Unit tests for DUPNIQ (dupniq.h). */
#include <math.h>

#include "check.h"
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "dupniq.h"
#include "fptest.h"
#include "wordhash.h"

static void seq_of(const char *text, struct dupniq_seq *s)
{
	dupniq_seq_init(s);
	if (dupniq_compute(text, strlen(text), s) < 0)
		dupniq_seq_release(s);
}

static uint32_t h32(const char *w)
{
	return (uint32_t)(XXH3_64bits_withSeed(w, strlen(w), WORDHASH_SEED) >> 32);
}

static void test_sequence(void)
{
	struct dupniq_seq s;

	seq_of("the cat saw the dog and the bird", &s);
	/* once: cat saw dog and bird (words 1 2 4 5 7) */
	REQUIRE(s.n == 5);
	CHECK_EQ_INT(s.nwords, 8);
	CHECK_EQ_INT(s.pos[0], 1);
	CHECK_EQ_INT(s.pos[1], 2);
	CHECK_EQ_INT(s.pos[2], 4);
	CHECK_EQ_INT(s.pos[3], 5);
	CHECK_EQ_INT(s.pos[4], 7);
	CHECK(s.hash[0] == h32("cat"));
	CHECK(s.hash[4] == h32("bird"));
	dupniq_seq_release(&s);
	seq_of("", &s);
	CHECK_EQ_INT(s.n, 0);
	CHECK_EQ_INT(s.nwords, 0);
	dupniq_seq_release(&s);
	seq_of("a a a", &s);
	CHECK_EQ_INT(s.n, 0);
	CHECK_EQ_INT(s.nwords, 3);
	dupniq_seq_release(&s);
}

static void test_compare_small(void)
{
	struct dupniq_seq x, y;
	struct dupniq_result r;

	seq_of("a b c d e", &x);
	seq_of("c a b d e", &y);
	REQUIRE(dupniq_compare(&x, &y, 0, &r) == 0);
	CHECK_EQ_INT(r.common, 5);
	CHECK_EQ_INT(r.lcs, 4);	/* a b d e */
	CHECK(fabs(r.cs - 4.0 / 5.0) < 1e-12);
	CHECK(fabs(r.its - log(4.0) / log(6.0)) < 1e-12);
	CHECK_EQ_INT(r.a_first, 0);
	CHECK_EQ_INT(r.a_last, 4);
	CHECK_EQ_INT(r.b_first, 1);
	CHECK_EQ_INT(r.b_last, 4);
	CHECK(fabs(r.a_cover - 1.0) < 1e-12);
	CHECK(fabs(r.b_cover - 4.0 / 5.0) < 1e-12);
	/* gaps between a b d e: 1 2 1 words in x, 1 1 1 in y */
	CHECK(fabs(r.a_covered - 4.0 / 5.0) < 1e-12);
	CHECK(fabs(r.b_covered - 3.0 / 5.0) < 1e-12);
	CHECK_EQ_INT(r.pruned, 0);
	REQUIRE(dupniq_compare(&x, &y, 6, &r) == 0);
	CHECK_EQ_INT(r.pruned, 1);
	CHECK_EQ_INT(r.common, 5);
	CHECK_EQ_INT(r.lcs, 0);
	dupniq_seq_release(&y);
	seq_of("z y w", &y);
	REQUIRE(dupniq_compare(&x, &y, 0, &r) == 0);
	CHECK_EQ_INT(r.lcs, 0);
	CHECK(r.cs == 0 && r.its == 0);
	dupniq_seq_release(&x);
	dupniq_seq_release(&y);
}

/* LCS length by dynamic programming, for checking the LIS. */
static uint32_t lcs_dp(const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb)
{
	static uint32_t row[2][401];
	uint32_t i, j;

	memset(row, 0, sizeof(row));
	for (i = 1; i <= na; i++)
		for (j = 1; j <= nb; j++)
			row[i & 1][j] = a[i - 1] == b[j - 1] ? row[(i - 1) & 1][j - 1] + 1 :
					row[(i - 1) & 1][j] > row[i & 1][j - 1] ? row[(i - 1) & 1][j] :
					row[i & 1][j - 1];
	return row[na & 1][nb];
}

static void test_lis_vs_dp(void)
{
	uint64_t seed = 42;
	unsigned round;

	for (round = 0; round < 200; round++) {
		uint32_t na = 1 + (uint32_t)(simgen_next(&seed) % 400), nb = 1 + (uint32_t)(simgen_next(&seed) % 400);
		uint32_t ha[400], hb[400], pa[400], pb[400], i, alpha = 50 + (uint32_t)(simgen_next(&seed) % 600);
		uint8_t used[1000];
		struct dupniq_seq x = { 0 }, y = { 0 };
		struct dupniq_result r;

		/* distinct symbols per side, from a shared alphabet */
		memset(used, 0, sizeof(used));
		for (i = 0; i < na; i++) {
			uint32_t v;

			do
				v = (uint32_t)(simgen_next(&seed) % (alpha + na));
			while (used[v]);
			used[v] = 1;
			ha[i] = v;
			pa[i] = i * 3;
		}
		memset(used, 0, sizeof(used));
		for (i = 0; i < nb; i++) {
			uint32_t v;

			do
				v = (uint32_t)(simgen_next(&seed) % (alpha + nb));
			while (used[v]);
			used[v] = 1;
			hb[i] = v;
			pb[i] = i * 2 + 1;
		}
		x.n = na;
		x.hash = ha;
		x.pos = pa;
		x.nwords = na * 3;
		y.n = nb;
		y.hash = hb;
		y.pos = pb;
		y.nwords = nb * 2 + 1;
		REQUIRE(dupniq_compare(&x, &y, 0, &r) == 0);
		CHECK_EQ_INT(r.lcs, lcs_dp(ha, na, hb, nb));
		if (r.lcs) {
			CHECK(r.a_first <= r.a_last && r.b_first <= r.b_last);
			CHECK(r.a_first % 3 == 0 && r.b_first % 2 == 1);
			CHECK(r.a_cover > 0 && r.a_cover <= 1 && r.b_cover > 0 && r.b_cover <= 1);
		}
	}
}

/* A stray match far from the aligned stretch widens the span but adds
 * nothing to the covered fraction. */
static void test_covered(void)
{
	uint32_t hx[101], px[101], hy[101], py[101], i;
	struct dupniq_seq x = { 0 }, y = { 0 };
	struct dupniq_result r;

	for (i = 0; i < 100; i++) {
		hx[i] = hy[i] = i + 1;
		px[i] = i * 10;		/* words 0..990 of x */
		py[i] = 2000 + i * 10;	/* words 2000..2990 of y */
	}
	hx[100] = hy[100] = 500;	/* stray: x word 9000, y word 9500 */
	px[100] = 9000;
	py[100] = 9500;
	x = (struct dupniq_seq){ 101, hx, px, 10000 };
	y = (struct dupniq_seq){ 101, hy, py, 10000 };
	REQUIRE(dupniq_compare(&x, &y, 0, &r) == 0);
	CHECK_EQ_INT(r.lcs, 101);
	CHECK_EQ_INT(r.a_last, 9000);
	CHECK(fabs(r.a_cover - 9001.0 / 10000) < 1e-12);
	CHECK(fabs(r.a_covered - 990.0 / 10000) < 1e-12);
	CHECK(fabs(r.b_covered - 990.0 / 10000) < 1e-12);
}

static void test_lower_bound(void)
{
	static const uint32_t sizes[][2] = { { 100, 100 }, { 2000, 3000 }, { 50, 4000 }, { 5, 7 } };
	unsigned t;

	for (t = 0; t < 4; t++) {
		uint32_t nx = sizes[t][0], ny = sizes[t][1], mn = nx < ny ? nx : ny, l, want = mn + 1;
		uint32_t b = dupniq_lcs_lower_bound(nx, ny, 0.12, 0.72);

		for (l = mn; l >= 1; l--) {
			double cs = l / sqrt((double)nx * ny);
			double its = l >= 2 ? log((double)l) / log((double)nx + ny - l) : 0;

			if (cs >= 0.12 || its >= 0.72)
				want = l;
		}
		CHECK_EQ_INT(b, want);
		CHECK(dupniq_lcs_lower_bound(nx, ny, 0, 0) == mn + 1);
	}
}

static void test_containment(void)
{
	struct dupniq_seq whole, part;
	struct dupniq_result r;
	struct sbuf sb;
	const char *from, *to;
	size_t i;

	sbuf_init(&sb);
	fpt_text(&sb, 31, 30000, 30000);
	seq_of(sb.buf, &whole);
	/* the part: words 10000..19999 of the whole */
	from = sb.buf;
	for (i = 0; i < 10000; i++)
		from = strchr(from, ' ') + 1;
	to = from;
	for (i = 0; i < 9999; i++)
		to = strchr(to, ' ') + 1;
	to = strchr(to, ' ');
	{
		char *p = strndup(from, (size_t)(to - from));

		seq_of(p, &part);
		free(p);
	}
	REQUIRE(dupniq_compare(&part, &whole, 0, &r) == 0);
	CHECK(r.lcs > 0);
	CHECK(r.b_first >= 10000 && r.b_last < 20000);
	CHECK(r.a_cover > 0.95);
	CHECK(r.b_cover > 0.3 && r.b_cover < 0.34);
	CHECK(r.a_covered > 0.9 && r.a_covered <= r.a_cover);
	CHECK(r.b_covered > 0.3 && r.b_covered <= r.b_cover);
	/* the part's unique words that are unique in the whole too align */
	CHECK_EQ_INT(r.lcs, r.common);
	dupniq_seq_release(&whole);
	dupniq_seq_release(&part);
	sbuf_release(&sb);
}

/* Byte-order independent digest of a sequence. */
static uint64_t digest(const struct dupniq_seq *s)
{
	uint64_t d = XXH3_64bits(NULL, 0);
	uint32_t i;

	for (i = 0; i < s->n; i++) {
		uint8_t b[16];
		uint64_t v = (uint64_t)s->hash[i] << 32 | s->pos[i];
		unsigned k;

		for (k = 0; k < 8; k++)
			b[k] = (uint8_t)(v >> (56 - 8 * k));
		memcpy(b + 8, &d, 8);
		d = XXH3_64bits(b, 16);
	}
	return d;
}

static void test_streaming_golden(void)
{
	struct dupniq *dq = dupniq_new();
	struct dupniq_seq one, part;
	struct sbuf sb;
	uint64_t seed;

	REQUIRE(dq);
	dupniq_seq_init(&one);
	dupniq_seq_init(&part);
	sbuf_init(&sb);
	fpt_text(&sb, 1, 20000, 5000);
	REQUIRE(dupniq_compute(sb.buf, sb.len, &one) == 0);
	/* golden (stored: a change needs a new FPREC_VERSION) */
	CHECK_EQ_INT(one.n, 707);
	CHECK(digest(&one) == UINT64_C(0xc88ce41bbf970ddf));
	for (seed = 1; seed <= 20; seed++) {
		FPT_FEED_SPLIT(seed, sb.buf, sb.len, dupniq_update, dq);
		REQUIRE(dupniq_final(dq, &part) == 0);
		CHECK(part.n == one.n && part.nwords == one.nwords);
		CHECK(!memcmp(part.hash, one.hash, one.n * 4) && !memcmp(part.pos, one.pos, one.n * 4));
	}
	REQUIRE(dupniq_seq_copy(&part, &one) == 0);
	CHECK(part.n == one.n && !memcmp(part.pos, one.pos, one.n * 4));
	dupniq_free(dq);
	dupniq_seq_release(&one);
	dupniq_seq_release(&part);
	sbuf_release(&sb);
}

int main(void)
{
	RUN(test_sequence);
	RUN(test_compare_small);
	RUN(test_lis_vs_dp);
	RUN(test_covered);
	RUN(test_lower_bound);
	RUN(test_containment);
	RUN(test_streaming_golden);
	return CHECK_DONE();
}
