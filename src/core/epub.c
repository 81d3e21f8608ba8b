/* epub.c - EPUB 2/3: container.xml -> OPF -> spine -> (X)HTML text.
 *
 * zipread.c reads the archive within the byte budget, the compression-ratio
 * and time limits (zip bombs stop at the budget).  Paths from
 * the OPF are resolved inside the archive only: ".." above the root and URLs
 * are refused, nothing is ever written.  container.xml, the OPF and
 * encryption.xml are parsed by libxml2 with XML_PARSE_NONET, without
 * XML_PARSE_NOENT/DTDLOAD/HUGE (no entity substitution, no DTD, default depth
 * and size limits), and any of them declaring entities is refused outright.
 */
#include "hex.h"
#include "extract_i.h"
#include "grow.h"
#include "zipread.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <zip.h>

struct item {
	char *id;
	char *path;		/* resolved archive path, NULL if unusable */
	char *type;
};

struct epub {
	struct ex_ctx *ctx;
	struct zipread z;
	struct item *items;
	size_t nitems;
	int package;		/* a container.xml or OPF was found */
};

static xmlNodePtr child_elem(xmlNodePtr n, const char *name)
{
	for (n = n ? n->children : NULL; n; n = n->next)
		if (n->type == XML_ELEMENT_NODE && !strcasecmp((const char *)n->name, name))
			return n;
	return NULL;
}

static char *prop(xmlNodePtr n, const char *name)
{
	xmlAttrPtr a;

	for (a = n->properties; a; a = a->next)
		if (!strcasecmp((const char *)a->name, name))
			return (char *)xmlNodeGetContent((xmlNodePtr)a);
	return NULL;
}

/* Resolves href against the directory base (ending in '/' or empty) into an
 * archive path: fragment dropped, %XX decoded, "." and ".." applied.  NULL
 * when it leaves the archive (URL, ".." above the root) or on -ENOMEM. */
static char *resolve(const char *base, const char *href)
{
	size_t bl = strlen(base), hl = strcspn(href, "#?"), i, o = 0;
	char *tmp, *res;
	const char *s;

	for (s = href; s < href + hl && *s != '/'; s++)
		if (*s == ':')
			return NULL;	/* a URL scheme */
	if (hl && href[0] == '/')
		bl = 0;		/* root-relative */
	tmp = malloc(bl + hl + 2);
	res = malloc(bl + hl + 2);
	if (!tmp || !res)
		goto fail;
	memcpy(tmp, base, bl);
	for (i = 0; i < hl; i++) {
		if (href[i] == '%' && i + 2 < hl && hex_digit(href[i + 1]) >= 0 &&
		    hex_digit(href[i + 2]) >= 0) {
			tmp[bl++] = (char)(hex_digit(href[i + 1]) * 16 + hex_digit(href[i + 2]));
			i += 2;
		} else {
			tmp[bl++] = href[i];
		}
	}
	tmp[bl] = '\0';
	if (memchr(tmp, '\0', bl) || strchr(tmp, '\\'))
		goto fail;
	/* segment by segment */
	for (s = tmp; *s;) {
		size_t n = strcspn(s, "/");

		if (n == 0 || (n == 1 && s[0] == '.')) {
			/* empty or "." */
		} else if (n == 2 && s[0] == '.' && s[1] == '.') {
			if (!o)
				goto fail;
			while (o && res[o - 1] != '/')
				o--;
			if (o)
				o--;	/* drop the '/' */
		} else {
			if (o)
				res[o++] = '/';
			memcpy(res + o, s, n);
			o += n;
		}
		s += n;
		if (*s == '/')
			s++;
	}
	res[o] = '\0';
	free(tmp);
	if (!o) {
		free(res);
		return NULL;
	}
	return res;
fail:
	free(tmp);
	free(res);
	return NULL;
}

