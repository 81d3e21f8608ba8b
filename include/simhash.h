/* simhash.h - S1: 128-bit simhash over character 4-grams (ALGORITHMS.md §1).
 *
 * Definition (stored bits; changing any of it needs a new record version):
 *  - characters are UTF-8 code points of the normalised text, spaces
 *    included.  Code points, not bytes, so a 4-gram covers four letters in
 *    every script.  Invalid UTF-8 cannot break the definition: a character
 *    starts at every byte that is not a continuation byte (10xxxxxx) and
 *    ends at the length its lead byte announces or at the next non-
 *    continuation byte, whichever comes first; a stray continuation byte is
 *    a character of its own.
 *  - features: every window of 4 consecutive characters, each occurrence
 *    counted (term-frequency weight).  A text of 1 to 3 characters has one
 *    feature, the whole text; the empty text has none (value 0).
 *  - feature hash: XXH3_128bits_withSeed(the window's bytes, SIMHASH_SEED).
 *  - bit j (0..127) is bit j of the 128-bit value (hi holds bits 127..64,
 *    lo bits 63..0); counter j sums +1 per feature whose hash has bit j set
 *    and -1 otherwise; the fingerprint bit is 1 iff counter j > 0.
 *  - canonical form: hi then lo, big-endian: 32 lowercase hex digits.  This
 *    is the book's shareable identifier.
 * Feeding the text in any pieces gives the same value as feeding it whole.
 */
#ifndef SIMHASH_H
#define SIMHASH_H

#include <stddef.h>
#include <stdint.h>

#define SIMHASH_SEED UINT64_C(0x53315f3467726d73)
#define SIMHASH_BITS 128

struct simhash_value {
	uint64_t hi, lo;
};

struct simhash;	/* opaque streaming state */

/* Returns a new state (free with simhash_free), NULL on -ENOMEM. */
struct simhash *simhash_new(void);
void simhash_free(struct simhash *sh);
/* Starts a new text (simhash_new() already did). */
void simhash_reset(struct simhash *sh);
void simhash_update(struct simhash *sh, const void *buf, size_t len);
/* Value of the text fed since the last reset, and (if nfeatures is not
 * NULL) the number of 4-gram features counted.  Resets sh. */
void simhash_final(struct simhash *sh, struct simhash_value *out, uint64_t *nfeatures);
/* One-shot; returns 0 or -ENOMEM. */
int simhash_compute(const void *text, size_t len, struct simhash_value *out);

/* Hamming distance, 0..128. */
unsigned simhash_distance(const struct simhash_value *a, const struct simhash_value *b);
/* Canonical hex: 32 lowercase digits + NUL. */
void simhash_hex(const struct simhash_value *v, char out[33]);
/* Parses exactly 32 hex digits (either case).  0 or -EINVAL. */
int simhash_parse_hex(const char *s, struct simhash_value *v);
/* Size class of a normalised text of nbytes bytes: floor(4 * log2(nbytes +
 * 1)), 0..255; one class is a ratio of 2^(1/4) (~19%).  Small books move
 * further per error, so compare distances with the size class in mind. */
uint8_t simhash_size_class(uint64_t nbytes);

#endif
