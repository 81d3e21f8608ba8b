/* test_pdfscan.c - the fast PDF text reader (pdfscan.c) against poppler's
 * text layer: the same book text on the real PDFs of $SIMBOOK_BOOKS/formats
 * (skipped when absent), most pages read by pdfscan itself, and damaged
 * copies of them read without a crash or a hang (ASan build); and PDFs
 * written here with a Type0 font: pages in pdfscan's case read by it with
 * poppler's text, the others left to poppler.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "check.h"
#include "extract_i.h"
#include "pdfscan.h"
#include "sbuf.h"

static char *load(const char *rel, size_t *n)
{
	const char *dir = getenv("SIMBOOK_BOOKS");
	char path[4096];
	char *buf = NULL;
	FILE *f;
	long sz;

	if (!dir || snprintf(path, sizeof(path), "%s/%s", dir, rel) >= (int)sizeof(path))
		return NULL;
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (sz = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET)) {
		buf = malloc((size_t)sz);
		if (buf && fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
			free(buf);
			buf = NULL;
		}
		*n = (size_t)sz;
	}
	fclose(f);
	return buf;
}

static void ctx_init(struct ex_ctx *c, struct extract_limits *lim, struct extract_doc *d)
{
	extract_limits_default(lim);
	memset(c, 0, sizeof(*c));
	c->lim = lim;
	c->name = "t.pdf";
	c->deadline_ns = UINT64_MAX;	/* no time limit: sanitizer builds */
	c->doc = d;
}

static int extract(const char *buf, size_t n, int fast, struct extract_doc *d)
{
	struct extract_limits lim;
	struct ex_ctx c;

	extract_doc_init(d);
	ctx_init(&c, &lim, d);
	return pdf_extract_with(&c, buf, n, fast);
}

/* The pages pdfscan reads itself (not left to poppler), of npages. */
static uint32_t own_pages(const char *buf, size_t n, uint32_t npages)
{
	struct extract_limits lim;
	struct extract_doc d;
	struct pdfscan *sc = NULL;
	struct pdftext pt;
	struct ex_ctx c;
	uint32_t i, own = 0;

	extract_doc_init(&d);
	ctx_init(&c, &lim, &d);
	pdftext_init(&pt);
	if (pdfscan_open(&c, buf, n, npages, &sc) == 0)
		for (i = 0; i < npages; i++)
			own += pdfscan_page(sc, i, &pt) == 0;
	pdfscan_close(sc);
	pdftext_release(&pt);
	extract_doc_release(&d);
	return own;
}

static void same_as_poppler(const char *rel, uint32_t npages, uint32_t min_own)
{
	struct extract_doc a, b;
	size_t n = 0, i;
	char *buf = load(rel, &n);

	if (!buf)
		SKIP("no shared books in $SIMBOOK_BOOKS");
	CHECK(extract(buf, n, 1, &a) == 0);
	CHECK(extract(buf, n, 0, &b) == 0);
	CHECK(a.text.len > 100000 && a.text.len == b.text.len);
	CHECK(!memcmp(a.text.buf, b.text.buf, a.text.len < b.text.len ? a.text.len : b.text.len));
	CHECK(a.nchunks == b.nchunks);
	for (i = 0; i < a.nchunks && i < b.nchunks; i++)
		CHECK(a.chunk_off[i] == b.chunk_off[i]);
	CHECK_EQ_STR(a.title, b.title);
	/* the fast path really ran: not every page handed back to poppler */
	CHECK(own_pages(buf, n, npages) >= min_own);
	CHECK(own_pages(buf, n, npages + 1) == 0);	/* a page count that disagrees */
	extract_doc_release(&a);
	extract_doc_release(&b);
	free(buf);
}

static void test_wotw(void)
{
	same_as_poppler("formats/wotw.pdf", 170, 150);
}

static void test_frankenstein(void)
{
	same_as_poppler("formats/frankenstein-1818.pdf", 197, 197);
}

