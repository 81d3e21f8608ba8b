/* txt.c - plain text in any common encoding to UTF-8 (see extract_i.h).
 *
 * Well-formed UTF-8 is by far the common case and is copied by a word-at-a-
 * time loop that only stops at non-ASCII and CR bytes.  Windows-1252 (a
 * superset of Latin-1's printable range, used by many Project Gutenberg
 * French and German texts) has its own table; other legacy encodings are
 * recognised by uchardet, which knows far more of them than a hand-written
 * heuristic could, and converted by iconv.
 */
#include "extract_i.h"

#include <errno.h>
#include <iconv.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <uchardet/uchardet.h>

/* Windows-1252 bytes 0x80..0x9F; the five undefined ones map to U+FFFD. */
static const uint16_t cp1252_hi[32] = {
	0x20AC, 0xFFFD, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
	0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0xFFFD, 0x017D, 0xFFFD,
	0xFFFD, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
	0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0xFFFD, 0x017E, 0x0178,
};

/* Output with "\n" line ends: CR LF and lone CR become LF. */
struct tout {
	struct sbuf *sb;
	size_t max;
	int cr;		/* the last code point was CR */
};

static int put_cp(struct tout *o, uint32_t c)
{
	char b[4];
	size_t n;
	int ret;

	if (c == '\n' && o->cr) {
		o->cr = 0;
		return 0;
	}
	o->cr = c == '\r';
	if (c == '\r')
		c = '\n';
	if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		c = 0xFFFD;
	if (c < 0x80) {
		b[0] = (char)c;
		n = 1;
	} else if (c < 0x800) {
		b[0] = (char)(0xC0 | (c >> 6));
		b[1] = (char)(0x80 | (c & 0x3F));
		n = 2;
	} else if (c < 0x10000) {
		b[0] = (char)(0xE0 | (c >> 12));
		b[1] = (char)(0x80 | ((c >> 6) & 0x3F));
		b[2] = (char)(0x80 | (c & 0x3F));
		n = 3;
	} else {
		b[0] = (char)(0xF0 | (c >> 18));
		b[1] = (char)(0x80 | ((c >> 12) & 0x3F));
		b[2] = (char)(0x80 | ((c >> 6) & 0x3F));
		b[3] = (char)(0x80 | (c & 0x3F));
		n = 4;
	}
	if (o->sb->len + n > o->max)
		return -EFBIG;
	ret = sbuf_add(o->sb, b, n);
	return ret;
}

/* Length of the valid UTF-8 sequence at p, 0 if invalid; *cp gets it. */
static size_t utf8_seq(const unsigned char *p, size_t n, uint32_t *cp)
{
	unsigned char c = p[0];

	if (c >= 0xC2 && c <= 0xDF) {
		if (n < 2 || (p[1] & 0xC0) != 0x80)
			return 0;
		*cp = ((uint32_t)(c & 0x1F) << 6) | (p[1] & 0x3F);
		return 2;
	}
	if (c >= 0xE0 && c <= 0xEF) {
		if (n < 3 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 ||
		    (c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] >= 0xA0))
			return 0;
		*cp = ((uint32_t)(c & 0x0F) << 12) | ((uint32_t)(p[1] & 0x3F) << 6) | (p[2] & 0x3F);
		return 3;
	}
	if (c >= 0xF0 && c <= 0xF4) {
		if (n < 4 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 ||
		    (p[3] & 0xC0) != 0x80 || (c == 0xF0 && p[1] < 0x90) ||
		    (c == 0xF4 && p[1] >= 0x90))
			return 0;
		*cp = ((uint32_t)(c & 0x07) << 18) | ((uint32_t)(p[1] & 0x3F) << 12) |
		      ((uint32_t)(p[2] & 0x3F) << 6) | (p[3] & 0x3F);
		return 4;
	}
	return 0;
}

#define ONES	0x0101010101010101ULL
#define HIGHS	0x8080808080808080ULL

/* Nonzero when some byte of w is >= 0x80 or equal to CR. */
static inline uint64_t special_bytes(uint64_t w)
{
	uint64_t x = w ^ (ONES * '\r');

	return (w | ((x - ONES) & ~x)) & HIGHS;
}

/* Copies UTF-8 from in, replacing invalid bytes, into o.  Counts valid
 * multi-byte sequences and invalid bytes so the caller can tell UTF-8 with a
 * few stray bytes from a legacy encoding. */
