/* byteorder.h - fixed-width big-endian integers in byte buffers.
 *
 * Every stored integer (fingerprint records, index keys and values) is
 * big-endian so that keys sort the same as numbers on every machine.
 * Header-only: these are a few instructions each and sit in hot loops.
 */
#ifndef BYTEORDER_H
#define BYTEORDER_H

#include <stdint.h>

/* Writes the low n bytes of v (n <= 8) at p, most significant first. */
static inline void be_put(uint8_t *p, uint64_t v, unsigned n)
{
	while (n--) {
		p[n] = (uint8_t)v;
		v >>= 8;
	}
}

/* Reads n bytes (n <= 8) at p as a big-endian unsigned integer. */
static inline uint64_t be_get(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	unsigned k;

	for (k = 0; k < n; k++)
		v = v << 8 | p[k];
	return v;
}

#endif
