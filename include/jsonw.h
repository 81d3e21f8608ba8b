/* jsonw.h - JSON text for the command-line tool's --json output.
 *
 * Strings are written so that every byte string round-trips, file names
 * included: valid UTF-8 is copied (control characters, '"' and '\' are
 * escaped as JSON requires; U+2028/U+2029 as \u2028/\u2029 so the line is
 * also valid JavaScript), and each byte that is not part of a valid UTF-8
 * sequence (stray continuation bytes, overlong forms, surrogates, values
 * past U+10FFFF, cut sequences) is written as \udcXX, XX the byte: the
 * "surrogateescape" convention, which Python's json + os.fsencode() turn
 * back into the original bytes.  The output is always valid UTF-8.
 */
#ifndef JSONW_H
#define JSONW_H

#include <stddef.h>

#include "sbuf.h"

/* Appends the n bytes of s as a JSON string literal, quotes included.
 * 0 or -ENOMEM (out unchanged then). */
int jsonw_strn(struct sbuf *out, const char *s, size_t n);
/* The same for a NUL-terminated s; NULL is written as null. */
int jsonw_str(struct sbuf *out, const char *s);
/* Length of the valid UTF-8 sequence starting at s (at most n bytes
 * available): 1..4, or 0 when s[0] does not start one. */
size_t jsonw_utf8_len(const unsigned char *s, size_t n);

#endif
