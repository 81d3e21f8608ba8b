/* html.c - (X)HTML to plain text with libxml2's HTML parser in SAX mode.
 *
 * Why libxml2's HTML parser, for EPUB XHTML too: it decodes every HTML named
 * character reference (EPUB 2 content uses &nbsp; &mdash; ... without a
 * loadable DTD), tolerates the broken markup real books contain, never loads
 * a DTD or an external entity and does not expand entities declared in a
 * document (billion laughs has nothing to expand).  SAX mode builds no tree,
 * so memory stays proportional to the text, and lets us stop the parser at
 * our own depth, size and time limits.
 */
#include "extract_i.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/HTMLparser.h>
#include <libxml/entities.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/xmlerror.h>

enum brk { BRK_NONE, BRK_SPACE, BRK_LINE, BRK_PARA };

struct html_state {
	struct ex_ctx *ctx;
	htmlParserCtxtPtr pctx;
	struct sbuf *out;
	size_t base;		/* out->len at the start: break only after text */
	struct extract_doc *meta;
	unsigned depth, skip_depth, pre_depth, title_depth;
	enum brk pending;
	int error;		/* first error, parser stopped */
	unsigned calls;
	struct sbuf title, author;
	int want_title, want_author, want_lang;
	xmlEntityPtr ents[64];	/* HTML named references met in XML mode */
	size_t nents;
};

/* Elements whose end or start is a paragraph break, by first letter (the
 * HTML parser gives lower-case names), so a lookup costs a few compares. */
