/* palmdoc.h - PalmDOC's LZ77 (compression type 2 of PalmDOC and MOBI text
 * records), decoded in one pass with every copy bounds-checked.
 */
#ifndef PALMDOC_H
#define PALMDOC_H

#include <stddef.h>

/* Decodes the record in[0..n) into out[0..cap).  Returns the decoded length,
 * or -1 when the record is corrupt: it would write past cap, copies from
 * before the start of the record or at distance 0, or ends inside a
 * two-byte code or a literal run.  out is the caller's; on -1 its contents
 * are unspecified. */
long palmdoc_lz77(unsigned char *out, size_t cap, const unsigned char *in, size_t n);

#endif
