/* Unit tests for the relation rule. */
#include <string.h>

#include "check.h"
#include "relate.h"

/* Scores of two unrelated books: nothing above any threshold. */
static void unrelated(struct relate_signals *s)
{
	memset(s, 0, sizeof(*s));	/* every field, also those added later */
	s->same_file = 0;
	s->same_text = 0;
	s->words_a = 50000;
	s->words_b = 60000;
	s->simhash_distance = 50;
	s->rsimhash_distance = 60;
	s->mlsimhash_distance = 40;
	s->jaccard = 0.001;
	s->bsim = 0.0;
	s->dupniq_cs = 0.01;
	s->dupniq_its = 0.3;
	s->span_cover_a = 0.9;
	s->span_cover_b = 0.9;
	s->block_cover_a = 0.0;
	s->block_cover_b = 0.0;
	s->chunk_cover_a = 0.0;
	s->chunk_cover_b = 0.0;
}

static enum relate_class decide(const struct relate_signals *s)
{
	struct relate_result r;

	relate_decide(s, NULL, &r);
	CHECK(r.rule != NULL);
	return r.cls;
}

static void test_names(void)
{
	CHECK_EQ_STR(relate_class_name(RELATE_UNRELATED), "unrelated");
	CHECK_EQ_STR(relate_class_name(RELATE_NEAR_DUPLICATE), "near-duplicate");
	CHECK_EQ_STR(relate_class_name(RELATE_B_CONTAINS_A), "b-contains-a");
	CHECK_EQ_STR(relate_class_name(RELATE_NCLASSES), "?");
}

static void test_exact(void)
{
	struct relate_signals s;

	unrelated(&s);
	CHECK_EQ_INT(decide(&s), RELATE_UNRELATED);
	s.same_text = 1;
	CHECK_EQ_INT(decide(&s), RELATE_SAME_TEXT);
	s.same_file = 1;
	CHECK_EQ_INT(decide(&s), RELATE_IDENTICAL_FILE);
}

static void test_near(void)
{
	struct relate_signals s;
	struct relate_result r;

	unrelated(&s);
	s.simhash_distance = 3;
	s.chunk_cover_a = 0.93;
	s.chunk_cover_b = 0.95;
	s.dupniq_its = 0.9;
	s.dupniq_cs = 0.8;
	relate_decide(&s, NULL, &r);
	CHECK_EQ_INT(r.cls, RELATE_NEAR_DUPLICATE);
	CHECK(r.difference > 0.19 && r.difference < 0.21);
	/* heavy OCR noise: windows stop matching, unique-word blocks hold,
	 * and the common words keep the simhash close */
	s.simhash_distance = 9;
	s.chunk_cover_a = 0.05;
	s.chunk_cover_b = 0.04;
	s.block_cover_a = 0.97;
	s.block_cover_b = 0.96;
	s.dupniq_cs = 0.3;	/* the damage breaks distinctive words too */
	s.share_a = s.share_b = 0.08;
	CHECK_EQ_INT(decide(&s), RELATE_NEAR_DUPLICATE);
	/* a close simhash without shared text: same author, not a duplicate */
	unrelated(&s);
	s.simhash_distance = 2;
	s.rsimhash_distance = 4;
	CHECK_EQ_INT(decide(&s), RELATE_UNRELATED);
	/* no alignment at all (tiny books): simhash and a text score decide */
	s.words_b = 55000;
	s.chunk_cover_a = s.chunk_cover_b = -1;
	s.block_cover_a = s.block_cover_b = -1;
	s.jaccard = 0.5;
	CHECK_EQ_INT(decide(&s), RELATE_NEAR_DUPLICATE);
	/* ... unless the sizes differ too much */
	s.words_a = 1000;
	CHECK_EQ_INT(decide(&s), RELATE_OVERLAP);
}

/* Butler's and Pope's Iliad as `simbook compare` measures them: names in
 * order, no wording shared. */