static int opf_identifier(struct extract_doc *doc, xmlNodePtr n, const char *v)
{
	char *scheme = prop(n, "scheme");
	const char *num = v;
	char isbn[16];
	int explicit = scheme && !strcasecmp(scheme, "ISBN"), ret;

	xmlFree(scheme);
	ret = ex_strv_add(&doc->identifiers, v, strlen(v));
	if (ret || doc->isbn)
		return ret;
	if (!strncasecmp(num, "urn:isbn:", 9))
		num += 9, explicit = 1;
	else if (!strncasecmp(num, "isbn:", 5))
		num += 5, explicit = 1;
	else if (!strncasecmp(num, "isbn ", 5))
		num += 5, explicit = 1;
	while (*num == ' ')
		num++;
	if (ex_isbn(num, isbn, sizeof(isbn)) &&
	    (explicit || (strlen(isbn) == 13 && (!strncmp(isbn, "978", 3) || !strncmp(isbn, "979", 3)))))
		return ex_str_set(&doc->isbn, isbn, strlen(isbn));
	return 0;
}

/* Dublin Core metadata, also inside an OEB 1.x <dc-metadata> wrapper. */
static int opf_metadata(struct extract_doc *doc, xmlNodePtr md, int level)
{
	xmlNodePtr n;
	int ret = 0;

	for (n = md ? md->children : NULL; n && !ret; n = n->next) {
		const char *name = (const char *)n->name;
		char *v;

		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (level < 2 && (!strcasecmp(name, "dc-metadata") || !strcasecmp(name, "x-metadata"))) {
			ret = opf_metadata(doc, n, level + 1);
			continue;
		}
		if (strcasecmp(name, "title") && strcasecmp(name, "creator") &&
		    strcasecmp(name, "language") && strcasecmp(name, "identifier"))
			continue;
		v = (char *)xmlNodeGetContent(n);
		if (!v)
			return -ENOMEM;
		if (!strcasecmp(name, "title") && !doc->title)
			ret = ex_str_set(&doc->title, v, strlen(v));
		else if (!strcasecmp(name, "creator"))
			ret = ex_strv_add(&doc->creators, v, strlen(v));
		else if (!strcasecmp(name, "language") && !doc->language)
			ret = ex_str_set(&doc->language, v, strlen(v));
		else if (!strcasecmp(name, "identifier"))
			ret = opf_identifier(doc, n, v);
		xmlFree(v);
	}
	return ret;
}

static int cmp_item(const void *a, const void *b)
{
	return strcmp(((const struct item *)a)->id, ((const struct item *)b)->id);
}

static void free_items(struct epub *e)
{
	size_t i;

	for (i = 0; i < e->nitems; i++) {
		free(e->items[i].id);
		free(e->items[i].path);
		free(e->items[i].type);
	}
	free(e->items);
	e->items = NULL;
	e->nitems = 0;
}

static int opf_manifest(struct epub *e, xmlNodePtr man, const char *base)
{
	xmlNodePtr n;
	size_t cap = 0;

	for (n = man ? man->children : NULL; n; n = n->next) {
		char *id, *href, *type;

		if (n->type != XML_ELEMENT_NODE || strcasecmp((const char *)n->name, "item"))
			continue;
		if (e->nitems >= (size_t)e->ctx->lim->max_entries)
			return ex_fail(e->ctx, -EFBIG, "manifest lists more than %u items",
				       e->ctx->lim->max_entries);
		id = prop(n, "id");
		href = prop(n, "href");
		type = prop(n, "media-type");
		if (id && href) {
			if (ARRAY_GROW(e->items, cap, e->nitems + 1)) {
				xmlFree(id), xmlFree(href), xmlFree(type);
				return -ENOMEM;
			}
			e->items[e->nitems].id = strdup(id);
			e->items[e->nitems].path = resolve(base, href);
			e->items[e->nitems].type = strdup(type ? type : "");
			if (!e->items[e->nitems].id || !e->items[e->nitems].type) {
				free(e->items[e->nitems].id);
				free(e->items[e->nitems].path);
				free(e->items[e->nitems].type);
				xmlFree(id), xmlFree(href), xmlFree(type);
				return -ENOMEM;
			}
			if (!e->items[e->nitems].path)
				ex_warn(e->ctx, "manifest item %s points outside the archive: ignored", href);
			e->nitems++;
		}
		xmlFree(id);
		xmlFree(href);
		xmlFree(type);
	}
	if (e->nitems)
		qsort(e->items, e->nitems, sizeof(*e->items), cmp_item);
	return 0;
}

