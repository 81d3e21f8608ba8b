/* test_extract_pdf.c - the PDF reader: PDFs written here by hand (running
 * headers, page numbers, hyphenation, paragraphs, no text layer,
 * encryption, damage, limits) and the real PDFs of $SIMBOOK_BOOKS/formats
 * against their sources (skipped when absent).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "book.h"
#include "check.h"
#include "extract.h"
#include "sbuf.h"

/* One line of text drawn at (x, y) in 11 pt Helvetica (standard font: no
 * font file needed to extract it). */
struct pline {
	int x, y;
	const char *s;
};

#define MAXOBJ 64

/* Writes a PDF of npages pages, page p drawing the lines lines[p] (count
 * nl[p]; a NULL string ends nothing, every entry is drawn) or, when raw[p]
 * is set, that content stream as is.  info: an Info dictionary or NULL;
 * encrypt: an Encrypt dictionary or NULL.  Offsets in the xref are exact. */
static void make_pdf(struct sbuf *out, size_t npages, const struct pline *const *lines,
		     const size_t *nl, const char *const *raw, const char *info,
		     const char *encrypt)
{
	size_t off[MAXOBJ], nobj = 0, p, i, xref;
	struct sbuf c;

	sbuf_setlen(out, 0);
	sbuf_init(&c);
	sbuf_addstr(out, "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n");
	/* 1 catalog, 2 pages, 3 font, then page/content pairs, then info, encrypt */
	off[nobj++] = out->len;
	sbuf_addstr(out, "1 0 obj\n<</Type/Catalog/Pages 2 0 R>>\nendobj\n");
	off[nobj++] = out->len;
	sbuf_addstr(out, "2 0 obj\n<</Type/Pages/Kids[");
	for (p = 0; p < npages; p++)
		sbuf_addf(out, " %zu 0 R", 4 + 2 * p);
	sbuf_addf(out, "]/Count %zu>>\nendobj\n", npages);
	off[nobj++] = out->len;
	sbuf_addstr(out, "3 0 obj\n<</Type/Font/Subtype/Type1/BaseFont/Helvetica"
			 "/Encoding/WinAnsiEncoding>>\nendobj\n");
	for (p = 0; p < npages; p++) {
		sbuf_setlen(&c, 0);
		if (raw && raw[p]) {
			sbuf_addstr(&c, raw[p]);
		} else {
			for (i = 0; i < nl[p]; i++) {
				const char *s;

				sbuf_addf(&c, "BT /F1 11 Tf %d %d Td (", lines[p][i].x, lines[p][i].y);
				for (s = lines[p][i].s; *s; s++) {
					if (*s == '(' || *s == ')' || *s == '\\')
						sbuf_addch(&c, '\\');
					sbuf_addch(&c, *s);
				}
				sbuf_addstr(&c, ") Tj ET\n");
			}
		}
		off[nobj++] = out->len;
		sbuf_addf(out, "%zu 0 obj\n<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]"
			  "/Resources<</Font<</F1 3 0 R>>>>/Contents %zu 0 R>>\nendobj\n",
			  4 + 2 * p, 5 + 2 * p);
		off[nobj++] = out->len;
		sbuf_addf(out, "%zu 0 obj\n<</Length %zu>>stream\n%s\nendstream\nendobj\n",
			  5 + 2 * p, c.len, c.buf);
	}
	if (info) {
		off[nobj++] = out->len;
		sbuf_addf(out, "%zu 0 obj\n%s\nendobj\n", nobj, info);
	}
	if (encrypt) {
		off[nobj++] = out->len;
		sbuf_addf(out, "%zu 0 obj\n%s\nendobj\n", nobj, encrypt);
	}
	xref = out->len;
	sbuf_addf(out, "xref\n0 %zu\n0000000000 65535 f \n", nobj + 1);
	for (i = 0; i < nobj; i++)
		sbuf_addf(out, "%010zu 00000 n \n", off[i]);
	sbuf_addf(out, "trailer\n<</Size %zu/Root 1 0 R", nobj + 1);
	if (info)
		sbuf_addf(out, "/Info %zu 0 R", nobj - (encrypt ? 1 : 0));
	if (encrypt)
		sbuf_addf(out, "/Encrypt %zu 0 R/ID[<0123456789abcdef0123456789abcdef>"
			  "<0123456789abcdef0123456789abcdef>]", nobj);
	sbuf_addf(out, ">>\nstartxref\n%zu\n%%%%EOF\n", xref);
	sbuf_release(&c);
}

