/* fb2.c - FictionBook 2 (XML) and FB2 in a zip (.fb2.zip): the text of the
 * <body> elements in document order, metadata from <description>.
 *
 * libxml2's SAX2 parser reads the XML (xmltext.c: declared encodings such
 * as windows-1251 are honoured, nothing external is loaded, no entity is
 * expanded).  The main body's top-level <section>s are the chunks (its
 * title and epigraphs before the first section join the first one); each
 * further body (notes, comments) follows the main text as one chunk of its
 * own, since its text is part of the book (the EPUB has it as endnotes).
 * <binary> (base64 images) is never decoded: once a body has been read, the
 * first <binary> ends the parse, as FB2 puts them after the bodies; one
 * before that is skipped unread.
 */
#include "extract_i.h"
#include "xmltext.h"
#include "zipread.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/parser.h>

#define MAX_FIELD 1024		/* bytes kept of one metadata field */
#define MAX_AUTHORS 64

enum field { F_NONE, F_TITLE, F_LANG, F_FIRST, F_MIDDLE, F_LAST, F_NICK, F_ID, F_ISBN };

struct fb2 {
	struct xt_text t;
	struct ex_ctx *ctx;
	unsigned desc_depth;	/* inside <description> */
	unsigned info_depth;	/* inside <title-info> */
	unsigned docinfo_depth;	/* inside <document-info> */
	unsigned pubinfo_depth;	/* inside <publish-info> */
	unsigned author_depth;	/* inside title-info's <author> */
	unsigned field_depth;	/* inside the metadata field being read */
	enum field field;
	struct sbuf val;	/* that field's text */
	struct sbuf name[4];	/* first, middle, last name, nickname */
	unsigned body_depth;	/* inside a <body> */
	unsigned skip_depth;	/* inside an element whose text is skipped */
	int notes;		/* the current body is not the main one */
	int bodies;		/* bodies opened so far */
	int sections;		/* top-level sections of the current body */
	int info_done;		/* the first <title-info> was read */
};

/* Elements that are paragraphs (or hold them) in a body. */
static int is_block(const char *n)
{
	static const char *const tags[] = {
		"p", "v", "subtitle", "text-author", "title", "epigraph", "cite", "poem",
		"stanza", "section", "empty-line", "table", "tr", "date", "annotation", NULL
	};
	size_t i;

	for (i = 0; tags[i]; i++)
		if (!strcmp(n, tags[i]))
			return 1;
	return 0;
}

static void start_field(struct fb2 *f, enum field which)
{
	f->field = which;
	f->field_depth = f->t.depth;
	sbuf_setlen(&f->val, 0);
}

static void meta_start(struct fb2 *f, const char *n)
{
	unsigned d = f->t.depth;

	if (!f->desc_depth) {
		if (!strcmp(n, "description"))
			f->desc_depth = d;
		return;
	}
	if (f->field_depth)
		return;
	if (f->author_depth) {
		if (!strcmp(n, "first-name"))
			start_field(f, F_FIRST);
		else if (!strcmp(n, "middle-name"))
			start_field(f, F_MIDDLE);
		else if (!strcmp(n, "last-name"))
			start_field(f, F_LAST);
		else if (!strcmp(n, "nickname"))
			start_field(f, F_NICK);
	} else if (f->info_depth == d - 1) {
		if (!strcmp(n, "book-title"))
			start_field(f, F_TITLE);
		else if (!strcmp(n, "lang"))
			start_field(f, F_LANG);
		else if (!strcmp(n, "author")) {
			size_t i;

			f->author_depth = d;
			for (i = 0; i < 4; i++)
				sbuf_setlen(&f->name[i], 0);
		}
	} else if (f->docinfo_depth == d - 1 && !strcmp(n, "id")) {
		start_field(f, F_ID);
	} else if (f->pubinfo_depth == d - 1 && !strcmp(n, "isbn")) {
		start_field(f, F_ISBN);
	} else if (f->desc_depth == d - 1) {
		if (!strcmp(n, "title-info") && !f->info_done)
			f->info_depth = d;
		else if (!strcmp(n, "document-info"))
			f->docinfo_depth = d;
		else if (!strcmp(n, "publish-info"))
			f->pubinfo_depth = d;
	}
}