static void iliad(struct relate_signals *s)
{
	unrelated(s);
	s->words_a = 153298;
	s->words_b = 189079;
	s->simhash_distance = 17;
	s->rsimhash_distance = 56;
	s->jaccard = 0.0;
	s->dupniq_cs = 0.048;
	s->dupniq_its = 0.587;
	s->dupniq_common = 551;
	s->dupniq_lcs = 203;
	s->span_cover_a = 0.985;
	s->span_cover_b = 0.88;
}

static void test_other_translation(void)
{
	struct relate_signals s;
	struct relate_result r;

	CHECK_EQ_STR(relate_class_name(RELATE_OTHER_TRANSLATION), "other-translation");
	iliad(&s);
	relate_decide(&s, NULL, &r);
	CHECK_EQ_INT(r.cls, RELATE_OTHER_TRANSLATION);
	CHECK(r.difference < 0);
	/* half the words reworded: distinctive words align densely through
	 * both books, yet no shingle and few windows match: never a
	 * duplicate */
	s.dupniq_cs = 0.4;
	s.dupniq_its = 0.83;
	s.block_cover_a = s.block_cover_b = 0.99;
	s.chunk_cover_a = s.chunk_cover_b = 0.4;
	s.simhash_distance = 29;
	s.dupniq_common = 730;
	s.dupniq_lcs = 730;
	CHECK_EQ_INT(decide(&s), RELATE_OTHER_TRANSLATION);
	/* the same with the wording shared: a near duplicate */
	s.jaccard = 0.3;
	s.share_a = s.share_b = 0.46;
	CHECK_EQ_INT(decide(&s), RELATE_NEAR_DUPLICATE);
	/* or with OCR damage: the common words keep the simhash close, and
	 * the distinctive words break as often as the 5-grams */
	s.jaccard = 0.02;
	s.share_a = s.share_b = 0.05;
	s.dupniq_cs = 0.3;
	s.simhash_distance = 9;
	CHECK_EQ_INT(decide(&s), RELATE_NEAR_DUPLICATE);
	/* a translation inside a larger volume: the shorter book's span */
	iliad(&s);
	s.words_b = 900000;
	s.span_cover_b = 0.2;
	CHECK_EQ_INT(decide(&s), RELATE_OTHER_TRANSLATION);
	s.span_cover_a = 0.3;
	CHECK_EQ_INT(decide(&s), RELATE_UNRELATED);
}

/* The King James and the World English Bible's Genesis as `simbook
 * compare` measures them: aligned whole, a fifth of the 5-grams shared, the
 * common words 20 bits apart (issue 13: such pairs were near duplicates). */
static void genesis(struct relate_signals *s)
{
	unrelated(s);
	s->words_a = 38262;
	s->words_b = 35637;
	s->simhash_distance = 20;
	s->rsimhash_distance = 22;
	s->jaccard = 0.141;
	s->dupniq_cs = 0.525;
	s->dupniq_its = 0.859;
	s->dupniq_common = 563;
	s->dupniq_lcs = 538;
	s->span_cover_a = s->span_cover_b = 0.992;
	s->block_cover_a = s->block_cover_b = 0.878;
	s->block_density = 0.6;
	s->chunk_cover_a = 0.60;
	s->chunk_cover_b = 0.61;
	s->share_a = 0.20;
	s->share_b = 0.23;
}

