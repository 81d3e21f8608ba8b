/* acc_parity.c - the index parity check of the accuracy harness
 * (acc_opts.index): every book of the corpus put into a real LMDB index,
 * judged as the indexer does, and the pairs the similar/ views list scored
 * against the labels next to book_compare()'s decisions. */
#include "acc_i.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bookrec.h"
#include "grow.h"
#include "idx.h"
#include "idxcheck.h"
#include "judge.h"
#include "monoclock.h"
#include "rsort.h"
#include "simlist.h"

/* A pair listed by the views: book a's list holds b with class cls (a's
 * point of view). */
struct listed {
	uint32_t a, b;
	enum relate_class cls;
};

static int listed_cmp(const void *pa, const void *pb)
{
	const struct listed *a = pa, *b = pb;

	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return a->b < b->b ? -1 : a->b > b->b;
}

/* The id -> book index map, sorted by id. */
struct idmap {
	uint64_t id;
	uint32_t k;
};

static int idmap_cmp(const void *pa, const void *pb)
{
	const struct idmap *a = pa, *b = pb;

	return a->id < b->id ? -1 : a->id > b->id;
}

#define NSRC 5	/* candidate sources (src_bits) */

struct parity {
	struct idx *ix;
	struct judge_cache *cache;
	uint64_t *ids;			/* book index -> id */
	struct idmap *map;
	struct listed *v;		/* every listed pair, sorted */
	size_t n, cap;
	uint64_t *cand[NSRC];		/* per source bit: all candidate pairs a << 32 | b, sorted */
	size_t ncand[NSRC];
	size_t maxcand[NSRC];		/* most candidates of one book */
	double t_put, t_list;
	char dir[96];
};

static const unsigned src_bits[NSRC] = {
	JUDGE_SRC_NEAR, JUDGE_SRC_MINHASH, JUDGE_SRC_TEXT, JUDGE_SRC_UNIQUE, JUDGE_SRC_NAMES,
};
static const char *const src_names[NSRC] = {
	"simhash near", "min-hash band", "text hash", "pruning keys", "names in order",
};

static int parity_book_of(const struct parity *pa, size_t nbooks, uint64_t id, uint32_t *k)
{
	struct idmap key = { id, 0 }, *m;

	m = bsearch(&key, pa->map, nbooks, sizeof(*m), idmap_cmp);
	if (!m)
		return -ENOENT;
	*k = m->k;
	return 0;
}

int acc_index_put(struct idx *ix, const struct book *b, const char *path, uint64_t *id)
{
	struct bookrec_fp rf;
	struct idx_stat st;
	int ret;

	memset(&rf, 0, sizeof(rf));
	memset(&st, 0, sizeof(st));
	st.size = b->file_size;
	ret = idx_mark_queued(ix, &path, &st, 1, id);
	if (!ret)
		ret = bookrec_fp_make(b, &rf);
	if (!ret)
		ret = idx_put(ix, *id, &st, &rf.fp);
	bookrec_fp_release(&rf);
	return ret;
}

void acc_index_remove(const char *dir)
{
	static const char *const files[] = { "data.mdb", "lock.mdb", IDXCHECK_STAMP_NAME };
	char p[160];
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, files[i]);
		unlink(p);
	}
	rmdir(dir);
}

static int parity_push(struct parity *pa, uint32_t a, uint32_t b, enum relate_class cls)
{
	if (ARRAY_GROW(pa->v, pa->cap, pa->n + 1))
		return -ENOMEM;
	pa->v[pa->n++] = (struct listed){ a, b, cls };
	return 0;
}

