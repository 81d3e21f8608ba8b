/* simgen.h - deterministic random simhashes for the index and band tests
 * and bench_index: a splitmix64 stream whose state the caller owns, so
 * each user keeps its own seed and sequence. */
#ifndef SIMBOOK_TEST_SIMGEN_H
#define SIMBOOK_TEST_SIMGEN_H

#include <stdint.h>
#include <string.h>

static inline uint64_t simgen_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A random 128-bit simhash. */
static inline void simgen_sh(uint64_t *state, uint8_t sh[16])
{
	int k;

	for (k = 0; k < 16; k++)
		sh[k] = (uint8_t)simgen_next(state);
}

/* Copies a into b and flips k (<= 128) distinct random bits. */
static inline void simgen_flip(uint64_t *state, const uint8_t a[16], uint8_t b[16], uint32_t k)
{
	uint8_t used[128] = { 0 };
	uint32_t done = 0;

	memcpy(b, a, 16);
	while (done < k) {
		uint32_t bit = (uint32_t)(simgen_next(state) % 128);

		if (used[bit])
			continue;
		used[bit] = 1;
		b[bit / 8] ^= (uint8_t)(0x80 >> (bit % 8));
		done++;
	}
}

#endif
