/* bench_excerpt.c - a short text inside a large book: does the index
 * propose the pair, and what does the pruning-key source cost?
 *
 *   build/bench/bench_excerpt [--large N] [--words W] [--others M] [--seed S]
 *
 * N large synthetic books (mut_synth, W words each), M other books of 20k to
 * 80k words (hard negatives: the authors of the large books), and from each
 * large book excerpts of 1, 2, 3 and 5% at a random place, clean and after
 * 2% OCR errors (mutate.h).  Every book goes into two real LMDB indexes in
 * the same run: "before" without the DUPNIQ pruning keys (the whole-book
 * sources only), "after" with them.  Printed: index size and time per book
 * (idx_put and the key sample; fingerprinting apart), and per excerpt size
 * the recall of the pair (excerpt, its large book) among the candidates
 * and in the verified similar/ list (simlist_compute) of each index,
 * candidates per book and the candidate query time.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "benchutil.h"
#include "book.h"
#include "bookrec.h"
#include "idx_test.h"
#include "mutate.h"
#include "judge.h"
#include "simlist.h"

static const double fracs[] = { 0.01, 0.02, 0.03, 0.05 };
#define NFRAC (sizeof(fracs) / sizeof(fracs[0]))

struct side {
	const char *name;
	struct idx *ix;
	struct judge_cache *cache;
	char dir[64];
	uint64_t *ids;
	double put_cpu;		/* idx_put + key sample, all books */
	double put_wall;	/* the same, wall clock (LMDB page writes included) */
	unsigned cand[NFRAC][2], listed[NFRAC][2];	/* [size][clean/OCR] */
	size_t ncand_total, ncand_max;
	double *qt;		/* candidate query times of the excerpts */
};

static long long file_size(const char *dir)
{
	char p[96];
	struct stat st;

	snprintf(p, sizeof(p), "%s/data.mdb", dir);
	return stat(p, &st) ? -1 : (long long)st.st_size;
}

static int put_all(struct side *s, struct book **bk, size_t n, int keys)
{
	struct bookrec_fp rf;
	struct idx_stat st;
	char path[32];
	const char *p = path;
	double t0, w0 = bench_now();
	size_t i;
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		snprintf(path, sizeof(path), "b%05zu.txt", i);
		memset(&st, 0, sizeof(st));
		st.size = bk[i]->file_size;
		ret = idx_mark_queued(s->ix, &p, &st, 1, &s->ids[i]);
		if (ret)
			break;
		t0 = bench_cpu_now();
		ret = bookrec_fp_make(bk[i], &rf);
		if (!ret && !keys)
			rf.fp.n_uq_keys = 0;
		if (!ret)
			ret = idx_put(s->ix, s->ids[i], &st, &rf.fp);
		s->put_cpu += bench_cpu_now() - t0;
		bookrec_fp_release(&rf);
	}
	if (!ret)
		ret = idx_sync(s->ix);
	s->put_wall = bench_now() - w0;
	return ret;
}

