/* bench_avglink.c - the clustering of clusters/ (avglink.h) at scale, on
 * graphs where it has work to do (components that are not complete),
 * against the union-find components of the same edges in the same run.
 *
 *   build/bench/bench_avglink [--n ITEMS] [--group K] [--keep PERCENT] [--stray PER_1000]
 *
 * Groups of K items keep each of their pairs with probability PERCENT; a
 * stray edge joins a random item of another group for every 1000 / PER_1000
 * items (the chains).  CPU seconds, median of 5. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avglink.h"
#include "benchutil.h"
#include "ufind.h"

static uint64_t rng = 0x2545F4914F6CDD1Dull;

static uint32_t rnd(uint32_t below)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % below);
}

int main(int argc, char **argv)
{
	size_t n = 100000, k = 5, keep = 80, stray = 100, ne = 0, i, j, r, nc, ncl;
	uint32_t (*e)[2], *label;
	double tl[5], tu[5], t0;
	struct ufind uf;

	for (i = 1; i + 1 < (size_t)argc; i += 2) {
		size_t v = strtoul(argv[i + 1], NULL, 10);

		if (!strcmp(argv[i], "--n"))
			n = v;
		else if (!strcmp(argv[i], "--group"))
			k = v ? v : 1;
		else if (!strcmp(argv[i], "--keep"))
			keep = v;
		else if (!strcmp(argv[i], "--stray"))
			stray = v;
	}
	e = malloc((n * k + n + 1) * sizeof(*e));
	label = malloc((n + 1) * sizeof(*label));
	if (!e || !label || n < 2)
		return 1;
	for (i = 0; i < n; i += k)
		for (j = i; j < i + k && j < n; j++)
			for (r = j + 1; r < i + k && r < n; r++)
				if (rnd(100) < keep) {
					e[ne][0] = (uint32_t)j;
					e[ne++][1] = (uint32_t)r;
				}
	for (i = 0; stray && i < n; i += 1000 / stray) {
		e[ne][0] = (uint32_t)i;
		e[ne++][1] = rnd((uint32_t)n);
	}
	for (r = 0; r < 5; r++) {
		t0 = bench_cpu_now();
		if (avglink_cluster(n, NULL, (const uint32_t (*)[2])e, ne, label))
			return 1;
		tl[r] = bench_cpu_now() - t0;
		t0 = bench_cpu_now();
		if (ufind_init(&uf, n))
			return 1;
		for (i = 0; i < ne; i++)
			ufind_union(&uf, e[i][0], e[i][1]);
		for (i = 0, nc = 0; i < n; i++)
			nc += ufind_find(&uf, i) == i;
		tu[r] = bench_cpu_now() - t0;
		ufind_release(&uf);
	}
	for (i = 0, ncl = 0; i < n; i++)
		ncl += label[i] == i;
	qsort(tl, 5, sizeof(*tl), bench_dcmp);
	qsort(tu, 5, sizeof(*tu), bench_dcmp);
	printf("%zu items, %zu edges (groups of %zu, %zu%% of their pairs, %zu stray per 1000)\n",
	       n, ne, k, keep, stray);
	printf("avglink_cluster()                  %8.3f ms  %zu clusters\n", tl[2] * 1e3, ncl);
	printf("baseline: union-find components    %8.3f ms  %zu components\n", tu[2] * 1e3, nc);
	free(e);
	free(label);
	return 0;
}
