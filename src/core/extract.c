/* extract.c - format detection, file handling and limits for extraction
 * (see extract.h); the formats themselves are in txt.c, html.c, epub.c,
 * mobi.c, pdf.c, fb2.c, docx.c, odt.c and rtf.c.
 */
#include "extract_i.h"
#include "monoclock.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/parserInternals.h>

#define SNIFF_BYTES 4096
#define MAX_WARNINGS 64

void extract_limits_default(struct extract_limits *lim)
{
	lim->max_plain_bytes = 32u << 20;
	lim->max_archive_bytes = 1u << 30;
	lim->max_unzipped_bytes = 64u << 20;
	lim->max_entry_bytes = 16u << 20;
	lim->max_meta_bytes = 4u << 20;
	lim->max_entries = 10000;
	lim->max_ratio = 100;
	lim->max_depth = 256;
	lim->max_text_bytes = 32u << 20;
	lim->max_millis = 5000;
	lim->millis_per_mib = 500;
}

static void strv_release(struct extract_strv *v)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		free(v->v[i]);
	free(v->v);
	v->v = NULL;
	v->n = 0;
}

void extract_doc_init(struct extract_doc *doc)
{
	memset(doc, 0, sizeof(*doc));
	sbuf_init(&doc->text);
}

void extract_doc_release(struct extract_doc *doc)
{
	sbuf_release(&doc->text);
	free(doc->chunk_off);
	free(doc->title);
	free(doc->language);
	free(doc->isbn);
	strv_release(&doc->creators);
	strv_release(&doc->identifiers);
	strv_release(&doc->warnings);
	extract_doc_init(doc);
}

uint64_t extract_max_file_bytes(const struct extract_limits *lim, enum extract_format fmt)
{
	return fmt == EXTRACT_FMT_TXT || fmt == EXTRACT_FMT_HTML ? lim->max_plain_bytes
								  : lim->max_archive_bytes;
}

const char *extract_format_name(enum extract_format fmt)
{
	switch (fmt) {
	case EXTRACT_FMT_TXT:
		return "txt";
	case EXTRACT_FMT_HTML:
		return "html";
	case EXTRACT_FMT_EPUB:
		return "epub";
	case EXTRACT_FMT_MOBI:
		return "mobi";
	case EXTRACT_FMT_PDF:
		return "pdf";
	case EXTRACT_FMT_FB2:
		return "fb2";
	case EXTRACT_FMT_DOCX:
		return "docx";
	case EXTRACT_FMT_ODT:
		return "odt";
	case EXTRACT_FMT_RTF:
		return "rtf";
	case EXTRACT_FMT_UNKNOWN:
	default:
		return "unknown";
	}
}

int ex_fail(struct ex_ctx *ctx, int code, const char *fmt, ...)
{
	va_list ap;

	if (ctx->failed)
		return code;
	ctx->failed = 1;
	if (ctx->err) {
		sbuf_addf(ctx->err, "%s: ", ctx->name);
		va_start(ap, fmt);
		sbuf_vaddf(ctx->err, fmt, ap);
		va_end(ap);
	}
	return code;
}

/* Copies s[0..n) with white space trimmed and inner runs collapsed. */
static char *clean_copy(const char *s, size_t n)
{
	char *d = malloc(n + 1);
	size_t i, o = 0;
	int sp = 0;

	if (!d)
		return NULL;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
			sp = o > 0;
			continue;
		}
		if (!c)
			break;
		if (sp)
			d[o++] = ' ';
		sp = 0;
		d[o++] = c;
	}
	d[o] = '\0';
	return d;
}

int ex_strv_add(struct extract_strv *v, const char *s, size_t n)
{
	char *c = clean_copy(s, n), **p;

	if (!c)
		return -ENOMEM;
	if (!*c) {
		free(c);
		return 0;
	}
	p = realloc(v->v, (v->n + 1) * sizeof(*p));
	if (!p) {
		free(c);
		return -ENOMEM;
	}
	v->v = p;
	v->v[v->n++] = c;
	return 0;
}

