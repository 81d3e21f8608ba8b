/* test_palmdoc.c - PalmDOC LZ77 decoding: each kind of code, corrupt
 * records, and random valid records decoded by libmobi and by
 * palmdoc_lz77() (byte for byte the same), also end to end through
 * extract_buffer() (a compressed PalmDOC book gives the text of the
 * uncompressed one).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mobi.h>

#include "check.h"
#include "extract.h"
#include "palmdb.h"
#include "palmdoc.h"

#define REC 4096

static long dec(const char *in, size_t n, unsigned char *out, size_t cap)
{
	return palmdoc_lz77(out, cap, (const unsigned char *)in, n);
}

static void test_codes(void)
{
	unsigned char out[64];

	/* plain bytes, a literal run holding bytes >= 0x80 and a NUL */
	CHECK_EQ_INT(dec("ab\x03\x80\x00\xC1z", 7, out, sizeof(out)), 6);
	CHECK(!memcmp(out, "ab\x80\x00\xC1z", 6));
	CHECK_EQ_INT(dec("\0", 1, out, sizeof(out)), 1);
	CHECK_EQ_INT(out[0], 0);
	/* space + character */
	CHECK_EQ_INT(dec("a\xE2", 2, out, sizeof(out)), 3);
	CHECK(!memcmp(out, "a b", 3));
	/* back reference: distance 3, length 3 + 2 */
	CHECK_EQ_INT(dec("abc\x80\x1A", 5, out, sizeof(out)), 8);
	CHECK(!memcmp(out, "abcabcab", 8));
	/* overlapping: distance 1, length 10 repeats one byte */
	CHECK_EQ_INT(dec("x\x80\x0F", 3, out, sizeof(out)), 11);
	CHECK(!memcmp(out, "xxxxxxxxxxx", 11));
	CHECK_EQ_INT(dec("", 0, out, sizeof(out)), 0);
}

static void test_corrupt(void)
{
	unsigned char out[8];

	CHECK_EQ_INT(dec("ab\x80\x18", 4, out, sizeof(out)), -1);	/* distance 3 > 2 */
	CHECK_EQ_INT(dec("ab\x80\x00", 4, out, sizeof(out)), -1);	/* distance 0 */
	CHECK_EQ_INT(dec("ab\x80", 3, out, sizeof(out)), -1);		/* code cut short */
	CHECK_EQ_INT(dec("\x05" "ab", 3, out, sizeof(out)), -1);	/* run cut short */
	CHECK_EQ_INT(dec("abcdefgh", 8, out, sizeof(out)), 8);
	CHECK_EQ_INT(dec("abcdefghi", 9, out, sizeof(out)), -1);	/* past cap */
	CHECK_EQ_INT(dec("abcdefg\xE1", 8, out, sizeof(out)), -1);
	CHECK_EQ_INT(dec("abcdef\x80\x08", 8, out, sizeof(out)), -1);
	CHECK_EQ_INT(dec("abcde\x02xy\x01z", 10, out, sizeof(out)), 8);
	CHECK_EQ_INT(dec("abcdef\x02xy\x01z", 11, out, sizeof(out)), -1);
}

static uint32_t rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* A random valid record of at most REC decoded bytes into in; its length. */
static size_t random_record(uint32_t *s, unsigned char *in, size_t cap)
{
	size_t n = 0, o = 0, k;

	while (n + 9 <= cap && o + 10 <= REC) {
		uint32_t r = rnd(s) % 10;

		if (r < 4) {
			in[n++] = (unsigned char)(0x09 + rnd(s) % (0x80 - 0x09));
			o++;
		} else if (r < 5) {
			in[n++] = 0;
			o++;
		} else if (r < 6) {
			in[n++] = (unsigned char)(0xC0 + rnd(s) % 0x40);
			o += 2;
		} else if (r < 7) {
			size_t len = 1 + rnd(s) % 8;

			in[n++] = (unsigned char)len;
			for (k = 0; k < len; k++)
				in[n++] = (unsigned char)rnd(s);
			o += len;
		} else if (o) {
			size_t d = 1 + rnd(s) % (o < 2047 ? o : 2047), len = 3 + rnd(s) % 8;
			unsigned v = 0x8000 | (unsigned)d << 3 | (unsigned)(len - 3);

			in[n++] = (unsigned char)(v >> 8);
			in[n++] = (unsigned char)v;
			o += len;
		}
	}
	return n;
}

