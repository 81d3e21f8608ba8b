/* fpline.c - the plain-text record line of bulk fingerprinting (fpline.h). */
#include "fpline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "base64.h"
#include "byteorder.h"
#include "hex.h"

static int add_hex(struct sbuf *out, const uint8_t *p, size_t n)
{
	static const char digit[] = "0123456789abcdef";
	size_t i;
	int ret = sbuf_grow(out, 2 * n);

	for (i = 0; !ret && i < n; i++) {
		out->buf[out->len + 2 * i] = digit[p[i] >> 4];
		out->buf[out->len + 2 * i + 1] = digit[p[i] & 15];
	}
	if (!ret) {
		out->len += 2 * n;
		out->buf[out->len] = '\0';
	}
	return ret;
}

/* The n values of v as big-endian w-byte words, in base64. */
static int add_words(struct sbuf *out, const void *v, size_t n, size_t w)
{
	unsigned char *buf = malloc(n * w + 1);
	size_t i;
	int ret;

	if (!buf)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		be_put(buf + i * w, w == 8 ? ((const uint64_t *)v)[i] : ((const uint32_t *)v)[i], w);
	ret = base64_encode(buf, n * w, out);
	free(buf);
	return ret;
}

static int fpline_valid(const struct fpline *r)
{
	size_t plen = r->path ? strlen(r->path) : 0;
	uint32_t i;

	if (!plen || plen > FPLINE_PATH_MAX || r->n_bands > FPLINE_BANDS_MAX ||
	    r->n_keys > FPLINE_KEYS_MAX || !r->rec_len || r->rec_len > FPLINE_REC_MAX ||
	    (r->n_bands && !r->bands) || (r->n_keys && !r->keys) || !r->rec)
		return 0;
	for (i = 1; i < r->n_keys; i++)
		if (r->keys[i] <= r->keys[i - 1])
			return 0;
	return 1;
}

int fpline_encode(const struct fpline *r, struct sbuf *out)
{
	size_t start = out->len;
	int ret;

	if (!fpline_valid(r))
		return -EINVAL;
	ret = sbuf_addf(out, FPLINE_TAG "%d\t", FPLINE_VERSION);
	if (!ret)
		ret = base64_encode(r->path, strlen(r->path), out);
	if (!ret)
		ret = sbuf_addf(out, "\t%llu\t%lld\t%lu\t", (unsigned long long)r->size,
				(long long)r->mtime_ns, (unsigned long)r->rec_version);
	if (!ret)
		ret = add_hex(out, r->simhash, sizeof(r->simhash));
	if (!ret)
		ret = sbuf_addch(out, '\t');
	if (!ret)
		ret = add_hex(out, r->text_hash, sizeof(r->text_hash));
	if (!ret)
		ret = sbuf_addch(out, '\t');
	if (!ret)
		ret = add_words(out, r->bands, r->n_bands, 8);
	if (!ret)
		ret = sbuf_addch(out, '\t');
	if (!ret)
		ret = add_words(out, r->keys, r->n_keys, 4);
	if (!ret)
		ret = sbuf_addch(out, '\t');
	if (!ret)
		ret = base64_encode(r->rec, r->rec_len, out);
	if (!ret)
		ret = sbuf_addf(out, "\t%08x\n",
				(unsigned)XXH32(out->buf + start, out->len - start, 0));
	if (ret)
		sbuf_setlen(out, start);
	return ret;
}

/* A decimal number without sign or leading zero, at most max. */
static int get_u64(const char *s, size_t n, uint64_t max, uint64_t *v)
{
	size_t i;

	*v = 0;
	if (!n || n > 20 || (n > 1 && s[0] == '0'))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9' || *v > (max - (uint64_t)(s[i] - '0')) / 10)
			return -EINVAL;
		*v = *v * 10 + (uint64_t)(s[i] - '0');
	}
	return 0;
}