static int is_markup_type(const char *t)
{
	return strstr(t, "html") || strstr(t, "oeb1-document") || strstr(t, "dtbook");
}

static int is_markup_name(const char *name)
{
	const char *dot = strrchr(name, '.');

	return dot && (!strcasecmp(dot, ".xhtml") || !strcasecmp(dot, ".html") ||
		       !strcasecmp(dot, ".htm") || !strcasecmp(dot, ".xht"));
}

/* Appends one content document's text as a new chunk. */
static int add_document(struct epub *e, zip_uint64_t idx, struct sbuf *raw, struct sbuf *utf8)
{
	struct extract_doc *doc = e->ctx->doc;
	size_t before = doc->text.len, start, *p;
	struct sbuf *src = raw;
	const char *cs;
	char decl[64];
	int ret;

	ret = zipread_entry(&e->z, idx, e->ctx->lim->max_entry_bytes, raw);
	if (ret)
		return ret;
	sbuf_setlen(utf8, 0);
	/* EPUB content is UTF-8 nearly always: then the parser reads the
	 * entry as it is (it treats CR as white space) */
	if (!txt_is_utf8(raw->buf, raw->len)) {
		ret = txt_decode(raw->buf, raw->len,
				 html_declared_charset(raw->buf, raw->len, decl, sizeof(decl)) ? decl : NULL,
				 e->ctx->lim->max_unzipped_bytes * 4, utf8, &cs);
		if (ret)
			return ex_fail(e->ctx, ret, "decoding a content document: %s", strerror(-ret));
		src = utf8;
	}
	if (before) {
		ret = sbuf_addstr(&doc->text, "\n\n");
		if (ret)
			return ret;
	}
	start = doc->text.len;
	ret = html_to_text(e->ctx, src->buf, src->len, &doc->text, NULL);
	if (ret)
		return ret;
	if (doc->text.len == start) {
		sbuf_setlen(&doc->text, before);
		return 0;
	}
	p = realloc(doc->chunk_off, (doc->nchunks + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	doc->chunk_off = p;
	doc->chunk_off[doc->nchunks++] = start;
	return 0;
}

static int is_safe_name(const char *name)
{
	const char *s = name;

	if (!*name || name[0] == '/' || strchr(name, '\\') || strchr(name, ':'))
		return 0;
	while (*s) {
		size_t n = strcspn(s, "/");

		if (n == 2 && s[0] == '.' && s[1] == '.')
			return 0;
		s += n;
		if (*s)
			s++;
	}
	return 1;
}

/* Reads the documents of the spine, in order, each once: some toolchains
 * list one content document many times (manifest items "ch.xhtml#frag",
 * or one item referenced again), and the whole document is read at its
 * first place in the spine. */
static int read_spine(struct epub *e, xmlNodePtr spine)
{
	struct sbuf raw = { 0 }, utf8 = { 0 };
	uint8_t *read = NULL;	/* per archive entry: already read */
	xmlNodePtr n;
	int ret = 0;

	sbuf_init(&raw);
	sbuf_init(&utf8);
	read = calloc(e->z.nentries > 0 ? (size_t)e->z.nentries : 1, 1);
	if (!read)
		ret = ex_fail(e->ctx, -ENOMEM, "out of memory");
	for (n = spine ? spine->children : NULL; n && !ret; n = n->next) {
		struct item key, *it;
		int64_t idx;
		char *idref;

		if (n->type != XML_ELEMENT_NODE || strcasecmp((const char *)n->name, "itemref"))
			continue;
		idref = prop(n, "idref");
		if (!idref)
			continue;
		key.id = idref;
		it = e->nitems ? bsearch(&key, e->items, e->nitems, sizeof(*e->items), cmp_item) : NULL;
		if (!it)
			ret = ex_warn(e->ctx, "spine refers to unknown item %.100s", idref);
		xmlFree(idref);
		if (!it || !it->path)
			continue;
		if (!is_markup_type(it->type)) {
			if (!is_markup_name(it->path))
				continue;
		}
		idx = zipread_locate(&e->z, it->path);
		if (idx < 0) {
			ret = ex_warn(e->ctx, "spine item %s is missing from the archive", it->path);
			continue;
		}
		if (idx >= e->z.nentries || read[idx])
			continue;
		read[idx] = 1;
		ret = add_document(e, (zip_uint64_t)idx, &raw, &utf8);
		if (!ret)
			ret = ex_check_time(e->ctx);
	}
	free(read);
	sbuf_release(&raw);
	sbuf_release(&utf8);
	return ret;
}

/* Broken package: every (X)HTML entry in archive order. */
static int read_archive_order(struct epub *e, const char *why)
{
	struct sbuf raw = { 0 }, utf8 = { 0 };
	zip_int64_t i;
	int ret;

	ret = ex_warn(e->ctx, "broken EPUB (%s): fell back to archive order", why);
	sbuf_init(&raw);
	sbuf_init(&utf8);
	for (i = 0; i < e->z.nentries && !ret; i++) {
		const char *name = zip_get_name(e->z.za, (zip_uint64_t)i, 0);

		if (!name || !is_markup_name(name))
			continue;
		if (!is_safe_name(name)) {
			ret = ex_warn(e->ctx, "entry with unsafe name ignored: %.200s", name);
			continue;
		}
		ret = add_document(e, (zip_uint64_t)i, &raw, &utf8);
		if (!ret)
			ret = ex_check_time(e->ctx);
	}
	sbuf_release(&raw);
	sbuf_release(&utf8);
	return ret;
}

/* Refuses DRM: any encryption other than font obfuscation. */
static int check_drm(struct epub *e)
{
	xmlDocPtr d = NULL;
	xmlNodePtr n;
	int ret, drm = 0;

	ret = zipread_xml(&e->z, "META-INF/encryption.xml", &d);
	if (ret == -ENOENT)
		return 0;
	if (ret == -EINVAL)
		return ex_fail(e->ctx, -EACCES, "unreadable META-INF/encryption.xml (DRM?)");
	if (ret)
		return ret;
	/* walk the whole (depth-limited by libxml2) tree without recursion */
	for (n = xmlDocGetRootElement(d); n && !drm;) {
		if (n->type == XML_ELEMENT_NODE && !strcasecmp((const char *)n->name, "EncryptionMethod")) {
			char *alg = prop(n, "Algorithm");

			drm = !alg || (strcmp(alg, "http://www.idpf.org/2008/embedding") &&
				       strcmp(alg, "http://ns.adobe.com/pdf/enc#RC"));
			xmlFree(alg);
		}
		if (n->children && n->type == XML_ELEMENT_NODE) {
			n = n->children;
			continue;
		}
		while (n && !n->next)
			n = n->parent && n->parent->type == XML_ELEMENT_NODE ? n->parent : NULL;
		if (n)
			n = n->next;
	}
	xmlFreeDoc(d);
	if (drm)
		return ex_fail(e->ctx, -EACCES, "content is encrypted (DRM, META-INF/encryption.xml)");
	return 0;
}

/* The OPF path named by container.xml, or the first .opf entry. */
static int find_opf(struct epub *e, char **path, const char **why)
{
	xmlDocPtr d = NULL;
	xmlNodePtr n;
	zip_int64_t i;
	int ret;

	*path = NULL;
	ret = zipread_xml(&e->z, "META-INF/container.xml", &d);
	if (ret && ret != -ENOENT && ret != -EINVAL)
		return ret;
	if (!ret) {
		xmlNodePtr rootfiles = child_elem(xmlDocGetRootElement(d), "rootfiles");

		for (n = rootfiles ? rootfiles->children : NULL; n && !*path; n = n->next) {
			char *fp, *mt;

			if (n->type != XML_ELEMENT_NODE || strcasecmp((const char *)n->name, "rootfile"))
				continue;
			fp = prop(n, "full-path");
			mt = prop(n, "media-type");
			if (fp && (!mt || !strcmp(mt, "application/oebps-package+xml")))
				*path = resolve("", fp);
			xmlFree(fp);
			xmlFree(mt);
		}
		xmlFreeDoc(d);
		e->package = 1;
		if (*path)
			return 0;
		*why = "container.xml names no package";
	} else {
		*why = ret == -ENOENT ? "no META-INF/container.xml" : "invalid META-INF/container.xml";
	}
	for (i = 0; i < e->z.nentries; i++) {
		const char *name = zip_get_name(e->z.za, (zip_uint64_t)i, 0);
		size_t l = name ? strlen(name) : 0;

		if (l > 4 && !strcasecmp(name + l - 4, ".opf") && is_safe_name(name)) {
			*path = strdup(name);
			if (!*path)
				return -ENOMEM;
			e->package = 1;
			return ex_warn(e->ctx, "%s: used %s", *why, name);
		}
	}
	return -ENOENT;
}

static int read_package(struct epub *e)
{
	xmlDocPtr d = NULL;
	xmlNodePtr root;
	char *opf = NULL, *base = NULL, *slash;
	const char *why = NULL;
	int ret;

	ret = find_opf(e, &opf, &why);
	if (ret == -ENOENT)
		return read_archive_order(e, why);
	if (ret)
		return ret;
	ret = zipread_xml(&e->z, opf, &d);
	if (ret == -ENOENT || ret == -EINVAL) {
		ret = read_archive_order(e, ret == -ENOENT ? "package file missing" : "invalid package file");
		goto out;
	}
	if (ret)
		goto out;
	root = xmlDocGetRootElement(d);
	base = strdup(opf);
	if (!base) {
		ret = -ENOMEM;
		goto out;
	}
	slash = strrchr(base, '/');
	if (slash)
		slash[1] = '\0';
	else
		base[0] = '\0';
	ret = opf_metadata(e->ctx->doc, child_elem(root, "metadata"), 0);
	if (!ret)
		ret = opf_manifest(e, child_elem(root, "manifest"), base);
	if (!ret)
		ret = read_spine(e, child_elem(root, "spine"));
	if (!ret && !e->ctx->doc->nchunks)
		ret = read_archive_order(e, "the spine yields no text");
out:
	if (d)
		xmlFreeDoc(d);
	free(opf);
	free(base);
	free_items(e);
	return ret;
}

int epub_extract(struct ex_ctx *ctx, const void *data, size_t len, int fd)
{
	struct epub e;
	int ret;

	memset(&e, 0, sizeof(e));
	e.ctx = ctx;
	ret = zipread_open(&e.z, ctx, data, len, fd);
	if (!ret)
		ret = check_drm(&e);
	if (!ret)
		ret = read_package(&e);
	if (!ret && !ctx->doc->nchunks)
		ret = e.package ? ex_fail(ctx, -EBADMSG, "no readable text in the EPUB") :
		      ex_fail(ctx, EXTRACT_NOTBOOK, "not a book (a zip archive without EPUB content)");
	if (ret && !ctx->failed)
		ex_fail(ctx, ret, "%s", strerror(-ret));
	zipread_close(&e.z);
	return ret;
}

int epub_opf_meta(struct extract_doc *doc, const void *data, size_t len)
{
	xmlDocPtr d;
	xmlNodePtr root;
	int ret;

	if (len > INT_MAX)
		return -EFBIG;
	d = xmlReadMemory(data, (int)len, NULL, NULL,
			  XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
			  XML_PARSE_RECOVER | XML_PARSE_NOCDATA);
	if (!d)
		return -EBADMSG;
	root = xmlDocGetRootElement(d);
	ret = root && !strcasecmp((const char *)root->name, "package")
		      ? opf_metadata(doc, child_elem(root, "metadata"), 0) : -EBADMSG;
	xmlFreeDoc(d);
	return ret;
}