int main(int argc, char **argv)
{
	size_t nlarge = 8, words = 200000, nothers = 24, nex, nb, i, j, k, e;
	uint64_t seed = 1;
	struct book **bk = NULL;
	struct sbuf t, u;
	struct mut_rng r;
	struct side sd[2];
	double t0, fp_cpu = 0;
	int ret = 0, a;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--large") && a + 1 < argc)
			nlarge = strtoul(argv[++a], NULL, 10);
		else if (!strcmp(argv[a], "--words") && a + 1 < argc)
			words = strtoul(argv[++a], NULL, 10);
		else if (!strcmp(argv[a], "--others") && a + 1 < argc)
			nothers = strtoul(argv[++a], NULL, 10);
		else if (!strcmp(argv[a], "--seed") && a + 1 < argc)
			seed = strtoull(argv[++a], NULL, 10);
		else {
			fprintf(stderr, "usage: bench_excerpt [--large N] [--words W] [--others M] "
				"[--seed S]\n");
			return 2;
		}
	}
	if (!nlarge || words < 2000) {
		fprintf(stderr, "bench_excerpt: at least one large book of 2000 words\n");
		return 2;
	}
	nex = nlarge * NFRAC * 2;
	nb = nlarge + nothers + nex;
	bk = calloc(nb, sizeof(*bk));
	memset(sd, 0, sizeof(sd));
	sbuf_init(&t);
	sbuf_init(&u);
	if (!bk)
		return 1;
	mut_rng_seed(&r, seed);
	/* books: large ones, others, then the excerpts of large book i at
	 * nlarge + nothers + (i * NFRAC + f) * 2 + ocr */
	t0 = bench_cpu_now();
	for (i = 0; i < nlarge + nothers && !ret; i++) {
		sbuf_setlen(&t, 0);
		ret = i < nlarge ? mut_synth(i % 4, seed * 1000 + i, words, &t)
				 : mut_synth(i % 4, seed * 1000 + i,
					     20000 + (size_t)mut_rng_below(&r, 60000), &t);
		if (!ret)
			ret = book_load_buffer(t.buf, t.len, "b.txt", NULL, &bk[i], NULL);
		if (ret || i >= nlarge)
			continue;
		for (k = 0; k < NFRAC && !ret; k++) {
			double from = mut_rng_unit(&r) * (1.0 - fracs[k]);

			sbuf_setlen(&u, 0);
			ret = mut_slice(t.buf, t.len, from, from + fracs[k], &u);
			e = nlarge + nothers + (i * NFRAC + k) * 2;
			if (!ret)
				ret = book_load_buffer(u.buf, u.len, "x.txt", NULL, &bk[e], NULL);
			if (!ret) {
				struct sbuf v;

				sbuf_init(&v);
				ret = mut_ocr(&r, u.buf, u.len, 0.02, &v, NULL);
				if (!ret)
					ret = book_load_buffer(v.buf, v.len, "x.txt", NULL, &bk[e + 1], NULL);
				sbuf_release(&v);
			}
		}
	}
	fp_cpu = bench_cpu_now() - t0;
	if (ret) {
		fprintf(stderr, "bench_excerpt: corpus: %s\n", strerror(-ret));
		return 1;
	}
	for (a = 0; a < 2 && !ret; a++) {
		struct side *s = &sd[a];

		s->name = a ? "after (with pruning keys)" : "before (whole-book sources)";
		s->ids = calloc(nb, sizeof(*s->ids));
		s->qt = calloc(nex, sizeof(*s->qt));
		s->cache = judge_cache_new(0);
		if (!s->ids || !s->qt || !s->cache || bench_mkdtemp(s->dir, sizeof(s->dir), "bench_excerpt")) {
			ret = -ENOMEM;
			break;
		}
		ret = idx_open(&s->ix, s->dir, NULL);
		if (!ret)
			ret = put_all(s, bk, nb, a);
		for (e = 0; e < nex && !ret; e++) {
			size_t b = nlarge + nothers + e, big = e / (NFRAC * 2), f = (e / 2) % NFRAC;
			uint64_t *ids = NULL;
			struct simlist *l = NULL;
			size_t n = 0, hit = 0;

			t0 = bench_now();
			ret = judge_candidates(s->ix, s->ids[b], a ? JUDGE_SRC_ALL :
						 JUDGE_SRC_ALL & ~JUDGE_SRC_UNIQUE, &ids, &n);
			s->qt[e] = bench_now() - t0;
			for (j = 0; j < n; j++)
				hit |= ids[j] == s->ids[big];
			s->ncand_total += n;
			if (n > s->ncand_max)
				s->ncand_max = n;
			free(ids);
			s->cand[f][e & 1] += (unsigned)hit;
			/* listed: candidate, then verified (the "before" index has
			 * no pruning keys, so its list comes from the whole-book
			 * sources only) */
			if (!ret)
				ret = simlist_compute(s->ix, s->cache, s->ids[b], NULL, NULL, &l);
			for (j = 0; !ret && j < l->n; j++)
				if (l->v[j].id == s->ids[big])
					s->listed[f][e & 1]++;
			simlist_free(l);
		}
	}
	if (ret) {
		fprintf(stderr, "bench_excerpt: %s\n", strerror(-ret));
		return 1;
	}
	printf("# bench_excerpt: %zu large books of %zu words, %zu others, %zu excerpts "
	       "(1/2/3/5%%, clean and 2%% OCR), seed %llu\n\n", nlarge, words, nothers, nex,
	       (unsigned long long)seed);
	printf("fingerprinting (book_load_buffer, all %zu books): %.2f s CPU\n\n", nb, fp_cpu);
	printf("| index | size (data.mdb) | per book | idx_put + keys CPU per book | wall per book "
	       "(one transaction a book, then idx_sync) |\n|---|--:|--:|--:|--:|\n");
	for (a = 0; a < 2; a++)
		printf("| %s | %.2f MB | %.1f KB | %.3f ms | %.3f ms |\n", sd[a].name,
		       (double)file_size(sd[a].dir) / 1e6, (double)file_size(sd[a].dir) / 1e3 / (double)nb,
		       1e3 * sd[a].put_cpu / (double)nb, 1e3 * sd[a].put_wall / (double)nb);
	printf("\nRecall of (excerpt, its large book): candidates / listed in similar/<excerpt>/, "
	       "of %zu per cell\n\n| excerpt | before clean | before 2%% OCR | after clean | "
	       "after 2%% OCR |\n|---|--:|--:|--:|--:|\n", nlarge);
	for (k = 0; k < NFRAC; k++)
		printf("| %.0f%% (%.0f words) | %u / %u | %u / %u | %u / %u | %u / %u |\n",
		       100 * fracs[k], fracs[k] * (double)words, sd[0].cand[k][0], sd[0].listed[k][0],
		       sd[0].cand[k][1], sd[0].listed[k][1], sd[1].cand[k][0], sd[1].listed[k][0],
		       sd[1].cand[k][1], sd[1].listed[k][1]);
	printf("\n| index | candidates per excerpt, mean | max | candidate query p50 | p99 |\n"
	       "|---|--:|--:|--:|--:|\n");
	for (a = 0; a < 2; a++) {
		qsort(sd[a].qt, nex, sizeof(double), bench_dcmp);
		printf("| %s | %.1f | %zu | %.3f ms | %.3f ms |\n", sd[a].name,
		       (double)sd[a].ncand_total / (double)nex, sd[a].ncand_max, 1e3 * sd[a].qt[nex / 2],
		       1e3 * sd[a].qt[(nex * 99) / 100]);
	}
	for (a = 0; a < 2; a++) {
		char cmd[96];

		idx_close(sd[a].ix);
		judge_cache_free(sd[a].cache);
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", sd[a].dir);
		if (system(cmd) != 0)
			fprintf(stderr, "cleanup of %s failed\n", sd[a].dir);
		free(sd[a].ids);
		free(sd[a].qt);
	}
	for (i = 0; i < nb; i++)
		book_free(bk[i]);
	free(bk);
	sbuf_release(&t);
	sbuf_release(&u);
	return 0;
}
