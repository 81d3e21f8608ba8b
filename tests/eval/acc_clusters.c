/* acc_clusters.c - clusters/ of the harness's index (acc_opts.index)
 * scored against the true groups of the corpus (adjusted Rand index and
 * pairwise precision / recall), next to the connected components of the
 * same links; and the corpus indexed again in a shuffled order, whose
 * clusters must be the same. */
#include "acc_i.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "groups.h"
#include "idx_test.h"
#include "judge.h"
#include "rsort.h"
#include "ufind.h"

#define CLUSTER_CLASSES (BIT(RELATE_IDENTICAL_FILE) | BIT(RELATE_SAME_TEXT) | \
			 BIT(RELATE_NEAR_DUPLICATE))

/* The true groups: t[k] names book k's group, the books joined by pairs
 * labelled identical, same text or near duplicate (and accepted as nothing
 * else).  A book of a pair on the line (a cluster class accepted for a pair
 * labelled otherwise, or the other way: a partial with little replaced, a
 * revised edition) is left out: amb[k] = 1. */
static int truth(const struct corpus *c, uint32_t *t, uint8_t *amb)
{
	struct ufind uf;
	size_t i;

	if (ufind_init(&uf, c->nbooks))
		return -ENOMEM;
	for (i = 0; i < c->npairs; i++) {
		const struct acc_pair *p = &c->pairs[i];
		unsigned in = BIT(p->label) & CLUSTER_CLASSES;

		if (in && !(p->accept & ~CLUSTER_CLASSES))
			ufind_union(&uf, p->a, p->b);
		else if (in || (p->accept & CLUSTER_CLASSES))
			amb[p->a] = amb[p->b] = 1;
	}
	for (i = 0; i < c->ntwins; i++)
		ufind_union(&uf, c->twins[i][0], c->twins[i][1]);
	for (i = 0; i < c->nbooks; i++)
		t[i] = (uint32_t)ufind_find(&uf, i);
	ufind_release(&uf);
	return 0;
}

struct idk {
	uint64_t id;
	uint32_t k;
};

static int idk_cmp(const void *pa, const void *pb)
{
	const struct idk *a = pa, *b = pb;

	return a->id < b->id ? -1 : a->id > b->id;
}

/* lab[k] names book k's group in g (ids[k] is book k's id): the book
 * index of its group's first member, k itself when it is in none. */
static int labels(const struct idx_groups *g, const uint64_t *ids, size_t n, uint32_t *lab)
{
	struct idk *m = malloc((n + 1) * sizeof(*m)), key, *f;
	size_t i, j;

	if (!m)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		m[i] = (struct idk){ ids[i], (uint32_t)i };
		lab[i] = (uint32_t)i;
	}
	qsort(m, n, sizeof(*m), idk_cmp);
	for (i = 0; i < g->ngroups; i++) {
		uint32_t first = UINT32_MAX;

		for (j = g->start[i]; j < g->start[i + 1]; j++) {
			key.id = g->ids[j];
			f = bsearch(&key, m, n, sizeof(*m), idk_cmp);
			if (!f)
				continue;
			if (first == UINT32_MAX)
				first = f->k;
			lab[f->k] = first;
		}
	}
	free(m);
	return 0;
}

struct cscore {
	double ari, p, r;
};

/* Sum of C(count, 2) over the runs of the sorted v[0..n). */
static double pairs_of_runs(const uint64_t *v, size_t n)
{
	double s = 0;
	size_t i, j;

	for (i = 0; i < n; i = j) {
		for (j = i; j < n && v[j] == v[i]; j++)
			;
		s += (double)(j - i) * (double)(j - i - 1) / 2;
	}
	return s;
}

/* ARI and pairwise P/R of the labelling p against t over the books not
 * skipped (skip may be NULL). */
static int score(size_t n, const uint32_t *t, const uint32_t *p, const uint8_t *skip,
		 struct cscore *s)
{
	uint64_t *a = malloc((n + 1) * sizeof(*a)), *b = malloc((n + 1) * sizeof(*b));
	uint64_t *ab = malloc((n + 1) * sizeof(*ab));
	double sa, sb, sab, all, exp, max;
	size_t i, m = 0;

	if (!a || !b || !ab) {
		free(a);
		free(b);
		free(ab);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		if (skip && skip[i])
			continue;
		a[m] = t[i];
		b[m] = p[i];
		ab[m++] = (uint64_t)t[i] << 32 | p[i];
	}
	rsort_u64(a, m);
	rsort_u64(b, m);
	rsort_u64(ab, m);
	sa = pairs_of_runs(a, m);
	sb = pairs_of_runs(b, m);
	sab = pairs_of_runs(ab, m);
	all = (double)m * (double)(m - (m > 0)) / 2;
	exp = all > 0 ? sa * sb / all : 0;
	max = (sa + sb) / 2;
	s->ari = max - exp != 0 ? (sab - exp) / (max - exp) : 1.0;
	s->p = sb > 0 ? sab / sb : 1.0;
	s->r = sa > 0 ? sab / sa : 1.0;
	free(a);
	free(b);
	free(ab);
	return 0;
}

/* The clusters (groups_clusters()) and the components (idx_link_groups())
 * of ix as labels per book. */
