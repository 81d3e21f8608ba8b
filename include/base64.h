/* base64.h - RFC 4648 base64 (standard alphabet, '=' padding) for the
 * plain-text record lines of bulk fingerprinting (fpline.h).
 *
 * The decoder is strict, so that every string it accepts is the one the
 * encoder writes for its bytes: length a multiple of 4, padding only at the
 * end, and the unused bits of the last symbol zero.
 */
#ifndef BASE64_H
#define BASE64_H

#include <stddef.h>

#include "sbuf.h"

/* Characters base64_encode() appends for len bytes. */
#define BASE64_LEN(len) (((len) + 2) / 3 * 4)

/* Appends the base64 of data[0..len) to out.  0 or -ENOMEM. */
int base64_encode(const void *data, size_t len, struct sbuf *out);
/* Decodes the n characters of s into out (caller's buffer, at least
 * n / 4 * 3 bytes); *len the bytes written.  0 or -EINVAL (not the
 * canonical base64 of any bytes). */
int base64_decode(const char *s, size_t n, unsigned char *out, size_t *len);

#endif
