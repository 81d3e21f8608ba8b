/* mobi.c - Mobipocket books (MOBI 6, AZW, AZW3/KF8, hybrids) and PalmDOC
 * (.pdb/.prc "TEXtREAd") to text, chunks and metadata.
 *
 * libmobi (Debian's libmobi0) parses the Palm database, decompresses the
 * text records (PalmDOC LZ77 or HUFF/CDIC) and splits the KF8 flows.  It
 * has no limits of its own beyond a 256 MiB text cap and allocates what the
 * headers declare, so the Palm record list, record 0 and the FDST record
 * are checked here first: offsets ascending and inside the file (libmobi
 * sizes a record as the distance to the next offset, which wraps on a
 * descending list), text records inside the list, known compression, no
 * encryption, a declared text length within max_unzipped_bytes, flow
 * sections that do not overlap.  Its KF8 index parsing is not used at all
 * (see mb_markup).  The markup then goes through html_to_text() like an
 * EPUB's content documents: KF8 documents and MOBI 6 page breaks are the
 * chunks.
 */
#include "extract_i.h"
#include "palmdoc.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <mobi.h>

#define PDB_HEADER 78		/* Palm database header, then 8 bytes per record */
#define PDB_ENTRY 8
#define REC0_MIN 16		/* the PalmDOC header at the start of record 0 */

