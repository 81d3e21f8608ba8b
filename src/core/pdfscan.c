/* pdfscan.c - the text layer of a PDF's pages from their content streams, for
 * Type0/Identity-H fonts with ToUnicode maps, laid out as poppler's text
 * layer lays out one column of horizontal text (see pdfscan.h).
 *
 * The word and line rules are poppler's (TextOutputDev): a glyph starts a
 * new word after a white-space glyph, a gap over 0.1 of the font size, an
 * overlap over 0.2, a baseline move over 0.5 or another font size; a word
 * whose baseline is within 0.5 of the line's goes on that line, and a space
 * separates two words of a line whose gap is at least 0.03 of the font size
 * of the line's first word.  A character's box spans its advance across
 * and the word's font ascent to descent down, as poppler's character
 * boxes do.
 */
#include "pdfscan.h"
#include "pdfobj.h"
#include "grow.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <utf8proc.h>

#define MAX_FONTS 256		/* distinct fonts in one document */
#define MAX_MAP 65536		/* ToUnicode entries of one font */
#define MAX_WIDTHS 65536	/* /W entries of one font */
#define MAX_Q 64		/* q nesting */
#define MAX_OPS 8		/* operands of one operator */
#define MAX_TREE 32		/* depth of the page tree */
#define STREAM_MAX (64u << 20)	/* one decoded content stream or CMap */

struct umap {
	uint32_t code;
	uint32_t n;		/* code points, 1..4 */
	uint32_t cp[4];
};

struct wrange {
	uint32_t lo, hi;
	double w;		/* glyph space / 1000 */
};

struct font {
	uint32_t obj;
	int bad;		/* not of the kind read here: its pages go to poppler */
	struct umap *map;
	size_t nmap;
	struct wrange *w;
	size_t nw;
	double dw, ascent, descent;
};

struct gstate {
	double ctm[6];
	double tc, tw, th, tl, rise, fs;
	struct font *font;
};

/* The word and line being laid out on the page. */
struct layout {
	int in_word, in_line;
	uint32_t nwords, len0, len1;	/* words on the line, chars of the first two */
	double w_xmin, w_xmax, w_edge, w_base, w_fs, w_y1, w_y2;
	double l_base, l_fs;
};

/* A page and what it inherits from the nodes above it. */
struct page {
	struct pdfval dict, res, media, crop;
	int has_res, has_media, has_crop;
	int rotated;
};

struct pdfscan {
	struct ex_ctx *ctx;
	struct pdfobj *d;
	struct font *fonts;
	size_t nfonts;
	struct pdfval res;	/* the page's resources (kind 0: none) */
	double base[6];		/* user space to the page's device space */
	double pw, ph;		/* page size */
	struct gstate gs[MAX_Q + 1];
	int q;
	double tm[6], tlm[6];
	struct layout lay;
	struct sbuf text;	/* the page's text, lines by "\n" */
	struct pdftext_box *box;	/* one per code point of text */
	size_t nbox, boxcap;
	struct page *page;	/* every page, in order */
	uint32_t npages;
	struct sbuf content;	/* the current page's content streams */
	int span;		/* the marked-content span we are in, SPAN_* */
	uint32_t tiny;		/* glyphs under 3 points wide on the page */
};

enum { SPAN_NONE, SPAN_PLAIN, SPAN_SPACE };

static void mat_mul(const double a[6], const double b[6], double out[6])
{
	double r[6];

	r[0] = a[0] * b[0] + a[1] * b[2];
	r[1] = a[0] * b[1] + a[1] * b[3];
	r[2] = a[2] * b[0] + a[3] * b[2];
	r[3] = a[2] * b[1] + a[3] * b[3];
	r[4] = a[4] * b[0] + a[5] * b[2] + b[4];
	r[5] = a[4] * b[1] + a[5] * b[3] + b[5];
	memcpy(out, r, sizeof(r));
}

static int name_is(const struct pdfval *v, const char *s)
{
	size_t n = strlen(s);

	return v->t.kind == PDFTOK_NAME && v->t.n == n && !memcmp(v->t.s, s, n);
}

static int umap_cmp(const void *a, const void *b)
{
	const struct umap *x = a, *y = b;

	return x->code < y->code ? -1 : x->code > y->code;
}

