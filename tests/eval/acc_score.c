/* acc_score.c - the figures of relate()'s decisions on the corpus of the
 * accuracy harness: precision / recall / F1 per relation class, the
 * summary of a run (acc.h) and the tuning objective. */
#include "acc_i.h"

#include <string.h>

const char *const acc_group_names[G_N] = {
	"identical file", "same text", "near duplicate", "containment", "overlap",
	"other translation", "unrelated",
};

/* Per-group figures of the relate decision over the synthetic pairs
 * except OCR above 5% (outside the targets). */
void acc_group_prf(const struct corpus *c, const enum relate_class *pred, struct prf *g)
{
	size_t i;

	memset(g, 0, G_N * sizeof(*g));
	for (i = 0; i < c->npairs; i++) {
		const struct acc_pair *p = &c->pairs[i];
		int ok = (p->accept & BIT(pred[i])) != 0;

		if (p->cat == ACC_OCR_HIGH || p->cat >= ACC_REAL_EDITION)
			continue;
		if (ok)
			g[group_of(p->label)].tp++;
		else {
			g[group_of(p->label)].fn++;
			g[group_of(pred[i])].fp++;
		}
	}
}

void acc_decide_all(const struct corpus *c, const struct relate_params *p, enum relate_class *pred)
{
	struct relate_result r;
	size_t i;

	for (i = 0; i < c->npairs; i++) {
		relate_decide(&c->pairs[i].sig, p, &r);
		pred[i] = r.cls;
	}
}

void acc_summarise(const struct corpus *c, const enum relate_class *pred, struct acc_summary *s)
{
	struct prf g[G_N];
	size_t i, k;
	unsigned neg = 0, negflag = 0, gn = 0;

	memset(s, 0, sizeof(*s));
	acc_group_prf(c, pred, g);
	s->near_p = prec(&g[G_NEAR]);
	s->near_r = rec(&g[G_NEAR]);
	s->near_f1 = f1(&g[G_NEAR]);
	s->contain_p = prec(&g[G_CONTAIN]);
	s->contain_r = rec(&g[G_CONTAIN]);
	s->contain_f1 = f1(&g[G_CONTAIN]);
	s->overlap_p = prec(&g[G_OVERLAP]);
	s->overlap_r = rec(&g[G_OVERLAP]);
	s->overlap_f1 = f1(&g[G_OVERLAP]);
	s->same_text_p = prec(&g[G_SAME]);
	s->same_text_r = rec(&g[G_SAME]);
	for (k = 0; k < G_N; k++) {
		if (g[k].tp + g[k].fn == 0)
			continue;
		s->macro_f1 += f1(&g[k]);
		gn++;
	}
	s->macro_f1 = gn ? s->macro_f1 / gn : 0;
	for (i = 0; i < c->npairs; i++) {
		const struct acc_pair *p = &c->pairs[i];

		if (p->cat < ACC_REAL_EDITION)
			s->pairs++;
		if (is_synth_pos(p->cat))
			s->positives++;
		if (is_synth_neg(p->cat)) {
			s->negatives++;
			neg++;
			negflag += pred[i] != RELATE_UNRELATED;
		}
		if (is_transl(p->cat)) {
			s->transl++;
			s->transl_dup += is_dup_class(pred[i]);
		}
		if (p->cat == ACC_SPARSE) {
			s->sparse++;
			s->sparse_flagged += pred[i] != RELATE_UNRELATED;
		}
		if (p->cat == ACC_REAL_EDITION || p->cat == ACC_REAL_PART) {
			s->real_pos++;
			s->real_pos_found += pred[i] != RELATE_UNRELATED;
		} else if (p->cat == ACC_REAL_UNREL) {
			s->real_neg++;
			s->real_neg_flagged += pred[i] != RELATE_UNRELATED;
		}
	}
	s->neg_flagged = neg ? (double)negflag / neg : 0;
	acc_best_method(c, pred, T_NEAR_CLASS, &s->combined_f1, &s->best_single_f1, &s->best_single);
	acc_best_method(c, pred, T_ALL, &s->combined_any_f1, &s->best_single_any_f1, &s->best_single_any);
}

/* The tuning objective: mean class F1, and a hard cap on the false-alarm
 * rate (more than 1% of negatives flagged disqualifies). */
double acc_objective(const struct corpus *c, const enum relate_class *pred)
{
	struct prf g[G_N];
	unsigned neg = 0, flagged = 0, gn = 0, k;
	double macro = 0;
	size_t i;

	acc_group_prf(c, pred, g);
	for (k = 0; k < G_N; k++) {
		if (g[k].tp + g[k].fn == 0)
			continue;
		macro += f1(&g[k]);
		gn++;
	}
	for (i = 0; i < c->npairs; i++) {
		if (!is_synth_neg(c->pairs[i].cat))
			continue;
		neg++;
		flagged += pred[i] != RELATE_UNRELATED;
	}
	macro = gn ? macro / gn : 0;
	return macro - (neg && (double)flagged / neg > 0.01 ? 1.0 : 0.0);
}
