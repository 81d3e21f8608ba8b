/* epub.c - EPUB 2/3: container.xml -> OPF -> spine -> (X)HTML text.
 *
 * libzip reads the archive; every entry goes through epub_read(), which
 * enforces the archive-wide byte budget, the compression-ratio limit and the
 * time limit while inflating, whatever sizes the archive declares, so zip
 * bombs (one entry or many overlapping ones) stop at the budget.  Paths from
 * the OPF are resolved inside the archive only: ".." above the root and URLs
 * are refused, nothing is ever written.  container.xml, the OPF and
 * encryption.xml are parsed by libxml2 with XML_PARSE_NONET, without
 * XML_PARSE_NOENT/DTDLOAD/HUGE (no entity substitution, no DTD, default depth
 * and size limits), and any of them declaring entities is refused outright.
 */
#include "hex.h"
#include "extract_i.h"
#include "grow.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <zip.h>

#define RATIO_FLOOR (1u << 20)	/* entries smaller than this skip the ratio test */

struct item {
	char *id;
	char *path;		/* resolved archive path, NULL if unusable */
	char *type;
};

struct epub {
	struct ex_ctx *ctx;
	zip_t *za;
	uint64_t unzipped;
	uint64_t archive_size;
	zip_int64_t nentries;
	struct item *items;
	size_t nitems;
	int package;		/* a container.xml or OPF was found */
};

static int zip_errno(int zep)
{
	return zep == ZIP_ER_MEMORY ? -ENOMEM : -EBADMSG;
}

/* Reads entry idx whole into out (replacing its contents), within the byte
 * budget and the ratio and time limits.  what names it in messages.
 * cap: a tighter size limit for this entry (0: none). */
static int epub_read(struct epub *e, zip_uint64_t idx, uint64_t cap, struct sbuf *out)
{
	struct ex_ctx *ctx = e->ctx;
	const struct extract_limits *lim = ctx->lim;
	zip_stat_t st;
	zip_file_t *zf = NULL;
	uint64_t budget = lim->max_unzipped_bytes - e->unzipped, got = 0;
	const char *name;
	int ret = 0;

	sbuf_setlen(out, 0);
	if (cap && cap < budget)
		budget = cap;
	zip_stat_init(&st);
	if (zip_stat_index(e->za, idx, 0, &st))
		return ex_fail(ctx, -EBADMSG, "entry %llu: %s", (unsigned long long)idx,
			       zip_strerror(e->za));
	name = (st.valid & ZIP_STAT_NAME) ? st.name : "?";
	if ((st.valid & ZIP_STAT_ENCRYPTION_METHOD) && st.encryption_method != ZIP_EM_NONE)
		return ex_fail(ctx, -EACCES, "entry %s is encrypted", name);
	if ((st.valid & ZIP_STAT_COMP_METHOD) &&
	    !zip_compression_method_supported(st.comp_method, 0))
		return ex_fail(ctx, -EBADMSG, "entry %s uses unsupported compression method %u",
			       name, (unsigned)st.comp_method);
	if (!(st.valid & ZIP_STAT_SIZE) || !(st.valid & ZIP_STAT_COMP_SIZE))
		return ex_fail(ctx, -EBADMSG, "entry %s has no size", name);
	if (st.size > budget)
		return ex_fail(ctx, -EFBIG, "entry %s declares %llu bytes, over the unpacking "
			       "limit of %llu", name, (unsigned long long)st.size,
			       (unsigned long long)budget);
	if (st.size > RATIO_FLOOR && st.size / (st.comp_size ? st.comp_size : 1) > lim->max_ratio)
		return ex_fail(ctx, -EFBIG, "entry %s: compression ratio over %u (zip bomb?)",
			       name, lim->max_ratio);
	zf = zip_fopen_index(e->za, idx, 0);
	if (!zf)
		return ex_fail(ctx, zip_errno(zip_error_code_zip(zip_get_error(e->za))),
			       "entry %s: %s", name, zip_strerror(e->za));
	for (;;) {
		zip_int64_t n;

		ret = sbuf_grow(out, 65536);
		if (ret) {
			ex_fail(ctx, ret, "out of memory");
			goto out;
		}
		n = zip_fread(zf, out->buf + out->len, 65536);
		if (n < 0) {
			ret = ex_fail(ctx, zip_errno(zip_error_code_zip(zip_file_get_error(zf))),
				      "entry %s: %s", name, zip_file_strerror(zf));
			goto out;
		}
		if (!n)
			break;
		got += (uint64_t)n;
		out->len += (size_t)n;	/* sbuf_grow() made room for it and the NUL */
		out->buf[out->len] = '\0';
		if (got > budget || got > st.size) {
			ret = ex_fail(ctx, got > st.size ? -EBADMSG : -EFBIG,
				      got > st.size ? "entry %s: more data than its declared size" :
				      "entry %s: over the unpacking limit", name);
			goto out;
		}
		if (got > RATIO_FLOOR && got / (st.comp_size ? st.comp_size : 1) > lim->max_ratio) {
			ret = ex_fail(ctx, -EFBIG, "entry %s: compression ratio over %u (zip bomb?)",
				      name, lim->max_ratio);
			goto out;
		}
		ret = ex_check_time(ctx);
		if (ret)
			goto out;
	}
	if (got != st.size)
		ret = ex_fail(ctx, -EBADMSG, "entry %s: %llu bytes instead of the declared %llu",
			      name, (unsigned long long)got, (unsigned long long)st.size);
out:
	e->unzipped += got;
	zip_fclose(zf);
	return ret;
}

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

