/* test_clusters.c - clusters/ and the similar lists as maintained by the
 * indexing work (stored relations and near-duplicate links) against a
 * recomputation: clusters against every pair of books compared on its
 * stored records, the pairs whose relation joins a cluster united,
 * exemptions dropped; every book's stored similar list against the one
 * computed at read time.  Checked after the first indexing and again after
 * unlinks, rewrites, renames and exemptions. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "band.h"
#include "ixtest.h"
#include "textgen.h"
#include "groups.h"
#include "judge.h"
#include "simlist.h"

#define NBASE 8		/* base texts */
#define WORDS 1500	/* words per book */

#define VOCAB 5000
static char vocab[VOCAB][TEXTGEN_WORD];

/* The first words of base text base, one word in change_in replaced with
 * seed own's choice (0: none). */
static char *gen(uint32_t base, unsigned words, uint32_t own, unsigned change_in)
{
	char *t = malloc((size_t)words * TEXTGEN_WORD + 2);

	if (t)
		textgen_words(t, (const char (*)[TEXTGEN_WORD])vocab, VOCAB, base, own, change_in,
			      words, 100);
	return t;
}

/* Writes and frees a text from gen() (NULL: out of memory, the book is
 * missing and the comparison fails). */
static void put(const char *rel, char *text)
{
	if (text)
		ixtest_put(rel, text);
	free(text);
}

/* Every book with a fingerprint: ids and fingerprints. */
static int books(struct idx *ix, struct idx_file **out, size_t *n)
{
	struct idx_entry *ents = NULL;
	size_t ne = 0, i;
	int ret = idx_list(ix, "", IDX_LIST_RECURSIVE, &ents, &ne);

	*n = 0;
	*out = calloc(ne ? ne : 1, sizeof(**out));
	if (ret || !*out)
		return ret ? ret : -ENOMEM;
	for (i = 0; i < ne; i++) {
		if (ents[i].is_dir || !ents[i].file.has_fp)
			continue;
		(*out)[(*n)++] = ents[i].file;
		memset(&ents[i].file, 0, sizeof(ents[i].file));
	}
	idx_entries_free(ents, ne);
	return 0;
}

static size_t find(size_t *p, size_t x)
{
	while (p[x] != x)
		x = p[x] = p[p[x]];
	return x;
}

/* For each book, the smallest id of its cluster (0 when alone) from the
 * groups g. */
static uint64_t label_of(const struct idx_groups *g, uint64_t id)
{
	size_t i, k;

	for (i = 0; i < g->ngroups; i++)
		for (k = g->start[i]; k < g->start[i + 1]; k++)
			if (g->ids[k] == id)
				return g->ids[g->start[i]];
	return 0;
}

/* Checks groups_clusters() against brute force: every pair of books
 * compared on its stored records, the pairs whose relation joins a cluster
 * (exemptions left out) as a graph.  A cluster lies inside one connected
 * component of it (nothing joins without a relation), a component whose
 * books are all joined pairwise is one cluster exactly, and every member of
 * a cluster is joined to another member.  (Which books of a component that
 * is not complete go together is avglink's rule, tested in test_avglink.)
 * Returns the number of books that break one of these; *far_pairs the
 * joining pairs more than the simhash threshold apart (pairs only the
 * min-hash bands can have found). */
static int compare_brute(struct indexer *ixr, int *far_pairs)
{
	struct idx *ix = indexer_idx(ixr);
	struct idx_groups g = { 0 };
	struct idx_file *b = NULL;
	size_t n = 0, i, j, *par = NULL, *size = NULL, *pairs = NULL;
	uint8_t *joined = NULL;
	uint64_t *lab = NULL;
	int bad = 0;

	*far_pairs = 0;
	if (books(ix, &b, &n) || groups_clusters(ix, &g))
		return -1;
	par = malloc((n + 1) * sizeof(*par));
	size = calloc(n + 1, sizeof(*size));
	pairs = calloc(n + 1, sizeof(*pairs));
	lab = malloc((n + 1) * sizeof(*lab));
	joined = calloc(n * n + 1, 1);
	if (!par || !size || !pairs || !lab || !joined)
		return -1;
	for (i = 0; i < n; i++) {
		par[i] = i;
		lab[i] = label_of(&g, b[i].id);
	}
	for (i = 0; i < n; i++) {
		for (j = i + 1; j < n; j++) {
			uint64_t lo = b[i].id < b[j].id ? b[i].id : b[j].id;
			uint64_t hi = b[i].id < b[j].id ? b[j].id : b[i].id;
			enum relate_class cls;

			if (judge_relation(ix, NULL, lo, hi, &cls))
				return -1;
			if (cls != RELATE_IDENTICAL_FILE && cls != RELATE_SAME_TEXT &&
			    cls != RELATE_NEAR_DUPLICATE)
				continue;
			if (band_distance(b[i].simhash, b[j].simhash) > idx_max_d(ix))
				(*far_pairs)++;
			if (idx_exempt_has(ix, lo, hi) == 1)
				continue;
			joined[i * n + j] = joined[j * n + i] = 1;
			par[find(par, i)] = find(par, j);
		}
	}
	for (i = 0; i < n; i++) {
		size[find(par, i)]++;
		for (j = i + 1; j < n; j++)
			pairs[find(par, i)] += joined[i * n + j];
	}
	for (i = 0; i < n; i++) {
		size_t r = find(par, i), mates = 0, c = size[r];
		int ok = 1;

		for (j = 0; j < n; j++) {
			if (j == i)
				continue;
			if (lab[i] && lab[j] == lab[i]) {
				ok &= find(par, j) == r;
				mates += joined[i * n + j];
			}
			/* a complete component is one cluster */
			if (c > 1 && pairs[r] == c * (c - 1) / 2 && find(par, j) == r)
				ok &= lab[i] && lab[j] == lab[i];
		}
		ok &= !lab[i] || mates > 0;
		if (!ok) {
			fprintf(stderr, "  %s: stored cluster %llx breaks the rule\n", b[i].path,
				(unsigned long long)lab[i]);
			bad++;
		}
	}
	idx_files_free(b, n);
	idx_groups_release(&g);
	free(par);
	free(size);
	free(pairs);
	free(lab);
	free(joined);
	return bad;
}

