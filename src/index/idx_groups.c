/* idx_groups.c - groups of books: near pairs and clusters from the simhash
 * bands, groups of one text hash, and the groups the stored cluster links
 * make (with the copies and exemptions). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "byteorder.h"
#include "grow.h"
#include "idx_i.h"
#include "rsort.h"
#include "ufind.h"

struct simhashes_arg {
	size_t klen, vbytes, n, cap, nbands;
	uint64_t *ids;
	uint8_t (*sh)[IDX_SH_BYTES];
};

/* The two arrays share one capacity: ARRAY_GROW would keep two. */
static int simhashes_row(const struct kvs_val *k, const struct kvs_val *v, void *arg)
{
	struct simhashes_arg *a = arg;

	if (((const uint8_t *)k->data)[0] != 0)
		return 1;
	if (k->len != a->klen || v->len != IDX_SH_BYTES)
		return 0;
	if (a->n == a->cap) {
		size_t nc = a->cap * 2;
		uint64_t *pi = realloc(a->ids, nc * sizeof(*pi));
		uint8_t (*ps)[IDX_SH_BYTES];

		if (!pi)
			return -ENOMEM;
		a->ids = pi;
		ps = realloc(a->sh, nc * sizeof(*ps));
		if (!ps)
			return -ENOMEM;
		a->sh = ps;
		a->cap = nc;
	}
	a->ids[a->n] = be_get((const uint8_t *)k->data + 1 + a->vbytes, 8);
	memcpy(a->sh[a->n], v->data, IDX_SH_BYTES);
	a->n++;
	return 0;
}

static int simhashes_txn(struct kvs_tx *tx, void *arg)
{
	struct simhashes_arg *a = arg;
	struct kvs_cur *cur = NULL;
	uint8_t zero = 0;
	uint64_t rows;
	int ret;

	a->n = 0;	/* a rerun starts over */
	ret = kvs_rows(tx, DB_SHBAND, &rows);
	if (ret == 0 && !a->ids) {
		a->cap = rows / a->nbands + 1;
		a->ids = malloc(a->cap * sizeof(*a->ids));
		a->sh = malloc(a->cap * sizeof(*a->sh));
		if (!a->ids || !a->sh)
			ret = -ENOMEM;
	}
	if (ret == 0)
		ret = kvs_cur_open(tx, DB_SHBAND, &cur);
	if (ret == 0)
		ret = idx_cursor_walk(cur, &zero, 1, simhashes_row, a);
	kvs_cur_close(cur);
	if (ret == 0)
		ret = idx_copies_add(tx, &a->ids, &a->sh, &a->n, &a->cap);
	return ret;
}

/* Loads every fingerprinted book's id and simhash from band 0 of the band
 * table (exactly one entry per book, already in a compact form). */
static int load_simhashes(struct idx *ix, uint64_t **ids_out, uint8_t (**sh_out)[IDX_SH_BYTES],
			  size_t *n_out)
{
	const struct band_layout *bl = &ix->bl;
	struct simhashes_arg a = { 1 + (size_t)bl->value_bytes + 8, bl->value_bytes, 0, 0,
				   bl->nbands, NULL, NULL };
	int ret = kvs_read(ix->kv, simhashes_txn, &a);

	if (ret) {
		free(a.ids);
		free(a.sh);
		return ret;
	}
	*ids_out = a.ids;
	*sh_out = a.sh;
	*n_out = a.n;
	return 0;
}

static int pair_cmp(const void *a, const void *b)
{
	const struct idx_pair *x = a, *y = b;

	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	return x->b < y->b ? -1 : x->b > y->b;
}