/* Damaged copies: bytes overwritten through the file (the xref table,
 * the object syntax, the compressed streams) and the file cut short.
 * Either reader may refuse them; none may crash, hang or leak. */
static void test_damaged(void)
{
	static const char junk[] = { '<', ']', '(', '0', '/', '\xff', '9', ' ' };
	struct extract_doc d;
	size_t n = 0, step, pos;
	char *buf = load("formats/frankenstein-1818.pdf", &n), *cp;
	int k = 0;

	if (!buf)
		SKIP("no shared books in $SIMBOOK_BOOKS");
	cp = malloc(n);
	REQUIRE(cp);
	step = n / 24;
	for (pos = 17; pos < n; pos += step, k++) {
		memcpy(cp, buf, n);
		memset(cp + pos, junk[k % 8], pos + 40 < n ? 40 : n - pos);
		extract(cp, n, 1, &d);
		extract_doc_release(&d);
		extract(cp, pos, 1, &d);	/* cut at pos */
		extract_doc_release(&d);
	}
	/* the tail alone: xref and trailer pointing at nothing */
	memcpy(cp, buf, n);
	CHECK(extract(cp + n - 4096, 4096, 1, &d) < 0);
	extract_doc_release(&d);
	free(cp);
	free(buf);
}

/* A hex string of s in the test font's codes (ASCII - 0x1f). */
static void hexstr(struct sbuf *c, const char *s)
{
	sbuf_addch(c, '<');
	for (; *s; s++)
		sbuf_addf(c, "%04X", (unsigned)(unsigned char)*s - 0x1f);
	sbuf_addch(c, '>');
}

/* A PDF of npages pages with the content streams pages[] (page 0 stored
 * Flate-compressed), one Type0 font /F1 (Identity-H, every glyph 500
 * wide, ToUnicode codes 1..95 to ASCII 32..126, no font program: the
 * text layer needs none). */
static void type0_pdf(struct sbuf *out, const char *const *pages, size_t npages)
{
	static const char tounicode[] =
		"/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n"
		"1 begincodespacerange <0000> <FFFF> endcodespacerange\n"
		"1 beginbfrange <0001> <005F> <0020> endbfrange\n"
		"endcmap CMapName currentdict /CMap defineresource pop end end\n";
	size_t off[64], nobj = 0, p, xref;
	unsigned char z[8192];
	uLongf zn;

	sbuf_setlen(out, 0);
	sbuf_addstr(out, "%PDF-1.4\n");
	off[nobj++] = out->len;
	sbuf_addstr(out, "1 0 obj\n<</Type/Catalog/Pages 2 0 R>>\nendobj\n");
	off[nobj++] = out->len;
	sbuf_addstr(out, "2 0 obj\n<</Type/Pages/MediaBox[0 0 612 792]/Kids[");
	for (p = 0; p < npages; p++)
		sbuf_addf(out, " %zu 0 R", 7 + 2 * p);
	sbuf_addf(out, "]/Count %zu>>\nendobj\n", npages);
	off[nobj++] = out->len;
	sbuf_addstr(out, "3 0 obj\n<</Type/Font/Subtype/Type0/BaseFont/TestSans/Encoding/Identity-H"
			 "/DescendantFonts[4 0 R]/ToUnicode 5 0 R>>\nendobj\n");
	off[nobj++] = out->len;
	sbuf_addstr(out, "4 0 obj\n<</Type/Font/Subtype/CIDFontType2/BaseFont/TestSans"
			 "/CIDSystemInfo<</Registry(Adobe)/Ordering(Identity)/Supplement 0>>"
			 "/FontDescriptor 6 0 R/DW 500/W[1 [250]]>>\nendobj\n");
	off[nobj++] = out->len;
	sbuf_addf(out, "5 0 obj\n<</Length %zu>>\nstream\n%sendstream\nendobj\n",
		  strlen(tounicode), tounicode);
	off[nobj++] = out->len;
	sbuf_addstr(out, "6 0 obj\n<</Type/FontDescriptor/FontName/TestSans/Flags 32"
			 "/FontBBox[0 -200 1000 900]/ItalicAngle 0/Ascent 900/Descent -200"
			 "/CapHeight 700/StemV 80>>\nendobj\n");
	for (p = 0; p < npages; p++) {
		off[nobj++] = out->len;
		sbuf_addf(out, "%zu 0 obj\n<</Type/Page/Parent 2 0 R/Resources<</Font<</F1 3 0 R>>>>"
			       "/Contents %zu 0 R>>\nendobj\n", 7 + 2 * p, 8 + 2 * p);
		off[nobj++] = out->len;
		zn = sizeof(z);
		if (!p && compress2(z, &zn, (const Bytef *)pages[p], strlen(pages[p]), 9) == Z_OK) {
			sbuf_addf(out, "%zu 0 obj\n<</Length %lu/Filter/FlateDecode>>\nstream\n",
				  8 + 2 * p, (unsigned long)zn);
			sbuf_add(out, z, zn);
		} else {
			sbuf_addf(out, "%zu 0 obj\n<</Length %zu>>\nstream\n%s", 8 + 2 * p,
				  strlen(pages[p]), pages[p]);
		}
		sbuf_addstr(out, "\nendstream\nendobj\n");
	}
	xref = out->len;
	sbuf_addf(out, "xref\n0 %zu\n0000000000 65535 f \n", nobj + 1);
	for (p = 0; p < nobj; p++)
		sbuf_addf(out, "%010zu 00000 n \n", off[p]);
	sbuf_addf(out, "trailer\n<</Size %zu/Root 1 0 R>>\nstartxref\n%zu\n%%%%EOF\n", nobj + 1,
		  xref);
}

