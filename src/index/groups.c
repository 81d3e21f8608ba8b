/* groups.c - the groups of the clusters/ and duplicates/ views and of
 * `simbook clusters|duplicates`: read from the index, exemptions applied,
 * titled, and resolved into members (see groups.h). */
#include "groups.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "avglink.h"
#include "bookrec.h"
#include "rsort.h"
#include "simlist.h"
#include "ufind.h"

/* A member of a group, sortable: size descending, the group's smallest id,
 * then the member's id. */
struct gmem {
	size_t size;
	uint64_t gid, id;
};

static int gmem_cmp(const void *pa, const void *pb)
{
	const struct gmem *a = pa, *b = pb;

	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	if (a->gid != b->gid)
		return a->gid < b->gid ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

/* Sorts the members m (group ordering of gmem_cmp) and writes the groups
 * of two or more into g, whose start and ids arrays have room for them. */
static void groups_fill(struct gmem *m, size_t nm, struct idx_groups *g)
{
	size_t i, j, k = 0, ng = 0;

	qsort(m, nm, sizeof(*m), gmem_cmp);
	for (i = 0; i < nm; i = j) {
		for (j = i; j < nm && m[j].gid == m[i].gid; j++)
			;
		if (j - i < 2)
			continue;
		g->start[ng++] = k;
		for (; i < j; i++)
			g->ids[k++] = m[i].id;
	}
	g->start[ng] = k;
	g->ngroups = ng;
}

/* A unit to cluster by content: its order does not depend on book ids
 * (ids follow the order books arrived in). */
struct ukey {
	uint32_t unit;
	uint64_t id;	/* its first book: the last resort */
	uint8_t sh[IDX_SH_BYTES], th[IDX_SH_BYTES];
};

static int ukey_cmp(const void *pa, const void *pb)
{
	const struct ukey *a = pa, *b = pb;
	int c = memcmp(a->sh, b->sh, IDX_SH_BYTES);

	if (!c)
		c = memcmp(a->th, b->th, IDX_SH_BYTES);
	if (c)
		return c;
	return a->id < b->id ? -1 : a->id > b->id;
}

/* Average linkage (avglink.h) over the units of the components that are
 * not complete (in a complete one every linkage is 1: it stays whole),
 * ranked by content; root[u] becomes the unit naming u's cluster. */
static int clusters_split(struct idx *ix, const struct idx_link_graph *lg, struct ufind *uf,
			  size_t *root)
{
	size_t n = lg->nunits, i, nk = 0, ne = 0, *nu = NULL, *nedge = NULL;
	uint32_t *local = NULL, *rank = NULL, *label = NULL, (*e)[2] = NULL;
	struct idx_file *files = NULL;
	struct ukey *k = NULL;
	uint64_t *ids = NULL;
	int ret = -ENOMEM;

	nu = calloc(n + 1, sizeof(*nu));
	nedge = calloc(n + 1, sizeof(*nedge));
	local = malloc((n + 1) * sizeof(*local));
	if (!nu || !nedge || !local)
		goto out;
	for (i = 0; i < n; i++)
		nu[ufind_find(uf, i)]++;
	for (i = 0; i < lg->nedges; i++)
		nedge[ufind_find(uf, lg->edges[i][0])]++;
	for (i = 0; i < n; i++) {
		size_t r = ufind_find(uf, i);

		root[i] = r;
		local[i] = UINT32_MAX;
		if (nu[r] > 2 && nedge[r] < nu[r] * (nu[r] - 1) / 2)
			local[i] = (uint32_t)nk++;
	}
	ret = 0;
	if (!nk)
		goto out;
	ret = -ENOMEM;
	k = malloc(nk * sizeof(*k));
	ids = malloc(nk * sizeof(*ids));
	files = calloc(nk, sizeof(*files));
	rank = malloc(nk * sizeof(*rank));
	label = malloc(nk * sizeof(*label));
	e = malloc((lg->nedges + 1) * sizeof(*e));
	if (!k || !ids || !files || !rank || !label || !e)
		goto out;
	for (i = 0; i < n; i++)
		if (local[i] != UINT32_MAX)
			ids[local[i]] = lg->ids[lg->start[i]];
	ret = idx_get_ids(ix, ids, nk, files);
	if (ret)
		goto out;
	for (i = 0; i < n; i++) {
		uint32_t l = local[i];

		if (l == UINT32_MAX)
			continue;
		k[l].unit = (uint32_t)i;
		k[l].id = ids[l];
		memcpy(k[l].sh, files[l].simhash, IDX_SH_BYTES);
		memcpy(k[l].th, files[l].text_hash, IDX_SH_BYTES);
	}
	qsort(k, nk, sizeof(*k), ukey_cmp);
	for (i = 0; i < nk; i++)
		rank[local[k[i].unit]] = (uint32_t)i;
	for (i = 0; i < lg->nedges; i++)
		if (local[lg->edges[i][0]] != UINT32_MAX) {
			e[ne][0] = local[lg->edges[i][0]];
			e[ne++][1] = local[lg->edges[i][1]];
		}
	ret = avglink_cluster(nk, rank, (const uint32_t (*)[2])e, ne, label);
	/* a label is a local index: k[rank[l]] holds its unit */
	for (i = 0; !ret && i < n; i++)
		if (local[i] != UINT32_MAX)
			root[i] = k[rank[label[local[i]]]].unit;
out:
	for (i = 0; files && i < nk; i++)
		idx_file_release(&files[i]);
	free(files);
	free(nu);
	free(nedge);
	free(local);
	free(rank);
	free(label);
	free(e);
	free(k);
	free(ids);
	return ret;
}

int groups_clusters(struct idx *ix, struct idx_groups *g)
{
	struct idx_link_graph lg;
	struct ufind uf = { NULL, 0 };
	struct gmem *m = NULL;
	size_t *root = NULL, *size = NULL, i, j, nm = 0;
	uint64_t *gid = NULL;
	int ret;

	memset(g, 0, sizeof(*g));
	ret = idx_link_graph(ix, &lg);
	if (ret)
		return ret;
	ret = ufind_init(&uf, lg.nunits);
	root = malloc((lg.nunits + 1) * sizeof(*root));
	size = calloc(lg.nunits + 1, sizeof(*size));
	gid = malloc((lg.nunits + 1) * sizeof(*gid));
	m = malloc((lg.nids + 1) * sizeof(*m));
	g->ids = malloc((lg.nids + 1) * sizeof(*g->ids));
	g->start = malloc((lg.nids + 2) * sizeof(*g->start));
	if (ret || !root || !size || !gid || !m || !g->ids || !g->start) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < lg.nedges; i++)
		ufind_union(&uf, lg.edges[i][0], lg.edges[i][1]);
	ret = clusters_split(ix, &lg, &uf, root);
	if (ret)
		goto out;
	/* a cluster's size in books and its smallest id (ids ascend in a unit) */
	for (i = 0; i < lg.nunits; i++) {
		j = root[i];
		if (!size[j] || lg.ids[lg.start[i]] < gid[j])
			gid[j] = lg.ids[lg.start[i]];
		size[j] += lg.start[i + 1] - lg.start[i];
	}
	for (i = 0; i < lg.nunits; i++)
		for (j = lg.start[i]; j < lg.start[i + 1]; j++)
			m[nm++] = (struct gmem){ size[root[i]], gid[root[i]], lg.ids[j] };
	groups_fill(m, nm, g);
out:
	idx_link_graph_release(&lg);
	ufind_release(&uf);
	free(root);
	free(size);
	free(gid);
	free(m);
	if (ret)
		idx_groups_release(g);
	return ret;
}

