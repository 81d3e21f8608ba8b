/* pdfobj.c - tokens, cross-reference table, dictionaries and Flate streams of
 * a PDF in memory (strict subset; see pdfobj.h).
 */
#include "pdfobj.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#define SKIP_DEPTH 32		/* nesting of arrays/dictionaries in one value */
#define MAX_XREF_SECTIONS 32	/* /Prev chain of incremental updates */
#define MAX_REF_HOPS 8		/* a reference to a reference to ... */

struct pdfobj {
	const char *b;
	size_t len;
	size_t *off;		/* object number -> offset of "n g obj", 0 unknown */
	uint32_t nobj;
	size_t trailer;		/* just past the trailer's "<<" */
};

static int is_ws(unsigned char c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0;
}

static int is_delim(unsigned char c)
{
	return c == '(' || c == ')' || c == '<' || c == '>' || c == '[' || c == ']' ||
	       c == '{' || c == '}' || c == '/' || c == '%';
}

static size_t skip_ws(const char *b, size_t len, size_t p)
{
	while (p < len) {
		if (is_ws((unsigned char)b[p])) {
			p++;
		} else if (b[p] == '%') {
			while (p < len && b[p] != '\n' && b[p] != '\r')
				p++;
		} else {
			break;
		}
	}
	return p;
}

static size_t regular_run(const char *b, size_t len, size_t p)
{
	while (p < len && !is_ws((unsigned char)b[p]) && !is_delim((unsigned char)b[p]))
		p++;
	return p;
}

/* A number token's value, or 0 with *ok = 0 when it is not one. */
static double parse_num(const char *s, size_t n, int *ok)
{
	double v = 0.0, scale = 1.0;
	size_t i = 0;
	int neg = 0, digits = 0, dot = 0;

	if (i < n && (s[i] == '-' || s[i] == '+'))
		neg = s[i++] == '-';
	for (; i < n; i++) {
		if (s[i] >= '0' && s[i] <= '9') {
			digits++;
			if (dot) {
				scale /= 10.0;
				v += (s[i] - '0') * scale;
			} else {
				v = v * 10.0 + (s[i] - '0');
			}
		} else if (s[i] == '.' && !dot) {
			dot = 1;
		} else {
			break;
		}
	}
	*ok = digits && i == n;
	return neg ? -v : v;
}

void pdftok_next(const char *b, size_t len, size_t *pos, struct pdftok *t)
{
	size_t p = skip_ws(b, len, *pos), q;
	int depth, ok;

	memset(t, 0, sizeof(*t));
	if (p >= len) {
		t->kind = PDFTOK_END;
		*pos = len;
		return;
	}
	t->s = b + p;
	switch (b[p]) {
	case '[':
	case ']':
		t->kind = b[p] == '[' ? PDFTOK_ARRAY : PDFTOK_ARRAY_END;
		*pos = p + 1;
		return;
	case '/':
		q = regular_run(b, len, p + 1);
		t->kind = PDFTOK_NAME;
		t->s = b + p + 1;
		t->n = q - p - 1;
		*pos = q;
		return;
	case '(':
		for (q = p + 1, depth = 1; q < len && depth; q++) {
			if (b[q] == '\\')
				q++;
			else if (b[q] == '(')
				depth++;
			else if (b[q] == ')')
				depth--;
		}
		t->kind = depth ? PDFTOK_BAD : PDFTOK_STR;
		t->s = b + p + 1;
		t->n = depth ? 0 : q - p - 2;
		*pos = q > len ? len : q;
		return;
	case '<':
		if (p + 1 < len && b[p + 1] == '<') {
			t->kind = PDFTOK_DICT;
			*pos = p + 2;
			return;
		}
		q = p + 1;
		while (q < len && b[q] != '>')
			q++;
		t->kind = q < len ? PDFTOK_HEX : PDFTOK_BAD;
		t->s = b + p + 1;
		t->n = q - p - 1;
		*pos = q < len ? q + 1 : len;
		return;
	case '>':
		t->kind = p + 1 < len && b[p + 1] == '>' ? PDFTOK_DICT_END : PDFTOK_BAD;
		*pos = p + (t->kind == PDFTOK_DICT_END ? 2 : 1);
		return;
	default:
		break;
	}
	q = regular_run(b, len, p);
	if (q == p) {
		t->kind = PDFTOK_BAD;
		*pos = p + 1;
		return;
	}
	t->n = q - p;
	t->num = parse_num(t->s, t->n, &ok);
	t->kind = ok ? PDFTOK_NUM : PDFTOK_WORD;
	*pos = q;
}

int pdftok_is(const struct pdftok *t, const char *w)
{
	size_t n = strlen(w);

	return t->kind == PDFTOK_WORD && t->n == n && !memcmp(t->s, w, n);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if ((c | 32) >= 'a' && (c | 32) <= 'f')
		return (c | 32) - 'a' + 10;
	return -1;
}

