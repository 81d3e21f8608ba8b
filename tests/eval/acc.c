/* acc.c - accuracy harness: builds the corpus, decides every pair, reports
 * (see acc.h); tuning of relate()'s parameters. */
#include "acc.h"

#include <errno.h>
#include <stdlib.h>

#include "acc_i.h"
#include "monoclock.h"

int acc_run(const struct acc_opts *o, const struct relate_params *p, struct acc_summary *sum)
{
	struct relate_params def;
	struct corpus c;
	enum relate_class *pred = NULL;
	int64_t t0 = monoclock_ns();
	int ret;

	if (!p) {
		relate_params_default(&def);
		p = &def;
	}
	ret = acc_corpus_build(o, &c);
	if (ret)
		goto out;
	pred = calloc(c.npairs ? c.npairs : 1, sizeof(*pred));
	if (!pred) {
		ret = -ENOMEM;
		goto out;
	}
	acc_decide_all(&c, p, pred);
	acc_summarise(&c, pred, sum);
	if (o->out) {
		fprintf(o->out, "\n## Run: seed %llu, %s, bases %s; %u synthetic-corpus pairs, "
			"%zu books, %.1f s\n\nrelate parameters: ", (unsigned long long)o->seed,
			o->quick ? "quick" : "full", o->half ? (o->half == 1 ? "even" : "odd") : "all",
			sum->pairs, c.nbooks, (double)(monoclock_ns() - t0) / 1e9);
		acc_report_params(o->out, p);
	}
	acc_report(o, &c, pred, sum, p);
	if (o->index)
		ret = acc_parity_run(o, &c, pred, sum);
	if (!ret && o->dump)
		acc_dump_pairs(o->dump, &c, pred);
out:
	free(pred);
	acc_corpus_release(&c);
	return ret;
}

/* The values tried by acc_tune() for each parameter. */
static const int g_sh[] = { 4, 6, 7, 8, 10, 12, 14, 16 };
static const int g_rsh[] = { -1, 6, 10, 14, 20 };
static const double g_its[] = { 0.6, 0.65, 0.7, 0.72, 0.75, 0.8, 2 };
static const double g_cs[] = { 0.05, 0.08, 0.12, 0.2, 2 };
static const double g_jac[] = { 0.02, 0.05, 0.1, 0.2, 2 };
static const double g_cmin[] = { 0.05, 0.1, 0.2, 0.3 };
static const double g_cwhole[] = { 0.6, 0.7, 0.75, 0.8, 0.85, 0.9 };
#define N(a) (sizeof(a) / sizeof((a)[0]))

int acc_tune(const struct acc_opts *o, struct relate_params *best, struct acc_summary *sum)
{
	struct acc_opts train = *o, test = *o;
	struct relate_params p, cur;
	struct corpus c;
	enum relate_class *pred = NULL;
	double bestv = -1, v;
	size_t a, k;
	int ret, round;

	train.half = 1;
	train.real = 0;
	ret = acc_corpus_build(&train, &c);
	if (ret)
		goto out;
	pred = calloc(c.npairs ? c.npairs : 1, sizeof(*pred));
	if (!pred) {
		ret = -ENOMEM;
		goto out;
	}
	relate_params_default(&p);
	/* Coordinate search from the defaults (the published thresholds where
	 * there are some): one parameter at a time over its grid, a change
	 * kept only when strictly better, two rounds.  Ties keep the default,
	 * so no threshold drifts towards the negatives for nothing. */
	*best = p;
	acc_decide_all(&c, &p, pred);
	bestv = acc_objective(&c, pred);
	for (round = 0; round < 2; round++) {
		for (k = 0; k < 7; k++) {
			size_t n = k == 0 ? N(g_sh) : k == 1 ? N(g_rsh) : k == 2 ? N(g_its) :
				   k == 3 ? N(g_cs) : k == 4 ? N(g_jac) : k == 5 ? N(g_cmin) : N(g_cwhole);

			for (a = 0; a < n; a++) {
				cur = *best;
				switch (k) {
				case 0: cur.simhash_near = g_sh[a]; break;
				case 1: cur.rsimhash_near = g_rsh[a]; break;
				case 2: cur.its_min = g_its[a]; break;
				case 3: cur.cs_min = g_cs[a]; break;
				case 4: cur.jaccard_min = g_jac[a]; break;
				case 5: cur.cover_min = g_cmin[a]; break;
				default: cur.cover_whole = g_cwhole[a]; break;
				}
				acc_decide_all(&c, &cur, pred);
				v = acc_objective(&c, pred);
				if (v > bestv + 1e-9) {
					bestv = v;
					*best = cur;
				}
			}
		}
	}
	if (o->out) {
		fprintf(o->out, "\n## Tuning on the even-numbered base books, seed %llu "
			"(%zu pairs; coordinate search from the defaults, a change kept only if "
			"strictly better); "
			"best mean class F1 %.4f at\n\n", (unsigned long long)o->seed,
			c.npairs, bestv);
		acc_report_params(o->out, best);
	}
	acc_corpus_release(&c);
	test.half = 2;
	test.seed = o->seed + 1;
	ret = acc_run(&test, best, sum);
out:
	if (ret)
		acc_corpus_release(&c);
	free(pred);
	return ret;
}