/* The books a and b share a cluster. */
static int together(struct indexer *ixr, const char *a, const char *b)
{
	struct idx_groups g = { 0 };
	uint64_t la, lb;

	if (groups_clusters(indexer_idx(ixr), &g))
		return -1;
	la = label_of(&g, ixtest_id_of(ixr, a));
	lb = label_of(&g, ixtest_id_of(ixr, b));
	idx_groups_release(&g);
	return la && la == lb;
}

/* A book in a cluster has a near duplicate (or a copy) of its cluster in
 * its similar list, and every book linked to it is in its similar list. */
static int similar_agrees(struct indexer *ixr)
{
	struct idx *ix = indexer_idx(ixr);
	struct idx_groups g = { 0 };
	struct idx_file *b = NULL;
	size_t n = 0, i, k, m, nl;
	uint64_t *linked;
	int bad = 0;

	if (books(ix, &b, &n) || groups_clusters(ix, &g))
		return -1;
	for (i = 0; i < n; i++) {
		struct simlist *l = NULL;

		if (simlist_compute(ix, NULL, b[i].id, NULL, NULL, &l))
			return -1;
		for (k = 0, m = 0; k < l->n; k++)
			m += (l->v[k].cls == RELATE_NEAR_DUPLICATE || l->v[k].cls == RELATE_SAME_TEXT ||
			      l->v[k].cls == RELATE_IDENTICAL_FILE) &&
			     label_of(&g, b[i].id) == label_of(&g, l->v[k].id);
		bad += label_of(&g, b[i].id) && !m;
		linked = NULL;
		nl = 0;
		if (idx_links_of(ix, b[i].id, &linked, &nl))
			return -1;
		for (m = 0; m < nl; m++) {
			int found = 0;

			for (k = 0; k < l->n; k++)
				found |= l->v[k].id == linked[m];
			found |= idx_exempt_has(ix, b[i].id, linked[m]) == 1;
			bad += !found;
		}
		free(linked);
		simlist_free(l);
	}
	idx_files_free(b, n);
	idx_groups_release(&g);
	return bad;
}

/* Every book is judged, and its stored similar list (simlist_get()) is the
 * one computed at read time (simlist_compute()), entry for entry and name
 * for name (this library is far below the candidate caps, so the two must
 * agree exactly).  Returns the number of differences. */
static int stored_agrees(struct indexer *ixr)
{
	struct idx *ix = indexer_idx(ixr);
	struct idx_file *b = NULL;
	size_t n = 0, i, k;
	int bad = 0;

	if (books(ix, &b, &n))
		return -1;
	for (i = 0; i < n; i++) {
		struct simlist *ls = NULL, *lc = NULL;
		struct idx_rel *r = NULL;
		size_t nr = 0;

		uint64_t *g = NULL, rep = b[i].id;
		size_t ng = 0;

		/* a copy is never judged: its representative's judgement is its
		 * list's */
		if (b[i].is_copy && idx_copies(ix, b[i].id, &g, &ng) == 0 && ng)
			rep = g[0];
		free(g);
		if (rep == b[i].id && b[i].is_copy) {
			fprintf(stderr, "  %s: a copy without a representative\n", b[i].path);
			bad++;
		}
		if (idx_rels_get(ix, rep, idx_fp_tag(&b[i]), &r, &nr) != 1) {
			fprintf(stderr, "  %s: not judged\n", b[i].path);
			bad++;
		}
		free(r);
		if (simlist_get(ix, NULL, b[i].id, NULL, NULL, &ls) ||
		    simlist_compute(ix, NULL, b[i].id, NULL, NULL, &lc))
			return -1;
		if (ls->n != lc->n) {
			fprintf(stderr, "  %s: stored %zu entries, computed %zu\n", b[i].path, ls->n,
				lc->n);
			bad++;
		}
		for (k = 0; k < ls->n && k < lc->n; k++) {
			const struct simlist_entry *x = &ls->v[k], *y = &lc->v[k];

			if (x->id != y->id || strcmp(x->name, y->name) || strcmp(x->path, y->path) ||
			    x->cls != y->cls || x->score != y->score ||
			    x->simhash_distance != y->simhash_distance || x->jaccard != y->jaccard ||
			    x->cover_this != y->cover_this || x->cover_other != y->cover_other) {
				fprintf(stderr, "  %s: stored '%s', computed '%s'\n", b[i].path, x->name,
					y->name);
				bad++;
			}
		}
		simlist_free(ls);
		simlist_free(lc);
	}
	idx_files_free(b, n);
	return bad;
}

