/* bench_views.c - what listing similar/<book>/ costs at scale, without a
 * mount (the FUSE overhead per listing is measured by bench/viewsbench.sh).
 *
 *   build/bench/bench_views [--n N] [--queries Q] [--words W] [--keep 1]
 *   build/bench/bench_views --clone M [--n N] [--queries Q] [--words W] [--index DIR]
 *   build/bench/bench_views --books DIR
 *
 * (--keep 1: leave the library and its index in $TMPDIR (default /tmp) and
 * print their paths, for bench/clustersbench.sh to mount.)
 *
 * --clone M: the similar list with M books in the index, built from the
 * records of N template books instead of M texts (see bench_clone()):
 * stored (simlist_get) and, as the same run's baseline, computed;
 * --index DIR keeps that index in DIR and reuses it on the next run.
 * --books DIR: the lists of every book of a real library and their
 * candidates (how many books share pruning keys: bench_books()).
 * Every mode prints the candidates per list (cand_stats()).
 *
 * Writes N synthetic books (W words each from a vocabulary of 20,000 random
 * letter strings; groups of 5 share a base text with 2% of the words
 * changed per book, so every book has 4 near
 * duplicates and the rest of the library is unrelated) into a temp folder,
 * indexes them with the indexer (scan + worker threads: books/s, MB/s),
 * then computes the similar list (simlist_compute: candidates from the band
 * tables, comparisons of the stored records, ranking, names) of Q random
 * books: cold (empty pair cache) and warm (the list recomputed after an
 * index change, the pair cache filled), p50/p99, against one idx_get() (one
 * LMDB read) measured in the same run, and the list as the views read it
 * (simlist_get: the relations stored by the indexing); then clusters/ of the whole
 * library: the stored links read in one pass (groups_clusters), first call
 * and repeated, and the whole group view as views.c builds it (each
 * member's entry, the group titles), against the two baselines of the same
 * run: the former full recomputation (every simhash near pair compared on
 * its records, cold) and idx_clusters() (simhash distance only, nothing
 * verified); then what judging (relations and links) costs the indexing
 * work per book (judge_book() of Q books) against fingerprinting one book
 * (read, extract, fingerprint, encode) of the same books.
 * Deterministic; wall clock.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "benchutil.h"
#include "book.h"
#include "bookrec.h"
#include "idx_test.h"
#include "indexer.h"
#include "groups.h"
#include "judge.h"
#include "simlist.h"
#include "textgen.h"

#define VOCAB 20000
static char vocab[VOCAB][TEXTGEN_WORD];

/* Book i: base i / 5, 2% of the words changed with book i's own seed. */
static size_t gen_book(char *out, unsigned words, unsigned i)
{
	return textgen_words(out, (const char (*)[TEXTGEN_WORD])vocab, VOCAB, 1000u + i / 5, 77u + i,
			     50, words, 120);
}

static int u64cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static size_t uf(size_t *p, size_t x)
{
	while (p[x] != x)
		x = p[x] = p[p[x]];
	return x;
}

static void pct(const char *what, double *t, size_t n)
{
	qsort(t, n, sizeof(*t), bench_dcmp);
	printf("%-44s p50 %8.3f ms  p99 %8.3f ms  max %8.3f ms\n", what, t[n / 2] * 1e3,
	       t[n * 99 / 100 < n ? n * 99 / 100 : n - 1] * 1e3, t[n - 1] * 1e3);
}

/* mean, p50 and max of v[0..n) (sorts v) */
static void dist(const char *what, double *v, size_t n)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += v[i];
	qsort(v, n, sizeof(*v), bench_dcmp);
	printf("  %-42s mean %9.1f  p50 %9.1f  max %9.1f\n", what, n ? sum / (double)n : 0,
	       n ? v[n / 2] : 0, n ? v[n - 1] : 0);
}

/* What a list's candidates are for the books ids[0..n) of a library of
 * nbooks: the pruning keys (asked as simlist.c does: at most 1000 postings
 * a key, 2 shared keys) with the postings they read, the books sharing two
 * keys or more, the share of the other books that is, and how many of them
 * the share rule keeps; then the candidates of every source, each one
 * compared on its stored record. */
static int cand_stats(struct idx *ix, const uint64_t *ids, size_t n, size_t nbooks)
{
	double *v = calloc(n ? n * 6 : 1, sizeof(*v));
	size_t i;

	if (!v)
		return -1;
	for (i = 0; i < n; i++) {
		struct idx_uq_hit *h = NULL;
		struct idx_uq_stats us;
		uint64_t *c = NULL;
		size_t nh = 0, nc = 0, na = 0;

		if (idx_uq_candidates(ix, ids[i], 1000, 2, &h, &nh, &us) ||
		    judge_candidates(ix, ids[i], JUDGE_SRC_UNIQUE, &c, &nc))
			return -1;
		free(h);
		free(c);
		c = NULL;
		if (judge_candidates(ix, ids[i], JUDGE_SRC_ALL, &c, &na))
			return -1;
		free(c);
		v[i] = us.keys;
		v[n + i] = (double)us.postings;
		v[2 * n + i] = (double)nh;
		v[3 * n + i] = nbooks > 1 ? 100.0 * (double)nh / (double)(nbooks - 1) : 0;
		v[4 * n + i] = (double)nc;
		v[5 * n + i] = (double)na;
	}
	printf("# candidates per list, %zu lists in a library of %zu books:\n", n, nbooks);
	dist("pruning keys of the book", v, n);
	dist("postings read", v + n, n);
	dist("books sharing >= 2 keys", v + 2 * n, n);
	dist("  the same, % of the other books", v + 3 * n, n);
	dist("kept by the share rule (at most 200)", v + 4 * n, n);
	dist("candidates of all sources (compared)", v + 5 * n, n);
	free(v);
	return 0;
}

