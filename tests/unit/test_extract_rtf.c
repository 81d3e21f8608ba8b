/* test_extract_rtf.c - the RTF reader on hand-written snippets (one per
 * feature of the grammar), on hostile input (nesting, truncation, \bin,
 * huge pictures), and on the real calibre RTF of $SIMBOOK_BOOKS, which must
 * read as the same book as its source EPUB (skipped when absent).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "book.h"
#include "check.h"
#include "extract.h"
#include "relate.h"
#include "sbuf.h"

/* Extracts src (a C string) as "t.rtf"; the reason goes to stderr. */
static int rtf_n(const char *src, size_t len, const struct extract_limits *lim,
		 struct extract_doc *d)
{
	struct sbuf err;
	int ret;

	sbuf_init(&err);
	extract_doc_init(d);
	ret = extract_buffer(src, len, "t.rtf", lim, d, &err);
	if (ret)
		fprintf(stderr, "  (%s)\n", err.buf);
	sbuf_release(&err);
	return ret;
}

static int rtf(const char *src, struct extract_doc *d)
{
	return rtf_n(src, strlen(src), NULL, d);
}

/* The text of src, or "<error N>". */
static char *text_of(const char *src)
{
	struct extract_doc d;
	char *s;

	if (rtf(src, &d)) {
		s = malloc(32);
		snprintf(s, 32, "<error>");
		return s;
	}
	s = strdup(d.text.buf);
	extract_doc_release(&d);
	return s;
}

#define CHECK_TEXT(src, want) do { char *t_ = text_of(src); \
	CHECK_EQ_STR(t_, want); free(t_); } while (0)

/* The refusal code of src. */
static int code_of(const char *src, size_t len, const struct extract_limits *lim)
{
	struct extract_doc d;
	int ret = rtf_n(src, len, lim, &d);

	extract_doc_release(&d);
	return ret;
}

static void test_sniff(void)
{
	CHECK_EQ_INT(extract_sniff("{\\rtf1\\ansi x}", 14, NULL), EXTRACT_FMT_RTF);
	CHECK_EQ_INT(extract_sniff("{\\rtf1\\ansi x}", 14, "book.txt"), EXTRACT_FMT_RTF);
	CHECK_EQ_INT(extract_sniff("\xEF\xBB\xBF \r\n{\\rtf1 x}", 13, "b.doc"), EXTRACT_FMT_RTF);
	/* the name is a hint: a .rtf is read (and refused when it is not RTF) */
	CHECK_EQ_INT(extract_sniff("hello", 5, "b.RTF"), EXTRACT_FMT_RTF);
	CHECK_EQ_INT(extract_sniff("hello", 5, NULL), EXTRACT_FMT_TXT);
	CHECK_EQ_INT(extract_sniff("{\\rtx", 5, NULL), EXTRACT_FMT_TXT);
	CHECK_EQ_INT(extract_sniff("{\\rtf", 5, "a.pdf"), EXTRACT_FMT_RTF);
	CHECK_EQ_INT(extract_sniff("PK\3\4xxxx", 8, "a.rtf"), EXTRACT_FMT_UNKNOWN);
}

static void test_text_and_breaks(void)
{
	CHECK_TEXT("{\\rtf1\\ansi Hello \\b bold\\b0  world.\\par Second   para.}",
		   "Hello bold world.\n\nSecond para.");
	/* line ends are not text; a backslash before one is \par */
	CHECK_TEXT("{\\rtf1 one\r\ntwo\\\nthree\\line four{\\line}{\\line}five\\par\\par\\par}",
		   "onetwo\n\nthree\nfour\n\nfive");
	CHECK_TEXT("{\\rtf1 a\\tab b\\cell c\\row d}", "a b c\n\nd");
	/* the delimiting space belongs to the word; a digit ends a parameter */
	CHECK_TEXT("{\\rtf1\\fs24 x\\fs-2y\\i1 z}", "xyz");
	CHECK_TEXT("{\\rtf1{\\b{\\i{\\ul deep}}} text}", "deep text");
	CHECK_TEXT("{\\rtf1 }", "");
}

