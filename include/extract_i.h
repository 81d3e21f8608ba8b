/* extract_i.h - private to the extraction modules (extract.c, txt.c, html.c,
 * epub.c): the per-file context and the helpers they share.  Not for other
 * modules: use extract.h.
 */
#ifndef EXTRACT_I_H
#define EXTRACT_I_H

#include <stddef.h>
#include <stdint.h>

#include "extract.h"
#include "sbuf.h"

/* One extraction in progress. */
struct ex_ctx {
	const struct extract_limits *lim;
	const char *name;		/* file name for messages, never NULL */
	uint64_t start_ns;		/* thread CPU clock at the start */
	uint64_t deadline_ns;		/* the same clock: start + the budget */
	struct extract_doc *doc;
	struct sbuf *err;		/* may be NULL */
	int failed;			/* ex_fail() already wrote a reason */
};

/* The CPU time budget of a file of len bytes, in ms: max_millis, and
 * millis_per_mib for each whole MiB, at most 12 x max_millis (a hostile
 * file of the largest size must not keep a worker long). */
uint64_t ex_budget_ms(const struct extract_limits *lim, uint64_t len);

/* Appends "NAME: reason" to ctx->err (only the first reason) and returns
 * code, so callers write `return ex_fail(ctx, -EFBIG, "...")`. */
int ex_fail(struct ex_ctx *ctx, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Adds a warning line to ctx->doc->warnings (at most 64 are kept; the last
 * one says how many more were dropped).  Returns 0 or -ENOMEM. */
int ex_warn(struct ex_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* 0, or -ETIMEDOUT (with the reason set) once the time limit has passed. */
int ex_check_time(struct ex_ctx *ctx);

/* Appends a copy of s[0..n) (trimmed of ASCII white space, inner runs of
 * white space collapsed) to v; empty strings are not added.  0 or -ENOMEM. */
int ex_strv_add(struct extract_strv *v, const char *s, size_t n);
/* The same into a single owned string *dst, replacing it. */
int ex_str_set(char **dst, const char *s, size_t n);
/* 1 and the digits (and a final X) in isbn when v is a checksum-valid
 * ISBN-13 or ISBN-10 written with digits, hyphens and spaces; else 0.
 * sz must be at least 14. */
int ex_isbn(const char *v, char *isbn, size_t sz);

/* Text decoding (txt.c).  Appends len bytes of text in an unknown encoding
 * to out as valid UTF-8 with "\n" line ends: a BOM decides first (UTF-8,
 * UTF-16LE/BE), then well-formed UTF-8 (a few stray bytes in otherwise valid
 * UTF-8 become U+FFFD), then hint (a declared charset, may be NULL), then a
 * detector for 8-bit and other legacy encodings (Windows-1252 when unsure).
 * Sets *charset to a static name.  Fails with -EFBIG when out would pass
 * max_out bytes, -ENOMEM. */
int txt_decode(const char *in, size_t len, const char *hint, size_t max_out,
	       struct sbuf *out, const char **charset);
/* The upper half (bytes 0x80..0xFF) of a single-byte charset as code points,
 * for formats that decode one byte at a time (RTF's \'hh): Windows-1252
 * (and Latin-1, ASCII) from txt.c's table, others through iconv; undefined
 * bytes are U+FFFD.  Returns 0, 1 when charset has multi-byte characters
 * (tab is then incomplete: decode through iconv), -EINVAL when iconv does
 * not know it. */
int txt_sbcs_table(const char *charset, uint32_t tab[128]);
/* 1 if p[0..n) is well-formed UTF-8 without a byte-order mark. */
int txt_is_utf8(const char *p, size_t n);
/* 1 if the prefix looks binary (NUL bytes outside UTF-16, control bytes). */
int txt_looks_binary(const unsigned char *p, size_t n);
/* Plain text: decode into ctx->doc->text and read Gutenberg header metadata. */
int txt_extract(struct ex_ctx *ctx, const char *data, size_t len);

/* HTML (html.c).  Appends the text of an (X)HTML document in UTF-8 to out:
 * <head>, <script>, <style> and <template> skipped, references decoded, block
 * elements as paragraph breaks, white space collapsed.  meta (may be NULL)
 * receives <title>, <html lang> and <meta name="author"> when the doc's fields
 * are still empty.  Errors: -EFBIG (depth or text limits), -ETIMEDOUT,
 * -ENOMEM, with the reason set. */
int html_to_text(struct ex_ctx *ctx, const char *utf8, size_t len, struct sbuf *out,
		 struct extract_doc *meta);
/* A standalone HTML file: decode (declared charset honoured) and convert. */
int html_extract(struct ex_ctx *ctx, const char *data, size_t len);
/* Finds a charset declared in the first bytes of markup (<meta charset>,
 * http-equiv content, <?xml encoding?>); copies it into buf (NUL-terminated)
 * and returns 1, or returns 0. */
int html_declared_charset(const char *p, size_t n, char *buf, size_t bufsz);

/* EPUB (epub.c): data in memory, or the open file fd (data NULL). */
int epub_extract(struct ex_ctx *ctx, const void *data, size_t len, int fd);
/* The Dublin Core metadata of an OPF package document into doc (see
 * extract_opf_meta()). */
int epub_opf_meta(struct extract_doc *doc, const void *data, size_t len);

/* MOBI, AZW3/KF8 and PalmDOC (mobi.c): the whole file in memory. */
int mobi_extract(struct ex_ctx *ctx, const void *data, size_t len);

/* PDF (pdf.c, with pdftext.c): the text layer of data[0..len), which must
 * stay valid during the call. */
int pdf_extract(struct ex_ctx *ctx, const void *data, size_t len);
/* The same, the pages read by pdfscan.c when fast (and the file is in its
 * case), else by poppler alone: pdf_extract() is fast; 0 is the reference
 * the fast reader is tested against. */
int pdf_extract_with(struct ex_ctx *ctx, const void *data, size_t len, int fast);

/* FictionBook 2 (fb2.c): the XML in memory, or a zip holding a .fb2 entry. */
int fb2_extract(struct ex_ctx *ctx, const char *data, size_t len);

/* DOCX (docx.c) and ODT (odt.c): data in memory, or the open file fd (data
 * NULL) of len bytes. */
int docx_extract(struct ex_ctx *ctx, const void *data, size_t len, int fd);
int odt_extract(struct ex_ctx *ctx, const void *data, size_t len, int fd);

/* RTF (rtf.c): the document's text, \info title/author, \deflang. */
int rtf_extract(struct ex_ctx *ctx, const char *data, size_t len);

#endif
