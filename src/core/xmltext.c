/* xmltext.c - the SAX parse and the text writer shared by the XML book
 * readers (fb2.c, docx.c, odt.c); see xmltext.h.
 */
#include "xmltext.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

#include "grow.h"

void xt_init(struct xt_text *t, struct ex_ctx *ctx)
{
	memset(t, 0, sizeof(*t));
	t->ctx = ctx;
	t->chunk_cap = ctx->doc->nchunks;
}

void xt_stop(struct xt_text *t, int err)
{
	if (!t->error) {
		t->error = err;
		if (!t->ctx->failed)
			ex_fail(t->ctx, err, "%s", strerror(-err));
	}
	if (t->pctx)
		xmlStopParser(t->pctx);
}

void xt_done(struct xt_text *t)
{
	t->done = 1;
	if (t->pctx)
		xmlStopParser(t->pctx);
}

void xt_break(struct xt_text *t, enum xt_brk b)
{
	if (b > t->pending)
		t->pending = b;
}

void xt_chunk(struct xt_text *t)
{
	t->chunk_pending = 1;
	xt_break(t, XT_PARA);
}

static int tick(struct xt_text *t)
{
	int ret;

	if (t->error)
		return t->error;
	if (!(++t->calls & 1023) && (ret = ex_check_time(t->ctx))) {
		xt_stop(t, ret);
		return ret;
	}
	return 0;
}

int xt_enter(struct xt_text *t)
{
	int ret = tick(t);

	if (ret)
		return ret;
	if (++t->depth > t->ctx->lim->max_depth) {
		ex_fail(t->ctx, -EFBIG, "markup nested deeper than %u elements",
			t->ctx->lim->max_depth);
		xt_stop(t, -EFBIG);
		return -EFBIG;
	}
	return 0;
}

void xt_leave(struct xt_text *t)
{
	if (t->depth)
		t->depth--;
}

