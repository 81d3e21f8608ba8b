/* palmdb.h - PalmDOC ("TEXtREAd") databases built byte by byte for the
 * MOBI/PalmDOC tests (test_extract_mobi, test_palmdoc), and the
 * big-endian integers of their headers. */
#ifndef SIMBOOK_TEST_PALMDB_H
#define SIMBOOK_TEST_PALMDB_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline void put16(unsigned char *p, unsigned v)
{
	p[0] = (unsigned char)(v >> 8);
	p[1] = (unsigned char)v;
}

static inline void put32(unsigned char *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xFFFF);
}

static inline uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A PalmDOC database named name (at most 31 bytes) into out (cap bytes):
 * record 0 declaring tl bytes of text in records of recsize bytes stored
 * with compression (1: none, 2: PalmDOC LZ77), then the nrec text records
 * recs[i] of lens[i] bytes.  Its length, or 0 when it does not fit. */
static inline size_t palmdb_make(unsigned char *out, size_t cap, const char *name,
				 unsigned compression, unsigned recsize,
				 const unsigned char *const *recs, const size_t *lens, size_t nrec,
				 size_t tl)
{
	size_t n = nrec + 1, i, off, total = 78 + 8 * n + 2 + 16;

	for (i = 0; i < nrec; i++)
		total += lens[i];
	if (total > cap || strlen(name) > 31)
		return 0;
	memset(out, 0, 78 + 8 * n + 2 + 16);
	memcpy(out, name, strlen(name));
	memcpy(out + 60, "TEXtREAd", 8);
	put16(out + 76, (unsigned)n);
	off = 78 + 8 * n + 2;
	put32(out + 78, (uint32_t)off);
	put16(out + off, compression);
	put32(out + off + 4, (uint32_t)tl);
	put16(out + off + 8, (unsigned)nrec);
	put16(out + off + 10, recsize);
	off += 16;
	for (i = 0; i < nrec; i++) {
		put32(out + 78 + 8 * (i + 1), (uint32_t)off);
		out[78 + 8 * (i + 1) + 7] = (unsigned char)(2 * (i + 1));	/* uid */
		memcpy(out + off, recs[i], lens[i]);
		off += lens[i];
	}
	return off;
}

#endif
