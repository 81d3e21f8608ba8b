/* fpline.h - one book's stored fingerprint as a line of plain text: the
 * record `simbook fingerprint --records` writes and `simbook import` reads
 * (docs/BULK.md), so that fingerprinting can run as a mapper of any engine
 * that moves lines (Hadoop Streaming, Spark pipe(), GNU parallel).
 *
 * A line is 11 fields separated by one TAB, ended by '\n' (optional on
 * input), no TAB or newline inside a field:
 *   0  tag "SBFP/" and the line format version (FPLINE_VERSION), decimal
 *   1  the path as the mapper was given it, base64 (any bytes but NUL)
 *   2  file size in bytes, decimal
 *   3  mtime in ns since the epoch, decimal (may be negative)
 *   4  version of the fingerprint record (idx_fp.rec_version), decimal
 *   5  simhash, 32 lowercase hex digits (most significant byte first)
 *   6  exact-text hash, 32 lowercase hex digits
 *   7  min-hash LSH band hashes, base64 of 8 big-endian bytes each
 *   8  pruning keys, base64 of 4 big-endian bytes each, strictly ascending
 *   9  the fingerprint record (bookrec.h), base64
 *  10  XXH32 (seed 0) of every byte before the TAB that starts this field,
 *      8 lowercase hex digits: a cut or damaged line is refused
 * Numbers have no sign (but a negative mtime's '-') and no leading zero;
 * base64 is canonical (base64.h).  So a line fpline_decode() accepts is
 * exactly the line fpline_encode() writes for what it decoded.
 *
 * The module is pure: what the fields mean for the index (the record's
 * version, the path's place in a library) is the caller's to check.
 */
#ifndef FPLINE_H
#define FPLINE_H

#include <stddef.h>
#include <stdint.h>

#include "sbuf.h"

#define FPLINE_TAG "SBFP/"
#define FPLINE_VERSION 1
#define FPLINE_FIELDS 11
/* Bounds, the index's own (idx_fp.h) */
#define FPLINE_PATH_MAX 4095		/* bytes of a path */
#define FPLINE_BANDS_MAX 1024		/* min-hash bands */
#define FPLINE_KEYS_MAX 4096		/* pruning keys */
#define FPLINE_REC_MAX (64u << 20)	/* bytes of a record */
/* The longest line (with its '\n') any accepted record can have. */
#define FPLINE_LINE_MAX ((size_t)(16 + 8 + 4 * (FPLINE_PATH_MAX + 2) / 3 + 21 + 21 + 11 + \
				  33 + 33 + 4 * (8 * FPLINE_BANDS_MAX + 2) / 3 + \
				  4 * (4 * FPLINE_KEYS_MAX + 2) / 3 + \
				  4 * ((size_t)FPLINE_REC_MAX + 2) / 3 + 9 + 1))

/* One record.  Decoded records own their arrays (fpline_release()); for
 * fpline_encode() they are the caller's. */
struct fpline {
	char *path;			/* NUL-terminated, no NUL inside */
	uint64_t size;
	int64_t mtime_ns;
	uint32_t rec_version;
	uint8_t simhash[16];
	uint8_t text_hash[16];
	uint64_t *bands;		/* n_bands (NULL when 0) */
	uint32_t n_bands;
	uint32_t *keys;			/* n_keys, strictly ascending (NULL when 0) */
	uint32_t n_keys;
	uint8_t *rec;			/* rec_len bytes, at least 1 */
	size_t rec_len;
};

/* Appends the line of r to out, '\n' included.  0, -ENOMEM, or -EINVAL
 * (r out of bounds: empty or too long a path, one holding a NUL, too many
 * bands or keys, keys not ascending, no record or too large a one). */
int fpline_encode(const struct fpline *r, struct sbuf *out);
/* Decodes the line s[0..n) (a final '\n' allowed) into *out (zeroed
 * first; left zeroed on error).  Never reads outside s.  0, -ENOMEM,
 * -EPROTO (a line of another format version: the tag's version is not
 * FPLINE_VERSION), or -EINVAL (anything else: not such a line, a bad
 * field, out of bounds, a wrong checksum). */
int fpline_decode(const char *s, size_t n, struct fpline *out);
/* Frees what a decoded record owns and zeroes it; a zeroed one is fine. */
void fpline_release(struct fpline *r);
/* The version in the tag of line s[0..n), or -1 when there is none: for
 * messages about a line fpline_decode() refused with -EPROTO. */
long fpline_version(const char *s, size_t n);

#endif
