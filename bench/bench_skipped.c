/* bench_skipped.c - what the skipped counts of .simbookfs/status cost, for a
 * small and a large index (default 100 and 10,000 file entries, 90% of
 * them skipped: not books of three kinds and failures).
 *
 *   walk   skipped_count(): every file entry read (what status cost on
 *          each generation before the cache; still its cost once per
 *          index change);
 *   cached skipped_cache_count() on an unchanged index: what status
 *          costs on every read now while the index stays as it is.
 * Median of ROUNDS (default 51) calls each, wall and CPU time, ms.
 *
 * usage: bench_skipped [SMALL [LARGE [ROUNDS]]] */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchutil.h"
#include "idx.h"
#include "skipped.h"

static int rm_fn(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
	(void)sb;
	(void)flag;
	(void)f;
	return remove(p);
}

/* Fills ix with n file entries, nine in ten skipped.  0 or -errno. */
static int fill(struct idx *ix, size_t n)
{
	static const char *const kinds[] = { "JPEG image", "CBZ comic archive", "DjVu document" };
	char path[64], err[128];
	const char *pp = path;
	struct idx_stat st;
	uint64_t id;
	size_t i;
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		memset(&st, 0, sizeof(st));
		st.size = 100 + i;
		st.ino = i + 1;
		st.dev = 1;
		snprintf(path, sizeof(path), "d%03zu/f%06zu", i / 100, i);
		ret = idx_mark_queued(ix, &pp, &st, 1, &id);
		if (ret || i % 10 == 0)
			continue;	/* one in ten stays a (queued) book */
		if (i % 10 == 9) {
			snprintf(err, sizeof(err), "%s: broken file", path);
			ret = idx_put_failed(ix, id, &st, IDX_FAILED, err);
		} else {
			snprintf(err, sizeof(err), "%s: not a book (%s)", path, kinds[i % 3]);
			ret = idx_put_failed(ix, id, &st, IDX_NOT_BOOK, err);
		}
	}
	return ret;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), bench_dcmp);
	return v[n / 2];
}

static int run(size_t n, int rounds)
{
	char dir[4096];
	struct idx *ix = NULL;
	struct skipped_cache *c = skipped_cache_new();
	struct skipped s;
	double *w = calloc((size_t)rounds, sizeof(double)), *u = calloc((size_t)rounds, sizeof(double));
	double wm[2], um[2], t0, c0;
	int mode, r, ret;

	if (!c || !w || !u || bench_mkdtemp(dir, sizeof(dir), "bench_skipped"))
		return 1;
	ret = idx_open(&ix, dir, NULL);
	if (!ret)
		ret = fill(ix, n);
	for (mode = 0; mode < 2 && !ret; mode++) {
		for (r = 0; r < rounds && !ret; r++) {
			t0 = bench_now();
			c0 = bench_cpu_now();
			ret = mode ? skipped_cache_count(c, ix, 1, 0, &s) : skipped_count(ix, &s);
			u[r] = (bench_cpu_now() - c0) * 1e3;
			w[r] = (bench_now() - t0) * 1e3;
			if (!ret && s.total != n - (n + 9) / 10)
				ret = -EIO;
			skipped_release(&s);
		}
		wm[mode] = median(w, rounds);
		um[mode] = median(u, rounds);
	}
	if (!ret)
		printf("%6zu entries: walk %.3f ms (cpu %.3f), cached %.4f ms (cpu %.4f)\n", n,
		       wm[0], um[0], wm[1], um[1]);
	else
		fprintf(stderr, "bench_skipped: %s\n", strerror(-ret));
	idx_close(ix);
	skipped_cache_free(c);
	free(w);
	free(u);
	nftw(dir, rm_fn, 16, FTW_DEPTH | FTW_PHYS);
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	size_t small = argc > 1 ? strtoul(argv[1], NULL, 10) : 100;
	size_t large = argc > 2 ? strtoul(argv[2], NULL, 10) : 10000;
	int rounds = argc > 3 ? atoi(argv[3]) : 51;

	if (rounds < 1 || !small || !large)
		return 2;
	return run(small, rounds) || run(large, rounds);
}
