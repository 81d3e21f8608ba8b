/* Unit tests for the book pipeline: buffers in every format through
 * extraction, normalisation, fingerprints and the relation. */
#include <stdlib.h>
#include <unistd.h>

#include "book.h"
#include "check.h"
#include "fprec.h"
#include "mutate.h"

static struct book *load(const struct sbuf *t, const char *name)
{
	struct book *b = NULL;
	struct sbuf err;

	sbuf_init(&err);
	if (book_load_buffer(t->buf, t->len, name, NULL, &b, &err))
		fprintf(stderr, "  %s\n", err.buf);
	sbuf_release(&err);
	return b;
}

static enum relate_class relation(const struct book *a, const struct book *b)
{
	struct book_cmp c;

	if (book_compare(a, b, NULL, &c))
		return RELATE_NCLASSES;
	return c.rel.cls;
}

static void test_formats_and_copies(void)
{
	const char *dir = check_tmpdir();
	char path[PATH_MAX];
	struct sbuf txt, html, other;
	struct book *a = NULL, *a2 = NULL, *h = NULL, *e = NULL, *o = NULL;
	char id[33], id2[33];

	sbuf_init(&txt);
	sbuf_init(&html);
	sbuf_init(&other);
	REQUIRE(mut_synth(1, 1, 20000, &txt) == 0);
	REQUIRE(mut_synth(2, 2, 20000, &other) == 0);
	REQUIRE(mut_html("T", txt.buf, txt.len, &html) == 0);
	REQUIRE(dir);
	snprintf(path, sizeof(path), "%s/a.epub", dir);
	REQUIRE(mut_epub_write(path, "T", txt.buf, txt.len, 4) == 0);
	a = load(&txt, "a.txt");
	a2 = load(&txt, "copy.txt");
	h = load(&html, "a.html");
	o = load(&other, "o.txt");
	CHECK(book_load(path, NULL, &e, NULL) == 0);
	REQUIRE(a && a2 && h && e && o);
	CHECK_EQ_INT(a->format, EXTRACT_FMT_TXT);
	CHECK_EQ_INT(h->format, EXTRACT_FMT_HTML);
	CHECK_EQ_INT(e->format, EXTRACT_FMT_EPUB);
	CHECK(a->fp.nwords > 19000 && a->fp.nwords < 21000);
	book_id(a, id);
	book_id(h, id2);
	CHECK_EQ_STR(id, id2);
	CHECK_EQ_INT(relation(a, a2), RELATE_IDENTICAL_FILE);
	CHECK_EQ_INT(relation(a, h), RELATE_SAME_TEXT);
	CHECK_EQ_INT(relation(e, a), RELATE_SAME_TEXT);
	CHECK_EQ_INT(relation(a, o), RELATE_UNRELATED);
	book_free(a);
	book_free(a2);
	book_free(h);
	book_free(e);
	book_free(o);
	sbuf_release(&txt);
	sbuf_release(&html);
	sbuf_release(&other);
}

/* A stored record compares like the book it came from. */
static void test_compare_records(void)
{
	struct sbuf whole, vol, rec;
	struct book *w = NULL, *v = NULL;
	struct fp_book fv;
	struct book_cmp c1, c2;

	sbuf_init(&whole);
	sbuf_init(&vol);
	sbuf_init(&rec);
	fp_book_init(&fv);
	REQUIRE(mut_synth(3, 3, 30000, &whole) == 0);
	REQUIRE(mut_slice(whole.buf, whole.len, 0.0, 0.4, &vol) == 0);
	w = load(&whole, "whole.txt");
	v = load(&vol, "vol1.txt");
	REQUIRE(w && v);
	REQUIRE(book_compare(v, w, NULL, &c1) == 0);
	CHECK_EQ_INT(c1.rel.cls, RELATE_B_CONTAINS_A);
	CHECK(c1.sig.block_cover_a > 0.95 && c1.sig.block_cover_b > 0.3 && c1.sig.block_cover_b < 0.5);
	REQUIRE(fprec_encode(&v->fp, &rec) == 0);
	REQUIRE(fprec_decode(rec.buf, rec.len, &fv) == 0);
	REQUIRE(book_compare_fp(&fv, &w->fp, 0, NULL, &c2) == 0);
	CHECK_EQ_INT(c2.rel.cls, RELATE_B_CONTAINS_A);
	CHECK(c2.sig.block_cover_a == c1.sig.block_cover_a);
	CHECK(c2.sig.jaccard == c1.sig.jaccard);
	CHECK(c2.sig.dupniq_its == c1.sig.dupniq_its);
	REQUIRE(book_compare(w, v, NULL, &c1) == 0);
	CHECK_EQ_INT(c1.rel.cls, RELATE_A_CONTAINS_B);
	fp_book_release(&fv);
	book_free(w);
	book_free(v);
	sbuf_release(&whole);
	sbuf_release(&vol);
	sbuf_release(&rec);
}

static void test_errors(void)
{
	struct book *b = (struct book *)1;
	struct sbuf err;

	sbuf_init(&err);
	CHECK(book_load("/nonexistent/book.txt", NULL, &b, &err) < 0);
	CHECK(b == NULL);
	CHECK(strstr(err.buf, "/nonexistent/book.txt") != NULL);
	sbuf_setlen(&err, 0);
	b = (struct book *)1;
	CHECK(book_load_buffer("\x7f" "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0", 16, "x.bin", NULL, &b, &err) != 0);
	CHECK(b == NULL);
	book_free(NULL);
	sbuf_release(&err);
}

int main(void)
{
	RUN(test_formats_and_copies);
	RUN(test_compare_records);
	RUN(test_errors);
	return CHECK_DONE();
}
