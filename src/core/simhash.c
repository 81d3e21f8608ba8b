/* simhash.c - S1: 128-bit simhash over character 4-grams (simhash.h).
 *
 * Two features share one 256-bit slot of the bit-sliced counter (words 0-1
 * and 2-3), so the AVX2 block reduces 32 features at a time. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "hex.h"
#include "simfeat_i.h"

struct simhash *simhash_new(void)
{
	struct simhash *sh = malloc(sizeof(*sh));

	if (sh)
		simhash_reset(sh);
	return sh;
}

void simhash_free(struct simhash *sh)
{
	free(sh);
}

void simhash_reset(struct simhash *sh)
{
	fpc_gram_init(&sh->g, 4);
	sh->nfeat = 0;
	fpc_bitctr_init(&sh->bc, 4);
}

void simhash_update(struct simhash *sh, const void *buf, size_t len)
{
	fpc_gram_feed(&sh->g, buf, len, 0, simhash_feature, sh, 0, NULL, NULL, NULL);
}

void simhash_final(struct simhash *sh, struct simhash_value *out, uint64_t *nfeatures)
{
	uint64_t counts[256];
	unsigned j;

	fpc_gram_final(&sh->g, 0, simhash_feature, sh, 0, NULL, NULL);
	if (sh->nfeat & 1) {
		/* the odd feature alone in its slot: zeros count for nothing */
		uint64_t *slot = fpc_bitctr_slot(&sh->bc);

		slot[2] = slot[3] = 0;
		fpc_bitctr_commit(&sh->bc);
	}
	fpc_bitctr_counts(&sh->bc, counts);
	out->hi = out->lo = 0;
	for (j = 0; j < 64; j++) {
		if (2 * (counts[j] + counts[128 + j]) > sh->nfeat)
			out->lo |= UINT64_C(1) << j;
		if (2 * (counts[64 + j] + counts[192 + j]) > sh->nfeat)
			out->hi |= UINT64_C(1) << j;
	}
	if (nfeatures)
		*nfeatures = sh->nfeat;
	simhash_reset(sh);
}

int simhash_compute(const void *text, size_t len, struct simhash_value *out)
{
	struct simhash *sh = simhash_new();

	if (!sh)
		return -ENOMEM;
	simhash_update(sh, text, len);
	simhash_final(sh, out, NULL);
	simhash_free(sh);
	return 0;
}

unsigned simhash_distance(const struct simhash_value *a, const struct simhash_value *b)
{
	return (unsigned)(fpc_popcount64(a->hi ^ b->hi) + fpc_popcount64(a->lo ^ b->lo));
}

void simhash_hex(const struct simhash_value *v, char out[33])
{
	snprintf(out, 33, "%016llx%016llx", (unsigned long long)v->hi,
		 (unsigned long long)v->lo);
}

int simhash_parse_hex(const char *s, struct simhash_value *v)
{
	uint64_t hi = 0, lo = 0;
	int i, d;

	for (i = 0; i < 32; i++) {
		d = hex_digit(s[i]);
		if (d < 0)
			return -EINVAL;
		if (i < 16)
			hi = hi << 4 | (uint64_t)d;
		else
			lo = lo << 4 | (uint64_t)d;
	}
	if (s[32] != '\0')
		return -EINVAL;
	v->hi = hi;
	v->lo = lo;
	return 0;
}

uint8_t simhash_size_class(uint64_t nbytes)
{
	unsigned c = 0;
	uint64_t n = nbytes + 1;
	int e;

	/* floor(4 * log2(n)) in integers: the octave from the top bit, the
	 * quarter from comparing n^4 with 2^(4e + q) via the top bits. */
	e = 63 - __builtin_clzll(n);
	c = (unsigned)e * 4;
	{
		/* mantissa m = n / 2^e in [1, 2): quarter q is the largest q with
		 * m^4 >= 2^q, computed on a 32-bit fixed-point mantissa */
		unsigned __int128 m = e >= 31 ? (unsigned __int128)(n >> (e - 31))
					      : (unsigned __int128)n << (31 - e);
		unsigned __int128 m2 = (m * m) >> 31, m4 = (m2 * m2) >> 31;
		unsigned q = 0;

		while (q < 3 && m4 >= ((unsigned __int128)1 << (31 + q + 1)))
			q++;
		c += q;
	}
	return c > 255 ? 255 : (uint8_t)c;
}