static const unsigned char ws_tab[256] = {
	[' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1, ['\f'] = 1,
};

/* Writes the owed separator and, when one is owed, records a chunk start. */
static int flush_break(struct xt_text *t, struct sbuf *out)
{
	struct extract_doc *doc = t->ctx->doc;

	if (t->pending && out->len) {
		if (t->pending == XT_SPACE)
			out->buf[out->len++] = ' ';
		else if (t->pending == XT_LINE)
			out->buf[out->len++] = '\n';
		else
			out->buf[out->len++] = '\n', out->buf[out->len++] = '\n';
	}
	t->pending = XT_NONE;
	if (t->chunk_pending) {
		t->chunk_pending = 0;
		if (ARRAY_GROW(doc->chunk_off, t->chunk_cap, doc->nchunks + 1))
			return -ENOMEM;
		doc->chunk_off[doc->nchunks++] = out->len;
	}
	return 0;
}

int xt_add(struct xt_text *t, const char *s, size_t n)
{
	struct sbuf *out = &t->ctx->doc->text;
	const unsigned char *p = (const unsigned char *)s, *e = p + n;
	int ret = tick(t);

	if (ret)
		return ret;
	/* at most one separator of two bytes per byte of input */
	ret = sbuf_grow(out, 3 * n);
	for (; !ret && p < e; p++) {
		if (ws_tab[*p]) {
			xt_break(t, XT_SPACE);
			continue;
		}
		if (t->pending || t->chunk_pending)
			ret = flush_break(t, out);
		out->buf[out->len++] = (char)*p;
	}
	out->buf[out->len] = '\0';
	if (ret) {
		xt_stop(t, ret);
		return ret;
	}
	if (out->len > t->ctx->lim->max_text_bytes) {
		ex_fail(t->ctx, -EFBIG, "text longer than %llu bytes",
			(unsigned long long)t->ctx->lim->max_text_bytes);
		xt_stop(t, -EFBIG);
		return -EFBIG;
	}
	return 0;
}

int xt_attr(const unsigned char **atts, int natts, const char *name, char *buf, size_t bufsz)
{
	int i;

	for (i = 0; atts && i < natts; i++) {
		const unsigned char **a = atts + 5 * i;
		size_t n;

		if (strcmp((const char *)a[0], name))
			continue;
		n = (size_t)(a[4] - a[3]);
		if (n >= bufsz)
			n = bufsz - 1;
		memcpy(buf, a[3], n);
		buf[n] = '\0';
		return 1;
	}
	return 0;
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

int xt_parse(struct xt_text *t, const char *data, size_t len, struct _xmlSAXHandler *sax,
	     void *ud, const char *what)
{
	xmlParserCtxtPtr pctx;
	const xmlError *le;
	int ret = 0;

	if (len > INT_MAX)
		return ex_fail(t->ctx, -EFBIG, "%s larger than 2 GiB", what);
	if (!len)
		return ex_fail(t->ctx, -EBADMSG, "malformed XML in %s: empty", what);
	/* Nothing declared in the document is ever expanded (no entityDecl or
	 * getEntity callback), but such a document is not a book's either. */
	if (memmem(data, len, "<!ENTITY", 8))
		return ex_fail(t->ctx, -EBADMSG, "%s declares XML entities", what);
	sax->initialized = XML_SAX2_MAGIC;
	sax->warning = on_error;
	sax->error = on_error;
	sax->fatalError = on_error;
	sax->serror = on_serror;
	sax->getEntity = NULL;
	sax->entityDecl = NULL;
	sax->internalSubset = NULL;
	sax->externalSubset = NULL;
	sax->resolveEntity = NULL;
	xmlSetGenericErrorFunc(NULL, on_error);
	xmlSetStructuredErrorFunc(NULL, on_serror);
	pctx = xmlCreateMemoryParserCtxt(data, (int)len);
	if (!pctx)
		return ex_fail(t->ctx, -ENOMEM, "cannot create the XML parser");
	memcpy(pctx->sax, sax, sizeof(*sax));
	pctx->userData = ud;
	t->pctx = pctx;
	xmlCtxtUseOptions(pctx, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	/* xmlCtxtUseOptions() resets the error handlers it mutes */
	pctx->sax->serror = on_serror;
	pctx->sax->warning = on_error;
	pctx->sax->error = on_error;
	pctx->sax->fatalError = on_error;
	xmlParseDocument(pctx);
	if (t->error) {
		ret = t->error;
	} else if (!pctx->wellFormed && !t->done) {
		le = xmlCtxtGetLastError(pctx);
		if (le && le->code == XML_ERR_NO_MEMORY)
			ret = ex_fail(t->ctx, -ENOMEM, "out of memory parsing %s", what);
		else if (le && le->message)
			ret = ex_fail(t->ctx, -EBADMSG, "malformed XML in %s, line %d: %.*s", what,
				      le->line, (int)strcspn(le->message, "\n"), le->message);
		else
			ret = ex_fail(t->ctx, -EBADMSG, "malformed XML in %s", what);
	}
	if (pctx->myDoc)
		xmlFreeDoc(pctx->myDoc);
	xmlFreeParserCtxt(pctx);
	t->pctx = NULL;
	return ret;
}

int xt_parse_entry(struct xt_text *t, struct zipread *z, const char *name, const char *kind,
		   void (*start)(void *, const unsigned char *, const unsigned char *,
				 const unsigned char *, int, const unsigned char **, int, int,
				 const unsigned char **),
		   void (*end)(void *, const unsigned char *, const unsigned char *,
			       const unsigned char *),
		   void (*text)(void *, const unsigned char *, int), void *ud)
{
	xmlSAXHandler sax;
	struct sbuf xml;
	int64_t idx;
	int ret;

	idx = zipread_locate(z, name);
	if (idx < 0)
		return ex_fail(t->ctx, -EBADMSG, "no %s in the %s", name, kind);
	sbuf_init(&xml);
	ret = zipread_entry(z, (uint64_t)idx, t->ctx->lim->max_entry_bytes, &xml);
	if (!ret) {
		memset(&sax, 0, sizeof(sax));
		sax.startElementNs = start;
		sax.endElementNs = end;
		sax.characters = text;
		sax.cdataBlock = text;
		xt_chunk(t);
		ret = xt_parse(t, xml.buf, xml.len, &sax, ud, name);
	}
	sbuf_release(&xml);
	return ret;
}

static int name_in(const char *name, const char *const *names)
{
	for (; *names; names++)
		if (!strcmp(name, *names))
			return 1;
	return 0;
}

int xt_meta_each(struct zipread *z, const char *entry, const char *in,
		 const char *const *names, int (*on)(void *ud, const char *name, const char *v),
		 void *ud)
{
	xmlDocPtr x = NULL;
	xmlNodePtr m, n;
	int ret;

	ret = zipread_xml(z, entry, &x);
	if (ret == -ENOENT || ret == -EINVAL)
		return 0;
	if (ret)
		return ret;
	m = xmlDocGetRootElement(x);
	if (in && m) {
		for (m = m->children; m; m = m->next)
			if (m->type == XML_ELEMENT_NODE && !strcmp((const char *)m->name, in))
				break;
	}
	for (n = m ? m->children : NULL; n && !ret; n = n->next) {
		char *v;

		if (n->type != XML_ELEMENT_NODE || !name_in((const char *)n->name, names))
			continue;
		v = (char *)xmlNodeGetContent(n);
		if (!v) {
			ret = -ENOMEM;
			break;
		}
		ret = on(ud, (const char *)n->name, v);
		xmlFree(v);
	}
	xmlFreeDoc(x);
	return ret;
}