int pdftok_hex(const struct pdftok *t, unsigned char *out, size_t max, size_t *n)
{
	size_t i, o = 0;
	int half = -1, v;

	for (i = 0; i < t->n; i++) {
		if (is_ws((unsigned char)t->s[i]))
			continue;
		v = hexval(t->s[i]);
		if (v < 0)
			return -ENOTSUP;
		if (half < 0) {
			half = v;
			continue;
		}
		if (o >= max)
			return -ENOTSUP;
		out[o++] = (unsigned char)(half << 4 | v);
		half = -1;
	}
	if (half >= 0) {
		if (o >= max)
			return -ENOTSUP;
		out[o++] = (unsigned char)(half << 4);
	}
	*n = o;
	return 0;
}

int pdftok_skip(const char *b, size_t len, size_t *pos, const struct pdftok *t)
{
	struct pdftok u = *t;
	int depth = 0;

	for (;;) {
		switch (u.kind) {
		case PDFTOK_ARRAY:
		case PDFTOK_DICT:
			if (++depth > SKIP_DEPTH)
				return -ENOTSUP;
			break;
		case PDFTOK_ARRAY_END:
		case PDFTOK_DICT_END:
			if (--depth < 0)
				return -ENOTSUP;
			break;
		case PDFTOK_END:
		case PDFTOK_BAD:
			return -ENOTSUP;
		default:
			break;
		}
		if (!depth)
			return 0;
		pdftok_next(b, len, pos, &u);
	}
}

/* "n g R" at the value t just read: the object number, else 0 (pos kept). */
static uint32_t ref_at(const char *b, size_t len, size_t *pos, const struct pdftok *t)
{
	struct pdftok g, r;
	size_t p = *pos;

	if (t->kind != PDFTOK_NUM || t->num < 1 || t->num > 4e9 || t->num != (uint32_t)t->num)
		return 0;
	pdftok_next(b, len, &p, &g);
	if (g.kind != PDFTOK_NUM)
		return 0;
	pdftok_next(b, len, &p, &r);
	if (!pdftok_is(&r, "R"))
		return 0;
	*pos = p;
	return (uint32_t)t->num;
}

/* The value of object num (after "num g obj") into v. */
static int load_obj(const struct pdfobj *d, uint32_t num, struct pdfval *v)
{
	struct pdftok t;
	size_t p;

	if (num >= d->nobj || !d->off[num])
		return -ENOTSUP;
	p = d->off[num];
	pdftok_next(d->b, d->len, &p, &t);
	if (t.kind != PDFTOK_NUM || t.num != num)
		return -ENOTSUP;
	pdftok_next(d->b, d->len, &p, &t);
	if (t.kind != PDFTOK_NUM)
		return -ENOTSUP;
	pdftok_next(d->b, d->len, &p, &t);
	if (!pdftok_is(&t, "obj"))
		return -ENOTSUP;
	pdftok_next(d->b, d->len, &p, &v->t);
	v->pos = p;
	v->obj = num;
	return v->t.kind == PDFTOK_END || v->t.kind == PDFTOK_BAD ? -ENOTSUP : 0;
}

/* v read at *pos (token v->t, pos just past it): a reference is followed. */
static int finish_val(const struct pdfobj *d, size_t *pos, struct pdfval *v)
{
	uint32_t num = ref_at(d->b, d->len, pos, &v->t);
	int hops = 0, ret;

	v->obj = 0;
	v->pos = *pos;
	while (num) {
		size_t p;

		if (++hops > MAX_REF_HOPS)
			return -ENOTSUP;
		ret = load_obj(d, num, v);
		if (ret)
			return ret;
		p = v->pos;
		num = ref_at(d->b, d->len, &p, &v->t);
	}
	return 0;
}

int pdfobj_get(const struct pdfobj *d, const struct pdfval *dict, const char *key,
	       struct pdfval *v)
{
	size_t p = dict->pos, kl = strlen(key);
	struct pdftok k;
	int ret;

	if (dict->t.kind != PDFTOK_DICT)
		return -ENOTSUP;
	for (;;) {
		pdftok_next(d->b, d->len, &p, &k);
		if (k.kind == PDFTOK_DICT_END)
			return -ENOENT;
		if (k.kind != PDFTOK_NAME)
			return -ENOTSUP;
		pdftok_next(d->b, d->len, &p, &v->t);
		if (k.n == kl && !memcmp(k.s, key, kl)) {
			ret = finish_val(d, &p, v);
			if (!ret && pdftok_is(&v->t, "null"))
				return -ENOENT;
			return ret;
		}
		if (!ref_at(d->b, d->len, &p, &v->t) && pdftok_skip(d->b, d->len, &p, &v->t))
			return -ENOTSUP;
	}
}

