/* test_extract.c - golden tests of text, HTML and EPUB extraction on files
 * built here, and the real books of $SIMBOOK_BOOKS (skipped when absent).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <iconv.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zip.h>

#include "check.h"
#include "extract.h"
#include "extract_i.h"
#include "norm.h"
#include "sbuf.h"
#include "zipgen.h"

static int is_valid_utf8(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < n) {
		unsigned char c = p[i];
		size_t k = c < 0x80 ? 1 : (c >= 0xC2 && c <= 0xDF) ? 2 : (c >= 0xE0 && c <= 0xEF) ? 3 :
			   (c >= 0xF0 && c <= 0xF4) ? 4 : 0;

		if (!k || i + k > n)
			return 0;
		for (size_t j = 1; j < k; j++)
			if ((p[i + j] & 0xC0) != 0x80)
				return 0;
		i += k;
	}
	return 1;
}

static void test_plain_text(void)
{
	struct extract_doc d;
	struct sbuf err;
	static const char utf8bom[] = "\xEF\xBB\xBFLine one\r\nLine two\rThree\n";
	static const char utf16le[] = "\xFF\xFEH\0i\0\r\0\n\0=\xD8\x00\xDE";	/* Hi CRLF U+1F600 */
	static const char utf16be[] = "\xFE\xFF\0H\0\xE9";
	static const char cp1252[] = "Caf\xE9 \x93quoted\x94 na\xEFve \x80 ";
	static const char stray[] = "caf\xC3\xA9 na\xC3\xAFve \xC3\xA0 la cr\xC3\xA8me \xFF ok";

	sbuf_init(&err);
	extract_doc_init(&d);
	REQUIRE(extract_buffer(utf8bom, sizeof(utf8bom) - 1, "a.txt", NULL, &d, &err) == 0);
	CHECK_EQ_STR(d.text.buf, "Line one\nLine two\nThree\n");
	CHECK_EQ_STR(d.charset, "UTF-8");
	CHECK(d.format == EXTRACT_FMT_TXT && d.nchunks == 0);
	extract_doc_release(&d);

	REQUIRE(extract_buffer(utf16le, sizeof(utf16le) - 1, "a.txt", NULL, &d, &err) == 0);
	CHECK_EQ_STR(d.text.buf, "Hi\n\xF0\x9F\x98\x80");
	CHECK_EQ_STR(d.charset, "UTF-16LE");
	extract_doc_release(&d);

	REQUIRE(extract_buffer(utf16be, sizeof(utf16be) - 1, "a.txt", NULL, &d, &err) == 0);
	CHECK_EQ_STR(d.text.buf, "H\xC3\xA9");
	extract_doc_release(&d);

	REQUIRE(extract_buffer(cp1252, sizeof(cp1252) - 1, "a.txt", NULL, &d, &err) == 0);
	CHECK_EQ_STR(d.text.buf, "Caf\xC3\xA9 \xE2\x80\x9Cquoted\xE2\x80\x9D na\xC3\xAFve \xE2\x82\xAC ");
	CHECK_EQ_STR(d.charset, "WINDOWS-1252");
	extract_doc_release(&d);

	/* one stray byte in UTF-8 text: U+FFFD, still UTF-8 */
	REQUIRE(extract_buffer(stray, sizeof(stray) - 1, "a.txt", NULL, &d, &err) == 0);
	CHECK_EQ_STR(d.charset, "UTF-8");
	CHECK(strstr(d.text.buf, "\xEF\xBF\xBD ok") != NULL);
	extract_doc_release(&d);

	/* Gutenberg header metadata */
	{
		static const char pg[] = "The Project Gutenberg eBook of Foo\r\n\r\nTitle: Foo Bar\r\n"
					 "Author: Ann Author\r\nLanguage: English\r\n\r\n"
					 "*** START OF THE PROJECT GUTENBERG EBOOK FOO ***\r\nBody.\r\n";
		struct norm_doc nd;

		REQUIRE(extract_buffer(pg, sizeof(pg) - 1, "pg.txt", NULL, &d, &err) == 0);
		CHECK_EQ_STR(d.title, "Foo Bar");
		REQUIRE(d.creators.n == 1);
		CHECK_EQ_STR(d.creators.v[0], "Ann Author");
		CHECK_EQ_STR(d.language, "English");
		norm_doc_init(&nd);
		REQUIRE(extract_normalize(&d, &nd) == 0);
		CHECK_EQ_STR(nd.text, "body");
		norm_doc_release(&nd);
		extract_doc_release(&d);
	}
	CHECK_EQ_INT(err.len, 0);
	sbuf_release(&err);
}

