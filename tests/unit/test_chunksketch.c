/* Unit tests for chunk sketches and chunk alignment (chunksketch.h). */
#include <math.h>

#include "check.h"
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "chunksketch.h"
#include "fptest.h"
#include "minhash.h"
#include "wordhash.h"

/* Sketches text (normalised) with a spine break before every word index
 * listed in brk (ascending, n of them), feeding it word by word. */
static int sketch(const char *text, const uint32_t *brk, unsigned n, struct chunksketch_book *out)
{
	struct chunksketch *ck = chunksketch_new();
	const char *p = text, *e;
	uint32_t w = 0;
	unsigned b = 0;
	int ret = 0;

	if (!ck)
		return -1;
	while (*p) {
		while (b < n && brk[b] == w) {
			chunksketch_break(ck);
			b++;
		}
		e = strchr(p, ' ');
		if (!e)
			e = p + strlen(p);
		if (chunksketch_update(ck, p, (size_t)(e - p) + (*e == ' ')) < 0)
			ret = -1;
		p = *e ? e + 1 : e;
		w++;
	}
	if (chunksketch_final(ck, out) < 0)
		ret = -1;
	chunksketch_free(ck);
	return ret;
}

/* Position of word k in text. */
static const char *word_at(const char *t, size_t k)
{
	while (k-- && t)
		if ((t = strchr(t, ' ')))
			t++;
	return t;
}

static void test_layout(void)
{
	static const uint32_t brk[] = { 0, 0, 100, 100, 1500, 4499 };
	struct chunksketch_book b;
	struct sbuf sb;

	sbuf_init(&sb);
	fpt_text(&sb, 41, 4500, 3000);
	chunksketch_book_init(&b);
	REQUIRE(sketch(sb.buf, brk, 6, &b) == 0);
	CHECK_EQ_INT(b.nwords, 4500);
	REQUIRE(b.spine.n == 4);
	CHECK_EQ_INT(b.spine.c[0].first, 0);
	CHECK_EQ_INT(b.spine.c[0].nwords, 100);
	CHECK_EQ_INT(b.spine.c[1].first, 100);
	CHECK_EQ_INT(b.spine.c[1].nwords, 1400);
	CHECK_EQ_INT(b.spine.c[3].first, 4499);
	CHECK_EQ_INT(b.spine.c[3].nwords, 1);
	/* a one-word last chunk starts no shingle: empty sketch */
	CHECK_EQ_INT(b.spine.c[3].v[0], UINT32_MAX);
	REQUIRE(b.win.n == 3);
	CHECK_EQ_INT(b.win.c[2].first, 4000);
	CHECK_EQ_INT(b.win.c[2].nwords, 500);
	chunksketch_book_release(&b);
	/* no break at all: one spine chunk */
	REQUIRE(sketch(sb.buf, NULL, 0, &b) == 0);
	CHECK_EQ_INT(b.spine.n, 1);
	CHECK_EQ_INT(b.spine.c[0].nwords, 4500);
	chunksketch_book_release(&b);
	REQUIRE(sketch("", NULL, 0, &b) == 0);
	CHECK(b.spine.n == 0 && b.win.n == 0 && b.nwords == 0);
	chunksketch_book_release(&b);
	sbuf_release(&sb);
}

/* The sketch of the chunk [first, first + n) by chunksketch.h's definition. */
static void reference(const char *t, uint32_t first, uint32_t n, uint32_t total, uint32_t *v)
{
	uint64_t w[5], bins[CHUNKSKETCH_K];
	uint32_t i;
	unsigned k;

	for (k = 0; k < CHUNKSKETCH_K; k++)
		bins[k] = UINT32_MAX;
	for (i = first; i < first + n && i + 5 <= total; i++) {
		const char *p = word_at(t, i), *e;
		uint64_t h;

		for (k = 0; k < 5; k++) {
			e = strchr(p, ' ');
			if (!e)
				e = p + strlen(p);
			w[k] = wordhash_of(p, (size_t)(e - p));
			p = e + 1;
		}
		h = minhash_shingle(w, 5);
		if ((uint32_t)(h >> 28) < bins[h >> 60])
			bins[h >> 60] = (uint32_t)(h >> 28);
	}
	minhash_densify(bins, CHUNKSKETCH_K, UINT32_MAX);
	for (k = 0; k < CHUNKSKETCH_K; k++)
		v[k] = (uint32_t)bins[k];
}