static int wr_cmp(const void *a, const void *b)
{
	const struct wrange *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* A 2-byte code of a hex token, or -1. */
static long code2(const struct pdftok *t)
{
	unsigned char b[4];
	size_t n;

	if (t->kind != PDFTOK_HEX || pdftok_hex(t, b, sizeof(b), &n) || n != 2)
		return -1;
	return (long)b[0] << 8 | b[1];
}

/* UTF-16BE of a hex token into cp[0..4), their count (0: unusable). */
static uint32_t utf16_cps(const struct pdftok *t, uint32_t cp[4])
{
	unsigned char b[16];
	size_t n, i;
	uint32_t k = 0;

	if (t->kind != PDFTOK_HEX || pdftok_hex(t, b, sizeof(b), &n) || !n || n % 2)
		return 0;
	for (i = 0; i < n; i += 2) {
		uint32_t u = (uint32_t)b[i] << 8 | b[i + 1];

		if (u >= 0xD800 && u < 0xDC00 && i + 3 < n) {
			uint32_t l = (uint32_t)b[i + 2] << 8 | b[i + 3];

			if (l < 0xDC00 || l > 0xDFFF)
				return 0;
			u = 0x10000 + ((u - 0xD800) << 10) + (l - 0xDC00);
			i += 2;
		} else if (u >= 0xD800 && u <= 0xDFFF) {
			return 0;
		}
		if (k == 4)
			return 0;
		cp[k++] = u;
	}
	return k;
}

static int map_add(struct font *f, size_t *cap, uint32_t code, const uint32_t *cp, uint32_t n)
{
	if (f->nmap >= MAX_MAP || ARRAY_GROW(f->map, *cap, f->nmap + 1))
		return f->nmap >= MAX_MAP ? -ENOTSUP : -ENOMEM;
	f->map[f->nmap].code = code;
	f->map[f->nmap].n = n;
	memcpy(f->map[f->nmap].cp, cp, n * sizeof(*cp));
	f->nmap++;
	return 0;
}

/* bfrange lo hi dst: dst a string (its last code point counts up) or an
 * array of strings. */
static int cmap_range(struct font *f, size_t *cap, const char *b, size_t len, size_t *p)
{
	struct pdftok lo, hi, dst;
	long a, z, c;
	uint32_t cp[4], n;
	int ret;

	pdftok_next(b, len, p, &lo);
	pdftok_next(b, len, p, &hi);
	pdftok_next(b, len, p, &dst);
	a = code2(&lo);
	z = code2(&hi);
	if (a < 0 || z < a)
		return -ENOTSUP;
	for (c = a; c <= z; c++) {
		if (dst.kind == PDFTOK_ARRAY) {
			struct pdftok e;

			pdftok_next(b, len, p, &e);
			n = utf16_cps(&e, cp);
		} else {
			n = utf16_cps(&dst, cp);
			if (n && (n == 1 || c == a))
				cp[n - 1] += (uint32_t)(c - a);
			else
				n = 0;
		}
		if (!n)
			return -ENOTSUP;
		ret = map_add(f, cap, (uint32_t)c, cp, n);
		if (ret)
			return ret;
	}
	if (dst.kind == PDFTOK_ARRAY) {
		pdftok_next(b, len, p, &dst);
		if (dst.kind != PDFTOK_ARRAY_END)
			return -ENOTSUP;
	}
	return 0;
}

/* The bfchar and bfrange sections of a ToUnicode CMap with 2-byte codes. */
static int parse_cmap(struct font *f, const char *b, size_t len)
{
	struct pdftok t, prev = { 0 }, s, u;
	size_t p = 0, cap = 0, i, k;
	uint32_t cp[4], n;
	int ret;

	for (;;) {
		pdftok_next(b, len, &p, &t);
		if (t.kind == PDFTOK_END)
			break;
		if (t.kind == PDFTOK_BAD || pdftok_is(&t, "usecmap"))
			return -ENOTSUP;
		if (pdftok_is(&t, "beginbfchar") || pdftok_is(&t, "beginbfrange")) {
			int range = t.n == 12;

			if (prev.kind != PDFTOK_NUM || prev.num < 0 || prev.num > 100)
				return -ENOTSUP;
			for (k = 0; k < (size_t)prev.num; k++) {
				if (range) {
					ret = cmap_range(f, &cap, b, len, &p);
				} else {
					pdftok_next(b, len, &p, &s);
					pdftok_next(b, len, &p, &u);
					n = utf16_cps(&u, cp);
					ret = code2(&s) < 0 || !n ? -ENOTSUP :
						map_add(f, &cap, (uint32_t)code2(&s), cp, n);
				}
				if (ret)
					return ret;
			}
		}
		prev = t;
	}
	/* sorted, the last mapping of a code wins (as in poppler) */
	for (i = 0; i < f->nmap; i++)
		f->map[i].n |= (uint32_t)i << 3;
	if (f->nmap)
		qsort(f->map, f->nmap, sizeof(*f->map), umap_cmp);
	for (i = k = 0; i < f->nmap; i++) {
		if (k && f->map[k - 1].code == f->map[i].code &&
		    f->map[k - 1].n >> 3 < f->map[i].n >> 3)
			k--;
		else if (k && f->map[k - 1].code == f->map[i].code)
			continue;
		f->map[k++] = f->map[i];
	}
	f->nmap = k;
	for (i = 0; i < k; i++)
		f->map[i].n &= 7;
	return 0;
}

/* /W of a CIDFont: "c [w1 w2 ...]" and "c1 c2 w". */
static int parse_widths(const struct pdfobj *d, struct font *f, const struct pdfval *arr)
{
	struct pdfval a, b, c;
	size_t p = arr->pos, q, cap = 0;
	int ret;

	for (;;) {
		ret = pdfobj_next(d, &p, &a);
		if (ret == -ENOENT)
			break;
		if (ret || a.t.kind != PDFTOK_NUM || a.t.num < 0 || a.t.num > 65535 ||
		    pdfobj_next(d, &p, &b))
			return -ENOTSUP;
		if (b.t.kind == PDFTOK_ARRAY) {
			uint32_t code = (uint32_t)a.t.num;

			for (q = b.pos; !(ret = pdfobj_next(d, &q, &c)); code++) {
				if (c.t.kind != PDFTOK_NUM || code > 65535 || f->nw >= MAX_WIDTHS)
					return -ENOTSUP;
				if (ARRAY_GROW(f->w, cap, f->nw + 1))
					return -ENOMEM;
				f->w[f->nw++] = (struct wrange){ code, code, c.t.num / 1000.0 };
			}
			if (ret != -ENOENT)
				return -ENOTSUP;
			continue;
		}
		if (b.t.kind != PDFTOK_NUM || b.t.num < a.t.num || pdfobj_next(d, &p, &c) ||
		    c.t.kind != PDFTOK_NUM || f->nw >= MAX_WIDTHS)
			return -ENOTSUP;
		if (ARRAY_GROW(f->w, cap, f->nw + 1))
			return -ENOMEM;
		f->w[f->nw++] = (struct wrange){ (uint32_t)a.t.num, (uint32_t)b.t.num,
						 c.t.num / 1000.0 };
	}
	if (f->nw)
		qsort(f->w, f->nw, sizeof(*f->w), wr_cmp);
	return 0;
}

/* Ascent and descent of a font descriptor as poppler takes them (nonsense
 * values keep its defaults, 0.95 and -0.35). */
static void read_metrics(const struct pdfobj *d, const struct pdfval *cid, struct font *f)
{
	struct pdfval fd, v;
	double t;

	f->ascent = 0.95;
	f->descent = -0.35;
	if (pdfobj_get(d, cid, "FontDescriptor", &fd) || fd.t.kind != PDFTOK_DICT)
		return;
	if (!pdfobj_get(d, &fd, "Ascent", &v) && v.t.kind == PDFTOK_NUM) {
		t = fabs(0.001 * v.t.num);
		if (t != 0 && t < 3)
			f->ascent = t;
	}
	if (!pdfobj_get(d, &fd, "Descent", &v) && v.t.kind == PDFTOK_NUM) {
		t = -fabs(0.001 * v.t.num);
		if (t != 0 && t > -3)
			f->descent = t;
	}
}

/* A Type0 font with Identity-H encoding and a ToUnicode map, else
 * -ENOTSUP. */
static int load_font(struct pdfscan *sc, const struct pdfval *fd, struct font *f)
{
	const struct pdfobj *d = sc->d;
	struct pdfval v, cid, arr, sys;
	unsigned char *cm = NULL;
	size_t n, p;
	int ret;

	memset(f, 0, sizeof(*f));
	f->obj = fd->obj;
	f->dw = 1.0;
	if (fd->t.kind != PDFTOK_DICT || pdfobj_get(d, fd, "Subtype", &v) || !name_is(&v, "Type0") ||
	    pdfobj_get(d, fd, "Encoding", &v) || !name_is(&v, "Identity-H") ||
	    pdfobj_get(d, fd, "DescendantFonts", &arr) || arr.t.kind != PDFTOK_ARRAY)
		return -ENOTSUP;
	p = arr.pos;
	/* poppler refuses a descendant font without these: no text at all */
	if (pdfobj_next(d, &p, &cid) || cid.t.kind != PDFTOK_DICT ||
	    pdfobj_get(d, &cid, "Subtype", &v) ||
	    !(name_is(&v, "CIDFontType2") || name_is(&v, "CIDFontType0")) ||
	    pdfobj_get(d, &cid, "CIDSystemInfo", &sys) || sys.t.kind != PDFTOK_DICT ||
	    pdfobj_get(d, &sys, "Registry", &v) || v.t.kind != PDFTOK_STR ||
	    pdfobj_get(d, &sys, "Ordering", &v) || v.t.kind != PDFTOK_STR)
		return -ENOTSUP;
	if (!pdfobj_get(d, &cid, "DW", &v)) {
		if (v.t.kind != PDFTOK_NUM)
			return -ENOTSUP;
		f->dw = v.t.num / 1000.0;
	}
	ret = pdfobj_get(d, &cid, "W", &v);
	if (!ret)
		ret = v.t.kind == PDFTOK_ARRAY ? parse_widths(d, f, &v) : -ENOTSUP;
	else if (ret == -ENOENT)
		ret = 0;
	if (ret)
		return ret;
	read_metrics(d, &cid, f);
	if (pdfobj_get(d, fd, "ToUnicode", &v))
		return -ENOTSUP;
	ret = pdfobj_stream(d, &v, STREAM_MAX, &cm, &n);
	if (!ret)
		ret = parse_cmap(f, (const char *)cm, n);
	free(cm);
	return ret == -EFBIG ? -ENOTSUP : ret;
}

static void font_release(struct font *f)
{
	free(f->map);
	free(f->w);
}

/* The font of resource name t, loaded once per document. */
static int find_font(struct pdfscan *sc, const struct pdftok *t, struct font **out)
{
	struct pdfval fonts, fd;
	char key[128];
	size_t i;
	int ret;

	if (t->kind != PDFTOK_NAME || t->n >= sizeof(key) || !sc->res.t.kind)
		return -ENOTSUP;
	memcpy(key, t->s, t->n);
	key[t->n] = 0;
	if (pdfobj_get(sc->d, &sc->res, "Font", &fonts) || pdfobj_get(sc->d, &fonts, key, &fd) ||
	    !fd.obj)
		return -ENOTSUP;
	for (i = 0; i < sc->nfonts; i++)
		if (sc->fonts[i].obj == fd.obj) {
			*out = &sc->fonts[i];
			return sc->fonts[i].bad ? -ENOTSUP : 0;
		}
	if (sc->nfonts == MAX_FONTS)
		return -ENOTSUP;
	/* a font not read is remembered as such, not parsed again per page */
	ret = load_font(sc, &fd, &sc->fonts[sc->nfonts]);
	if (ret) {
		font_release(&sc->fonts[sc->nfonts]);
		memset(&sc->fonts[sc->nfonts], 0, sizeof(sc->fonts[0]));
		sc->fonts[sc->nfonts].obj = fd.obj;
		sc->fonts[sc->nfonts++].bad = 1;
		return ret == -ENOMEM ? ret : -ENOTSUP;
	}
	*out = &sc->fonts[sc->nfonts++];
	return 0;
}

static const struct umap *font_unicode(const struct font *f, uint32_t code)
{
	size_t lo = 0, hi = f->nmap;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->map[mid].code < code)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < f->nmap && f->map[lo].code == code ? &f->map[lo] : NULL;
}

