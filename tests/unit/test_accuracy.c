/* The accuracy harness in quick mode (synthetic corpus, fixed seed): the
 * accuracy targets (docs/ACCURACY.md) must hold at the default operating point. */
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

int main(void)
{
	RUN(test_quick_targets);
	return CHECK_DONE();
}
