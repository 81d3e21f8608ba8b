/* test_norm.c - golden tests of the normalisation contract (norm.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "norm.h"
#include "sbuf.h"

/* Normalises s and compares with want. */
static int norm_is(const char *s, size_t len, const char *want)
{
	struct norm_doc d;
	int ok;

	norm_doc_init(&d);
	if (norm_run(s, len, NULL, 0, &d))
		return 0;
	ok = d.len == strlen(want) && !memcmp(d.text, want, d.len);
	if (!ok)
		fprintf(stderr, "  got \"%s\" want \"%s\"\n", d.text, want);
	norm_doc_release(&d);
	return ok;
}

#define NORM_IS(s, want) CHECK(norm_is((s), sizeof(s) - 1, (want)))

static void test_ascii(void)
{
	NORM_IS("", "");
	NORM_IS("   \n\t ", "");
	NORM_IS("Hello, World!", "hello world");
	NORM_IS("  (Nice) Day !  ", "nice day");
	NORM_IS("page 42 of 3x", "page of x");
	NORM_IS("a1b", "a b");
	NORM_IS("CamelCase_words", "camelcase words");
}

static void test_joiners(void)
{
	NORM_IS("don't", "dont");
	NORM_IS("don\xE2\x80\x99t", "dont");			/* U+2019 */
	NORM_IS("to-day", "today");
	NORM_IS("to-\nday", "today");
	NORM_IS("to-\r\n   day", "today");
	NORM_IS("to\xE2\x80\x90" "day", "today");		/* U+2010 */
	NORM_IS("well- known", "well known");
	NORM_IS("a--b", "a b");
	NORM_IS("word--\nnext", "word next");
	NORM_IS("'quoted' words'", "quoted words");
	NORM_IS("students' books", "students books");
	NORM_IS("-dash- x", "dash x");
	NORM_IS("rock \xE2\x80\x99n\xE2\x80\x99 roll", "rock n roll");
	NORM_IS("soft\xC2\xAD" "hyphen", "softhyphen");	/* U+00AD */
	NORM_IS("zero\xE2\x80\x8Bwidth", "zerowidth");	/* U+200B (Cf) */
}

static void test_unicode(void)
{
	NORM_IS("Stra\xC3\x9F" "e", "strasse");			/* ß folds to ss */
	NORM_IS("\xEF\xAC\x81ne", "fine");			/* ﬁ ligature */
	NORM_IS("\xEF\xBC\xA6\xEF\xBD\x95\xEF\xBD\x8C\xEF\xBD\x8C", "full");	/* fullwidth */
	NORM_IS("e\xCC\x81t\xC3\xA9", "\xC3\xA9t\xC3\xA9");	/* e + U+0301 composes */
	NORM_IS("\xC3\x89T\xC3\x89", "\xC3\xA9t\xC3\xA9");	/* ÉTÉ */
	NORM_IS("\xCE\xA3\xCE\x8A\xCE\xA3\xCE\xA5\xCE\xA6\xCE\x9F\xCE\xA3",
		"\xCF\x83\xCE\xAF\xCF\x83\xCF\x85\xCF\x86\xCE\xBF\xCF\x83");	/* ΣΊΣΥΦΟΣ */
	NORM_IS("\xD0\x9C\xD0\xBE\xD1\x81\xD0\xBA\xD0\xB2\xD0\xB0!",
		"\xD0\xBC\xD0\xBE\xD1\x81\xD0\xBA\xD0\xB2\xD0\xB0");	/* Москва */
	NORM_IS("caf\xC3\xA9\xE2\x80\x94" "bar", "caf\xC3\xA9 bar");	/* em dash separates */
	NORM_IS("\xC2\xA0nbsp\xC2\xA0" "x", "nbsp x");
	NORM_IS("x\xE2\x84\x96" "5", "xno");			/* № is NFKC "No" */
	NORM_IS("=\xCC\xB8" "a", "a");				/* = + U+0338 composes to a symbol */
	NORM_IS("\xE2\x91\xA0" "a", "a");			/* circled digit 1 */
}

static void test_cjk(void)
{
	/* 日本語のテキスト: each character its own word */
	NORM_IS("\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E\xE3\x81\xAE\xE3\x83\x86\xE3\x82\xAD\xE3\x82\xB9\xE3\x83\x88",
		"\xE6\x97\xA5 \xE6\x9C\xAC \xE8\xAA\x9E \xE3\x81\xAE \xE3\x83\x86 \xE3\x82\xAD \xE3\x82\xB9 \xE3\x83\x88");
	/* 中文，English mixed */
	NORM_IS("\xE4\xB8\xAD\xE6\x96\x87\xEF\xBC\x8C" "English",
		"\xE4\xB8\xAD \xE6\x96\x87 english");
	/* Thai: consonant + vowel sign (Mn) stays together: กิน -> "กิ น" */
	NORM_IS("\xE0\xB8\x81\xE0\xB8\xB4\xE0\xB8\x99", "\xE0\xB8\x81\xE0\xB8\xB4 \xE0\xB8\x99");
	/* half-width katakana become full width per NFKC: ｶ -> カ */
	NORM_IS("\xEF\xBD\xB6", "\xE3\x82\xAB");
}