int pdfobj_next(const struct pdfobj *d, size_t *pos, struct pdfval *v)
{
	size_t p = *pos, after;
	int ret;

	pdftok_next(d->b, d->len, &p, &v->t);
	if (v->t.kind == PDFTOK_ARRAY_END)
		return -ENOENT;
	after = p;
	if (!ref_at(d->b, d->len, &after, &v->t)) {
		after = p;
		if (pdftok_skip(d->b, d->len, &after, &v->t))
			return -ENOTSUP;
	}
	ret = finish_val(d, &p, v);
	*pos = after;
	return ret;
}

void pdfobj_trailer(const struct pdfobj *d, struct pdfval *v)
{
	memset(v, 0, sizeof(*v));
	v->t.kind = PDFTOK_DICT;
	v->pos = d->trailer;
}

/* An unsigned decimal at b[p..) of at most 10 digits, or -1. */
static long long read_uint(const char *b, size_t len, size_t *p)
{
	long long v = 0;
	size_t q = *p;

	while (q < len && q - *p < 10 && b[q] >= '0' && b[q] <= '9')
		v = v * 10 + (b[q++] - '0');
	if (q == *p || (q < len && b[q] >= '0' && b[q] <= '9'))
		return -1;
	*p = q;
	return v;
}

/* One "xref" section at off: fills the offsets not known yet (a newer
 * section, read first, wins) and returns the trailer's inside in *tr. */
static int read_xref(struct pdfobj *d, size_t off, size_t *tr)
{
	size_t p = off;
	struct pdftok t;

	if (off >= d->len || d->len - off < 4 || memcmp(d->b + off, "xref", 4))
		return -ENOTSUP;	/* a cross-reference stream: poppler's */
	p = skip_ws(d->b, d->len, off + 4);
	while (p < d->len && d->b[p] >= '0' && d->b[p] <= '9') {
		long long first = read_uint(d->b, d->len, &p), count, i;

		p = skip_ws(d->b, d->len, p);
		count = read_uint(d->b, d->len, &p);
		if (first < 0 || count < 0 ||
		    (d->off && (unsigned long long)(first + count) > d->nobj))
			return -ENOTSUP;
		p = skip_ws(d->b, d->len, p);
		if ((d->len - p) / 20 < (unsigned long long)count)
			return -ENOTSUP;
		for (i = 0; i < count; i++, p += 20) {
			const char *e = d->b + p;
			size_t q = p;
			long long o = read_uint(d->b, d->len, &q);

			if (o < 0 || q != p + 10 || (e[17] != 'n' && e[17] != 'f'))
				return -ENOTSUP;
			if (d->off && e[17] == 'n' && !d->off[first + i] && first + i > 0)
				d->off[first + i] = (size_t)o < d->len ? (size_t)o : 0;
		}
		p = skip_ws(d->b, d->len, p);
	}
	pdftok_next(d->b, d->len, &p, &t);
	if (!pdftok_is(&t, "trailer"))
		return -ENOTSUP;
	pdftok_next(d->b, d->len, &p, &t);
	if (t.kind != PDFTOK_DICT)
		return -ENOTSUP;
	*tr = p;
	return 0;
}

static size_t find_startxref(const char *b, size_t len)
{
	size_t from = len > 1024 ? len - 1024 : 0, i, p;
	long long v;

	for (i = len >= 9 ? len - 9 : 0; i + 1 > from + 1; i--)
		if (!memcmp(b + i, "startxref", 9)) {
			p = skip_ws(b, len, i + 9);
			v = read_uint(b, len, &p);
			return v > 0 ? (size_t)v : 0;
		}
	return 0;
}

int pdfobj_open(const char *data, size_t len, uint32_t max_objs, struct pdfobj **out)
{
	struct pdfobj *d = calloc(1, sizeof(*d));
	struct pdfval tr, v;
	size_t off, tp;
	int ret = -ENOTSUP, n;

	*out = NULL;
	if (!d)
		return -ENOMEM;
	d->b = data;
	d->len = len;
	off = len < 9 ? 0 : find_startxref(data, len);
	/* the newest trailer first: its /Size bounds every section */
	if (!off || read_xref(d, off, &d->trailer))
		goto fail;
	pdfobj_trailer(d, &tr);
	if (pdfobj_get(d, &tr, "Size", &v) || v.t.kind != PDFTOK_NUM || v.t.num < 1 ||
	    v.t.num > max_objs)
		goto fail;
	d->nobj = (uint32_t)v.t.num;
	d->off = calloc(d->nobj, sizeof(*d->off));
	if (!d->off) {
		ret = -ENOMEM;
		goto fail;
	}
	for (n = 0; off; n++) {
		if (n == MAX_XREF_SECTIONS || read_xref(d, off, &tp))
			goto fail;
		tr.pos = tp;
		if (!pdfobj_get(d, &tr, "Encrypt", &v) || !pdfobj_get(d, &tr, "XRefStm", &v))
			goto fail;
		off = 0;
		if (!pdfobj_get(d, &tr, "Prev", &v)) {
			if (v.t.kind != PDFTOK_NUM || v.t.num <= 0 || v.t.num >= (double)len)
				goto fail;
			off = (size_t)v.t.num;
		}
	}
	*out = d;
	return 0;
fail:
	pdfobj_close(d);
	return ret;
}

