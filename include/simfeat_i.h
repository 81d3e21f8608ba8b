/* simfeat_i.h - private to simhash.c, rsimhash.c and fp.c, not an API: the
 * S1 and S4 states and their per-feature code, shared so that fp.c can run
 * both families in one pass over the characters (fpc_gram_feed with a
 * short window). */
#ifndef SIMFEAT_I_H
#define SIMFEAT_I_H

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "fpcore_i.h"
#include "rsimhash.h"
#include "simhash.h"

struct simhash {
	struct fpc_gram g;
	uint64_t nfeat;
	struct fpc_bitctr bc;
};

static inline __attribute__((always_inline))
void simhash_feature(void *ctx, const uint8_t *p, unsigned len)
{
	struct simhash *sh = ctx;
	/* the constant length lets the all-ASCII case inline XXH3's short path */
	XXH128_hash_t h = len == 4 ? XXH3_128bits_withSeed(p, 4, SIMHASH_SEED)
				   : XXH3_128bits_withSeed(p, len, SIMHASH_SEED);
	uint64_t *slot = fpc_bitctr_slot(&sh->bc);

	if (sh->nfeat++ & 1) {
		slot[2] = h.low64;
		slot[3] = h.high64;
		fpc_bitctr_commit(&sh->bc);
	} else {
		slot[0] = h.low64;
		slot[1] = h.high64;
	}
}

/* The 4-byte grams at p, p + 1, ..., p + count - 1 (fpc_gram_run): two
 * features to a slot, written whole. */
static inline __attribute__((always_inline))
void simhash_feature_run(void *ctx, const uint8_t *p, size_t count)
{
	struct simhash *sh = ctx;
	size_t k = 0;

	if (count && (sh->nfeat & 1))
		simhash_feature(sh, p + k++, 4);
	for (; k + 2 <= count; k += 2) {
		XXH128_hash_t h0 = XXH3_128bits_withSeed(p + k, 4, SIMHASH_SEED);
		XXH128_hash_t h1 = XXH3_128bits_withSeed(p + k + 1, 4, SIMHASH_SEED);
		uint64_t *slot = fpc_bitctr_slot(&sh->bc);

		slot[0] = h0.low64;
		slot[1] = h0.high64;
		slot[2] = h1.low64;
		slot[3] = h1.high64;
		sh->nfeat += 2;
		fpc_bitctr_commit(&sh->bc);
	}
	if (k < count)
		simhash_feature(sh, p + k, 4);
}

struct rsimhash {
	struct fpc_gram g;
	struct fpc_bitctr bc;
};

typedef uint32_t v8u32 __attribute__((vector_size(32)));

/* lane k of the expansion: fmix32(part[k % 4] ^ lane_salt[k]) */
static const uint32_t lane_salt[16] = {
	0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344,
	0xa4093822, 0x299f31d0, 0x082efa98, 0xec4e6c89,
	0x452821e6, 0x38d01377, 0xbe5466cf, 0x34e90c6c,
	0xc0ac29b7, 0xc97c50dd, 0x3f84d5b5, 0xb5470917,
};

static inline __attribute__((always_inline))
void rsimhash_feature(void *ctx, const uint8_t *p, unsigned len)
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

#endif