/* Candidates of every book from source s, as sorted pair keys. */
static int parity_sources(struct parity *pa, size_t nbooks, size_t s)
{
	uint64_t *ids = NULL;
	size_t n = 0, cap = 0, i, j;
	uint32_t k;
	int ret = 0;

	for (i = 0; i < nbooks && !ret; i++) {
		ret = judge_candidates(pa->ix, pa->ids[i], src_bits[s], &ids, &n);
		if (n > pa->maxcand[s])
			pa->maxcand[s] = n;
		for (j = 0; j < n && !ret; j++) {
			if (parity_book_of(pa, nbooks, ids[j], &k))
				continue;
			if (ARRAY_GROW(pa->cand[s], cap, pa->ncand[s] + 1)) {
				ret = -ENOMEM;
				break;
			}
			pa->cand[s][pa->ncand[s]++] = (uint64_t)i << 32 | k;
		}
		free(ids);
		ids = NULL;
	}
	if (!ret && pa->ncand[s])
		qsort(pa->cand[s], pa->ncand[s], sizeof(uint64_t), rsort_cmp_u64);
	return ret;
}

static int parity_build(struct parity *pa, const struct corpus *c)
{
	struct simlist *l = NULL;
	char path[32];
	size_t i, j, s;
	uint32_t k;
	int64_t t0;
	int ret;

	snprintf(pa->dir, sizeof(pa->dir), "%s/index", c->tmpdir);
	pa->ids = calloc(c->nbooks ? c->nbooks : 1, sizeof(*pa->ids));
	pa->map = calloc(c->nbooks ? c->nbooks : 1, sizeof(*pa->map));
	pa->cache = judge_cache_new(0);
	if (!pa->ids || !pa->map || !pa->cache)
		return -ENOMEM;
	ret = idx_open(&pa->ix, pa->dir, NULL);
	if (ret)
		return ret;
	t0 = monoclock_ns();
	for (i = 0; i < c->nbooks && !ret; i++) {
		snprintf(path, sizeof(path), "b%06zu", i);
		ret = acc_index_put(pa->ix, c->books[i], path, &pa->ids[i]);
		/* judged after its store, as the indexer does: the lists
		 * below are the stored ones the views read */
		if (!ret)
			ret = judge_book(pa->ix, pa->ids[i]);
		pa->map[i] = (struct idmap){ pa->ids[i], (uint32_t)i };
	}
	if (ret)
		return ret;
	qsort(pa->map, c->nbooks, sizeof(*pa->map), idmap_cmp);
	pa->t_put = (double)(monoclock_ns() - t0) / 1e9;
	t0 = monoclock_ns();
	for (i = 0; i < c->nbooks && !ret; i++) {
		ret = simlist_get(pa->ix, pa->cache, pa->ids[i], NULL, NULL, &l);
		for (j = 0; !ret && j < l->n; j++)
			if (!parity_book_of(pa, c->nbooks, l->v[j].id, &k))
				ret = parity_push(pa, (uint32_t)i, k, l->v[j].cls);
		simlist_free(l);
		l = NULL;
	}
	pa->t_list = (double)(monoclock_ns() - t0) / 1e9;
	if (pa->n)
		qsort(pa->v, pa->n, sizeof(*pa->v), listed_cmp);
	for (s = 0; s < NSRC && !ret; s++)
		if (src_bits[s])
			ret = parity_sources(pa, c->nbooks, s);
	return ret;
}

static void parity_release(struct parity *pa)
{
	size_t s;

	idx_close(pa->ix);
	judge_cache_free(pa->cache);
	free(pa->ids);
	free(pa->map);
	free(pa->v);
	for (s = 0; s < NSRC; s++)
		free(pa->cand[s]);
	if (pa->dir[0])
		acc_index_remove(pa->dir);
	memset(pa, 0, sizeof(*pa));
}

/* The class book a's list gives b, unrelated when b is not listed. */
static enum relate_class parity_class(const struct parity *pa, uint32_t a, uint32_t b, int *listed)
{
	struct listed key = { a, b, RELATE_UNRELATED }, *m;

	m = pa->n ? bsearch(&key, pa->v, pa->n, sizeof(*pa->v), listed_cmp) : NULL;
	*listed = m != NULL;
	return m ? m->cls : RELATE_UNRELATED;
}

