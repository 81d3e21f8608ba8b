/* test_fpstable.c - everything the index stores per book stays bit for bit
 * what it was: the whole path book_load_buffer() -> bookrec_fp_make()
 * (extraction, normalisation, every fingerprint family, the record, the
 * min-hash bands, the pruning keys and anchors, simhash and text hash) over
 * deterministic synthetic books in several scripts and formats, and over
 * the real books when $SIMBOOK_BOOKS has them.
 *
 * The expected digests are constants recorded from the build of main at
 * 1e43aaa, before the speed work on these modules: users' indexes hold
 * values computed by that code, so "the same as that build" is the
 * contract (re-recorded for record version 2: the names bands of
 * bookrec.h joined the stored bands, the language the record; and for
 * version 3: the names bands of two key streams, names.h; and for
 * version 4: a text that capitalises its nouns keeps them out of the
 * names stream, nouns.h; and for version 5: the language of a CJK text
 * quoting much Latin text, lang.h) (a reference path computed in the test would share the very
 * helpers being sped up).  Both the AVX2 and the portable paths are
 * checked.  A failure here means stored values moved:
 * either a bug, or a deliberate change that needs a new FPREC_VERSION and
 * new constants.  On failure the digests are printed. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "book.h"
#include "bookrec.h"
#include "fpcore_i.h"
#include "textgen.h"

/* Digest of what the index stores for a book (every integer big-endian). */
static uint64_t stored_digest(const struct bookrec_fp *f)
{
	const uint8_t *rec = f->fp.rec;
	XXH3_state_t st;
	uint8_t be[8];
	uint32_t i;
	int k;

	XXH3_64bits_reset(&st);
	XXH3_64bits_update(&st, f->fp.simhash, sizeof(f->fp.simhash));
	XXH3_64bits_update(&st, f->fp.text_hash, sizeof(f->fp.text_hash));
	for (i = 0; i < f->fp.n_mh_bands; i++) {
		for (k = 0; k < 8; k++)
			be[k] = (uint8_t)(f->fp.mh_bands[i] >> (56 - 8 * k));
		XXH3_64bits_update(&st, be, 8);
	}
	for (i = 0; i < f->fp.n_uq_keys; i++) {
		for (k = 0; k < 4; k++)
			be[k] = (uint8_t)(f->fp.uq_keys[i] >> (24 - 8 * k));
		XXH3_64bits_update(&st, be, 4);
	}
	/* The constants were recorded with the book record's language at
	 * bytes 34-35 and a 36-byte header.  Version 2 (and 3) puts the metadata.opf
	 * lengths there and the language at 38-39 (bookrec.h); a record
	 * without metadata.opf metadata (these books have none) is digested
	 * in that earlier layout, so the constants hold every stored value. */
	if (BOOKREC_VERSION != 5 || BOOKREC_HEAD_LEN != 40 || f->fp.rec_len < BOOKREC_HEAD_LEN ||
	    memcmp(rec + 34, "\0\0\0\0", 4))
		return 0;	/* no digest: fails the comparison */
	for (k = 0; k < 4; k++)
		be[k] = (uint8_t)(f->fp.rec_version >> (24 - 8 * k));
	XXH3_64bits_update(&st, be, 4);
	XXH3_64bits_update(&st, rec, 34);
	XXH3_64bits_update(&st, rec + 38, 2);
	XXH3_64bits_update(&st, rec + BOOKREC_HEAD_LEN, f->fp.rec_len - BOOKREC_HEAD_LEN);
	return XXH3_64bits_digest(&st);
}

/* Loads a book from memory and digests what the index would store;
 * 0 when it is not a book. */
static uint64_t book_digest(const void *data, size_t len, const char *name)
{
	struct book *b = NULL;
	struct bookrec_fp f;
	uint64_t d = 0;

	if (book_load_buffer(data, len, name, NULL, &b, NULL) < 0)
		return 0;
	if (bookrec_fp_make(b, &f) == 0)
		d = stored_digest(&f);
	bookrec_fp_release(&f);
	book_free(b);
	return d;
}

