/* acc_methods.c - the single methods of the accuracy harness: each
 * published fingerprint measure alone, at every threshold of its sweep,
 * against relate()'s combined decision, per task (which pairs are
 * positives and which negatives). */
#include "acc_i.h"

#include <string.h>

static const char *const task_names[T_N] = {
	"near duplicates (OCR <= 5%, sentence edits) vs unrelated and same-author pairs",
	"every relation vs unrelated and same-author pairs",
	"the near-duplicate class: near duplicates vs every other pair (partial, contained, unrelated)",
	"the containment class: contained books vs every other pair (near duplicates, partial, unrelated)",
	"real books: pairs listed in RELATIONS.tsv vs every other pair",
};

/* Pairs whose class is ambiguous by construction: left out of the class
 * tasks (they still count in the others). */
static int ambiguous(const struct acc_pair *p)
{
	return p->cat == ACC_IDENT || p->cat == ACC_FORMAT || p->cat == ACC_OCR_HIGH ||
	       (p->accept & ~BIT(p->label)) != 0;
}

/* 1: a positive of task t, -1: a negative, 0: left out. */
static int task_side(enum task t, const struct acc_pair *p)
{
	int cat = p->cat;

	switch (t) {
	case T_NEAR:
		return cat == ACC_OCR_LOW || cat == ACC_SENT || cat == ACC_REVISED ? 1 :
		       is_synth_neg(cat) ? -1 : 0;
	case T_ALL:
		return is_synth_pos(cat) ? 1 : is_synth_neg(cat) ? -1 : 0;
	case T_NEAR_CLASS:
		if (ambiguous(p) || cat >= ACC_REAL_EDITION)
			return 0;
		return cat == ACC_OCR_LOW || cat == ACC_SENT || cat == ACC_REVISED ? 1 : -1;
	case T_CONTAIN_CLASS:
		if (ambiguous(p) || cat >= ACC_REAL_EDITION)
			return 0;
		return cat == ACC_VOLUME || cat == ACC_ANTHOLOGY || cat == ACC_INSERTED ||
		       cat == ACC_TWO_WORKS || cat == ACC_MATERIAL ? 1 : -1;
	default:
		return cat == ACC_REAL_EDITION || cat == ACC_REAL_PART ? 1 :
		       cat == ACC_REAL_UNREL ? -1 : 0;
	}
}

/* Whether relate()'s answer counts as a hit in task t. */
static int task_hit(enum task t, const struct acc_pair *p, enum relate_class pred)
{
	switch (t) {
	case T_NEAR_CLASS:
		return pred == RELATE_NEAR_DUPLICATE;
	case T_CONTAIN_CLASS:
		/* the right direction only */
		return group_of(pred) == G_CONTAIN &&
		       (group_of((enum relate_class)p->label) != G_CONTAIN ||
			pred == (enum relate_class)p->label);
	default:
		return pred != RELATE_UNRELATED;
	}
}

/* A single method: a value per pair and a direction. */
struct method {
	const char *name;
	int lower;		/* 1: related when value <= t */
	double lo, hi, step;	/* sweep */
	double published;	/* the published operating point (NAN: none) */
};

static const struct method methods[] = {
	{ "S1 simhash-128 distance", 1, 0, 64, 1, 7 },
	{ "S4 robust simhash distance", 1, 0, 64, 1, 10 },
	{ "S3 multi-lexicon simhash distance", 1, 0, 32, 1, 3 },
	{ "S2/S4 min-hash B-similarity (of 128)", 0, 1, 128, 1, 2 },
	{ "S5 DUPNIQ cs", 0, 0.01, 1.0, 0.01, 0.12 },
	{ "S5 DUPNIQ its", 0, 0.01, 1.0, 0.01, 0.72 },
};
#define NMETHODS (sizeof(methods) / sizeof(methods[0]))

static double method_value(size_t m, const struct relate_signals *s)
{
	switch (m) {
	case 0: return s->simhash_distance;
	case 1: return s->rsimhash_distance;
	case 2: return s->mlsimhash_distance;
	case 3: return s->bsim * 128.0;
	case 4: return s->dupniq_cs;
	default: return s->dupniq_its;
	}
}

static struct prf method_prf(const struct corpus *c, size_t m, enum task t, double thr)
{
	struct prf r = { 0, 0, 0 };
	size_t i;