static double font_width(const struct font *f, uint32_t code)
{
	size_t lo = 0, hi = f->nw;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->w[mid].hi < code)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < f->nw && f->w[lo].lo <= code && code <= f->w[lo].hi ? f->w[lo].w : f->dw;
}

static int put_cp(struct pdfscan *sc, uint32_t c, double x1, double y1, double x2, double y2)
{
	utf8proc_uint8_t u[4];
	utf8proc_ssize_t n = utf8proc_encode_char((utf8proc_int32_t)c, u);

	if (n <= 0 || ARRAY_GROW(sc->box, sc->boxcap, sc->nbox + 1))
		return n <= 0 ? -ENOTSUP : -ENOMEM;
	sc->box[sc->nbox++] = (struct pdftext_box){ x1, y1, x2, y2 };
	return sbuf_add(&sc->text, u, (size_t)n);
}

/* The end of a line: poppler spaces a line whose first two words are
 * single characters by their own spacing (letter-spaced text); left to it. */
static int end_line(struct pdfscan *sc)
{
	struct layout *l = &sc->lay;
	int odd = l->nwords >= 2 && l->len0 == 1 && l->len1 == 1;

	l->nwords = l->len0 = l->len1 = 0;
	return odd ? -ENOTSUP : 0;
}

/* A new word at (x, y) of font size fs: on the current line, or on the
 * next one down. */