static double ms(double t)
{
	return t * 1e3;
}

/* The former clusters/ computation, kept here as the baseline: every pair
 * within the simhash threshold compared on its records (empty cache), the
 * near duplicates united.  Returns the number of groups or -1. */
static long old_recompute(struct idx *ix)
{
	struct judge_cache *c = judge_cache_new(0);
	struct idx_pair *pairs = NULL;
	size_t np = 0, i, nl = 0;
	struct idx_pair *l;
	enum relate_class cls;
	long ng;

	if (!c || idx_near_pairs(ix, idx_max_d(ix), &pairs, &np))
		return -1;
	l = malloc((np + 1) * sizeof(*l));
	if (!l)
		return -1;
	for (i = 0; i < np; i++) {
		if (idx_exempt_has(ix, pairs[i].a, pairs[i].b) == 1 ||
		    judge_relation(ix, c, pairs[i].a, pairs[i].b, &cls))
			continue;
		if (cls == RELATE_IDENTICAL_FILE || cls == RELATE_SAME_TEXT ||
		    cls == RELATE_NEAR_DUPLICATE)
			l[nl++] = pairs[i];
	}
	/* union-find over the pairs' ids, as the former code did */
	{
		uint64_t *ids = malloc((2 * nl + 1) * sizeof(*ids));
		size_t *par = malloc((2 * nl + 1) * sizeof(*par)), nid = 0, a, b, k;
		char *big;

		if (!ids || !par)
			return -1;
		for (i = 0; i < nl; i++) {
			ids[nid++] = l[i].a;
			ids[nid++] = l[i].b;
		}
		qsort(ids, nid, sizeof(*ids), u64cmp);
		for (i = k = 0; i < nid; i++)
			if (!k || ids[k - 1] != ids[i])
				ids[k++] = ids[i];
		nid = k;
		for (i = 0; i < nid; i++)
			par[i] = i;
		for (i = 0; i < nl; i++) {
			a = uf(par, (size_t)((uint64_t *)bsearch(&l[i].a, ids, nid, 8, u64cmp) - ids));
			b = uf(par, (size_t)((uint64_t *)bsearch(&l[i].b, ids, nid, 8, u64cmp) - ids));
			par[a] = b;
		}
		big = calloc(nid + 1, 1);
		for (i = 0, ng = 0; big && i < nid; i++)
			if (!big[uf(par, i)]++)
				ng++;
		free(big);
		free(ids);
		free(par);
	}
	free(l);
	free(pairs);
	judge_cache_free(c);
	return ng;
}

/* clusters/ as views.c builds it: the groups resolved (every member's
 * entry in one read transaction, its metadata.opf name), each group's
 * title.  Returns the number of groups or -1. */
static long view_build(struct idx *ix)
{
	struct groups_set rs = { 0, NULL };
	size_t i;
	char *title;
	long n;

	if (groups_resolve(ix, GROUPS_CLUSTERS, NULL, NULL, &rs))
		return -1;
	for (i = 0; i < rs.n; i++) {
		title = NULL;
		if (groups_title(ix, &rs.g[i], &title)) {
			groups_set_release(&rs);
			return -1;
		}
		free(title);
	}
	n = (long)rs.n;
	groups_set_release(&rs);
	return n;
}

static int bench_clusters(struct idx *ix, unsigned n)
{
	struct idx_groups g = { 0 };
	double t0, t[5];
	long ng, ng2;
	size_t big = 0, i;

	t0 = bench_now();
	if (groups_clusters(ix, &g))
		return -1;
	t[0] = bench_now() - t0;
	for (i = 0; i < g.ngroups; i++)
		if (g.start[i + 1] - g.start[i] == 5)
			big++;
	printf("clusters/ groups (stored links), first call %8.3f ms  %zu groups, %zu of the %u planted groups whole\n",
	       ms(t[0]), g.ngroups, big, n / 5);
	idx_groups_release(&g);
	for (i = 0; i < 5; i++) {
		t0 = bench_now();
		if (groups_clusters(ix, &g))
			return -1;
		t[i] = bench_now() - t0;
		idx_groups_release(&g);
	}
	qsort(t, 5, sizeof(*t), bench_dcmp);
	printf("clusters/ groups (stored links), repeated   %8.3f ms  (median of 5)\n", ms(t[2]));
	t0 = bench_now();
	ng = view_build(ix);
	t[0] = bench_now() - t0;
	t0 = bench_now();
	ng2 = view_build(ix);
	t[1] = bench_now() - t0;
	if (ng < 0 || ng2 != ng)
		return -1;
	printf("clusters/ view build (entries, titles)       %8.3f ms first, %.3f ms again\n",
	       ms(t[0]), ms(t[1]));
	t0 = bench_now();
	if (idx_clusters(ix, idx_max_d(ix), &g))
		return -1;
	t[0] = bench_now() - t0;
	printf("baseline: idx_clusters() (simhash only)     %8.3f ms  %zu groups\n", ms(t[0]),
	       g.ngroups);
	idx_groups_release(&g);
	t0 = bench_now();
	ng = old_recompute(ix);
	t[0] = bench_now() - t0;
	if (ng < 0)
		return -1;
	printf("baseline: former recomputation (cold)       %8.3f ms  %ld groups\n", ms(t[0]), ng);
	return 0;
}

