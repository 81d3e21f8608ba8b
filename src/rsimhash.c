/* rsimhash.c - S4: robust simhash (rsimhash.h). */
#include <errno.h>
#include <stdlib.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "fpcore_i.h"
#include "rsimhash.h"

struct rsimhash {
	struct fpc_gram g;
	struct fpc_bitctr bc;
};

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

typedef uint32_t v8u32 __attribute__((vector_size(32)));

/* lane k of the expansion: fmix32(part[k % 4] ^ lane_salt[k]) */
static const uint32_t lane_salt[16] = {
	0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344,
	0xa4093822, 0x299f31d0, 0x082efa98, 0xec4e6c89,
	0x452821e6, 0x38d01377, 0xbe5466cf, 0x34e90c6c,
	0xc0ac29b7, 0xc97c50dd, 0x3f84d5b5, 0xb5470917,
};

static inline __attribute__((always_inline))
void feature(void *ctx, const uint8_t *p, unsigned len)
{
	struct rsimhash *rs = ctx;
	/* the constant length lets the all-ASCII case inline XXH3's short path */
	XXH128_hash_t h = len == 12 ? XXH3_128bits_withSeed(p, 12, RSIMHASH_SEED)
				    : XXH3_128bits_withSeed(p, len, RSIMHASH_SEED);
	uint32_t a = (uint32_t)h.low64, b = (uint32_t)(h.low64 >> 32);
	uint32_t c = (uint32_t)h.high64, d = (uint32_t)(h.high64 >> 32);
	v8u32 x[2], salt;
	uint64_t *slot = fpc_bitctr_slot(&rs->bc);
	int k;

	for (k = 0; k < 2; k++) {
		memcpy(&salt, lane_salt + 8 * k, sizeof(salt));
		x[k] = (v8u32){ a, b, c, d, a, b, c, d } ^ salt;
		x[k] ^= x[k] >> 16;
		x[k] *= 0x85ebca6bu;
		x[k] ^= x[k] >> 13;
		x[k] *= 0xc2b2ae35u;
		x[k] ^= x[k] >> 16;
	}
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(slot, x, 64);
#else
	for (k = 0; k < 8; k++)
		slot[k] = (uint64_t)x[k / 4][(2 * k) % 8] |
			  (uint64_t)x[k / 4][(2 * k + 1) % 8] << 32;
#endif
	fpc_bitctr_commit(&rs->bc);
}

static void update_generic(struct rsimhash *rs, const void *buf, size_t len)
{
	fpc_gram_feed(&rs->g, buf, len, 1, feature, rs);
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2")))
static void update_avx2(struct rsimhash *rs, const void *buf, size_t len)
{
	fpc_gram_feed(&rs->g, buf, len, 1, feature, rs);
}
#endif

void rsimhash_update(struct rsimhash *rs, const void *buf, size_t len)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (__builtin_cpu_supports("avx2")) {
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

	fpc_gram_final(&rs->g, 1, feature, rs);
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
