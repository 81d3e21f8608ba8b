/* pdf.c - PDF: the text layer of each page through poppler's GLib API, then
 * pdftext.c for headers, page numbers, hyphenation and paragraphs.
 *
 * poppler (Debian's libpoppler-glib) is the PDF library of the free desktop:
 * maintained, fuzzed by OSS-Fuzz, and it rebuilds a broken cross-reference
 * table itself.  It reads from our buffer (never from a file or URL), and
 * only text is asked of it: no rendering, fonts or images.  The limits
 * apply between pages (time, text length) and before the first (pages);
 * one page's text is extracted by poppler in one call that cannot be
 * interrupted.
 */
#include "extract_i.h"
#include "pdfscan.h"
#include "pdftext.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <poppler.h>

/* A new chunk starts on a page boundary after this much text (about 1,500
 * words): chapter-sized pieces rather than one chunk per page. */
#define PDF_CHUNK_BYTES 8192
/* Once pdfscan.c has left this many pages more to poppler than it read
 * itself, poppler reads the rest of the document alone. */
#define PDF_MAX_MISSED 8
/* Fewer letters and digits per page than this on average: no text layer. */
#define PDF_MIN_ALNUM_PER_PAGE 16

static void quiet_log(const gchar *domain, GLogLevelFlags level, const gchar *msg, gpointer data)
{
	(void)domain;
	(void)level;
	(void)msg;
	(void)data;
}

static pthread_once_t log_once = PTHREAD_ONCE_INIT;

/* poppler reports every syntax error of a broken file through g_log in the
 * "Poppler" domain: a damaged book must not flood the log of the mount. */
static void log_init(void)
{
	g_log_set_handler("Poppler", (GLogLevelFlags)(G_LOG_LEVEL_MASK & ~G_LOG_LEVEL_ERROR),
			  quiet_log, NULL);
}

/* Adds the authors of the Info dictionary: "A; B", "A & B" and "A and B"
 * are split, commas are not ("Shelley, Mary").  calibre writes "Unknown"
 * when it does not know the author. */
static int add_creators(struct extract_strv *v, const char *s)
{
	static const char *const seps[] = { ";", " & ", " and " };
	const char *p = s;
	int ret = 0;

	while (!ret && *p) {
		const char *best = NULL;
		size_t blen = 0, k;

		for (k = 0; k < sizeof(seps) / sizeof(seps[0]); k++) {
			const char *q = strstr(p, seps[k]);

			if (q && (!best || q < best)) {
				best = q;
				blen = strlen(seps[k]);
			}
		}
		if (!best)
			best = p + strlen(p);
		if (!(best - p == 7 && !strncasecmp(p, "unknown", 7)))
			ret = ex_strv_add(v, p, (size_t)(best - p));
		p = *best ? best + blen : best;
	}
	return ret;
}

static int read_meta(struct ex_ctx *ctx, PopplerDocument *pd)
{
	gchar *title = poppler_document_get_title(pd);
	gchar *author = poppler_document_get_author(pd);
	int ret = 0;

	if (title && g_utf8_validate(title, -1, NULL))
		ret = ex_str_set(&ctx->doc->title, title, strlen(title));
	if (!ret && author && g_utf8_validate(author, -1, NULL))
		ret = add_creators(&ctx->doc->creators, author);
	g_free(title);
	g_free(author);
	return ret;
}

/* The text of page i with a box per character, into pt. */
static int read_page(struct ex_ctx *ctx, PopplerDocument *pd, int i, struct pdftext *pt)
{
	PopplerPage *page = poppler_document_get_page(pd, i);
	PopplerRectangle *rect = NULL;
	struct pdftext_box *box = NULL;
	guint nrect = 0, k;
	gchar *text = NULL, *valid = NULL;
	int ret = 0;

	if (!page)
		return ex_warn(ctx, "page %d unreadable, skipped", i + 1);
	text = poppler_page_get_text(page);
	if (!text)
		goto out;
	if (!g_utf8_validate(text, -1, NULL)) {
		valid = g_utf8_make_valid(text, -1);
		g_free(text);
		text = valid;
	} else if (poppler_page_get_text_layout(page, &rect, &nrect) && nrect) {
		box = malloc(nrect * sizeof(*box));
		if (!box) {
			ret = -ENOMEM;
			goto out;
		}
		for (k = 0; k < nrect; k++)
			box[k] = (struct pdftext_box){ rect[k].x1, rect[k].y1, rect[k].x2, rect[k].y2 };
	}
	ret = pdftext_add_page(pt, text, strlen(text), box, box ? nrect : 0);
out:
	free(box);
	g_free(rect);
	g_free(text);
	g_object_unref(page);
	return ret;
}