/* Encodes UTF-8 text into charset with iconv. */
static int encode(const char *utf8, const char *charset, struct sbuf *out)
{
	iconv_t cd = iconv_open(charset, "UTF-8");
	char *ip = (char *)utf8, *op;
	size_t il = strlen(utf8), ol;

	if (cd == (iconv_t)-1)
		return -1;
	sbuf_setlen(out, 0);
	sbuf_grow(out, il * 2);
	op = out->buf;
	ol = il * 2;
	if (iconv(cd, &ip, &il, &op, &ol) == (size_t)-1) {
		iconv_close(cd);
		return -1;
	}
	out->len = (size_t)(op - out->buf);
	iconv_close(cd);
	return 0;
}

/* Legacy encodings other than Windows-1252 are detected (uchardet) and
 * decoded back to the same text. */
static void test_legacy_charsets(void)
{
	static const char ru[] =
		"\xD0\x92\xD1\x81\xD0\xB5 \xD1\x81\xD1\x87\xD0\xB0\xD1\x81\xD1\x82\xD0\xBB\xD0\xB8\xD0\xB2\xD1\x8B\xD0\xB5 "
		"\xD1\x81\xD0\xB5\xD0\xBC\xD1\x8C\xD0\xB8 \xD0\xBF\xD0\xBE\xD1\x85\xD0\xBE\xD0\xB6\xD0\xB8 \xD0\xB4\xD1\x80\xD1\x83\xD0\xB3 "
		"\xD0\xBD\xD0\xB0 \xD0\xB4\xD1\x80\xD1\x83\xD0\xB3\xD0\xB0, \xD0\xBA\xD0\xB0\xD0\xB6\xD0\xB4\xD0\xB0\xD1\x8F "
		"\xD0\xBD\xD0\xB5\xD1\x81\xD1\x87\xD0\xB0\xD1\x81\xD1\x82\xD0\xBB\xD0\xB8\xD0\xB2\xD0\xB0\xD1\x8F "
		"\xD1\x81\xD0\xB5\xD0\xBC\xD1\x8C\xD1\x8F \xD0\xBD\xD0\xB5\xD1\x81\xD1\x87\xD0\xB0\xD1\x81\xD1\x82\xD0\xBB\xD0\xB8\xD0\xB2\xD0\xB0 "
		"\xD0\xBF\xD0\xBE-\xD1\x81\xD0\xB2\xD0\xBE\xD0\xB5\xD0\xBC\xD1\x83. \xD0\x92\xD1\x81\xD0\xB5 "
		"\xD1\x81\xD0\xBC\xD0\xB5\xD1\x88\xD0\xB0\xD0\xBB\xD0\xBE\xD1\x81\xD1\x8C \xD0\xB2 \xD0\xB4\xD0\xBE\xD0\xBC\xD0\xB5 "
		"\xD0\x9E\xD0\xB1\xD0\xBB\xD0\xBE\xD0\xBD\xD1\x81\xD0\xBA\xD0\xB8\xD1\x85. \xD0\x96\xD0\xB5\xD0\xBD\xD0\xB0 "
		"\xD1\x83\xD0\xB7\xD0\xBD\xD0\xB0\xD0\xBB\xD0\xB0, \xD1\x87\xD1\x82\xD0\xBE \xD0\xBC\xD1\x83\xD0\xB6 "
		"\xD0\xB1\xD1\x8B\xD0\xBB \xD0\xB2 \xD1\x81\xD0\xB2\xD1\x8F\xD0\xB7\xD0\xB8 \xD1\x81 "
		"\xD1\x84\xD1\x80\xD0\xB0\xD0\xBD\xD1\x86\xD1\x83\xD0\xB6\xD0\xB5\xD0\xBD\xD0\xBA\xD0\xBE\xD1\x8E, "
		"\xD0\xB8 \xD0\xBE\xD0\xB1\xD1\x8A\xD1\x8F\xD0\xB2\xD0\xB8\xD0\xBB\xD0\xB0 \xD0\xBC\xD1\x83\xD0\xB6\xD1\x83, "
		"\xD1\x87\xD1\x82\xD0\xBE \xD0\xBD\xD0\xB5 \xD0\xBC\xD0\xBE\xD0\xB6\xD0\xB5\xD1\x82 \xD0\xB6\xD0\xB8\xD1\x82\xD1\x8C "
		"\xD1\x81 \xD0\xBD\xD0\xB8\xD0\xBC \xD0\xB2 \xD0\xBE\xD0\xB4\xD0\xBD\xD0\xBE\xD0\xBC \xD0\xB4\xD0\xBE\xD0\xBC\xD0\xB5.\n";
	static const char ja[] =
		"\xE5\x90\xBE\xE8\xBC\xA9\xE3\x81\xAF\xE7\x8C\xAB\xE3\x81\xA7\xE3\x81\x82\xE3\x82\x8B\xE3\x80\x82"
		"\xE5\x90\x8D\xE5\x89\x8D\xE3\x81\xAF\xE3\x81\xBE\xE3\x81\xA0\xE7\x84\xA1\xE3\x81\x84\xE3\x80\x82"
		"\xE3\x81\xA9\xE3\x81\x93\xE3\x81\xA7\xE7\x94\x9F\xE3\x82\x8C\xE3\x81\x9F\xE3\x81\x8B\xE3\x81\xA8"
		"\xE3\x82\x93\xE3\x81\xA8\xE8\xA6\x8B\xE5\xBD\x93\xE3\x81\x8C\xE3\x81\xA4\xE3\x81\x8B\xE3\x81\xAC\xE3\x80\x82"
		"\xE4\xBD\x95\xE3\x81\xA7\xE3\x82\x82\xE8\x96\x84\xE6\x9A\x97\xE3\x81\x84\xE3\x81\x98\xE3\x82\x81"
		"\xE3\x81\x98\xE3\x82\x81\xE3\x81\x97\xE3\x81\x9F\xE6\x89\x80\xE3\x81\xA7\xE6\xB3\xA3\xE3\x81\x84"
		"\xE3\x81\xA6\xE3\x81\x84\xE3\x81\x9F\xE4\xBA\x8B\xE3\x81\xA0\xE3\x81\x91\xE3\x81\xAF\xE8\xA8\x98"
		"\xE6\x86\xB6\xE3\x81\x97\xE3\x81\xA6\xE3\x81\x84\xE3\x82\x8B\xE3\x80\x82\n";
	static const struct { const char *text, *charset, *want; } cases[] = {
		{ ru, "CP1251", "WINDOWS-1251" },
		{ ru, "KOI8-R", "KOI8-R" },
		{ ja, "SHIFT_JIS", "SHIFT_JIS" },
		{ ja, "EUC-JP", "EUC-JP" },
	};
	struct extract_doc d;
	struct sbuf enc;
	size_t i;

	sbuf_init(&enc);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		extract_doc_init(&d);
		REQUIRE(encode(cases[i].text, cases[i].charset, &enc) == 0);
		REQUIRE(extract_buffer(enc.buf, enc.len, "l.txt", NULL, &d, NULL) == 0);
		CHECK_EQ_STR(d.charset, cases[i].want);
		CHECK_EQ_STR(d.text.buf, cases[i].text);
		extract_doc_release(&d);
	}
	sbuf_release(&enc);
}

