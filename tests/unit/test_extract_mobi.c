/* test_extract_mobi.c - MOBI, AZW3/KF8 and PalmDOC extraction: a PalmDOC
 * file built here, the calibre-made books of $SIMBOOK_BOOKS/formats
 * (skipped when absent) with their relation to the source book, and
 * damaged copies of them: DRM, truncated, corrupt headers, limits.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mobi.h>

#include "book.h"
#include "check.h"
#include "extract.h"
#include "palmdb.h"
#include "sbuf.h"

/* A PalmDOC database: record 0 and the text uncompressed in records of
 * at most 4096 bytes (palmdb_make()). */
static size_t make_palmdoc(unsigned char *out, size_t cap, const char *text)
{
	size_t tl = strlen(text), nt = (tl + 4095) / 4096, i, len = 0;
	const unsigned char **recs = calloc(nt + 1, sizeof(*recs));
	size_t *lens = calloc(nt + 1, sizeof(*lens));

	for (i = 0; recs && lens && i < nt; i++) {
		recs[i] = (const unsigned char *)text + i * 4096;
		lens[i] = tl - i * 4096 < 4096 ? tl - i * 4096 : 4096;
	}
	if (recs && lens)
		len = palmdb_make(out, cap, "test book", 1, 4096, recs, lens, nt, tl);
	free(recs);
	free(lens);
	return len;
}

static void test_palmdoc(void)
{
	static unsigned char buf[65536];
	struct sbuf text, err;
	struct extract_doc d;
	size_t len;
	int i;

	sbuf_init(&text);
	for (i = 0; i < 400; i++)
		sbuf_addf(&text, "Line %d of the caf\xE9 story.\r\n", i);
	len = make_palmdoc(buf, sizeof(buf), text.buf);
	REQUIRE(len > 8192);
	CHECK_EQ_INT(extract_sniff(buf, 4096, NULL), EXTRACT_FMT_MOBI);
	CHECK_EQ_INT(extract_sniff(buf, 4096, "x.pdb"), EXTRACT_FMT_MOBI);
	extract_doc_init(&d);
	sbuf_init(&err);
	CHECK_EQ_INT(extract_buffer(buf, len, "t.pdb", NULL, &d, &err), 0);
	CHECK_EQ_INT(d.format, EXTRACT_FMT_MOBI);
	CHECK(!strncmp(d.text.buf, "Line 0 of the caf\xC3\xA9 story.\nLine 1 ", 34));
	CHECK(strstr(d.text.buf, "Line 399 of the caf\xC3\xA9 story.") != NULL);
	CHECK(d.charset != NULL);	/* a Latin one, as uchardet guesses it */
	CHECK_EQ_INT(d.nchunks, 0);
	CHECK_EQ_STR(d.title, "test book");
	extract_doc_release(&d);
	/* the record list running past the end */
	CHECK_EQ_INT(extract_buffer(buf, 90, "t.pdb", NULL, &d, &err), -EBADMSG);
	/* a text record declared beyond the list */
	put16(buf + get32(buf + 78) + 8, 100);
	sbuf_setlen(&err, 0);
	CHECK_EQ_INT(extract_buffer(buf, len, "t.pdb", NULL, &d, &err), -EBADMSG);
	CHECK(strstr(err.buf, "text records") != NULL);
	sbuf_release(&err);
	sbuf_release(&text);
}

static void test_sniff(void)
{
	unsigned char p[128];

	memset(p, 0, sizeof(p));
	memcpy(p + 60, "BOOKMOBI", 8);
	CHECK_EQ_INT(extract_sniff(p, sizeof(p), NULL), EXTRACT_FMT_MOBI);
	CHECK_EQ_INT(extract_sniff(p, sizeof(p), "a.txt"), EXTRACT_FMT_MOBI);
	memcpy(p + 60, "DataPlkr", 8);	/* another Palm database */
	CHECK_EQ_INT(extract_sniff(p, sizeof(p), "a.pdb"), EXTRACT_FMT_UNKNOWN);
	CHECK_EQ_INT(extract_sniff(p, sizeof(p), "a.prc"), EXTRACT_FMT_UNKNOWN);
	CHECK_EQ_INT(extract_sniff(p, sizeof(p), NULL), EXTRACT_FMT_UNKNOWN);
	/* a Kindle name is a hint: refused later with a reason */
	CHECK_EQ_INT(extract_sniff(p, sizeof(p), "a.azw3"), EXTRACT_FMT_MOBI);
	/* a protein data bank file stays what it was */
	CHECK_EQ_INT(extract_sniff("HEADER    PROTEIN\n", 18, "1abc.pdb"), EXTRACT_FMT_UNKNOWN);
}