int ex_str_set(char **dst, const char *s, size_t n)
{
	char *c = clean_copy(s, n);

	if (!c)
		return -ENOMEM;
	free(*dst);
	*dst = *c ? c : NULL;
	if (!*c)
		free(c);
	return 0;
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

int ex_warn(struct ex_ctx *ctx, const char *fmt, ...)
{
	struct sbuf sb = { 0 };
	va_list ap;
	int ret;

	if (ctx->doc->warnings.n > MAX_WARNINGS)
		return 0;
	sbuf_init(&sb);
	if (ctx->doc->warnings.n == MAX_WARNINGS) {
		ret = sbuf_addstr(&sb, "more warnings dropped");
	} else {
		va_start(ap, fmt);
		ret = sbuf_vaddf(&sb, fmt, ap);
		va_end(ap);
	}
	if (!ret)
		ret = ex_strv_add(&ctx->doc->warnings, sb.buf, sb.len);
	sbuf_release(&sb);
	return ret;
}

int ex_check_time(struct ex_ctx *ctx)
{
	if ((uint64_t)monoclock_thread_cpu_ns() <= ctx->deadline_ns)
		return 0;
	return ex_fail(ctx, -ETIMEDOUT, "took more than the limit of %llu ms of CPU time",
		       (unsigned long long)(ctx->deadline_ns - ctx->start_ns) / 1000000u);
}

uint64_t ex_budget_ms(const struct extract_limits *lim, uint64_t len)
{
	uint64_t ms = lim->max_millis, cap = 12u * (uint64_t)lim->max_millis;

	ms += (len >> 20) * lim->millis_per_mib;
	return ms < cap ? ms : cap;
}

static void ctx_budget(struct ex_ctx *ctx, uint64_t len)
{
	ctx->deadline_ns = ctx->start_ns + ex_budget_ms(ctx->lim, len) * 1000000u;
}

/* libxml2 may only ever see the bytes we hand it: no file, no network. */
static xmlParserInputPtr no_external(const char *url, const char *id, xmlParserCtxtPtr pctx)
{
	(void)url;
	(void)id;
	(void)pctx;
	return NULL;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void global_init(void)
{
	xmlInitParser();
	xmlSetExternalEntityLoader(no_external);
}

/* Lower-case extension of name ("" if none), at most 7 chars, into buf. */
static const char *extension(const char *name, char *buf, size_t sz)
{
	const char *base = strrchr(name, '/'), *dot;
	size_t i, n;

	base = base ? base + 1 : name;
	dot = strrchr(base, '.');
	buf[0] = '\0';
	if (!dot || dot == base)
		return buf;
	n = strlen(dot + 1);
	if (n >= sz)
		return buf;
	for (i = 0; i <= n; i++) {
		char c = dot[1 + i];

		buf[i] = (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
	}
	return buf;
}

static int ext_is_html(const char *ext)
{
	return !strcmp(ext, "html") || !strcmp(ext, "htm") || !strcmp(ext, "xhtml") ||
	       !strcmp(ext, "xht");
}

static int ext_is_text(const char *ext)
{
	return !*ext || !strcmp(ext, "txt") || !strcmp(ext, "text") || !strcmp(ext, "asc");
}

static int looks_like_html(const char *p, size_t n)
{
	size_t i = 0;

	if (n >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
		i = 3;
	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
		i++;
	if (i >= n || p[i] != '<')
		return 0;
	for (; i + 5 <= n; i++)
		if (p[i] == '<' && (!strncasecmp(p + i, "<html", 5) || !strncasecmp(p + i, "<body", 5) ||
				    (i + 14 <= n && !strncasecmp(p + i, "<!doctype html", 14))))
			return 1;
	return 0;
}

/* The name of the first local file header of a zip prefix ("" if cut). */
static size_t zip_first_name(const char *p, size_t len, const char **name)
{
	size_t n;

	*name = "";
	if (len < 30)
		return 0;
	n = (size_t)(unsigned char)p[26] | (size_t)(unsigned char)p[27] << 8;
	if (30 + n > len)
		return 0;
	*name = p + 30;
	return n;
}

/* FictionBook XML: its root element within the first bytes. */
static int looks_like_fb2(const char *p, size_t n)
{
	return memmem(p, n < 1024 ? n : 1024, "<FictionBook", 12) != NULL;
}

/* "{\rtf" after an optional UTF-8 BOM and white space. */
static int looks_like_rtf(const char *p, size_t n)
{
	size_t i = 0;

	if (n >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
		i = 3;
	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
		i++;
	return n - i >= 5 && !memcmp(p + i, "{\\rtf", 5);
}

enum extract_format extract_sniff(const void *prefix, size_t len, const char *name)
{
	const char *p = prefix;
	char ebuf[8];
	const char *ext = name ? extension(name, ebuf, sizeof(ebuf)) : NULL, *first;
	size_t nl;

	if (len >= 4 && !memcmp(p, "PK\3\4", 4)) {
		if (len >= 58 && !memcmp(p + 30, "mimetype", 8) &&
		    memmem(p + 38, len - 38 < 64 ? len - 38 : 64, "application/epub+zip", 20))
			return EXTRACT_FMT_EPUB;
		nl = zip_first_name(p, len, &first);
		if (nl > 4 && !strncasecmp(first + nl - 4, ".fb2", 4))
			return EXTRACT_FMT_FB2;
		if ((nl == 8 && !memcmp(first, "mimetype", 8) &&
		     memmem(first + 8, len - 38 < 128 ? len - 38 : 128, "opendocument.text", 17)) ||
		    (ext && !strcmp(ext, "odt")))
			return EXTRACT_FMT_ODT;
		if ((memmem(p, len, "[Content_Types].xml", 19) && memmem(p, len, "word/", 5)) ||
		    (ext && !strcmp(ext, "docx")))
			return EXTRACT_FMT_DOCX;
		return !ext || !strcmp(ext, "epub") ? EXTRACT_FMT_EPUB : EXTRACT_FMT_UNKNOWN;
	}
	if (len >= 68 && (!memcmp(p + 60, "BOOKMOBI", 8) || !memcmp(p + 60, "TEXtREAd", 8)))
		return EXTRACT_FMT_MOBI;
	/* Kindle names without the signature: refused as corrupt, with a
	 * reason (.prc and .pdb name other Palm databases too) */
	if (ext && (!strcmp(ext, "mobi") || !strcmp(ext, "azw") || !strcmp(ext, "azw3")))
		return EXTRACT_FMT_MOBI;
	if (ext && !strcmp(ext, "epub"))
		return EXTRACT_FMT_EPUB;	/* not a zip: refused as corrupt, with a reason */
	/* readers accept the header anywhere in the first KiB; only a file
	 * named .pdf gets that leeway, so a text quoting it stays text */
	if ((len >= 5 && !memcmp(p, "%PDF-", 5)) ||
	    (ext && !strcmp(ext, "pdf") && memmem(p, len < 1024 ? len : 1024, "%PDF-", 5)))
		return EXTRACT_FMT_PDF;
	if (ext && !strcmp(ext, "docx") && len >= 8 && !memcmp(p, "\xD0\xCF\x11\xE0", 4))
		return EXTRACT_FMT_DOCX;	/* encrypted: refused as protected */
	if (looks_like_rtf(p, len) || (ext && !strcmp(ext, "rtf")))
		return EXTRACT_FMT_RTF;	/* a .rtf that is not RTF: refused with a reason */
	if (txt_looks_binary(prefix, len))
		return EXTRACT_FMT_UNKNOWN;
	if ((ext && !strcmp(ext, "fb2")) || ((!ext || !*ext) && looks_like_fb2(p, len)))
		return EXTRACT_FMT_FB2;
	if (looks_like_html(p, len))
		return !ext || ext_is_html(ext) || ext_is_text(ext) ? EXTRACT_FMT_HTML
								     : EXTRACT_FMT_UNKNOWN;
	if (!ext || ext_is_text(ext))
		return EXTRACT_FMT_TXT;
	if (ext_is_html(ext))
		return EXTRACT_FMT_HTML;
	return EXTRACT_FMT_UNKNOWN;
}

static int notbook_reason(struct ex_ctx *ctx, const void *prefix, size_t len)
{
	if (len >= 4 && !memcmp(prefix, "PK\3\4", 4))
		return ex_fail(ctx, EXTRACT_NOTBOOK, "not a book (a zip archive that is not an EPUB)");
	if (txt_looks_binary(prefix, len))
		return ex_fail(ctx, EXTRACT_NOTBOOK, "not a book (binary content)");
	return ex_fail(ctx, EXTRACT_NOTBOOK, "not a book (no book file extension)");
}

static void ctx_start(struct ex_ctx *ctx, const char *name, const struct extract_limits *lim,
		      struct extract_limits *defaults, struct extract_doc *doc, struct sbuf *err)
{
	pthread_once(&once, global_init);
	if (!lim) {
		extract_limits_default(defaults);
		lim = defaults;
	}
	memset(ctx, 0, sizeof(*ctx));
	ctx->lim = lim;
	ctx->name = name ? name : "(buffer)";
	ctx->start_ns = (uint64_t)monoclock_thread_cpu_ns();
	ctx_budget(ctx, 0);
	ctx->doc = doc;
	ctx->err = err;
}

/* Extracts data in the format fmt; fd >= 0 when data is NULL (EPUB on disk). */
static int run(struct ex_ctx *ctx, enum extract_format fmt, const char *data, size_t len, int fd)
{
	struct extract_doc *doc = ctx->doc;
	int ret;

	ctx_budget(ctx, len);
	doc->format = fmt;
	switch (fmt) {
	case EXTRACT_FMT_EPUB:
		if (len > ctx->lim->max_archive_bytes)
			return ex_fail(ctx, -EFBIG, "archive of %zu bytes, over the limit of %llu",
				       len, (unsigned long long)ctx->lim->max_archive_bytes);
		ret = epub_extract(ctx, data, len, fd);
		break;
	case EXTRACT_FMT_HTML:
		ret = html_extract(ctx, data, len);
		if (!ret && doc->text.len) {
			doc->chunk_off = calloc(1, sizeof(*doc->chunk_off));
			if (!doc->chunk_off)
				return ex_fail(ctx, -ENOMEM, "out of memory");
			doc->nchunks = 1;
		}
		break;
	case EXTRACT_FMT_TXT:
		ret = txt_extract(ctx, data, len);
		break;
	case EXTRACT_FMT_PDF:
		ret = pdf_extract(ctx, data, len);
		break;
	case EXTRACT_FMT_FB2:
		ret = fb2_extract(ctx, data, len);
		break;
	case EXTRACT_FMT_DOCX:
		ret = docx_extract(ctx, data, len, fd);
		break;
	case EXTRACT_FMT_ODT:
		ret = odt_extract(ctx, data, len, fd);
		break;
	case EXTRACT_FMT_MOBI:
		ret = mobi_extract(ctx, data, len);
		break;
	case EXTRACT_FMT_RTF:
		ret = rtf_extract(ctx, data, len);
		break;
	case EXTRACT_FMT_UNKNOWN:
	default:
		return ex_fail(ctx, EXTRACT_NOTBOOK, "not a book");
	}
	if (!ret && doc->text.len > ctx->lim->max_text_bytes)
		ret = ex_fail(ctx, -EFBIG, "text longer than %llu bytes",
			      (unsigned long long)ctx->lim->max_text_bytes);
	if (!ret)
		ret = ex_check_time(ctx);
	return ret;
}

int extract_buffer(const void *data, size_t len, const char *name,
		   const struct extract_limits *lim, struct extract_doc *doc,
		   struct sbuf *err)
{
	struct extract_limits defaults;
	struct ex_ctx ctx;
	enum extract_format fmt;
	int ret;

	ctx_start(&ctx, name, lim, &defaults, doc, err);
	if (!len)
		return ex_fail(&ctx, EXTRACT_NOTBOOK, "not a book (empty)");
	fmt = extract_sniff(data, len < SNIFF_BYTES ? len : SNIFF_BYTES, name);
	if (fmt == EXTRACT_FMT_UNKNOWN) {
		ret = notbook_reason(&ctx, data, len < SNIFF_BYTES ? len : SNIFF_BYTES);
	} else if (fmt != EXTRACT_FMT_EPUB && len > extract_max_file_bytes(ctx.lim, fmt)) {
		ret = ex_fail(&ctx, -EFBIG, "file of %zu bytes, over the limit of %llu", len,
			      (unsigned long long)extract_max_file_bytes(ctx.lim, fmt));
	} else {
		ret = run(&ctx, fmt, data, len, -1);
	}
	if (ret)
		extract_doc_release(doc);
	return ret;
}

static const char *file_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "a device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

/* Reads exactly n bytes at offset 0 (the file may not grow under us). */
static int read_all(int fd, char *buf, size_t n, size_t *got)
{
	size_t o = 0;

	while (o < n) {
		ssize_t r = pread(fd, buf + o, n - o, (off_t)o);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (!r)
			break;
		o += (size_t)r;
	}
	*got = o;
	return 0;
}

int extract_file(const char *path, const struct extract_limits *lim,
		 struct extract_doc *doc, struct sbuf *err)
{
	struct extract_limits defaults;
	struct ex_ctx ctx;
	struct stat st, fst;
	char prefix[SNIFF_BYTES], *data = NULL;
	size_t got = 0, size;
	enum extract_format fmt;
	int fd = -1, ret;

	ctx_start(&ctx, path, lim, &defaults, doc, err);
	/* stat first: opening a FIFO or a device could block or act */
	if (stat(path, &st)) {
		ret = -errno;
		ret = ex_fail(&ctx, ret, "%s", strerror(-ret));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = ex_fail(&ctx, EXTRACT_NOTBOOK, "not a book (%s)", file_kind(st.st_mode));
		goto out;
	}
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		ret = ex_fail(&ctx, ret, "%s", strerror(-ret));
		goto out;
	}
	if (fstat(fd, &fst) || !S_ISREG(fst.st_mode) || fst.st_ino != st.st_ino ||
	    fst.st_dev != st.st_dev) {
		ret = ex_fail(&ctx, EXTRACT_NOTBOOK, "not a book (changed while opening)");
		goto out;
	}
	if (!fst.st_size) {
		ret = ex_fail(&ctx, EXTRACT_NOTBOOK, "not a book (empty)");
		goto out;
	}
	ret = read_all(fd, prefix, sizeof(prefix), &got);
	if (ret) {
		ret = ex_fail(&ctx, ret, "read: %s", strerror(-ret));
		goto out;
	}
	fmt = extract_sniff(prefix, got, path);
	if (fmt == EXTRACT_FMT_UNKNOWN) {
		ret = notbook_reason(&ctx, prefix, got);
		goto out;
	}
	if ((uint64_t)fst.st_size > extract_max_file_bytes(ctx.lim, fmt)) {
		ret = ex_fail(&ctx, -EFBIG, "file of %lld bytes, over the limit of %llu",
			      (long long)fst.st_size,
			      (unsigned long long)extract_max_file_bytes(ctx.lim, fmt));
		goto out;
	}
	size = (size_t)fst.st_size;
	if (fmt == EXTRACT_FMT_EPUB || fmt == EXTRACT_FMT_DOCX || fmt == EXTRACT_FMT_ODT) {
		ret = run(&ctx, fmt, NULL, size, fd);
		goto out;
	}
	data = malloc(size + 1);
	if (!data) {
		ret = ex_fail(&ctx, -ENOMEM, "out of memory");
		goto out;
	}
	ret = read_all(fd, data, size, &got);
	if (ret) {
		ret = ex_fail(&ctx, ret, "read: %s", strerror(-ret));
		goto out;
	}
	ret = run(&ctx, fmt, data, got, -1);
out:
	free(data);
	if (fd >= 0)
		close(fd);
	if (ret)
		extract_doc_release(doc);
	return ret;
}

int extract_normalize(const struct extract_doc *doc, struct norm_doc *out)
{
	return norm_book(doc->text.buf, doc->text.len, doc->chunk_off, doc->nchunks, out);
}