void pdfobj_close(struct pdfobj *d)
{
	if (!d)
		return;
	free(d->off);
	free(d);
}

static int inflate_all(const unsigned char *in, size_t n, size_t max, unsigned char **out,
		       size_t *outn)
{
	z_stream z;
	unsigned char *buf = NULL, *nb;
	size_t cap = n * 4 + 1024, have = 0;
	int zr = Z_OK, ret = 0;

	memset(&z, 0, sizeof(z));
	if (inflateInit(&z) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)in;
	z.avail_in = n > UINT32_MAX ? UINT32_MAX : (uInt)n;
	while (zr != Z_STREAM_END) {
		if (have == cap || !buf) {
			if (buf)
				cap *= 2;
			if (cap > max + 1)
				cap = max + 1;
			if (have == cap) {
				ret = -EFBIG;
				break;
			}
			nb = realloc(buf, cap);
			if (!nb) {
				ret = -ENOMEM;
				break;
			}
			buf = nb;
		}
		z.next_out = buf + have;
		z.avail_out = (uInt)(cap - have);
		zr = inflate(&z, Z_NO_FLUSH);
		have = cap - z.avail_out;
		if (zr != Z_OK && zr != Z_STREAM_END) {
			ret = -ENOTSUP;
			break;
		}
	}
	inflateEnd(&z);
	if (!ret && have > max)
		ret = -EFBIG;
	if (ret) {
		free(buf);
		return ret;
	}
	*out = buf;
	*outn = have;
	return 0;
}

int pdfobj_stream(const struct pdfobj *d, const struct pdfval *dict, size_t max,
		  unsigned char **out, size_t *n)
{
	struct pdfval v, lenv, more;
	struct pdftok t;
	size_t p = dict->pos, start, slen, e;
	int flate = 0, depth = 1;

	if (dict->t.kind != PDFTOK_DICT || !dict->obj)
		return -ENOTSUP;
	if (pdfobj_get(d, dict, "Length", &lenv) || lenv.t.kind != PDFTOK_NUM || lenv.t.num < 0)
		return -ENOTSUP;
	if (!pdfobj_get(d, dict, "Filter", &v)) {
		if (v.t.kind == PDFTOK_ARRAY) {
			size_t ap = v.pos;

			if (pdfobj_next(d, &ap, &v) || pdfobj_next(d, &ap, &more) != -ENOENT)
				return -ENOTSUP;	/* one filter at most */
		}
		if (v.t.kind != PDFTOK_NAME || v.t.n != 11 || memcmp(v.t.s, "FlateDecode", 11))
			return -ENOTSUP;
		if (!pdfobj_get(d, dict, "DecodeParms", &v))
			return -ENOTSUP;	/* predictors */
		flate = 1;
	}
	/* from inside the dictionary to past its ">>" */
	while (depth) {
		pdftok_next(d->b, d->len, &p, &t);
		if (t.kind == PDFTOK_DICT || t.kind == PDFTOK_ARRAY)
			depth++;
		else if (t.kind == PDFTOK_DICT_END || t.kind == PDFTOK_ARRAY_END)
			depth--;
		if (t.kind == PDFTOK_END || t.kind == PDFTOK_BAD || depth > SKIP_DEPTH)
			return -ENOTSUP;
	}
	pdftok_next(d->b, d->len, &p, &t);
	if (!pdftok_is(&t, "stream"))
		return -ENOTSUP;
	if (p < d->len && d->b[p] == '\r')
		p++;
	if (p >= d->len || d->b[p] != '\n')
		return -ENOTSUP;
	start = p + 1;
	slen = (size_t)lenv.t.num;
	if (lenv.t.num > (double)(d->len - start))
		return -ENOTSUP;
	/* a wrong /Length poppler would repair by looking for "endstream" */
	e = start + slen;
	pdftok_next(d->b, d->len, &e, &t);
	if (!pdftok_is(&t, "endstream"))
		return -ENOTSUP;
	if (flate)
		return inflate_all((const unsigned char *)d->b + start, slen, max, out, n);
	if (slen > max)
		return -EFBIG;
	*out = malloc(slen + 1);
	if (!*out)
		return -ENOMEM;
	memcpy(*out, d->b + start, slen);
	*n = slen;
	return 0;
}