static void test_reference(void)
{
	static const uint32_t brk[] = { 0, 7, 300, 301, 2500 };
	struct chunksketch_book b;
	struct sbuf sb;
	uint32_t v[CHUNKSKETCH_K], i;

	sbuf_init(&sb);
	fpt_text(&sb, 43, 3000, 2000);
	chunksketch_book_init(&b);
	REQUIRE(sketch(sb.buf, brk, 5, &b) == 0);
	for (i = 0; i < b.spine.n; i++) {
		reference(sb.buf, b.spine.c[i].first, b.spine.c[i].nwords, 3000, v);
		CHECK(!memcmp(v, b.spine.c[i].v, sizeof(v)));
	}
	for (i = 0; i < b.win.n; i++) {
		reference(sb.buf, b.win.c[i].first, b.win.c[i].nwords, 3000, v);
		CHECK(!memcmp(v, b.win.c[i].v, sizeof(v)));
	}
	chunksketch_book_release(&b);
	sbuf_release(&sb);
}

static void test_streaming_golden(void)
{
	struct chunksketch *ck = chunksketch_new();
	struct chunksketch_book one, part;
	struct sbuf sb;
	uint64_t seed, d = 0;
	uint32_t i;

	REQUIRE(ck);
	sbuf_init(&sb);
	chunksketch_book_init(&one);
	chunksketch_book_init(&part);
	fpt_text(&sb, 1, 20000, 5000);
	REQUIRE(chunksketch_update(ck, sb.buf, sb.len) == 0);
	REQUIRE(chunksketch_final(ck, &one) == 0);
	for (seed = 1; seed <= 10; seed++) {
		FPT_FEED_SPLIT(seed, sb.buf, sb.len, chunksketch_update, ck);
		REQUIRE(chunksketch_final(ck, &part) == 0);
		CHECK(part.win.n == one.win.n && part.spine.n == one.spine.n);
		CHECK(!memcmp(part.win.c, one.win.c, one.win.n * sizeof(*one.win.c)));
	}
	/* golden (stored: a change needs a new FPREC_VERSION) */
	CHECK_EQ_INT(one.win.n, 10);
	for (i = 0; i < one.win.n; i++) {
		unsigned k;

		for (k = 0; k < CHUNKSKETCH_K; k++)
			d = d * 1000003 + one.win.c[i].v[k];
	}
	CHECK(d == UINT64_C(0x480d1a8a3157b64a));
	REQUIRE(chunksketch_book_copy(&part, &one) == 0);
	CHECK(!memcmp(part.win.c, one.win.c, one.win.n * sizeof(*one.win.c)));
	chunksketch_free(ck);
	chunksketch_book_release(&one);
	chunksketch_book_release(&part);
	sbuf_release(&sb);
}