#define NPAGES 6
#define BODY 12

/* A book of NPAGES pages: a running header alternating between the title
 * (with the page number) and the chapter, a page number at the foot, and
 * a body of BODY lines per page with paragraphs and hyphenated words. */
static void book_pdf(struct sbuf *out, const char *info)
{
	static char hdr[NPAGES][64], foot[NPAGES][16], body[NPAGES][BODY][96];
	static struct pline pl[NPAGES][BODY + 2];
	const struct pline *lines[NPAGES];
	size_t nl[NPAGES], p, i;

	for (p = 0; p < NPAGES; p++) {
		size_t n = 0;

		if (p % 2)
			snprintf(hdr[p], sizeof(hdr[p]), "THE CHAPTER OF TESTS");
		else
			snprintf(hdr[p], sizeof(hdr[p]), "%zu   A TALE OF TESTING", p + 1);
		snprintf(foot[p], sizeof(foot[p]), "%zu", p + 1);
		pl[p][n++] = (struct pline){ 250, 750, hdr[p] };
		for (i = 0; i < BODY; i++) {
			const char *s;

			/* every page: a paragraph of 6 lines, then one of 5 and a
			 * short last line; fixed words so the lines fill the width */
			if (i == 2)
				s = "these words carry on with the line and the hyphen some-";
			else if (i == 3)
				s = "thing joined, then a compound we know is well-";
			else if (i == 4)
				s = "known here and well-known there, and Anglo-";
			else if (i == 5)
				s = "Saxon words that end this first paragraph now.";
			else if (i == 6 || i == 11)
				s = "A new paragraph starts here on an indented line";
			else if (i == 7)
				s = "Short last line.";
			else
				s = "page body text that runs along the whole line of print";
			snprintf(body[p][i], sizeof(body[p][i]), "%s", s);
			pl[p][n++] = (struct pline){ i == 6 || i == 11 ? 96 : 72,
						     700 - 14 * (int)i - (i >= 6 ? 10 : 0),
						     body[p][i] };
		}
		pl[p][n++] = (struct pline){ 300, 40, foot[p] };
		lines[p] = pl[p];
		nl[p] = n;
	}
	make_pdf(out, NPAGES, lines, nl, NULL, info, NULL);
}

static void test_book_layout(void)
{
	struct extract_doc d;
	struct sbuf pdf, err;
	size_t n = 0;
	const char *t;
	int ret;

	sbuf_init(&pdf);
	sbuf_init(&err);
	extract_doc_init(&d);
	book_pdf(&pdf, "<</Title(A Tale of Testing)/Author(Ann Smith and Bob Jones)>>");
	CHECK(extract_sniff(pdf.buf, pdf.len, NULL) == EXTRACT_FMT_PDF);
	ret = extract_buffer(pdf.buf, pdf.len, "t.pdf", NULL, &d, &err);
	if (ret)
		fprintf(stderr, "  %s\n", err.buf);
	REQUIRE(ret == 0);
	t = d.text.buf;
	CHECK(d.format == EXTRACT_FMT_PDF);
	/* the raw layer has them on every page: they must be gone */
	CHECK(!strstr(t, "A TALE OF TESTING"));
	CHECK(!strstr(t, "THE CHAPTER OF TESTS"));
	CHECK(!strstr(t, "\n3\n") && !strstr(t, " 3 ") && !strstr(t, "\n6") && !strstr(t, "6\n"));
	/* hyphenation: split word joined, attested compound kept, capital kept */
	CHECK(strstr(t, "the hyphen something joined") != NULL);
	CHECK(!strstr(t, "some-"));
	CHECK(strstr(t, "is well-known here") != NULL);
	CHECK(strstr(t, "and Anglo-Saxon words") != NULL);
	/* paragraphs: lines joined, breaks at the indent and the short line */
	CHECK(strstr(t, "print page body text") != NULL);
	CHECK(strstr(t, "paragraph now.\n\nA new paragraph") != NULL);
	CHECK(strstr(t, "Short last line.\n\npage body") != NULL);
	for (const char *q = t; (q = strstr(q, "\n\n")); q += 2)
		n++;
	CHECK(n >= NPAGES * 2 && n <= NPAGES * 4);
	CHECK(!strchr(t, '\f'));
	REQUIRE(d.nchunks >= 1);
	CHECK(d.chunk_off[0] == 0);
	CHECK_EQ_STR(d.title, "A Tale of Testing");
	REQUIRE(d.creators.n == 2);
	CHECK_EQ_STR(d.creators.v[0], "Ann Smith");
	CHECK_EQ_STR(d.creators.v[1], "Bob Jones");
	extract_doc_release(&d);
	sbuf_release(&pdf);
	sbuf_release(&err);
}