int idx_near_pairs(struct idx *ix, uint32_t d, struct idx_pair **pairs, size_t *n)
{
	uint8_t (*sh)[IDX_SH_BYTES] = NULL;
	struct band_pair *bp = NULL;
	struct idx_pair *out = NULL;
	uint64_t *ids = NULL;
	size_t nb = 0, np = 0, i;
	int ret;

	*pairs = NULL;
	*n = 0;
	if (d > ix->bl.max_d)
		return -EINVAL;
	ret = load_simhashes(ix, &ids, &sh, &nb);
	if (ret)
		return ret;
	ret = band_pairs(&ix->bl, (const uint8_t (*)[BAND_SH_BYTES])sh, nb, d, &bp, &np);
	if (ret)
		goto out;
	if (np) {
		out = malloc(np * sizeof(*out));
		if (!out) {
			ret = -ENOMEM;
			goto out;
		}
		for (i = 0; i < np; i++) {
			uint64_t a = ids[bp[i].a], b = ids[bp[i].b];

			out[i].a = a < b ? a : b;
			out[i].b = a < b ? b : a;
			out[i].dist = bp[i].dist;
		}
		qsort(out, np, sizeof(*out), pair_cmp);
	}
	*pairs = out;
	*n = np;
out:
	free(bp);
	free(ids);
	free(sh);
	return ret;
}

struct member {
	uint32_t root;
	uint32_t size;	/* of its group */
	uint64_t id;
	uint64_t min_id;	/* smallest id of its group */
};

