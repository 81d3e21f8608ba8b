/* Unit tests for the mutation and synthetic-book generator. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <zip.h>

#include "check.h"
#include "mutate.h"

static int count_char(const char *s, size_t len, char c)
{
	int n = 0;
	size_t i;

	for (i = 0; i < len; i++)
		n += s[i] == c;
	return n;
}

static void test_rng_golden(void)
{
	struct mut_rng r;
	uint64_t a, b;
	int i, hist[10] = { 0 };

	/* xoshiro256** seeded with splitmix64(0): fixed values everywhere. */
	mut_rng_seed(&r, 0);
	CHECK(r.s[0] == UINT64_C(0xe220a8397b1dcdaf));
	a = mut_rng_next(&r);
	b = mut_rng_next(&r);
	CHECK(a != b);
	mut_rng_seed(&r, 0);
	CHECK(mut_rng_next(&r) == a);
	CHECK(mut_rng_next(&r) == b);
	for (i = 0; i < 100000; i++)
		hist[mut_rng_below(&r, 10)]++;
	for (i = 0; i < 10; i++)
		CHECK(hist[i] > 9500 && hist[i] < 10500);
	CHECK_EQ_INT(mut_rng_below(&r, 0), 0);
	for (i = 0; i < 1000; i++) {
		double u = mut_rng_unit(&r);

		CHECK(u >= 0.0 && u < 1.0);
	}
}

static void test_synth_deterministic(void)
{
	struct sbuf a, b, c, d;

	sbuf_init(&a);
	sbuf_init(&b);
	sbuf_init(&c);
	sbuf_init(&d);
	REQUIRE(mut_synth(1, 7, 5000, &a) == 0);
	REQUIRE(mut_synth(1, 7, 5000, &b) == 0);
	REQUIRE(mut_synth(1, 8, 5000, &c) == 0);
	REQUIRE(mut_synth(2, 7, 5000, &d) == 0);
	CHECK(a.len == b.len && memcmp(a.buf, b.buf, a.len) == 0);
	CHECK(a.len != c.len || memcmp(a.buf, c.buf, a.len) != 0);
	CHECK(a.len != d.len || memcmp(a.buf, d.buf, a.len) != 0);
	/* about 5000 words, so about 5000 separators (spaces or line breaks) */
	CHECK(count_char(a.buf, a.len, ' ') + count_char(a.buf, a.len, '\n') > 4000);
	CHECK(count_char(a.buf, a.len, ' ') + count_char(a.buf, a.len, '\n') < 7000);
	CHECK(count_char(a.buf, a.len, '.') > 100);
	CHECK(strstr(a.buf, "\n\n") != NULL);
	sbuf_release(&a);
	sbuf_release(&b);
	sbuf_release(&c);
	sbuf_release(&d);
}

static void test_ocr_rate(void)
{
	static const double rates[] = { 0.0, 0.01, 0.05, 0.10 };
	struct mut_ocr_stats st;
	struct mut_rng r;
	struct sbuf book, out, again;
	size_t i, edits;

	sbuf_init(&book);
	sbuf_init(&out);
	sbuf_init(&again);
	REQUIRE(mut_synth(3, 3, 30000, &book) == 0);
	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		sbuf_setlen(&out, 0);
		sbuf_setlen(&again, 0);
		mut_rng_seed(&r, 42 + i);
		REQUIRE(mut_ocr(&r, book.buf, book.len, rates[i], &out, &st) == 0);
		mut_rng_seed(&r, 42 + i);
		REQUIRE(mut_ocr(&r, book.buf, book.len, rates[i], &again, NULL) == 0);
		CHECK(out.len == again.len && memcmp(out.buf, again.buf, out.len) == 0);
		CHECK_EQ_INT(st.chars, book.len);	/* ASCII: one char per byte */
		edits = st.space_ins + st.insert + st.subst + st.merge + st.del;
		/* The error count is binomial; 10% relative is many sigmas here. */
		CHECK((double)edits >= rates[i] * (double)st.chars * 0.9 - 1);
		CHECK((double)edits <= rates[i] * (double)st.chars * 1.1 + 1);
		if (rates[i] == 0.0)
			CHECK(out.len == book.len && memcmp(out.buf, book.buf, book.len) == 0);
		else
			CHECK(st.space_ins > st.insert && st.space_ins > st.subst &&
			      st.space_ins > st.merge && st.merge > 0 && st.del > 0);
	}
	sbuf_release(&book);
	sbuf_release(&out);
	sbuf_release(&again);
}