static void test_reworded(void)
{
	struct relate_signals s;
	struct relate_result r;

	genesis(&s);
	relate_decide(&s, NULL, &r);
	CHECK_EQ_INT(r.cls, RELATE_OTHER_TRANSLATION);
	CHECK(r.difference < 0);
	/* Esther: the common words within 10 bits, but the distinctive words
	 * align far better than noise would leave them */
	s.simhash_distance = 10;
	s.share_a = 0.30;
	s.share_b = 0.35;
	s.dupniq_cs = 0.578;
	CHECK_EQ_INT(decide(&s), RELATE_OTHER_TRANSLATION);
	/* names not in order: shared text, no one work */
	s.dupniq_lcs = 20;
	CHECK_EQ_INT(decide(&s), RELATE_OVERLAP);
	/* a revision (a tenth of the words reworded) keeps more 5-grams */
	genesis(&s);
	s.simhash_distance = 9;
	s.share_a = 0.38;
	s.share_b = 0.40;
	CHECK_EQ_INT(decide(&s), RELATE_NEAR_DUPLICATE);
	/* heavy OCR damage: few 5-grams, but the distinctive words broke as
	 * often and the common words stay within 12 bits */
	s.simhash_distance = 12;
	s.share_a = s.share_b = 0.12;
	s.dupniq_cs = 0.36;
	CHECK_EQ_INT(decide(&s), RELATE_NEAR_DUPLICATE);
	s.simhash_distance = 13;
	CHECK_EQ_INT(decide(&s), RELATE_OTHER_TRANSLATION);
	/* within simhash_near the profile says noise, whatever the share */
	s.simhash_distance = 7;
	s.dupniq_cs = 0.6;
	CHECK_EQ_INT(decide(&s), RELATE_NEAR_DUPLICATE);
	/* no share (too few anchors): the rule before */
	genesis(&s);
	s.share_a = -1.0;
	CHECK_EQ_INT(decide(&s), RELATE_NEAR_DUPLICATE);
}

/* Aligned names without shared wording that are not one work: unrelated. */
static void test_sparse_names(void)
{
	struct relate_signals s;

	/* two scripture books (issue 13): a dozen names in order, the block
	 * cover of the old rule spanning them */
	iliad(&s);
	s.dupniq_common = 40;
	s.dupniq_lcs = 12;
	s.dupniq_cs = 0.025;
	s.block_cover_a = 0.96;
	s.block_cover_b = 0.95;
	CHECK_EQ_INT(decide(&s), RELATE_UNRELATED);
	/* two volumes of one series: place names, in order, but few of the
	 * common ones (63 of 258) */
	iliad(&s);
	s.dupniq_common = 258;
	s.dupniq_lcs = 63;
	CHECK_EQ_INT(decide(&s), RELATE_UNRELATED);
	/* as many in order as chance gives (2 sqrt(common)) */
	s.dupniq_common = 900;
	s.dupniq_lcs = 60;
	CHECK_EQ_INT(decide(&s), RELATE_UNRELATED);
}

/* Two books in known languages that differ (lang.h): other translation
 * when their names align in order, else unrelated, whatever text they
 * share (a manual translated with its commands and URLs verbatim). */
static void test_languages(void)
{
	struct relate_signals s;

	iliad(&s);
	s.lang_a = "en";
	s.lang_b = "de";
	s.jaccard = 0.3;	/* shared verbatim parts */
	s.share_a = s.share_b = 0.46;
	s.chunk_cover_a = s.chunk_cover_b = 0.6;
	s.block_cover_a = s.block_cover_b = 0.95;
	CHECK_EQ_INT(decide(&s), RELATE_OTHER_TRANSLATION);
	s.dupniq_lcs = 10;	/* names not in order */
	CHECK_EQ_INT(decide(&s), RELATE_UNRELATED);
	/* one language unknown, or the same: the shared text decides */
	s.dupniq_lcs = 203;
	s.lang_b = "";
	CHECK(decide(&s) != RELATE_OTHER_TRANSLATION && decide(&s) != RELATE_UNRELATED);
	s.lang_b = "en";
	CHECK(decide(&s) != RELATE_OTHER_TRANSLATION && decide(&s) != RELATE_UNRELATED);
}

static void test_short_books(void)
{
	struct relate_signals s;

	/* two short notes sharing most of their words: nothing can align */
	unrelated(&s);
	s.words_a = 300;
	s.words_b = 320;
	s.dupniq_cs = 0.8;
	s.dupniq_its = 0.9;
	s.span_cover_a = s.span_cover_b = 1.0;
	s.simhash_distance = 4;
	CHECK_EQ_INT(decide(&s), RELATE_NEAR_DUPLICATE);
	s.simhash_distance = 30;
	CHECK_EQ_INT(decide(&s), RELATE_OVERLAP);
	/* the same scores between long books with nothing aligned: noise */
	s.words_a = 30000;
	s.words_b = 32000;
	CHECK_EQ_INT(decide(&s), RELATE_UNRELATED);
}