static int begin_word(struct pdfscan *sc, const struct font *f, double x, double y, double fs)
{
	struct layout *l = &sc->lay;
	double gap;
	int ret = 0;

	if (l->in_line && fabs(y - l->l_base) <= 0.5) {
		gap = x - l->w_xmax;
		/* back along the line or far along it (columns): poppler's
		 * block rules decide, not these (a gap of 1.2 splits some
		 * lines and not others; 0.9 was never seen to) */
		if (gap < -0.2 * l->l_fs || gap > 1.0 * l->l_fs)
			return -ENOTSUP;
		if (gap >= 0.03 * l->l_fs)
			ret = put_cp(sc, ' ', l->w_xmax, l->w_y1, x, l->w_y2);
	} else {
		if (l->in_line) {
			/* only down the page, by most of a line */
			if (y - l->l_base < 0.8 * (fs > l->l_fs ? fs : l->l_fs))
				return -ENOTSUP;
			ret = end_line(sc);
			if (!ret)
				ret = put_cp(sc, '\n', l->w_xmax, l->w_y2, l->w_xmax, l->w_y2);
		}
		l->in_line = 1;
		l->l_base = y;
		l->l_fs = fs;
	}
	l->in_word = 1;
	l->nwords++;
	l->w_xmin = x;
	l->w_xmax = x;
	l->w_base = y;
	l->w_fs = fs;
	l->w_y1 = y - f->ascent * fs;
	l->w_y2 = y - f->descent * fs;
	if (l->w_y1 == l->w_y2)
		l->w_y2 = l->w_y1 + 1;
	return ret;
}