/* Word pieces in several scripts, with characters that normalisation
 * folds (capitals, ligatures, full-width forms, combining accents,
 * compatibility digits), punctuation, and one invalid byte sequence. */
static const char *const pieces[] = {
	"the", "and", "of", "river", "Night", "WORLD", "caf\xc3\xa9", "Stra\xc3\x9f" "e",
	"na\xc3\xaf" "ve", "e\xcc\x81t\xc3\xa9", "\xef\xac\x81nal",		/* e + combining acute, fi ligature */
	"\xce\xbb\xcf\x8c\xce\xb3\xce\xbf\xcf\x82", "\xce\x9f\xce\xb4\xcf\x8d\xcf\x83\xcf\x83\xce\xb5\xce\xb9\xce\xb1",
	"\xd0\xbc\xd0\xb8\xd1\x80", "\xd0\x92\xd0\x9e\xd0\x99\xd0\x9d\xd0\x90",
	"\xe6\x9d\xb1\xe4\xba\xac", "\xe3\x81\xaf\xe3\x81\x98\xe3\x82\x81",	/* CJK, kana */
	"\xef\xbc\xa1\xef\xbd\x82\xef\xbd\x83",					/* full-width Abc */
	"\xe2\x91\xa0", "1984", "\xc2\xbd", "don't", "\xe2\x80\x9cquoted\xe2\x80\x9d",
	"well-known", "\xf0\x9f\x93\x9a", "\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d",	/* emoji, Hebrew */
	"\xd8\xb3\xd9\x84\xd8\xa7\xd9\x85", "\xe0\xa4\xb9\xe0\xa4\xbf\xe0\xa4\x82\xe0\xa4\xa6\xe0\xa5\x80",
	"I\xcc\x87stanbul", "\xe1\xba\x9e", "\xe2\x84\xab", "x\xff" "y",	/* invalid byte */
};
#define NPIECES (sizeof(pieces) / sizeof(pieces[0]))

/* A text of about words words: mixed-script words (one to three pieces
 * each) from a fixed vocabulary, with punctuation, line and paragraph
 * breaks (CRLF when crlf). */
static void mixed_text(struct sbuf *sb, uint32_t seed, unsigned words, int crlf)
{
	char vocab[600][64];
	unsigned i, k, n;

	for (i = 0; i < 600; i++) {
		vocab[i][0] = '\0';
		n = 1 + textgen_lcg(&seed) % 3;
		for (k = 0; k < n; k++)
			strcat(vocab[i], pieces[textgen_lcg(&seed) % NPIECES]);
	}
	for (i = 0; i < words; i++) {
		uint32_t r = textgen_lcg(&seed);

		sbuf_add(sb, vocab[r % 600], strlen(vocab[r % 600]));
		r >>= 10;
		if (r % 97 == 0)
			sbuf_add(sb, crlf ? "\r\n\r\n" : "\n\n", crlf ? 4 : 2);
		else if (r % 13 == 0)
			sbuf_add(sb, crlf ? ".\r\n" : ".\n", crlf ? 3 : 2);
		else if (r % 7 == 0)
			sbuf_add(sb, ", ", 2);
		else
			sbuf_add(sb, " ", 1);
	}
}

/* The same text wrapped in an HTML page, with entities and markup. */
static void html_text(struct sbuf *sb, uint32_t seed, unsigned words)
{
	struct sbuf body;
	size_t i;

	sbuf_init(&body);
	mixed_text(&body, seed, words, 0);
	sbuf_addstr(sb, "<!DOCTYPE html><html><head><title>Le Caf&eacute; &amp; the River</title>"
			"</head><body><h1>Chapter&nbsp;1</h1><p>");
	for (i = 0; i < body.len; i++) {
		if (body.buf[i] == '\n')
			sbuf_addstr(sb, i % 3 ? "<br/>" : "</p>\n<p><em>&#8220;</em>");
		else
			sbuf_add(sb, body.buf + i, 1);
	}
	sbuf_addstr(sb, "</p></body></html>\n");
	sbuf_release(&body);
}