static int decode_utf8(const unsigned char *in, size_t len, struct tout *o,
		       size_t *nvalid, size_t *ninvalid)
{
	size_t i = 0, start, k;
	uint32_t cp;
	int ret;

	*nvalid = *ninvalid = 0;
	if (len > o->max - o->sb->len)
		ret = sbuf_grow(o->sb, o->max - o->sb->len);
	else
		ret = sbuf_grow(o->sb, len);
	if (ret)
		return ret;
	while (i < len) {
		start = i;
		while (i + 8 <= len) {
			uint64_t w;

			memcpy(&w, in + i, 8);
			if (special_bytes(w))
				break;
			i += 8;
		}
		while (i < len && in[i] < 0x80 && in[i] != '\r')
			i++;
		if (i > start) {
			if (o->cr && in[start] == '\n')
				start++;
			o->cr = 0;
			if (o->sb->len + (i - start) > o->max)
				return -EFBIG;
			ret = sbuf_add(o->sb, in + start, i - start);
			if (ret)
				return ret;
		}
		if (i >= len)
			break;
		if (in[i] == '\r' && i + 1 < len && in[i + 1] == '\n') {
			/* CR LF: drop the CR, the LF starts the next span */
			o->cr = 0;
			i++;
			continue;
		}
		if (in[i] == '\r') {
			ret = put_cp(o, '\r');
			i++;
		} else if ((k = utf8_seq(in + i, len - i, &cp))) {
			if (o->sb->len + k > o->max)
				return -EFBIG;
			o->cr = 0;
			ret = sbuf_add(o->sb, in + i, k);
			i += k;
			(*nvalid)++;
		} else {
			ret = put_cp(o, 0xFFFD);
			i++;
			(*ninvalid)++;
		}
		if (ret)
			return ret;
	}
	return 0;
}

static int decode_cp1252(const unsigned char *in, size_t len, struct tout *o)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < len && !ret; i++) {
		unsigned char c = in[i];

		ret = put_cp(o, c >= 0x80 && c < 0xA0 ? cp1252_hi[c - 0x80] : c);
	}
	return ret;
}

static int decode_utf16(const unsigned char *in, size_t len, int be, struct tout *o)
{
	size_t i;
	int ret = 0;

	for (i = 0; i + 1 < len && !ret; i += 2) {
		uint32_t u = be ? (uint32_t)(in[i] << 8 | in[i + 1]) : (uint32_t)(in[i + 1] << 8 | in[i]);

		if (u >= 0xD800 && u <= 0xDBFF && i + 3 < len) {
			uint32_t v = be ? (uint32_t)(in[i + 2] << 8 | in[i + 3])
					: (uint32_t)(in[i + 3] << 8 | in[i + 2]);

			if (v >= 0xDC00 && v <= 0xDFFF) {
				u = 0x10000 + ((u - 0xD800) << 10) + (v - 0xDC00);
				i += 2;
			}
		}
		ret = put_cp(o, u);	/* lone surrogates become U+FFFD */
	}
	if (!ret && i < len)
		ret = put_cp(o, 0xFFFD);	/* odd trailing byte */
	return ret;
}

/* iconv from charset; each undecodable byte becomes U+FFFD.  -EINVAL if
 * iconv does not know charset. */
static int decode_iconv(const char *charset, const char *in, size_t len, struct tout *o)
{
	iconv_t cd = iconv_open("UTF-32LE", charset);
	char obuf[4096];
	char *ip = (char *)in;
	size_t il = len;
	int ret = 0;

	if (cd == (iconv_t)-1)
		return -EINVAL;
	while (!ret) {
		char *op = obuf;
		size_t ol = sizeof(obuf), r, k;
		int e;

		r = iconv(cd, il ? &ip : NULL, &il, &op, &ol);
		e = errno;
		for (k = 0; k + 4 <= (size_t)(op - obuf) && !ret; k += 4) {
			const unsigned char *q = (const unsigned char *)obuf + k;

			ret = put_cp(o, (uint32_t)q[0] | (uint32_t)q[1] << 8 |
					(uint32_t)q[2] << 16 | (uint32_t)q[3] << 24);
		}
		if (ret)
			break;
		if (r != (size_t)-1) {
			if (!il)
				break;
			continue;
		}
		if (e == E2BIG)
			continue;
		/* EILSEQ, or EINVAL (truncated sequence at the end) */
		ret = put_cp(o, 0xFFFD);
		ip++;
		il--;
		iconv(cd, NULL, NULL, NULL, NULL);
		if (!il)
			break;
	}
	iconv_close(cd);
	return ret;
}

/* The legacy charset of a text that is not UTF-8, as uchardet sees it on a
 * bounded sample; NULL means Windows-1252. */