static int member_cmp(const void *a, const void *b)
{
	const struct member *x = a, *y = b;

	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	if (x->min_id != y->min_id)
		return x->min_id < y->min_id ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Builds groups from n items (ids) joined by pairs of item indexes. */
static int groups_build(const uint64_t *ids, size_t n, const struct band_pair *bp, size_t np,
			const uint8_t *skip, struct idx_groups *g)
{
	struct ufind uf = { NULL, 0 };
	uint32_t *size = NULL;
	uint64_t *min_id = NULL;
	struct member *m = NULL;
	size_t i, nm = 0, ng = 0;
	int ret = -ENOMEM;

	memset(g, 0, sizeof(*g));
	size = calloc(n ? n : 1, sizeof(*size));
	min_id = malloc((n ? n : 1) * sizeof(*min_id));
	if (ufind_init(&uf, n) || !size || !min_id)
		goto out;
	/* the groups' order does not depend on which root wins a union:
	 * members sort by group size, smallest id, id */
	for (i = 0; i < np; i++) {
		if (skip && skip[i])
			continue;
		ufind_union(&uf, bp[i].a, bp[i].b);
	}
	for (i = 0; i < n; i++) {
		uint32_t r = (uint32_t)ufind_find(&uf, i);

		if (size[r] == 0 || ids[i] < min_id[r])
			min_id[r] = ids[i];
		size[r]++;
	}
	for (i = 0; i < n; i++)
		if (size[ufind_find(&uf, i)] >= 2)
			nm++;
	m = malloc((nm ? nm : 1) * sizeof(*m));
	g->ids = malloc((nm ? nm : 1) * sizeof(*g->ids));
	g->start = malloc((nm + 1) * sizeof(*g->start));
	if (!m || !g->ids || !g->start)
		goto out;
	nm = 0;
	for (i = 0; i < n; i++) {
		uint32_t r = (uint32_t)ufind_find(&uf, i);

		if (size[r] < 2)
			continue;
		m[nm].root = r;
		m[nm].size = size[r];
		m[nm].id = ids[i];
		m[nm].min_id = min_id[r];
		nm++;
	}
	if (nm)
		qsort(m, nm, sizeof(*m), member_cmp);
	for (i = 0; i < nm; i++) {
		if (i == 0 || m[i].root != m[i - 1].root)
			g->start[ng++] = i;
		g->ids[i] = m[i].id;
	}
	g->start[ng] = nm;
	g->ngroups = ng;
	ret = 0;
out:
	if (ret)
		idx_groups_release(g);
	ufind_release(&uf);
	free(size);
	free(min_id);
	free(m);
	return ret;
}

static int pair_find(const struct idx_pair *v, size_t n, uint64_t a, uint64_t b)
{
	struct idx_pair key;

	key.a = a;
	key.b = b;
	key.dist = 0;
	return n && bsearch(&key, v, n, sizeof(*v), pair_cmp) != NULL;
}

int idx_clusters(struct idx *ix, uint32_t d, struct idx_groups *g)
{
	uint8_t (*sh)[IDX_SH_BYTES] = NULL;
	struct band_pair *bp = NULL;
	struct idx_pair *ex = NULL;
	uint8_t *skip = NULL;
	uint64_t *ids = NULL;
	size_t nb = 0, np = 0, nex = 0, i;
	int ret;

	memset(g, 0, sizeof(*g));
	if (d > ix->bl.max_d)
		return -EINVAL;
	ret = load_simhashes(ix, &ids, &sh, &nb);
	if (ret == 0)
		ret = idx_exemptions(ix, &ex, &nex);
	if (ret == 0)
		ret = band_pairs(&ix->bl, (const uint8_t (*)[BAND_SH_BYTES])sh, nb, d, &bp, &np);
	if (ret)
		goto out;
	if (nex && np) {
		skip = calloc(np, 1);
		if (!skip) {
			ret = -ENOMEM;
			goto out;
		}
		for (i = 0; i < np; i++) {
			uint64_t a = ids[bp[i].a], b = ids[bp[i].b];

			skip[i] = (uint8_t)pair_find(ex, nex, a < b ? a : b, a < b ? b : a);
		}
	}
	ret = groups_build(ids, nb, bp, np, skip, g);
out:
	free(skip);
	free(bp);
	free(ex);
	free(ids);
	free(sh);
	return ret;
}

struct text_arg {
	struct band_pair *bp;
	uint64_t *ids;
	size_t n, cap, np, pcap;
	uint8_t prev[IDX_SH_BYTES];
};

static int text_row(const struct kvs_val *k, const struct kvs_val *v, void *arg)
{
	struct text_arg *a = arg;

	(void)v;
	if (k->len != IDX_SH_BYTES + 8)
		return 0;
	if (ARRAY_GROW(a->ids, a->cap, a->n + 1))
		return -ENOMEM;
	a->ids[a->n] = be_get((const uint8_t *)k->data + IDX_SH_BYTES, 8);
	/* join each entry to the previous one when the hash is the same */
	if (a->n && memcmp(a->prev, k->data, IDX_SH_BYTES) == 0) {
		if (ARRAY_GROW(a->bp, a->pcap, a->np + 1))
			return -ENOMEM;
		a->bp[a->np].a = (uint32_t)(a->n - 1);
		a->bp[a->np].b = (uint32_t)a->n;
		a->bp[a->np].dist = 0;
		a->np++;
	}
	memcpy(a->prev, k->data, IDX_SH_BYTES);
	a->n++;
	return 0;
}

static void text_reset(void *arg)
{
	struct text_arg *a = arg;

	a->n = a->np = 0;
}

int idx_text_groups(struct idx *ix, struct idx_groups *g)
{
	struct text_arg a = { .bp = NULL };
	int ret;

	memset(g, 0, sizeof(*g));
	ret = idx_read_walk(ix, DB_TEXT, text_reset, text_row, &a);
	if (ret == 0 && a.n >= UINT32_MAX)
		ret = -EOVERFLOW;
	if (ret == 0)
		ret = groups_build(a.ids, a.n, a.bp, a.np, NULL, g);
	free(a.ids);
	free(a.bp);
	return ret;
}

void idx_groups_release(struct idx_groups *g)
{
	if (!g)
		return;
	free(g->start);
	free(g->ids);
	memset(g, 0, sizeof(*g));
}

/* Reads the links table in one pass: *ids the linked books (ascending,
 * unique: every book is the first half of the keys of its links) and
 * *pairs the links a < b as indexes into *ids. */
struct links_arg {
	uint64_t *ids, (*raw)[2];
	size_t nids, capi, nraw, capr;
};

static int links_row(const struct kvs_val *k, const struct kvs_val *v, void *arg)
{
	struct links_arg *l = arg;
	uint64_t a, b;

	(void)v;
	if (k->len != 16)
		return 0;
	a = be_get(k->data, 8);
	b = be_get((const uint8_t *)k->data + 8, 8);
	if (a == b)
		return 0;
	if (!l->nids || l->ids[l->nids - 1] != a) {
		if (ARRAY_GROW(l->ids, l->capi, l->nids + 1))
			return -ENOMEM;
		l->ids[l->nids++] = a;
	}
	if (a > b)
		return 0;
	if (ARRAY_GROW(l->raw, l->capr, l->nraw + 1))
		return -ENOMEM;
	l->raw[l->nraw][0] = a;
	l->raw[l->nraw][1] = b;
	l->nraw++;
	return 0;
}

static void links_reset(void *arg)
{
	struct links_arg *l = arg;

	l->nids = l->nraw = 0;
}

static int load_links(struct idx *ix, uint64_t **ids_out, size_t *nids_out,
		      struct band_pair **pairs_out, size_t *npairs_out)
{
	struct links_arg l = { NULL, NULL, 0, 0, 0, 0 };
	struct band_pair *bp = NULL;
	size_t np = 0, i;
	int ret = idx_read_walk(ix, DB_CLUSTER, links_reset, links_row, &l);

	if (ret)
		goto out;
	bp = malloc((l.nraw ? l.nraw : 1) * sizeof(*bp));
	if (!bp || l.nids > UINT32_MAX) {
		ret = bp ? -EOVERFLOW : -ENOMEM;
		goto out;
	}
	/* a hostile table may hold a link one way only: such a b is not in ids */
	for (i = 0; i < l.nraw; i++) {
		const uint64_t *pa = bsearch(&l.raw[i][0], l.ids, l.nids, sizeof(*l.ids),
					     rsort_cmp_u64);
		const uint64_t *pb = bsearch(&l.raw[i][1], l.ids, l.nids, sizeof(*l.ids),
					     rsort_cmp_u64);

		if (pa && pb)
			bp[np++] = (struct band_pair){ (uint32_t)(pa - l.ids),
						       (uint32_t)(pb - l.ids), 0 };
	}
out:
	free(l.raw);
	if (ret) {
		free(l.ids);
		free(bp);
		return ret;
	}
	*ids_out = l.ids;
	*nids_out = l.nids;
	*pairs_out = bp;
	*npairs_out = np;
	return 0;
}

/* Pairs of ids (a, b) to unite, growing. */
struct idpairs {
	uint64_t (*v)[2];
	size_t n, cap;
};

static int idpairs_push(struct idpairs *p, uint64_t a, uint64_t b)
{
	if (ARRAY_GROW(p->v, p->cap, p->n + 1))
		return -ENOMEM;
	p->v[p->n][0] = a;
	p->v[p->n][1] = b;
	p->n++;
	return 0;
}

/* The exemptions and the ids they involve, for the group joins. */
struct exset {
	struct idx_pair *pairs;	/* a < b, sorted */
	size_t npairs;
	uint64_t *ids;		/* every id of a pair, sorted, unique */
	size_t nids;
};

static int ex_has(const struct exset *e, uint64_t a, uint64_t b)
{
	return a != b && pair_find(e->pairs, e->npairs, a < b ? a : b, a < b ? b : a);
}

/* A member of v[0..n) in no exemption at all (one is joined to every other
 * member of a set it meets), or 0 when there is none. */
static uint64_t ex_free(const struct exset *e, const uint64_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!e->nids || !bsearch(&v[i], e->ids, e->nids, sizeof(*e->ids), rsort_cmp_u64))
			return v[i];
	return 0;
}

