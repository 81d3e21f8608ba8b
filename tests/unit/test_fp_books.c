/* Fingerprint scores on real books ($SIMBOOK_BOOKS/texts, normalised with
 * norm_book): known relations from RELATIONS.tsv must show in the raw
 * scores.  Skipped when the books are absent. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "fp.h"
#include "norm.h"

static int load(const char *name, struct fp_book *b)
{
	const char *dir = getenv("SIMBOOK_BOOKS");
	char path[4096];
	struct norm_doc doc;
	char *buf = NULL;
	long sz;
	FILE *f;
	int ret = -1;

	if (!dir || snprintf(path, sizeof(path), "%s/texts/%s", dir, name) >= (int)sizeof(path))
		return -1;
	f = fopen(path, "rb");
	if (!f)
		return -1;
	norm_doc_init(&doc);
	if (fseek(f, 0, SEEK_END) == 0 && (sz = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)sz)) && fread(buf, 1, (size_t)sz, f) == (size_t)sz &&
	    norm_book(buf, (size_t)sz, NULL, 0, &doc) == 0 && fp_compute(&doc, b) == 0)
		ret = 0;
	norm_doc_release(&doc);
	free(buf);
	fclose(f);
	return ret;
}

static int scores(const char *a, const char *b, struct fp_scores *s)
{
	struct fp_book x, y;
	int ret = -1;

	fp_book_init(&x);
	fp_book_init(&y);
	if (load(a, &x) == 0 && load(b, &y) == 0 && fp_compare(&x, &y, s) == 0)
		ret = 0;
	fp_book_release(&x);
	fp_book_release(&y);
	return ret;
}

static int have_books(void)
{
	struct fp_book probe;
	int ok;

	fp_book_init(&probe);
	ok = load("pg11-alice-in-wonderland.txt", &probe) == 0;
	fp_book_release(&probe);
	return ok;
}

static void test_same_work(void)
{
	struct fp_scores s;

	if (!have_books())
		SKIP("no books in $SIMBOOK_BOOKS/texts");
	/* the same eBook released twice (1998 ASCII vs 2008 UTF-8) */
	REQUIRE(scores("pg1342-pride-and-prejudice.txt",
		       "pg1342-pride-and-prejudice-1998-pandp12.txt", &s) == 0);
	CHECK(s.simhash_distance <= 3);
	CHECK(s.jaccard > 0.9);
	CHECK(s.dupniq.a_covered > 0.95 && s.dupniq.b_covered > 0.95);
	CHECK(fabs(s.win_fit.slope - 1) < 0.05 && s.win_fit.a_matched > 0.9);
	/* two editions of Frankenstein (1831 vs 1818 text) */
	REQUIRE(scores("pg84-frankenstein.txt", "pg41445-frankenstein-1818.txt", &s) == 0);
	CHECK(s.jaccard > 0.5);
	CHECK(s.dupniq.cs > 0.5);
}

static void test_volume(void)
{
	struct fp_scores s;

	if (!have_books())
		SKIP("no books in $SIMBOOK_BOOKS/texts");
	/* Part 1 (chapters 1-5) of Tom Sawyer inside the whole novel */
	REQUIRE(scores("pg7193-tom-sawyer-part1.txt", "pg74-the-adventures-of-tom-sawyer.txt",
		       &s) == 0);
	CHECK(s.dupniq.a_covered > 0.9);
	CHECK(s.dupniq.b_covered < 0.2);
	CHECK(s.win_fit.a_matched > 0.6 && s.win_fit.b_matched < 0.2);
	CHECK(fabs(s.win_fit.slope - 1) < 0.1);
	/* a tale inside an anthology, in its middle */
	REQUIRE(scores("pg932-the-fall-of-the-house-of-usher.txt", "pg2148-works-of-poe-vol2.txt",
		       &s) == 0);
	CHECK(s.dupniq.a_covered > 0.9);
	CHECK(s.dupniq.b_covered < 0.2);
	CHECK(s.win_fit.offset > 10000);
}

static void test_unrelated(void)
{
	struct fp_scores s;

	if (!have_books())
		SKIP("no books in $SIMBOOK_BOOKS/texts");
	/* same author and producer, different text */
	REQUIRE(scores("pg7100-huckleberry-finn-part1-ch01-05.txt", "pg7193-tom-sawyer-part1.txt",
		       &s) == 0);
	CHECK(s.jaccard < 0.05);
	CHECK(s.dupniq.a_covered < 0.1 && s.dupniq.b_covered < 0.1);
	CHECK(s.win_fit.a_matched < 0.2);
	REQUIRE(scores("pg11-alice-in-wonderland.txt", "pg120-treasure-island.txt", &s) == 0);
	CHECK(s.jaccard < 0.05);
	CHECK(s.dupniq.a_covered < 0.1);
	CHECK(s.simhash_distance > 6);
}

int main(void)
{
	RUN(test_same_work);
	RUN(test_volume);
	RUN(test_unrelated);
	return CHECK_DONE();
}
