/* docx.c - Office Open XML word-processing documents (.docx): the text of
 * word/document.xml in order, metadata from docProps/core.xml.
 *
 * zipread.c reads the archive within the zip limits, libxml2's SAX2 parser
 * the XML (xmltext.c).  Text is the content of <w:t> only, so field codes
 * (<w:instrText>) and deleted text (<w:delText>) never show; runs inside
 * <w:del> and <w:moveFrom> (tracked removals) and the VML fallback copy of
 * text boxes (<mc:Fallback>) are skipped.  Headers, footers, comments,
 * footnotes and endnotes live in other parts and are not read: they are
 * page furniture or notes, not the running text.  A paragraph styled as a
 * level-1 heading or a title (by style id, by its name in word/styles.xml,
 * or by outline level 0) starts a chunk.
 */
#include "extract_i.h"
#include "xmltext.h"
#include "zipread.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#define MAX_HEAD_STYLES 64

struct docx {
	struct xt_text t;
	unsigned skip_depth;	/* inside an element whose text is skipped */
	unsigned t_depth;	/* inside <w:t> */
	unsigned ppr_depth;	/* inside <w:pPr> */
	struct extract_strv heads;	/* style ids of headings (styles.xml) */
};

/* "Heading 1", "heading1", "Title" (style ids and built-in names). */
static int is_head_name(const char *v)
{
	char b[16];
	size_t o = 0;

	for (; *v && o < sizeof(b) - 1; v++)
		if (*v != ' ' && *v != '_' && *v != '-')
			b[o++] = (char)(*v | 0x20);
	b[o] = '\0';
	return !*v && (!strcmp(b, "heading1") || !strcmp(b, "title"));
}

static int is_head_style(struct docx *d, const char *id)
{
	size_t i;

	if (is_head_name(id))
		return 1;
	for (i = 0; i < d->heads.n; i++)
		if (!strcmp(d->heads.v[i], id))
			return 1;
	return 0;
}

static int is_skipped(const char *n)
{
	return !strcmp(n, "del") || !strcmp(n, "moveFrom") || !strcmp(n, "Fallback") ||
	       !strcmp(n, "delText") || !strcmp(n, "instrText");
}

static void on_start(void *ud, const xmlChar *local, const xmlChar *prefix, const xmlChar *uri,
		     int nns, const xmlChar **ns, int natts, int ndef, const xmlChar **atts)
{
	struct docx *d = ud;
	const char *n = (const char *)local;
	char v[64];

	(void)prefix, (void)uri, (void)nns, (void)ns, (void)ndef;
	if (xt_enter(&d->t) || d->skip_depth)
		return;
	if (is_skipped(n)) {
		d->skip_depth = d->t.depth;
	} else if (!strcmp(n, "t")) {
		d->t_depth = d->t.depth;
	} else if (!strcmp(n, "p")) {
		xt_break(&d->t, XT_PARA);
	} else if (!strcmp(n, "pPr")) {
		d->ppr_depth = d->t.depth;
	} else if (d->ppr_depth) {
		if ((!strcmp(n, "pStyle") && xt_attr(atts, natts, "val", v, sizeof(v)) &&
		     is_head_style(d, v)) ||
		    (!strcmp(n, "outlineLvl") && xt_attr(atts, natts, "val", v, sizeof(v)) &&
		     !strcmp(v, "0")))
			xt_chunk(&d->t);
	} else if (!strcmp(n, "tab") || !strcmp(n, "ptab")) {
		xt_break(&d->t, XT_SPACE);
	} else if (!strcmp(n, "br") || !strcmp(n, "cr")) {
		xt_break(&d->t, XT_LINE);
	} else if (!strcmp(n, "noBreakHyphen")) {
		xt_add(&d->t, "-", 1);
	}
}

static void on_end(void *ud, const xmlChar *local, const xmlChar *prefix, const xmlChar *uri)
{
	struct docx *d = ud;
	unsigned depth = d->t.depth;

	(void)prefix, (void)uri;
	if (d->t.error)
		return;
	if (depth == d->skip_depth)
		d->skip_depth = 0;
	else if (depth == d->t_depth)
		d->t_depth = 0;
	else if (depth == d->ppr_depth)
		d->ppr_depth = 0;
	else if (!d->skip_depth && !strcmp((const char *)local, "p"))
		xt_break(&d->t, XT_PARA);
	xt_leave(&d->t);
}

static void on_text(void *ud, const xmlChar *ch, int len)
{
	struct docx *d = ud;

	if (d->t_depth && !d->skip_depth && !d->t.error)
		xt_add(&d->t, (const char *)ch, (size_t)len);
}

static char *attr_val(xmlNodePtr n)
{
	xmlAttrPtr a;

	for (a = n->properties; a; a = a->next)
		if (!strcmp((const char *)a->name, "val"))
			return (char *)xmlNodeGetContent((xmlNodePtr)a);
	return NULL;
}

