/* acc_report.c - the Markdown report of an accuracy run (the targets,
 * relate() per class and per kind of pair, the coverage measures, the
 * single methods, the real-book rows) and the TSV dump of every pair. */
#include "acc_i.h"

#include <stdlib.h>
#include <string.h>

static void report_corpus(FILE *f, const struct corpus *c, const enum relate_class *pred)
{
	unsigned cnt[ACC_NCAT][RELATE_NCLASSES], tot[ACC_NCAT], ok[ACC_NCAT];
	size_t i, k;

	memset(cnt, 0, sizeof(cnt));
	memset(tot, 0, sizeof(tot));
	memset(ok, 0, sizeof(ok));
	for (i = 0; i < c->npairs; i++) {
		const struct acc_pair *p = &c->pairs[i];

		cnt[p->cat][pred[i]]++;
		tot[p->cat]++;
		ok[p->cat] += (p->accept & BIT(pred[i])) != 0;
	}
	fprintf(f, "\n### Decisions per kind of pair (rows: truth, columns: relate() output)\n\n"
		"| pairs | n | correct |");
	for (k = 0; k < RELATE_NCLASSES; k++)
		fprintf(f, " %s |", relate_class_name((enum relate_class)k));
	fprintf(f, "\n|---|--:|--:|");
	for (k = 0; k < RELATE_NCLASSES; k++)
		fprintf(f, "--:|");
	fprintf(f, "\n");
	for (i = 0; i < ACC_NCAT; i++) {
		if (!tot[i])
			continue;
		fprintf(f, "| %s | %u | %.1f%% |", acc_cat_names[i], tot[i], 100.0 * ok[i] / tot[i]);
		for (k = 0; k < RELATE_NCLASSES; k++)
			fprintf(f, " %u |", cnt[i][k]);
		fprintf(f, "\n");
	}
}

static void report_groups(FILE *f, const struct corpus *c, const enum relate_class *pred)
{
	struct prf g[G_N];
	size_t k;

	acc_group_prf(c, pred, g);
	fprintf(f, "\n### relate() per relation class (synthetic pairs, OCR <= 5%%)\n\n"
		"| class | truth | TP | FP | FN | precision | recall | F1 |\n"
		"|---|--:|--:|--:|--:|--:|--:|--:|\n");
	for (k = 0; k < G_N; k++)
		fprintf(f, "| %s | %u | %u | %u | %u | %.4f | %.4f | %.4f |\n", acc_group_names[k],
			g[k].tp + g[k].fn, g[k].tp, g[k].fp, g[k].fn, prec(&g[k]), rec(&g[k]), f1(&g[k]));
}

static void report_real(FILE *f, const struct corpus *c, const enum relate_class *pred)
{
	size_t i;
	unsigned flagged = 0, neg = 0;

	fprintf(f, "\n### Real books: RELATIONS.tsv rows\n\n"
		"| A | B | listed | relate() | simhash | Jaccard | cs | its | windows A/B matched | blocks A/B |\n"
		"|---|---|---|---|--:|--:|--:|--:|--:|--:|\n");
	for (i = 0; i < c->npairs; i++) {
		const struct acc_pair *p = &c->pairs[i];
		const struct relate_signals *s = &p->sig;
		const char *bar;

		if (p->cat == ACC_REAL_UNREL) {
			neg++;
			if (pred[i] != RELATE_UNRELATED) {
				flagged++;
				fprintf(f, "| %s | unrelated | **%s** | %d | %.3f | %.3f | %.3f | %.2f/%.2f | %.2f/%.2f |\n",
					p->name ? p->name : "?", relate_class_name(pred[i]),
					s->simhash_distance, s->jaccard, s->dupniq_cs, s->dupniq_its,
					s->chunk_cover_a, s->chunk_cover_b, s->block_cover_a, s->block_cover_b);
			}
			continue;
		}
		if (p->cat < ACC_REAL_EDITION)
			continue;
		bar = p->name ? strchr(p->name, '|') : NULL;
		fprintf(f, "| %.*s | %s | %s | %s%s | %d | %.3f | %.3f | %.3f | %.2f/%.2f | %.2f/%.2f |\n",
			bar ? (int)(bar - p->name - 1) : 1, p->name ? p->name : "?", bar ? bar + 2 : "?",
			p->cat == ACC_REAL_EDITION ? "edition" :
			p->cat == ACC_REAL_TRANSL ? "other translation" : "part of B",
			relate_class_name(pred[i]), (p->accept & BIT(pred[i])) ? "" : " (miss)",
			s->simhash_distance, s->jaccard, s->dupniq_cs, s->dupniq_its,
			s->chunk_cover_a, s->chunk_cover_b, s->block_cover_a, s->block_cover_b);
	}
	fprintf(f, "\nOther pairs of real books (unlisted, so unrelated): %u, flagged related: %u\n",
		neg, flagged);
}