static void test_ocr_utf8_and_merges(void)
{
	const char *in = "caf\xc3\xa9 na\xc3\xafve \xe2\x80\x94 modern clay\r\n";
	struct mut_ocr_stats st;
	struct mut_rng r;
	struct sbuf out;
	size_t i, j;

	sbuf_init(&out);
	/* At rate 1 every character is hit: the output must stay UTF-8 and the
	 * multi-byte characters must survive whole. */
	for (i = 0; i < 50; i++) {
		sbuf_setlen(&out, 0);
		mut_rng_seed(&r, i);
		REQUIRE(mut_ocr(&r, in, strlen(in), 1.0, &out, &st) == 0);
		CHECK(strstr(out.buf, "\xc3\xa9") && strstr(out.buf, "\xc3\xaf") &&
		      strstr(out.buf, "\xe2\x80\x94"));
		CHECK_EQ_INT(st.chars, strlen(in) - 4);
		for (j = 0; j < out.len; j++)
			CHECK((unsigned char)out.buf[j] < 0x80 || strchr("\xc3\xa9\xaf\xe2\x80\x94", out.buf[j]));
	}
	CHECK_EQ_INT(mut_ocr(&r, in, 3, 1.5, &out, NULL), -EINVAL);
	sbuf_release(&out);
}

static void test_sentences(void)
{
	struct mut_rng r;
	struct sbuf a, d, out;
	size_t rem = 0, add = 0;

	sbuf_init(&a);
	sbuf_init(&d);
	sbuf_init(&out);
	REQUIRE(mut_synth(1, 1, 20000, &a) == 0);
	REQUIRE(mut_synth(2, 2, 20000, &d) == 0);
	mut_rng_seed(&r, 5);
	REQUIRE(mut_sentences(&r, a.buf, a.len, d.buf, d.len, 0.1, &out, &rem, &add) == 0);
	CHECK(rem > 50);
	CHECK(add > 50);
	/* length kept within a few sentences */
	CHECK(out.len > a.len - 600 && out.len < a.len + 600);
	/* rate 0 copies */
	sbuf_setlen(&out, 0);
	REQUIRE(mut_sentences(&r, a.buf, a.len, d.buf, d.len, 0.0, &out, &rem, &add) == 0);
	CHECK(out.len == a.len && memcmp(out.buf, a.buf, a.len) == 0);
	CHECK_EQ_INT(rem, 0);
	/* quotes and blank lines end sentences */
	sbuf_setlen(&out, 0);
	REQUIRE(mut_sentences(&r, "He said \"no.\" Then\n\nwent.", 25, "X. ", 3, 1.0, &out, &rem, &add) == 0);
	CHECK_EQ_INT(rem, 3);
	sbuf_release(&a);
	sbuf_release(&d);
	sbuf_release(&out);
}

static void test_replace_and_slice(void)
{
	struct mut_rng r;
	struct sbuf a, d, out;
	size_t rep = 0;
	const char *joinp[3];
	size_t joinl[3];

	sbuf_init(&a);
	sbuf_init(&d);
	sbuf_init(&out);
	REQUIRE(mut_synth(1, 1, 20000, &a) == 0);
	REQUIRE(mut_synth(2, 2, 20000, &d) == 0);
	mut_rng_seed(&r, 9);
	REQUIRE(mut_replace(&r, a.buf, a.len, d.buf, d.len, 0.4, &out, &rep) == 0);
	CHECK(rep >= a.len * 4 / 10 && rep < a.len * 4 / 10 + 64);
	CHECK(out.len > a.len - 200 && out.len < a.len + 200);
	CHECK_EQ_INT(mut_replace(&r, a.buf, a.len, d.buf, d.len, 1.0, &out, NULL), -EINVAL);
	sbuf_setlen(&out, 0);
	REQUIRE(mut_slice(a.buf, a.len, 0.0, 0.3, &out) == 0);
	CHECK(out.len > a.len / 4 && out.len < a.len * 35 / 100);
	CHECK(memcmp(out.buf, a.buf, out.len) == 0);
	CHECK(out.len >= 2 && out.buf[out.len - 1] == '\n');	/* cut at a paragraph */
	joinp[0] = d.buf;
	joinl[0] = d.len;
	joinp[1] = out.buf;
	joinl[1] = out.len;
	joinp[2] = a.buf;
	joinl[2] = a.len;
	sbuf_setlen(&d, 0);
	REQUIRE(mut_join(joinp + 1, joinl + 1, 2, &d) == 0);
	CHECK_EQ_INT(d.len, out.len + a.len + 4);
	sbuf_release(&a);
	sbuf_release(&d);
	sbuf_release(&out);
}

