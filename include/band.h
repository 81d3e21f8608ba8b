/* band.h - banding of 128-bit simhashes for exact near-pair search.
 *
 * A simhash is 16 bytes, most significant byte first (the order of its 32 hex
 * digits).  Splitting its 128 bits into d+1 disjoint bands guarantees, by the
 * pigeonhole principle, that two hashes within Hamming distance d agree on at
 * least one whole band: d differing bits can touch at most d bands.  So the
 * candidates sharing a band value, checked exactly, give every pair within d
 * and nothing else (brute-force recall at bucket speed).  For d = 7 this is 8
 * bands of 16 bits.
 *
 * This module is pure computation over buffers; the index (idx.h) stores the
 * band values and uses the same layout.
 */
#ifndef BAND_H
#define BAND_H

#include <stddef.h>
#include <stdint.h>

#define BAND_SH_BYTES 16
#define BAND_MAX_D 63		/* 64 bands of 2 bits; more would be slower than a scan */
#define BAND_MAX_BANDS (BAND_MAX_D + 1)

struct band_layout {
	uint32_t max_d;		/* the largest distance the layout guarantees */
	uint32_t nbands;	/* max_d + 1, at least 2 so a band fits in 64 bits */
	uint8_t off[BAND_MAX_BANDS];	/* first bit of band b, 0 = most significant */
	uint8_t width[BAND_MAX_BANDS];	/* bits in band b (widths differ by at most 1) */
	uint8_t value_bytes;	/* bytes needed to store the widest band value */
};

/* One near pair: indexes a < b into the arrays given to band_pairs(). */
struct band_pair {
	uint32_t a, b;
	uint32_t dist;
};

/* Bits set in x.  Portable SWAR form: the build targets baseline x86-64,
 * where __builtin_popcountll becomes a call into libgcc (measured: 70% of
 * the all-pairs time went there). */
static inline uint32_t band_popcount64(uint64_t x)
{
	x = x - ((x >> 1) & 0x5555555555555555ull);
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (uint32_t)((x * 0x0101010101010101ull) >> 56);
}

/* Fills bl for distances up to max_d.  Returns 0, or -EINVAL when max_d >
 * BAND_MAX_D. */
int band_layout_init(struct band_layout *bl, uint32_t max_d);

/* Value of band b of sh (b < bl->nbands), right-aligned. */
uint64_t band_value(const struct band_layout *bl, const uint8_t sh[BAND_SH_BYTES], uint32_t b);

/* Lowest band on which a and b agree, or bl->nbands when they agree on none.
 * A pair found while scanning band k is reported only when this returns k,
 * so every pair is reported once however many bands it shares. */
uint32_t band_first_shared(const struct band_layout *bl, const uint8_t a[BAND_SH_BYTES],
			   const uint8_t b[BAND_SH_BYTES]);

/* Hamming distance of two simhashes (0..128). */
uint32_t band_distance(const uint8_t a[BAND_SH_BYTES], const uint8_t b[BAND_SH_BYTES]);

/* Every pair (i < j) of the n hashes in sh with distance <= d (d <= bl->max_d)
 * in memory, each exactly once, in no particular order.  On success *out is a
 * malloc'd array of *nout pairs that the caller frees (NULL when none).
 * Returns 0, -EINVAL (d > bl->max_d or n >= 2^32) or -ENOMEM. */
int band_pairs(const struct band_layout *bl, const uint8_t (*sh)[BAND_SH_BYTES], size_t n,
	       uint32_t d, struct band_pair **out, size_t *nout);

#endif