static void test_sniff(void)
{
	CHECK_EQ_INT(extract_sniff("hello world", 11, "a.txt"), EXTRACT_FMT_TXT);
	CHECK_EQ_INT(extract_sniff("hello world", 11, "README"), EXTRACT_FMT_TXT);
	CHECK_EQ_INT(extract_sniff("hello world", 11, "main.c"), EXTRACT_FMT_UNKNOWN);
	CHECK_EQ_INT(extract_sniff("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16, "x.txt"), EXTRACT_FMT_UNKNOWN);
	CHECK_EQ_INT(extract_sniff("\x7f" "ELF\2\1\1\0\0\0", 10, "book.txt"), EXTRACT_FMT_UNKNOWN);
	CHECK_EQ_INT(extract_sniff("<!DOCTYPE html><html>", 21, "x"), EXTRACT_FMT_HTML);
	CHECK_EQ_INT(extract_sniff("<html><body>x", 13, NULL), EXTRACT_FMT_HTML);
	CHECK_EQ_INT(extract_sniff("plain", 5, "x.xhtml"), EXTRACT_FMT_HTML);
	CHECK_EQ_INT(extract_sniff("PK\3\4rest", 8, "x.epub"), EXTRACT_FMT_EPUB);
	CHECK_EQ_INT(extract_sniff("PK\3\4rest", 8, "x.zip"), EXTRACT_FMT_UNKNOWN);
	CHECK_EQ_INT(extract_sniff("not a zip", 9, "x.EPUB"), EXTRACT_FMT_EPUB);
	CHECK_EQ_INT(extract_sniff("\xFF\xFEh\0i\0", 6, "x.txt"), EXTRACT_FMT_TXT);
	CHECK_EQ_STR(extract_format_name(EXTRACT_FMT_EPUB), "epub");
}

static void test_html(void)
{
	static const char html[] =
		"<!DOCTYPE html><html lang=\"fr\"><head><title>Le  Titre</title>"
		"<meta name=\"author\" content=\"Jean Auteur\"><style>p { color: red }</style>"
		"<script>var x = \"<p>not text</p>\";</script></head>"
		"<body><h1>Chapitre&nbsp;1</h1><p>Caf&eacute; &amp; cr&#232;me &#x263A;<br>next\n   line</p>"
		"<div>block <b>bold</b><i>it</i></div><!-- comment --><template>hidden</template>"
		"<pre>a\nb</pre><p>&unknown; end</p></body></html>";
	struct extract_doc d;
	struct sbuf err;

	sbuf_init(&err);
	extract_doc_init(&d);
	REQUIRE(extract_buffer(html, sizeof(html) - 1, "x.html", NULL, &d, &err) == 0);
	CHECK_EQ_STR(d.text.buf, "Chapitre\xC2\xA0" "1\n\nCaf\xC3\xA9 & cr\xC3\xA8me \xE2\x98\xBA\nnext line"
		     "\n\nblock boldit\n\na\nb\n\n&unknown; end");
	CHECK_EQ_STR(d.title, "Le Titre");
	CHECK_EQ_STR(d.language, "fr");
	REQUIRE(d.creators.n == 1);
	CHECK_EQ_STR(d.creators.v[0], "Jean Auteur");
	CHECK(d.format == EXTRACT_FMT_HTML && d.nchunks == 1 && d.chunk_off[0] == 0);
	extract_doc_release(&d);

	/* a declared legacy charset is honoured */
	{
		static const char l1[] = "<html><head><meta charset=\"iso-8859-1\"></head><body>\xE9t\xE9</body></html>";

		REQUIRE(extract_buffer(l1, sizeof(l1) - 1, "x.htm", NULL, &d, &err) == 0);
		CHECK_EQ_STR(d.text.buf, "\xC3\xA9t\xC3\xA9");
		extract_doc_release(&d);
	}
	/* UTF-8 content claiming Latin-1 stays UTF-8 */
	{
		static const char lie[] = "<html><head><meta charset=\"iso-8859-1\"></head><body>\xC3\xA9t\xC3\xA9 "
					  "caf\xC3\xA9 na\xC3\xAFve</body></html>";

		REQUIRE(extract_buffer(lie, sizeof(lie) - 1, "x.htm", NULL, &d, &err) == 0);
		CHECK_EQ_STR(d.text.buf, "\xC3\xA9t\xC3\xA9 caf\xC3\xA9 na\xC3\xAFve");
		extract_doc_release(&d);
	}
	sbuf_release(&err);
}

static const char container[] =
	"<?xml version=\"1.0\"?><container version=\"1.0\" "
	"xmlns=\"urn:oasis:names:tc:opendocument:xmlns:container\"><rootfiles>"
	"<rootfile full-path=\"OEBPS/content.opf\" media-type=\"application/oebps-package+xml\"/>"
	"</rootfiles></container>";

static const char opf[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
	"<package xmlns=\"http://www.idpf.org/2007/opf\" version=\"2.0\" unique-identifier=\"id\">"
	"<metadata xmlns:dc=\"http://purl.org/dc/elements/1.1/\" xmlns:opf=\"http://www.idpf.org/2007/opf\">"
	"<dc:title>The  Test Book</dc:title><dc:creator opf:role=\"aut\">First Author</dc:creator>"
	"<dc:creator>Second Author</dc:creator><dc:language>en</dc:language>"
	"<dc:identifier id=\"id\">urn:uuid:1234</dc:identifier>"
	"<dc:identifier opf:scheme=\"ISBN\">978-0-306-40615-7</dc:identifier></metadata>"
	"<manifest><item id=\"css\" href=\"style.css\" media-type=\"text/css\"/>"
	"<item id=\"c2\" href=\"text/ch%202.xhtml\" media-type=\"application/xhtml+xml\"/>"
	"<item id=\"c1\" href=\"text/ch1.xhtml#start\" media-type=\"application/xhtml+xml\"/>"
	"<item id=\"notes\" href=\"../OEBPS/./text/notes.html\" media-type=\"application/xhtml+xml\"/>"
	"<item id=\"img\" href=\"img.svg\" media-type=\"image/svg+xml\"/>"
	"<item id=\"evil\" href=\"../../etc/passwd\" media-type=\"application/xhtml+xml\"/>"
	"</manifest><spine toc=\"ncx\"><itemref idref=\"c1\"/><itemref idref=\"img\"/>"
	"<itemref idref=\"evil\"/><itemref idref=\"c2\"/><itemref idref=\"notes\" linear=\"no\"/>"
	"<itemref idref=\"missing\"/></spine></package>";

static const char ch1[] =
	"<?xml version=\"1.0\" encoding=\"utf-8\"?><!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.1//EN\" "
	"\"http://www.w3.org/TR/xhtml11/DTD/xhtml11.dtd\"><html xmlns=\"http://www.w3.org/1999/xhtml\">"
	"<head><title>One</title><link rel=\"stylesheet\" href=\"../style.css\"/><script src=\"x.js\"/></head>"
	"<body><h2>Chapter One</h2><p>It was the best of times&#8212;it was the worst&nbsp;of times.</p>"
	"<p/><p>Second para&mdash;with <em>emphasis</em>.</p></body></html>";
static const char ch2[] =
	"<?xml version=\"1.0\" encoding=\"utf-8\"?><html xmlns=\"http://www.w3.org/1999/xhtml\"><head>"
	"<title>Two</title></head><body><p>Chapter two <span>text</span>.</p></body></html>";
static const char notes[] = "<html><body><p>A note.</p></body></html>";

static void test_epub(void)
{
	const char *kv[] = {
		"mimetype", "application/epub+zip",
		"OEBPS/text/notes.html", notes,
		"OEBPS/text/ch 2.xhtml", ch2,
		"META-INF/container.xml", container,
		"OEBPS/content.opf", opf,
		"OEBPS/text/ch1.xhtml", ch1,
		"OEBPS/style.css", "p { margin: 0 }",
	};
	struct sbuf zip, err;
	struct extract_doc d;
	struct norm_doc nd;

	sbuf_init(&zip);
	sbuf_init(&err);
	extract_doc_init(&d);
	REQUIRE(zipgen_strs(&zip, kv, sizeof(kv) / sizeof(kv[0]) / 2) == 0);
	CHECK_EQ_INT(extract_sniff(zip.buf, zip.len, NULL), EXTRACT_FMT_EPUB);
	REQUIRE(extract_buffer(zip.buf, zip.len, "t.epub", NULL, &d, &err) == 0);
	CHECK_EQ_STR(d.text.buf,
		     "Chapter One\n\nIt was the best of times\xE2\x80\x94it was the worst\xC2\xA0of times."
		     "\n\nSecond para\xE2\x80\x94with emphasis.\n\nChapter two text.\n\nA note.");
	REQUIRE(d.nchunks == 3);
	CHECK_EQ_INT(d.chunk_off[0], 0);
	CHECK(!strncmp(d.text.buf + d.chunk_off[1], "Chapter two", 11));
	CHECK(!strncmp(d.text.buf + d.chunk_off[2], "A note.", 7));
	CHECK_EQ_STR(d.title, "The Test Book");
	REQUIRE(d.creators.n == 2);
	CHECK_EQ_STR(d.creators.v[1], "Second Author");
	CHECK_EQ_STR(d.language, "en");
	CHECK_EQ_INT(d.identifiers.n, 2);
	CHECK_EQ_STR(d.isbn, "9780306406157");
	CHECK_EQ_INT(d.warnings.n, 2);	/* evil href, unknown idref */
	norm_doc_init(&nd);
	REQUIRE(extract_normalize(&d, &nd) == 0);
	CHECK_EQ_STR(nd.text, "chapter one it was the best of times it was the worst of times second "
		     "para with emphasis chapter two text a note");
	REQUIRE(nd.nchunks == 3);
	CHECK_EQ_INT(nd.chunk_word[1], 18);
	CHECK_EQ_INT(nd.chunk_word[2], 21);
	norm_doc_release(&nd);
	extract_doc_release(&d);

	/* the same archive on disk through extract_file */
	{
		const char *dir = check_tmpdir();
		char path[PATH_MAX];
		int fd;

		REQUIRE(dir);
		snprintf(path, sizeof(path), "%s/a.epub", dir);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
		REQUIRE(fd >= 0);
		CHECK(write(fd, zip.buf, zip.len) == (ssize_t)zip.len);
		close(fd);
		CHECK_EQ_INT(extract_file(path, NULL, &d, &err), 0);
		CHECK_EQ_INT(d.nchunks, 3);
		extract_doc_release(&d);
	}
	CHECK_EQ_INT(err.len, 0);
	sbuf_release(&zip);
	sbuf_release(&err);
}

/* A content document listed many times (manifest items with #fragment
 * hrefs, as some DocBook toolchains write them, and a spine reference
 * repeated) is read once, at its first place in the spine. */
static void test_epub_fragments(void)
{
	static const char frag_opf[] =
		"<?xml version=\"1.0\"?><package xmlns=\"http://www.idpf.org/2007/opf\" version=\"2.0\">"
		"<metadata/><manifest>"
		"<item id=\"a1\" href=\"basics.xhtml#o1\" media-type=\"application/xhtml+xml\"/>"
		"<item id=\"a2\" href=\"basics.xhtml#o2\" media-type=\"application/xhtml+xml\"/>"
		"<item id=\"b\" href=\"more.xhtml\" media-type=\"application/xhtml+xml\"/>"
		"<item id=\"a3\" href=\"basics.xhtml#o3\" media-type=\"application/xhtml+xml\"/>"
		"</manifest><spine><itemref idref=\"a1\"/><itemref idref=\"a2\"/>"
		"<itemref idref=\"b\"/><itemref idref=\"a3\"/><itemref idref=\"b\"/></spine></package>";
	static const char frag_container[] =
		"<?xml version=\"1.0\"?><container version=\"1.0\" "
		"xmlns=\"urn:oasis:names:tc:opendocument:xmlns:container\"><rootfiles>"
		"<rootfile full-path=\"content.opf\" media-type=\"application/oebps-package+xml\"/>"
		"</rootfiles></container>";
	const char *kv[] = {
		"mimetype", "application/epub+zip",
		"META-INF/container.xml", frag_container,
		"content.opf", frag_opf,
		"basics.xhtml", "<html xmlns=\"http://www.w3.org/1999/xhtml\"><body>"
			"<p id=\"o1\">First part.</p><p id=\"o2\">Second part.</p>"
			"<p id=\"o3\">Third part.</p></body></html>",
		"more.xhtml", "<html xmlns=\"http://www.w3.org/1999/xhtml\"><body>"
			"<p>More text.</p></body></html>",
	};
	struct sbuf zip, err;
	struct extract_doc d;

	sbuf_init(&zip);
	sbuf_init(&err);
	extract_doc_init(&d);
	REQUIRE(zipgen_strs(&zip, kv, sizeof(kv) / sizeof(kv[0]) / 2) == 0);
	REQUIRE(extract_buffer(zip.buf, zip.len, "f.epub", NULL, &d, &err) == 0);
	CHECK_EQ_STR(d.text.buf, "First part.\n\nSecond part.\n\nThird part.\n\nMore text.");
	REQUIRE(d.nchunks == 2);
	CHECK(!strncmp(d.text.buf + d.chunk_off[1], "More text.", 10));
	CHECK_EQ_INT(d.warnings.n, 0);
	extract_doc_release(&d);
	sbuf_release(&zip);
	sbuf_release(&err);
}

static void test_broken_epub(void)
{
	const char *no_container[] = {
		"mimetype", "application/epub+zip",
		"b.xhtml", "<html><body><p>Bee</p></body></html>",
		"a.xhtml", "<html><body><p>Ay</p></body></html>",
		"../escape.xhtml", "<html><body><p>Escaped</p></body></html>",
		"/abs.html", "<html><body><p>Absolute</p></body></html>",
	};
	const char *bad_container[] = {
		"mimetype", "application/epub+zip",
		"META-INF/container.xml", "<container><rootfiles><rootfile full-path=",
		"OPS/pkg.opf", opf,
		"OPS/x.html", "<p>x</p>",
	};
	const char *not_epub[] = {
		"xl/workbook.xml", "<workbook/>",
		"[Content_Types].xml", "<Types/>",
	};
	struct sbuf zip, err;
	struct extract_doc d;

	sbuf_init(&zip);
	sbuf_init(&err);
	extract_doc_init(&d);
	REQUIRE(zipgen_strs(&zip, no_container, 5) == 0);
	REQUIRE(extract_buffer(zip.buf, zip.len, "b.epub", NULL, &d, &err) == 0);
	CHECK_EQ_STR(d.text.buf, "Bee\n\nAy");
	CHECK_EQ_INT(d.nchunks, 2);
	REQUIRE(d.warnings.n >= 1);
	CHECK(strstr(d.warnings.v[0], "fell back to archive order") != NULL);
	extract_doc_release(&d);

	/* invalid container.xml: the .opf entry is found anyway (its items are
	 * missing, so the archive order is used) */
	REQUIRE(zipgen_strs(&zip, bad_container, 4) == 0);
	REQUIRE(extract_buffer(zip.buf, zip.len, "c.epub", NULL, &d, &err) == 0);
	CHECK_EQ_STR(d.text.buf, "x");
	extract_doc_release(&d);

	REQUIRE(zipgen_strs(&zip, not_epub, 2) == 0);
	CHECK_EQ_INT(extract_buffer(zip.buf, zip.len, NULL, NULL, &d, &err), EXTRACT_NOTBOOK);
	CHECK(strstr(err.buf, "not a book") != NULL);
	sbuf_setlen(&err, 0);
	CHECK_EQ_INT(extract_buffer(zip.buf, zip.len, "report.xlsx", NULL, &d, &err), EXTRACT_NOTBOOK);
	CHECK(!strncmp(err.buf, "report.xlsx: not a book", 23));
	CHECK(d.text.len == 0 && d.nchunks == 0 && !d.title);
	sbuf_release(&zip);
	sbuf_release(&err);
}

/* Well-formed XHTML goes through the XML parser (CDATA is text, HTML named
 * references still decode); anything else falls back to the HTML parser. */
/* The CPU time budget grows with the file (big PDFs are slow to read) up to
 * 12 times the base; a timed-out extraction names the budget it had. */
static void test_time_budget(void)
{
	struct extract_limits lim;
	struct extract_doc doc;
	struct sbuf err;
	static char text[3 << 20];

	extract_limits_default(&lim);
	CHECK_EQ_INT(ex_budget_ms(&lim, 0), 5000);
	CHECK_EQ_INT(ex_budget_ms(&lim, (1 << 20) - 1), 5000);
	CHECK_EQ_INT(ex_budget_ms(&lim, 30u << 20), 20000);
	CHECK_EQ_INT(ex_budget_ms(&lim, 1ull << 30), 60000);
	lim.millis_per_mib = 0;
	CHECK_EQ_INT(ex_budget_ms(&lim, 30u << 20), 5000);
	/* no base time: no time at all, whatever the size (12 x 0) */
	lim.max_millis = 0;
	lim.millis_per_mib = 1000;
	memset(text, 'a', sizeof(text));
	extract_doc_init(&doc);
	sbuf_init(&err);
	CHECK_EQ_INT(extract_buffer(text, sizeof(text), "big.txt", &lim, &doc, &err), -ETIMEDOUT);
	CHECK(strstr(err.buf, "limit of 0 ms of CPU time") != NULL);
	extract_doc_release(&doc);
	sbuf_release(&err);
}

static void test_xhtml_modes(void)
{
	const char *kv[] = {
		"mimetype", "application/epub+zip",
		"a.xhtml", "<?xml version=\"1.0\"?><html xmlns=\"http://www.w3.org/1999/xhtml\"><body>"
			   "<p>x&nbsp;y&eacute;<![CDATA[ <cdata> ]]>z</p></body></html>",
		"b.xhtml", "<html><body><p>unclosed <b>bold<p>next &nbsp;&copy; <br>end</body>",
		"c.xhtml", "<!DOCTYPE html><html xmlns=\"http://www.w3.org/1999/xhtml\"><body>"
			   "<p>&unknownentity; after</p></body></html>",
	};
	struct sbuf zip;
	struct extract_doc d;

	sbuf_init(&zip);
	extract_doc_init(&d);
	REQUIRE(zipgen_strs(&zip, kv, 4) == 0);
	REQUIRE(extract_buffer(zip.buf, zip.len, "m.epub", NULL, &d, NULL) == 0);
	CHECK_EQ_STR(d.text.buf, "x\xC2\xA0y\xC3\xA9 <cdata> z\n\nunclosed bold\n\nnext \xC2\xA0\xC2\xA9\nend"
		     "\n\n&unknownentity; after");
	CHECK_EQ_INT(d.nchunks, 3);
	extract_doc_release(&d);
	sbuf_release(&zip);
}

static const char *books_dir(void)
{
	const char *b = getenv("SIMBOOK_BOOKS");
	char p[4096];

	if (!b)
		return NULL;
	snprintf(p, sizeof(p), "%s/RELATIONS.tsv", b);
	return access(p, R_OK) ? NULL : b;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted unique words of a normalised text. */
static char **word_set(char *text, size_t *n)
{
	size_t cap = 1024, k = 0, i, o;
	char **v = malloc(cap * sizeof(*v)), *save = NULL, *w;

	for (w = strtok_r(text, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (k == cap)
			v = realloc(v, (cap *= 2) * sizeof(*v));
		v[k++] = w;
	}
	qsort(v, k, sizeof(*v), cmp_str);
	for (i = 0, o = 0; i < k; i++)
		if (!o || strcmp(v[o - 1], v[i]))
			v[o++] = v[i];
	*n = o;
	return v;
}

static double jaccard_words(const char *a, const char *b)
{
	struct extract_doc da, db;
	struct norm_doc na, nb;
	char **wa, **wb;
	size_t ka, kb, i = 0, j = 0, both = 0;
	double jac = -1;

	extract_doc_init(&da);
	extract_doc_init(&db);
	norm_doc_init(&na);
	norm_doc_init(&nb);
	if (extract_file(a, NULL, &da, NULL) || extract_file(b, NULL, &db, NULL) ||
	    extract_normalize(&da, &na) || extract_normalize(&db, &nb))
		goto out;
	wa = word_set(na.text, &ka);
	wb = word_set(nb.text, &kb);
	while (i < ka && j < kb) {
		int c = cmp_str(&wa[i], &wb[j]);

		if (!c)
			both++, i++, j++;
		else if (c < 0)
			i++;
		else
			j++;
	}
	jac = (double)both / (double)(ka + kb - both);
	free(wa);
	free(wb);
out:
	extract_doc_release(&da);
	extract_doc_release(&db);
	norm_doc_release(&na);
	norm_doc_release(&nb);
	return jac;
}

/* Every cross-format pair of RELATIONS.tsv: >= 0.95 Jaccard of word sets. */
static void test_real_cross_format(void)
{
	const char *b = books_dir();
	char path[4096], line[4096];
	FILE *f;
	int pairs = 0;

	if (!b)
		SKIP("SIMBOOK_BOOKS not set or without RELATIONS.tsv");
	snprintf(path, sizeof(path), "%s/RELATIONS.tsv", b);
	f = fopen(path, "r");
	REQUIRE(f != NULL);
	while (fgets(line, sizeof(line), f)) {
		char *fa = strtok(line, "\t"), *fb = strtok(NULL, "\t"), *rel = strtok(NULL, "\t");
		char pa[4096], pb[4096];
		double j;

		if (!fa || !fb || !rel || strcmp(rel, "same-work-different-edition") ||
		    !((strstr(fa, ".epub") != NULL) ^ (strstr(fb, ".epub") != NULL)))
			continue;
		snprintf(pa, sizeof(pa), "%s/%s", b, fa);
		snprintf(pb, sizeof(pb), "%s/%s", b, fb);
		if (access(pa, R_OK) || access(pb, R_OK))
			continue;
		j = jaccard_words(pa, pb);
		printf("# %s vs %s: word-set Jaccard %.4f\n", fa, fb, j);
		CHECK(j >= 0.95);
		pairs++;
	}
	fclose(f);
	if (!pairs)
		SKIP("no cross-format pairs present");
}

/* Every real book extracts, as valid UTF-8, with a stripped PG body. */
static void test_real_all(void)
{
	static const char *const dirs[] = { "texts", "texts-latin1", "epub" };
	const char *b = books_dir();
	size_t k, nfiles = 0;

	if (!b)
		SKIP("SIMBOOK_BOOKS not set");
	for (k = 0; k < 3; k++) {
		char dir[4096];
		DIR *dp;
		struct dirent *de;

		snprintf(dir, sizeof(dir), "%s/%s", b, dirs[k]);
		dp = opendir(dir);
		if (!dp)
			continue;
		while ((de = readdir(dp))) {
			char p[8192];
			struct extract_doc d;
			struct norm_doc nd;
			struct sbuf err;
			int ret;

			if (de->d_name[0] == '.')
				continue;
			snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
			extract_doc_init(&d);
			norm_doc_init(&nd);
			sbuf_init(&err);
			ret = extract_file(p, NULL, &d, &err);
			if (ret)
				fprintf(stderr, "  %s\n", err.buf);
			CHECK_EQ_INT(ret, 0);
			CHECK(is_valid_utf8(d.text.buf, d.text.len));
			CHECK(!extract_normalize(&d, &nd));
			CHECK(nd.nwords > 1000);
			if (k == 1) {
				CHECK_EQ_STR(d.charset, "WINDOWS-1252");
				/* accented words survive decoding */
				CHECK(strstr(nd.text, "\xC3\xA9") || strstr(nd.text, "\xC3\xA4") ||
				      strstr(nd.text, "\xC3\xBC"));
			}
			if (k != 2)
				CHECK(strstr(nd.text, "project gutenberg literary archive") == NULL);
			nfiles++;
			sbuf_release(&err);
			norm_doc_release(&nd);
			extract_doc_release(&d);
		}
		closedir(dp);
	}
	if (!nfiles)
		SKIP("no books found");
	printf("# %zu real books extracted\n", nfiles);
}

int main(void)
{
	RUN(test_plain_text);
	RUN(test_legacy_charsets);
	RUN(test_sniff);
	RUN(test_html);
	RUN(test_epub);
	RUN(test_epub_fragments);
	RUN(test_broken_epub);
	RUN(test_xhtml_modes);
	RUN(test_time_budget);
	RUN(test_real_cross_format);
	RUN(test_real_all);
	return CHECK_DONE();
}