static void test_html(void)
{
	struct sbuf out;

	sbuf_init(&out);
	REQUIRE(mut_html("A & B", "one <two>\nthree\n\n\nfour & five\n", 30, &out) == 0);
	CHECK(strstr(out.buf, "<title>A &amp; B</title>") != NULL);
	CHECK(strstr(out.buf, "<p>one &lt;two&gt;\nthree\n\n\n</p>") != NULL);
	CHECK(strstr(out.buf, "<p>four &amp; five\n</p>") != NULL);
	sbuf_release(&out);
}

static void test_epub(void)
{
	const char *dir = check_tmpdir();
	char path[PATH_MAX];
	struct sbuf a;
	zip_t *za;
	zip_stat_t zs;
	int err;

	sbuf_init(&a);
	REQUIRE(mut_synth(1, 1, 3000, &a) == 0);
	REQUIRE(dir);
	snprintf(path, sizeof(path), "%s/a.epub", dir);
	REQUIRE(mut_epub_write(path, "T", a.buf, a.len, 3) == 0);
	za = zip_open(path, ZIP_RDONLY, &err);
	REQUIRE(za);
	CHECK_EQ_STR(zip_get_name(za, 0, 0), "mimetype");
	CHECK(zip_stat_index(za, 0, 0, &zs) == 0 && zs.comp_method == ZIP_CM_STORE);
	CHECK(zip_name_locate(za, "OEBPS/ch003.xhtml", 0) >= 0);
	CHECK(zip_name_locate(za, "OEBPS/ch004.xhtml", 0) < 0);
	CHECK(zip_name_locate(za, "META-INF/container.xml", 0) >= 0);
	zip_close(za);
	CHECK_EQ_INT(mut_epub_write(path, "T", a.buf, a.len, 0), -EINVAL);
	sbuf_release(&a);
}

static void test_reword(void)
{
	static const char in[] = "Achilles sang of the wrath in 1184 BC, and the wrath "
				 "of the \xc3\xa9lan grew.\nHector heard it.";
	struct sbuf a, b;
	struct mut_rng r;

	sbuf_init(&a);
	sbuf_init(&b);
	mut_rng_seed(&r, 5);
	REQUIRE(mut_reword(&r, in, sizeof(in) - 1, 0.0, 1, 1, &a) == 0);
	CHECK_EQ_STR(a.buf, in);
	/* every other word replaced; names, numbers, punctuation kept */
	sbuf_setlen(&a, 0);
	REQUIRE(mut_reword(&r, in, sizeof(in) - 1, 1.0, 1, 1, &a) == 0);
	CHECK(strncmp(a.buf, "Achilles ", 9) == 0);
	CHECK(strstr(a.buf, " 1184 BC, ") != NULL);
	CHECK(strstr(a.buf, ".\nHector ") != NULL);
	CHECK(strstr(a.buf, "wrath") == NULL && strstr(a.buf, " the ") == NULL);
	CHECK(strstr(a.buf, "\xc3") == NULL);
	CHECK_EQ_INT(count_char(a.buf, a.len, ' '), count_char(in, sizeof(in) - 1, ' '));
	/* one variant at rate 1: a word is translated the same way each time,
	 * whatever the generator's state; another language, other words */
	mut_rng_seed(&r, 9);
	REQUIRE(mut_reword(&r, in, sizeof(in) - 1, 1.0, 1, 1, &b) == 0);
	CHECK_EQ_STR(a.buf, b.buf);
	sbuf_setlen(&b, 0);
	REQUIRE(mut_reword(&r, in, sizeof(in) - 1, 1.0, 2, 1, &b) == 0);
	CHECK(strcmp(a.buf, b.buf) != 0);
	CHECK_EQ_INT(mut_reword(&r, in, 4, 1.5, 1, 1, &b), -EINVAL);
	CHECK_EQ_INT(mut_reword(&r, in, 4, 0.5, 1, 0, &b), -EINVAL);
	sbuf_release(&a);
	sbuf_release(&b);
}