static const char *detect_legacy(const char *in, size_t len, char *buf, size_t bufsz)
{
	uchardet_t ud = uchardet_new();
	const char *cs;
	size_t n = len < (1u << 20) ? len : (1u << 20);

	if (!ud)
		return NULL;
	uchardet_handle_data(ud, in, n);
	uchardet_data_end(ud);
	cs = uchardet_get_charset(ud);
	if (!cs || !*cs || !strcasecmp(cs, "ASCII") || !strcasecmp(cs, "UTF-8") ||
	    !strcasecmp(cs, "ISO-8859-1") || !strcasecmp(cs, "WINDOWS-1252") ||
	    strlen(cs) >= bufsz) {
		uchardet_delete(ud);
		return NULL;
	}
	memcpy(buf, cs, strlen(cs) + 1);
	uchardet_delete(ud);
	return buf;
}

static int is_cp1252_name(const char *cs)
{
	return !strcasecmp(cs, "ISO-8859-1") || !strcasecmp(cs, "ISO8859-1") ||
	       !strcasecmp(cs, "LATIN1") || !strcasecmp(cs, "LATIN-1") ||
	       !strcasecmp(cs, "WINDOWS-1252") || !strcasecmp(cs, "CP1252") ||
	       !strcasecmp(cs, "US-ASCII") || !strcasecmp(cs, "ASCII");
}

/* Static names for charsets found by the detector or declared. */
static const char *static_name(const char *cs)
{
	static const char *known[] = {
		"ISO-8859-2", "ISO-8859-5", "ISO-8859-7", "ISO-8859-9", "ISO-8859-15",
		"WINDOWS-1250", "WINDOWS-1251", "WINDOWS-1253", "WINDOWS-1255",
		"WINDOWS-1256", "KOI8-R", "IBM866", "MAC-CYRILLIC", "SHIFT_JIS",
		"EUC-JP", "EUC-KR", "GB18030", "BIG5", "ISO-2022-JP", "TIS-620",
	};
	size_t i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcasecmp(cs, known[i]))
			return known[i];
	return "OTHER";
}

int txt_decode(const char *in, size_t len, const char *hint, size_t max_out,
	       struct sbuf *out, const char **charset)
{
	const unsigned char *u = (const unsigned char *)in;
	struct tout o = { out, max_out, 0 };
	size_t base = out->len, nvalid, ninvalid;
	char det[64];
	const char *legacy;
	int ret;

	if (max_out < out->len)
		return -EFBIG;
	if (len >= 2 && ((u[0] == 0xFF && u[1] == 0xFE) || (u[0] == 0xFE && u[1] == 0xFF))) {
		*charset = u[0] == 0xFF ? "UTF-16LE" : "UTF-16BE";
		return decode_utf16(u + 2, len - 2, u[0] == 0xFE, &o);
	}
	if (len >= 3 && u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF) {
		*charset = "UTF-8";
		return decode_utf8(u + 3, len - 3, &o, &nvalid, &ninvalid);
	}
	if (hint && (!strncasecmp(hint, "UTF-16", 6) || !strcasecmp(hint, "UTF16"))) {
		int be = !strcasecmp(hint, "UTF-16BE");

		*charset = be ? "UTF-16BE" : "UTF-16LE";
		return decode_utf16(u, len, be, &o);
	}
	ret = decode_utf8(u, len, &o, &nvalid, &ninvalid);
	if (ret)
		return ret;
	/* A few stray bytes in UTF-8 text stay U+FFFD; mostly-invalid means
	 * some 8-bit encoding. */
	if (!ninvalid || nvalid >= 4 * ninvalid) {
		*charset = "UTF-8";
		return 0;
	}
	sbuf_setlen(out, base);
	o.cr = 0;
	if (hint && !is_cp1252_name(hint) && strncasecmp(hint, "UTF", 3)) {
		ret = decode_iconv(hint, in, len, &o);
		if (ret != -EINVAL) {
			*charset = static_name(hint);
			return ret;
		}
		sbuf_setlen(out, base);
		o.cr = 0;
	}
	legacy = hint && is_cp1252_name(hint) ? NULL : detect_legacy(in, len, det, sizeof(det));
	if (legacy) {
		ret = decode_iconv(legacy, in, len, &o);
		if (ret != -EINVAL) {
			*charset = static_name(legacy);
			return ret;
		}
		sbuf_setlen(out, base);
		o.cr = 0;
	}
	*charset = "WINDOWS-1252";
	return decode_cp1252(u, len, &o);
}

