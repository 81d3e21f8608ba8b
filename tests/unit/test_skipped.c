/* test_skipped.c - non-books named by their content (filekind), the kinds
 * of skipped files read back from their reasons, and the counts and listing
 * of an index's skipped files (skipped). */
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "extract.h"
#include "filekind.h"
#include "idx.h"
#include "skipped.h"

static void test_filekind(void)
{
	static const char zip_img[] = "PK\3\4\24\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
				      "\x0a\0\0\0page01.jpg";
	static const char m4b[] = "\0\0\0\x20" "ftypM4B \0\0\0\0";

	CHECK_EQ_STR(filekind_name("AT&TFORM\0\0\0\0DJVM", 16, "a.djvu"), "DjVu document");
	CHECK_EQ_STR(filekind_name(zip_img, sizeof(zip_img) - 1, "x.cbz"), "CBZ comic archive");
	CHECK_EQ_STR(filekind_name(zip_img, sizeof(zip_img) - 1, "x.zip"),
		     "zip of images (a comic archive?)");
	CHECK_EQ_STR(filekind_name("Rar!\x1A\x07\x01\0", 8, "x.cbr"), "CBR comic archive");
	CHECK_EQ_STR(filekind_name("Rar!\x1A\x07\x01\0", 8, "x.rar"), "RAR archive");
	CHECK_EQ_STR(filekind_name("\xFF\xD8\xFF\xE0", 4, "cover.jpg"), "JPEG image");
	CHECK_EQ_STR(filekind_name("\x89PNG\r\n\x1A\n", 8, NULL), "PNG image");
	CHECK_EQ_STR(filekind_name("ID3\3\0", 5, "a.mp3"), "MP3 audio");
	CHECK_EQ_STR(filekind_name(m4b, sizeof(m4b) - 1, "a.m4b"), "MPEG-4 audio (audiobook?)");
	CHECK_EQ_STR(filekind_name("SQLite format 3\0", 16, "metadata.db"), "SQLite database");
	CHECK_EQ_STR(filekind_name("<?xml version='1.0'?><package", 29, "x/metadata.opf"),
		     "ebook metadata (OPF)");
	/* a cut prefix never reads past its end */
	CHECK(filekind_name("AT&T", 4, NULL) == NULL);
	CHECK(filekind_name("", 0, NULL) == NULL);
	CHECK(filekind_name("plain words", 11, "notes.md") == NULL);
	/* the reason the extractor gives names the same kind */
	CHECK_EQ_STR(extract_notbook_kind("AT&TFORM", 8, "b.djvu"), "DjVu document");
	CHECK_EQ_STR(extract_notbook_kind("\0\0\0\0\1\2", 6, "b.dat"), "binary content");
	CHECK_EQ_STR(extract_notbook_kind("words", 5, "b.md"), "no book file extension");
}

static void test_kind(void)
{
	char b[64];

	CHECK_EQ_STR(skipped_kind(IDX_NOT_BOOK, "a/b.cbz: not a book (CBZ comic archive)", b,
				  sizeof(b)), "CBZ comic archive");
	/* the parentheses of the reason, not of the path */
	CHECK_EQ_STR(skipped_kind(IDX_NOT_BOOK, "a (1)/b.x: not a book (binary content)", b,
				  sizeof(b)), "binary content");
	CHECK_EQ_STR(skipped_kind(IDX_NOT_BOOK, "old: not a book", b, sizeof(b)), "not a book");
	CHECK_EQ_STR(skipped_kind(IDX_NOT_BOOK, NULL, b, sizeof(b)), "not a book");
	CHECK_EQ_STR(skipped_kind(IDX_FAILED, "a.mobi: DRM-protected (Mobipocket encryption type 2)",
				  b, sizeof(b)), "DRM-protected");
	CHECK_EQ_STR(skipped_kind(IDX_FAILED, "a.pdf: encrypted (password-protected)", b, sizeof(b)),
		     "DRM-protected");
	CHECK_EQ_STR(skipped_kind(IDX_FAILED, "s.pdf: no text layer (scanned PDF?)", b, sizeof(b)),
		     "no text layer");
	CHECK_EQ_STR(skipped_kind(IDX_FAILED, "x.epub: took longer than the limit of 5000 ms", b,
				  sizeof(b)), "too slow");
	CHECK_EQ_STR(skipped_kind(IDX_FAILED, "x.txt: too large (99 bytes, limit 9)", b, sizeof(b)),
		     "too large");
	CHECK_EQ_STR(skipped_kind(IDX_FAILED, "x.docx: entry w.xml: compression ratio over 100 "
				  "(zip bomb?)", b, sizeof(b)), "too large");
	CHECK_EQ_STR(skipped_kind(IDX_FAILED, "x.txt: cannot open: Permission denied", b, sizeof(b)),
		     "unreadable");
	/* a word in the file name is not the reason */
	CHECK_EQ_STR(skipped_kind(IDX_FAILED, "DRM notes.epub: truncated zip", b, sizeof(b)),
		     "broken");
	CHECK_EQ_STR(skipped_kind(IDX_FAILED, NULL, b, sizeof(b)), "broken");
	/* cut to the buffer */
	CHECK_EQ_STR(skipped_kind(IDX_NOT_BOOK, "x: not a book (JPEG image)", b, 5), "JPEG");
}