/* Each page through pdfscan.c when fast and the page is in its case, else
 * through poppler. */
static int read_pages(struct ex_ctx *ctx, PopplerDocument *pd, const void *data, size_t len,
		      int fast, struct pdftext *pt)
{
	const struct extract_limits *lim = ctx->lim;
	int n = poppler_document_get_n_pages(pd), i, ret = 0, missed = 0, read = 0;
	struct pdfscan *sc = NULL;

	if (n <= 0)
		return ex_fail(ctx, -EBADMSG, "corrupt PDF (no pages)");
	if ((uint64_t)n > lim->max_entries)
		return ex_fail(ctx, -EFBIG, "PDF of %d pages, over the limit of %u", n,
			       lim->max_entries);
	if (fast) {
		ret = pdfscan_open(ctx, data, len, (uint32_t)n, &sc);
		if (ret && ret != -ENOTSUP)
			return ret;
		ret = 0;
	}
	for (i = 0; !ret && i < n; i++) {
		ret = ex_check_time(ctx);
		if (!ret && sc)
			ret = pdfscan_page(sc, (uint32_t)i, pt);
		if (ret == -ENOTSUP && ++missed > read + PDF_MAX_MISSED) {
			/* not a file of its kind: stop paying for both readers */
			pdfscan_close(sc);
			sc = NULL;
		}
		read += sc && !ret;
		if ((!ret && !sc) || ret == -ENOTSUP)
			ret = read_page(ctx, pd, i, pt);
		if (!ret && pt->raw.len > lim->max_text_bytes)
			ret = ex_fail(ctx, -EFBIG, "text longer than %llu bytes",
				      (unsigned long long)lim->max_text_bytes);
	}
	pdfscan_close(sc);
	return ret;
}

static int check_text(struct ex_ctx *ctx, uint32_t npages)
{
	const struct sbuf *t = &ctx->doc->text;
	uint64_t alnum = 0;
	size_t i;

	for (i = 0; i < t->len; i++) {
		unsigned char c = (unsigned char)t->buf[i];

		alnum += (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z') ||
			 c >= 0xC0;
	}
	if (alnum < (uint64_t)PDF_MIN_ALNUM_PER_PAGE * npages)
		return ex_fail(ctx, -EBADMSG, "no text layer (scanned PDF?)");
	return 0;
}

static int open_doc(struct ex_ctx *ctx, const void *data, size_t len, PopplerDocument **out)
{
	GBytes *bytes = g_bytes_new_static(data, len);
	GError *gerr = NULL;
	int ret = 0;

	*out = poppler_document_new_from_bytes(bytes, NULL, &gerr);
	g_bytes_unref(bytes);
	if (*out)
		return 0;
	if (gerr && gerr->domain == POPPLER_ERROR && gerr->code == POPPLER_ERROR_ENCRYPTED)
		ret = ex_fail(ctx, -EACCES, "encrypted (password-protected)");
	else
		ret = ex_fail(ctx, -EBADMSG, "corrupt PDF (%s)",
			      gerr && gerr->message ? gerr->message : "unreadable");
	if (gerr)
		g_error_free(gerr);
	return ret;
}

int pdf_extract(struct ex_ctx *ctx, const void *data, size_t len)
{
	return pdf_extract_with(ctx, data, len, 1);
}

int pdf_extract_with(struct ex_ctx *ctx, const void *data, size_t len, int fast)
{
	struct extract_doc *doc = ctx->doc;
	PopplerDocument *pd = NULL;
	struct pdftext pt;
	int ret;

	pthread_once(&log_once, log_init);
	pdftext_init(&pt);
	ret = open_doc(ctx, data, len, &pd);
	if (!ret)
		ret = read_meta(ctx, pd);
	if (!ret)
		ret = read_pages(ctx, pd, data, len, fast, &pt);
	if (!ret)
		ret = pdftext_finish(&pt, PDF_CHUNK_BYTES, &doc->text, &doc->chunk_off,
				     &doc->nchunks);
	if (!ret)
		ret = check_text(ctx, pt.npages);
	if (ret && !ctx->failed)
		ex_fail(ctx, ret, "%s", strerror(-ret));
	pdftext_release(&pt);
	if (pd)
		g_object_unref(pd);
	return ret;
}
