/* The accuracy harness in quick mode (synthetic corpus, fixed seed): the
 * accuracy targets (docs/ACCURACY.md) must hold at the default operating point. */
#include <string.h>

#include "acc.h"
#include "check.h"

static void test_quick_targets(void)
{
	struct acc_opts o = { 1, 1, NULL, 0, 0, 0, stdout, NULL, 0 };
	struct acc_summary s;

	REQUIRE(acc_run(&o, NULL, &s) == 0);
	CHECK(s.pairs > 80);
	CHECK(s.positives > 50 && s.negatives > 15);
	CHECK(s.near_f1 >= 0.97);
	CHECK(s.contain_p >= 0.99 && s.contain_r >= 0.95);
	CHECK(s.overlap_p >= 0.99 && s.overlap_r >= 0.95);
	CHECK(s.neg_flagged <= 0.01);
	/* translations are never duplicates; sparse alignments never related */
	CHECK(s.transl > 10 && s.transl_dup <= 0.01 * s.transl);
	CHECK(s.sparse > 0 && s.sparse_flagged == 0);
	/* the classes: no single score separates near duplicates from partial
	 * and contained books */
	CHECK(s.combined_f1 > s.best_single_f1);
	/* mere detection of a relation is easy for DUPNIQ alone on this small
	 * synthetic corpus (F1 1.0): relate() must not lose anything there */
	CHECK(s.combined_any_f1 >= s.best_single_any_f1);
}

/* clusters/ of the quick corpus indexed for real: close to the true
 * groups, the same in another indexing order, and never merging two true
 * groups (the quick corpus has no pair on the line). */
static void test_quick_clusters(void)
{
	struct acc_opts o = { 1, 1, NULL, 0, 0, 0, NULL, NULL, 1 };
	struct acc_summary s;

	memset(&s, 0, sizeof(s));
	REQUIRE(acc_run(&o, NULL, &s) == 0);
	CHECK(s.cluster_books > 80);
	CHECK(s.cluster_ari >= 0.90);
	CHECK(s.cluster_p >= 0.99);
	CHECK(s.cluster_order_same == 1);
	CHECK(s.cluster_order_ari == 1.0);
}

int main(void)
{
	RUN(test_quick_targets);
	RUN(test_quick_clusters);
	return CHECK_DONE();
}