/* The white space that ends a word in poppler (UnicodeIsWhitespace). */
static int ends_word(uint32_t c)
{
	return c == ' ' || (c >= 9 && c <= 13) || c == 0x85 || c == 0xA0 ||
	       (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
	       c == 0x205F || c == 0x3000;
}

/* Characters poppler treats apart (combining marks merge into the glyph
 * before, other white space ends words) or that are not text: not met in
 * the common case, so left to poppler. */
static int odd_char(uint32_t c)
{
	utf8proc_category_t k = utf8proc_category((utf8proc_int32_t)c);

	return c != 0xAD && (k == UTF8PROC_CATEGORY_MN || k == UTF8PROC_CATEGORY_MC ||
	       k == UTF8PROC_CATEGORY_ME || k == UTF8PROC_CATEGORY_ZS ||
	       k == UTF8PROC_CATEGORY_ZL || k == UTF8PROC_CATEGORY_ZP ||
	       k == UTF8PROC_CATEGORY_CC || k == UTF8PROC_CATEGORY_CF ||
	       k == UTF8PROC_CATEGORY_CS || k == UTF8PROC_CATEGORY_CN);
}

/* One glyph: its Unicode um drawn at device (x, y), advance w, font size
 * fs (poppler's TextPage::addChar for horizontal text). */
static int add_glyph(struct pdfscan *sc, const struct umap *um, double x, double y, double w,
		     double fs)
{
	struct layout *l = &sc->lay;
	const struct font *f = sc->gs[sc->q].font;
	double sp, w1;
	uint32_t i;
	int ret;

	if (x + w < 0 || x > sc->pw || y < 0 || y > sc->ph)
		return 0;
	/* poppler may drop tiny glyphs past 50,000 on a page (a setting) */
	if (w < 3 && ++sc->tiny > 50000)
		return -ENOTSUP;
	if (um->n == 1 && ends_word(um->cp[0])) {
		l->in_word = 0;
		return 0;
	}
	if (sc->span == SPAN_SPACE)
		return -ENOTSUP;
	if (um->n == 1 && !um->cp[0])
		return 0;
	for (i = 0; i < um->n; i++)
		if (um->cp[i] >= 0x80 && odd_char(um->cp[i]))
			return -ENOTSUP;
	if (w < 0)
		return -ENOTSUP;
	if (l->in_word) {
		sp = x - l->w_xmax;
		if (fabs(x - l->w_edge) < 0.1 * l->w_fs && fabs(y - l->w_base) < 0.2 * l->w_fs)
			return -ENOTSUP;	/* overprinted glyphs */
		if (sp < -0.2 * l->w_fs || sp > 0.1 * l->w_fs || fabs(y - l->w_base) > 0.5 ||
		    fs != l->w_fs)
			l->in_word = 0;
	}
	if (!l->in_word) {
		ret = begin_word(sc, f, x, y, fs);
		if (ret)
			return ret;
	}
	if (l->nwords == 1)
		l->len0 += um->n;
	else if (l->nwords == 2)
		l->len1 += um->n;
	w1 = w / um->n;
	for (i = 0; i < um->n; i++) {
		ret = put_cp(sc, um->cp[i], x + i * w1, l->w_y1, x + (i + 1) * w1, l->w_y2);
		if (ret)
			return ret;
	}
	l->w_edge = x + (um->n - 1) * w1;
	l->w_xmax = x + w;
	return 0;
}

/* Tj: the glyphs of string t (2-byte codes) with the text state. */
static int show(struct pdfscan *sc, const struct pdftok *t)
{
	struct gstate *g = &sc->gs[sc->q];
	const struct font *f = g->font;
	unsigned char buf[8192];
	double m[6], trm[6], fs, dx;
	size_t n, i;
	int ret;

	if (!f || t->kind != PDFTOK_HEX || pdftok_hex(t, buf, sizeof(buf), &n) || n % 2)
		return -ENOTSUP;
	for (i = 0; i < n; i += 2) {
		uint32_t code = (uint32_t)buf[i] << 8 | buf[i + 1];
		const struct umap *um = font_unicode(f, code);
		double w0 = font_width(f, code), x, y, ux, uy;

		if (!um)
			return -ENOTSUP;
		mat_mul(sc->tm, g->ctm, m);
		trm[0] = m[0] * g->fs;
		trm[1] = m[1] * g->fs;
		trm[2] = m[2] * g->fs;
		trm[3] = m[3] * g->fs;
		/* upright horizontal text only */
		if (!(trm[0] > 0) || !(trm[3] < 0) || fabs(trm[1]) > 1e-9 * trm[0] ||
		    fabs(trm[2]) > 1e-9 * trm[0])
			return -ENOTSUP;
		fs = -trm[3];
		ux = sc->tm[4] + sc->tm[2] * g->rise;
		uy = sc->tm[5] + sc->tm[3] * g->rise;
		x = g->ctm[0] * ux + g->ctm[2] * uy + g->ctm[4];
		y = g->ctm[1] * ux + g->ctm[3] * uy + g->ctm[5];
		dx = w0 * g->fs * g->th;
		ret = add_glyph(sc, um, x, y, dx * m[0], fs);
		if (ret)
			return ret;
		dx = (w0 * g->fs + g->tc) * g->th;
		sc->tm[4] += sc->tm[0] * dx;
		sc->tm[5] += sc->tm[1] * dx;
	}
	return 0;
}

static void text_shift(struct pdfscan *sc, double tx)
{
	sc->tm[4] += sc->tm[0] * tx;
	sc->tm[5] += sc->tm[1] * tx;
}

static void next_line(struct pdfscan *sc, double tx, double ty)
{
	double t[6] = { 1, 0, 0, 1, tx, ty };

	mat_mul(t, sc->tlm, sc->tlm);
	memcpy(sc->tm, sc->tlm, sizeof(sc->tm));
}

/* TJ: the array at pos of the content c[0..len). */
static int show_array(struct pdfscan *sc, const char *c, size_t len, size_t pos)
{
	struct gstate *g = &sc->gs[sc->q];
	struct pdftok t;
	int ret;

	for (;;) {
		pdftok_next(c, len, &pos, &t);
		if (t.kind == PDFTOK_ARRAY_END)
			return 0;
		if (t.kind == PDFTOK_NUM)
			text_shift(sc, -t.num * 0.001 * g->fs * g->th);
		else if ((ret = show(sc, &t)))
			return ret;
	}
}

/* Do: images draw no text; a form XObject could. */
static int check_xobject(struct pdfscan *sc, const struct pdftok *t)
{
	struct pdfval xo, x, st;
	char key[128];

	if (t->kind != PDFTOK_NAME || t->n >= sizeof(key) || !sc->res.t.kind)
		return -ENOTSUP;
	memcpy(key, t->s, t->n);
	key[t->n] = 0;
	if (pdfobj_get(sc->d, &sc->res, "XObject", &xo) || pdfobj_get(sc->d, &xo, key, &x) ||
	    pdfobj_get(sc->d, &x, "Subtype", &st) || !name_is(&st, "Image"))
		return -ENOTSUP;
	return 0;
}

/* gs: a graphics state that sets a font is not followed. */
static int check_extgstate(struct pdfscan *sc, const struct pdftok *t)
{
	struct pdfval egs, e, v;
	char key[128];

	if (t->kind != PDFTOK_NAME || t->n >= sizeof(key) || !sc->res.t.kind)
		return -ENOTSUP;
	memcpy(key, t->s, t->n);
	key[t->n] = 0;
	if (pdfobj_get(sc->d, &sc->res, "ExtGState", &egs) || pdfobj_get(sc->d, &egs, key, &e) ||
	    e.t.kind != PDFTOK_DICT)
		return -ENOTSUP;
	return pdfobj_get(sc->d, &e, "Font", &v) == -ENOENT ? 0 : -ENOTSUP;
}

static int all_nums(const struct pdftok *op, int n, int want)
{
	int i;

	if (n != want)
		return 0;
	for (i = 0; i < n; i++)
		if (op[i].kind != PDFTOK_NUM)
			return 0;
	return 1;
}

/* A marked-content span whose properties are the dictionary at pos of
 * c[0..len): SPAN_PLAIN when it changes nothing poppler's text layer
 * shows, SPAN_SPACE when its ActualText is one white-space character (its
 * glyphs must then be white space too: they end a word either way), -1
 * otherwise (other ActualText; optional content is a named property, not
 * read). */
static int span_kind(const char *c, size_t len, size_t pos)
{
	struct pdftok k, v;
	unsigned char u[8];
	size_t n;

	for (;;) {
		pdftok_next(c, len, &pos, &k);
		if (k.kind == PDFTOK_DICT_END)
			return SPAN_PLAIN;
		if (k.kind != PDFTOK_NAME)
			return -1;
		pdftok_next(c, len, &pos, &v);
		if (k.n == 10 && !memcmp(k.s, "ActualText", 10))
			return v.kind == PDFTOK_HEX && !pdftok_hex(&v, u, sizeof(u), &n) && n == 4 &&
					       u[0] == 0xFE && u[1] == 0xFF && !u[2] &&
					       (u[3] == ' ' || (u[3] >= 9 && u[3] <= 13)) ?
				       SPAN_SPACE : -1;
		if (pdftok_skip(c, len, &pos, &v))
			return -1;
	}
}

/* One operator w with its operands op[0..n) (arr: an array operand's
 * position in c). */
static int run_op(struct pdfscan *sc, const struct pdftok *w, const struct pdftok *op, int n,
		  const char *c, size_t len, size_t arr)
{
	struct gstate *g = &sc->gs[sc->q];
	const char *s = w->s;
	double m[6];
	int i;

#define OP(name) (w->n == sizeof(name) - 1 && !memcmp(s, name, sizeof(name) - 1))
	if (OP("Tj") || OP("'") || OP("\"")) {
		if (n < 1)
			return -ENOTSUP;
		if (OP("\"")) {
			if (!all_nums(op, 2, 2))
				return -ENOTSUP;
			g->tw = op[0].num;
			g->tc = op[1].num;
		}
		if (!OP("Tj"))
			next_line(sc, 0, -g->tl);
		return show(sc, &op[n - 1]);
	}
	if (OP("TJ"))
		return n == 1 && op[0].kind == PDFTOK_ARRAY ? show_array(sc, c, len, arr) : -ENOTSUP;
	if (OP("Td") || OP("TD")) {
		if (!all_nums(op, n, 2))
			return -ENOTSUP;
		if (OP("TD"))
			g->tl = -op[1].num;
		next_line(sc, op[0].num, op[1].num);
	} else if (OP("T*")) {
		next_line(sc, 0, -g->tl);
	} else if (OP("Tm") || OP("cm")) {
		if (!all_nums(op, n, 6))
			return -ENOTSUP;
		for (i = 0; i < 6; i++)
			m[i] = op[i].num;
		if (OP("cm")) {
			mat_mul(m, g->ctm, g->ctm);
		} else {
			memcpy(sc->tm, m, sizeof(m));
			memcpy(sc->tlm, m, sizeof(m));
		}
	} else if (OP("BT")) {
		static const double id[6] = { 1, 0, 0, 1, 0, 0 };

		memcpy(sc->tm, id, sizeof(id));
		memcpy(sc->tlm, id, sizeof(id));
	} else if (OP("Tf")) {
		if (n != 2 || op[1].kind != PDFTOK_NUM || op[1].num <= 0)
			return -ENOTSUP;
		g->fs = op[1].num;
		return find_font(sc, &op[0], &g->font);
	} else if (OP("Tc") || OP("Tw") || OP("Tz") || OP("TL") || OP("Ts")) {
		if (!all_nums(op, n, 1))
			return -ENOTSUP;
		if (OP("Tc"))
			g->tc = op[0].num;
		else if (OP("Tw"))
			g->tw = op[0].num;
		else if (OP("Tz"))
			g->th = op[0].num / 100.0;
		else if (OP("TL"))
			g->tl = op[0].num;
		else
			g->rise = op[0].num;
	} else if (OP("q")) {
		if (sc->q == MAX_Q)
			return -ENOTSUP;
		sc->gs[sc->q + 1] = *g;
		sc->q++;
	} else if (OP("Q")) {
		if (sc->q > 0)
			sc->q--;
	} else if (OP("Do")) {
		return n == 1 ? check_xobject(sc, &op[0]) : -ENOTSUP;
	} else if (OP("gs")) {
		return n == 1 ? check_extgstate(sc, &op[0]) : -ENOTSUP;
	} else if (OP("BDC") || OP("BMC")) {
		if (sc->span || (OP("BDC") && (n != 2 || op[1].kind != PDFTOK_DICT)))
			return -ENOTSUP;
		sc->span = OP("BDC") ? span_kind(c, len, arr) : SPAN_PLAIN;
		return sc->span < 0 ? -ENOTSUP : 0;
	} else if (OP("EMC")) {
		sc->span = SPAN_NONE;
	} else if (OP("BI") || OP("DP") || OP("d0") || OP("d1")) {
		return -ENOTSUP;	/* binary data; marked content; Type 3 */
	}
#undef OP
	return 0;
}

/* Interprets the content stream c[0..len) of the current page. */
static int run_content(struct pdfscan *sc, const char *c, size_t len)
{
	struct pdftok op[MAX_OPS], t;
	size_t pos = 0, arr = 0, nops = 0;
	int n = 0, ret;

	for (;;) {
		pdftok_next(c, len, &pos, &t);
		switch (t.kind) {
		case PDFTOK_END:
			return 0;
		case PDFTOK_BAD:
		case PDFTOK_ARRAY_END:
		case PDFTOK_DICT_END:
			return -ENOTSUP;
		case PDFTOK_WORD:
			/* one page can hold millions of operators */
			if (!(++nops & 4095) && (ret = ex_check_time(sc->ctx)))
				return ret;
			ret = run_op(sc, &t, op, n, c, len, arr);
			if (ret)
				return ret;
			n = 0;
			continue;
		case PDFTOK_ARRAY:
		case PDFTOK_DICT:
			arr = pos;
			if (pdftok_skip(c, len, &pos, &t))
				return -ENOTSUP;
			break;
		default:
			break;
		}
		if (n == MAX_OPS)
			return -ENOTSUP;
		op[n++] = t;
	}
}

/* A page box, normalised: -ENOTSUP unless an array of 4 numbers. */
static int read_box(const struct pdfobj *d, const struct pdfval *a, double b[4])
{
	struct pdfval v;
	size_t p = a->pos;
	int i;

	if (a->t.kind != PDFTOK_ARRAY)
		return -ENOTSUP;
	for (i = 0; i < 4; i++) {
		if (pdfobj_next(d, &p, &v) || v.t.kind != PDFTOK_NUM)
			return -ENOTSUP;
		b[i] = v.t.num;
	}
	if (pdfobj_next(d, &p, &v) != -ENOENT)
		return -ENOTSUP;
	if (b[0] > b[2]) {
		double x = b[0];

		b[0] = b[2];
		b[2] = x;
	}
	if (b[1] > b[3]) {
		double y = b[1];

		b[1] = b[3];
		b[3] = y;
	}
	return 0;
}

static void inherit_from(const struct pdfobj *d, const struct pdfval *node, struct page *in)
{
	struct pdfval v;

	if (!pdfobj_get(d, node, "Resources", &v)) {
		in->res = v;
		in->has_res = 1;
	}
	if (!pdfobj_get(d, node, "MediaBox", &v)) {
		in->media = v;
		in->has_media = 1;
	}
	if (!pdfobj_get(d, node, "CropBox", &v)) {
		in->crop = v;
		in->has_crop = 1;
	}
	if (!pdfobj_get(d, node, "Rotate", &v))
		in->rotated = !(v.t.kind == PDFTOK_NUM && v.t.num == 0);
}

/* Links draw nothing; other annotations can hold text (poppler draws
 * their appearance). */
static int check_annots(const struct pdfobj *d, const struct pdfval *page)
{
	struct pdfval a, e, st;
	size_t p;
	int ret;

	ret = pdfobj_get(d, page, "Annots", &a);
	if (ret)
		return ret == -ENOENT ? 0 : ret;
	if (a.t.kind != PDFTOK_ARRAY)
		return -ENOTSUP;
	for (p = a.pos; !(ret = pdfobj_next(d, &p, &e));)
		if (e.t.kind != PDFTOK_DICT || pdfobj_get(d, &e, "Subtype", &st) ||
		    !name_is(&st, "Link") || !pdfobj_get(d, &e, "AP", &st))
			return -ENOTSUP;
	return ret == -ENOENT ? 0 : ret;
}

/* The page's content streams, one after the other, into a new buffer. */
static int page_content(const struct pdfobj *d, const struct pdfval *page, struct sbuf *out)
{
	struct pdfval c, s;
	unsigned char *buf;
	size_t n, p;
	int ret;

	sbuf_setlen(out, 0);
	ret = pdfobj_get(d, page, "Contents", &c);
	if (ret)
		return ret == -ENOENT ? 0 : ret;
	if (c.t.kind == PDFTOK_DICT) {
		s = c;
		p = 0;
		goto one;
	}
	if (c.t.kind != PDFTOK_ARRAY)
		return -ENOTSUP;
	for (p = c.pos; !(ret = pdfobj_next(d, &p, &s));) {
one:
		ret = pdfobj_stream(d, &s, STREAM_MAX, &buf, &n);
		if (ret)
			return ret == -EFBIG ? -ENOTSUP : ret;
		ret = sbuf_add(out, buf, n);
		free(buf);
		if (!ret)
			ret = sbuf_addch(out, '\n');
		if (ret || c.t.kind == PDFTOK_DICT)
			return ret;
	}
	return ret == -ENOENT ? 0 : ret;
}

int pdfscan_page(struct pdfscan *sc, uint32_t i, struct pdftext *pt)
{
	const struct extract_limits *lim = sc->ctx->lim;
	const struct page *in = &sc->page[i];
	double media[4], crop[4];
	struct pdfval v;
	int ret;

	if (i >= sc->npages || !in->has_media || read_box(sc->d, &in->media, media))
		return -ENOTSUP;
	memcpy(crop, media, sizeof(crop));
	if (in->has_crop) {
		if (read_box(sc->d, &in->crop, crop))
			return -ENOTSUP;
		crop[0] = fmax(crop[0], media[0]);
		crop[1] = fmax(crop[1], media[1]);
		crop[2] = fmin(crop[2], media[2]);
		crop[3] = fmin(crop[3], media[3]);
	}
	if (in->rotated || !pdfobj_get(sc->d, &in->dict, "UserUnit", &v))
		return -ENOTSUP;
	ret = check_annots(sc->d, &in->dict);
	if (!ret)
		ret = page_content(sc->d, &in->dict, &sc->content);
	if (ret)
		return ret;
	memset(&sc->res, 0, sizeof(sc->res));
	if (in->has_res)
		sc->res = in->res;
	if (sc->res.t.kind && sc->res.t.kind != PDFTOK_DICT)
		return -ENOTSUP;
	sc->pw = crop[2] - crop[0];
	sc->ph = crop[3] - crop[1];
	memset(&sc->gs[0], 0, sizeof(sc->gs[0]));
	sc->gs[0].ctm[0] = 1;
	sc->gs[0].ctm[3] = -1;
	sc->gs[0].ctm[4] = -crop[0];
	sc->gs[0].ctm[5] = crop[3];
	sc->gs[0].th = 1;
	sc->q = 0;
	sc->span = SPAN_NONE;
	sc->tiny = 0;
	memset(&sc->lay, 0, sizeof(sc->lay));
	sbuf_setlen(&sc->text, 0);
	sc->nbox = 0;
	ret = run_content(sc, sc->content.buf, sc->content.len);
	if (!ret)
		ret = end_line(sc);
	if (!ret)
		ret = pdftext_add_page(pt, sc->text.buf, sc->text.len, sc->box, sc->nbox);
	if (!ret && pt->raw.len > lim->max_text_bytes)
		ret = ex_fail(sc->ctx, -EFBIG, "text longer than %llu bytes",
			      (unsigned long long)lim->max_text_bytes);
	return ret;
}

/* Collects the pages under node (at most npages). */
static int walk(struct pdfscan *sc, const struct pdfval *node, struct page in, int depth,
		uint32_t npages)
{
	struct pdfval type, kids, k;
	size_t p;
	int ret;

	/* a node that is its own kid ends at the depth limit, a shared
	 * subtree at the page count: either stops the whole walk */
	if (node->t.kind != PDFTOK_DICT || depth > MAX_TREE ||
	    pdfobj_get(sc->d, node, "Type", &type))
		return -ENOTSUP;
	inherit_from(sc->d, node, &in);
	if (name_is(&type, "Page")) {
		if (sc->npages >= npages)
			return -ENOTSUP;
		in.dict = *node;
		sc->page[sc->npages++] = in;
		return 0;
	}
	if (!name_is(&type, "Pages") || pdfobj_get(sc->d, node, "Kids", &kids) ||
	    kids.t.kind != PDFTOK_ARRAY)
		return -ENOTSUP;
	for (p = kids.pos; !(ret = pdfobj_next(sc->d, &p, &k));) {
		ret = walk(sc, &k, in, depth + 1, npages);
		if (ret)
			return ret;
	}
	return ret == -ENOENT ? 0 : ret;
}

int pdfscan_open(struct ex_ctx *ctx, const void *data, size_t len, uint32_t npages,
		 struct pdfscan **out)
{
	struct pdfscan *sc = calloc(1, sizeof(*sc));
	struct pdfval tr, root, pages;
	struct page in;
	int ret;

	*out = NULL;
	if (!sc)
		return -ENOMEM;
	memset(&in, 0, sizeof(in));
	sbuf_init(&sc->text);
	sbuf_init(&sc->content);
	sc->ctx = ctx;
	sc->fonts = calloc(MAX_FONTS, sizeof(*sc->fonts));
	sc->page = calloc(npages ? npages : 1, sizeof(*sc->page));
	ret = sc->fonts && sc->page ? pdfobj_open(data, len, ctx->lim->max_entries * 64u + 1024, &sc->d)
				    : -ENOMEM;
	if (ret)
		goto fail;
	pdfobj_trailer(sc->d, &tr);
	ret = -ENOTSUP;
	if (pdfobj_get(sc->d, &tr, "Root", &root) || root.t.kind != PDFTOK_DICT ||
	    pdfobj_get(sc->d, &root, "Pages", &pages))
		goto fail;
	ret = walk(sc, &pages, in, 0, npages);
	if (!ret && sc->npages != npages)
		ret = -ENOTSUP;
	if (ret)
		goto fail;
	*out = sc;
	return 0;
fail:
	pdfscan_close(sc);
	return ret;
}

void pdfscan_close(struct pdfscan *sc)
{
	size_t i;

	if (!sc)
		return;
	for (i = 0; sc->fonts && i < sc->nfonts; i++)
		font_release(&sc->fonts[i]);
	free(sc->fonts);
	free(sc->page);
	free(sc->box);
	sbuf_release(&sc->text);
	sbuf_release(&sc->content);
	pdfobj_close(sc->d);
	free(sc);
}
