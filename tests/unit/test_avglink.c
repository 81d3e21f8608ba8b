/* test_avglink.c - average-linkage clustering (avglink.h): chains never
 * join, a book joins a cluster only when alike with more than half of it,
 * the clusters do not depend on the order of items and edges, and the
 * result equals a slow, obvious implementation of the same rule. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "avglink.h"
#include "check.h"

#define MAXN 64

static uint64_t rng = 88172645463325252ull;

static uint32_t rnd(uint32_t below)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % below);
}

/* 1 when items a and b share a cluster. */
static int same(const uint32_t *label, uint32_t a, uint32_t b)
{
	return label[a] == label[b];
}

static void test_chain(void)
{
	static const uint32_t path[][2] = { { 0, 1 }, { 1, 2 }, { 2, 3 }, { 3, 4 }, { 4, 5 },
					    { 5, 6 }, { 6, 7 }, { 7, 8 }, { 8, 9 } };
	uint32_t label[10], cnt[10] = { 0 };
	size_t i;

	/* a~b, b~c, a and c unrelated: never one cluster */
	REQUIRE(avglink_cluster(3, NULL, path, 2, label) == 0);
	CHECK(!(same(label, 0, 1) && same(label, 1, 2)));
	CHECK(same(label, 0, 1) || same(label, 1, 2));	/* one pair does join */
	/* a path of ten: pairs at most */
	REQUIRE(avglink_cluster(10, NULL, path, 9, label) == 0);
	for (i = 0; i < 10; i++)
		cnt[label[i]]++;
	for (i = 0; i < 10; i++)
		CHECK(cnt[i] <= 2);
	CHECK(!same(label, 0, 2));
}

/* Edges of a complete graph over items lo..hi-1 appended to e. */
static size_t clique(uint32_t (*e)[2], size_t ne, uint32_t lo, uint32_t hi)
{
	uint32_t a, b;

	for (a = lo; a < hi; a++)
		for (b = a + 1; b < hi; b++) {
			e[ne][0] = a;
			e[ne++][1] = b;
		}
	return ne;
}

static void test_groups_and_bridges(void)
{
	uint32_t e[64][2], label[12];
	size_t ne, i;

	/* two groups of five, one weak link between them, and a book alike
	 * with two of the first group only */
	ne = clique(e, 0, 0, 5);
	ne = clique(e, ne, 5, 10);
	e[ne][0] = 4;
	e[ne++][1] = 5;
	e[ne][0] = 10;
	e[ne++][1] = 0;
	e[ne][0] = 10;
	e[ne++][1] = 1;
	REQUIRE(avglink_cluster(11, NULL, e, ne, label) == 0);
	for (i = 1; i < 5; i++)
		CHECK(same(label, 0, i));
	for (i = 6; i < 10; i++)
		CHECK(same(label, 5, i));
	CHECK(!same(label, 0, 5));
	CHECK(!same(label, 0, 10));
	CHECK_EQ_INT(label[7], 5);	/* the lowest ranked item names it */
	/* alike with three of the five: more than half, it joins */
	e[ne][0] = 10;
	e[ne++][1] = 2;
	REQUIRE(avglink_cluster(11, NULL, e, ne, label) == 0);
	CHECK(same(label, 0, 10));
	CHECK(!same(label, 0, 5));
	/* repeats, both directions and self-pairs change nothing */
	e[ne][0] = 2;
	e[ne++][1] = 10;
	e[ne][0] = 3;
	e[ne++][1] = 3;
	REQUIRE(avglink_cluster(11, NULL, e, ne, label) == 0);
	CHECK(same(label, 0, 10));
	CHECK(!same(label, 0, 5));
	/* an index out of range */
	e[ne][0] = 11;
	e[ne++][1] = 0;
	CHECK(avglink_cluster(11, NULL, e, ne, label) == -EINVAL);
	CHECK(avglink_cluster(0, NULL, e, 0, label) == 0);
}

/* The rule done the slow way: every pair of clusters examined at every
 * step (linkage compared exactly, as cross products). */
static void slow(size_t n, const uint32_t *rank, const uint32_t (*e)[2], size_t ne,
		 uint32_t *label)
{
	static uint8_t adj[MAXN][MAXN];
	uint32_t cr[MAXN];
	size_t i, j, a, b;

	memset(adj, 0, sizeof(adj));
	for (i = 0; i < ne; i++)
		if (e[i][0] != e[i][1])
			adj[e[i][0]][e[i][1]] = adj[e[i][1]][e[i][0]] = 1;
	for (i = 0; i < n; i++) {
		label[i] = (uint32_t)i;
		cr[i] = rank[i];
	}
	for (;;) {
		size_t ba = 0, bb = 0;
		uint64_t bl = 0, bs = 1;
		int found = 0;

		for (a = 0; a < n; a++)
			for (b = 0; b < n; b++) {
				uint64_t l = 0, sa = 0, sb = 0;

				if (label[a] != a || label[b] != b || a == b || cr[a] > cr[b])
					continue;
				for (i = 0; i < n; i++)
					for (j = 0; j < n; j++)
						l += label[i] == a && label[j] == b && adj[i][j];
				for (i = 0; i < n; i++) {
					sa += label[i] == a;
					sb += label[i] == b;
				}
				if (2 * l <= sa * sb)
					continue;
				/* l / (sa sb) against bl / bs, then the ranks */
				if (!found || l * bs > bl * sa * sb ||
				    (l * bs == bl * sa * sb &&
				     (cr[a] < cr[ba] || (cr[a] == cr[ba] && cr[b] < cr[bb])))) {
					found = 1;
					ba = a;
					bb = b;
					bl = l;
					bs = sa * sb;
				}
			}
		if (!found)
			break;
		for (i = 0; i < n; i++)
			if (label[i] == bb)
				label[i] = (uint32_t)ba;
	}
}

