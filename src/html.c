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
};

/* Elements whose end or start is a paragraph break. */
static const char *const block_tags[] = {
	"address", "article", "aside", "blockquote", "body", "caption", "center",
	"dd", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer",
	"form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "html", "li",
	"main", "nav", "ol", "p", "pre", "section", "table", "tbody", "td", "tfoot",
	"th", "thead", "tr", "ul",
};

static int in_list(const char *name, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcasecmp(name, list[i]))
			return 1;
	return 0;
}

static int is_block(const char *name)
{
	return in_list(name, block_tags, sizeof(block_tags) / sizeof(block_tags[0]));
}

static int is_skipped(const char *name)
{
	return !strcasecmp(name, "head") || !strcasecmp(name, "script") ||
	       !strcasecmp(name, "style") || !strcasecmp(name, "template");
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

	if (st->error)
		return;
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

static int flush_break(struct html_state *st)
{
	static const char *const seps[] = { "", " ", "\n", "\n\n" };
	int ret = 0;

	if (st->pending && st->out->len > st->base)
		ret = sbuf_addstr(st->out, seps[st->pending]);
	st->pending = BRK_NONE;
	return ret;
}

static int is_ws(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

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
	while (p < e && !ret) {
		const unsigned char *q;

		if (is_ws(*p)) {
			if (st->pre_depth && *p == '\n')
				set_break(st, BRK_LINE);
			else
				set_break(st, BRK_SPACE);
			p++;
			continue;
		}
		for (q = p; q < e && !is_ws(*q); q++)
			;
		ret = flush_break(st);
		if (!ret)
			ret = sbuf_add(st->out, p, (size_t)(q - p));
		p = q;
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