static void test_invalid(void)
{
	NORM_IS("ab\xFF" "cd", "ab cd");
	NORM_IS("ab\xC3", "ab");
	NORM_IS("\xED\xA0\x80x", "x");		/* encoded surrogate */
	NORM_IS("\xC0\xAFq", "q");		/* overlong */
	NORM_IS("a\0b", "a b");
}

static void test_offsets_and_chunks(void)
{
	const char *s = "One two\n\nthree four\n\nfive";
	size_t off[3] = { 0, 9, 21 };
	struct norm_doc d;

	norm_doc_init(&d);
	REQUIRE(norm_run(s, strlen(s), off, 3, &d) == 0);
	CHECK_EQ_STR(d.text, "one two three four five");
	CHECK_EQ_INT(d.nwords, 5);
	CHECK_EQ_INT(d.word_off[0], 0);
	CHECK_EQ_INT(d.word_off[2], 8);
	CHECK_EQ_INT(d.word_off[4], 19);
	REQUIRE(d.nchunks == 3);
	CHECK_EQ_INT(d.chunk_word[0], 0);
	CHECK_EQ_INT(d.chunk_word[1], 2);
	CHECK_EQ_INT(d.chunk_word[2], 4);
	norm_doc_release(&d);

	/* non-ASCII at chunk edges still maps exactly, after any white space */
	s = "\xC3\xA9t\xC3\xA9\n\n\xC3\xA9t\xC3\xA9 x\n\xC3\xA9";
	off[0] = 0, off[1] = 7, off[2] = 15;
	REQUIRE(norm_run(s, strlen(s), off, 3, &d) == 0);
	CHECK_EQ_INT(d.nwords, 4);
	CHECK_EQ_INT(d.chunk_word[1], 1);
	CHECK_EQ_INT(d.chunk_word[2], 3);
	norm_doc_release(&d);

	/* empty trailing chunk, chunk offsets at len */
	s = "a b";
	off[0] = 0, off[1] = 3, off[2] = 3;
	REQUIRE(norm_run(s, 3, off, 3, &d) == 0);
	CHECK_EQ_INT(d.chunk_word[1], 2);
	CHECK_EQ_INT(d.chunk_word[2], 2);
	norm_doc_release(&d);

	/* offsets must be ascending and inside the text */
	off[0] = 2, off[1] = 1;
	CHECK_EQ_INT(norm_run(s, 3, off, 2, &d), -EINVAL);
	off[0] = 0, off[1] = 4;
	CHECK_EQ_INT(norm_run(s, 3, off, 2, &d), -EINVAL);
	CHECK(d.text == NULL && d.nwords == 0);
}

/* Normalising a text whole equals normalising its "\n\n"-separated parts
 * and joining them: the ASCII fast path and the utf8proc path agree at every
 * boundary, whatever the mix. */
static void test_split_invariance(void)
{
	static const char *const pieces[] = {
		"The", "caf\xC3\xA9", "don't", "\xC3\x89T\xC3\x89", "x-\ny", "\xE6\x97\xA5\xE6\x9C\xAC",
		"na\xC3\xAFve", "A", "e\xCC\x81", ",", "42", "Stra\xC3\x9F" "e", "\xEF\xAC\x81",
		"\xE2\x80\x94", "co-op", " ", "\r\n",
	};
	struct sbuf whole, joined;
	uint32_t seed = 12345;
	int round;

	sbuf_init(&whole);
	sbuf_init(&joined);
	for (round = 0; round < 200; round++) {
		struct norm_doc dw, dp;
		size_t i, n = 1 + round % 40, start = 0;
		int ok = 1;

		sbuf_setlen(&whole, 0);
		sbuf_setlen(&joined, 0);
		for (i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			sbuf_addstr(&whole, pieces[(seed >> 16) % (sizeof(pieces) / sizeof(pieces[0]))]);
			seed = seed * 1103515245u + 12345u;
			sbuf_addstr(&whole, (seed >> 16) % 5 ? " " : "\n\n");
		}
		/* normalise each "\n\n" part separately */
		while (start <= whole.len) {
			const char *e = strstr(whole.buf + start, "\n\n");
			size_t end = e ? (size_t)(e - whole.buf) : whole.len;

			norm_doc_init(&dp);
			ok &= norm_run(whole.buf + start, end - start, NULL, 0, &dp) == 0;
			if (dp.len) {
				if (joined.len)
					sbuf_addch(&joined, ' ');
				sbuf_add(&joined, dp.text, dp.len);
			}
			norm_doc_release(&dp);
			start = end + 2;
		}
		norm_doc_init(&dw);
		ok &= norm_run(whole.buf, whole.len, NULL, 0, &dw) == 0;
		CHECK(ok && dw.len == joined.len && !memcmp(dw.text, joined.buf, dw.len));
		/* every word_off points just after a space (or at 0) */
		for (i = 0; i < dw.nwords; i++)
			CHECK(dw.word_off[i] == 0 || dw.text[dw.word_off[i] - 1] == ' ');
		norm_doc_release(&dw);
	}
	sbuf_release(&whole);
	sbuf_release(&joined);
}