static void test_escapes(void)
{
	CHECK_TEXT("{\\rtf1 a\\\\b\\{c\\}d}", "a\\b{c}d");
	CHECK_TEXT("{\\rtf1 no\\~break opt\\-ional non\\_breaking}",
		   "no\xC2\xA0" "break optional non\xE2\x80\x91" "breaking");
	CHECK_TEXT("{\\rtf1 a\\emdash b\\endash c\\lquote d\\rquote e\\ldblquote f\\rdblquote "
		   "g\\bullet h}",
		   "a\xE2\x80\x94" "b\xE2\x80\x93" "c\xE2\x80\x98" "d\xE2\x80\x99" "e\xE2\x80\x9C"
		   "f\xE2\x80\x9D" "g\xE2\x80\xA2" "h");
	CHECK_TEXT("{\\rtf1 a\\:b\\|c}", "abc");
}

static void test_unicode(void)
{
	/* \uc1 is the default: one fallback character skipped */
	CHECK_TEXT("{\\rtf1 \\u1046?\\u1091?k}", "\xD0\x96\xD1\x83k");
	CHECK_TEXT("{\\rtf1\\uc0 \\u1046 x}", "\xD0\x96x");
	CHECK_TEXT("{\\rtf1\\uc2 \\u1046\\'3f\\'3fx}", "\xD0\x96x");
	CHECK_TEXT("{\\rtf1\\uc2 \\u1046 abx}", "\xD0\x96x");
	/* a control word counts as one fallback character */
	CHECK_TEXT("{\\rtf1\\uc1 \\u8212\\emdash x}", "\xE2\x80\x94x");
	/* \uc is per group, and skipping stops at a brace */
	CHECK_TEXT("{\\rtf1{\\uc2 a}\\u1046?y}", "a\xD0\x96y");
	CHECK_TEXT("{\\rtf1\\uc3\\u1046?{y}z}", "\xD0\x96yz");
	/* negative values are UTF-16 units; surrogate pairs join */
	CHECK_TEXT("{\\rtf1\\uc0\\u-4064 x}", "\xEF\x80\xA0x");
	CHECK_TEXT("{\\rtf1\\uc1\\u-10179?\\u-8704?!}", "\xF0\x9F\x98\x80!");
	CHECK_TEXT("{\\rtf1\\uc0\\u-10179 x}", "\xEF\xBF\xBDx");
	/* \upr: the Unicode twin \*\ud is read, the ANSI one is not */
	CHECK_TEXT("{\\rtf1{\\upr{ansi}{\\*\\ud{uni}}}}", "uni");
}

static void test_codepages(void)
{
	/* Windows-1252 is the default */
	CHECK_TEXT("{\\rtf1\\ansi \\'e9t\\'e9 \\'93x\\'94 \\'80}",
		   "\xC3\xA9t\xC3\xA9 \xE2\x80\x9Cx\xE2\x80\x9D \xE2\x82\xAC");
	CHECK_TEXT("{\\rtf1\\ansi\\ansicpg1251 \\'cf\\'f0\\'e8\\'e2\\'e5\\'f2}",
		   "\xD0\x9F\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82");
	CHECK_TEXT("{\\rtf1\\ansi\\ansicpg1250 \\'9a\\'e8}", "\xC5\xA1\xC4\x8D");
	CHECK_TEXT("{\\rtf1\\mac \\'8e}", "\xC3\xA9");
	/* a multi-byte code page: Shift_JIS pairs */
	CHECK_TEXT("{\\rtf1\\ansi\\ansicpg932 \\'82\\'a0\\'82\\'a2}", "\xE3\x81\x82\xE3\x81\x84");
	/* an unfinished pair is one U+FFFD */
	CHECK_TEXT("{\\rtf1\\ansi\\ansicpg932 \\'82 x}", "\xEF\xBF\xBD x");
	/* an unknown code page warns and falls back to Windows-1252 */
	CHECK_TEXT("{\\rtf1\\ansi\\ansicpg77777 \\'e9}", "\xC3\xA9");
	/* raw 8-bit bytes, though the spec says 7-bit */
	CHECK_TEXT("{\\rtf1\\ansi\\ansicpg1251 \xcf\xf0}", "\xD0\x9F\xD1\x80");
}

