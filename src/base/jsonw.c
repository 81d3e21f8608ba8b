/* jsonw.c - JSON string literals that keep any byte string (see jsonw.h). */
#include <errno.h>
#include <string.h>

#include "jsonw.h"

size_t jsonw_utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len, i;
	unsigned char lo = 0x80, hi = 0xbf;	/* allowed range of the second byte */

	if (n == 0)
		return 0;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0;	/* no overlong forms */
		else if (c == 0xed)
			hi = 0x9f;	/* no UTF-16 surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;	/* nothing past U+10FFFF */
	} else {
		return 0;	/* continuation byte, 0xc0/0xc1, 0xf5.. */
	}
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

int jsonw_strn(struct sbuf *out, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t start = out->len, i = 0, k;
	int ret = sbuf_addch(out, '"');

	while (!ret && i < n) {
		unsigned char c = p[i];

		/* Runs of plain printable ASCII go in one call. */
		for (k = i; k < n && p[k] >= 0x20 && p[k] < 0x80 && p[k] != '"' && p[k] != '\\'; k++)
			;
		if (k > i) {
			ret = sbuf_add(out, p + i, k - i);
			i = k;
			continue;
		}
		switch (c) {
		case '"': ret = sbuf_addstr(out, "\\\""); i++; continue;
		case '\\': ret = sbuf_addstr(out, "\\\\"); i++; continue;
		case '\b': ret = sbuf_addstr(out, "\\b"); i++; continue;
		case '\f': ret = sbuf_addstr(out, "\\f"); i++; continue;
		case '\n': ret = sbuf_addstr(out, "\\n"); i++; continue;
		case '\r': ret = sbuf_addstr(out, "\\r"); i++; continue;
		case '\t': ret = sbuf_addstr(out, "\\t"); i++; continue;
		default: break;
		}
		if (c < 0x20) {
			ret = sbuf_addf(out, "\\u%04x", c);
			i++;
			continue;
		}
		k = jsonw_utf8_len(p + i, n - i);
		if (k == 0) {
			ret = sbuf_addf(out, "\\udc%02x", c);
			i++;
		} else if (k == 3 && c == 0xe2 && p[i + 1] == 0x80 && (p[i + 2] == 0xa8 || p[i + 2] == 0xa9)) {
			ret = sbuf_addf(out, "\\u%04x", 0x2000 | (p[i + 2] & 0x3f));
			i += 3;
		} else {
			ret = sbuf_add(out, p + i, k);
			i += k;
		}
	}
	if (!ret)
		ret = sbuf_addch(out, '"');
	if (ret)
		sbuf_setlen(out, start);
	return ret;
}

int jsonw_str(struct sbuf *out, const char *s)
{
	if (!s)
		return sbuf_addstr(out, "null");
	return jsonw_strn(out, s, strlen(s));
}