/* Runs of non-ASCII text far longer than the internal run size. */
static void test_long_runs(void)
{
	struct sbuf in, want;
	struct norm_doc d;
	size_t i;

	sbuf_init(&in);
	sbuf_init(&want);
	for (i = 0; i < 30000; i++) {
		sbuf_addstr(&in, "\xC3\x89\xC3\xA9\xC3\xA9\xC2\xA0");	/* "Éé" + NBSP: no ASCII at all */
		sbuf_addstr(&want, i ? " \xC3\xA9\xC3\xA9\xC3\xA9" : "\xC3\xA9\xC3\xA9\xC3\xA9");
	}
	norm_doc_init(&d);
	REQUIRE(norm_run(in.buf, in.len, NULL, 0, &d) == 0);
	CHECK_EQ_INT(d.nwords, 30000);
	CHECK(d.len == want.len && !memcmp(d.text, want.buf, d.len));
	norm_doc_release(&d);

	sbuf_setlen(&in, 0);
	for (i = 0; i < 50000; i++)
		sbuf_addstr(&in, "\xE6\x97\xA5");	/* 日 x 50000 */
	REQUIRE(norm_run(in.buf, in.len, NULL, 0, &d) == 0);
	CHECK_EQ_INT(d.nwords, 50000);
	CHECK_EQ_INT(d.len, 50000 * 4 - 1);
	norm_doc_release(&d);

	/* a base letter followed by a very long run of combining marks */
	sbuf_setlen(&in, 0);
	sbuf_addch(&in, 'a');
	for (i = 0; i < 40000; i++)
		sbuf_addstr(&in, "\xCC\x81");
	REQUIRE(norm_run(in.buf, in.len, NULL, 0, &d) == 0);
	CHECK_EQ_INT(d.nwords, 1);
	norm_doc_release(&d);
	sbuf_release(&in);
	sbuf_release(&want);
}

static void test_gutenberg(void)
{
	const char *t = "The Project Gutenberg EBook of X\r\nlicence blah\r\n"
			"*** START OF THIS PROJECT GUTENBERG EBOOK X ***\r\n"
			"Body text.\r\n"
			"End of the Project Gutenberg EBook of X\r\n"
			"*** END OF THIS PROJECT GUTENBERG EBOOK X ***\r\nmore licence\r\n";
	const char *old = "header\n*END*THE SMALL PRINT! FOR PUBLIC DOMAIN ETEXTS*Ver.04.29.93*END*\n"
			  "Body.\n\n  The End of Project Gutenberg Etext of Y\n";
	size_t s, e;
	struct norm_doc d;

	CHECK_EQ_INT(norm_strip_gutenberg(t, strlen(t), &s, &e), NORM_PG_HEADER | NORM_PG_FOOTER);
	CHECK(e > s && !strncmp(t + s, "Body text.\r\n", e - s));
	CHECK_EQ_INT(norm_strip_gutenberg(old, strlen(old), &s, &e), NORM_PG_HEADER | NORM_PG_FOOTER);
	CHECK(!strncmp(old + s, "Body.\n\n", e - s) && e - s == 7);
	CHECK_EQ_INT(norm_strip_gutenberg("plain text\n", 11, &s, &e), 0);
	CHECK(s == 0 && e == 11);
	CHECK_EQ_INT(norm_strip_gutenberg("***START OF THE PROJECT GUTENBERG EBOOK", 39, &s, &e),
		     NORM_PG_HEADER);
	CHECK(s == 39 && e == 39);

	norm_doc_init(&d);
	REQUIRE(norm_book(t, strlen(t), NULL, 0, &d) == 0);
	CHECK_EQ_STR(d.text, "body text");
	norm_doc_release(&d);
	{
		size_t off[2] = { 0, (size_t)(strstr(t, "Body") - t) };

		REQUIRE(norm_book(t, strlen(t), off, 2, &d) == 0);
		CHECK(d.nchunks == 2 && d.chunk_word[0] == 0 && d.chunk_word[1] == 0);
		norm_doc_release(&d);
	}
}

int main(void)
{
	RUN(test_ascii);
	RUN(test_joiners);
	RUN(test_unicode);
	RUN(test_cjk);
	RUN(test_invalid);
	RUN(test_offsets_and_chunks);
	RUN(test_split_invariance);
	RUN(test_long_runs);
	RUN(test_gutenberg);
	return CHECK_DONE();
}