static void test_skipped_destinations(void)
{
	CHECK_TEXT("{\\rtf1\\ansi{\\fonttbl{\\f0\\froman Times;}}{\\colortbl;\\red0\\green0\\blue0;}"
		   "{\\stylesheet{\\s0 Normal;}}{\\*\\generator Writer;}"
		   "{\\header head}{\\footer foot}{\\footerl fl}{\\headerr hr}"
		   "{\\*\\unknowndest ignored {nested \\} text}}Body}", "Body");
	/* pictures and objects: hex data passed over */
	CHECK_TEXT("{\\rtf1 a{\\pict\\pngblip\\picw10 89504e470d0a1a0a7b7d}b"
		   "{\\object\\objemb{\\*\\objdata 0102}{\\result res}}c"
		   "{\\*\\shppict{\\pict 00}}{\\nonshppict{\\pict 00}}d}", "abcd");
	/* fields: the result is text, the instruction is not */
	CHECK_TEXT("{\\rtf1 see {\\field{\\*\\fldinst HYPERLINK \"http://x\"}"
		   "{\\fldrslt {\\ul the link}}} now}", "see the link now");
	/* \bin: raw bytes, braces and backslashes included, never text */
	CHECK_TEXT("{\\rtf1 a{\\pict\\bin6 }}{\\\\b}c}", "ac");
	CHECK_TEXT("{\\rtf1 a\\bin4 {{{{b}", "ab");
	/* index and TOC entries, bookmarks, annotations */
	CHECK_TEXT("{\\rtf1 x{\\xe entry}{\\tc toc}{\\*\\bkmkstart b}"
		   "{\\*\\annotation note}y}", "xy");
}

static void test_footnotes_and_chunks(void)
{
	struct extract_doc d;

	CHECK_TEXT("{\\rtf1 One{\\super\\chftn}{\\footnote\\pard{\\super\\chftn} A note.} two."
		   "\\par Three{\\footnote Second note.}.}",
		   "One two.\n\nThree.\n\nA note.\n\nSecond note.");
	REQUIRE(rtf("{\\rtf1 Chapter one.\\page Chapter two.\\sect\\sect {\\page}"
		    "Chapter three.}", &d) == 0);
	CHECK_EQ_STR(d.text.buf, "Chapter one.\n\nChapter two.\n\nChapter three.");
	REQUIRE(d.nchunks == 3);
	CHECK_EQ_INT(d.chunk_off[0], 0);
	CHECK_EQ_INT(d.chunk_off[1], 14);
	CHECK_EQ_INT(d.chunk_off[2], 28);
	extract_doc_release(&d);
	/* no breaks: no chunks (like plain text); a leading \page: no empty chunk */
	REQUIRE(rtf("{\\rtf1 one}", &d) == 0);
	CHECK_EQ_INT(d.nchunks, 0);
	extract_doc_release(&d);
	REQUIRE(rtf("{\\rtf1\\page one}", &d) == 0);
	CHECK_EQ_INT(d.nchunks, 1);
	extract_doc_release(&d);
}