/* relate() with its coverage signal (the block cover) replaced by each of
 * the other coverage measures: why the rule reads the block cover. */
static void report_ablation(FILE *f, const struct corpus *c, const struct relate_params *p)
{
	static const char *const names[] = {
		"block cover (align.h, the rule's)", "DUPNIQ span (first to last LCS word)",
		"DUPNIQ stretches (fp: equal gaps <= 500 words)", "text windows (chunk sketches)",
	};
	enum relate_class *pred;
	struct acc_summary s;
	size_t i, k;
	struct acc_pair *pairs = NULL;
	struct corpus alt;

	pred = calloc(c->npairs ? c->npairs : 1, sizeof(*pred));
	pairs = malloc((c->npairs ? c->npairs : 1) * sizeof(*pairs));
	if (!pred || !pairs)
		goto out;
	alt = *c;
	alt.pairs = pairs;
	fprintf(f, "\n### Which coverage measure (the rule with each one in place of the block cover)\n\n"
		"| coverage | near dup. F1 | containment P / R | overlap P / R | negatives flagged | mean class F1 |\n"
		"|---|--:|--:|--:|--:|--:|\n");
	for (k = 0; k < 4; k++) {
		for (i = 0; i < c->npairs; i++) {
			struct relate_signals *g = &pairs[i].sig;

			pairs[i] = c->pairs[i];
			if (k == 1) {
				g->block_cover_a = g->span_cover_a;
				g->block_cover_b = g->span_cover_b;
			} else if (k == 2) {
				g->block_cover_a = g->stretch_cover_a;
				g->block_cover_b = g->stretch_cover_b;
			} else if (k == 3) {
				g->block_cover_a = -1;
				g->block_cover_b = -1;
			}
		}
		acc_decide_all(&alt, p, pred);
		acc_summarise(&alt, pred, &s);
		fprintf(f, "| %s | %.4f | %.4f / %.4f | %.4f / %.4f | %.2f%% | %.4f |\n", names[k],
			s.near_f1, s.contain_p, s.contain_r, s.overlap_p, s.overlap_r,
			100.0 * s.neg_flagged, s.macro_f1);
	}
out:
	free(pred);
	free(pairs);
}