/* $SIMBOOK_BOOKS/<rel> read whole into *out (NULL when absent). */
static unsigned char *load(const char *rel, size_t *len, char *path, size_t psz)
{
	const char *dir = getenv("SIMBOOK_BOOKS");
	unsigned char *buf = NULL;
	long sz;
	FILE *f;

	if (!dir || snprintf(path, psz, "%s/%s", dir, rel) >= (int)psz)
		return NULL;
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (sz = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)sz)) && fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
		free(buf);
		buf = NULL;
	}
	*len = buf ? (size_t)sz : 0;
	fclose(f);
	return buf;
}

struct real {
	const char *file, *title, *author, *start;
	size_t min_chunks;
};

static const struct real reals[] = {
	{ "formats/wotw.mobi", "The War of the Worlds", "H. G. Wells",
	  "No one would have believed in the last years of the nineteenth century", 6 },
	{ "formats/wotw.azw3", "The War of the Worlds", "H. G. Wells",
	  "No one would have believed in the last years of the nineteenth century", 6 },
	{ "formats/moby-dick.mobi", "Moby-Dick", "Herman Melville",
	  "Call me Ishmael. Some years ago", 100 },
	{ "formats/tom-sawyer-part1.azw3", "pg7193-tom-sawyer-part1", NULL,
	  "\xE2\x80\x9CTOM!\xE2\x80\x9D", 3 },
};

static void test_real_books(void)
{
	size_t i, k, found = 0;

	for (i = 0; i < sizeof(reals) / sizeof(reals[0]); i++) {
		const struct real *r = &reals[i];
		char path[4096];
		size_t len;
		unsigned char *buf = load(r->file, &len, path, sizeof(path));
		struct extract_doc d, b;
		struct sbuf err;

		if (!buf)
			continue;
		found++;
		extract_doc_init(&d);
		extract_doc_init(&b);
		sbuf_init(&err);
		CHECK_EQ_INT(extract_file(path, NULL, &d, &err), 0);
		printf("# %s: %zu bytes of text, %zu chunks %s\n", r->file, d.text.len, d.nchunks, err.buf);
		CHECK_EQ_INT(d.format, EXTRACT_FMT_MOBI);
		CHECK_EQ_STR(d.title, r->title);
		CHECK(d.creators.n == 1 && (!r->author || !strcmp(d.creators.v[0], r->author)));
		CHECK_EQ_STR(d.language, "en");
		CHECK(d.identifiers.n >= 1);
		CHECK(strstr(d.text.buf, r->start) != NULL);
		CHECK(strstr(d.text.buf, "<") == NULL || strstr(d.text.buf, "<p") == NULL);
		CHECK(d.nchunks >= r->min_chunks);
		for (k = 1; k < d.nchunks; k++)
			CHECK(d.chunk_off[k] > d.chunk_off[k - 1] && d.chunk_off[k] < d.text.len);
		/* the buffer gives the same as the file */
		CHECK_EQ_INT(extract_buffer(buf, len, r->file, NULL, &b, NULL), 0);
		CHECK(b.text.len == d.text.len && !memcmp(b.text.buf, d.text.buf, d.text.len));
		CHECK_EQ_INT(b.nchunks, d.nchunks);
		extract_doc_release(&b);
		extract_doc_release(&d);
		sbuf_release(&err);
		free(buf);
	}
	if (!found)
		SKIP("no MOBI/AZW3 files in $SIMBOOK_BOOKS/formats");
}