/* Lines of a paragraph at 12 pt, 14 pt apart, from (72, y). */
static void para(struct sbuf *c, int y, const char *const *lines, size_t n)
{
	size_t i;

	sbuf_addf(c, "BT /F1 12 Tf 14 TL 72 %d Td ", y);
	for (i = 0; i < n; i++) {
		hexstr(c, lines[i]);
		sbuf_addstr(c, i + 1 < n ? " Tj T*\n" : " Tj\n");
	}
	sbuf_addstr(c, "ET\n");
}

static void test_written(void)
{
	static const char *const body[] = {
		"It was the best of times, it was the worst of times, it was the",
		"age of wisdom, it was the age of foolishness, it was the epoch of",
		"belief, it was the epoch of incredulity, it was the season of Light,",
		"it was the season of Darkness, it was the spring of hope, it was the",
		"winter of despair, we had everything before us, we had nothing",
		"before us, we were all going direct to Heaven, we were all going",
		"direct the other way.",
	};
	struct sbuf c[4], pdf;
	const char *pages[4];
	struct extract_doc a, b;
	size_t i;

	sbuf_init(&pdf);
	for (i = 0; i < 4; i++)
		sbuf_init(&c[i]);
	/* 0: paragraphs, a word split by TJ kerning and by a move */
	sbuf_addstr(&c[0], "q 1 0 0 1 0 0 cm BT /F1 18 Tf 200 740 Td ");
	hexstr(&c[0], "Chapter One");
	sbuf_addstr(&c[0], " Tj ET Q\n");
	para(&c[0], 700, body, 7);
	sbuf_addstr(&c[0], "BT /F1 12 Tf 90 580 Td [");
	hexstr(&c[0], "Kern");
	sbuf_addstr(&c[0], " 20 ");
	hexstr(&c[0], "ed and moved ");
	sbuf_addstr(&c[0], "] TJ 99 0 Td ");
	hexstr(&c[0], "words.");
	sbuf_addstr(&c[0], " Tj ET\n");
	/* 1: the same paragraph, and text drawn off the page */
	para(&c[1], 700, body, 7);
	sbuf_addstr(&c[1], "BT /F1 12 Tf 72 900 Td ");
	hexstr(&c[1], "off the page");
	sbuf_addstr(&c[1], " Tj ET\n");
	/* 2: two columns on one baseline: poppler's */
	sbuf_addstr(&c[2], "BT /F1 12 Tf 72 700 Td ");
	hexstr(&c[2], "left column");
	sbuf_addstr(&c[2], " Tj 300 0 Td ");
	hexstr(&c[2], "right column");
	sbuf_addstr(&c[2], " Tj ET\n");
	/* 3: a rotated line: poppler's */
	sbuf_addstr(&c[3], "BT /F1 12 Tf 0 1 -1 0 300 300 Tm ");
	hexstr(&c[3], "sideways text on the page");
	sbuf_addstr(&c[3], " Tj ET\n");
	para(&c[3], 700, body, 7);
	for (i = 0; i < 4; i++)
		pages[i] = c[i].buf;
	type0_pdf(&pdf, pages, 4);
	CHECK(extract(pdf.buf, pdf.len, 1, &a) == 0);
	CHECK(extract(pdf.buf, pdf.len, 0, &b) == 0);
	CHECK(a.text.len > 500 && a.text.len == b.text.len && !strcmp(a.text.buf, b.text.buf));
	if (strcmp(a.text.buf, b.text.buf))
		fprintf(stderr, "  fast:\n%s\n  poppler:\n%s\n", a.text.buf, b.text.buf);
	CHECK(strstr(a.text.buf, "Kerned and moved words.") != NULL);
	CHECK(strstr(a.text.buf, "off the page") == NULL);
	CHECK(own_pages(pdf.buf, pdf.len, 4) == 2);	/* pages 0 and 1 */
	extract_doc_release(&a);
	extract_doc_release(&b);
	for (i = 0; i < 4; i++)
		sbuf_release(&c[i]);
	sbuf_release(&pdf);
}

