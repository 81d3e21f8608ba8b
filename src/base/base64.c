/* base64.c - strict RFC 4648 base64 (base64.h). */
#include "base64.h"

#include <errno.h>

static const char b64_sym[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* The value of symbol c, or -1. */
static int b64_val(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

int base64_encode(const void *data, size_t len, struct sbuf *out)
{
	const unsigned char *p = data;
	size_t i;
	char *o;
	int ret;

	ret = sbuf_grow(out, BASE64_LEN(len));
	if (ret)
		return ret;
	o = out->buf + out->len;
	for (i = 0; i + 3 <= len; i += 3, o += 4) {
		unsigned long v = (unsigned long)p[i] << 16 | (unsigned long)p[i + 1] << 8 | p[i + 2];

		o[0] = b64_sym[v >> 18];
		o[1] = b64_sym[(v >> 12) & 63];
		o[2] = b64_sym[(v >> 6) & 63];
		o[3] = b64_sym[v & 63];
	}
	if (i < len) {
		unsigned long v = (unsigned long)p[i] << 16 | (i + 1 < len ? (unsigned long)p[i + 1] << 8 : 0);

		o[0] = b64_sym[v >> 18];
		o[1] = b64_sym[(v >> 12) & 63];
		o[2] = i + 1 < len ? b64_sym[(v >> 6) & 63] : '=';
		o[3] = '=';
		o += 4;
	}
	/* grown above: the length moves forward, the buffer stays a string */
	out->len = (size_t)(o - out->buf);
	out->buf[out->len] = '\0';
	return 0;
}

int base64_decode(const char *s, size_t n, unsigned char *out, size_t *len)
{
	size_t i, o = 0;
	int v[4], k, pad;

	*len = 0;
	if (n % 4)
		return -EINVAL;
	for (i = 0; i < n; i += 4) {
		pad = 0;
		for (k = 0; k < 4; k++) {
			/* '=' only in the last two places of the last group */
			if (s[i + k] == '=' && i + 4 == n && k >= 2 && (k == 3 || s[i + 3] == '=')) {
				v[k] = 0;
				pad++;
			} else if ((v[k] = b64_val((unsigned char)s[i + k])) < 0) {
				return -EINVAL;
			}
		}
		/* the bits padding drops must be zero (one encoding per bytes) */
		if ((pad == 1 && (v[2] & 3)) || (pad == 2 && (v[1] & 15)))
			return -EINVAL;
		out[o++] = (unsigned char)(v[0] << 2 | v[1] >> 4);
		if (pad < 2)
			out[o++] = (unsigned char)((v[1] & 15) << 4 | v[2] >> 2);
		if (pad < 1)
			out[o++] = (unsigned char)((v[2] & 3) << 6 | v[3]);
	}
	*len = o;
	return 0;
}
