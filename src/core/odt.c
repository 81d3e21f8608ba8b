/* odt.c - OpenDocument Text (.odt): the text of content.xml's <office:text>
 * in order, metadata from meta.xml.
 *
 * zipread.c reads the archive within the zip limits, libxml2's SAX2 parser
 * the XML (xmltext.c).  Paragraphs and headings (<text:p>, <text:h>, also
 * in lists, tables and frames) give paragraphs; <text:s>, <text:tab> and
 * <text:line-break> their white space.  Annotations, tracked changes (the
 * text of deletions is kept there), footnotes and endnotes (<text:note>,
 * notes rather than running text, as in docx.c) and SVG titles and
 * descriptions of drawings are skipped.  A level-1 heading starts a chunk.
 * Entries encrypted by ODF itself (META-INF/manifest.xml lists
 * encryption-data) are refused as protected.
 */
#include "extract_i.h"
#include "xmltext.h"
#include "zipread.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#define ODT_MIME "application/vnd.oasis.opendocument.text"

struct odt {
	struct xt_text t;
	unsigned text_depth;	/* inside <office:text> */
	unsigned para_depth;	/* inside the outermost <text:p>/<text:h> */
	unsigned skip_depth;	/* inside an element whose text is skipped */
};

static int is_skipped(const char *n, const char *uri)
{
	if (uri && strstr(uri, "svg"))
		return !strcmp(n, "title") || !strcmp(n, "desc");
	return !strcmp(n, "annotation") || !strcmp(n, "tracked-changes") || !strcmp(n, "note") ||
	       !strcmp(n, "annotation-end");
}

static void on_start(void *ud, const xmlChar *local, const xmlChar *prefix, const xmlChar *uri,
		     int nns, const xmlChar **ns, int natts, int ndef, const xmlChar **atts)
{
	struct odt *o = ud;
	const char *n = (const char *)local;
	char v[16];

	(void)prefix, (void)nns, (void)ns, (void)ndef;
	if (xt_enter(&o->t) || o->skip_depth)
		return;
	if (!o->text_depth) {
		if (!strcmp(n, "text"))
			o->text_depth = o->t.depth;
		return;
	}
	if (is_skipped(n, (const char *)uri)) {
		o->skip_depth = o->t.depth;
	} else if (!strcmp(n, "p") || !strcmp(n, "h")) {
		if (n[0] == 'h' && (!xt_attr(atts, natts, "outline-level", v, sizeof(v)) ||
				    !strcmp(v, "1")))
			xt_chunk(&o->t);
		xt_break(&o->t, XT_PARA);
		if (!o->para_depth)
			o->para_depth = o->t.depth;
	} else if (!strcmp(n, "s") || !strcmp(n, "tab")) {
		xt_break(&o->t, XT_SPACE);
	} else if (!strcmp(n, "line-break")) {
		xt_break(&o->t, XT_LINE);
	}
}

static void on_end(void *ud, const xmlChar *local, const xmlChar *prefix, const xmlChar *uri)
{
	struct odt *o = ud;
	unsigned d = o->t.depth;

	(void)prefix, (void)uri;
	if (o->t.error)
		return;
	if (d == o->skip_depth) {
		o->skip_depth = 0;
	} else if (d == o->text_depth) {
		o->text_depth = 0;
	} else if (!o->skip_depth && (!strcmp((const char *)local, "p") ||
				      !strcmp((const char *)local, "h"))) {
		xt_break(&o->t, XT_PARA);
		if (d == o->para_depth)
			o->para_depth = 0;
	}
	xt_leave(&o->t);
}

static void on_text(void *ud, const xmlChar *ch, int len)
{
	struct odt *o = ud;

	if (o->para_depth && !o->skip_depth && !o->t.error)
		xt_add(&o->t, (const char *)ch, (size_t)len);
}

/* meta.xml read so far: the document, and dc:creator kept for when no
 * meta:initial-creator comes. */
struct meta {
	struct extract_doc *doc;
	char *creator;		/* owned */
};

static int meta_elem(void *ud, const char *name, const char *v)
{
	struct meta *m = ud;
	struct extract_doc *doc = m->doc;

	if (!strcmp(name, "title") && !doc->title)
		return ex_str_set(&doc->title, v, strlen(v));
	if (!strcmp(name, "language") && !doc->language)
		return ex_str_set(&doc->language, v, strlen(v));
	if (!strcmp(name, "initial-creator") && !doc->creators.n)
		return ex_strv_add(&doc->creators, v, strlen(v));
	if (!strcmp(name, "creator") && !m->creator)
		m->creator = strdup(v);
	return 0;
}

/* dc:title, meta:initial-creator (else dc:creator), dc:language from meta.xml. */
static int read_meta(struct ex_ctx *ctx, struct zipread *z)
{
	static const char *const names[] = { "title", "creator", "language", "initial-creator",
					     NULL };
	struct meta m = { ctx->doc, NULL };
	int ret;

	ret = xt_meta_each(z, "meta.xml", "meta", names, meta_elem, &m);
	if (!ret && !m.doc->creators.n && m.creator)
		ret = ex_strv_add(&m.doc->creators, m.creator, strlen(m.creator));
	free(m.creator);
	return ret;
}

/* The mimetype entry must say text; an encrypted package is refused. */
static int check_package(struct ex_ctx *ctx, struct zipread *z)
{
	struct sbuf b;
	int64_t idx;
	int ret = 0;

	sbuf_init(&b);
	idx = zipread_locate(z, "mimetype");
	if (idx < 0) {
		ret = ex_fail(ctx, -EBADMSG, "no mimetype entry in the OpenDocument file");
		goto out;
	}
	ret = zipread_entry(z, (uint64_t)idx, 256, &b);
	if (ret)
		goto out;
	if (b.len < strlen(ODT_MIME) || memcmp(b.buf, ODT_MIME, strlen(ODT_MIME))) {
		ret = ex_fail(ctx, EXTRACT_NOTBOOK, "not a book (an OpenDocument file that is not text)");
		goto out;
	}
	idx = zipread_locate(z, "META-INF/manifest.xml");
	if (idx >= 0) {
		ret = zipread_entry(z, (uint64_t)idx, ctx->lim->max_meta_bytes, &b);
		if (!ret && memmem(b.buf, b.len, "encryption-data", 15))
			ret = ex_fail(ctx, -EACCES, "DRM-protected (an encrypted OpenDocument file)");
	}
out:
	sbuf_release(&b);
	return ret;
}

static int read_content(struct odt *o, struct zipread *z)
{
	return xt_parse_entry(&o->t, z, "content.xml", "OpenDocument file", on_start, on_end, on_text, o);
}

int odt_extract(struct ex_ctx *ctx, const void *data, size_t len, int fd)
{
	struct zipread z;
	struct odt o;
	int ret;

	memset(&o, 0, sizeof(o));
	xt_init(&o.t, ctx);
	ret = zipread_open(&z, ctx, data, len, fd);
	if (!ret)
		ret = check_package(ctx, &z);
	if (!ret)
		ret = read_meta(ctx, &z);
	if (!ret)
		ret = read_content(&o, &z);
	if (!ret && !ctx->doc->text.len)
		ret = ex_fail(ctx, EXTRACT_NOTBOOK, "not a book (a document without text)");
	if (ret && !ctx->failed)
		ex_fail(ctx, ret, "%s", strerror(-ret));
	zipread_close(&z);
	return ret;
}