static int str_cmp(const void *pa, const void *pb)
{
	return strcmp(*(const char *const *)pa, *(const char *const *)pb);
}

/* The metadata.opf name most members of gr have (the first in byte order
 * among equally common ones), or NULL.  -ENOMEM or 0. */
static int groups_opf_title(const struct groups_group *gr, char **title)
{
	const char **t = malloc((gr->n ? gr->n : 1) * sizeof(*t)), *best = NULL;
	size_t n = 0, i, j, most = 0;

	*title = NULL;
	if (!t)
		return -ENOMEM;
	for (i = 0; i < gr->n; i++)
		if (gr->m[i].title && *gr->m[i].title)
			t[n++] = gr->m[i].title;
	qsort(t, n, sizeof(*t), str_cmp);
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && !strcmp(t[j], t[i]); j++)
			;
		if (j - i > most) {
			most = j - i;
			best = t[i];
		}
	}
	if (best)
		*title = strdup(best);
	free(t);
	return best && !*title ? -ENOMEM : 0;
}

int groups_title(struct idx *ix, const struct groups_group *gr, char **title)
{
	const char *path = gr->n ? gr->m[0].path : "", *base = strrchr(path, '/'), *dot;
	uint32_t ver = 0;
	void *rec = NULL;
	size_t len = 0, j;
	int ret;

	ret = groups_opf_title(gr, title);
	if (ret || *title)
		return ret;
	for (j = 0; j < gr->n && j < GROUPS_TITLE_MEMBERS && !*title; j++) {
		/* the title sits in the record's header: copy only that */
		if (idx_record_head(ix, gr->m[j].id, BOOKREC_META_SPAN, &ver, &rec,
				    &len) == 0 && ver == BOOKREC_IDX_VERSION)
			bookrec_title(rec, len, title);
		free(rec);
		rec = NULL;
		if (*title && !**title) {
			free(*title);
			*title = NULL;
		}
	}
	if (*title)
		return 0;
	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	*title = strndup(base, dot && dot != base ? (size_t)(dot - base) : strlen(base));
	return *title ? 0 : -ENOMEM;
}