/* The judgement's cost per indexed book (relations and links) against
 * fingerprinting it. */
static int bench_update(struct idx *ix, const char *dir, const uint64_t *ids, unsigned q,
			unsigned words)
{
	double *tu = calloc(q, sizeof(*tu)), *tf = calloc(q, sizeof(*tf)), t0;
	char *data = malloc((size_t)words * 16 + 16), path[256];
	struct idx_file f = { 0 };
	struct sbuf rec;
	unsigned i;

	if (!tu || !tf || !data)
		return -1;
	sbuf_init(&rec);
	for (i = 0; i < q; i++) {
		struct book *b = NULL;
		FILE *fp;
		size_t len;

		t0 = bench_now();
		if (judge_book(ix, ids[i]))
			return -1;
		tu[i] = bench_now() - t0;
		if (idx_get_id(ix, ids[i], &f))
			return -1;
		snprintf(path, sizeof(path), "%s/%s", dir, f.path);
		idx_file_release(&f);
		t0 = bench_now();
		fp = fopen(path, "r");
		if (!fp)
			return -1;
		len = fread(data, 1, (size_t)words * 16, fp);
		fclose(fp);
		sbuf_setlen(&rec, 0);
		if (book_load_buffer(data, len, path, NULL, &b, NULL) || bookrec_encode(b, &rec))
			return -1;
		book_free(b);
		tf[i] = bench_now() - t0;
	}
	pct("judging one indexed book (judge_book)", tu, q);
	pct("baseline: fingerprinting one book", tf, q);
	sbuf_release(&rec);
	free(tu);
	free(tf);
	free(data);
	return 0;
}

/* ---- --clone N: the similar list with N books in the index ----
 *
 * Indexing N real texts at N = 1,000,000 takes hours, so the N entries are
 * stored through the index API from the records of the --n template books
 * (fingerprinted once, in memory, as the indexer does: bookrec_fp_make()).
 * Entry i is template i % T in "universe" i / T: universe 0 stores the
 * templates as they are; every other universe relabels them so that they
 * match only each other: the simhash is XORed with the universe's 128-bit
 * mask (Hamming distances inside the universe kept, about 64 bits to any
 * other universe), the text hash likewise, each min-hash band hash XORed
 * with the universe's 64-bit mask, each pruning key with its 31-bit mask
 * (the kind bit kept; the 31-bit keys of different universes do collide, as
 * real keys do).  The stored records are the templates' own bytes.  So
 * every book has the candidates of its template library plus chance key
 * collisions, and the lookups run against an index of N books. */

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static int u32cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Anonymous resident memory (the LMDB map is file-backed) and its peak
 * (VmHWM, map pages included), in MB. */
static void rss(double *anon, double *hwm)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");

	*anon = *hwm = 0;
	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "RssAnon:", 8))
			*anon = atof(line + 8) / 1024;
		else if (!strncmp(line, "VmHWM:", 6))
			*hwm = atof(line + 6) / 1024;
	}
	if (f)
		fclose(f);
}

/* Drops the index's pages from the page cache: flushed and closed first
 * (pages mapped by a process stay), then reopened. */
static int drop_pages(struct idx **ix, const char *ixdir, const struct idx_opts *o)
{
	char p[256];
	int fd;

	idx_close(*ix);
	*ix = NULL;
	snprintf(p, sizeof(p), "%s/data.mdb", ixdir);
	fd = open(p, O_RDONLY);
	if (fd < 0 || fdatasync(fd) || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
		return -1;
	close(fd);
	return idx_open(ix, ixdir, o) ? -1 : 0;
}

/* Faults that read the disk so far (major faults: the LMDB map is
 * file-backed; each reads the page and, unless the map is advised random,
 * the kernel's read-around). */
static double majflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_majflt;
}

/* Bytes this process has had read from the disk so far (0 when the kernel
 * keeps no I/O accounting). */
static double disk_read(void)
{
	char line[128];
	double v = 0;
	FILE *f = fopen("/proc/self/io", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "read_bytes:", 11))
			v = atof(line + 11);
	if (f)
		fclose(f);
	return v;
}

/* The q similar lists of the books ids[] as computed at read time
 * (simlist_compute(), c == NULL: as the views read them, simlist_get()):
 * times into t, entries counted; when pg is not NULL, the major faults of
 * each list into pg[0..q) and the KB it read from the disk into
 * pg[q..2q). */
