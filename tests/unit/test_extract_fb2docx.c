/* FB2 (also zipped), DOCX and ODT extraction: text, paragraphs, chunks,
 * metadata and encodings of small files built here (zips by libzip, with
 * fixed times), broken and hostile ones, and the real calibre-made files of
 * $SIMBOOK_BOOKS/formats against their sources (skipped when absent). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zip.h>

#include "book.h"
#include "check.h"
#include "extract.h"
#include "relate.h"
#include "sbuf.h"
#include "zipgen.h"

/* Extracts; returns the code, err holds the reason. */
static int ex(const void *data, size_t len, const char *name, struct extract_doc *d,
	      struct sbuf *err)
{
	extract_doc_release(d);
	sbuf_setlen(err, 0);
	return extract_buffer(data, len, name, NULL, d, err);
}

static int ex_str(const char *s, const char *name, struct extract_doc *d, struct sbuf *err)
{
	return ex(s, strlen(s), name, d, err);
}

static const char fb2[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<FictionBook xmlns=\"http://www.gribuser.ru/xml/fictionbook/2.0\" "
	"xmlns:l=\"http://www.w3.org/1999/xlink\">\n"
	"<description><title-info><genre>prose</genre>"
	"<author><first-name>Herbert</first-name><middle-name>George</middle-name>"
	"<last-name>Wells</last-name></author>"
	"<author><nickname>anon</nickname></author>"
	"<book-title>The  Book</book-title><lang>en</lang>"
	"<annotation><p>Not in the text.</p></annotation></title-info>"
	"<document-info><author><last-name>Maker</last-name></author><id>doc-42</id></document-info>"
	"<publish-info><isbn>978-0-306-40615-7</isbn></publish-info></description>\n"
	"<body><title><p>Main Title</p></title>"
	"<epigraph><p>An epigraph.</p><text-author>Someone</text-author></epigraph>\n"
	"<section><title><p>One</p></title><p>First <emphasis>para</emphasis>graph.</p>"
	"<empty-line/><p>Second\n  paragraph.</p>"
	"<poem><stanza><v>Line a</v><v>Line b</v></stanza></poem>"
	"<section><subtitle>Inner</subtitle><cite><p>Quoted.</p></cite></section></section>\n"
	"<section><title><p>Two</p></title><p>Last &amp; least<a l:href=\"#n1\">1</a>.</p></section>"
	"</body>\n"
	"<body name=\"notes\"><section id=\"n1\"><title><p>1</p></title><p>A note.</p></section>"
	"<section id=\"n2\"><p>Note two.</p></section></body>\n"
	"<binary id=\"c.jpg\" content-type=\"image/jpeg\">/9j/4AAQSkZJRg==</binary>"
	"<this-is-not-parsed>\n";

static const char fb2_text[] =
	"Main Title\n\nAn epigraph.\n\nSomeone\n\nOne\n\nFirst paragraph.\n\n"
	"Second paragraph.\n\nLine a\n\nLine b\n\nInner\n\nQuoted.\n\n"
	"Two\n\nLast & least1.\n\n1\n\nA note.\n\nNote two.";

static void test_fb2(void)
{
	struct extract_doc d;
	struct sbuf err;
	const char *two, *note;

	extract_doc_init(&d);
	sbuf_init(&err);
	CHECK_EQ_INT(extract_sniff(fb2, strlen(fb2), "b.fb2"), EXTRACT_FMT_FB2);
	CHECK_EQ_INT(extract_sniff(fb2, strlen(fb2), "b"), EXTRACT_FMT_FB2);
	CHECK_EQ_INT(extract_sniff(fb2, strlen(fb2), NULL), EXTRACT_FMT_FB2);
	/* another extension keeps its format */
	CHECK_EQ_INT(extract_sniff(fb2, strlen(fb2), "b.txt"), EXTRACT_FMT_HTML);
	CHECK_EQ_INT(extract_sniff(fb2, strlen(fb2), "b.xml"), EXTRACT_FMT_UNKNOWN);
	REQUIRE(ex_str(fb2, "b.fb2", &d, &err) == 0);
	CHECK_EQ_INT(d.format, EXTRACT_FMT_FB2);
	CHECK_EQ_STR(d.text.buf, fb2_text);
	/* main title and first section; second section; notes */
	REQUIRE(d.nchunks == 3);
	two = strstr(d.text.buf, "Two");
	note = strstr(d.text.buf, "1\n\nA note");
	REQUIRE(two && note);
	CHECK_EQ_INT(d.chunk_off[0], 0);
	CHECK_EQ_INT(d.chunk_off[1], two - d.text.buf);
	CHECK_EQ_INT(d.chunk_off[2], note - d.text.buf);
	CHECK_EQ_STR(d.title, "The Book");
	REQUIRE(d.creators.n == 2);
	CHECK_EQ_STR(d.creators.v[0], "Herbert George Wells");
	CHECK_EQ_STR(d.creators.v[1], "anon");
	CHECK_EQ_STR(d.language, "en");
	REQUIRE(d.identifiers.n == 2);
	CHECK_EQ_STR(d.identifiers.v[0], "doc-42");
	CHECK_EQ_STR(d.isbn, "9780306406157");
	extract_doc_release(&d);
	sbuf_release(&err);
}

static void test_fb2_cp1251(void)
{
	/* "Привет, мир" and the title "Книга" in windows-1251 */
	static const char src[] =
		"<?xml version=\"1.0\" encoding=\"windows-1251\"?>"
		"<FictionBook xmlns=\"http://www.gribuser.ru/xml/fictionbook/2.0\"><description>"
		"<title-info><book-title>\xCA\xED\xE8\xE3\xE0</book-title><lang>ru</lang></title-info>"
		"</description><body><section><p>\xCF\xF0\xE8\xE2\xE5\xF2, \xEC\xE8\xF0</p>"
		"</section></body></FictionBook>";
	struct extract_doc d;
	struct sbuf err;

	extract_doc_init(&d);
	sbuf_init(&err);
	REQUIRE(ex_str(src, "ru.fb2", &d, &err) == 0);
	CHECK_EQ_STR(d.text.buf, "Привет, мир");
	CHECK_EQ_STR(d.title, "Книга");
	CHECK_EQ_STR(d.language, "ru");
	extract_doc_release(&d);
	sbuf_release(&err);
}

static void test_fb2_zip(void)
{
	const char *kv[] = { "book.fb2", fb2 };
	const char *other[] = { "readme.txt", "hello" };
	struct extract_doc d;
	struct sbuf zip, err;

	extract_doc_init(&d);
	sbuf_init(&zip);
	sbuf_init(&err);
	REQUIRE(zipgen_strs(&zip, kv, 1) == 0);
	CHECK_EQ_INT(extract_sniff(zip.buf, zip.len, "book.fb2.zip"), EXTRACT_FMT_FB2);
	CHECK_EQ_INT(extract_sniff(zip.buf, zip.len, NULL), EXTRACT_FMT_FB2);
	REQUIRE(ex(zip.buf, zip.len, "book.fb2.zip", &d, &err) == 0);
	CHECK_EQ_INT(d.format, EXTRACT_FMT_FB2);
	CHECK_EQ_STR(d.text.buf, fb2_text);
	CHECK_EQ_INT(d.nchunks, 3);
	CHECK_EQ_STR(d.title, "The Book");
	/* truncated: the central directory is gone */
	CHECK_EQ_INT(ex(zip.buf, zip.len / 2, "book.fb2.zip", &d, &err), -EBADMSG);
	CHECK(strstr(err.buf, "zip") != NULL);
	/* any other zip stays what it was */
	REQUIRE(zipgen_strs(&zip, other, 1) == 0);
	CHECK_EQ_INT(extract_sniff(zip.buf, zip.len, "x.zip"), EXTRACT_FMT_UNKNOWN);
	extract_doc_release(&d);
	sbuf_release(&zip);
	sbuf_release(&err);
}

/* s nested n times in <section>, inside a minimal FictionBook body. */
static void deep_fb2(struct sbuf *b, int n)
{
	int i;

	sbuf_setlen(b, 0);
	sbuf_addstr(b, "<?xml version=\"1.0\"?><FictionBook><body>");
	for (i = 0; i < n; i++)
		sbuf_addstr(b, "<section>");
	sbuf_addstr(b, "<p>deep</p>");
	for (i = 0; i < n; i++)
		sbuf_addstr(b, "</section>");
	sbuf_addstr(b, "</body></FictionBook>");
}

static void test_fb2_broken(void)
{
	static const char laughs[] =
		"<?xml version=\"1.0\"?><!DOCTYPE f [<!ENTITY a \"aaaaaaaaaa\">"
		"<!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">]><FictionBook><body><p>&b;</p>"
		"</body></FictionBook>";
	struct extract_doc d;
	struct sbuf err, b;

	extract_doc_init(&d);
	sbuf_init(&err);
	sbuf_init(&b);
	CHECK_EQ_INT(ex_str("<FictionBook><body><p>cut", "x.fb2", &d, &err), -EBADMSG);
	CHECK(strstr(err.buf, "malformed XML") && strstr(err.buf, "line 1"));
	CHECK_EQ_INT(d.text.len, 0);
	CHECK_EQ_INT(ex_str("<FictionBook><description/></FictionBook>", "x.fb2", &d, &err),
		     -EBADMSG);
	CHECK(strstr(err.buf, "no <body>") != NULL);
	CHECK_EQ_INT(ex_str("just words", "x.fb2", &d, &err), -EBADMSG);
	CHECK_EQ_INT(ex_str(laughs, "x.fb2", &d, &err), -EBADMSG);
	CHECK(strstr(err.buf, "entities") != NULL);
	deep_fb2(&b, 250);
	CHECK_EQ_INT(ex(b.buf, b.len, "x.fb2", &d, &err), 0);
	deep_fb2(&b, 300);
	CHECK_EQ_INT(ex(b.buf, b.len, "x.fb2", &d, &err), -EFBIG);
	CHECK(strstr(err.buf, "nested deeper") != NULL);
	extract_doc_release(&d);
	sbuf_release(&err);
	sbuf_release(&b);
}