	for (i = 0; i < c->npairs; i++) {
		const struct acc_pair *p = &c->pairs[i];
		int side = task_side(t, p), hit;
		double v = method_value(m, &p->sig);

		if (!side)
			continue;
		/* identical texts are found by the exact hashes, whatever the
		 * method: every method sees them as distance 0 anyway */
		hit = methods[m].lower ? v <= thr + 1e-9 : v >= thr - 1e-9;
		if (side > 0 && hit)
			r.tp++;
		else if (side > 0)
			r.fn++;
		else if (hit)
			r.fp++;
	}
	return r;
}

static int task_present(const struct corpus *c, enum task t)
{
	size_t i;
	int pos = 0, neg = 0;

	for (i = 0; i < c->npairs; i++) {
		pos |= task_side(t, &c->pairs[i]) > 0;
		neg |= task_side(t, &c->pairs[i]) < 0;
	}
	return pos && neg;
}

/* relate() on task t. */
static struct prf combined_prf(const struct corpus *c, const enum relate_class *pred, enum task t)
{
	struct prf r = { 0, 0, 0 };
	size_t i;

	for (i = 0; i < c->npairs; i++) {
		int side = task_side(t, &c->pairs[i]), hit = task_hit(t, &c->pairs[i], pred[i]);

		if (side > 0 && hit)
			r.tp++;
		else if (side > 0)
			r.fn++;
		else if (side < 0 && hit)
			r.fp++;
	}
	return r;
}

/* relate()'s F1 on task t, and the best F1 of any single method at its best
 * threshold. */
void acc_best_method(const struct corpus *c, const enum relate_class *pred, enum task t,
			double *combined, double *best_f1, const char **best_name)
{
	struct prf m;
	double best, v;
	size_t k;

	m = combined_prf(c, pred, t);
	*combined = f1(&m);
	*best_f1 = 0;
	*best_name = "";
	for (k = 0; k < NMETHODS; k++) {
		best = 0;
		for (v = methods[k].lo; v <= methods[k].hi + 1e-9; v += methods[k].step) {
			m = method_prf(c, k, t, v);
			if (f1(&m) > best)
				best = f1(&m);
		}
		if (best > *best_f1) {
			*best_f1 = best;
			*best_name = methods[k].name;
		}
	}
}

void acc_report_methods(FILE *f, const struct corpus *c, const enum relate_class *pred, int sweep)
{
	size_t m, t;
	double v, bt;
	struct prf r, best, pub;

	for (t = 0; t < T_N; t++) {
		if (!task_present(c, (enum task)t))
			continue;
		fprintf(f, "\n### Single methods vs combined: %s\n\n"
			"| method | best threshold | P | R | F1 | published threshold | P | R | F1 |\n"
			"|---|--:|--:|--:|--:|--:|--:|--:|--:|\n", task_names[t]);
		for (m = 0; m < NMETHODS; m++) {
			bt = methods[m].lo;
			memset(&best, 0, sizeof(best));
			best.fn = 1;
			for (v = methods[m].lo; v <= methods[m].hi + 1e-9; v += methods[m].step) {
				r = method_prf(c, m, (enum task)t, v);
				if (f1(&r) > f1(&best) + 1e-12) {
					best = r;
					bt = v;
				}
			}
			pub = method_prf(c, m, (enum task)t, methods[m].published);
			fprintf(f, "| %s | %s%g | %.4f | %.4f | %.4f | %s%g | %.4f | %.4f | %.4f |\n",
				methods[m].name, methods[m].lower ? "<= " : ">= ", bt, prec(&best),
				rec(&best), f1(&best), methods[m].lower ? "<= " : ">= ",
				methods[m].published, prec(&pub), rec(&pub), f1(&pub));
		}
		r = combined_prf(c, pred, (enum task)t);
		fprintf(f, "| **combined relate()** | (operating point) | %.4f | %.4f | **%.4f** | | | | |\n",
			prec(&r), rec(&r), f1(&r));
	}
	if (!sweep)
		return;
	for (t = 0; t < T_N; t++) {
		if (!task_present(c, (enum task)t))
			continue;
		for (m = 0; m < NMETHODS; m++) {
			fprintf(f, "\n#### Sweep: %s, %s\n\n| threshold | P | R | F1 |\n|--:|--:|--:|--:|\n",
				methods[m].name, task_names[t]);
			for (v = methods[m].lo; v <= methods[m].hi + 1e-9; v += methods[m].step) {
				r = method_prf(c, m, (enum task)t, v);
				fprintf(f, "| %g | %.4f | %.4f | %.4f |\n", v, prec(&r), rec(&r), f1(&r));
			}
		}
	}
}