static void test_metadata(void)
{
	struct extract_doc d;

	REQUIRE(rtf("{\\rtf1\\ansi\\deflang1031{\\info{\\title Die \\'c4pfel}{\\author Anna B\\'e4r}"
		    "{\\operator Op}{\\*\\company Co}{\\subject Sub}{\\creatim\\yr2020\\mo1}"
		    "{\\upr{\\keywords k}{\\*\\ud{\\keywords k}}}}Text}", &d) == 0);
	CHECK_EQ_STR(d.text.buf, "Text");
	CHECK_EQ_STR(d.title, "Die \xC3\x84pfel");
	REQUIRE(d.creators.n == 1);
	CHECK_EQ_STR(d.creators.v[0], "Anna B\xC3\xA4r");
	CHECK_EQ_STR(d.language, "de");
	CHECK_EQ_INT(d.format, EXTRACT_FMT_RTF);
	extract_doc_release(&d);
	/* \title outside \info is not the title; \upr'd fields are read once */
	REQUIRE(rtf("{\\rtf1{\\title Not}{\\info{\\upr{\\title A}{\\*\\ud{\\title U\\u1046?}}}}x}",
		    &d) == 0);
	CHECK_EQ_STR(d.text.buf, "x");
	CHECK_EQ_STR(d.title, "U\xD0\x96");
	extract_doc_release(&d);
}

static void test_refused(void)
{
	const char *nested = "{\\rtf1 {{{x}}}}";

	CHECK_EQ_INT(code_of("hello", 5, NULL), -EBADMSG);	/* named .rtf */
	CHECK_EQ_INT(code_of("{\\rtf1 open", 11, NULL), -EBADMSG);
	CHECK_EQ_INT(code_of("{\\rtf1 {open}", 13, NULL), -EBADMSG);
	CHECK_EQ_INT(code_of("{\\rtf1 x}}", 10, NULL), -EBADMSG);
	CHECK_EQ_INT(code_of("{\\rtf1 x\\", 9, NULL), -EBADMSG);
	CHECK_EQ_INT(code_of("{\\rtf1 x\\'4", 11, NULL), -EBADMSG);
	CHECK_EQ_INT(code_of("{\\rtf1 x\\'zz}", 13, NULL), -EBADMSG);
	CHECK_EQ_INT(code_of("{\\rtf1 x\\bin100 ab}", 19, NULL), -EBADMSG);
	CHECK_EQ_INT(code_of("{\\rtf1 x{\\pict 0a", 17, NULL), -EBADMSG);
	CHECK_EQ_INT(code_of("{\\rtf1 x{\\pict\\bin-5 0a}}", 25, NULL), -EBADMSG);
	CHECK_EQ_INT(code_of(nested, strlen(nested), NULL), 0);
	/* trailing padding is fine, trailing text a warning */
	CHECK_EQ_INT(code_of("{\\rtf1 x}\r\n\0\0", 13, NULL), 0);
	CHECK_EQ_INT(code_of("{\\rtf1 x} junk", 14, NULL), 0);
}