static int end_author(struct fb2 *f)
{
	struct extract_doc *doc = f->ctx->doc;
	struct sbuf full;
	size_t i;
	int ret = 0;

	if (doc->creators.n >= MAX_AUTHORS)
		return 0;
	sbuf_init(&full);
	for (i = 0; i < 3 && !ret; i++)
		if (f->name[i].len) {
			ret = sbuf_addch(&full, ' ');
			if (!ret)
				ret = sbuf_add(&full, f->name[i].buf, f->name[i].len);
		}
	if (!ret && !full.len && f->name[3].len)
		ret = sbuf_add(&full, f->name[3].buf, f->name[3].len);
	if (!ret)
		ret = ex_strv_add(&doc->creators, full.buf ? full.buf : "", full.len);
	sbuf_release(&full);
	return ret;
}

static int end_field(struct fb2 *f)
{
	struct extract_doc *doc = f->ctx->doc;
	const char *v = f->val.buf ? f->val.buf : "";
	char isbn[16];
	int ret = 0;

	switch (f->field) {
	case F_TITLE:
		if (!doc->title)
			ret = ex_str_set(&doc->title, v, f->val.len);
		break;
	case F_LANG:
		if (!doc->language)
			ret = ex_str_set(&doc->language, v, f->val.len);
		break;
	case F_FIRST: case F_MIDDLE: case F_LAST: case F_NICK:
		sbuf_setlen(&f->name[f->field - F_FIRST], 0);
		ret = sbuf_add(&f->name[f->field - F_FIRST], v, f->val.len);
		break;
	case F_ID:
		ret = ex_strv_add(&doc->identifiers, v, f->val.len);
		break;
	case F_ISBN:
		ret = ex_strv_add(&doc->identifiers, v, f->val.len);
		if (!ret && !doc->isbn && doc->identifiers.n &&
		    ex_isbn(doc->identifiers.v[doc->identifiers.n - 1], isbn, sizeof(isbn)))
			ret = ex_str_set(&doc->isbn, isbn, strlen(isbn));
		break;
	case F_NONE:
	default:
		break;
	}
	f->field = F_NONE;
	f->field_depth = 0;
	return ret;
}

/* Leaving a metadata element at depth d. */
static int meta_end(struct fb2 *f, unsigned d)
{
	int ret = 0;

	if (d == f->field_depth)
		ret = end_field(f);
	else if (d == f->author_depth)
		f->author_depth = 0, ret = end_author(f);
	else if (d == f->info_depth)
		f->info_depth = 0, f->info_done = 1;
	else if (d == f->docinfo_depth)
		f->docinfo_depth = 0;
	else if (d == f->pubinfo_depth)
		f->pubinfo_depth = 0;
	else if (d == f->desc_depth)
		f->desc_depth = 0;
	return ret;
}

static void body_start(struct fb2 *f, const char *n, const xmlChar **atts, int natts)
{
	unsigned d = f->t.depth;
	char name[32];

	if (!f->body_depth) {
		if (!strcmp(n, "body")) {
			f->body_depth = d;
			f->notes = f->bodies++ > 0 ||
				(xt_attr(atts, natts, "name", name, sizeof(name)) && *name &&
				 strcasecmp(name, "main"));
			f->sections = 0;
			xt_chunk(&f->t);
		} else if (!strcmp(n, "binary")) {
			if (f->bodies)
				xt_done(&f->t);
			else if (!f->skip_depth)
				f->skip_depth = d;
		}
		return;
	}
	if (f->skip_depth)
		return;
	if (!strcmp(n, "section") && d == f->body_depth + 1 && !f->notes && f->sections++)
		xt_chunk(&f->t);
	else if (!strcmp(n, "td") || !strcmp(n, "th"))
		xt_break(&f->t, XT_SPACE);
	else if (is_block(n))
		xt_break(&f->t, XT_PARA);
}