static const char *const block_tags[26][12] = {
	['a' - 'a'] = { "address", "article", "aside" },
	['b' - 'a'] = { "blockquote", "body" },
	['c' - 'a'] = { "caption", "center" },
	['d' - 'a'] = { "dd", "div", "dl", "dt" },
	['f' - 'a'] = { "fieldset", "figcaption", "figure", "footer", "form" },
	['h' - 'a'] = { "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "html" },
	['l' - 'a'] = { "li" },
	['m' - 'a'] = { "main" },
	['n' - 'a'] = { "nav" },
	['o' - 'a'] = { "ol" },
	['p' - 'a'] = { "p", "pre" },
	['s' - 'a'] = { "section" },
	['t' - 'a'] = { "table", "tbody", "td", "tfoot", "th", "thead", "tr" },
	['u' - 'a'] = { "ul" },
};

static int is_block(const char *name)
{
	unsigned char c = (unsigned char)name[0] | 0x20;
	const char *const *t;

	if (c < 'a' || c > 'z')
		return 0;
	for (t = block_tags[c - 'a']; *t; t++)
		if (!strcasecmp(name, *t))
			return 1;
	return 0;
}

static int is_skipped(const char *name)
{
	switch ((unsigned char)name[0] | 0x20) {
	case 'h':
		return !strcasecmp(name, "head");
	case 's':
		return !strcasecmp(name, "script") || !strcasecmp(name, "style");
	case 't':
		return !strcasecmp(name, "template");
	default:
		return 0;
	}
}

/* Local name of a possibly prefixed element name ("xhtml:p" -> "p"). */
static const char *local_name(const xmlChar *name)
{
	const char *n = (const char *)name, *c = strrchr(n, ':');

	return c ? c + 1 : n;
}

static void stop(struct html_state *st, int err)
{
	if (!st->error)
		st->error = err;
	xmlStopParser(st->pctx);
}

static void set_break(struct html_state *st, enum brk b)
{
	if (b > st->pending)
		st->pending = b;
}

static const char *attr(const xmlChar **atts, const char *name)
{
	size_t i;

	for (i = 0; atts && atts[i]; i += 2)
		if (!strcasecmp((const char *)atts[i], name))
			return atts[i + 1] ? (const char *)atts[i + 1] : "";
	return NULL;
}

static void on_start(void *ud, const xmlChar *xname, const xmlChar **atts)
{
	struct html_state *st = ud;
	const char *name = local_name(xname), *v;

	int ret;

	if (st->error)
		return;
	if (!(++st->calls & 1023) && (ret = ex_check_time(st->ctx))) {
		stop(st, ret);
		return;
	}
	if (++st->depth > st->ctx->lim->max_depth) {
		ex_fail(st->ctx, -EFBIG, "markup nested deeper than %u elements",
			st->ctx->lim->max_depth);
		stop(st, -EFBIG);
		return;
	}
	if (!strcasecmp(name, "html") && st->want_lang &&
	    ((v = attr(atts, "lang")) || (v = attr(atts, "xml:lang"))))
		ex_str_set(&st->meta->language, v, strlen(v));
	if (!strcasecmp(name, "title") && st->want_title && !st->title_depth)
		st->title_depth = st->depth;
	if (!strcasecmp(name, "meta") && st->want_author && (v = attr(atts, "name")) &&
	    !strcasecmp(v, "author") && (v = attr(atts, "content")) && !st->author.len)
		sbuf_addstr(&st->author, v);
	if (st->skip_depth)
		return;
	if (is_skipped(name)) {
		st->skip_depth = st->depth;
		return;
	}
	if (!strcasecmp(name, "pre") && !st->pre_depth)
		st->pre_depth = st->depth;
	if (!strcasecmp(name, "br"))
		set_break(st, BRK_LINE);
	else if (is_block(name))
		set_break(st, BRK_PARA);
	else if (!strcasecmp(name, "img") || !strcasecmp(name, "td"))
		set_break(st, BRK_SPACE);
}

static void on_end(void *ud, const xmlChar *xname)
{
	struct html_state *st = ud;
	const char *name = local_name(xname);

	if (st->error || !st->depth)
		return;
	if (st->depth == st->skip_depth)
		st->skip_depth = 0;
	if (st->depth == st->title_depth)
		st->title_depth = 0;
	if (st->depth == st->pre_depth)
		st->pre_depth = 0;
	st->depth--;
	if (!st->skip_depth && is_block(name))
		set_break(st, BRK_PARA);
}

static const unsigned char ws_tab[256] = {
	[' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1, ['\f'] = 1,
};

static void on_text(void *ud, const xmlChar *ch, int len)
{
	struct html_state *st = ud;
	const unsigned char *p = ch, *e = ch + len;
	int ret = 0;

	if (st->error)
		return;
	if (st->title_depth) {
		if (sbuf_add(&st->title, ch, (size_t)len))
			stop(st, -ENOMEM);
		return;
	}
	if (st->skip_depth)
		return;
	if (!(++st->calls & 1023) && (ret = ex_check_time(st->ctx))) {
		stop(st, ret);
		return;
	}
	/* copy, collapsing white space; at most one separator of two bytes
	 * per byte of input */
	ret = sbuf_grow(st->out, 3 * (size_t)len);
	if (!ret) {
		char *o = st->out->buf + st->out->len, *base = st->out->buf + st->base;

		for (; p < e; p++) {
			unsigned char c = *p;

			if (ws_tab[c]) {
				set_break(st, st->pre_depth && c == '\n' ? BRK_LINE : BRK_SPACE);
				continue;
			}
			if (st->pending) {
				if (o > base) {
					*o++ = st->pending == BRK_SPACE ? ' ' : '\n';
					if (st->pending == BRK_PARA)
						*o++ = '\n';
				}
				st->pending = BRK_NONE;
			}
			*o++ = (char)c;
		}
		st->out->len = (size_t)(o - st->out->buf);
		st->out->buf[st->out->len] = '\0';
	}
	if (ret) {
		stop(st, ret);
		return;
	}
	if (st->out->len > st->ctx->lim->max_text_bytes) {
		ex_fail(st->ctx, -EFBIG, "text longer than %llu bytes",
			(unsigned long long)st->ctx->lim->max_text_bytes);
		stop(st, -EFBIG);
	}
}

static void on_error(void *ud, const char *msg, ...)
{
	(void)ud;
	(void)msg;
}

static void on_serror(void *ud, xmlErrorPtr e)
{
	(void)ud;
	(void)e;
}

/* XML mode: SAX2 element callbacks mapped onto the HTML ones. */
static void on_start_ns(void *ud, const xmlChar *localname, const xmlChar *prefix,
			const xmlChar *uri, int nns, const xmlChar **ns, int natts, int ndef,
			const xmlChar **atts)
{
	(void)prefix, (void)uri, (void)nns, (void)ns, (void)natts, (void)ndef, (void)atts;
	on_start(ud, localname, NULL);
}

static void on_end_ns(void *ud, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri)
{
	(void)prefix, (void)uri;
	on_end(ud, localname);
}

/* An HTML named reference (&nbsp; ...) in XHTML parsed as XML, where no DTD
 * is loaded to define it: handed back as a predefined entity, whose content
 * libxml2 passes to characters() as it does for &amp;. */
static xmlEntityPtr on_get_entity(void *ud, const xmlChar *name)
{
	struct html_state *st = ud;
	const htmlEntityDesc *d = htmlEntityLookup(name);
	xmlEntityPtr e;
	unsigned char u[5];
	unsigned v;
	int n;
	size_t i;

	if (!d)
		return NULL;
	for (i = 0; i < st->nents; i++)
		if (xmlStrEqual(st->ents[i]->name, name))
			return st->ents[i];
	if (st->nents == sizeof(st->ents) / sizeof(st->ents[0]))
		return NULL;
	v = d->value;
	if (v < 0x80)
		u[0] = (unsigned char)v, n = 1;
	else if (v < 0x800)
		u[0] = (unsigned char)(0xC0 | (v >> 6)), u[1] = (unsigned char)(0x80 | (v & 0x3F)), n = 2;
	else
		u[0] = (unsigned char)(0xE0 | (v >> 12)), u[1] = (unsigned char)(0x80 | ((v >> 6) & 0x3F)),
		u[2] = (unsigned char)(0x80 | (v & 0x3F)), n = 3;
	u[n] = 0;
	e = xmlMalloc(sizeof(*e));
	if (!e)
		return NULL;
	memset(e, 0, sizeof(*e));
	e->type = XML_ENTITY_DECL;
	e->etype = XML_INTERNAL_PREDEFINED_ENTITY;
	e->name = xmlStrdup(name);
	e->content = xmlStrdup(u);
	e->length = n;
	if (!e->name || !e->content) {
		xmlFree((xmlChar *)e->name);
		xmlFree(e->content);
		xmlFree(e);
		return NULL;
	}
	st->ents[st->nents++] = e;
	return e;
}

static void free_entities(struct html_state *st)
{
	size_t i;

	for (i = 0; i < st->nents; i++) {
		xmlFree((xmlChar *)st->ents[i]->name);
		xmlFree(st->ents[i]->content);
		xmlFree(st->ents[i]);
	}
	st->nents = 0;
}

/* Parses well-formed XHTML with libxml2's XML parser, about twice as fast
 * as its HTML parser.  Returns 1 when done, 0 when the document is not
 * well-formed (the caller rolls back and uses the HTML parser), or a
 * negative errno for our own limits.  No DTD is loaded, no entity is
 * substituted, XML_PARSE_HUGE is off (libxml2's depth and size limits stay
 * on), and documents that declare entities never come here. */
static int xml_pass(struct html_state *st, const char *utf8, size_t len)
{
	xmlSAXHandler sax;
	xmlParserCtxtPtr pctx;
	int ok;

	memset(&sax, 0, sizeof(sax));
	sax.initialized = XML_SAX2_MAGIC;
	sax.startElementNs = on_start_ns;
	sax.endElementNs = on_end_ns;
	sax.characters = on_text;
	sax.cdataBlock = on_text;
	sax.ignorableWhitespace = on_text;
	sax.getEntity = on_get_entity;
	sax.warning = on_error;
	sax.error = on_error;
	sax.fatalError = on_error;
	sax.serror = on_serror;
	pctx = xmlCreateMemoryParserCtxt(utf8, (int)len);
	if (!pctx)
		return -ENOMEM;
	memcpy(pctx->sax, &sax, sizeof(sax));
	pctx->userData = st;
	st->pctx = pctx;
	xmlCtxtUseOptions(pctx, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
			  XML_PARSE_IGNORE_ENC);
	pctx->sax->serror = on_serror;
	pctx->sax->warning = on_error;
	pctx->sax->error = on_error;
	pctx->sax->fatalError = on_error;
	xmlParseDocument(pctx);
	ok = pctx->wellFormed;
	if (pctx->myDoc)
		xmlFreeDoc(pctx->myDoc);
	xmlFreeParserCtxt(pctx);
	free_entities(st);
	st->pctx = NULL;
	if (st->error)
		return st->error;
	return ok ? 1 : 0;
}

int html_to_text(struct ex_ctx *ctx, const char *utf8, size_t len, struct sbuf *out,
		 struct extract_doc *meta)
{
	struct html_state st;
	htmlSAXHandler sax;
	htmlParserCtxtPtr pctx = NULL;
	xmlCharEncodingHandlerPtr enc;
	int ret = 0;

	if (len > INT_MAX)
		return ex_fail(ctx, -EFBIG, "markup document larger than 2 GiB");
	memset(&st, 0, sizeof(st));
	st.ctx = ctx;
	st.out = out;
	st.base = out->len;
	st.meta = meta;
	sbuf_init(&st.title);
	sbuf_init(&st.author);
	st.want_title = meta && !meta->title;
	st.want_author = meta && !meta->creators.n;
	st.want_lang = meta && !meta->language;
	memset(&sax, 0, sizeof(sax));
	sax.startElement = on_start;
	sax.endElement = on_end;
	sax.characters = on_text;
	sax.cdataBlock = on_text;
	sax.ignorableWhitespace = on_text;
	sax.warning = on_error;
	sax.error = on_error;
	sax.fatalError = on_error;
	sax.serror = on_serror;
	sax.initialized = XML_SAX2_MAGIC;
	xmlSetGenericErrorFunc(NULL, on_error);
	xmlSetStructuredErrorFunc(NULL, on_serror);

	if (!meta && len && !memmem(utf8, len, "<!ENTITY", 8)) {
		ret = xml_pass(&st, utf8, len);
		if (ret)
			goto out;
		/* not well-formed: start again with the HTML parser */
		sbuf_setlen(out, st.base);
		st.depth = st.skip_depth = st.pre_depth = st.title_depth = 0;
		st.pending = BRK_NONE;
	}
	pctx = htmlCreateMemoryParserCtxt(len ? utf8 : " ", len ? (int)len : 1);
	if (!pctx)
		return ex_fail(ctx, -ENOMEM, "cannot create the HTML parser");
	st.pctx = pctx;
	memcpy(pctx->sax, &sax, sizeof(sax));
	pctx->userData = &st;
	/* The input is UTF-8 already (decoded by us); a <meta charset> must
	 * not switch encodings half-way. */
	enc = xmlFindCharEncodingHandler("UTF-8");
	if (enc)
		xmlSwitchToEncoding(pctx, enc);
	htmlCtxtUseOptions(pctx, HTML_PARSE_NONET | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
			   HTML_PARSE_NOIMPLIED | HTML_PARSE_IGNORE_ENC | HTML_PARSE_NODEFDTD);
	/* htmlCtxtUseOptions clears the error handlers it was told to mute; put
	 * the silent ones back so nothing reaches stderr. */
	pctx->sax->serror = on_serror;
	pctx->sax->warning = on_error;
	pctx->sax->error = on_error;
	pctx->sax->fatalError = on_error;
	htmlParseDocument(pctx);
	ret = st.error;
	if (!ret && st.title.len && meta && !meta->title)
		ret = ex_str_set(&meta->title, st.title.buf, st.title.len);
	if (!ret && st.author.len && meta && !meta->creators.n)
		ret = ex_strv_add(&meta->creators, st.author.buf, st.author.len);
	if (ret && !ctx->failed)
		ex_fail(ctx, ret, "%s", strerror(-ret));
	if (pctx->myDoc)
		xmlFreeDoc(pctx->myDoc);
	htmlFreeParserCtxt(pctx);
out:
	if (ret < 0 && !ctx->failed)
		ex_fail(ctx, ret, "%s", strerror(-ret));
	if (ret > 0)
		ret = 0;
	sbuf_release(&st.title);
	sbuf_release(&st.author);
	return ret;
}

int html_declared_charset(const char *p, size_t n, char *buf, size_t bufsz)
{
	static const char *const keys[] = { "charset=", "encoding=" };
	size_t lim = n < 4096 ? n : 4096, i, k, j;

	for (i = 0; i < lim; i++) {
		for (k = 0; k < 2; k++) {
			size_t kl = strlen(keys[k]);

			if (i + kl > lim || strncasecmp(p + i, keys[k], kl))
				continue;
			j = i + kl;
			while (j < lim && (p[j] == '"' || p[j] == '\'' || p[j] == ' '))
				j++;
			size_t s = j;

			while (j < lim && j - s + 1 < bufsz &&
			       ((p[j] >= 'a' && p[j] <= 'z') || (p[j] >= 'A' && p[j] <= 'Z') ||
				(p[j] >= '0' && p[j] <= '9') || p[j] == '-' || p[j] == '_' ||
				p[j] == ':' || p[j] == '.'))
				j++;
			if (j == s)
				continue;
			memcpy(buf, p + s, j - s);
			buf[j - s] = '\0';
			return 1;
		}
	}
	return 0;
}

int html_extract(struct ex_ctx *ctx, const char *data, size_t len)
{
	struct sbuf utf8 = { 0 };
	char cs[64];
	int ret;

	sbuf_init(&utf8);
	ret = txt_decode(data, len, html_declared_charset(data, len, cs, sizeof(cs)) ? cs : NULL,
			 ctx->lim->max_text_bytes * 4, &utf8, &ctx->doc->charset);
	if (ret) {
		ret = ex_fail(ctx, ret, "decoding markup: %s", strerror(-ret));
		goto out;
	}
	ret = html_to_text(ctx, utf8.buf, utf8.len, &ctx->doc->text, ctx->doc);
out:
	sbuf_release(&utf8);
	return ret;
}