static char *repeat(const char *head, const char *unit, size_t n, const char *tail, size_t *len)
{
	size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail), i;
	char *s = malloc(hl + ul * n + tl + 1), *p = s;

	memcpy(p, head, hl);
	p += hl;
	for (i = 0; i < n; i++, p += ul)
		memcpy(p, unit, ul);
	memcpy(p, tail, tl + 1);
	*len = hl + ul * n + tl;
	return s;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_limits(void)
{
	struct extract_limits lim;
	struct extract_doc d;
	size_t len;
	char *s;
	double t0;

	extract_limits_default(&lim);
	/* 100000 open groups, in the body and inside a skipped destination */
	s = repeat("{\\rtf1 ", "{", 100000, "x", &len);
	CHECK_EQ_INT(code_of(s, len, NULL), -EFBIG);
	free(s);
	s = repeat("{\\rtf1 {\\pict ", "{", 100000, "", &len);
	CHECK_EQ_INT(code_of(s, len, NULL), -EFBIG);
	free(s);
	lim.max_depth = 4;
	CHECK_EQ_INT(code_of("{\\rtf1{{{x}}}}", 14, &lim), 0);
	CHECK_EQ_INT(code_of("{\\rtf1{{{{x}}}}}", 16, &lim), -EFBIG);
	extract_limits_default(&lim);
	/* output size */
	lim.max_text_bytes = 1000;
	s = repeat("{\\rtf1 ", "word ", 1000, "}", &len);
	CHECK_EQ_INT(code_of(s, len, &lim), -EFBIG);
	free(s);
	s = repeat("{\\rtf1 ", "\\u1046?", 1000, "}", &len);
	CHECK_EQ_INT(code_of(s, len, &lim), -EFBIG);
	free(s);
	extract_limits_default(&lim);
	/* time: a zero budget is over at the first check */
	lim.max_millis = 0;
	s = repeat("{\\rtf1 ", "{\\b x}", 100000, "}", &len);
	CHECK_EQ_INT(code_of(s, len, &lim), -ETIMEDOUT);
	free(s);
	/* a 32 MB picture costs one quick scan and yields no text */
	s = repeat("{\\rtf1 before{\\pict\\pngblip ", "0123456789abcdef", 2u << 20, "}after}",
		   &len);
	t0 = now_s();
	REQUIRE(rtf_n(s, len, NULL, &d) == 0);
	CHECK(now_s() - t0 < 2.0);
	CHECK_EQ_STR(d.text.buf, "beforeafter");
	extract_doc_release(&d);
	free(s);
}

/* The calibre RTF of The War of the Worlds against its source EPUB, through
 * the comparison `simbook compare` makes. */
static void test_real_book(void)
{
	const char *dir = getenv("SIMBOOK_BOOKS");
	char a[4096], b[4096];
	struct book *x = NULL, *y = NULL;
	struct book_cmp c;
	struct extract_doc d;
	struct sbuf err;
	FILE *f;

	if (!dir)
		SKIP("SIMBOOK_BOOKS not set");
	snprintf(a, sizeof(a), "%s/formats/wotw.rtf", dir);
	snprintf(b, sizeof(b), "%s/epub/pg36-war-of-the-worlds.epub", dir);
	f = fopen(a, "rb");
	if (!f)
		SKIP("no formats/wotw.rtf in $SIMBOOK_BOOKS");
	fclose(f);
	sbuf_init(&err);
	extract_doc_init(&d);
	REQUIRE(extract_file(a, NULL, &d, &err) == 0);
	CHECK_EQ_INT(d.format, EXTRACT_FMT_RTF);
	CHECK_EQ_STR(d.title, "The War of the Worlds");
	CHECK(d.creators.n == 1 && !strcmp(d.creators.v[0], "H. G. Wells"));
	CHECK(d.nchunks >= 2);
	CHECK(strstr(d.text.buf, "No one would have believed in the last years") != NULL);
	CHECK(strstr(d.text.buf, "\\") == NULL && strstr(d.text.buf, "{") == NULL);
	extract_doc_release(&d);
	REQUIRE(book_load(a, NULL, &x, &err) == 0);
	REQUIRE(book_load(b, NULL, &y, &err) == 0);
	REQUIRE(book_compare(x, y, NULL, &c) == 0);
	fprintf(stderr, "  wotw.rtf vs EPUB: %s, %u vs %u words\n", relate_class_name(c.rel.cls),
		c.scores.a_nwords, c.scores.b_nwords);
	CHECK(c.rel.cls == RELATE_SAME_TEXT || c.rel.cls == RELATE_NEAR_DUPLICATE);
	book_free(x);
	book_free(y);
	sbuf_release(&err);
}

int main(void)
{
	RUN(test_sniff);
	RUN(test_text_and_breaks);
	RUN(test_escapes);
	RUN(test_unicode);
	RUN(test_codepages);
	RUN(test_skipped_destinations);
	RUN(test_footnotes_and_chunks);
	RUN(test_metadata);
	RUN(test_refused);
	RUN(test_limits);
	RUN(test_real_book);
	return CHECK_DONE();
}