static void test_against_brute_force(void)
{
	struct indexer_opts o = { 0 };
	struct indexer *ixr = NULL;
	struct idx_groups g = { 0 };
	char name[64], from[PATH_MAX + 32], to[PATH_MAX + 32];
	uint64_t *linked = NULL;
	size_t nl = 0;
	unsigned i, k;
	int fd, far = 0;

	REQUIRE(ixtest_dirs() == 0);
	textgen_vocab(vocab, VOCAB, 4711);
	/* per base: itself, variants with 1 word in 200, 60, 25 and 12
	 * changed (near duplicates, some beyond 7 simhash bits), a volume
	 * (containment: not a cluster member), and an unrelated book */
	for (i = 0; i < NBASE; i++) {
		static const unsigned rate[] = { 200, 60, 25, 12 };

		snprintf(name, sizeof(name), "b%u.txt", i);
		put(name, gen(100 + i, WORDS, 0, 0));
		for (k = 0; k < 4; k++) {
			snprintf(name, sizeof(name), "b%u-v%u.txt", i, k);
			put(name, gen(100 + i, WORDS, 1000 + 10 * i + k, rate[k]));
		}
		snprintf(name, sizeof(name), "b%u-vol.txt", i);
		put(name, gen(100 + i, WORDS / 3, 0, 0));
		snprintf(name, sizeof(name), "u%u.txt", i);
		put(name, gen(900 + i, WORDS, 0, 0));
	}
	o.index_dir = ixdir;
	o.threads = 2;
	o.no_watch = 1;
	REQUIRE(indexer_new(&ixr, (fd = open(src, O_RDONLY | O_DIRECTORY)), &o) == 0);
	REQUIRE(indexer_start(ixr) == 0);
	REQUIRE(indexer_wait_idle(ixr, 120000) == 0);

	CHECK_EQ_INT(compare_brute(ixr, &far), 0);
	/* the library has near duplicates the simhash bands cannot see */
	CHECK(far > 0);
	CHECK_EQ_INT(similar_agrees(ixr), 0);
	CHECK_EQ_INT(stored_agrees(ixr), 0);
	/* a volume is contained, not a near duplicate: never in a cluster */
	REQUIRE(groups_clusters(indexer_idx(ixr), &g) == 0);
	CHECK(g.ngroups >= NBASE);
	CHECK_EQ_INT(label_of(&g, ixtest_id_of(ixr, "b0-vol.txt")), 0);
	CHECK_EQ_INT(label_of(&g, ixtest_id_of(ixr, "u0.txt")), 0);
	CHECK(label_of(&g, ixtest_id_of(ixr, "b0.txt")) != 0);
	idx_groups_release(&g);

	/* unlink a base (its group may split), rewrite a variant into an
	 * unrelated text and an unrelated book into a copy of a base, rename,
	 * exempt a pair */
	snprintf(from, sizeof(from), "%s/b1.txt", src);
	REQUIRE(unlink(from) == 0);
	indexer_unlinked(ixr, "b1.txt");
	put("b2-v0.txt", gen(5000, WORDS, 0, 0));
	indexer_written(ixr, "b2-v0.txt");
	put("u3.txt", gen(103, WORDS, 77, 100));
	indexer_written(ixr, "u3.txt");
	snprintf(from, sizeof(from), "%s/b4-v1.txt", src);
	snprintf(to, sizeof(to), "%s/renamed.txt", src);
	REQUIRE(rename(from, to) == 0);
	indexer_renamed(ixr, "b4-v1.txt", "renamed.txt", 0);
	REQUIRE(idx_exempt_set(indexer_idx(ixr), "b5.txt", "b5-v0.txt", 1) == 0);
	REQUIRE(indexer_wait_idle(ixr, 120000) == 0);

	CHECK_EQ_INT(compare_brute(ixr, &far), 0);
	CHECK_EQ_INT(similar_agrees(ixr), 0);
	CHECK_EQ_INT(stored_agrees(ixr), 0);
	REQUIRE(groups_clusters(indexer_idx(ixr), &g) == 0);
	CHECK_EQ_INT(label_of(&g, ixtest_id_of(ixr, "b2-v0.txt")), 0);
	CHECK(label_of(&g, ixtest_id_of(ixr, "u3.txt")) != 0);
	CHECK(label_of(&g, ixtest_id_of(ixr, "u3.txt")) == label_of(&g, ixtest_id_of(ixr, "b3.txt")));
	CHECK(label_of(&g, ixtest_id_of(ixr, "renamed.txt")) == label_of(&g, ixtest_id_of(ixr, "b4.txt")));
	idx_groups_release(&g);
	/* the rewritten variant lost its links; the exemption hides a link
	 * but keeps it, so undoing it brings it back */
	REQUIRE(idx_links_of(indexer_idx(ixr), ixtest_id_of(ixr, "b2-v0.txt"), &linked, &nl) == 0);
	CHECK_EQ_INT(nl, 0);
	free(linked);
	REQUIRE(idx_links_of(indexer_idx(ixr), ixtest_id_of(ixr, "b5.txt"), &linked, &nl) == 0);
	CHECK(nl > 0);
	free(linked);
	REQUIRE(idx_exempt_set(indexer_idx(ixr), "b5.txt", "b5-v0.txt", 0) == 0);
	CHECK_EQ_INT(compare_brute(ixr, &far), 0);
	CHECK_EQ_INT(stored_agrees(ixr), 0);

	/* an unchanged file indexed again keeps its links */
	REQUIRE(idx_links_of(indexer_idx(ixr), ixtest_id_of(ixr, "b6.txt"), &linked, &nl) == 0);
	k = (unsigned)nl;
	free(linked);
	CHECK(k > 0);
	REQUIRE(idx_mark_queued(indexer_idx(ixr), (const char *[]){ "b6.txt" },
				&(struct idx_stat){ 0 }, 1, NULL) == 0);
	REQUIRE(indexer_index_file(ixr, "b6.txt") == 0);
	REQUIRE(idx_links_of(indexer_idx(ixr), ixtest_id_of(ixr, "b6.txt"), &linked, &nl) == 0);
	CHECK_EQ_INT(nl, k);
	free(linked);
	CHECK_EQ_INT(stored_agrees(ixr), 0);
	indexer_free(ixr);

	/* the index as schema 4 left it (no relations): upgraded at the
	 * open, the books judged in the background, the same lists */
	{
		uint8_t v4[4] = { 0, 0, 0, 4 };
		struct idx *ix = NULL;
		uint64_t un[1];
		size_t nu = 1;

		REQUIRE(idx_open(&ix, ixdir, NULL) == 0);
		REQUIRE(idx_debug_raw_put(ix, "meta", "schema", 6, v4, 4) == 0);
		idx_close(ix);
		REQUIRE(indexer_new(&ixr, fd, &o) == 0);
		REQUIRE(idx_unjudged(indexer_idx(ixr), 0, un, 1, &nu) == 0);
		CHECK_EQ_INT(nu, 1);
		REQUIRE(indexer_start(ixr) == 0);
		REQUIRE(indexer_wait_idle(ixr, 120000) == 0);
		for (i = 0; i < 600 && nu; i++) {
			REQUIRE(idx_unjudged(indexer_idx(ixr), 0, un, 1, &nu) == 0);
			if (nu)
				usleep(100000);
		}
		CHECK_EQ_INT(nu, 0);
		/* and the status says the catch-up is over */
		for (i = 0; i < 100; i++) {
			struct indexer_status st;

			indexer_status(ixr, &st);
			if (!st.judging)
				break;
			usleep(100000);
		}
		CHECK(i < 100);
		CHECK_EQ_INT(idx_catchup_get(indexer_idx(ixr), un), 0);
		CHECK_EQ_INT(compare_brute(ixr, &far), 0);
		CHECK_EQ_INT(stored_agrees(ixr), 0);
		indexer_free(ixr);
	}
	close(fd);
}