/* Unites the pairs of a x b (every pair of a when b is NULL) that are not
 * exempted, with as few pairs as keep the same components: when each side
 * has a member in no exemption, that member meets everyone, so one pair
 * (and the sides' own joins) does; else one side is all exempted members,
 * at most twice the exemptions, and its pairs are listed. */
static int join_sets(const struct exset *e, const uint64_t *a, size_t na, const uint64_t *b,
		     size_t nb, struct idpairs *out)
{
	uint64_t fa = ex_free(e, a, na), fb = b ? ex_free(e, b, nb) : fa;
	size_t i, j;
	int ret = 0;

	if (fa && fb) {
		if (!b) {
			for (i = 0; i < na && ret == 0; i++)
				if (a[i] != fa)
					ret = idpairs_push(out, fa, a[i]);
			return ret;
		}
		return idpairs_push(out, fa, fb);
	}
	for (i = 0; i < na && ret == 0; i++)
		for (j = b ? 0 : i + 1; j < (b ? nb : na) && ret == 0; j++) {
			uint64_t y = b ? b[j] : a[j];

			if (!ex_has(e, a[i], y))
				ret = idpairs_push(out, a[i], y);
		}
	return ret;
}

/* The group of copies of representative id in cg (via the sorted index
 * reps: rep id, group number), else NULL. */