static int pair_cmp(const void *pa, const void *pb)
{
	const struct idx_pair *a = pa, *b = pb;

	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return a->b < b->b ? -1 : a->b > b->b;
}

int groups_text(struct idx *ix, struct idx_groups *g)
{
	struct idx_groups in = { 0 };
	struct idx_pair *ex = NULL;
	struct gmem *m = NULL;
	struct ufind uf = { NULL, 0 };
	size_t *size = NULL, nm = 0, nex = 0, nexid = 0, gi, i, j, k;
	uint64_t *gid = NULL, *exid = NULL;
	int ret;

	memset(g, 0, sizeof(*g));
	ret = idx_text_groups(ix, &in);
	if (!ret)
		ret = idx_exemptions(ix, &ex, &nex);
	if (ret) {
		idx_groups_release(&in);
		return ret;
	}
	k = in.ngroups ? in.start[in.ngroups] : 0;
	ret = ufind_init(&uf, k);
	size = calloc(k + 1, sizeof(*size));
	gid = malloc((k + 1) * sizeof(*gid));
	m = malloc((k + 1) * sizeof(*m));
	exid = malloc((2 * nex + 1) * sizeof(*exid));
	g->ids = malloc((k + 1) * sizeof(*g->ids));
	g->start = malloc((k + 2) * sizeof(*g->start));
	if (ret || !size || !gid || !m || !exid || !g->ids || !g->start) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nex; i++) {
		exid[nexid++] = ex[i].a;
		exid[nexid++] = ex[i].b;
	}
	if (nexid)
		qsort(exid, nexid, sizeof(*exid), rsort_cmp_u64);
	for (gi = 0; gi < in.ngroups; gi++) {
		size_t s0 = in.start[gi], s1 = in.start[gi + 1], free_at = s1;

		/* a member in no exemption is joined to every other member, so
		 * the group is whole; else every member is in an exemption (at
		 * most twice their number) and each pair is checked */
		for (i = s0; i < s1 && free_at == s1; i++)
			if (!nexid || !bsearch(&in.ids[i], exid, nexid, sizeof(*exid), rsort_cmp_u64))
				free_at = i;
		if (free_at < s1) {
			for (i = s0; i < s1; i++)
				ufind_union(&uf, i, free_at);
			continue;
		}
		for (i = s0; i < s1; i++) {
			for (j = i + 1; j < s1; j++) {
				struct idx_pair key = { in.ids[i], in.ids[j], 0 };	/* ids ascend */

				if (bsearch(&key, ex, nex, sizeof(*ex), pair_cmp))
					continue;
				ufind_union(&uf, i, j);
			}
		}
	}
	/* ids within a group ascend, so the last member met per root, going
	 * down, is its smallest id (which root a set has does not matter) */
	for (i = k; i-- > 0;) {
		j = ufind_find(&uf, i);
		size[j]++;
		gid[j] = in.ids[i];
	}
	for (i = 0; i < k; i++) {
		j = ufind_find(&uf, i);
		m[nm++] = (struct gmem){ size[j], gid[j], in.ids[i] };
	}
	groups_fill(m, nm, g);