/* The rules of groups of copies, for every book: the group (idx_copies())
 * has its smallest id first, flagged as representative when the group has
 * two or more, the others flagged as copies, without links and without
 * simhash band entries (idx_near_reps() does not name them, idx_near()
 * does).  Returns the number of books breaking one. */
static int copies_ok(struct indexer *ixr)
{
	struct idx *ix = indexer_idx(ixr);
	struct idx_file *b = NULL;
	size_t n = 0, i, k, ng, nl, nh, nr;
	uint64_t *g = NULL, *l = NULL;
	struct idx_hit *h = NULL, *r = NULL;
	int bad = 0;

	if (books(ix, &b, &n))
		return -1;
	for (i = 0; i < n; i++) {
		int rep, in_reps = 0, in_near = 0;

		if (idx_copies(ix, b[i].id, &g, &ng) || !ng)
			return -1;
		rep = g[0] == b[i].id;
		bad += rep ? b[i].has_copies != (ng > 1) || b[i].is_copy : !b[i].is_copy;
		for (k = 1; k < ng; k++)
			bad += g[k] <= g[k - 1];
		if (idx_links_of(ix, b[i].id, &l, &nl) ||
		    idx_near(ix, b[i].simhash, 0, &h, &nh) ||
		    idx_near_reps(ix, b[i].simhash, 0, &r, &nr))
			return -1;
		bad += !rep && nl;
		for (k = 0; k < nh; k++)
			in_near |= h[k].id == b[i].id;
		for (k = 0; k < nr; k++)
			in_reps |= r[k].id == b[i].id;
		bad += !in_near || in_reps != rep;
		if (bad)
			fprintf(stderr, "  %s: group of %zu, first %llu, links %zu\n", b[i].path, ng,
				(unsigned long long)g[0], nl);
		free(g);
		free(l);
		free(h);
		free(r);
	}
	idx_files_free(b, n);
	return bad;
}

/* Entries of path's similar list that are in the list of names. */
static size_t listed(struct indexer *ixr, const char *path, const char *const *names, size_t n)
{
	struct simlist *l = NULL;
	size_t i, k, found = 0;

	if (simlist_compute(indexer_idx(ixr), NULL, ixtest_id_of(ixr, path), NULL, NULL, &l))
		return (size_t)-1;
	for (i = 0; i < n; i++)
		for (k = 0; k < l->n; k++)
			found += !strcmp(l->v[k].path, names[i]);
	simlist_free(l);
	return found;
}

