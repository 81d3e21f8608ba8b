/* texthash.h - exact hash of the normalised text: XXH3-128, seed 0.
 *
 * Two books with the same normalised text (the same text in EPUB and TXT)
 * have the same value.  Canonical form: 16 bytes big-endian, high half first
 * (xxHash's canonical form), printed as 32 lowercase hex digits.
 */
#ifndef TEXTHASH_H
#define TEXTHASH_H

#include <stddef.h>
#include <stdint.h>

struct texthash_value {
	uint64_t hi, lo;
};

struct texthash;	/* opaque streaming state */

/* Returns a new state (free with texthash_free), NULL on -ENOMEM. */
struct texthash *texthash_new(void);
void texthash_free(struct texthash *th);
/* Starts a new text (texthash_new() already did). */
void texthash_reset(struct texthash *th);
void texthash_update(struct texthash *th, const void *buf, size_t len);
/* Value of everything fed since the last reset; th stays usable. */
void texthash_final(struct texthash *th, struct texthash_value *out);
void texthash_compute(const void *text, size_t len, struct texthash_value *out);
/* 32 lowercase hex digits + NUL. */
void texthash_hex(const struct texthash_value *v, char out[33]);

#endif