/* A random library: groups of alike items, some links missing, some
 * stray links between groups (the chains). */
static size_t random_graph(size_t n, uint32_t (*e)[2], size_t max)
{
	size_t ne = 0, a, b;
	uint32_t grp[MAXN];

	for (a = 0; a < n; a++)
		grp[a] = rnd((uint32_t)n / 4 + 1);
	for (a = 0; a < n; a++)
		for (b = a + 1; b < n && ne < max; b++)
			if ((grp[a] == grp[b] && rnd(10) < 7) || rnd(40) == 0) {
				e[ne][0] = (uint32_t)a;
				e[ne++][1] = (uint32_t)b;
			}
	return ne;
}

/* Two labellings make the same partition. */
static int same_partition(size_t n, const uint32_t *x, const uint32_t *y)
{
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if ((x[i] == x[j]) != (y[i] == y[j]))
				return 0;
	return 1;
}

static void test_against_slow(void)
{
	static uint32_t e[MAXN * MAXN][2];
	uint32_t rank[MAXN], got[MAXN], want[MAXN];
	size_t round, n, ne, i;
	int bad = 0;

	for (round = 0; round < 200; round++) {
		n = 3 + rnd(MAXN - 3);
		ne = random_graph(n, e, MAXN * MAXN);
		for (i = 0; i < n; i++)
			rank[i] = (uint32_t)i;
		for (i = n; i > 1; i--) {	/* ranks in another order */
			uint32_t j = rnd((uint32_t)i), t = rank[i - 1];

			rank[i - 1] = rank[j];
			rank[j] = t;
		}
		if (avglink_cluster(n, rank, (const uint32_t (*)[2])e, ne, got) != 0) {
			bad++;
			continue;
		}
		slow(n, rank, (const uint32_t (*)[2])e, ne, want);
		if (!same_partition(n, got, want) || memcmp(got, want, n * sizeof(*got)))
			bad++;
	}
	CHECK_EQ_INT(bad, 0);
}

/* The items renumbered and the edges shuffled, ranks kept with their
 * items (the content of a book does not change with its arrival): the
 * same clusters. */
static void test_order_independent(void)
{
	static uint32_t e[MAXN * MAXN][2], e2[MAXN * MAXN][2];
	uint32_t rank[MAXN], rank2[MAXN], perm[MAXN], l1[MAXN], l2[MAXN], back[MAXN];
	size_t round, n, ne, i;
	int bad = 0, chained = 0;

	for (round = 0; round < 200; round++) {
		n = 3 + rnd(MAXN - 3);
		ne = random_graph(n, e, MAXN * MAXN);
		for (i = 0; i < n; i++)
			rank[i] = perm[i] = (uint32_t)i;
		for (i = n; i > 1; i--) {
			uint32_t j = rnd((uint32_t)i), t = perm[i - 1];

			perm[i - 1] = perm[j];
			perm[j] = t;
		}
		for (i = 0; i < n; i++)
			rank2[perm[i]] = rank[i];
		for (i = 0; i < ne; i++) {
			/* swapped ends, and a shuffled order */
			e2[i][0] = perm[e[i][1]];
			e2[i][1] = perm[e[i][0]];
		}
		for (i = ne; i > 1; i--) {
			uint32_t j = rnd((uint32_t)i), t0 = e2[i - 1][0], t1 = e2[i - 1][1];

			e2[i - 1][0] = e2[j][0];
			e2[i - 1][1] = e2[j][1];
			e2[j][0] = t0;
			e2[j][1] = t1;
		}
		if (avglink_cluster(n, rank, (const uint32_t (*)[2])e, ne, l1) ||
		    avglink_cluster(n, rank2, (const uint32_t (*)[2])e2, ne, l2)) {
			bad++;
			continue;
		}
		for (i = 0; i < n; i++)
			back[i] = l2[perm[i]];
		bad += !same_partition(n, l1, back);
		/* and the clusters are not the components: chains were cut */
		for (i = 0; i < ne; i++)
			chained += l1[e[i][0]] != l1[e[i][1]];
	}
	CHECK_EQ_INT(bad, 0);
	CHECK(chained > 0);
}

int main(void)
{
	RUN(test_chain);
	RUN(test_groups_and_bridges);
	RUN(test_against_slow);
	RUN(test_order_independent);
	return check_failed_total ? 1 : 0;
}