static void on_start(void *ud, const xmlChar *local, const xmlChar *prefix, const xmlChar *uri,
		     int nns, const xmlChar **ns, int natts, int ndef, const xmlChar **atts)
{
	struct fb2 *f = ud;
	const char *n = (const char *)local;

	(void)prefix, (void)uri, (void)nns, (void)ns, (void)ndef;
	if (xt_enter(&f->t))
		return;
	if (!f->body_depth)
		meta_start(f, n);
	body_start(f, n, atts, natts);
}

static void on_end(void *ud, const xmlChar *local, const xmlChar *prefix, const xmlChar *uri)
{
	struct fb2 *f = ud;
	unsigned d = f->t.depth;
	int ret;

	(void)prefix, (void)uri;
	if (f->t.error)
		return;
	if (d == f->skip_depth) {
		f->skip_depth = 0;
	} else if (d == f->body_depth) {
		f->body_depth = 0;
	} else if (f->body_depth && !f->skip_depth) {
		if (is_block((const char *)local))
			xt_break(&f->t, XT_PARA);
	} else if (f->desc_depth && (ret = meta_end(f, d))) {
		xt_stop(&f->t, ret);
	}
	xt_leave(&f->t);
}

static void on_text(void *ud, const xmlChar *ch, int len)
{
	struct fb2 *f = ud;

	if (f->t.error)
		return;
	if (f->field_depth) {
		if (f->val.len < MAX_FIELD && sbuf_add(&f->val, ch, (size_t)len))
			xt_stop(&f->t, -ENOMEM);
	} else if (f->body_depth && !f->skip_depth) {
		xt_add(&f->t, (const char *)ch, (size_t)len);
	}
}

static int parse(struct ex_ctx *ctx, const char *xml, size_t len, const char *what)
{
	xmlSAXHandler sax;
	struct fb2 f;
	size_t i;
	int ret;

	memset(&f, 0, sizeof(f));
	xt_init(&f.t, ctx);
	f.ctx = ctx;
	sbuf_init(&f.val);
	for (i = 0; i < 4; i++)
		sbuf_init(&f.name[i]);
	memset(&sax, 0, sizeof(sax));
	sax.startElementNs = on_start;
	sax.endElementNs = on_end;
	sax.characters = on_text;
	sax.cdataBlock = on_text;
	ret = xt_parse(&f.t, xml, len, &sax, &f, what);
	if (!ret && !f.bodies)
		ret = ex_fail(ctx, -EBADMSG, "no <body> in the FictionBook");
	if (!ret && !ctx->doc->text.len)
		ret = ex_fail(ctx, EXTRACT_NOTBOOK, "not a book (a FictionBook without text)");
	sbuf_release(&f.val);
	for (i = 0; i < 4; i++)
		sbuf_release(&f.name[i]);
	return ret;
}

static int ends_with_fb2(const char *name)
{
	size_t l = name ? strlen(name) : 0;

	return l > 4 && !strcasecmp(name + l - 4, ".fb2");
}

/* A zip holding one .fb2 entry (the first such entry is read). */
static int from_zip(struct ex_ctx *ctx, const void *data, size_t len)
{
	struct zipread z;
	struct sbuf xml;
	const char *name = NULL;
	int64_t i;
	int ret;

	sbuf_init(&xml);
	ret = zipread_open(&z, ctx, data, len, -1);
	for (i = 0; !ret && i < z.nentries; i++) {
		name = zipread_name(&z, (uint64_t)i);
		if (ends_with_fb2(name))
			break;
	}
	if (!ret && i == z.nentries)
		ret = ex_fail(ctx, -EBADMSG, "zip archive without a .fb2 entry");
	if (!ret)
		ret = zipread_entry(&z, (uint64_t)i, 0, &xml);
	if (!ret)
		ret = parse(ctx, xml.buf, xml.len, name);
	zipread_close(&z);
	sbuf_release(&xml);
	return ret;
}

int fb2_extract(struct ex_ctx *ctx, const char *data, size_t len)
{
	if (len >= 4 && !memcmp(data, "PK\3\4", 4))
		return from_zip(ctx, data, len);
	return parse(ctx, data, len, "the FictionBook");
}