static int lists(struct idx *ix, struct judge_cache *c, const uint64_t *ids, unsigned q, double *t,
		 size_t *nent, double *pg)
{
	unsigned i;
	double t0, f0, b0;

	*nent = 0;
	for (i = 0; i < q; i++) {
		struct simlist *l = NULL;

		f0 = majflt();
		b0 = disk_read();
		t0 = bench_now();
		if (c ? simlist_compute(ix, c, ids[i], NULL, NULL, &l) :
			simlist_get(ix, NULL, ids[i], NULL, NULL, &l))
			return -1;
		t[i] = bench_now() - t0;
		if (pg) {
			pg[i] = majflt() - f0;
			pg[q + i] = (disk_read() - b0) / 1024;
		}
		*nent += l->n;
		simlist_free(l);
	}
	return 0;
}

/* The stored lists of the q books ids[] against the ones computed at
 * read time: the number of lists whose entry names or ids differ. */
static long lists_differ(struct idx *ix, struct judge_cache *c, const uint64_t *ids, unsigned q)
{
	long bad = 0;
	unsigned i;
	size_t k;

	for (i = 0; i < q; i++) {
		struct simlist *a = NULL, *b = NULL;

		if (simlist_get(ix, NULL, ids[i], NULL, NULL, &a) ||
		    simlist_compute(ix, c, ids[i], NULL, NULL, &b))
			return -1;
		for (k = 0; k < a->n && a->n == b->n; k++)
			if (a->v[k].id != b->v[k].id || strcmp(a->v[k].name, b->v[k].name))
				break;
		bad += a->n != b->n || k < a->n;
		simlist_free(a);
		simlist_free(b);
	}
	return bad;
}

/* idx_uq_candidates() alone for the q books ids[], as simlist.c asks (at
 * most 1000 postings a key, 2 shared keys): times into t, the postings
 * read into *post (mean); faults and KB read into pg as lists() does. */
static int uq_alone(struct idx *ix, const uint64_t *ids, unsigned q, double *t, double *pg,
		    double *post)
{
	double t0, f0, b0, sum = 0;
	unsigned i;

	for (i = 0; i < q; i++) {
		struct idx_uq_hit *h = NULL;
		struct idx_uq_stats us;
		size_t nh;

		f0 = majflt();
		b0 = disk_read();
		t0 = bench_now();
		if (idx_uq_candidates(ix, ids[i], 1000, 2, &h, &nh, &us))
			return -1;
		t[i] = bench_now() - t0;
		if (pg) {
			pg[i] = majflt() - f0;
			pg[q + i] = (disk_read() - b0) / 1024;
		}
		sum += (double)us.postings;
		free(h);
	}
	*post = q ? sum / q : 0;
	return 0;
}

#define BATCH 2000	/* books marked and stored per write transaction */

/* Universe u's fingerprint of template r: simhash and text hash XORed with
 * the universe's masks (none for universe 0), as bench_clone() stores it;
 * bands and keys (room for BOOKREC_MH_BANDS + BOOKREC_NAME_BANDS and IDX_UQ_MAX) get the
 * masked band hashes and pruning keys. */
static void clone_fp(const struct bookrec_fp *r, unsigned u, struct idx_fp *fp, uint64_t *bands,
		     uint32_t *keys)
{
	uint64_t m1 = u ? mix64(u) : 0, m2 = u ? mix64(u + 0x1000000ull) : 0;
	unsigned j;

	*fp = r->fp;
	for (j = 0; j < IDX_SH_BYTES; j++) {
		fp->simhash[j] ^= (uint8_t)((j < 8 ? m1 : m2) >> (j % 8 * 8));
		fp->text_hash[j] ^= (uint8_t)((j < 8 ? m2 : m1) >> (j % 8 * 8));
	}
	if (!bands)
		return;
	for (j = 0; j < fp->n_mh_bands; j++)
		bands[j] = r->fp.mh_bands[j] ^ m1;
	for (j = 0; j < fp->n_uq_keys; j++)
		keys[j] = r->fp.uq_keys[j] ^ ((uint32_t)m2 & ~IDX_UQ_HI);
	qsort(keys, fp->n_uq_keys, sizeof(*keys), u32cmp);
	fp->mh_bands = bands;
	fp->uq_keys = keys;
}

/* idx_fp_tag() of universe u's copy of template r. */
static uint64_t clone_tag(const struct bookrec_fp *r, unsigned u)
{
	struct idx_file f = { .has_fp = 1 };
	struct idx_fp fp;

	clone_fp(r, u, &fp, NULL, NULL);
	memcpy(f.simhash, fp.simhash, IDX_SH_BYTES);
	memcpy(f.text_hash, fp.text_hash, IDX_SH_BYTES);
	f.rec_version = fp.rec_version;
	return idx_fp_tag(&f);
}

static enum relate_class mirror(enum relate_class c)
{
	return c == RELATE_A_CONTAINS_B ? RELATE_B_CONTAINS_A :
	       c == RELATE_B_CONTAINS_A ? RELATE_A_CONTAINS_B : c;
}

/* The relations of universe 0's books, judged once (judge_book() of
 * each, as the indexer does after storing them): rel[t] holds template
 * t's, their ids turned into template numbers. */
struct trels {
	struct idx_rel *v;
	size_t n;
};