/* Groups of copies of one text (identical files, and the same text in other
 * bytes) among near duplicates: clusters and similar lists against brute
 * force as representatives go (unlink, rewrite, rename over) and
 * exemptions are made inside a group and with a book outside it. */
static void test_copies(void)
{
	struct indexer_opts o = { 0 };
	struct indexer *ixr = NULL;
	struct idx_groups g = { 0 };
	char name[64], from[PATH_MAX + 32], to[PATH_MAX + 32];
	static const char *const g0[] = { "g0-c0.txt", "g0-c1.txt", "g0-c2.txt", "g0-c3.txt",
					  "g0-c4.txt" };
	uint64_t *v = NULL, id;
	size_t nv = 0;
	unsigned i, k;
	int fd, far = 0;

	REQUIRE(ixtest_dirs() == 0);
	textgen_vocab(vocab, VOCAB, 4711);
	/* 3 texts with 5 copies each (the last one's bytes differ: a trailing
	 * blank line, the same normalised text), a near duplicate and a
	 * volume of each, an unrelated book */
	for (i = 0; i < 3; i++) {
		char *t = gen(200 + i, WORDS, 0, 0), *t2;

		REQUIRE(t);
		for (k = 0; k < 5; k++) {
			snprintf(name, sizeof(name), "g%u-c%u.txt", i, k);
			if (k < 4) {
				ixtest_put(name, t);
				continue;
			}
			t2 = malloc(strlen(t) + 3);
			REQUIRE(t2);
			strcpy(t2, t);
			strcat(t2, "\n\n");
			ixtest_put(name, t2);
			free(t2);
		}
		free(t);
		snprintf(name, sizeof(name), "g%u-near.txt", i);
		put(name, gen(200 + i, WORDS, 3000 + i, 60));
		snprintf(name, sizeof(name), "g%u-vol.txt", i);
		put(name, gen(200 + i, WORDS / 3, 0, 0));
	}
	/* more related books after the group's ids: a list fills past the
	 * copies it expands */
	put("g0-vol2.txt", gen(200, WORDS / 2, 0, 0));
	put("g0-vol3.txt", gen(200, WORDS * 2 / 3, 0, 0));
	put("a-early.txt", gen(950, WORDS, 0, 0));
	put("u.txt", gen(951, WORDS, 0, 0));
	o.index_dir = ixdir;
	o.threads = 2;
	o.no_watch = 1;
	REQUIRE(indexer_new(&ixr, (fd = open(src, O_RDONLY | O_DIRECTORY)), &o) == 0);
	REQUIRE(indexer_start(ixr) == 0);
	REQUIRE(indexer_wait_idle(ixr, 120000) == 0);

	CHECK_EQ_INT(copies_ok(ixr), 0);
	CHECK_EQ_INT(stored_agrees(ixr), 0);
	REQUIRE(idx_copies(indexer_idx(ixr), ixtest_id_of(ixr, "g0-c0.txt"), &v, &nv) == 0);
	CHECK_EQ_INT(nv, 5);
	free(v);
	CHECK_EQ_INT(compare_brute(ixr, &far), 0);
	CHECK_EQ_INT(similar_agrees(ixr), 0);
	/* the near duplicate lists every copy, and a copy lists the others */
	CHECK_EQ_INT(listed(ixr, "g0-near.txt", g0, 5), 5);
	CHECK_EQ_INT(listed(ixr, "g0-near.txt",
			    (const char *[]){ "g0-vol.txt", "g0-vol2.txt", "g0-vol3.txt" }, 3), 3);
	CHECK_EQ_INT(listed(ixr, "g0-c3.txt", g0, 5), 4);
	CHECK_EQ_INT(listed(ixr, "g0-vol.txt", g0, 5), 5);
	REQUIRE(groups_clusters(indexer_idx(ixr), &g) == 0);
	CHECK_EQ_INT(g.ngroups, 3);
	CHECK(g.ngroups && g.start[1] == 6);	/* 5 copies and the near duplicate */
	idx_groups_release(&g);

	/* the representative goes: the next copy takes over its bands and links */
	id = ixtest_id_of(ixr, "g0-c0.txt");
	snprintf(from, sizeof(from), "%s/g0-c0.txt", src);
	REQUIRE(unlink(from) == 0);
	indexer_unlinked(ixr, "g0-c0.txt");
	REQUIRE(indexer_wait_idle(ixr, 120000) == 0);
	CHECK_EQ_INT(copies_ok(ixr), 0);
	CHECK_EQ_INT(stored_agrees(ixr), 0);
	CHECK_EQ_INT(compare_brute(ixr, &far), 0);
	CHECK_EQ_INT(similar_agrees(ixr), 0);
	CHECK_EQ_INT(listed(ixr, "g0-near.txt", g0, 5), 4);
	CHECK_EQ_INT(listed(ixr, "g0-vol.txt", g0, 5), 4);
	/* rewritten into another text, the new representative hands over too */
	put("g0-c1.txt", gen(952, WORDS, 0, 0));
	indexer_written(ixr, "g0-c1.txt");
	/* renamed over: g1's representative replaced by an unrelated book */
	snprintf(from, sizeof(from), "%s/u.txt", src);
	snprintf(to, sizeof(to), "%s/g1-c0.txt", src);
	REQUIRE(rename(from, to) == 0);
	indexer_renamed(ixr, "u.txt", "g1-c0.txt", 0);
	/* an earlier book rewritten into a copy takes over as representative */
	put("a-early.txt", gen(202, WORDS, 0, 0));
	indexer_written(ixr, "a-early.txt");
	REQUIRE(indexer_wait_idle(ixr, 120000) == 0);
	CHECK(ixtest_id_of(ixr, "g0-c0.txt") == 0 && id != 0);
	CHECK_EQ_INT(copies_ok(ixr), 0);
	CHECK_EQ_INT(stored_agrees(ixr), 0);
	CHECK_EQ_INT(compare_brute(ixr, &far), 0);
	CHECK_EQ_INT(similar_agrees(ixr), 0);
	CHECK_EQ_INT(listed(ixr, "g0-near.txt", g0, 5), 3);
	CHECK_EQ_INT(listed(ixr, "g1-near.txt",
			    (const char *[]){ "g1-c0.txt", "g1-c1.txt", "g1-c2.txt", "g1-c3.txt",
					      "g1-c4.txt" }, 5), 4);
	CHECK_EQ_INT(listed(ixr, "g2-near.txt", (const char *[]){ "a-early.txt" }, 1), 1);
	{
		struct idx_file f = { 0 };

		REQUIRE(idx_get(indexer_idx(ixr), "a-early.txt", &f) == 0);
		CHECK(f.has_copies && !f.is_copy);
		idx_file_release(&f);
	}

	/* exemptions: inside a group (it stays one cluster through the
	 * others), a copy and a book outside, the representative and a book
	 * outside (its copies still listed) */
	REQUIRE(idx_exempt_set(indexer_idx(ixr), "g0-c2.txt", "g0-c3.txt", 1) == 0);
	REQUIRE(idx_exempt_set(indexer_idx(ixr), "g0-c4.txt", "g0-near.txt", 1) == 0);
	REQUIRE(idx_exempt_set(indexer_idx(ixr), "g2-near.txt", "a-early.txt", 1) == 0);
	CHECK_EQ_INT(compare_brute(ixr, &far), 0);
	CHECK_EQ_INT(similar_agrees(ixr), 0);
	/* one exempted copy: the near duplicate stays with the others */
	CHECK_EQ_INT(together(ixr, "g2-near.txt", "g2-c0.txt"), 1);
	CHECK_EQ_INT(together(ixr, "g2-near.txt", "a-early.txt"), 1);
	CHECK_EQ_INT(together(ixr, "g0-near.txt", "g0-c3.txt"), 1);
	CHECK_EQ_INT(listed(ixr, "g0-near.txt", g0, 5), 2);
	CHECK_EQ_INT(listed(ixr, "g2-near.txt", (const char *[]){ "a-early.txt" }, 1), 0);
	CHECK_EQ_INT(listed(ixr, "g2-near.txt",
			    (const char *[]){ "g2-c0.txt", "g2-c1.txt", "g2-c2.txt", "g2-c3.txt",
					      "g2-c4.txt" }, 5), 5);
	/* a group split apart by its exemptions: each pair of two copies */
	REQUIRE(idx_exempt_set(indexer_idx(ixr), "g0-c2.txt", "g0-c4.txt", 1) == 0);
	REQUIRE(idx_exempt_set(indexer_idx(ixr), "g0-c3.txt", "g0-c4.txt", 1) == 0);
	REQUIRE(idx_exempt_set(indexer_idx(ixr), "g0-c2.txt", "g0-near.txt", 1) == 0);
	CHECK_EQ_INT(compare_brute(ixr, &far), 0);
	/* left: the chain c3 ~ near, c3 ~ c4 (c4 and near exempted) and c2
	 * alone; near and c4 never share a cluster through c3 */
	CHECK_EQ_INT(together(ixr, "g0-near.txt", "g0-c4.txt"), 0);
	CHECK_EQ_INT(together(ixr, "g0-c2.txt", "g0-c3.txt"), 0);
	REQUIRE(groups_text(indexer_idx(ixr), &g) == 0);
	for (i = 0; i < g.ngroups; i++)
		for (k = (unsigned)g.start[i]; k < g.start[i + 1]; k++)
			CHECK(g.ids[k] != ixtest_id_of(ixr, "g0-c2.txt") ||
			      g.start[i + 1] - g.start[i] == 1);
	idx_groups_release(&g);

	indexer_free(ixr);
	close(fd);
}