static void test_align(void)
{
	struct chunksketch_book whole, part, other;
	struct chunksketch_fit fit;
	struct sbuf sb, so;
	const char *from, *to;
	char *p;

	sbuf_init(&sb);
	sbuf_init(&so);
	chunksketch_book_init(&whole);
	chunksketch_book_init(&part);
	chunksketch_book_init(&other);
	fpt_text(&sb, 47, 20000, 20000);
	fpt_text(&so, 48, 20000, 20000);
	REQUIRE(sketch(sb.buf, NULL, 0, &whole) == 0);
	REQUIRE(sketch(so.buf, NULL, 0, &other) == 0);
	/* the part: words 3000..10999, windows straddle the whole's */
	from = word_at(sb.buf, 3000);
	to = word_at(sb.buf, 11000) - 1;
	p = strndup(from, (size_t)(to - from));
	REQUIRE(sketch(p, NULL, 0, &part) == 0);
	free(p);

	REQUIRE(chunksketch_align(&whole.win, &whole.win, CHUNKSKETCH_MIN_SIM, &fit) == 0);
	CHECK_EQ_INT(fit.pairs, whole.win.n);
	CHECK(fabs(fit.slope - 1) < 1e-9 && fabs(fit.offset) < 1e-6 && fit.r2 > 0.999);
	CHECK(fit.a_matched == 1 && fit.b_matched == 1 && fit.mean_sim == 1);

	{
		struct chunksketch_pair pairs[8];
		uint32_t n, i;

		REQUIRE(part.win.n <= 8);
		chunksketch_match(&part.win, &whole.win, CHUNKSKETCH_MIN_SIM, pairs, &n);
		CHECK(n >= 3);
		for (i = 0; i < n; i++) {
			/* part window k starts at whole word 3000 + 2000 k: whole
			 * window 1 + k or 2 + k overlaps it by half */
			CHECK(pairs[i].b == pairs[i].a + 1 || pairs[i].b == pairs[i].a + 2);
			CHECK(pairs[i].sim >= CHUNKSKETCH_MIN_SIM);
			CHECK(i == 0 || pairs[i].a > pairs[i - 1].a);
		}
	}
	REQUIRE(chunksketch_align(&part.win, &whole.win, CHUNKSKETCH_MIN_SIM, &fit) == 0);
	CHECK(fit.a_matched >= 0.75);
	CHECK(fit.b_matched <= 0.5);
	CHECK(fit.slope > 0.8 && fit.slope < 1.2);
	CHECK(fit.offset > 1500 && fit.offset < 4500);

	/* the same part and whole, both ending with the same 4,000-word
	 * licence text: the licence pairs fall off the line and are dropped */
	{
		struct chunksketch_book w2, p2;
		struct sbuf lic, t;

		chunksketch_book_init(&w2);
		chunksketch_book_init(&p2);
		sbuf_init(&lic);
		sbuf_init(&t);
		fpt_text(&lic, 49, 4000, 20000);
		sbuf_addstr(&t, sb.buf);
		sbuf_addch(&t, ' ');
		sbuf_addstr(&t, lic.buf);
		REQUIRE(sketch(t.buf, NULL, 0, &w2) == 0);
		sbuf_setlen(&t, 0);
		sbuf_add(&t, from, (size_t)(to - from));
		sbuf_addch(&t, ' ');
		sbuf_addstr(&t, lic.buf);
		REQUIRE(sketch(t.buf, NULL, 0, &p2) == 0);
		REQUIRE(chunksketch_align(&p2.win, &w2.win, CHUNKSKETCH_MIN_SIM, &fit) == 0);
		CHECK(fit.outliers >= 1);
		CHECK(fit.pairs >= 3);
		CHECK(fit.slope > 0.8 && fit.slope < 1.2);
		CHECK(fit.offset > 1500 && fit.offset < 4500);
		chunksketch_book_release(&w2);
		chunksketch_book_release(&p2);
		sbuf_release(&lic);
		sbuf_release(&t);
	}

	REQUIRE(chunksketch_align(&whole.win, &other.win, CHUNKSKETCH_MIN_SIM, &fit) == 0);
	CHECK(fit.a_matched <= 0.1);
	CHECK(fabs(chunksketch_sim(&whole.win.c[0], &whole.win.c[0]) - 1) < 1e-12);
	chunksketch_book_release(&whole);
	chunksketch_book_release(&part);
	chunksketch_book_release(&other);
	sbuf_release(&sb);
	sbuf_release(&so);
}

int main(void)
{
	RUN(test_layout);
	RUN(test_reference);
	RUN(test_streaming_golden);
	RUN(test_align);
	return CHECK_DONE();
}