/* The relation simbook compare reports between a and b, or -1. */
static int relation(const char *a, const char *b)
{
	const char *dir = getenv("SIMBOOK_BOOKS");
	char pa[4096], pb[4096];
	struct book *x = NULL, *y = NULL;
	struct book_cmp c;
	int cls = -1;

	if (!dir)
		return -1;
	snprintf(pa, sizeof(pa), "%s/%s", dir, a);
	snprintf(pb, sizeof(pb), "%s/%s", dir, b);
	if (!book_load(pa, NULL, &x, NULL) && !book_load(pb, NULL, &y, NULL) &&
	    !book_compare(x, y, NULL, &c))
		cls = (int)c.rel.cls;
	book_free(x);
	book_free(y);
	return cls;
}

static int same_or_near(int cls)
{
	return cls == RELATE_SAME_TEXT || cls == RELATE_NEAR_DUPLICATE;
}

static void test_relations(void)
{
	static const char *const pairs[][2] = {
		{ "formats/wotw.mobi", "epub/pg36-war-of-the-worlds.epub" },
		{ "formats/wotw.azw3", "epub/pg36-war-of-the-worlds.epub" },
		{ "formats/wotw.mobi", "texts/pg36-the-war-of-the-worlds.txt" },
		{ "formats/moby-dick.mobi", "epub/idpf-moby-dick.epub" },
		{ "formats/tom-sawyer-part1.azw3", "texts/pg7193-tom-sawyer-part1.txt" },
	};
	size_t i, done = 0;
	int cls;

	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		cls = relation(pairs[i][0], pairs[i][1]);
		if (cls < 0)
			continue;
		printf("# %s vs %s: class %d\n", pairs[i][0], pairs[i][1], cls);
		CHECK(same_or_near(cls));
		done++;
	}
	/* a volume inside the complete work */
	cls = relation("formats/tom-sawyer-part1.azw3", "texts/pg74-the-adventures-of-tom-sawyer.txt");
	if (cls >= 0) {
		CHECK_EQ_INT(cls, RELATE_B_CONTAINS_A);
		done++;
	}
	if (!done)
		SKIP("shared books absent");
}

/* Metadata from EXTH records added with libmobi's own writer: a second
 * author, an ISBN, a title update. */
static void test_exth(void)
{
	char path[4096], *out = NULL;
	size_t len, olen = 0;
	unsigned char *buf = load("formats/wotw.mobi", &len, path, sizeof(path));
	struct extract_doc d;
	MOBIData *m;
	FILE *f;

	if (!buf)
		SKIP("shared books absent");
	m = mobi_init();
	REQUIRE(m != NULL);
	f = fmemopen(buf, len, "rb");
	REQUIRE(f && mobi_load_file(m, f) == MOBI_SUCCESS);
	fclose(f);
	REQUIRE(mobi_meta_add_author(m, "Second Author") == MOBI_SUCCESS);
	REQUIRE(mobi_meta_add_isbn(m, "978-0-306-40615-7") == MOBI_SUCCESS);
	REQUIRE(mobi_meta_set_title(m, "Worlds at War") == MOBI_SUCCESS);
	f = open_memstream(&out, &olen);
	REQUIRE(f && mobi_write_file(f, m) == MOBI_SUCCESS);
	fclose(f);
	mobi_free(m);
	extract_doc_init(&d);
	CHECK_EQ_INT(extract_buffer(out, olen, "w.mobi", NULL, &d, NULL), 0);
	CHECK_EQ_STR(d.title, "Worlds at War");
	REQUIRE(d.creators.n == 2);
	CHECK_EQ_STR(d.creators.v[0], "H. G. Wells");
	CHECK_EQ_STR(d.creators.v[1], "Second Author");
	CHECK_EQ_STR(d.isbn, "9780306406157");
	CHECK(d.identifiers.n == 2 && !strcmp(d.identifiers.v[0], "978-0-306-40615-7"));
	CHECK(strstr(d.text.buf, "No one would have believed") != NULL);
	extract_doc_release(&d);
	free(out);
	free(buf);
}