/* Parses an XML file of the package (container, OPF, encryption.xml). */
static int parse_xml(struct epub *e, const char *path, xmlDocPtr *doc)
{
	struct sbuf buf = { 0 };
	zip_int64_t idx;
	int ret;

	*doc = NULL;
	sbuf_init(&buf);
	idx = zip_name_locate(e->za, path, 0);
	if (idx < 0)
		idx = zip_name_locate(e->za, path, ZIP_FL_NOCASE);
	if (idx < 0)
		return -ENOENT;
	ret = epub_read(e, (zip_uint64_t)idx, e->ctx->lim->max_meta_bytes, &buf);
	if (ret)
		goto out;
	if (memmem(buf.buf, buf.len, "<!ENTITY", 8)) {
		ret = -EINVAL;
		ex_warn(e->ctx, "%s declares entities: ignored", path);
		goto out;
	}
	if (buf.len > INT_MAX) {
		ret = -EFBIG;
		goto out;
	}
	*doc = xmlReadMemory(buf.buf, (int)buf.len, NULL, NULL,
			     XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
			     XML_PARSE_RECOVER | XML_PARSE_NOCDATA);
	if (!*doc || !xmlDocGetRootElement(*doc)) {
		ret = -EINVAL;
		ex_warn(e->ctx, "%s is not well-formed XML", path);
	}
out:
	if (ret && *doc) {
		xmlFreeDoc(*doc);
		*doc = NULL;
	}
	sbuf_release(&buf);
	return ret;
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

int ex_isbn(const char *v, char *isbn, size_t sz)
{
	char d[14];
	size_t n = 0, i;
	int sum = 0;

	for (; *v && n < 14; v++) {
		if (*v >= '0' && *v <= '9')
			d[n++] = *v;
		else if ((*v == 'X' || *v == 'x') && n == 9)
			d[n++] = 'X';
		else if (*v != '-' && *v != ' ')
			return 0;
	}
	if (*v || sz < 14)
		return 0;
	if (n == 13) {
		for (i = 0; i < 13; i++)
			sum += (d[i] - '0') * (i & 1 ? 3 : 1);
		if (sum % 10)
			return 0;
	} else if (n == 10) {
		for (i = 0; i < 10; i++)
			sum += (d[i] == 'X' ? 10 : d[i] - '0') * (int)(10 - i);
		if (sum % 11)
			return 0;
	} else {
		return 0;
	}
	memcpy(isbn, d, n);
	isbn[n] = '\0';
	return 1;
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

	ret = epub_read(e, idx, e->ctx->lim->max_entry_bytes, raw);
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

/* Reads the documents of the spine, in order. */
static int read_spine(struct epub *e, xmlNodePtr spine)
{
	struct sbuf raw = { 0 }, utf8 = { 0 };
	xmlNodePtr n;
	int ret = 0;

	sbuf_init(&raw);
	sbuf_init(&utf8);
	for (n = spine ? spine->children : NULL; n && !ret; n = n->next) {
		struct item key, *it;
		zip_int64_t idx;
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
		idx = zip_name_locate(e->za, it->path, 0);
		if (idx < 0)
			idx = zip_name_locate(e->za, it->path, ZIP_FL_NOCASE);
		if (idx < 0) {
			ret = ex_warn(e->ctx, "spine item %s is missing from the archive", it->path);
			continue;
		}
		ret = add_document(e, (zip_uint64_t)idx, &raw, &utf8);
		if (!ret)
			ret = ex_check_time(e->ctx);
	}
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
	for (i = 0; i < e->nentries && !ret; i++) {
		const char *name = zip_get_name(e->za, (zip_uint64_t)i, 0);

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

	ret = parse_xml(e, "META-INF/encryption.xml", &d);
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
	ret = parse_xml(e, "META-INF/container.xml", &d);
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
	for (i = 0; i < e->nentries; i++) {
		const char *name = zip_get_name(e->za, (zip_uint64_t)i, 0);
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
	ret = parse_xml(e, opf, &d);
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

static int check_directory(struct epub *e)
{
	struct ex_ctx *ctx = e->ctx;
	uint64_t comp = 0;
	zip_int64_t i;
	zip_stat_t st;

	e->nentries = zip_get_num_entries(e->za, 0);
	if (e->nentries < 0)
		return ex_fail(ctx, -EBADMSG, "cannot list the archive");
	if ((uint64_t)e->nentries > ctx->lim->max_entries)
		return ex_fail(ctx, -EFBIG, "%lld entries, over the limit of %u",
			       (long long)e->nentries, ctx->lim->max_entries);
	/* Entries whose data overlap (the "overlapping files" zip bomb) claim
	 * more compressed bytes than the archive holds. */
	for (i = 0; i < e->nentries; i++) {
		zip_stat_init(&st);
		if (zip_stat_index(e->za, (zip_uint64_t)i, 0, &st))
			return ex_fail(ctx, -EBADMSG, "entry %lld: %s", (long long)i, zip_strerror(e->za));
		if (st.valid & ZIP_STAT_COMP_SIZE)
			comp += st.comp_size;
	}
	if (comp > e->archive_size)
		return ex_fail(ctx, -EBADMSG, "entries overlap: %llu compressed bytes in a %llu-byte "
			       "archive (zip bomb?)", (unsigned long long)comp,
			       (unsigned long long)e->archive_size);
	return 0;
}

/* Opens with libzip's consistency checks (central directory against local
 * headers); an archive failing only those is opened again without them,
 * with a warning: the per-entry size and CRC checks still apply. */
static int open_archive(struct epub *e, const void *data, size_t len, int fd)
{
	int pass, zep = 0;

	for (pass = 0; pass < 2 && !e->za; pass++) {
		int flags = pass ? 0 : ZIP_CHECKCONS;

		if (data) {
			zip_error_t ze;
			zip_source_t *src;

			zip_error_init(&ze);
			src = zip_source_buffer_create(data, len, 0, &ze);
			if (src) {
				e->za = zip_open_from_source(src, ZIP_RDONLY | flags, &ze);
				if (!e->za)
					zip_source_free(src);
			}
			zep = zip_error_code_zip(&ze);
			zip_error_fini(&ze);
		} else {
			int d = dup(fd);

			if (d < 0)
				return ex_fail(e->ctx, -errno, "dup: %s", strerror(errno));
			e->za = zip_fdopen(d, flags, &zep);
			if (!e->za)
				close(d);
		}
		if (!e->za && zep != ZIP_ER_INCONS)
			break;
		if (e->za && pass)
			ex_warn(e->ctx, "zip headers are inconsistent; read with per-entry checks");
	}
	if (!e->za) {
		zip_error_t ze;
		int ret;

		zip_error_init_with_code(&ze, zep);
		ret = ex_fail(e->ctx, zip_errno(zep), "not a valid zip archive: %s",
			      zip_error_strerror(&ze));
		zip_error_fini(&ze);
		return ret;
	}
	return 0;
}

int epub_extract(struct ex_ctx *ctx, const void *data, size_t len, int fd)
{
	struct epub e;
	int ret;

	memset(&e, 0, sizeof(e));
	e.ctx = ctx;
	e.archive_size = len;
	ret = open_archive(&e, data, len, fd);
	if (!ret)
		ret = check_directory(&e);
	if (!ret)
		ret = check_drm(&e);
	if (!ret)
		ret = read_package(&e);
	if (!ret && !ctx->doc->nchunks)
		ret = e.package ? ex_fail(ctx, -EBADMSG, "no readable text in the EPUB") :
		      ex_fail(ctx, EXTRACT_NOTBOOK, "not a book (a zip archive without EPUB content)");
	if (ret && !ctx->failed)
		ex_fail(ctx, ret, "%s", strerror(-ret));
	if (e.za)
		zip_discard(e.za);
	return ret;
}