static uint32_t be16(const unsigned char *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Files named like Kindle books that are not Palm databases. */
static int mb_not_pdb(struct ex_ctx *ctx, const unsigned char *p, size_t len)
{
	if (len >= 8 && !memcmp(p, "\xEA" "DRMION" "\xEE", 8))
		return ex_fail(ctx, -EACCES, "DRM-protected (KFX DRMION)");
	if (len >= 4 && !memcmp(p, "CONT", 4))
		return ex_fail(ctx, -EBADMSG, "KFX container: not supported");
	if (len >= 4 && !memcmp(p, "TPZ", 3))
		return ex_fail(ctx, -EBADMSG, "Topaz book: not supported");
	if (len < PDB_HEADER)
		return ex_fail(ctx, -EBADMSG, "truncated: %zu bytes, shorter than a Palm database "
			       "header", len);
	return ex_fail(ctx, -EBADMSG, "not a MOBI or PalmDOC book (no BOOKMOBI or TEXtREAd "
		       "signature)");
}

/* The Palm record list and the PalmDOC header of record 0, before libmobi
 * allocates anything from them. */
static int mb_check_pdb(struct ex_ctx *ctx, const unsigned char *p, size_t len)
{
	uint32_t n, i, off, prev = 0, end0, comp, enc, ntext;
	const unsigned char *r0;

	if (len < PDB_HEADER + 2 ||
	    (memcmp(p + 60, "BOOKMOBI", 8) && memcmp(p + 60, "TEXtREAd", 8)))
		return mb_not_pdb(ctx, p, len);
	n = be16(p + 76);
	if (!n)
		return ex_fail(ctx, -EBADMSG, "corrupt: no records");
	if ((uint64_t)PDB_HEADER + (uint64_t)n * PDB_ENTRY > len)
		return ex_fail(ctx, -EBADMSG, "truncated: the list of %u records runs past the end "
			       "of the file", n);
	for (i = 0; i < n; i++) {
		off = be32(p + PDB_HEADER + i * PDB_ENTRY);
		if (off < PDB_HEADER + n * PDB_ENTRY || off < prev || off >= len)
			return ex_fail(ctx, -EBADMSG, off >= len ?
				       "truncated: record %u starts past the end of the file" :
				       "corrupt: record %u overlaps the header or a previous record", i);
		prev = off;
	}
	off = be32(p + PDB_HEADER);
	end0 = n > 1 ? be32(p + PDB_HEADER + PDB_ENTRY) : (uint32_t)len;
	if (end0 - off < REC0_MIN)
		return ex_fail(ctx, -EBADMSG, "corrupt: record 0 has %u bytes, too short for a "
			       "PalmDOC header", end0 - off);
	r0 = p + off;
	comp = be16(r0);
	enc = be16(r0 + 12);
	ntext = be16(r0 + 8);
	if (enc)
		return ex_fail(ctx, -EACCES, "DRM-protected (Mobipocket encryption type %u)", enc);
	if (comp != MOBI_COMPRESSION_NONE && comp != MOBI_COMPRESSION_PALMDOC &&
	    comp != MOBI_COMPRESSION_HUFFCDIC)
		return ex_fail(ctx, -EBADMSG, "corrupt: unknown compression type %u", comp);
	if (ntext >= n)
		return ex_fail(ctx, -EBADMSG, "truncated: %u text records declared, %u records in "
			       "the file", ntext, n - 1);
	if (be32(r0 + 4) > ctx->lim->max_unzipped_bytes)
		return ex_fail(ctx, -EFBIG, "declares %u bytes of text, over the unpacking limit of "
			       "%llu", be32(r0 + 4), (unsigned long long)ctx->lim->max_unzipped_bytes);
	return 0;
}

static int mb_errno(MOBI_RET r)
{
	switch (r) {
	case MOBI_MALLOC_FAILED:
		return -ENOMEM;
	case MOBI_FILE_ENCRYPTED:
	case MOBI_DRM_PIDINV:
	case MOBI_DRM_KEYNOTFOUND:
	case MOBI_DRM_UNSUPPORTED:
	case MOBI_DRM_EXPIRED:
		return -EACCES;
	default:
		return -EBADMSG;
	}
}

static const char *mb_strerror(MOBI_RET r)
{
	switch (r) {
	case MOBI_DATA_CORRUPT:
		return "corrupt data";
	case MOBI_FILE_UNSUPPORTED:
		return "unsupported document type";
	case MOBI_MALLOC_FAILED:
		return "out of memory";
	case MOBI_BUFFER_END:
		return "data ends early";
	case MOBI_FILE_ENCRYPTED:
	case MOBI_DRM_PIDINV:
	case MOBI_DRM_KEYNOTFOUND:
	case MOBI_DRM_UNSUPPORTED:
	case MOBI_DRM_EXPIRED:
		return "DRM-protected";
	default:
		return "unreadable";
	}
}

static int mb_lib_fail(struct ex_ctx *ctx, MOBI_RET r, const char *what)
{
	if (mb_errno(r) == -EACCES)
		return ex_fail(ctx, -EACCES, "DRM-protected");
	return ex_fail(ctx, mb_errno(r), "%s: %s (libmobi error %d)",
		       mb_errno(r) == -EBADMSG ? "corrupt" : what, mb_strerror(r), (int)r);
}

/* One part of a loaded book (libmobi holds both halves of a hybrid file):
 * encryption and the text size libmobi will allocate. */
static int mb_check_part(struct ex_ctx *ctx, const MOBIData *m)
{
	size_t max;

	if (mobi_is_encrypted(m))
		return ex_fail(ctx, -EACCES, "DRM-protected");
	if (mobi_is_replica(m))
		return ex_fail(ctx, -EBADMSG, "Kindle Print Replica (a PDF inside): not supported");
	max = mobi_get_text_maxsize(m);
	if (max == MOBI_NOTSET)
		return ex_fail(ctx, -EBADMSG, "corrupt: impossible text length");
	if (max > ctx->lim->max_unzipped_bytes)
		return ex_fail(ctx, -EFBIG, "text of up to %zu bytes, over the unpacking limit of "
			       "%llu", max, (unsigned long long)ctx->lim->max_unzipped_bytes);
	return 0;
}

/* s (from libmobi, any bytes) as valid UTF-8 into *dst or onto v. */
static int mb_meta_str(const char *s, char **dst, struct extract_strv *v)
{
	struct sbuf u = { 0 };
	const char *cs;
	size_t n = strlen(s);
	int ret = 0;

	sbuf_init(&u);
	if (!txt_is_utf8(s, n)) {
		ret = txt_decode(s, n, NULL, 4 * n + 16, &u, &cs);
		if (ret)
			goto out;
		s = u.buf;
		n = u.len;
	}
	ret = dst ? ex_str_set(dst, s, n) : ex_strv_add(v, s, n);
out:
	sbuf_release(&u);
	return ret;
}

/* Every EXTH record with tag: its string onto v (and the first valid ISBN
 * into doc->isbn when isbn is set). */
static int mb_meta_tag(struct ex_ctx *ctx, const MOBIData *m, uint32_t tag,
		       struct extract_strv *v, int isbn)
{
	const MOBIExthHeader *e;
	char digits[16];
	int ret = 0;

	/* walked by hand: mobi_next_exthrecord_by_tag() starts over after a
	 * match in the last record */
	for (e = m->eh; e && !ret; e = e->next) {
		char *s;

		if (e->tag != tag)
			continue;
		s = mobi_decode_exthstring(m, e->data, e->size);
		if (!s)
			return -ENOMEM;
		ret = mb_meta_str(s, NULL, v);
		if (!ret && isbn && !ctx->doc->isbn && ex_isbn(s, digits, sizeof(digits)))
			ret = ex_str_set(&ctx->doc->isbn, digits, strlen(digits));
		free(s);
	}
	return ret;
}

static int mb_meta(struct ex_ctx *ctx, const MOBIData *m)
{
	struct extract_doc *doc = ctx->doc;
	char *s;
	int ret = 0;

	s = mobi_meta_get_title(m);
	if (s)
		ret = mb_meta_str(s, &doc->title, NULL);
	free(s);
	s = ret ? NULL : mobi_meta_get_language(m);
	if (s)
		ret = mb_meta_str(s, &doc->language, NULL);
	free(s);
	if (!ret)
		ret = mb_meta_tag(ctx, m, EXTH_AUTHOR, &doc->creators, 0);
	if (!ret)
		ret = mb_meta_tag(ctx, m, EXTH_ISBN, &doc->identifiers, 1);
	if (!ret)
		ret = mb_meta_tag(ctx, m, EXTH_ASIN, &doc->identifiers, 0);
	if (!ret)
		ret = mb_meta_tag(ctx, m, EXTH_ASIN504, &doc->identifiers, 0);
	return ret ? ex_fail(ctx, ret, "reading the metadata: %s", strerror(-ret)) : 0;
}

/* One piece of markup as a new chunk (none when it holds no text). */
static int mb_add_html(struct ex_ctx *ctx, const char *p, size_t len, struct sbuf *utf8)
{
	struct extract_doc *doc = ctx->doc;
	size_t before = doc->text.len, start, *c;
	const char *cs;
	int ret;

	ret = ex_check_time(ctx);
	if (ret)
		return ret;
	/* libmobi hands out UTF-8 (it converts CP1252 books) */
	if (!txt_is_utf8(p, len)) {
		sbuf_setlen(utf8, 0);
		ret = txt_decode(p, len, NULL, 4 * len + 16, utf8, &cs);
		if (ret)
			return ex_fail(ctx, ret, "decoding the markup: %s", strerror(-ret));
		p = utf8->buf;
		len = utf8->len;
	}
	if (before) {
		ret = sbuf_addstr(&doc->text, "\n\n");
		if (ret)
			return ex_fail(ctx, ret, "out of memory");
	}
	start = doc->text.len;
	ret = html_to_text(ctx, p, len, &doc->text, NULL);
	if (ret)
		return ret;
	if (doc->text.len == start) {
		sbuf_setlen(&doc->text, before);
		return 0;
	}
	c = realloc(doc->chunk_off, (doc->nchunks + 1) * sizeof(*c));
	if (!c)
		return ex_fail(ctx, -ENOMEM, "out of memory");
	doc->chunk_off = c;
	doc->chunk_off[doc->nchunks++] = start;
	return 0;
}

/* The next "<mbp:pagebreak" at or after p, or end. */
static const char *mb_pagebreak(const char *p, const char *end)
{
	static const char tag[] = "<mbp:pagebreak";
	const size_t tl = sizeof(tag) - 1;

	while ((p = memchr(p, '<', (size_t)(end - p)))) {
		if ((size_t)(end - p) < tl)
			break;
		if (!strncasecmp(p, tag, tl))
			return p;
		p++;
	}
	return end;
}

/* MOBI 6 keeps the book as one HTML stream; its page breaks (one per
 * source document in calibre's and kindlegen's output) divide the chunks. */
static int mb_add_paged(struct ex_ctx *ctx, const char *p, size_t len, struct sbuf *utf8)
{
	const char *end = p + len, *q;
	int ret = 0;

	while (p < end && !ret) {
		q = mb_pagebreak(p + (p[0] == '<'), end);
		ret = mb_add_html(ctx, p, (size_t)(q - p), utf8);
		p = q;
	}
	return ret;
}

/* The start of the next document in a KF8 text flow at or after p: its
 * XML declaration, or its <html> tag when it has none. */
static const char *mb_next_doc(const char *p, const char *end)
{
	for (; p < end && (p = memchr(p, '<', (size_t)(end - p))); p++)
		if (end - p >= 5 && (!strncasecmp(p, "<?xml", 5) || !strncasecmp(p, "<html", 5)))
			return p;
	return end;
}

/* A KF8 text flow holds each source document as its skeleton (the markup
 * without the text) followed by its fragments in reading order; one chunk
 * per document. */
static int mb_add_docs(struct ex_ctx *ctx, const char *p, size_t len, struct sbuf *utf8)
{
	const char *end = p + len, *q;
	int ret = 0;

	while (p < end && !ret) {
		q = mb_next_doc(p + 1, end);
		if (!strncasecmp(p, "<?xml", 5) && q < end && !strncasecmp(q, "<html", 5))
			q = mb_next_doc(q + 1, end);
		ret = mb_add_html(ctx, p, (size_t)(q - p), utf8);
		p = q;
	}
	return ret;
}

/* The FDST record's sections (text, CSS, SVG flows), which libmobi copies
 * each out of the text: they must follow each other inside it, as a
 * writer lays them out, or overlapping ones would multiply the text. */
static int mb_check_fdst(struct ex_ctx *ctx, const MOBIData *m, size_t text_max)
{
	const MOBIPdbRecord *rec;
	size_t nrec = mobi_get_fdst_record_number(m), n, i;
	uint32_t prev = 0;

	if (!mobi_exists_fdst(m) || !m->mh->fdst_section_count || *m->mh->fdst_section_count <= 1)
		return 0;
	rec = nrec == MOBI_NOTSET ? NULL : mobi_get_record_by_seqnumber(m, nrec);
	if (!rec || !rec->data || rec->size < 12 || memcmp(rec->data, "FDST", 4))
		return ex_fail(ctx, -EBADMSG, "corrupt: no FDST record");
	n = be32(rec->data + 8);
	if (n > (rec->size - 12) / 8)
		return ex_fail(ctx, -EBADMSG, "corrupt: FDST record shorter than its %zu sections", n);
	for (i = 0; i < n; i++) {
		uint32_t start = be32(rec->data + 12 + 8 * i), end = be32(rec->data + 16 + 8 * i);

		if (start < prev || end < start || end > text_max)
			return ex_fail(ctx, -EBADMSG, "corrupt: FDST section %zu overlaps another or "
				       "leaves the text", i);
		prev = end;
	}
	return 0;
}

/* Whether the text records of the part libmobi reads are PalmDOC that we
 * decode (libmobi's decoder was a third of the extraction time).  Files of
 * format version 3 or older stay with libmobi, which strips stray NUL bytes
 * from their records once they are decoded. */
static int mb_is_palmdoc(const MOBIData *m)
{
	return m->rh && m->rh->compression_type == MOBI_COMPRESSION_PALMDOC &&
	       !(mobi_exists_mobiheader(m) && mobi_get_fileversion(m) <= 3);
}

/* Text record i (rec) without its trailing entries, decoded onto raw (at
 * most cap bytes, libmobi's bound for a record). */
static int mb_palmdoc_rec(struct ex_ctx *ctx, const MOBIPdbRecord *rec, uint16_t flags,
			  size_t cap, size_t i, struct sbuf *raw)
{
	size_t extra;
	long got;

	extra = flags ? mobi_get_record_extrasize(rec, flags) : 0;
	if (extra == MOBI_NOTSET || extra > rec->size)
		return ex_fail(ctx, -EBADMSG, "corrupt: trailing entries of text record %zu longer "
			       "than the record", i + 1);
	if (sbuf_grow(raw, cap))
		return ex_fail(ctx, -ENOMEM, "out of memory");
	got = palmdoc_lz77((unsigned char *)raw->buf + raw->len, cap, rec->data, rec->size - extra);
	if (got < 0)
		return ex_fail(ctx, -EBADMSG, "corrupt: text record %zu does not decompress", i + 1);
	raw->len += (size_t)got;	/* sbuf_setlen only shortens */
	raw->buf[raw->len] = '\0';
	return 0;
}

/* Decodes the part's text records in place: each record's data becomes its
 * text, and the part is marked uncompressed without trailing entries, so
 * that libmobi's own flow splitting and encoding conversion run unchanged. */
static int mb_unpack_palmdoc(struct ex_ctx *ctx, MOBIData *m)
{
	MOBIPdbRecord *rec = mobi_get_record_by_seqnumber(m, 1 + mobi_get_kf8offset(m));
	uint16_t flags = m->mh && m->mh->extra_flags ? *m->mh->extra_flags : 0;
	size_t cap = mobi_get_textrecord_maxsize(m), i, n;
	struct sbuf raw = { 0 };
	int ret = 0;

	sbuf_init(&raw);
	for (i = 0; i < m->rh->text_record_count && rec && !ret; i++, rec = rec->next) {
		char *out;

		ret = mb_palmdoc_rec(ctx, rec, flags, cap, i, &raw);
		out = ret ? NULL : sbuf_detach(&raw, &n);
		if (!ret && !out)
			ret = ex_fail(ctx, -ENOMEM, "out of memory");
		if (ret)
			break;
		/* libmobi frees record data with free() (mobi_free_rec) */
		free(rec->data);
		rec->data = (unsigned char *)out;
		rec->size = n;
	}
	sbuf_release(&raw);
	if (ret)
		return ret;
	m->rh->compression_type = MOBI_COMPRESSION_NONE;
	if (m->mh && m->mh->extra_flags)
		*m->mh->extra_flags = 0;
	return 0;
}

/* MOBI 6 in UTF-8 with PalmDOC records: the markup libmobi's rawml would
 * hold is the decoded records one after the other (it gets there through
 * three copies of the whole text), so it is built here in one. */
static int mb_is_mobi6_utf8(const MOBIData *m)
{
	return mb_is_palmdoc(m) && m->mh && !mobi_is_kf8(m) && !mobi_exists_fdst(m) &&
	       m->mh->text_encoding && *m->mh->text_encoding == MOBI_UTF8;
}

static int mb_mobi6(struct ex_ctx *ctx, const MOBIData *m)
{
	const MOBIPdbRecord *rec = mobi_get_record_by_seqnumber(m, 1);
	uint16_t flags = m->mh->extra_flags ? *m->mh->extra_flags : 0;
	size_t cap = mobi_get_textrecord_maxsize(m), i;
	struct sbuf raw = { 0 }, utf8 = { 0 };
	int ret = 0;

	/* libmobi refuses a declared length its records cannot hold */
	if (m->rh->text_length > mobi_get_text_maxsize(m))
		return ex_fail(ctx, -EBADMSG, "corrupt: %u bytes of text declared, more than its "
			       "records hold", m->rh->text_length);
	sbuf_init(&raw);
	sbuf_init(&utf8);
	for (i = 0; i < m->rh->text_record_count && rec && !ret; i++, rec = rec->next)
		ret = mb_palmdoc_rec(ctx, rec, flags, cap, i, &raw);
	if (!ret)
		ret = mb_add_paged(ctx, raw.buf, raw.len, &utf8);
	sbuf_release(&utf8);
	sbuf_release(&raw);
	return ret;
}

/* PalmDOC: plain text in an unknown encoding, no chunks. */
static int mb_plain(struct ex_ctx *ctx, const MOBIData *m)
{
	size_t max = mobi_get_text_maxsize(m), got = max;
	char *raw = malloc(max + 1);
	MOBI_RET r;
	int ret;

	if (!raw)
		return ex_fail(ctx, -ENOMEM, "out of memory");
	r = mobi_get_rawml(m, raw, &got);
	if (r != MOBI_SUCCESS) {
		ret = mb_lib_fail(ctx, r, "decompressing the text");
		goto out;
	}
	ret = txt_decode(raw, got, NULL, ctx->lim->max_text_bytes, &ctx->doc->text,
			 &ctx->doc->charset);
	if (ret)
		ret = ret == -EFBIG ? ex_fail(ctx, ret, "text longer than %llu bytes",
					      (unsigned long long)ctx->lim->max_text_bytes)
		      : ex_fail(ctx, ret, "decoding the text: %s", strerror(-ret));
out:
	free(raw);
	return ret;
}

static int mb_markup(struct ex_ctx *ctx, MOBIData *m)
{
	MOBIRawml *rawml;
	const MOBIPart *part;
	struct sbuf utf8 = { 0 };
	MOBI_RET r;
	int ret = 0, kf8;

	ret = mb_check_fdst(ctx, m, mobi_get_text_maxsize(m));
	if (ret)
		return ret;
	/* KF8 documents are not rebuilt from the skeleton and fragment
	 * indexes: libmobi sizes its entry array by a count in the index
	 * header (up to 393M entries) and copies each skeleton from any
	 * position of the text, so overlapping entries multiply the text
	 * without bound.  Without them it returns the text flow as written,
	 * which holds the same text in the same order (mb_add_docs). */
	if (m->mh->skeleton_index)
		*m->mh->skeleton_index = MOBI_NOTSET;
	if (m->mh->fragment_index)
		*m->mh->fragment_index = MOBI_NOTSET;
	rawml = mobi_init_rawml(m);
	if (!rawml)
		return ex_fail(ctx, -ENOMEM, "out of memory");
	sbuf_init(&utf8);
	/* no TOC, dictionary or link rebuilding: only the text is needed */
	r = mobi_parse_rawml_opt(rawml, m, false, false, false);
	if (r != MOBI_SUCCESS) {
		ret = mb_lib_fail(ctx, r, "decompressing the text");
		goto out;
	}
	kf8 = mobi_is_rawml_kf8(rawml);
	for (part = rawml->markup; part && !ret; part = part->next) {
		if (part->type != T_HTML || !part->data)
			continue;
		ret = kf8 ? mb_add_docs(ctx, (const char *)part->data, part->size, &utf8)
			  : mb_add_paged(ctx, (const char *)part->data, part->size, &utf8);
	}
out:
	sbuf_release(&utf8);
	mobi_free_rawml(rawml);
	return ret;
}

int mobi_extract(struct ex_ctx *ctx, const void *data, size_t len)
{
	MOBIData *m = NULL;
	FILE *f = NULL;
	MOBI_RET r;
	int ret;

	ret = mb_check_pdb(ctx, data, len);
	if (ret)
		goto out;
	m = mobi_init();
	/* fmemopen reads only ("rb"): the cast drops const for its prototype */
	f = m ? fmemopen((void *)data, len, "rb") : NULL;
	if (!f) {
		ret = ex_fail(ctx, -ENOMEM, "out of memory");
		goto out;
	}
	r = mobi_load_file(m, f);
	if (r != MOBI_SUCCESS) {
		ret = mb_lib_fail(ctx, r, "loading");
		goto out;
	}
	if (!m->rh) {
		ret = ex_fail(ctx, -EBADMSG, "corrupt: no record 0 header");
		goto out;
	}
	ret = mb_check_part(ctx, m);
	if (!ret && m->next && m->next->rh)
		ret = mb_check_part(ctx, m->next);
	if (!ret)
		ret = mb_meta(ctx, m);
	if (ret)
		goto out;
	if (mb_is_mobi6_utf8(m)) {
		ret = mb_mobi6(ctx, m);
		goto text;
	}
	ret = mb_is_palmdoc(m) ? mb_unpack_palmdoc(ctx, m) : 0;
	if (ret)
		goto out;
	if (!mobi_exists_mobiheader(m) && !memcmp((const char *)data + 60, "TEXtREAd", 8))
		ret = mb_plain(ctx, m);
	else if (!m->mh)
		ret = ex_fail(ctx, -EBADMSG, "corrupt: no MOBI header");
	else
		ret = mb_markup(ctx, m);
text:
	if (!ret && !ctx->doc->text.len)
		ret = ex_fail(ctx, -EBADMSG, "no readable text in the book");
out:
	if (ret && !ctx->failed)
		ex_fail(ctx, ret, "%s", strerror(-ret));
	if (f)
		fclose(f);
	mobi_free(m);
	return ret;
}