static const uint64_t *group_of(const struct idx_groups *cg, const uint64_t (*reps)[2], uint64_t id,
				size_t *n)
{
	size_t lo = 0, hi = cg->ngroups, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (reps[mid][0] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == cg->ngroups || reps[lo][0] != id)
		return NULL;
	*n = cg->start[reps[lo][1] + 1] - cg->start[reps[lo][1]];
	return cg->ids + cg->start[reps[lo][1]];
}

static int u64pair_cmp(const void *pa, const void *pb)
{
	const uint64_t *a = pa, *b = pb;

	return a[0] < b[0] ? -1 : a[0] > b[0];
}

int idx_link_groups(struct idx *ix, struct idx_groups *g)
{
	struct idx_groups cg = { 0 };
	struct band_pair *bp = NULL, *up = NULL;
	struct idpairs jp = { NULL, 0, 0 };
	struct exset ex = { NULL, 0, NULL, 0 };
	uint64_t *ids = NULL, *all = NULL, (*reps)[2] = NULL;
	size_t nids = 0, np = 0, nall = 0, i, j;
	int ret;

	memset(g, 0, sizeof(*g));
	ret = load_links(ix, &ids, &nids, &bp, &np);
	if (ret == 0)
		ret = idx_load_copy_groups(ix, &cg);
	if (ret == 0)
		ret = idx_exemptions(ix, &ex.pairs, &ex.npairs);
	if (ret)
		goto out;
	ex.ids = malloc((2 * ex.npairs + 1) * sizeof(*ex.ids));
	reps = malloc((cg.ngroups + 1) * sizeof(*reps));
	if (!ex.ids || !reps) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < ex.npairs; i++) {
		ex.ids[ex.nids++] = ex.pairs[i].a;
		ex.ids[ex.nids++] = ex.pairs[i].b;
	}
	if (ex.nids)
		qsort(ex.ids, ex.nids, sizeof(*ex.ids), rsort_cmp_u64);
	for (i = 0; i < cg.ngroups; i++) {
		reps[i][0] = cg.ids[cg.start[i]];
		reps[i][1] = i;
		ret = join_sets(&ex, cg.ids + cg.start[i], cg.start[i + 1] - cg.start[i], NULL, 0,
				&jp);
		if (ret)
			goto out;
	}
	if (cg.ngroups)
		qsort(reps, cg.ngroups, sizeof(*reps), u64pair_cmp);
	/* a link between two representatives stands for every pair of their
	 * groups */
	for (i = 0; i < np && ret == 0; i++) {
		uint64_t a = ids[bp[i].a], b = ids[bp[i].b];
		const uint64_t *ga, *gb;
		size_t na = 1, nb = 1;

		ga = group_of(&cg, (const uint64_t (*)[2])reps, a, &na);
		gb = group_of(&cg, (const uint64_t (*)[2])reps, b, &nb);
		ret = join_sets(&ex, ga ? ga : &a, ga ? na : 1, gb ? gb : &b, gb ? nb : 1, &jp);
	}
	if (ret)
		goto out;
	/* every id met, once, and the pairs as indexes into them */
	nall = nids + (cg.ngroups ? cg.start[cg.ngroups] : 0);
	all = malloc((nall + 1) * sizeof(*all));
	up = malloc((jp.n + 1) * sizeof(*up));
	if (!all || !up) {
		ret = -ENOMEM;
		goto out;
	}
	if (nids)
		memcpy(all, ids, nids * sizeof(*ids));
	if (nall > nids)
		memcpy(all + nids, cg.ids, (nall - nids) * sizeof(*all));
	if (nall)
		rsort_u64(all, nall);
	for (i = j = 0; i < nall; i++)
		if (!j || all[j - 1] != all[i])
			all[j++] = all[i];
	nall = j;
	if (nall > UINT32_MAX) {
		ret = -EOVERFLOW;
		goto out;
	}
	for (i = j = 0; i < jp.n; i++) {
		const uint64_t *pa = bsearch(&jp.v[i][0], all, nall, sizeof(*all), rsort_cmp_u64);
		const uint64_t *pb = bsearch(&jp.v[i][1], all, nall, sizeof(*all), rsort_cmp_u64);

		if (pa && pb)
			up[j++] = (struct band_pair){ (uint32_t)(pa - all), (uint32_t)(pb - all), 0 };
	}
	ret = groups_build(all, nall, up, j, NULL, g);