int txt_sbcs_table(const char *charset, uint32_t tab[128])
{
	iconv_t cd;
	unsigned b;
	int ret = 0;

	if (is_cp1252_name(charset)) {
		for (b = 0x80; b < 0x100; b++)
			tab[b - 0x80] = b < 0xA0 ? cp1252_hi[b - 0x80] : b;
		return 0;
	}
	cd = iconv_open("UTF-32LE", charset);
	if (cd == (iconv_t)-1)
		return -EINVAL;
	for (b = 0x80; b < 0x100 && !ret; b++) {
		char in = (char)b, *ip = &in, *op;
		unsigned char o[8];
		size_t il = 1, ol = sizeof(o);

		op = (char *)o;
		iconv(cd, NULL, NULL, NULL, NULL);
		if (iconv(cd, &ip, &il, &op, &ol) == (size_t)-1 && errno == EINVAL)
			ret = 1;	/* a lead byte: not a single-byte charset */
		else if (op - (char *)o == 4)
			tab[b - 0x80] = (uint32_t)o[0] | (uint32_t)o[1] << 8 |
					(uint32_t)o[2] << 16 | (uint32_t)o[3] << 24;
		else
			tab[b - 0x80] = 0xFFFD;
	}
	iconv_close(cd);
	return ret;
}

int txt_is_utf8(const char *p, size_t n)
{
	const unsigned char *u = (const unsigned char *)p;
	size_t i = 0, k;
	uint32_t cp;

	if (n >= 3 && u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF)
		return 0;
	while (i < n) {
		while (i + 8 <= n) {
			uint64_t w;

			memcpy(&w, u + i, 8);
			if (w & HIGHS)
				break;
			i += 8;
		}
		while (i < n && u[i] < 0x80)
			i++;
		if (i >= n)
			break;
		k = utf8_seq(u + i, n - i, &cp);
		if (!k)
			return 0;
		i += k;
	}
	return 1;
}

int txt_looks_binary(const unsigned char *p, size_t n)
{
	size_t i, ctrl = 0, nul_even = 0, nul_odd = 0;

	if (n >= 2 && ((p[0] == 0xFF && p[1] == 0xFE) || (p[0] == 0xFE && p[1] == 0xFF)))
		return 0;
	for (i = 0; i < n; i++) {
		unsigned char c = p[i];

		if (!c) {
			if (i & 1)
				nul_odd++;
			else
				nul_even++;
		} else if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' &&
			   c != 0x1A && c != 0x1B && c != '\v' && c != '\b') {
			ctrl++;
		}
	}
	if (nul_even + nul_odd)
		return 1;
	return ctrl * 100 > n;
}

/* Copies the value of a Gutenberg header line "Key: value" into *dst. */
static int pg_field(const char *line, size_t n, const char *key, char **dst)
{
	size_t k = strlen(key);

	if (*dst || n <= k || strncasecmp(line, key, k))
		return 0;
	return ex_str_set(dst, line + k, n - k);
}

/* Title/Author/Language lines of a Gutenberg header (before the START line,
 * within the first 32 KiB). */
static int pg_metadata(struct extract_doc *doc)
{
	const char *p = doc->text.buf, *e = p + (doc->text.len < 32768 ? doc->text.len : 32768);
	char *author = NULL;
	int ret = 0;

	while (p < e && !ret) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(e - p);

		if (n >= 3 && !strncmp(p, "***", 3))
			break;
		ret = pg_field(p, n, "Title:", &doc->title);
		if (!ret)
			ret = pg_field(p, n, "Author:", &author);
		if (!ret)
			ret = pg_field(p, n, "Language:", &doc->language);
		if (!nl)
			break;
		p = nl + 1;
	}
	if (!ret && author)
		ret = ex_strv_add(&doc->creators, author, strlen(author));
	free(author);
	return ret;
}

int txt_extract(struct ex_ctx *ctx, const char *data, size_t len)
{
	struct extract_doc *doc = ctx->doc;
	int ret;

	ret = txt_decode(data, len, NULL, ctx->lim->max_text_bytes, &doc->text, &doc->charset);
	if (ret == -EFBIG)
		return ex_fail(ctx, ret, "text longer than %llu bytes",
			       (unsigned long long)ctx->lim->max_text_bytes);
	if (ret)
		return ex_fail(ctx, ret, "decoding text: %s", strerror(-ret));
	ret = pg_metadata(doc);
	if (ret)
		return ex_fail(ctx, ret, "%s", strerror(-ret));
	return 0;
}