static void check_digest(const char *what, uint64_t got, uint64_t want)
{
	if (got != want)
		fprintf(stderr, "  %s: digest 0x%016llx, recorded 0x%016llx\n", what,
			(unsigned long long)got, (unsigned long long)want);
	CHECK(got == want);
}

static void test_synthetic(void)
{
	static const struct {
		const char *name;
		int kind;		/* 0 ASCII textgen, 1 mixed, 2 mixed CRLF, 3 HTML */
		uint32_t seed;
		unsigned words;
		uint64_t want;
	} cases[] = {
		{ "ascii.txt", 0, 1, 60000, UINT64_C(0xdfeafd65241fa3c7) },
		{ "ascii-small.txt", 0, 2, 7, UINT64_C(0x16467f5c8b6a4c69) },
		{ "mixed.txt", 1, 3, 40000, UINT64_C(0xb4dc34eb263c3cf9) },
		{ "mixed-crlf.txt", 2, 4, 20000, UINT64_C(0x85ce2fbb702c9ccc) },
		{ "mixed-short.txt", 1, 5, 3, UINT64_C(0xae7351c5d68d0523) },
		{ "page.html", 3, 6, 20000, UINT64_C(0x4b33e89ee171c2d2) },
	};
	static char vocab[3000][TEXTGEN_WORD];
	struct sbuf sb;
	size_t i;

	sbuf_init(&sb);
	textgen_vocab(vocab, 3000, 77);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sbuf_setlen(&sb, 0);
		if (cases[i].kind == 0) {
			char *t = malloc(cases[i].words * TEXTGEN_WORD + 2);

			REQUIRE(t);
			sbuf_add(&sb, t, textgen_words(t, (const char (*)[TEXTGEN_WORD])vocab, 3000,
						       cases[i].seed, 9, 50, cases[i].words, 12));
			free(t);
		} else if (cases[i].kind == 3) {
			html_text(&sb, cases[i].seed, cases[i].words);
		} else {
			mixed_text(&sb, cases[i].seed, cases[i].words, cases[i].kind == 2);
		}
		check_digest(cases[i].name, book_digest(sb.buf, sb.len, cases[i].name),
			     cases[i].want);
	}
	sbuf_release(&sb);
}

static int read_file(const char *path, struct sbuf *sb)
{
	FILE *f = fopen(path, "rb");
	char buf[65536];
	size_t n;
	int ret = 0;

	if (!f)
		return -1;
	sbuf_setlen(sb, 0);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		if (sbuf_add(sb, buf, n) < 0)
			ret = -1;
	if (ferror(f))
		ret = -1;
	fclose(f);
	return ret;
}

/* The real books: one digest per file, recorded from main's build.  A
 * book missing from the folder is skipped; the test is skipped when none
 * is there. */
static void test_real_books(void)
{
	static const struct {
		const char *path;
		uint64_t want;
	} books[] = {
#include "fpstable_books.h"
	};
	const char *dir = getenv("SIMBOOK_BOOKS");
	char path[4096];
	struct sbuf sb;
	size_t i, seen = 0;

	if (!dir)
		SKIP("SIMBOOK_BOOKS not set");
	sbuf_init(&sb);
	for (i = 0; i < sizeof(books) / sizeof(books[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, books[i].path);
		if (read_file(path, &sb) < 0)
			continue;
		seen++;
		check_digest(books[i].path, book_digest(sb.buf, sb.len, books[i].path),
			     books[i].want);
	}
	sbuf_release(&sb);
	if (!seen)
		SKIP("no real books in $SIMBOOK_BOOKS");
}

int main(void)
{
	/* the AVX2 paths where the CPU has them, then the portable ones */
	RUN(test_synthetic);
	RUN(test_real_books);
	fpc_portable = 1;
	RUN(test_synthetic);
	RUN(test_real_books);
	return CHECK_DONE();
}
