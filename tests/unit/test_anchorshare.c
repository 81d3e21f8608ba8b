/* The share of one text found in another from the anchor samples
 * (anchorshare.h): exact halves, bottom-k when capped, the index's 31-bit
 * keys giving the same share as the full anchors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anchorshare.h"
#include "check.h"
#include "fp.h"
#include "sbuf.h"

/* n pseudo-random distinct words "w<k>" from seed, appended to out. */
static void words(struct sbuf *out, unsigned seed, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		sbuf_addf(out, "w%u%zu ", seed >> 8, i);
	}
}

static void fp_of(const struct sbuf *t, struct fp_book *b)
{
	fp_book_init(b);
	REQUIRE(fp_compute_text(t->buf, t->len, b) == 0);
}

static void test_halves(void)
{
	struct sbuf x, y;
	struct fp_book a, b;
	double sa, sb;

	sbuf_init(&x);
	sbuf_init(&y);
	words(&x, 1, 60000);		/* A: 60k words */
	sbuf_addstr(&y, x.buf);		/* B: A followed by 60k other words */
	words(&y, 2, 60000);
	fp_of(&x, &a);
	fp_of(&y, &b);
	REQUIRE(a.nanchors > 300);
	REQUIRE(anchorshare(a.anchors, a.nanchors, 0, b.anchors, b.nanchors, 0, &sa, &sb) == 0);
	CHECK(sa > 0.99);		/* all of A is in B */
	CHECK(sb > 0.45 && sb < 0.55);	/* half of B is in A */
	/* the index keeps 31 bits: the same share */
	{
		uint32_t *k = malloc(a.nanchors * sizeof(*k)), i;
		double ka, kb;

		REQUIRE(k);
		for (i = 0; i < a.nanchors; i++)
			k[i] = a.anchors[i] & 0x7FFFFFFFu;
		REQUIRE(anchorshare(k, a.nanchors, 0, b.anchors, b.nanchors, 0, &ka, &kb) == 0);
		CHECK(ka == sa && kb == sb);
		free(k);
	}
	fp_book_release(&a);
	fp_book_release(&b);
	sbuf_release(&x);
	sbuf_release(&y);
}

static void test_capped(void)
{
	uint32_t a[FP_ANCHORS_MAX], b[100];
	double sa, sb;
	uint32_t i;

	/* a: every even value below 2 * FP_ANCHORS_MAX (capped there); b:
	 * 50 values inside a's range, 50 far above it, where a's sample says
	 * nothing: only the first 50 are compared */
	for (i = 0; i < FP_ANCHORS_MAX; i++)
		a[i] = 2 * i;
	for (i = 0; i < 50; i++)
		b[i] = 4 * i;
	for (i = 50; i < 100; i++)
		b[i] = 1000000 + i;
	REQUIRE(anchorshare(a, FP_ANCHORS_MAX, 1, b, 100, 0, &sa, &sb) == 0);
	/* all 50 comparable found, but 50 cannot show the text whole */
	CHECK(sb > 0.98 && sb < 1.0);
	CHECK(sa == 50.0 / FP_ANCHORS_MAX);	/* b is complete: 50 of a's found */
	/* uncapped, the far half counts: half of b found */
	REQUIRE(anchorshare(a, FP_ANCHORS_MAX, 0, b, 100, 0, &sa, &sb) == 0);
	CHECK(sb == 0.5);
	/* ANCHORSHARE_WHOLE of them all found: whole */
	REQUIRE(anchorshare(a, ANCHORSHARE_WHOLE, 0, a, FP_ANCHORS_MAX, 1, &sa, &sb) == 0);
	CHECK(sa == 1.0);
}

static void test_too_few(void)
{
	uint32_t a[4] = { 1, 2, 3, 4 }, b[20];
	double sa, sb;
	uint32_t i;

	for (i = 0; i < 20; i++)
		b[i] = i + 1;
	REQUIRE(anchorshare(a, 4, 0, b, 20, 0, &sa, &sb) == 0);
	CHECK(sa == -1.0);	/* 4 anchors: no estimate */
	CHECK(sb == 0.2);
	REQUIRE(anchorshare(NULL, 0, 0, b, 20, 0, &sa, &sb) == 0);
	CHECK(sa == -1.0 && sb == -1.0);
}

int main(void)
{
	RUN(test_halves);
	RUN(test_capped);
	RUN(test_too_few);
	return CHECK_DONE();
}