static int judge_universe0(struct idx *ix, const uint64_t *allid, unsigned nt, struct trels *rel)
{
	struct idx_file f = { 0 };
	unsigned t, k;
	size_t i, j;

	for (t = 0; t < nt; t++)
		if (judge_book(ix, allid[t]))
			return -1;
	for (t = 0; t < nt; t++) {
		if (idx_get_id(ix, allid[t], &f) ||
		    idx_rels_get(ix, allid[t], idx_fp_tag(&f), &rel[t].v, &rel[t].n) != 1)
			return -1;
		idx_file_release(&f);
		for (i = j = 0; i < rel[t].n; i++) {
			/* ids of universe 0 are allid[0..nt), ascending */
			for (k = 0; k < nt && allid[k] != rel[t].v[i].id; k++)
				;
			if (k == nt)
				continue;	/* a chance match outside universe 0 */
			rel[t].v[j] = rel[t].v[i];
			rel[t].v[j++].id = k;
		}
		rel[t].n = j;
	}
	return 0;
}

/* Universe u >= 1's books first..first+m (entry numbers) get the
 * relations of their templates, ids shifted into the universe: universes
 * are independent by construction (their masks keep every band, key and
 * hash apart), so each holds exactly universe 0's relations.  A relation
 * whose other book is not stored yet is dropped by idx_rels_set() and
 * written by that book's own judgement, as in the indexer. */
static int replicate(struct idx *ix, const struct bookrec_fp *tf, unsigned nt, const uint64_t *allid,
		     const struct trels *rel, unsigned first, unsigned m)
{
	struct idx_judgement *jd = calloc(m ? m : 1, sizeof(*jd));
	struct idx_rel *rv = NULL;
	size_t tot = 0, i, o = 0;
	unsigned k;
	int ret = -1;

	if (!jd)
		return -1;
	for (k = 0; k < m; k++)
		tot += rel[(first + k) % nt].n;
	rv = calloc(tot ? tot : 1, sizeof(*rv));
	if (!rv)
		goto out;
	for (k = 0; k < m; k++) {
		unsigned e = first + k, u = e / nt, t = e % nt;

		jd[k] = (struct idx_judgement){ allid[e], clone_tag(&tf[t], u), rv + o, rel[t].n };
		for (i = 0; i < rel[t].n; i++) {
			struct idx_rel r = rel[t].v[i];
			unsigned ot = (unsigned)r.id;
			enum relate_class c = (enum relate_class)r.cls_this;

			r.id = allid[u * nt + ot];
			r.tag = clone_tag(&tf[ot], u);
			r.cls_other = (uint8_t)mirror(c);
			r.link = c == RELATE_IDENTICAL_FILE || c == RELATE_SAME_TEXT ||
				 c == RELATE_NEAR_DUPLICATE;
			rv[o++] = r;
		}
	}
	ret = idx_rels_set(ix, jd, m) < 0 ? -1 : 0;
out:
	free(rv);
	free(jd);
	return ret;
}


