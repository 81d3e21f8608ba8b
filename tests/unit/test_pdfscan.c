/* test_pdfscan.c - the fast PDF text reader (pdfscan.c) against poppler's
 * text layer: the same book text on the real PDFs of $SIMBOOK_BOOKS/formats
 * (skipped when absent), most pages read by pdfscan itself, and damaged
 * copies of them read without a crash or a hang (ASan build).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int main(void)
{
	RUN(test_wotw);
	RUN(test_frankenstein);
	RUN(test_damaged);
	return CHECK_DONE();
}
