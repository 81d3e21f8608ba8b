/* fprec.h - the stored fingerprint record of one book (what the index keeps).
 *
 * Layout, every integer big-endian (version 1):
 *   off  size
 *     0     4  magic "SBFP"
 *     4     1  format version (FPREC_VERSION)
 *     5     1  flags (0; a decoder rejects unknown bits)
 *     6     2  header length in bytes (FPREC_HEAD_LEN, the offset of the body)
 *     8     4  total record length in bytes
 *    12     8  nbytes of the normalised text
 *    20     4  nwords
 *    24     4  nchunks
 *    28     1  size class
 *    29     3  zero
 *    32    16  exact text hash (hi, lo)
 *    48    16  S1 simhash (hi, lo): bytes 48..63 are the canonical identifier
 *    64    64  S4 mask (word 0 first), 64 sign (word 0 first)
 *   192    40  S3: MLSIMHASH_LEXICONS x 8
 *   232     8  min-hash nshingles
 *   240  1024  min-hash values, MINHASH_K x 8
 *  1264        = FPREC_HEAD_LEN; then the variable part:
 *   DUPNIQ:  varint n, varint nwords; n x 4 hashes; n varint position
 *            deltas (first from 0; then pos[i] - pos[i-1] - 1)
 *   chunks:  for spine then windows: varint count; per chunk varint first
 *            delta (from the previous chunk's first + nwords), varint
 *            nwords, CHUNKSKETCH_K x 4 values
 *   XXH32 (seed 0) of every preceding byte of the record, 4 bytes.
 * varint: LEB128-style, 7 bits per byte, least significant group first,
 * at most 5 bytes for 32-bit values; only the shortest form is accepted so
 * that encode(decode(x)) == x for every accepted x.
 *
 * Stability: every bit of a record follows from the definitions in the
 * family headers (seeds, feature rules, hash functions).  Golden vectors in
 * tests/unit/test_{simhash,rsimhash,minhash,dupniq,chunksketch,fp}.c pin them,
 * the last one as a digest of a whole record.  A change to any stored bit
 * (or to this layout) must bump FPREC_VERSION and update the vectors in the
 * same commit; records of another version are refused (-ENOTSUP) and must
 * be recomputed from the books.
 */
#ifndef FPREC_H
#define FPREC_H

#include <stddef.h>
#include <stdint.h>

#include "fp.h"
#include "sbuf.h"

#define FPREC_MAGIC "SBFP"
#define FPREC_VERSION 1
#define FPREC_HEAD_LEN 1264
#define FPREC_ID_OFF 48		/* the 16-byte S1 identifier */

/* Appends the record of b to out.  0, -ENOMEM, or -EINVAL (b inconsistent:
 * positions not ascending, chunk layout out of range). */
int fprec_encode(const struct fp_book *b, struct sbuf *out);
/* Decodes len bytes into out (initialised, released first; left empty on
 * error).  Never reads outside buf.  0, -ENOMEM, -EBADMSG (not a record,
 * truncated, inconsistent, bad checksum) or -ENOTSUP (another version). */
int fprec_decode(const void *buf, size_t len, struct fp_book *out);
/* Cheap check of a record's header and the identifier at FPREC_ID_OFF
 * without decoding the rest (no checksum check).  0, -EBADMSG, -ENOTSUP. */
int fprec_peek_id(const void *buf, size_t len, struct simhash_value *id);

#endif