static int bench_clone(unsigned nt, unsigned nbooks, unsigned q, unsigned words,
		       const char *keep_dir)
{
	struct bookrec_fp *tf = calloc(nt, sizeof(*tf));
	struct idx_opts o = { .map_size = 1ull << 33 };
	char ixdir[128], path[256], *buf = malloc((size_t)words * 16 + 16), cmd[200];
	const char **paths = calloc(BATCH, sizeof(*paths));
	struct idx_stat *sts = calloc(BATCH, sizeof(*sts));
	uint64_t *bid = calloc(BATCH, sizeof(*bid)), *qid = calloc(q, sizeof(*qid));
	uint32_t *keys = malloc((size_t)BATCH * IDX_UQ_MAX * sizeof(*keys));
	uint64_t *bands = malloc((size_t)BATCH * (BOOKREC_MH_BANDS + BOOKREC_NAME_BANDS) * sizeof(*bands));
	struct idx_fp *fp = calloc(BATCH, sizeof(*fp));
	double *t = calloc(q, sizeof(*t)), *pg = calloc(2 * (size_t)q, sizeof(*pg)), t0, tb, anon, hwm, uqs = 0,
	       recs = 0, t1, tj = 0;
	uint64_t *allid = calloc(nbooks ? nbooks : 1, sizeof(*allid));
	struct trels *rel = calloc(nt, sizeof(*rel));
	char (*pbuf)[64] = calloc(BATCH, 64);
	struct judge_cache *c = NULL;
	struct idx *ix = NULL;
	struct stat sb;
	unsigned i, k, b;
	size_t nent;

	if (!tf || !buf || !paths || !sts || !bid || !qid || !keys || !bands || !fp || !t || !pg ||
	    !pbuf || !allid || !rel)
		return -1;
	if (keep_dir) {
		snprintf(ixdir, sizeof(ixdir), "%s", keep_dir);
	} else {
		char name[40];

		snprintf(name, sizeof(name), "bench_views_clone.%d", (int)getpid());
		if (bench_tmppath(ixdir, sizeof(ixdir), name))
			return -1;
	}
	t0 = bench_now();
	for (i = 0; i < nt; i++) {
		struct book *bk = NULL;
		size_t len = gen_book(buf, words, i);

		snprintf(path, sizeof(path), "book%06u.txt", i);
		if (book_load_buffer(buf, len, path, NULL, &bk, NULL) ||
		    bookrec_fp_make(bk, &tf[i]))
			return -1;
		book_free(bk);
		uqs += tf[i].fp.n_uq_keys;
		recs += (double)tf[i].fp.rec_len;
	}
	printf("# %u template books of %u words fingerprinted in %.2f s: record %.0f bytes, %.0f pruning keys on average\n",
	       nt, words, bench_now() - t0, recs / nt, uqs / nt);
	if (stat(ixdir, &sb) == 0) {
		struct idx_counts cn;

		t0 = bench_now();
		if (idx_open(&ix, ixdir, &o) || idx_counts(ix, &cn))
			return -1;
		/* an index of the previous schema is upgraded by this open */
		printf("# reusing the index in %s: %llu books, opened in %.1f s\n", ixdir,
		       (unsigned long long)cn.books, bench_now() - t0);
		goto query;
	}
	if (idx_open(&ix, ixdir, &o))
		return -1;
	t0 = bench_now();
	for (i = 0; i < nbooks; i += BATCH) {
		unsigned m = nbooks - i < BATCH ? nbooks - i : BATCH;

		for (k = 0; k < m; k++) {
			snprintf(pbuf[k], 64, "u%04u/book%06u.txt", (i + k) / nt, (i + k) % nt);
			paths[k] = pbuf[k];
			sts[k] = (struct idx_stat){ .size = 1, .mtime_ns = 1, .ino = i + k + 1 };
		}
		if (idx_mark_queued(ix, paths, sts, m, bid))
			return -1;
		for (k = 0; k < m; k++) {
			allid[i + k] = bid[k];
			clone_fp(&tf[(i + k) % nt], (i + k) / nt, &fp[k],
				 bands + (size_t)k * (BOOKREC_MH_BANDS + BOOKREC_NAME_BANDS), keys + (size_t)k * IDX_UQ_MAX);
		}
		/* one transaction per BATCH books: a commit per book would
		 * dominate the load */
		for (k = 0; k < m; k += BATCH)
			if (idx_put_many(ix, bid + k, sts + k, fp + k, m - k < BATCH ? m - k : BATCH))
				return -1;
		/* the relations: universe 0 judged once it is whole, the
		 * others copied from it */
		if (i < nt && i + m >= nt) {
			t1 = bench_now();
			if (judge_universe0(ix, allid, nt, rel))
				return -1;
			tj = bench_now() - t1;
			if (i + m > nt && replicate(ix, tf, nt, allid, rel, nt, i + m - nt))
				return -1;
		} else if (i >= nt && replicate(ix, tf, nt, allid, rel, i, m)) {
			return -1;
		}
		if ((i / BATCH) % 50 == 49)
			fprintf(stderr, "%u books, %.0f s\n", i + m, bench_now() - t0);
	}
	if (idx_sync(ix))
		return -1;
	tb = bench_now() - t0;
	snprintf(path, sizeof(path), "%s/data.mdb", ixdir);
	stat(path, &sb);
	rss(&anon, &hwm);
	printf("index of %u books stored  %.1f s  %.0f books/s  data.mdb %.2f GB on disk (%.0f bytes per book)  RSS anon %.1f MB\n",
	       nbooks, tb, nbooks / tb, (double)sb.st_blocks * 512 / 1e9,
	       (double)sb.st_blocks * 512 / nbooks, anon);
	for (i = nent = 0; i < nt; i++)
		nent += rel[i].n;
	printf("# of which judging universe 0 (judge_book() of %u books): %.1f s, %.2f relations per book, copied into every universe\n",
	       nt, tj, (double)nent / nt);
query:
	if (drop_pages(&ix, ixdir, &o))
		return -1;
	for (i = 0; i < q; i++) {
		struct idx_file f = { 0 };
		uint32_t x = 4242u + i;

		b = (textgen_lcg(&x) << 8 ^ textgen_lcg(&x)) % nbooks;
		snprintf(path, sizeof(path), "u%04u/book%06u.txt", b / nt, b % nt);
		t0 = bench_now();
		if (idx_get(ix, path, &f))
			return -1;
		t[i] = bench_now() - t0;
		qid[i] = f.id;
		idx_file_release(&f);
	}
	printf("# %u queries over %u books\n", q, nbooks);
	pct("baseline: one idx_get(), pages cold", t, q);
	/* the lists as the views read them: stored at indexing time */
	if (lists(ix, NULL, qid, q, t, &nent, pg))
		return -1;
	pct("stored similar list (simlist_get), cold pages", t, q);
	printf("# %.1f entries per list on average\n", (double)nent / q);
	dist("major faults per cold stored list", pg, q);
	dist("KB read from disk per cold stored list", pg + q, q);
	if (lists(ix, NULL, qid, q, t, &nent, NULL))
		return -1;
	pct("stored similar list, first listing (pages warm)", t, q);
	if (lists(ix, NULL, qid, q, t, &nent, NULL))
		return -1;
	pct("stored similar list, again", t, q);
	/* the same run's baseline: the list computed at read time */
	if (drop_pages(&ix, ixdir, &o))
		return -1;
	c = judge_cache_new(0);
	if (!c || lists(ix, c, qid, q, t, &nent, pg))
		return -1;
	pct("similar list, cold (pages, pair cache)", t, q);
	printf("# %.1f entries per list on average\n", (double)nent / q);
	dist("major faults per cold list", pg, q);
	dist("KB read from disk per cold list", pg + q, q);
	judge_cache_free(c);
	c = judge_cache_new(0);
	if (!c || lists(ix, c, qid, q, t, &nent, NULL))
		return -1;
	pct("similar list, pages warm, pair cache empty", t, q);
	if (lists(ix, c, qid, q, t, &nent, NULL))
		return -1;
	pct("similar list, warm (pair cache)", t, q);
	printf("# stored lists that differ from the computed ones: %ld of %u\n",
	       lists_differ(ix, c, qid, q), q);
	if (uq_alone(ix, qid, q, t, NULL, &uqs))
		return -1;
	printf("# of which pruning-key candidates: %.0f postings read per list on average\n",
	       uqs);
	pct("  idx_uq_candidates() alone, warm", t, q);
	if (cand_stats(ix, qid, q, nbooks))
		return -1;
	/* what the pruning-key source alone reads of a cold index */
	if (drop_pages(&ix, ixdir, &o) || uq_alone(ix, qid, q, t, pg, &uqs))
		return -1;
	pct("  idx_uq_candidates() alone, cold", t, q);
	dist("  its major faults", pg, q);
	dist("  its KB read from disk", pg + q, q);
	for (i = 0; i < q; i++) {
		struct idx_file f = { 0 };

		snprintf(path, sizeof(path), "u%04u/book%06u.txt", 0u, i % nt);
		t0 = bench_now();
		if (idx_get(ix, path, &f))
			return -1;
		t[i] = bench_now() - t0;
		idx_file_release(&f);
	}
	pct("baseline: one idx_get(), warm", t, q);
	rss(&anon, &hwm);
	printf("RSS after the queries: anon %.1f MB, peak with map pages %.1f MB\n", anon, hwm);
	judge_cache_free(c);
	idx_close(ix);
	for (i = 0; i < nt; i++) {
		bookrec_fp_release(&tf[i]);
		free(rel[i].v);
	}
	free(rel);
	free(allid);
	free(tf);
	free(buf);
	free(paths);
	free(sts);
	free(bid);
	free(qid);
	free(keys);
	free(bands);
	free(fp);
	free(t);
	free(pg);
	free(pbuf);
	if (keep_dir)
		return 0;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", ixdir);
	return system(cmd) ? -1 : 0;
}