static struct idx_stat stat_of(uint64_t ino)
{
	struct idx_stat st = { 100 + ino, 1000, 1000, ino, 1 };

	return st;
}

static void test_count_and_list(void)
{
	const char *dir = check_tmpdir();
	const char *paths[5] = { "c/1.cbz", "a/2.jpg", "b/3.jpg", "d/4.pdf", "e/5.txt" };
	struct idx_stat sts[5] = { stat_of(1), stat_of(2), stat_of(3), stat_of(4), stat_of(5) };
	uint64_t ids[5];
	struct idx *ix = NULL;
	struct skipped sk;
	struct sbuf out;

	sbuf_init(&out);
	REQUIRE(dir);
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	REQUIRE(skipped_count(ix, &sk) == 0);
	CHECK_EQ_INT(sk.total, 0);
	REQUIRE(skipped_text(&sk, &out) == 0);
	CHECK_EQ_STR(out.buf, "none");
	skipped_release(&sk);
	REQUIRE(idx_mark_queued(ix, paths, sts, 5, ids) == 0);
	REQUIRE(idx_put_failed(ix, ids[0], &sts[0], IDX_NOT_BOOK,
			       "c/1.cbz: not a book (CBZ comic archive)") == 0);
	REQUIRE(idx_put_failed(ix, ids[1], &sts[1], IDX_NOT_BOOK,
			       "a/2.jpg: not a book (JPEG image)") == 0);
	REQUIRE(idx_put_failed(ix, ids[2], &sts[2], IDX_NOT_BOOK,
			       "b/3.jpg: not a book (JPEG image)") == 0);
	REQUIRE(idx_put_failed(ix, ids[3], &sts[3], IDX_FAILED,
			       "d/4.pdf: no text layer (scanned PDF?)") == 0);
	/* e/5.txt stays queued: not skipped */
	REQUIRE(skipped_count(ix, &sk) == 0);
	CHECK_EQ_INT(sk.total, 4);
	REQUIRE(sk.n == 3);
	CHECK_EQ_STR(sk.v[0].kind, "JPEG image");
	CHECK_EQ_INT(sk.v[0].n, 2);
	CHECK_EQ_STR(sk.v[1].kind, "CBZ comic archive");
	CHECK_EQ_STR(sk.v[2].kind, "no text layer");
	sbuf_setlen(&out, 0);
	REQUIRE(skipped_text(&sk, &out) == 0);
	CHECK_EQ_STR(out.buf, "2 JPEG image, 1 CBZ comic archive, 1 no text layer");
	sbuf_setlen(&out, 0);
	REQUIRE(skipped_json(&sk, &out) == 0);
	CHECK_EQ_STR(out.buf, "{\"JPEG image\":2,\"CBZ comic archive\":1,\"no text layer\":1}");
	skipped_release(&sk);
	sbuf_setlen(&out, 0);
	REQUIRE(skipped_tsv(ix, &out) == 0);
	CHECK_EQ_STR(out.buf,
		     "a/2.jpg\tJPEG image\ta/2.jpg: not a book (JPEG image)\n"
		     "b/3.jpg\tJPEG image\tb/3.jpg: not a book (JPEG image)\n"
		     "c/1.cbz\tCBZ comic archive\tc/1.cbz: not a book (CBZ comic archive)\n"
		     "d/4.pdf\tno text layer\td/4.pdf: no text layer (scanned PDF?)\n");
	sbuf_release(&out);
	idx_close(ix);
}

