/* texthash.c - XXH3-128 of the normalised text (texthash.h). */
#include <stdio.h>
#include <stdlib.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "texthash.h"

struct texthash {
	XXH3_state_t st;
};

struct texthash *texthash_new(void)
{
	struct texthash *th = aligned_alloc(64, (sizeof(*th) + 63) / 64 * 64);

	if (th)
		texthash_reset(th);
	return th;
}

void texthash_free(struct texthash *th)
{
	free(th);
}

void texthash_reset(struct texthash *th)
{
	XXH3_128bits_reset(&th->st);
}

void texthash_update(struct texthash *th, const void *buf, size_t len)
{
	if (len)
		XXH3_128bits_update(&th->st, buf, len);
}

void texthash_final(struct texthash *th, struct texthash_value *out)
{
	XXH128_hash_t h = XXH3_128bits_digest(&th->st);

	out->hi = h.high64;
	out->lo = h.low64;
}

void texthash_compute(const void *text, size_t len, struct texthash_value *out)
{
	XXH128_hash_t h = XXH3_128bits(text, len);

	out->hi = h.high64;
	out->lo = h.low64;
}

void texthash_hex(const struct texthash_value *v, char out[33])
{
	snprintf(out, 33, "%016llx%016llx", (unsigned long long)v->hi,
		 (unsigned long long)v->lo);
}