/* --books DIR: a real library indexed by the indexer (scan and workers)
 * into a temp index; the list of every book, cold and warm, and its
 * candidates. */
static int bench_books(const char *books)
{
	char ixdir[] = "/tmp/bench_views_books.XXXXXX", cmd[200];
	struct indexer_opts o = { 0 };
	struct indexer *ixr = NULL;
	struct idx_entry *e = NULL;
	struct judge_cache *c = NULL;
	uint64_t *ids = NULL;
	double *t = NULL, t0;
	size_t ne = 0, n = 0, i, nent = 0;
	int fd, ret = -1;

	if (!mkdtemp(ixdir))
		return -1;
	o.index_dir = ixdir;
	o.no_watch = 1;
	fd = open(books, O_RDONLY | O_DIRECTORY);
	t0 = bench_now();
	if (fd < 0 || indexer_new(&ixr, fd, &o) || indexer_start(ixr) ||
	    indexer_wait_idle(ixr, -1) ||
	    idx_list(indexer_idx(ixr), "", IDX_LIST_RECURSIVE, &e, &ne))
		goto out;
	ids = calloc(ne ? ne : 1, sizeof(*ids));
	t = calloc(ne ? ne : 1, sizeof(*t));
	c = judge_cache_new(0);
	if (!ids || !t || !c)
		goto out;
	for (i = 0; i < ne; i++)
		if (!e[i].is_dir && e[i].file.has_fp)
			ids[n++] = e[i].file.id;
	printf("# %s: %zu books indexed in %.1f s\n", books, n, bench_now() - t0);
	if (!n || lists(indexer_idx(ixr), c, ids, (unsigned)n, t, &nent, NULL))
		goto out;
	printf("# %.1f entries per list on average\n", (double)nent / (double)n);
	pct("similar list, cold (records compared)", t, n);
	if (lists(indexer_idx(ixr), c, ids, (unsigned)n, t, &nent, NULL))
		goto out;
	pct("similar list, warm (pair cache)", t, n);
	ret = cand_stats(indexer_idx(ixr), ids, n, n);
out:
	idx_entries_free(e, ne);
	judge_cache_free(c);
	indexer_free(ixr);
	if (fd >= 0)
		close(fd);
	free(ids);
	free(t);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", ixdir);
	return system(cmd) ? -1 : ret;
}