#define W_NS "xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\" " \
	"xmlns:mc=\"http://schemas.openxmlformats.org/markup-compatibility/2006\""

static const char docx_types[] =
	"<?xml version=\"1.0\"?><Types xmlns=\"http://schemas.openxmlformats.org/package/2006/"
	"content-types\"/>";
static const char docx_core[] =
	"<?xml version=\"1.0\"?><cp:coreProperties xmlns:cp=\"http://schemas.openxmlformats.org/"
	"package/2006/metadata/core-properties\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\">"
	"<dc:title>A Docx</dc:title><dc:creator>Ann Author</dc:creator><dc:language>en-GB"
	"</dc:language><dc:identifier>ISBN 0-306-40615-2</dc:identifier></cp:coreProperties>";
static const char docx_styles[] =
	"<?xml version=\"1.0\"?><w:styles " W_NS "><w:style w:styleId=\"berschrift1\">"
	"<w:name w:val=\"heading 1\"/></w:style><w:style w:styleId=\"Normal\">"
	"<w:name w:val=\"Normal\"/></w:style></w:styles>";
static const char docx_doc[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?><w:document " W_NS "><w:body>"
	"<w:p><w:pPr><w:pStyle w:val=\"Title\"/></w:pPr><w:r><w:t>The Title</w:t></w:r></w:p>"
	"<w:p><w:r><w:t xml:space=\"preserve\">Hel</w:t></w:r><w:r><w:rPr><w:b/></w:rPr>"
	"<w:t>lo </w:t></w:r><w:r><w:t>world</w:t><w:tab/><w:t>tabbed</w:t><w:br/>"
	"<w:t>next line</w:t></w:r><w:del><w:r><w:delText>deleted</w:delText></w:r></w:del>"
	"<w:ins><w:r><w:t> inserted</w:t></w:r></w:ins></w:p>"
	"<w:p><w:r><w:fldChar w:fldCharType=\"begin\"/></w:r><w:r><w:instrText> PAGE "
	"</w:instrText></w:r><w:r><w:fldChar w:fldCharType=\"separate\"/></w:r><w:r><w:t>7</w:t>"
	"</w:r><w:r><w:fldChar w:fldCharType=\"end\"/></w:r><w:moveFrom><w:r><w:t>moved away"
	"</w:t></w:r></w:moveFrom><w:r><w:t>non</w:t><w:noBreakHyphen/><w:t>stop</w:t></w:r></w:p>"
	"<w:p><w:pPr><w:pStyle w:val=\"berschrift1\"/></w:pPr><w:r><w:t>Chapter 2</w:t></w:r></w:p>"
	"<w:p><w:r><mc:AlternateContent><mc:Choice><w:txbxContent><w:p><w:r><w:t>In a box</w:t>"
	"</w:r></w:p></w:txbxContent></mc:Choice><mc:Fallback><w:txbxContent><w:p><w:r><w:t>"
	"In a box</w:t></w:r></w:p></w:txbxContent></mc:Fallback></mc:AlternateContent></w:r></w:p>"
	"<w:p><w:pPr><w:outlineLvl w:val=\"0\"/></w:pPr><w:r><w:t>Part 3</w:t></w:r></w:p>"
	"<w:sectPr/></w:body></w:document>";

static void test_docx(void)
{
	const char *kv[] = {
		"[Content_Types].xml", docx_types, "docProps/core.xml", docx_core,
		"word/styles.xml", docx_styles, "word/document.xml", docx_doc,
	};
	struct extract_doc d;
	struct sbuf zip, err;
	const char *ch2, *p3;

	extract_doc_init(&d);
	sbuf_init(&zip);
	sbuf_init(&err);
	REQUIRE(zipgen_strs(&zip, kv, 4) == 0);
	CHECK_EQ_INT(extract_sniff(zip.buf, zip.len, NULL), EXTRACT_FMT_DOCX);
	CHECK_EQ_INT(extract_sniff(zip.buf, zip.len, "x.docx"), EXTRACT_FMT_DOCX);
	CHECK_EQ_INT(extract_sniff("PK\3\4", 4, "x.DOCX"), EXTRACT_FMT_DOCX);
	REQUIRE(ex(zip.buf, zip.len, "x.docx", &d, &err) == 0);
	CHECK_EQ_INT(d.format, EXTRACT_FMT_DOCX);
	CHECK_EQ_STR(d.text.buf, "The Title\n\nHello world tabbed\nnext line inserted\n\n"
		     "7non-stop\n\nChapter 2\n\nIn a box\n\nPart 3");
	ch2 = strstr(d.text.buf, "Chapter 2");
	p3 = strstr(d.text.buf, "Part 3");
	REQUIRE(d.nchunks == 3 && ch2 && p3);
	CHECK_EQ_INT(d.chunk_off[0], 0);
	CHECK_EQ_INT(d.chunk_off[1], ch2 - d.text.buf);
	CHECK_EQ_INT(d.chunk_off[2], p3 - d.text.buf);
	CHECK_EQ_STR(d.title, "A Docx");
	REQUIRE(d.creators.n == 1);
	CHECK_EQ_STR(d.creators.v[0], "Ann Author");
	CHECK_EQ_STR(d.language, "en-GB");
	CHECK_EQ_STR(d.isbn, "0306406152");
	extract_doc_release(&d);
	sbuf_release(&zip);
	sbuf_release(&err);
}

static void test_docx_broken(void)
{
	const char *nodoc[] = { "[Content_Types].xml", docx_types, "word/styles.xml", docx_styles };
	const char *bad[] = { "[Content_Types].xml", docx_types,
			      "word/document.xml", "<w:document><w:body><w:p>" };
	const char *bomb[] = { "[Content_Types].xml", docx_types, "word/document.xml", NULL };
	size_t big = 8u << 20;
	char *spaces = malloc(big + 1);
	struct extract_doc d;
	struct sbuf zip, err, deep;
	int i;

	extract_doc_init(&d);
	sbuf_init(&zip);
	sbuf_init(&err);
	sbuf_init(&deep);
	REQUIRE(spaces);
	REQUIRE(zipgen_strs(&zip, nodoc, 2) == 0);
	CHECK_EQ_INT(ex(zip.buf, zip.len, "x.docx", &d, &err), -EBADMSG);
	CHECK(strstr(err.buf, "no word/document.xml") != NULL);
	REQUIRE(zipgen_strs(&zip, bad, 2) == 0);
	CHECK_EQ_INT(ex(zip.buf, zip.len, "x.docx", &d, &err), -EBADMSG);
	CHECK(strstr(err.buf, "malformed XML in word/document.xml") != NULL);
	CHECK_EQ_INT(ex(zip.buf, zip.len - 10, "x.docx", &d, &err), -EBADMSG);
	/* 8 MiB of white space deflates about 1000 to 1 */
	memset(spaces, ' ', big);
	spaces[big] = '\0';
	memcpy(spaces, "<w:document>", 12);
	bomb[3] = spaces;
	REQUIRE(zipgen_strs(&zip, bomb, 2) == 0);
	CHECK_EQ_INT(ex(zip.buf, zip.len, "x.docx", &d, &err), -EFBIG);
	CHECK(strstr(err.buf, "ratio") != NULL);
	/* deep nesting */
	sbuf_addstr(&deep, "<w:document " W_NS "><w:body>");
	for (i = 0; i < 400; i++)
		sbuf_addstr(&deep, "<w:tbl>");
	bomb[3] = deep.buf;
	REQUIRE(zipgen_strs(&zip, bomb, 2) == 0);
	CHECK_EQ_INT(ex(zip.buf, zip.len, "x.docx", &d, &err), -EFBIG);
	CHECK(strstr(err.buf, "nested deeper") != NULL);
	/* a valid document without text */
	bad[3] = "<w:document " W_NS "><w:body><w:p/></w:body></w:document>";
	REQUIRE(zipgen_strs(&zip, bad, 2) == 0);
	CHECK_EQ_INT(ex(zip.buf, zip.len, "x.docx", &d, &err), EXTRACT_NOTBOOK);
	CHECK(strstr(err.buf, "without text") != NULL);
	/* a password-protected document (an OLE compound file) */
	CHECK_EQ_INT(ex("\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1 rest", 14, "x.docx", &d, &err), -EACCES);
	CHECK(strstr(err.buf, "DRM-protected") != NULL);
	CHECK_EQ_INT(ex("\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1 rest", 14, "x.doc", &d, &err),
		     EXTRACT_NOTBOOK);
	free(spaces);
	extract_doc_release(&d);
	sbuf_release(&zip);
	sbuf_release(&err);
	sbuf_release(&deep);
}

#define ODT_MIME "application/vnd.oasis.opendocument.text"
#define O_NS "xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\" " \
	"xmlns:text=\"urn:oasis:names:tc:opendocument:xmlns:text:1.0\" " \
	"xmlns:dc=\"http://purl.org/dc/elements/1.1/\" " \
	"xmlns:meta=\"urn:oasis:names:tc:opendocument:xmlns:meta:1.0\" " \
	"xmlns:svg=\"urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0\" " \
	"xmlns:draw=\"urn:oasis:names:tc:opendocument:xmlns:drawing:1.0\""

static const char odt_meta[] =
	"<?xml version=\"1.0\"?><office:document-meta " O_NS "><office:meta>"
	"<meta:initial-creator>First Writer</meta:initial-creator><dc:creator>Last Editor"
	"</dc:creator><dc:title>An Odt</dc:title><dc:language>fr</dc:language></office:meta>"
	"</office:document-meta>";
static const char odt_content[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?><office:document-content " O_NS ">"
	"<office:automatic-styles><text:p>not text</text:p></office:automatic-styles>"
	"<office:body><office:text>\n  <text:tracked-changes><text:changed-region><text:deletion>"
	"<text:p>gone</text:p></text:deletion></text:changed-region></text:tracked-changes>\n"
	"  <text:h text:outline-level=\"1\">Chapitre un</text:h>\n"
	"  <text:p>Il <text:span>était</text:span><text:s text:c=\"3\"/>une<text:tab/>fois"
	"<text:line-break/>deux<office:annotation><text:p>a comment</text:p></office:annotation>"
	"<text:note><text:note-citation>1</text:note-citation><text:note-body><text:p>footnote"
	"</text:p></text:note-body></text:note>.</text:p>\n"
	"  <text:list><text:list-item><text:p>item one</text:p></text:list-item>"
	"<text:list-item><text:p>item two</text:p></text:list-item></text:list>\n"
	"  <text:h text:outline-level=\"2\">Section</text:h>"
	"<text:p><draw:frame><svg:title>alt text</svg:title></draw:frame>after</text:p>\n"
	"  <text:h text:outline-level=\"1\">Chapitre deux</text:h><text:p>fin</text:p>\n"
	"</office:text></office:body></office:document-content>";

static void test_odt(void)
{
	const char *kv[] = {
		"mimetype", ODT_MIME, "content.xml", odt_content, "meta.xml", odt_meta,
		"META-INF/manifest.xml", "<manifest:manifest/>",
	};
	const char *enc[] = {
		"mimetype", ODT_MIME, "content.xml", odt_content,
		"META-INF/manifest.xml", "<m><manifest:encryption-data/></m>",
	};
	const char *calc[] = {
		"mimetype", "application/vnd.oasis.opendocument.spreadsheet", "content.xml", odt_content,
	};
	struct extract_doc d;
	struct sbuf zip, err;
	const char *two;

	extract_doc_init(&d);
	sbuf_init(&zip);
	sbuf_init(&err);
	REQUIRE(zipgen_strs(&zip, kv, 4) == 0);
	CHECK_EQ_INT(extract_sniff(zip.buf, zip.len, NULL), EXTRACT_FMT_ODT);
	CHECK_EQ_INT(extract_sniff(zip.buf, zip.len, "x.zip"), EXTRACT_FMT_ODT);
	REQUIRE(ex(zip.buf, zip.len, "x.odt", &d, &err) == 0);
	CHECK_EQ_INT(d.format, EXTRACT_FMT_ODT);
	CHECK_EQ_STR(d.text.buf, "Chapitre un\n\nIl était une fois\ndeux.\n\nitem one\n\n"
		     "item two\n\nSection\n\nafter\n\nChapitre deux\n\nfin");
	two = strstr(d.text.buf, "Chapitre deux");
	REQUIRE(d.nchunks == 2 && two);
	CHECK_EQ_INT(d.chunk_off[0], 0);
	CHECK_EQ_INT(d.chunk_off[1], two - d.text.buf);
	CHECK_EQ_STR(d.title, "An Odt");
	REQUIRE(d.creators.n == 1);
	CHECK_EQ_STR(d.creators.v[0], "First Writer");
	CHECK_EQ_STR(d.language, "fr");
	REQUIRE(zipgen_strs(&zip, enc, 3) == 0);
	CHECK_EQ_INT(ex(zip.buf, zip.len, "x.odt", &d, &err), -EACCES);
	CHECK(strstr(err.buf, "DRM-protected") != NULL);
	REQUIRE(zipgen_strs(&zip, calc, 2) == 0);
	CHECK_EQ_INT(extract_sniff(zip.buf, zip.len, NULL), EXTRACT_FMT_EPUB);
	CHECK_EQ_INT(ex(zip.buf, zip.len, "x.odt", &d, &err), EXTRACT_NOTBOOK);
	extract_doc_release(&d);
	sbuf_release(&zip);
	sbuf_release(&err);
}

/* The calibre-made file formats/name against the source, by the real
 * comparison: same text or a near duplicate. */
static void check_relation(const char *name, const char *source)
{
	const char *dir = getenv("SIMBOOK_BOOKS");
	char a[4096], b[4096];
	struct book *x = NULL, *y = NULL;
	struct book_cmp c;
	struct sbuf err;

	sbuf_init(&err);
	snprintf(a, sizeof(a), "%s/formats/%s", dir, name);
	snprintf(b, sizeof(b), "%s/%s", dir, source);
	if (book_load(a, NULL, &x, &err) || book_load(b, NULL, &y, &err)) {
		fprintf(stderr, "  %s\n", err.buf);
		CHECK(0);
		goto out;
	}
	REQUIRE(book_compare(x, y, NULL, &c) == 0);
	fprintf(stderr, "  %s vs %s: class %d (%s), %llu vs %llu words\n", name, source,
		(int)c.rel.cls, c.rel.rule, (unsigned long long)c.sig.words_a,
		(unsigned long long)c.sig.words_b);
	CHECK(c.rel.cls == RELATE_SAME_TEXT || c.rel.cls == RELATE_NEAR_DUPLICATE);
	CHECK(c.sig.words_a > 5000);
out:
	book_free(x);
	book_free(y);
	sbuf_release(&err);
}

static void test_shared_books(void)
{
	const char *dir = getenv("SIMBOOK_BOOKS");
	char p[4096];
	FILE *f;

	if (!dir)
		SKIP("SIMBOOK_BOOKS not set");
	snprintf(p, sizeof(p), "%s/formats/wotw.fb2", dir);
	f = fopen(p, "rb");
	if (!f)
		SKIP("no $SIMBOOK_BOOKS/formats");
	fclose(f);
	check_relation("wotw.fb2", "epub/pg36-war-of-the-worlds.epub");
	check_relation("wotw.docx", "epub/pg36-war-of-the-worlds.epub");
	check_relation("alice-storyland-abridged.fb2",
		       "texts/pg19033-alice-in-wonderland-storyland-abridged.txt");
}

int main(void)
{
	RUN(test_fb2);
	RUN(test_fb2_cp1251);
	RUN(test_fb2_zip);
	RUN(test_fb2_broken);
	RUN(test_docx);
	RUN(test_docx_broken);
	RUN(test_odt);
	RUN(test_shared_books);
	return CHECK_DONE();
}