/* Is style element s a level-1 heading or a title, by name or outline? */
static int style_is_head(xmlNodePtr s)
{
	xmlNodePtr c, g;
	int head = 0;

	for (c = s->children; c && !head; c = c->next) {
		char *v;

		if (c->type != XML_ELEMENT_NODE)
			continue;
		if (!strcmp((const char *)c->name, "name")) {
			v = attr_val(c);
			head = v && is_head_name(v);
			xmlFree(v);
		} else if (!strcmp((const char *)c->name, "pPr")) {
			for (g = c->children; g && !head; g = g->next) {
				if (g->type != XML_ELEMENT_NODE || strcmp((const char *)g->name, "outlineLvl"))
					continue;
				v = attr_val(g);
				head = v && !strcmp(v, "0");
				xmlFree(v);
			}
		}
	}
	return head;
}

/* The ids of heading styles from word/styles.xml; none when it is absent
 * or unreadable (style ids named like headings still count). */
static int read_styles(struct docx *d, struct zipread *z)
{
	xmlDocPtr doc = NULL;
	xmlNodePtr s;
	int ret;

	ret = zipread_xml(z, "word/styles.xml", &doc);
	if (ret == -ENOENT || ret == -EINVAL)
		return 0;
	if (ret)
		return ret;
	for (s = xmlDocGetRootElement(doc)->children; s && !ret; s = s->next) {
		xmlAttrPtr a;

		if (s->type != XML_ELEMENT_NODE || strcmp((const char *)s->name, "style") ||
		    d->heads.n >= MAX_HEAD_STYLES || !style_is_head(s))
			continue;
		for (a = s->properties; a; a = a->next) {
			if (strcmp((const char *)a->name, "styleId"))
				continue;
			char *id = (char *)xmlNodeGetContent((xmlNodePtr)a);

			ret = id ? ex_strv_add(&d->heads, id, strlen(id)) : -ENOMEM;
			xmlFree(id);
		}
	}
	xmlFreeDoc(doc);
	return ret;
}

/* An identifier that says it is an ISBN ("ISBN 0-306-40615-2",
 * "urn:isbn:...") or is a checksum-valid 978/979 ISBN-13. */
static int identifier_isbn(const char *v, char *isbn, size_t sz)
{
	static const char *const pre[] = { "urn:isbn:", "isbn:", "isbn " };
	size_t i;
	int explicit = 0;

	while (*v == ' ')
		v++;
	for (i = 0; i < 3 && !explicit; i++)
		if (!strncasecmp(v, pre[i], strlen(pre[i])))
			v += strlen(pre[i]), explicit = 1;
	while (*v == ' ')
		v++;
	return ex_isbn(v, isbn, sz) &&
	       (explicit || (strlen(isbn) == 13 && (!strncmp(isbn, "978", 3) ||
						    !strncmp(isbn, "979", 3))));
}

/* One Dublin Core element of docProps/core.xml into the document. */
static int core_elem(void *ud, const char *name, const char *v)
{
	struct extract_doc *doc = ud;
	char isbn[16];
	int ret = 0;

	if (!strcmp(name, "title") && !doc->title)
		ret = ex_str_set(&doc->title, v, strlen(v));
	else if (!strcmp(name, "creator"))
		ret = ex_strv_add(&doc->creators, v, strlen(v));
	else if (!strcmp(name, "language") && !doc->language)
		ret = ex_str_set(&doc->language, v, strlen(v));
	else if (!strcmp(name, "identifier")) {
		ret = ex_strv_add(&doc->identifiers, v, strlen(v));
		if (!ret && !doc->isbn && identifier_isbn(v, isbn, sizeof(isbn)))
			ret = ex_str_set(&doc->isbn, isbn, strlen(isbn));
	}
	return ret;
}

/* dc:title, dc:creator, dc:language, dc:identifier of docProps/core.xml. */
static int read_core(struct ex_ctx *ctx, struct zipread *z)
{
	static const char *const names[] = { "title", "creator", "language", "identifier", NULL };

	return xt_meta_each(z, "docProps/core.xml", NULL, names, core_elem, ctx->doc);
}

static int read_document(struct docx *d, struct zipread *z)
{
	return xt_parse_entry(&d->t, z, "word/document.xml", "DOCX", on_start, on_end, on_text, d);
}

/* A password-protected Office document is an OLE compound file holding
 * the encrypted package, not a zip. */
static int is_ole(const void *data, int fd)
{
	static const char magic[8] = "\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1";
	char b[8];

	if (data)
		return !memcmp(data, magic, 8);
	return pread(fd, b, 8, 0) == 8 && !memcmp(b, magic, 8);
}

int docx_extract(struct ex_ctx *ctx, const void *data, size_t len, int fd)
{
	struct zipread z;
	struct docx d;
	size_t i;
	int ret;

	memset(&d, 0, sizeof(d));
	memset(&z, 0, sizeof(z));
	if (len >= 8 && is_ole(data, fd))
		return ex_fail(ctx, -EACCES, "DRM-protected (an encrypted Office document)");
	xt_init(&d.t, ctx);
	ret = zipread_open(&z, ctx, data, len, fd);
	if (!ret)
		ret = read_core(ctx, &z);
	if (!ret)
		ret = read_styles(&d, &z);
	if (!ret)
		ret = read_document(&d, &z);
	if (!ret && !ctx->doc->text.len)
		ret = ex_fail(ctx, EXTRACT_NOTBOOK, "not a book (a document without text)");
	if (ret && !ctx->failed)
		ex_fail(ctx, ret, "%s", strerror(-ret));
	zipread_close(&z);
	for (i = 0; i < d.heads.n; i++)
		free(d.heads.v[i]);
	free(d.heads.v);
	return ret;
}