/* The rel and links tables without the indexer: both sides of a row,
 * tags, the judged mark, removal, hostile entries. */
static void test_rels_table(void)
{
	struct idx *ix = NULL;
	struct idx_file fa = { 0 }, fb = { 0 }, fc = { 0 };
	struct idx_groups g = { 0 };
	struct idx_rel rl[2], *r = NULL;
	struct idx_judgement jd;
	struct idx_fp fp = { 0 };
	struct idx_stat st = { 0 };
	const char *paths[3] = { "a", "b", "c" };
	uint64_t ids[3], mh[2] = { 1, 2 }, *v = NULL, un[4];
	size_t n = 0;
	uint8_t key[16] = { 0 };

	REQUIRE(ixtest_dirs() == 0);
	REQUIRE(idx_open(&ix, ixdir, NULL) == 0);
	REQUIRE(idx_mark_queued(ix, paths, (struct idx_stat[3]){ { 0 } }, 3, ids) == 0);
	fp.mh_bands = mh;
	fp.n_mh_bands = 2;
	fp.rec_version = 1;
	for (int i = 0; i < 3; i++) {
		fp.simhash[0] = (uint8_t)i;
		REQUIRE(idx_put(ix, ids[i], &st, &fp) == 0);
	}
	REQUIRE(idx_get_id(ix, ids[0], &fa) == 0);
	REQUIRE(idx_get_id(ix, ids[1], &fb) == 0);
	REQUIRE(idx_get_id(ix, ids[2], &fc) == 0);
	CHECK(idx_fp_tag(&fa) != 0 && idx_fp_tag(&fa) != idx_fp_tag(&fb));
	REQUIRE(idx_unjudged(ix, 0, un, 4, &n) == 0);
	CHECK_EQ_INT(n, 3);
	CHECK_EQ_INT(idx_rels_get(ix, ids[0], idx_fp_tag(&fa), &r, &n), 0);
	/* a judges b (a near duplicate, a link) and c (b contains a); c's
	 * tag is stale: not stored */
	rl[0] = (struct idx_rel){ .id = ids[1], .tag = idx_fp_tag(&fb), .cls_this = 3,
				  .cls_other = 3, .score = 91, .dist = 5, .link = 1,
				  .jaccard = 0.8125, .cover_this = 1.0 / 3, .cover_other = 0.0625 };
	rl[1] = (struct idx_rel){ .id = ids[2], .tag = idx_fp_tag(&fa), .cls_this = 5,
				  .cls_other = 4, .score = 40 };
	jd = (struct idx_judgement){ ids[0], idx_fp_tag(&fa), rl, 2 };
	CHECK_EQ_INT(idx_rels_set(ix, &jd, 1), 1);
	REQUIRE(idx_rels_get(ix, ids[0], idx_fp_tag(&fa), &r, &n) == 1);
	CHECK(n == 1 && r[0].id == ids[1] && r[0].cls_this == 3 && r[0].score == 91 &&
	      r[0].dist == 5 && r[0].jaccard == 0.8125 && r[0].cover_this == 1.0 / 3 &&
	      r[0].cover_other == 0.0625 && r[0].tag == 0);
	free(r);
	/* b has the row from its side, but is not judged itself */
	CHECK_EQ_INT(idx_rels_get(ix, ids[1], idx_fp_tag(&fb), &r, &n), 0);
	CHECK(r == NULL && n == 0);
	/* another tag than the mark's: not judged */
	CHECK_EQ_INT(idx_rels_get(ix, ids[0], idx_fp_tag(&fb), &r, &n), 0);
	REQUIRE(idx_unjudged(ix, 0, un, 4, &n) == 0);
	CHECK(n == 2 && un[0] == ids[1] && un[1] == ids[2]);
	REQUIRE(idx_unjudged(ix, ids[2], un, 4, &n) == 0);
	CHECK(n == 1 && un[0] == ids[2]);
	/* c judges a: c contains a, from each side; b judged with nothing */
	rl[1].tag = idx_fp_tag(&fa);
	rl[1].id = ids[0];
	rl[1].cover_this = 0.25;
	rl[1].cover_other = 1;
	jd = (struct idx_judgement){ ids[2], idx_fp_tag(&fc), &rl[1], 1 };
	CHECK_EQ_INT(idx_rels_set(ix, &jd, 1), 1);
	jd = (struct idx_judgement){ ids[1], idx_fp_tag(&fb), NULL, 0 };
	CHECK_EQ_INT(idx_rels_set(ix, &jd, 1), 0);
	REQUIRE(idx_rels_get(ix, ids[1], idx_fp_tag(&fb), &r, &n) == 1);
	CHECK(n == 1 && r[0].id == ids[0] && r[0].cls_this == 3 && r[0].cover_this == 0.0625 &&
	      r[0].cover_other == 1.0 / 3);
	free(r);
	REQUIRE(idx_rels_get(ix, ids[0], idx_fp_tag(&fa), &r, &n) == 1);
	CHECK(n == 2 && r[1].id == ids[2] && r[1].cls_this == 4 && r[1].cover_this == 1 &&
	      r[1].cover_other == 0.25 && r[1].score == 40);
	free(r);
	REQUIRE(idx_unjudged(ix, 0, un, 4, &n) == 0);
	CHECK_EQ_INT(n, 0);
	/* only the link joins a group */
	REQUIRE(idx_link_groups(ix, &g) == 0);
	CHECK_EQ_INT(g.ngroups, 1);
	CHECK_EQ_INT(g.start[1], 2);
	idx_groups_release(&g);
	/* a judgement on a replaced fingerprint is dropped whole */
	jd = (struct idx_judgement){ ids[1], idx_fp_tag(&fa), rl, 1 };
	CHECK_EQ_INT(idx_rels_set(ix, &jd, 1), 0);
	/* hostile entries: short keys, a link one way only, a self link; a
	 * relation row that does not decode */
	CHECK_EQ_INT(idx_debug_raw_put(ix, "clusters", key, 5, NULL, 0), 0);
	key[7] = 9;
	key[15] = 3;
	CHECK_EQ_INT(idx_debug_raw_put(ix, "clusters", key, 16, NULL, 0), 0);
	key[15] = 9;
	CHECK_EQ_INT(idx_debug_raw_put(ix, "clusters", key, 16, NULL, 0), 0);
	REQUIRE(idx_link_groups(ix, &g) == 0);
	CHECK_EQ_INT(g.ngroups, 1);
	CHECK_EQ_INT(g.start[1], 2);
	idx_groups_release(&g);
	memset(key, 0, sizeof(key));
	key[7] = (uint8_t)ids[0];
	key[15] = 77;
	CHECK_EQ_INT(idx_debug_raw_put(ix, "rel", key, 16, "x", 1), 0);
	CHECK_EQ_INT(idx_debug_raw_put(ix, "rel", key, 7, "x", 1), 0);
	REQUIRE(idx_rels_get(ix, ids[0], idx_fp_tag(&fa), &r, &n) == 1);
	CHECK_EQ_INT(n, 2);
	free(r);
	/* another fingerprint for b: its links, relations and mark go */
	fp.simhash[0] = 7;
	REQUIRE(idx_put(ix, ids[1], &st, &fp) == 0);
	REQUIRE(idx_links_of(ix, ids[0], &v, &n) == 0);
	CHECK_EQ_INT(n, 0);
	free(v);
	REQUIRE(idx_rels_get(ix, ids[0], idx_fp_tag(&fa), &r, &n) == 1);
	CHECK(n == 1 && r[0].id == ids[2]);
	free(r);
	idx_file_release(&fb);
	REQUIRE(idx_get_id(ix, ids[1], &fb) == 0);
	CHECK_EQ_INT(idx_rels_get(ix, ids[1], idx_fp_tag(&fb), &r, &n), 0);
	/* the same fingerprint again keeps them */
	REQUIRE(idx_put(ix, ids[0], &st, &(struct idx_fp){ .mh_bands = mh, .n_mh_bands = 2,
							    .rec_version = 1 }) == 0);
	REQUIRE(idx_rels_get(ix, ids[0], idx_fp_tag(&fa), &r, &n) == 1);
	CHECK_EQ_INT(n, 1);
	free(r);
	/* stored again, then the file is unlinked; a rename keeps them */
	rl[0].tag = idx_fp_tag(&fb);
	jd = (struct idx_judgement){ ids[0], idx_fp_tag(&fa), rl, 1 };
	CHECK_EQ_INT(idx_rels_set(ix, &jd, 1), 1);
	CHECK_EQ_INT(idx_rename(ix, "a", "a2", 0), 1);
	REQUIRE(idx_rels_get(ix, ids[0], idx_fp_tag(&fa), &r, &n) == 1);
	CHECK_EQ_INT(n, 2);
	free(r);
	CHECK_EQ_INT(idx_unlink(ix, "b"), 1);
	REQUIRE(idx_links_of(ix, ids[0], &v, &n) == 0);
	CHECK_EQ_INT(n, 0);
	free(v);
	REQUIRE(idx_rels_get(ix, ids[0], idx_fp_tag(&fa), &r, &n) == 1);
	CHECK(n == 1 && r[0].id == ids[2]);
	free(r);
	CHECK_EQ_INT(idx_rels_set(ix, NULL, 1), -EINVAL);
	jd = (struct idx_judgement){ 0, 1, NULL, 0 };
	CHECK_EQ_INT(idx_rels_set(ix, &jd, 1), -EINVAL);
	/* the batch lookup the group views use; a record's head */
	{
		uint64_t want[3] = { ids[0], 999999, ids[2] };
		struct idx_file got[3];
		uint32_t ver = 0;
		void *rec = NULL;
		size_t len = 0;

		REQUIRE(idx_get_ids(ix, want, 3, got) == 0);
		CHECK(got[0].id == ids[0] && got[0].path && !strcmp(got[0].path, "a2"));
		CHECK(got[1].path == NULL);
		CHECK(got[2].id == ids[2] && got[2].has_fp);
		for (int i = 0; i < 3; i++)
			idx_file_release(&got[i]);
		fp.rec = "0123456789";
		fp.rec_len = 10;
		REQUIRE(idx_put(ix, ids[2], &st, &fp) == 0);
		REQUIRE(idx_record_head(ix, ids[2], 4, &ver, &rec, &len) == 0);
		CHECK(len == 4 && ver == 1 && !memcmp(rec, "0123", 4));
		free(rec);
		REQUIRE(idx_record_head(ix, ids[2], 100, &ver, &rec, &len) == 0);
		CHECK_EQ_INT(len, 10);
		free(rec);
	}
	idx_file_release(&fa);
	idx_file_release(&fb);
	idx_file_release(&fc);
	idx_close(ix);
}

int main(void)
{
	RUN(test_rels_table);
	RUN(test_against_brute_force);
	RUN(test_copies);
	return CHECK_DONE();
}