int main(int argc, char **argv)
{
	unsigned n = 20000, q = 500, words = 1500, i;
	char dir[128], ixdir[136], path[256], cmd[300];
	struct indexer_opts o = { 0 };
	struct indexer *ixr = NULL;
	struct judge_cache *c = NULL;
	struct indexer_status st;
	double t0, t1, *tc, *tw, *tg, bytes = 0;
	uint64_t *ids;
	size_t nent = 0;
	char *buf;
	int fd, i_arg, ret, keep = 0;
	unsigned clone = 0;
	const char *clone_dir = NULL, *books = NULL;

	for (i_arg = 1; i_arg + 1 < argc; i_arg += 2) {
		if (!strcmp(argv[i_arg], "--n"))
			n = (unsigned)atoi(argv[i_arg + 1]);
		else if (!strcmp(argv[i_arg], "--queries"))
			q = (unsigned)atoi(argv[i_arg + 1]);
		else if (!strcmp(argv[i_arg], "--words"))
			words = (unsigned)atoi(argv[i_arg + 1]);
		else if (!strcmp(argv[i_arg], "--keep"))
			keep = atoi(argv[i_arg + 1]);
		else if (!strcmp(argv[i_arg], "--clone"))
			clone = (unsigned)atoi(argv[i_arg + 1]);
		else if (!strcmp(argv[i_arg], "--index"))
			clone_dir = argv[i_arg + 1];
		else if (!strcmp(argv[i_arg], "--books"))
			books = argv[i_arg + 1];
	}
	if (books)
		return bench_books(books) ? 1 : 0;
	textgen_vocab(vocab, VOCAB, 12345);
	if (clone) {
		if (!n || !q || clone < n) {
			fprintf(stderr, "--clone N needs N >= --n > 0 and --queries > 0\n");
			return 2;
		}
		return bench_clone(n, clone, q, words, clone_dir) ? 1 : 0;
	}
	if (bench_mkdtemp(dir, sizeof(dir), "bench_views"))
		return 1;
	snprintf(ixdir, sizeof(ixdir), "%s.index", dir);
	buf = malloc((size_t)words * 16 + 16);
	tc = calloc(q, sizeof(*tc));
	tw = calloc(q, sizeof(*tw));
	tg = calloc(q, sizeof(*tg));
	ids = calloc(q, sizeof(*ids));
	if (!buf || !tc || !tw || !tg || !ids)
		return 1;
	for (i = 0; i < n; i++) {
		FILE *f;
		size_t len = gen_book(buf, words, i);

		if (i % 1000 == 0) {
			snprintf(path, sizeof(path), "%s/d%03u", dir, i / 1000);
			mkdir(path, 0755);
		}
		snprintf(path, sizeof(path), "%s/d%03u/book%06u.txt", dir, i / 1000, i);
		f = fopen(path, "w");
		if (!f || fwrite(buf, 1, len, f) != len || fclose(f))
			return 1;
		bytes += (double)len;
	}
	printf("# %u books of %u words, %.1f MB\n", n, words, bytes / 1e6);
	o.index_dir = ixdir;
	o.no_watch = 1;
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	t0 = bench_now();
	if (fd < 0 || indexer_new(&ixr, fd, &o) || indexer_start(ixr) ||
	    indexer_wait_idle(ixr, -1))
		return 1;
	t1 = bench_now();
	indexer_status(ixr, &st);
	printf("index (scan + fingerprint, %s threads)  %.2f s  %.0f books/s  %.1f MB/s  (%llu books)\n",
	       "CPU", t1 - t0, n / (t1 - t0), bytes / 1e6 / (t1 - t0), (unsigned long long)st.books);

	c = judge_cache_new(0);
	for (i = 0; i < q; i++) {
		struct idx_file f = { 0 };
		uint32_t x = 4242u + i;

		unsigned b = textgen_lcg(&x) % n;

		snprintf(path, sizeof(path), "d%03u/book%06u.txt", b / 1000, b);
		t0 = bench_now();
		if (idx_get(indexer_idx(ixr), path, &f))
			return 1;
		tg[i] = bench_now() - t0;
		ids[i] = f.id;
		idx_file_release(&f);
	}
	for (i = 0; i < q; i++) {
		struct simlist *l = NULL;

		t0 = bench_now();
		if (simlist_compute(indexer_idx(ixr), c, ids[i], NULL, NULL, &l))
			return 1;
		tc[i] = bench_now() - t0;
		nent += l->n;
		simlist_free(l);
	}
	for (i = 0; i < q; i++) {
		struct simlist *l = NULL;

		t0 = bench_now();
		if (simlist_compute(indexer_idx(ixr), c, ids[i], NULL, NULL, &l))
			return 1;
		tw[i] = bench_now() - t0;
		simlist_free(l);
	}
	printf("# %u queries, %.1f entries per list on average\n", q, (double)nent / q);
	pct("similar list, cold (records compared)", tc, q);
	pct("similar list, warm (pair cache)", tw, q);
	pct("baseline: one idx_get()", tg, q);
	/* as the views read them: the relations stored by the indexing */
	if (lists(indexer_idx(ixr), NULL, ids, q, tc, &nent, NULL))
		return 1;
	pct("stored similar list (simlist_get)", tc, q);
	printf("# stored lists that differ from the computed ones: %ld of %u\n",
	       lists_differ(indexer_idx(ixr), c, ids, q), q);
	ret = cand_stats(indexer_idx(ixr), ids, q, n);
	if (!ret)
		ret = bench_clusters(indexer_idx(ixr), n);
	if (!ret)
		ret = bench_update(indexer_idx(ixr), dir, ids, q, words);
	if (ret)
		return 1;
	judge_cache_free(c);
	indexer_free(ixr);
	close(fd);
	if (keep)
		printf("# kept %s %s\n", dir, ixdir);
	else
		snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", dir, ixdir);
	free(buf);
	free(tc);
	free(tw);
	free(tg);
	free(ids);
	return !keep && system(cmd) ? 1 : 0;
}