/* extract_buffer on a damaged copy: the code, and the reason holds want. */
static void expect(const unsigned char *buf, size_t len, const char *name,
		   const struct extract_limits *lim, int code, const char *want)
{
	struct extract_doc d;
	struct sbuf err;
	int ret;

	extract_doc_init(&d);
	sbuf_init(&err);
	ret = extract_buffer(buf, len, name, lim, &d, &err);
	printf("# %s (%zu bytes): %d %s\n", name, len, ret, err.len ? err.buf : "");
	CHECK_EQ_INT(ret, code);
	CHECK(err.len && strstr(err.buf, want) != NULL);
	CHECK_EQ_INT(d.text.len, 0);
	extract_doc_release(&d);
	sbuf_release(&err);
}

static void test_damaged(void)
{
	static const char *const files[] = { "formats/wotw.mobi", "formats/wotw.azw3" };
	struct extract_limits lim;
	size_t f, len;

	for (f = 0; f < 2; f++) {
		char path[4096];
		unsigned char *buf = load(files[f], &len, path, sizeof(path)), *c;
		uint32_t r0, n, k;

		if (!buf)
			SKIP("shared books absent");
		c = malloc(len);
		REQUIRE(c != NULL);
		n = (uint32_t)buf[76] << 8 | buf[77];
		r0 = get32(buf + 78);
		/* DRM: the PalmDOC header's encryption type (record 0, offset 12) */
		memcpy(c, buf, len);
		put16(c + r0 + 12, 2);
		expect(c, len, "drm.azw3", NULL, -EACCES, "DRM-protected");
		put16(c + r0 + 12, 1);
		expect(c, len, "drm.mobi", NULL, -EACCES, "DRM-protected");
		/* truncated: inside the header, inside the record list, half */
		expect(buf, 50, "t.mobi", NULL, -EBADMSG, "truncated");
		expect(buf, 78 + 8 * n / 2, "t.mobi", NULL, -EBADMSG, "truncated");
		expect(buf, len / 2, "t.mobi", NULL, -EBADMSG, "truncated");
		/* corrupt headers */
		memcpy(c, buf, len);
		put16(c + r0, 7);
		expect(c, len, "c.mobi", NULL, -EBADMSG, "compression");
		memcpy(c, buf, len);
		put32(c + 78 + 8 * 3, get32(buf + 78 + 8 * 1));
		expect(c, len, "c.mobi", NULL, -EBADMSG, "record 3");
		memcpy(c, buf, len);
		put32(c + r0 + 4, 0xFFFFFFF0u);
		expect(c, len, "c.mobi", NULL, -EFBIG, "unpacking limit");
		/* KF8 flow sections overlapping (each would be copied whole) */
		for (k = 0; f == 1 && k < n; k++) {
			uint32_t o = get32(buf + 78 + 8 * k);

			if (o + 28 <= len && !memcmp(buf + o, "FDST", 4) && get32(buf + o + 8) >= 2) {
				memcpy(c, buf, len);
				put32(c + o + 12 + 8, 0);	/* section 1 starts at 0 */
				expect(c, len, "c.azw3", NULL, -EBADMSG, "FDST section 1 overlaps");
				break;
			}
		}
		CHECK(f == 0 || k < n);
		memcpy(c, buf, len);
		memset(c + 60, 'x', 8);
		expect(c, len, "c.azw3", NULL, -EBADMSG, "not a MOBI");
		/* limits */
		extract_limits_default(&lim);
		lim.max_unzipped_bytes = 100000;
		expect(buf, len, "l.mobi", &lim, -EFBIG, "unpacking limit");
		extract_limits_default(&lim);
		lim.max_archive_bytes = len - 1;
		expect(buf, len, "l.mobi", &lim, -EFBIG, "over the limit");
		extract_limits_default(&lim);
		lim.max_text_bytes = 1000;
		expect(buf, len, "l.mobi", &lim, -EFBIG, "text longer");
		extract_limits_default(&lim);
		lim.max_depth = 2;
		expect(buf, len, "l.mobi", &lim, -EFBIG, "nested deeper");
		free(c);
		free(buf);
	}
}

int main(void)
{
	RUN(test_palmdoc);
	RUN(test_sniff);
	RUN(test_real_books);
	RUN(test_relations);
	RUN(test_exth);
	RUN(test_damaged);
	return CHECK_DONE();
}