/* Lowercase hex of exactly len bytes. */
static int get_hex(const char *s, size_t n, uint8_t *out, size_t len)
{
	size_t i;
	int hi, lo;

	if (n != 2 * len)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		hi = hex_digit(s[2 * i]);
		lo = hex_digit(s[2 * i + 1]);
		if (hi < 0 || lo < 0 || (s[2 * i] >= 'A' && s[2 * i] <= 'F') ||
		    (s[2 * i + 1] >= 'A' && s[2 * i + 1] <= 'F'))
			return -EINVAL;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

/* The base64 field s[0..n) into *out (malloc'd, at least 1 byte), at most
 * max bytes, a whole number of w-byte words. */
static int get_b64(const char *s, size_t n, size_t max, size_t w, unsigned char **out,
		   size_t *len)
{
	int ret;

	*out = NULL;
	*len = 0;
	if (n / 4 * 3 > max + 2)
		return -EINVAL;
	*out = malloc(n / 4 * 3 + 1);
	if (!*out)
		return -ENOMEM;
	ret = base64_decode(s, n, *out, len);
	if (!ret && (*len > max || *len % w))
		ret = -EINVAL;
	return ret;
}

/* The words of the base64 field: *v malloc'd (NULL when none), *n. */
static int get_words(const char *s, size_t n, uint32_t maxn, size_t w, void **v, uint32_t *nv)
{
	unsigned char *raw = NULL;
	size_t len = 0, i;
	int ret;

	*v = NULL;
	*nv = 0;
	ret = get_b64(s, n, (size_t)maxn * w, w, &raw, &len);
	if (!ret && len) {
		*v = malloc(len / w * (w == 8 ? sizeof(uint64_t) : sizeof(uint32_t)));
		ret = *v ? 0 : -ENOMEM;
	}
	for (i = 0; !ret && i < len / w; i++) {
		if (w == 8)
			((uint64_t *)*v)[i] = be_get(raw + 8 * i, 8);
		else
			((uint32_t *)*v)[i] = (uint32_t)be_get(raw + 4 * i, 4);
	}
	if (!ret)
		*nv = (uint32_t)(len / w);
	free(raw);
	return ret;
}

long fpline_version(const char *s, size_t n)
{
	size_t t = strlen(FPLINE_TAG), i;
	long v = 0;

	if (n <= t || memcmp(s, FPLINE_TAG, t))
		return -1;
	for (i = t; i < n && i < t + 9 && s[i] >= '0' && s[i] <= '9'; i++)
		v = v * 10 + (s[i] - '0');
	return i > t && (i == n || s[i] == '\t' || s[i] == '\n') ? v : -1;
}

/* Splits s[0..n) at the TABs into exactly FPLINE_FIELDS fields. */
static int split(const char *s, size_t n, const char **f, size_t *fl)
{
	size_t i, k = 0, from = 0;

	for (i = 0; i <= n; i++) {
		if (i < n && s[i] != '\t') {
			if (s[i] == '\n' || s[i] == '\0' || s[i] == '\r')
				return -EINVAL;
			continue;
		}
		if (k == FPLINE_FIELDS)
			return -EINVAL;
		f[k] = s + from;
		fl[k++] = i - from;
		from = i + 1;
	}
	return k == FPLINE_FIELDS ? 0 : -EINVAL;
}

/* Fields 1 to 9 into *out. */
static int get_fields(const char **f, const size_t *fl, struct fpline *out)
{
	unsigned char *p = NULL;
	uint64_t v;
	size_t len;
	void *w;
	int ret;

	ret = get_b64(f[1], fl[1], FPLINE_PATH_MAX, 1, &p, &len);
	if (!ret && (!len || memchr(p, '\0', len)))
		ret = -EINVAL;
	if (!ret) {
		p[len] = '\0';
		out->path = (char *)p;
		p = NULL;
		ret = get_u64(f[2], fl[2], UINT64_MAX, &out->size);
	}
	if (!ret && fl[3] && f[3][0] == '-') {
		/* no "-0": one spelling per value */
		ret = get_u64(f[3] + 1, fl[3] - 1, (uint64_t)INT64_MAX + 1, &v);
		if (!ret && !v)
			ret = -EINVAL;
		out->mtime_ns = (int64_t)(0 - v);
	} else if (!ret) {
		ret = get_u64(f[3], fl[3], INT64_MAX, &v);
		out->mtime_ns = (int64_t)v;
	}
	if (!ret)
		ret = get_u64(f[4], fl[4], UINT32_MAX, &v);
	out->rec_version = (uint32_t)v;
	if (!ret)
		ret = get_hex(f[5], fl[5], out->simhash, sizeof(out->simhash));
	if (!ret)
		ret = get_hex(f[6], fl[6], out->text_hash, sizeof(out->text_hash));
	if (!ret)
		ret = get_words(f[7], fl[7], FPLINE_BANDS_MAX, 8, &w, &out->n_bands);
	if (!ret)
		out->bands = w;
	if (!ret)
		ret = get_words(f[8], fl[8], FPLINE_KEYS_MAX, 4, &w, &out->n_keys);
	if (!ret)
		out->keys = w;
	for (v = 1; !ret && v < out->n_keys; v++)
		if (out->keys[v] <= out->keys[v - 1])
			ret = -EINVAL;
	if (!ret)
		ret = get_b64(f[9], fl[9], FPLINE_REC_MAX, 1, &out->rec, &out->rec_len);
	if (!ret && !out->rec_len)
		ret = -EINVAL;
	free(p);
	return ret;
}

int fpline_decode(const char *s, size_t n, struct fpline *out)
{
	const char *f[FPLINE_FIELDS];
	size_t fl[FPLINE_FIELDS], t = strlen(FPLINE_TAG);
	uint8_t sum[4];
	long ver;
	int ret;

	memset(out, 0, sizeof(*out));
	if (n && s[n - 1] == '\n')
		n--;
	ver = fpline_version(s, n);
	if (ver < 0)
		return -EINVAL;
	if (ver != FPLINE_VERSION)
		return -EPROTO;
	ret = split(s, n, f, fl);
	/* the tag exactly as written (no leading zero in its version) */
	if (!ret && (fl[0] != t + 1 || f[0][t] != '0' + FPLINE_VERSION))
		ret = -EINVAL;
	if (!ret)
		ret = get_hex(f[10], fl[10], sum, sizeof(sum));
	if (!ret && be_get(sum, 4) != XXH32(s, (size_t)(f[10] - 1 - s), 0))
		ret = -EINVAL;
	if (!ret)
		ret = get_fields(f, fl, out);
	if (ret)
		fpline_release(out);
	return ret;
}

void fpline_release(struct fpline *r)
{
	free(r->path);
	free(r->bands);
	free(r->keys);
	free(r->rec);
	memset(r, 0, sizeof(*r));
}