/* A PalmDOC database of nrec PalmDOC-compressed records recs[i] of
 * lens[i] bytes, declaring tl bytes of text, into out (cap bytes); its
 * length. */
static size_t make_db(unsigned char *out, size_t cap, unsigned char *const *recs,
		      const size_t *lens, size_t nrec, size_t tl)
{
	return palmdb_make(out, cap, "lz77 book", 2, REC, (const unsigned char *const *)recs, lens,
			   nrec, tl);
}

/* libmobi's own decoding of a whole database: the text and its length. */
static unsigned char *libmobi_text(const unsigned char *db, size_t len, size_t *tl)
{
	MOBIData *m = mobi_init();
	FILE *f = fmemopen((void *)db, len, "rb");
	unsigned char *t = NULL;
	size_t max;

	if (m && f && mobi_load_file(m, f) == MOBI_SUCCESS) {
		max = mobi_get_text_maxsize(m);
		t = malloc(max + 1);
		*tl = max;
		if (t && mobi_get_rawml(m, (char *)t, tl) != MOBI_SUCCESS) {
			free(t);
			t = NULL;
		}
	}
	if (f)
		fclose(f);
	mobi_free(m);
	return t;
}

#define NREC 6

static void test_same_as_libmobi(void)
{
	static unsigned char recs[NREC][REC], out[NREC * REC], db[NREC * REC + 512];
	unsigned char *rp[NREC];
	size_t lens[NREC], i, o, dl, ml;
	uint32_t seed = 12345;
	int round;

	for (round = 0; round < 50; round++) {
		unsigned char *lm;
		struct extract_doc d;

		o = 0;
		for (i = 0; i < NREC; i++) {
			long got;

			rp[i] = recs[i];
			lens[i] = random_record(&seed, recs[i], REC);
			got = palmdoc_lz77(out + o, REC, recs[i], lens[i]);
			REQUIRE(got >= 0);
			o += (size_t)got;
		}
		dl = make_db(db, sizeof(db), rp, lens, NREC, o);
		lm = libmobi_text(db, dl, &ml);
		REQUIRE(lm != NULL);
		CHECK_EQ_INT(ml, o);
		CHECK(!memcmp(lm, out, o));
		free(lm);
		/* through the extractor: the decoded bytes are the book's text
		 * (decoded from CP1252 or UTF-8, so only its length is bounded) */
		extract_doc_init(&d);
		CHECK_EQ_INT(extract_buffer(db, dl, "t.pdb", NULL, &d, NULL), 0);
		CHECK(d.text.len > 0);
		extract_doc_release(&d);
	}
}

/* A compressed PalmDOC book reads as the same text as the bytes it holds. */
static void test_extract_text(void)
{
	static const char text[] = "It was the best of times, it was the worst of times, "
		"it was the age of wisdom, it was the age of foolishness.";
	static unsigned char db[1024];
	unsigned char rec[256], *rp = rec;
	size_t n = 0, len, k;
	struct extract_doc d;

	for (k = 0; k < sizeof(text) - 1; k++) {
		/* every " w" as space + character, to exercise the pair code */
		if (text[k] == ' ' && text[k + 1] == 'w') {
			rec[n++] = (unsigned char)('w' ^ 0x80);
			k++;
		} else {
			rec[n++] = (unsigned char)text[k];
		}
	}
	len = make_db(db, sizeof(db), &rp, &n, 1, sizeof(text) - 1);
	extract_doc_init(&d);
	CHECK_EQ_INT(extract_buffer(db, len, "t.pdb", NULL, &d, NULL), 0);
	CHECK_EQ_STR(d.text.buf, text);
	extract_doc_release(&d);
	/* a corrupt record: refused with a reason */
	rec[n++] = 0x87;
	rec[n++] = 0xFF;
	len = make_db(db, sizeof(db), &rp, &n, 1, sizeof(text) - 1);
	extract_doc_init(&d);
	CHECK_EQ_INT(extract_buffer(db, len, "t.pdb", NULL, &d, NULL), -EBADMSG);
	extract_doc_release(&d);
}

int main(void)
{
	RUN(test_codes);
	RUN(test_corrupt);
	RUN(test_same_as_libmobi);
	RUN(test_extract_text);
	return CHECK_DONE();
}