static int parity_has(const struct parity *pa, size_t s, uint32_t a, uint32_t b)
{
	uint64_t key = (uint64_t)a << 32 | b;

	return pa->ncand[s] && bsearch(&key, pa->cand[s], pa->ncand[s], sizeof(key), rsort_cmp_u64) != NULL;
}

/* Scores the views' answers (predi) against the labels next to book_compare's
 * (pred), and says why each differing pair differs. */
static void parity_report(const struct acc_opts *o, const struct corpus *c, const struct parity *pa,
			  const enum relate_class *pred, const enum relate_class *predi,
			  struct acc_summary *sum)
{
	FILE *f = o->out;
	struct prf g[G_N], gi[G_N];
	unsigned found[NSRC] = { 0 }, rel = 0, only[NSRC] = { 0 }, shown = 0;
	unsigned unlabelled = 0, by;
	size_t i, s, k, gn = 0;
	const char *nm;
	enum relate_class vc;

	acc_group_prf(c, pred, g);
	acc_group_prf(c, predi, gi);
	sum->index_macro_f1 = 0;
	for (k = 0; k < G_N; k++) {
		if (gi[k].tp + gi[k].fn == 0)
			continue;
		sum->index_macro_f1 += f1(&gi[k]);
		gn++;
	}
	sum->index_macro_f1 = gn ? sum->index_macro_f1 / gn : 0;
	for (i = 0; i < c->npairs; i++) {
		const struct acc_pair *p = &c->pairs[i];

		if (pred[i] == RELATE_UNRELATED)
			continue;
		rel++;
		by = 0;
		for (s = 0; s < NSRC; s++)
			if (src_bits[s] && parity_has(pa, s, p->a, p->b)) {
				found[s]++;
				by |= 1u << s;
			}
		for (s = 0; s < NSRC; s++)
			if (by == 1u << s)
				only[s]++;
	}
	/* listed pairs that are not labelled pairs (e.g. two derived books of
	 * one base): listed, not scored */
	for (i = 0; i < pa->n; i++) {
		int l;

		(void)parity_class(pa, pa->v[i].b, pa->v[i].a, &l);
		unlabelled += pa->v[i].a < pa->v[i].b || !l;
	}
	for (i = 0; i < c->npairs; i++) {
		const struct acc_pair *p = &c->pairs[i];
		int l1, l2;

		(void)parity_class(pa, p->a, p->b, &l1);
		(void)parity_class(pa, p->b, p->a, &l2);
		if ((l1 || l2) && unlabelled)
			unlabelled--;
	}
	if (!f)
		return;
	fprintf(f, "\n### The index's views against book_compare() (the index loses nothing?)\n\n"
		"Every book of the corpus (%zu) put into a real LMDB index and judged as the indexer "
		"does (%.1f s: the index's candidates verified on the stored records, every relation "
		"stored), the list of `similar/<book>/` read for each (`simlist_get()`: the stored "
		"relations; %.1f s), and each labelled pair scored by the class "
		"its first book's list gives the second (not listed: unrelated).\n\n"
		"| class | truth | compare P | R | F1 | views P | R | F1 |\n"
		"|---|--:|--:|--:|--:|--:|--:|--:|\n", c->nbooks, pa->t_put, pa->t_list);
	for (k = 0; k < G_N; k++)
		fprintf(f, "| %s | %u | %.4f | %.4f | %.4f | %.4f | %.4f | %.4f |\n", acc_group_names[k],
			g[k].tp + g[k].fn, prec(&g[k]), rec(&g[k]), f1(&g[k]), prec(&gi[k]),
			rec(&gi[k]), f1(&gi[k]));
	fprintf(f, "\nMean class F1: compare %.4f, views %.4f.  Pairs whose class differs: %u "
		"(no candidate: %u, the stored records compare to another class: %u); listed on "
		"one side only: %u; related pairs listed that carry no label: %u.\n",
		sum->macro_f1, sum->index_macro_f1, sum->index_differ, sum->index_no_candidate,
		sum->index_verify_differs, sum->index_asymmetric, unlabelled);
	fprintf(f, "\nCandidate sources of the %u labelled pairs book_compare() calls related (a "
		"pair can come from several), and what each source costs: candidates per book "
		"(each one is a comparison of two records) and the share of them the comparison "
		"lists:\n\n| source | labelled pairs proposed | only by this source | candidates per "
		"book, mean | max | listed |\n|---|--:|--:|--:|--:|--:|\n", rel);
	for (s = 0; s < NSRC; s++) {
		size_t lst = 0;

		if (!src_bits[s])
			continue;
		for (i = 0; i < pa->ncand[s]; i++) {
			int l;

			(void)parity_class(pa, (uint32_t)(pa->cand[s][i] >> 32), (uint32_t)pa->cand[s][i], &l);
			lst += (size_t)l;
		}
		fprintf(f, "| %s | %u | %u | %.1f | %zu | %.1f%% |\n", src_names[s], found[s], only[s],
			c->nbooks ? (double)pa->ncand[s] / (double)c->nbooks : 0.0, pa->maxcand[s],
			pa->ncand[s] ? 100.0 * (double)lst / (double)pa->ncand[s] : 0.0);
	}
	for (i = 0; i < c->npairs; i++) {
		const struct acc_pair *p = &c->pairs[i];
		int l1;

		if (pred[i] == predi[i])
			continue;
		if (!shown++)
			fprintf(f, "\nPairs that differ:\n\n| kind | label | compare | views | why |\n"
				"|---|---|---|---|---|\n");
		if (shown > 40)
			continue;
		vc = parity_class(pa, p->a, p->b, &l1);
		for (s = 0, by = 0; s < NSRC; s++)
			by |= src_bits[s] && parity_has(pa, s, p->a, p->b);
		fprintf(f, "| %s%s", acc_cat_names[p->cat], p->name ? ": " : "");
		for (nm = p->name; nm && *nm; nm++)	/* "a | b": no '|' in a table cell */
			fputs(*nm == '|' ? "vs" : (char[2]){ *nm, 0 }, f);
		fprintf(f, " | %s | %s | %s | %s |\n", relate_class_name((enum relate_class)p->label),
			relate_class_name(pred[i]), relate_class_name(vc),
			by ? "a candidate; the stored records compare to another class" :
			"no candidate from any source");
	}
	if (shown > 40)
		fprintf(f, "\n(%u more not shown)\n", shown - 40);
}