out:
	idx_groups_release(&cg);
	free(jp.v);
	free(ex.pairs);
	free(ex.ids);
	free(reps);
	free(all);
	free(up);
	free(bp);
	free(ids);
	return ret;
}

/* ---- the links as a graph of texts (idx_link_graph) ---- */

/* A book and the unit it is in. */
struct idunit {
	uint64_t id;
	uint32_t unit;
};

static int idunit_cmp(const void *pa, const void *pb)
{
	const struct idunit *a = pa, *b = pb;

	return a->id < b->id ? -1 : a->id > b->id;
}

static const struct idunit *unit_find(const struct idunit *v, size_t n, uint64_t id)
{
	struct idunit key = { id, 0 };

	return n ? bsearch(&key, v, n, sizeof(*v), idunit_cmp) : NULL;
}

/* The units of a book's group: the one unit, or every book's of a split
 * group (*span of them from *first; units of one group are consecutive). */
struct ugraph {
	struct idx_link_graph *g;
	struct idunit *map;	/* every book met, by id */
	size_t nmap;
	uint32_t *first, *span;	/* per copy group: its units */
	uint32_t *grp;		/* per unit: its copy group, or UINT32_MAX */
	uint64_t *e;		/* edges as a << 32 | b, a < b */
	size_t ne, cape;
};

static int ug_edge(struct ugraph *u, uint32_t a, uint32_t b)
{
	if (a == b)
		return 0;
	if (ARRAY_GROW(u->e, u->cape, u->ne + 1))
		return -ENOMEM;
	u->e[u->ne++] = a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
	return 0;
}

/* The units of book id: [*lo, *hi). */
static int ug_units(const struct ugraph *u, uint64_t id, uint32_t *lo, uint32_t *hi)
{
	const struct idunit *m = unit_find(u->map, u->nmap, id);
	uint32_t gi;

	if (!m)
		return 0;
	gi = u->grp[m->unit];
	*lo = gi == UINT32_MAX ? m->unit : u->first[gi];
	*hi = gi == UINT32_MAX ? m->unit + 1 : u->first[gi] + u->span[gi];
	return 1;
}

/* Units: every group of copies whole (one text), except a group holding an
 * exempted pair, whose books become a unit each; every other linked book
 * alone.  Fills u->g's units, u->map, u->first, u->span, u->grp. */