static int both_labels(struct idx *ix, const uint64_t *ids, size_t n, uint32_t *cl, uint32_t *cc)
{
	struct idx_groups g = { 0 };
	int ret = groups_clusters(ix, &g);

	if (!ret)
		ret = labels(&g, ids, n, cl);
	idx_groups_release(&g);
	if (!ret)
		ret = idx_link_groups(ix, &g);
	if (!ret)
		ret = labels(&g, ids, n, cc);
	idx_groups_release(&g);
	return ret;
}

/* The corpus put into a second index in a shuffled order (each book judged
 * after its store, as the indexer does): ids2[k] is book k's id there. */
static int index_shuffled(const struct acc_opts *o, const struct corpus *c, const char *dir,
			  struct idx **ix, uint64_t *ids2)
{
	uint32_t *ord = malloc((c->nbooks + 1) * sizeof(*ord));
	uint64_t x = o->seed * 0x9E3779B97F4A7C15ull + 1;
	char path[32];
	size_t i;
	int ret;

	if (!ord)
		return -ENOMEM;
	for (i = 0; i < c->nbooks; i++)
		ord[i] = (uint32_t)i;
	for (i = c->nbooks; i > 1; i--) {
		uint32_t j, t;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		j = (uint32_t)(x % i);
		t = ord[i - 1];
		ord[i - 1] = ord[j];
		ord[j] = t;
	}
	ret = idx_open(ix, dir, NULL);
	for (i = 0; i < c->nbooks && !ret; i++) {
		snprintf(path, sizeof(path), "s%06u", ord[i]);
		ret = acc_index_put(*ix, c->books[ord[i]], path, &ids2[ord[i]]);
		if (!ret)
			ret = judge_book(*ix, ids2[ord[i]]);
	}
	free(ord);
	return ret;
}

int acc_clusters_run(const struct acc_opts *o, const struct corpus *c, struct idx *ix,
		     const uint64_t *ids, struct acc_summary *sum)
{
	size_t n = c->nbooks, i, scored = 0;
	uint32_t *t = calloc(n + 1, sizeof(*t)), *cl = calloc(n + 1, sizeof(*cl));
	uint32_t *cc = calloc(n + 1, sizeof(*cc)), *cl2 = calloc(n + 1, sizeof(*cl2));
	uint32_t *cc2 = calloc(n + 1, sizeof(*cc2));
	uint64_t *ids2 = calloc(n + 1, sizeof(*ids2));
	uint8_t *amb = calloc(n + 1, 1);
	struct cscore s, scc, so, socc;
	struct idx *ix2 = NULL;
	char dir[128];
	int ret = -ENOMEM;

	if (!t || !cl || !cc || !cl2 || !cc2 || !ids2 || !amb)
		goto out;
	ret = truth(c, t, amb);
	if (!ret)
		ret = both_labels(ix, ids, n, cl, cc);
	if (!ret)
		ret = score(n, t, cl, amb, &s);
	if (!ret)
		ret = score(n, t, cc, amb, &scc);
	snprintf(dir, sizeof(dir), "%s/index-shuffled", c->tmpdir);
	if (!ret)
		ret = index_shuffled(o, c, dir, &ix2, ids2);
	if (!ret)
		ret = both_labels(ix2, ids2, n, cl2, cc2);
	if (!ret)
		ret = score(n, cl, cl2, NULL, &so);
	if (!ret)
		ret = score(n, cc, cc2, NULL, &socc);
	if (ret)
		goto out;
	for (i = 0; i < n; i++)
		scored += !amb[i];
	sum->cluster_ari = s.ari;
	sum->cluster_p = s.p;
	sum->cluster_r = s.r;
	sum->cluster_ari_cc = scc.ari;
	sum->cluster_p_cc = scc.p;
	sum->cluster_r_cc = scc.r;
	sum->cluster_books = (unsigned)scored;
	sum->cluster_order_ari = so.ari;
	/* the same partition: ARI 1 and every pair agreeing */
	sum->cluster_order_same = so.p == 1.0 && so.r == 1.0;
	if (o->out)
		fprintf(o->out, "\n### clusters/ against the true groups\n\n"
			"The true groups: the books joined by pairs labelled identical file, same "
			"text or near duplicate (a base and its copies, formats, OCR and sentence "
			"edits), and a derived book with its scanned (2%% OCR) copy; %zu books on the line (a partial with 25%% or less replaced, an "
			"anthology that is mostly the book, a revised edition) left out, %zu "
			"scored.  Pairwise: precision = pairs of books sharing a cluster that "
			"share a true group, recall the other way.\n\n"
			"| rule | ARI | pairwise P | pairwise R |\n|---|--:|--:|--:|\n"
			"| clusters/ (`groups_clusters()`: average linkage, > 1/2) | %.4f | %.4f | "
			"%.4f |\n| connected components of the same links (the rule before) | "
			"%.4f | %.4f | %.4f |\n\n"
			"Another indexing order (the corpus indexed again, shuffled with seed "
			"%llu): clusters %s (ARI %.4f between the orders); components %s (ARI "
			"%.4f).\n", n - scored, scored, s.ari, s.p, s.r, scc.ari, scc.p, scc.r,
			(unsigned long long)o->seed,
			sum->cluster_order_same ? "identical" : "DIFFER", so.ari,
			socc.p == 1.0 && socc.r == 1.0 ? "identical" : "differ", socc.ari);
out:
	if (ix2) {
		idx_close(ix2);
		acc_index_remove(dir);
	}
	free(t);
	free(cl);
	free(cc);
	free(cl2);
	free(cc2);
	free(ids2);
	free(amb);
	return ret;
}