/* Runs the parity check: predi[i] = the views' class for pair i. */
int acc_parity_run(const struct acc_opts *o, const struct corpus *c, const enum relate_class *pred,
		      struct acc_summary *sum)
{
	struct parity pa;
	enum relate_class *predi = NULL, cls;
	size_t i, s;
	int ret, l1, l2, cand;

	memset(&pa, 0, sizeof(pa));
	predi = calloc(c->npairs ? c->npairs : 1, sizeof(*predi));
	ret = predi ? parity_build(&pa, c) : -ENOMEM;
	if (ret)
		goto out;
	for (i = 0; i < c->npairs; i++) {
		const struct acc_pair *p = &c->pairs[i];

		predi[i] = parity_class(&pa, p->a, p->b, &l1);
		(void)parity_class(&pa, p->b, p->a, &l2);
		sum->index_asymmetric += l1 != l2;
		if (predi[i] == pred[i])
			continue;
		sum->index_differ++;
		for (s = 0, cand = 0; s < NSRC; s++)
			cand |= src_bits[s] && parity_has(&pa, s, p->a, p->b);
		if (!cand) {
			sum->index_no_candidate++;
			continue;
		}
		/* a candidate: what the comparison of the stored records says */
		if (judge_relation(pa.ix, pa.cache, pa.ids[p->a], pa.ids[p->b], &cls) == 0 &&
		    cls != pred[i])
			sum->index_verify_differs++;
	}
	parity_report(o, c, &pa, pred, predi, sum);
	ret = acc_clusters_run(o, c, pa.ix, pa.ids, sum);
out:
	parity_release(&pa);
	free(predi);
	return ret;
}