static void test_limits(void)
{
	struct extract_limits lim;
	struct extract_doc d;
	struct sbuf pdf, err;

	sbuf_init(&pdf);
	sbuf_init(&err);
	extract_doc_init(&d);
	book_pdf(&pdf, NULL);
	extract_limits_default(&lim);
	lim.max_entries = NPAGES - 1;
	CHECK(extract_buffer(pdf.buf, pdf.len, "t.pdf", &lim, &d, &err) == -EFBIG);
	CHECK(strstr(err.buf, "pages") != NULL);
	extract_limits_default(&lim);
	lim.max_text_bytes = 200;
	sbuf_setlen(&err, 0);
	CHECK(extract_buffer(pdf.buf, pdf.len, "t.pdf", &lim, &d, &err) == -EFBIG);
	CHECK(strstr(err.buf, "text longer") != NULL);
	extract_limits_default(&lim);
	lim.max_archive_bytes = pdf.len - 1;
	CHECK(extract_buffer(pdf.buf, pdf.len, "t.pdf", &lim, &d, &err) == -EFBIG);
	CHECK(d.text.len == 0 && d.nchunks == 0);
	extract_doc_release(&d);
	sbuf_release(&pdf);
	sbuf_release(&err);
}

static void test_refused(void)
{
	static const char *const scan[2] = {
		"q 400 0 0 600 100 100 cm 0.5 g 0 0 1 1 re f Q",
		"1 w 72 72 m 500 700 l S",
	};
	struct extract_doc d;
	struct sbuf pdf, err;
	size_t half;

	sbuf_init(&pdf);
	sbuf_init(&err);
	extract_doc_init(&d);
	/* pages of drawings only, as a scan without OCR */
	make_pdf(&pdf, 2, NULL, NULL, scan, NULL, NULL);
	CHECK(extract_buffer(pdf.buf, pdf.len, "scan.pdf", NULL, &d, &err) == -EBADMSG);
	CHECK(strstr(err.buf, "no text layer") != NULL);
	/* a password we do not have: the standard handler's hashes don't match
	 * the empty user password */
	book_pdf(&pdf, NULL);
	{
		struct sbuf enc;

		sbuf_init(&enc);
		sbuf_addstr(&enc, "<</Filter/Standard/V 1/R 2/Length 40/P -44/O<");
		for (int i = 0; i < 32; i++)
			sbuf_addstr(&enc, "5a");
		sbuf_addstr(&enc, ">/U<");
		for (int i = 0; i < 32; i++)
			sbuf_addstr(&enc, "c3");
		sbuf_addstr(&enc, ">>>");
		make_pdf(&pdf, 1, NULL, NULL, scan, NULL, enc.buf);
		sbuf_release(&enc);
	}
	sbuf_setlen(&err, 0);
	CHECK(extract_buffer(pdf.buf, pdf.len, "enc.pdf", NULL, &d, &err) == -EACCES);
	CHECK(strstr(err.buf, "encrypted (password-protected)") != NULL);
	/* damaged: only the header and a piece of the first object */
	book_pdf(&pdf, NULL);
	half = 60;
	sbuf_setlen(&err, 0);
	CHECK(extract_buffer(pdf.buf, half, "cut.pdf", NULL, &d, &err) == -EBADMSG);
	CHECK(strstr(err.buf, "cut.pdf: ") == err.buf);
	/* a .pdf that is no PDF at all */
	sbuf_setlen(&err, 0);
	CHECK(extract_buffer("hello", 5, "x.pdf", NULL, &d, &err) == EXTRACT_NOTBOOK);
	/* a text that quotes the magic later on stays text */
	CHECK(extract_sniff("See the %PDF- header", 20, "a.txt") == EXTRACT_FMT_TXT);
	CHECK(d.text.len == 0);
	extract_doc_release(&d);
	sbuf_release(&pdf);
	sbuf_release(&err);
}

static const char *books_dir(char *buf, size_t sz, const char *rel)
{
	const char *dir = getenv("SIMBOOK_BOOKS");
	FILE *f;

	if (!dir || snprintf(buf, sz, "%s/%s", dir, rel) >= (int)sz)
		return NULL;
	f = fopen(buf, "rb");
	if (!f)
		return NULL;
	fclose(f);
	return buf;
}