/* The cache answers without a walk while the index is unchanged: a busy
 * index (fresh 0) within max_age gets the kept counts even after a change,
 * an idle one (fresh 1) never gets counts older than its generation, and
 * another index never gets the counts of the first. */
static void test_cache(void)
{
	const char *dir = check_tmpdir();
	const char *paths[3] = { "a/1.jpg", "b/2.cbz", "c/3.jpg" };
	struct idx_stat sts[3] = { stat_of(1), stat_of(2), stat_of(3) };
	struct skipped_cache *c = skipped_cache_new();
	struct idx *ix = NULL, *ix2 = NULL;
	struct skipped sk;
	char dir2[4096];
	uint64_t ids[3];

	REQUIRE(dir && c);
	snprintf(dir2, sizeof(dir2), "%s/second", dir);
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	REQUIRE(idx_mark_queued(ix, paths, sts, 3, ids) == 0);
	REQUIRE(idx_put_failed(ix, ids[0], &sts[0], IDX_NOT_BOOK,
			       "a/1.jpg: not a book (JPEG image)") == 0);
	REQUIRE(skipped_cache_count(c, ix, 1, 0, &sk) == 0);
	CHECK_EQ_INT(sk.total, 1);
	REQUIRE(sk.n == 1);
	CHECK_EQ_STR(sk.v[0].kind, "JPEG image");
	skipped_release(&sk);
	REQUIRE(idx_put_failed(ix, ids[1], &sts[1], IDX_NOT_BOOK,
			       "b/2.cbz: not a book (CBZ comic archive)") == 0);
	/* busy, young counts: kept (one walk a while, not one per read) */
	REQUIRE(skipped_cache_count(c, ix, 0, UINT64_MAX / 2, &sk) == 0);
	CHECK_EQ_INT(sk.total, 1);
	skipped_release(&sk);
	/* busy, too old: counted again */
	REQUIRE(skipped_cache_count(c, ix, 0, 0, &sk) == 0);
	CHECK_EQ_INT(sk.total, 2);
	skipped_release(&sk);
	REQUIRE(idx_put_failed(ix, ids[2], &sts[2], IDX_NOT_BOOK,
			       "c/3.jpg: not a book (JPEG image)") == 0);
	/* idle: the generation moved, counted again whatever the age */
	REQUIRE(skipped_cache_count(c, ix, 1, UINT64_MAX / 2, &sk) == 0);
	CHECK_EQ_INT(sk.total, 3);
	REQUIRE(sk.n == 2);
	CHECK_EQ_STR(sk.v[0].kind, "JPEG image");
	CHECK_EQ_INT(sk.v[0].n, 2);
	skipped_release(&sk);
	/* unchanged: the same counts */
	REQUIRE(skipped_cache_count(c, ix, 1, 0, &sk) == 0);
	CHECK_EQ_INT(sk.total, 3);
	skipped_release(&sk);
	/* another index: its own counts */
	REQUIRE(idx_open(&ix2, dir2, NULL) == 0);
	REQUIRE(skipped_cache_count(c, ix2, 0, UINT64_MAX / 2, &sk) == 0);
	CHECK_EQ_INT(sk.total, 0);
	CHECK_EQ_INT(sk.n, 0);
	skipped_release(&sk);
	idx_close(ix2);
	idx_close(ix);
	skipped_cache_free(c);
}

int main(void)
{
	RUN(test_filekind);
	RUN(test_kind);
	RUN(test_count_and_list);
	RUN(test_cache);
	return CHECK_DONE();
}