static void test_containment(void)
{
	struct relate_signals s;

	unrelated(&s);
	s.words_a = 10000;
	s.words_b = 120000;
	s.dupniq_its = 0.78;
	s.chunk_cover_a = 0.97;
	s.chunk_cover_b = 0.08;
	CHECK_EQ_INT(decide(&s), RELATE_B_CONTAINS_A);
	s.words_a = 120000;
	s.words_b = 10000;
	s.chunk_cover_a = 0.08;
	s.chunk_cover_b = 0.97;
	CHECK_EQ_INT(decide(&s), RELATE_A_CONTAINS_B);
}

static void test_overlap_and_noise(void)
{
	struct relate_signals s;

	unrelated(&s);
	s.dupniq_its = 0.75;
	s.chunk_cover_a = 0.45;
	s.chunk_cover_b = 0.5;
	s.span_cover_a = 0.55;
	s.span_cover_b = 0.6;
	CHECK_EQ_INT(decide(&s), RELATE_OVERLAP);
	/* a min-hash score above threshold with nothing aligned is noise */
	s.dupniq_its = 0.3;
	s.jaccard = 0.15;
	s.chunk_cover_a = 0.02;
	s.chunk_cover_b = 0.03;
	CHECK_EQ_INT(decide(&s), RELATE_UNRELATED);
}

/* A book with most of it replaced and OCR noise on the rest (the harness's
 * partial overlaps in parts): shingles, windows and simhash show no
 * wording, the names align in order, but a part of each book is aligned
 * densely: overlap, not another translation nor unrelated.  The same
 * covers at a translation's density stay another translation. */
static void test_dense_part(void)
{
	struct relate_signals s;

	unrelated(&s);
	s.words_a = 3520;
	s.words_b = 4410;
	s.simhash_distance = 36;
	s.jaccard = 0.039;
	s.dupniq_cs = 0.115;
	s.dupniq_its = 0.63;
	s.dupniq_common = 141;
	s.dupniq_lcs = 135;
	s.span_cover_a = s.span_cover_b = 0.998;
	s.block_cover_a = 0.251;
	s.block_cover_b = 0.192;
	s.block_density = 0.796;
	CHECK(decide(&s) == RELATE_OVERLAP);
	s.block_density = 0.25;
	CHECK(decide(&s) == RELATE_OTHER_TRANSLATION);
	/* under cover_min on one side: not a part of each */
	s.block_density = 0.796;
	s.block_cover_b = 0.05;
	CHECK(decide(&s) == RELATE_OTHER_TRANSLATION);
	/* aligned whole on one side: the density alone cannot tell OCR damage
	 * from rewording there */
	s.block_cover_b = 0.99;
	CHECK(decide(&s) == RELATE_OTHER_TRANSLATION);
}

/* A sixth of each book replaced under OCR noise: covers 0.87 and 0.80,
 * one over cover_whole but close to the other: overlap; a book whole in
 * another (0.99 against 0.84) is contained. */
static void test_contain_margin(void)
{
	struct relate_signals s;

	unrelated(&s);
	s.simhash_distance = 7;
	s.jaccard = 0.30;
	s.dupniq_cs = 0.29;
	s.dupniq_its = 0.81;
	s.dupniq_common = 4560;
	s.dupniq_lcs = 4534;
	s.block_cover_a = 0.87;
	s.block_cover_b = 0.80;
	s.block_density = 0.67;
	CHECK(decide(&s) == RELATE_OVERLAP);
	s.block_cover_a = 0.99;
	s.block_cover_b = 0.84;
	CHECK(decide(&s) == RELATE_B_CONTAINS_A);
}

int main(void)
{
	RUN(test_names);
	RUN(test_exact);
	RUN(test_other_translation);
	RUN(test_reworded);
	RUN(test_sparse_names);
	RUN(test_languages);
	RUN(test_near);
	RUN(test_short_books);
	RUN(test_containment);
	RUN(test_overlap_and_noise);
	RUN(test_dense_part);
	RUN(test_contain_margin);
	return CHECK_DONE();
}