/* Default limits but the time: a loaded machine or a sanitizer build must
 * not turn a half-second extraction into a failure. */
static const struct extract_limits *slow_limits(void)
{
	static struct extract_limits lim;

	extract_limits_default(&lim);
	lim.max_millis = 120000;
	return &lim;
}

/* The relation of the PDF to its source through the real comparison. */
static void check_relation(const char *pdf, const char *src, unsigned min_words)
{
	char pa[4096], pb[4096];
	struct book *a = NULL, *b = NULL;
	struct book_cmp c;
	struct sbuf err;

	if (!books_dir(pa, sizeof(pa), pdf) || !books_dir(pb, sizeof(pb), src))
		SKIP("no shared books in $SIMBOOK_BOOKS");
	sbuf_init(&err);
	CHECK(book_load(pa, slow_limits(), &a, &err) == 0);
	CHECK(book_load(pb, slow_limits(), &b, &err) == 0);
	if (err.len)
		fprintf(stderr, "  %s\n", err.buf);
	if (a && b && book_compare(a, b, NULL, &c) == 0) {
		CHECK(a->format == EXTRACT_FMT_PDF);
		CHECK(c.scores.a_nwords >= min_words);
		CHECK(c.rel.cls == RELATE_SAME_TEXT || c.rel.cls == RELATE_NEAR_DUPLICATE);
	} else {
		CHECK(0);
	}
	book_free(a);
	book_free(b);
	sbuf_release(&err);
}

static void test_wotw(void)
{
	check_relation("formats/wotw.pdf", "epub/pg36-war-of-the-worlds.epub", 55000);
}

static void test_frankenstein(void)
{
	check_relation("formats/frankenstein-1818.pdf", "texts/pg41445-frankenstein-1818.txt", 70000);
}

static void test_real_layout(void)
{
	char path[4096];
	struct extract_doc d;
	struct sbuf err;

	if (!books_dir(path, sizeof(path), "formats/wotw.pdf"))
		SKIP("no shared books in $SIMBOOK_BOOKS");
	sbuf_init(&err);
	extract_doc_init(&d);
	CHECK(extract_file(path, slow_limits(), &d, &err) == 0);
	if (err.len)
		fprintf(stderr, "  %s\n", err.buf);
	CHECK_EQ_STR(d.title, "The War of the Worlds");
	CHECK(d.creators.n == 1 && !strcmp(d.creators.v[0], "H. G. Wells"));
	CHECK(d.nchunks > 10 && d.chunk_off && d.chunk_off[0] == 0);
	/* split at line ends in the PDF, written whole elsewhere in the book */
	CHECK(strstr(d.text.buf, "the sand heaps that hid these new-comers to our earth") != NULL);
	CHECK(strstr(d.text.buf, "the generator of the Heat-Ray.") != NULL);
	CHECK(strstr(d.text.buf, "the brightening dawn--streamed up") != NULL);
	/* lines of a paragraph joined */
	CHECK(strstr(d.text.buf, "that no writer, up to the very end") != NULL);
	extract_doc_release(&d);
	sbuf_release(&err);
}

/* A truncated real PDF: refused as damaged, never a crash. */
static void test_real_truncated(void)
{
	char path[4096];
	struct extract_doc d;
	struct sbuf err;
	char *buf;
	FILE *f;
	size_t n;

	if (!books_dir(path, sizeof(path), "formats/frankenstein-1818.pdf"))
		SKIP("no shared books in $SIMBOOK_BOOKS");
	f = fopen(path, "rb");
	REQUIRE(f);
	buf = malloc(200000);
	n = buf ? fread(buf, 1, 200000, f) : 0;
	fclose(f);
	REQUIRE(n == 200000);
	sbuf_init(&err);
	extract_doc_init(&d);
	CHECK(extract_buffer(buf, n, "cut.pdf", slow_limits(), &d, &err) == -EBADMSG);
	CHECK(strstr(err.buf, "cut.pdf: ") == err.buf);
	extract_doc_release(&d);
	sbuf_release(&err);
	free(buf);
}

int main(void)
{
	RUN(test_book_layout);
	RUN(test_limits);
	RUN(test_refused);
	RUN(test_wotw);
	RUN(test_frankenstein);
	RUN(test_real_layout);
	RUN(test_real_truncated);
	return CHECK_DONE();
}