out:
	idx_groups_release(&in);
	free(ex);
	free(exid);
	ufind_release(&uf);
	free(size);
	free(gid);
	free(m);
	if (ret)
		idx_groups_release(g);
	return ret;
}

/* ---- resolving groups into members ---- */

static void group_release(struct groups_group *gr)
{
	size_t j;

	for (j = 0; j < gr->n; j++) {
		free(gr->m[j].path);
		free(gr->m[j].title);
	}
	free(gr->m);
	gr->m = NULL;
	gr->n = 0;
}

void groups_set_release(struct groups_set *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		group_release(&s->g[i]);
	free(s->g);
	s->g = NULL;
	s->n = 0;
}

/* Moves the members of files[0..cnt) that are still indexed and not
 * skipped into gr (room for cnt). */
static void group_take(struct groups_group *gr, struct idx_file *files, size_t cnt,
		       int (*skip)(void *arg, const struct idx_file *f), void *arg)
{
	size_t j;

	for (j = 0; j < cnt; j++) {
		struct idx_file *f = &files[j];
		struct groups_member *m = &gr->m[gr->n];

		if (!f->path || (skip && skip(arg, f)))
			continue;
		m->id = f->id;
		m->path = f->path;
		m->size = f->st.size;
		memcpy(m->simhash, f->simhash, IDX_SH_BYTES);
		f->path = NULL;
		gr->n++;
	}
}

int groups_resolve(struct idx *ix, enum groups_kind kind,
		   int (*skip)(void *arg, const struct idx_file *f), void *arg,
		   struct groups_set *out)
{
	struct idx_groups ig = { 0 };
	struct idx_file *files = NULL;
	size_t g, j, total = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = kind == GROUPS_TEXT ? groups_text(ix, &ig) : groups_clusters(ix, &ig);
	if (ret)
		return ret;
	total = ig.ngroups ? ig.start[ig.ngroups] : 0;
	out->g = calloc(ig.ngroups ? ig.ngroups : 1, sizeof(*out->g));
	files = calloc(total ? total : 1, sizeof(*files));
	if (!out->g || !files) {
		ret = -ENOMEM;
		goto out;
	}
	/* every member's entry in one read transaction */
	ret = idx_get_ids(ix, ig.ids, total, files);
	for (g = 0; !ret && g < ig.ngroups; g++) {
		struct groups_group *gr = &out->g[out->n];
		size_t cnt = ig.start[g + 1] - ig.start[g];

		gr->m = calloc(cnt, sizeof(*gr->m));
		if (!gr->m) {
			ret = -ENOMEM;
			break;
		}
		group_take(gr, &files[ig.start[g]], cnt, skip, arg);
		if (gr->n < 2) {
			group_release(gr);
			continue;
		}
		out->n++;
		for (j = 0; !ret && j < gr->n; j++)
			ret = simlist_book_title(ix, gr->m[j].id, &gr->m[j].title);
	}
out:
	for (j = 0; j < total; j++)
		idx_file_release(&files[j]);
	free(files);
	idx_groups_release(&ig);
	if (ret)
		groups_set_release(out);
	return ret;
}