/* mut_parts(): "a0 a1 ..." with donor "d0 d1 ...": replaced, about frac
 * of the words are donor words and the kept ones stay in order; inserted,
 * every word of the input stays, in order, and the donor makes about frac
 * of the result; bad arguments refused. */
static void test_parts(void)
{
	struct mut_parts_spec sp = { 0.4, 5, 0.0, 0 };
	struct sbuf in, dn, out;
	struct mut_rng r;
	size_t other = 0, k, d = 0, last = 0, kept = 0;
	int ok = 1, n;
	const char *p;

	sbuf_init(&in);
	sbuf_init(&dn);
	sbuf_init(&out);
	for (k = 0; k < 1000; k++) {
		sbuf_addf(&in, "a%04zu ", k);
		sbuf_addf(&dn, "d%04zu ", k);
	}
	mut_rng_seed(&r, 5);
	for (sp.insert = 0; sp.insert < 2; sp.insert++) {
		sbuf_setlen(&out, 0);
		REQUIRE(mut_parts(&r, in.buf, in.len, dn.buf, dn.len, &sp, &out, &other) == 0);
		d = kept = last = 0;
		ok = 1;
		for (p = out.buf; *p; p++) {
			if ((*p != 'a' && *p != 'd') || (p > out.buf && p[-1] != ' '))
				continue;
			if (*p == 'd') {
				d++;
				continue;
			}
			n = atoi(p + 1);
			ok &= kept == 0 || (size_t)n > last;
			last = (size_t)n;
			kept++;
		}
		CHECK(ok);
		CHECK(d > 0 && (double)d / (double)(d + kept) > 0.35 &&
		      (double)d / (double)(d + kept) < 0.45);
		CHECK(other > 0);
		if (sp.insert)
			CHECK_EQ_INT(kept, 1000);
		else
			CHECK(kept > 550 && kept < 650);
	}
	sp.frac = 1.0;
	CHECK(mut_parts(&r, in.buf, in.len, dn.buf, dn.len, &sp, &out, NULL) == -EINVAL);
	sp.frac = 0.4;
	sp.nparts = 0;
	CHECK(mut_parts(&r, in.buf, in.len, dn.buf, dn.len, &sp, &out, NULL) == -EINVAL);
	sbuf_release(&in);
	sbuf_release(&dn);
	sbuf_release(&out);
}

/* mut_nouns(): share 0 keeps the text; share 1 writes every lower-case
 * word (six here) as a noun after an article, and keeps capitalised words,
 * numbers and punctuation. */
static void test_nouns(void)
{
	static const char in[] = "Achilles sang of the wrath in 1184 BC.\nHector heard.";
	struct sbuf a;
	struct mut_rng r;

	sbuf_init(&a);
	mut_rng_seed(&r, 3);
	REQUIRE(mut_nouns(&r, in, sizeof(in) - 1, 0.0, &a) == 0);
	CHECK_EQ_STR(a.buf, in);
	sbuf_setlen(&a, 0);
	REQUIRE(mut_nouns(&r, in, sizeof(in) - 1, 1.0, &a) == 0);
	CHECK(strncmp(a.buf, "Achilles ", 9) == 0);
	CHECK(strstr(a.buf, " Sang ") != NULL && strstr(a.buf, " Wrath ") != NULL);
	CHECK(strstr(a.buf, " sang") == NULL && strstr(a.buf, " the ") == NULL);
	CHECK(strstr(a.buf, " 1184 BC.\nHector ") != NULL);
	CHECK_EQ_INT(count_char(a.buf, a.len, ' '), count_char(in, sizeof(in) - 1, ' ') + 6);
	CHECK_EQ_INT(mut_nouns(&r, in, 4, 1.5, &a), -EINVAL);
	sbuf_release(&a);
}

int main(void)
{
	RUN(test_rng_golden);
	RUN(test_synth_deterministic);
	RUN(test_ocr_rate);
	RUN(test_ocr_utf8_and_merges);
	RUN(test_sentences);
	RUN(test_replace_and_slice);
	RUN(test_html);
	RUN(test_epub);
	RUN(test_reword);
	RUN(test_nouns);
	RUN(test_parts);
	return CHECK_DONE();
}
