/* bench_views.c - what listing similar/<book>/ costs at scale, without a
 * mount (the FUSE overhead per listing is measured by bench/viewsbench.sh).
 *
 *   build/bench/bench_views [--n N] [--queries Q] [--words W]
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
 * LMDB read) measured in the same run; then the clusters/ groups of the
 * whole library (simlist_clusters: every simhash near pair compared) cold
 * and warm, against idx_clusters() (simhash distance only).
 * Deterministic; wall clock.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "indexer.h"
#include "simlist.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint32_t lcg(uint32_t *x)
{
	*x = *x * 1103515245u + 12345u;
	return *x >> 8;
}

#define VOCAB 20000
static char vocab[VOCAB][10];

/* A fixed vocabulary of random letter strings (3..9 letters), so texts
 * differ in their character 4-grams as real ones do. */
static void make_vocab(void)
{
	uint32_t x = 12345;
	unsigned i, k, len;

	for (i = 0; i < VOCAB; i++) {
		len = 3 + lcg(&x) % 7;
		for (k = 0; k < len; k++)
			vocab[i][k] = (char)('a' + lcg(&x) % 26);
		vocab[i][len] = '\0';
	}
}

/* Book i: base i / 5, 2% of the words changed with book i's own seed. */
static size_t gen_book(char *out, unsigned words, unsigned i)
{
	uint32_t base = 1000u + i / 5, own = 77u + i;
	char *p = out;
	unsigned w, v;

	for (w = 0; w < words; w++) {
		v = lcg(&base) % VOCAB;
		if (lcg(&own) % 50 == 0)
			v = lcg(&own) % VOCAB;
		p += sprintf(p, "%s", vocab[v]);
		*p++ = w % 120 == 119 ? '\n' : ' ';
	}
	*p++ = '\n';
	return (size_t)(p - out);
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void pct(const char *what, double *t, size_t n)
{
	qsort(t, n, sizeof(*t), dcmp);
	printf("%-44s p50 %8.3f ms  p99 %8.3f ms\n", what, t[n / 2] * 1e3,
	       t[n * 99 / 100 < n ? n * 99 / 100 : n - 1] * 1e3);
}

int main(int argc, char **argv)
{
	unsigned n = 20000, q = 500, words = 1500, i;
	char dir[] = "/tmp/bench_views.XXXXXX", ixdir[64], path[128], cmd[160];
	struct indexer_opts o = { 0 };
	struct indexer *ixr = NULL;
	struct simcache *c = NULL;
	struct indexer_status st;
	double t0, t1, *tc, *tw, *tg, bytes = 0;
	uint64_t *ids;
	size_t nent = 0;
	char *buf;
	int fd, i_arg;

	for (i_arg = 1; i_arg + 1 < argc; i_arg += 2) {
		if (!strcmp(argv[i_arg], "--n"))
			n = (unsigned)atoi(argv[i_arg + 1]);
		else if (!strcmp(argv[i_arg], "--queries"))
			q = (unsigned)atoi(argv[i_arg + 1]);
		else if (!strcmp(argv[i_arg], "--words"))
			words = (unsigned)atoi(argv[i_arg + 1]);
	}
	make_vocab();
	if (!mkdtemp(dir))
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
	t0 = now();
	if (fd < 0 || indexer_new(&ixr, fd, &o) || indexer_start(ixr) ||
	    indexer_wait_idle(ixr, -1))
		return 1;
	t1 = now();
	indexer_status(ixr, &st);
	printf("index (scan + fingerprint, %s threads)  %.2f s  %.0f books/s  %.1f MB/s  (%llu books)\n",
	       "CPU", t1 - t0, n / (t1 - t0), bytes / 1e6 / (t1 - t0), (unsigned long long)st.books);

	c = simcache_new(0);
	for (i = 0; i < q; i++) {
		struct idx_file f = { 0 };
		uint32_t x = 4242u + i;

		unsigned b = lcg(&x) % n;

		snprintf(path, sizeof(path), "d%03u/book%06u.txt", b / 1000, b);
		t0 = now();
		if (idx_get(indexer_idx(ixr), path, &f))
			return 1;
		tg[i] = now() - t0;
		ids[i] = f.id;
		idx_file_release(&f);
	}
	for (i = 0; i < q; i++) {
		struct simlist *l = NULL;

		t0 = now();
		if (simlist_compute(indexer_idx(ixr), c, ids[i], NULL, NULL, &l))
			return 1;
		tc[i] = now() - t0;
		nent += l->n;
		simlist_free(l);
	}
	for (i = 0; i < q; i++) {
		struct simlist *l = NULL;

		t0 = now();
		if (simlist_compute(indexer_idx(ixr), c, ids[i], NULL, NULL, &l))
			return 1;
		tw[i] = now() - t0;
		simlist_free(l);
	}
	printf("# %u queries, %.1f entries per list on average\n", q, (double)nent / q);
	pct("similar list, cold (records compared)", tc, q);
	pct("similar list, warm (pair cache)", tw, q);
	pct("baseline: one idx_get()", tg, q);
	{
		struct idx_groups g = { 0 };
		struct simcache *c2 = simcache_new(0);
		size_t ng;

		t0 = now();
		if (idx_clusters(indexer_idx(ixr), idx_max_d(indexer_idx(ixr)), &g))
			return 1;
		t1 = now();
		ng = g.ngroups;
		idx_groups_release(&g);
		printf("baseline: idx_clusters() (simhash only)   %8.3f s  %zu groups\n", t1 - t0, ng);
		t0 = now();
		if (simlist_clusters(indexer_idx(ixr), c2, &g))
			return 1;
		t1 = now();
		ng = g.ngroups;
		idx_groups_release(&g);
		printf("clusters/ groups, cold (pairs compared)   %8.3f s  %zu groups\n", t1 - t0, ng);
		t0 = now();
		if (simlist_clusters(indexer_idx(ixr), c2, &g))
			return 1;
		t1 = now();
		idx_groups_release(&g);
		printf("clusters/ groups, warm (pair cache)       %8.3f s\n", t1 - t0);
		simcache_free(c2);
	}
	simcache_free(c);
	indexer_free(ixr);
	close(fd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", dir, ixdir);
	free(buf);
	free(tc);
	free(tw);
	free(tg);
	free(ids);
	return system(cmd) ? 1 : 0;
}