static int ug_units_make(struct ugraph *u, const struct idx_groups *cg, const uint64_t *ids,
			 size_t nids, const struct idx_pair *ex, size_t nex)
{
	struct idx_link_graph *g = u->g;
	uint8_t *split = calloc(cg->ngroups + 1, 1);
	size_t ncg = cg->ngroups ? cg->start[cg->ngroups] : 0, i, j, k, nu = 0;
	int ret = -ENOMEM;

	u->map = malloc((ncg + nids + 1) * sizeof(*u->map));
	u->first = malloc((cg->ngroups + 1) * sizeof(*u->first));
	u->span = malloc((cg->ngroups + 1) * sizeof(*u->span));
	u->grp = malloc((ncg + nids + 1) * sizeof(*u->grp));
	g->start = malloc((ncg + nids + 2) * sizeof(*g->start));
	g->ids = malloc((ncg + nids + 1) * sizeof(*g->ids));
	if (!split || !u->map || !u->first || !u->span || !u->grp || !g->start || !g->ids)
		goto out;
	/* first by copy group, to find the groups an exemption splits */
	for (i = 0; i < cg->ngroups; i++)
		for (k = cg->start[i]; k < cg->start[i + 1]; k++)
			u->map[u->nmap++] = (struct idunit){ cg->ids[k], (uint32_t)i };
	if (u->nmap)
		qsort(u->map, u->nmap, sizeof(*u->map), idunit_cmp);
	for (i = 0; i < nex; i++) {
		const struct idunit *a = unit_find(u->map, u->nmap, ex[i].a);
		const struct idunit *b = unit_find(u->map, u->nmap, ex[i].b);

		if (a && b && a->unit == b->unit)
			split[a->unit] = 1;
	}
	u->nmap = 0;
	for (i = 0; i < cg->ngroups; i++) {
		u->first[i] = (uint32_t)nu;
		u->span[i] = split[i] ? (uint32_t)(cg->start[i + 1] - cg->start[i]) : 1;
		for (k = cg->start[i]; k < cg->start[i + 1]; k++) {
			if (split[i] || k == cg->start[i]) {
				g->start[nu] = g->nids;
				u->grp[nu++] = (uint32_t)i;
			}
			g->ids[g->nids++] = cg->ids[k];
			u->map[u->nmap++] = (struct idunit){ cg->ids[k], (uint32_t)(nu - 1) };
		}
	}
	if (u->nmap)
		qsort(u->map, u->nmap, sizeof(*u->map), idunit_cmp);
	/* linked books in no group of copies: alone (ids ascend) */
	for (i = 0, j = u->nmap; i < nids; i++) {
		if (unit_find(u->map, j, ids[i]))
			continue;
		g->start[nu] = g->nids;
		u->grp[nu] = UINT32_MAX;
		g->ids[g->nids++] = ids[i];
		u->map[u->nmap++] = (struct idunit){ ids[i], (uint32_t)nu++ };
	}
	if (u->nmap > j)
		qsort(u->map, u->nmap, sizeof(*u->map), idunit_cmp);
	g->start[nu] = g->nids;
	g->nunits = nu;
	ret = nu > UINT32_MAX - 1 ? -EOVERFLOW : 0;
out:
	free(split);
	return ret;
}

/* Edges: a link stands for every pair of its two books' texts, a split
 * group's books are alike with each other; exempted pairs remove the edge
 * of two units when they are every pair of their books. */