static void report_summary(FILE *f, const struct acc_summary *s)
{
	fprintf(f, "\n### Targets\n\n| target | measured | goal | met |\n|---|--:|--:|---|\n");
	fprintf(f, "| near duplicates (OCR <= 5%%, sentence edits) F1 | %.4f | >= 0.97 | %s |\n",
		s->near_f1, s->near_f1 >= 0.97 ? "yes" : "NO");
	fprintf(f, "| containment precision / recall | %.4f / %.4f | >= 0.99 / 0.95 | %s |\n",
		s->contain_p, s->contain_r, s->contain_p >= 0.99 && s->contain_r >= 0.95 ? "yes" : "NO");
	fprintf(f, "| partial duplicates (overlap) precision / recall | %.4f / %.4f | >= 0.99 / 0.95 | %s |\n",
		s->overlap_p, s->overlap_r, s->overlap_p >= 0.99 && s->overlap_r >= 0.95 ? "yes" : "NO");
	fprintf(f, "| unrelated and same-author pairs flagged | %.2f%% | <= 1%% | %s |\n",
		100.0 * s->neg_flagged, s->neg_flagged <= 0.01 ? "yes" : "NO");
	fprintf(f, "| near-duplicate class F1: relate() vs best single method (%s) | %.4f vs %.4f | higher | %s |\n",
		s->best_single, s->combined_f1, s->best_single_f1,
		s->combined_f1 > s->best_single_f1 ? "yes" : "NO");
	fprintf(f, "| any relation F1: relate() vs best single method (%s) | %.4f vs %.4f | (reported) | %s |\n",
		s->best_single_any, s->combined_any_f1, s->best_single_any_f1,
		s->combined_any_f1 > s->best_single_any_f1 ? "higher" :
		s->combined_any_f1 == s->best_single_any_f1 ? "equal" : "lower");
	fprintf(f, "| translations (reworded 25-100%%, real) called near duplicate, containment or overlap | %u of %u (%.2f%%) | <= 1%% | %s |\n",
		s->transl_dup, s->transl, s->transl ? 100.0 * s->transl_dup / s->transl : 0.0,
		s->transl_dup <= 0.01 * s->transl ? "yes" : "NO");
	fprintf(f, "| sparse-alignment negatives (anthology vs third book) flagged | %u of %u | 0 | %s |\n",
		s->sparse_flagged, s->sparse, s->sparse_flagged ? "NO" : "yes");
	if (s->real_pos + s->real_neg)
		fprintf(f, "| real books: listed relations found / other pairs flagged | %u of %u / %u of %u | | |\n",
			s->real_pos_found, s->real_pos, s->real_neg_flagged, s->real_neg);
}

void acc_report(const struct acc_opts *o, const struct corpus *c, const enum relate_class *pred,
		   const struct acc_summary *s, const struct relate_params *p)
{
	FILE *f = o->out;

	if (!f)
		return;
	report_summary(f, s);
	report_groups(f, c, pred);
	report_corpus(f, c, pred);
	acc_partial_report(f, c, pred);
	report_ablation(f, c, p);
	acc_report_methods(f, c, pred, o->sweep);
	if (s->real_pos + s->real_neg)
		report_real(f, c, pred);
}

void acc_dump_pairs(FILE *f, const struct corpus *c, const enum relate_class *pred)
{
	size_t i;

	fprintf(f, "kind\tparam\tlabel\tpredicted\twords_a\twords_b\tsimhash\trsimhash\tmlsh\t"
		"jaccard\tcs\tits\tspan_a\tspan_b\tblock_a\tblock_b\twin_a\twin_b\tstretch_a\tstretch_b\tshare_a\tshare_b\tcommon\tlcs\tdensity\tname\n");
	for (i = 0; i < c->npairs; i++) {
		const struct acc_pair *p = &c->pairs[i];
		const struct relate_signals *s = &p->sig;

		fprintf(f, "%s\t%.3f\t%s\t%s\t%llu\t%llu\t%d\t%d\t%d\t%.4f\t%.4f\t%.4f\t"
			"%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%u\t%u\t%.3f\t%s\n",
			acc_cat_names[p->cat], p->param,
			relate_class_name((enum relate_class)p->label), relate_class_name(pred[i]),
			(unsigned long long)s->words_a, (unsigned long long)s->words_b,
			s->simhash_distance, s->rsimhash_distance, s->mlsimhash_distance, s->jaccard,
			s->dupniq_cs, s->dupniq_its, s->span_cover_a, s->span_cover_b,
			s->block_cover_a, s->block_cover_b, s->chunk_cover_a, s->chunk_cover_b,
			s->stretch_cover_a, s->stretch_cover_b, s->share_a, s->share_b,
			s->dupniq_common, s->dupniq_lcs, s->block_density,
			p->name ? p->name : "");
	}
}

void acc_report_params(FILE *f, const struct relate_params *p)
{
	fprintf(f, "simhash_near=%d rsimhash_near=%d its_min=%.2f cs_min=%.2f jaccard_min=%.2f "
		"cover_min=%.2f cover_whole=%.2f windows_wording=%.2f simhash_wording=%d\n",
		p->simhash_near, p->rsimhash_near, p->its_min, p->cs_min, p->jaccard_min,
		p->cover_min, p->cover_whole, p->windows_wording, p->simhash_wording);
}
