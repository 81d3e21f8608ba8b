/* rsimhash.c - S4: robust simhash (rsimhash.h). */
#include <errno.h>
#include <stdlib.h>

#include "simfeat_i.h"

struct rsimhash *rsimhash_new(void)
{
	struct rsimhash *rs = malloc(sizeof(*rs));

	if (rs)
		rsimhash_reset(rs);
	return rs;
}

void rsimhash_free(struct rsimhash *rs)
{
	free(rs);
}

void rsimhash_reset(struct rsimhash *rs)
{
	fpc_gram_init(&rs->g, 12);
	fpc_bitctr_init(&rs->bc, 8);
}

static void update_generic(struct rsimhash *rs, const void *buf, size_t len)
{
	fpc_gram_feed(&rs->g, buf, len, 1, rsimhash_feature, rs, 0, NULL, NULL, NULL);
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2")))
static void update_avx2(struct rsimhash *rs, const void *buf, size_t len)
{
	fpc_gram_feed(&rs->g, buf, len, 1, rsimhash_feature, rs, 0, NULL, NULL, NULL);
}
#endif

void rsimhash_update(struct rsimhash *rs, const void *buf, size_t len)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (fpc_avx2()) {
		update_avx2(rs, buf, len);
		return;
	}
#endif
	update_generic(rs, buf, len);
}

struct strength {
	uint64_t mag;
	unsigned pos;
};

static int by_strength(const void *x, const void *y)
{
	const struct strength *a = x, *b = y;

	if (a->mag != b->mag)
		return a->mag > b->mag ? -1 : 1;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

void rsimhash_final(struct rsimhash *rs, struct rsimhash_value *out)
{
	uint64_t counts[RSIMHASH_COUNTERS], n;
	struct strength st[RSIMHASH_COUNTERS];
	unsigned p;

	fpc_gram_final(&rs->g, 1, rsimhash_feature, rs, 0, NULL, NULL);
	n = rs->bc.n;
	fpc_bitctr_counts(&rs->bc, counts);
	memset(out, 0, sizeof(*out));
	for (p = 0; p < RSIMHASH_COUNTERS; p++) {
		/* counter = 2 * count - n; |counter| without signed overflow */
		uint64_t twice = 2 * counts[p];

		if (twice > n)
			out->sign[p / 64] |= UINT64_C(1) << (p % 64);
		st[p].mag = twice > n ? twice - n : n - twice;
		st[p].pos = p;
	}
	qsort(st, RSIMHASH_COUNTERS, sizeof(st[0]), by_strength);
	for (p = 0; p < RSIMHASH_KEEP; p++)
		out->mask[st[p].pos / 64] |= UINT64_C(1) << (st[p].pos % 64);
	rsimhash_reset(rs);
}

int rsimhash_compute(const void *text, size_t len, struct rsimhash_value *out)
{
	struct rsimhash *rs = rsimhash_new();

	if (!rs)
		return -ENOMEM;
	rsimhash_update(rs, text, len);
	rsimhash_final(rs, out);
	rsimhash_free(rs);
	return 0;
}

unsigned rsimhash_distance_asym(const struct rsimhash_value *main,
				const struct rsimhash_value *other)
{
	unsigned i, d = 0;

	for (i = 0; i < 8; i++)
		d += (unsigned)fpc_popcount64((main->sign[i] ^ other->sign[i]) & main->mask[i]);
	return d;
}

unsigned rsimhash_distance(const struct rsimhash_value *a, const struct rsimhash_value *b)
{
	unsigned ab = rsimhash_distance_asym(a, b), ba = rsimhash_distance_asym(b, a);

	return ab > ba ? ab : ba;
}