/* A page tree that lists its own node as kids: refused by pdfscan (the
 * depth limit), and the file read in bounded time, whatever poppler says. */
static void test_tree_loop(void)
{
	static const char *const objs[] = {
		"<</Type/Catalog/Pages 2 0 R>>",
		"<</Type/Pages/Kids[2 0 R 2 0 R 3 0 R]/Count 1>>",
		"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]>>",
	};
	struct extract_limits lim;
	struct extract_doc d;
	struct pdfscan *sc = NULL;
	struct ex_ctx c;
	struct sbuf pdf;
	size_t off[3], i, x;

	sbuf_init(&pdf);
	sbuf_addstr(&pdf, "%PDF-1.4\n");
	for (i = 0; i < 3; i++) {
		off[i] = pdf.len;
		sbuf_addf(&pdf, "%zu 0 obj\n%s\nendobj\n", i + 1, objs[i]);
	}
	x = pdf.len;
	sbuf_addstr(&pdf, "xref\n0 4\n0000000000 65535 f \n");
	for (i = 0; i < 3; i++)
		sbuf_addf(&pdf, "%010zu 00000 n \n", off[i]);
	sbuf_addf(&pdf, "trailer\n<</Size 4/Root 1 0 R>>\nstartxref\n%zu\n%%%%EOF\n", x);
	extract_doc_init(&d);
	ctx_init(&c, &lim, &d);
	CHECK(pdfscan_open(&c, pdf.buf, pdf.len, 1, &sc) == -ENOTSUP);
	pdfscan_close(sc);
	extract_doc_release(&d);
	extract(pdf.buf, pdf.len, 1, &d);	/* poppler's answer: any, in time */
	extract_doc_release(&d);
	sbuf_release(&pdf);
}

int main(void)
{
	RUN(test_tree_loop);
	RUN(test_written);
	RUN(test_wotw);
	RUN(test_frankenstein);
	RUN(test_damaged);
	return CHECK_DONE();
}