static int ug_edges(struct ugraph *u, const struct idx_groups *cg, const uint64_t *ids,
		    const struct band_pair *bp, size_t np, const struct idx_pair *ex, size_t nex)
{
	uint64_t *cut = NULL;
	uint32_t alo, ahi, blo, bhi, x, y;
	size_t i, j, ncut = 0;
	int ret = 0;

	for (i = 0; i < np && !ret; i++) {
		if (!ug_units(u, ids[bp[i].a], &alo, &ahi) || !ug_units(u, ids[bp[i].b], &blo, &bhi))
			continue;
		for (x = alo; x < ahi && !ret; x++)
			for (y = blo; y < bhi && !ret; y++)
				ret = ug_edge(u, x, y);
	}
	for (i = 0; i < cg->ngroups && !ret; i++)
		for (x = u->first[i]; u->span[i] > 1 && x < u->first[i] + u->span[i] && !ret; x++)
			for (y = x + 1; y < u->first[i] + u->span[i] && !ret; y++)
				ret = ug_edge(u, x, y);
	cut = malloc((nex + 1) * sizeof(*cut));
	if (ret || !cut) {
		free(cut);
		return ret ? ret : -ENOMEM;
	}
	for (i = 0; i < nex; i++) {
		const struct idunit *a = unit_find(u->map, u->nmap, ex[i].a);
		const struct idunit *b = unit_find(u->map, u->nmap, ex[i].b);

		if (a && b && a->unit != b->unit)
			cut[ncut++] = a->unit < b->unit ? (uint64_t)a->unit << 32 | b->unit :
				      (uint64_t)b->unit << 32 | a->unit;
	}
	if (ncut)
		rsort_u64(cut, ncut);
	if (u->ne)
		rsort_u64(u->e, u->ne);
	/* an edge goes when every pair of books of its units is exempted */
	for (i = j = 0; i < u->ne; i++) {
		const uint64_t *c = ncut ? bsearch(&u->e[i], cut, ncut, sizeof(*cut),
						   rsort_cmp_u64) : NULL;
		size_t nc = 0;

		x = (uint32_t)(u->e[i] >> 32);
		y = (uint32_t)u->e[i];

		if (j && u->e[j - 1] == u->e[i])
			continue;
		while (c && c > cut && c[-1] == u->e[i])
			c--;
		while (c && c + nc < cut + ncut && c[nc] == u->e[i])
			nc++;
		if (nc && nc >= (u->g->start[x + 1] - u->g->start[x]) *
			       (u->g->start[y + 1] - u->g->start[y]))
			continue;
		u->e[j++] = u->e[i];
	}
	u->ne = j;
	free(cut);
	return 0;
}

int idx_link_graph(struct idx *ix, struct idx_link_graph *g)
{
	struct idx_groups cg = { 0 };
	struct ugraph u;
	struct band_pair *bp = NULL;
	struct idx_pair *ex = NULL;
	uint64_t *ids = NULL;
	size_t nids = 0, np = 0, nex = 0, i;
	int ret;

	memset(g, 0, sizeof(*g));
	memset(&u, 0, sizeof(u));
	u.g = g;
	ret = load_links(ix, &ids, &nids, &bp, &np);
	if (ret == 0)
		ret = idx_load_copy_groups(ix, &cg);
	if (ret == 0)
		ret = idx_exemptions(ix, &ex, &nex);
	if (ret == 0)
		ret = ug_units_make(&u, &cg, ids, nids, ex, nex);
	if (ret == 0)
		ret = ug_edges(&u, &cg, ids, bp, np, ex, nex);
	if (ret == 0) {
		g->edges = malloc((u.ne + 1) * sizeof(*g->edges));
		if (!g->edges)
			ret = -ENOMEM;
	}
	for (i = 0; ret == 0 && i < u.ne; i++) {
		g->edges[i][0] = (uint32_t)(u.e[i] >> 32);
		g->edges[i][1] = (uint32_t)u.e[i];
	}
	g->nedges = ret ? 0 : u.ne;
	idx_groups_release(&cg);
	free(u.map);
	free(u.first);
	free(u.span);
	free(u.grp);
	free(u.e);
	free(ex);
	free(bp);
	free(ids);
	if (ret)
		idx_link_graph_release(g);
	return ret;
}

void idx_link_graph_release(struct idx_link_graph *g)
{
	if (!g)
		return;
	free(g->start);
	free(g->ids);
	free(g->edges);
	memset(g, 0, sizeof(*g));
}
