/* pdftext.c - the lines of a PDF's text layer to the text of the book:
 * running headers/footers and page numbers out, hyphenation and paragraphs
 * joined, pages grouped into chunks (rules in pdftext.h).
 */
#include "pdftext.h"
#include "grow.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <utf8proc.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

#define CAND 2			/* candidate lines at each end of a page */
#define RUN_MIN_PAGES 3		/* a running line recurs on this many pages */
#define RUN_NEAR 2		/* ... two of them at most this many pages apart */
#define PAGE_MIN_LINES 8	/* lines that show a page's margins */

void pdftext_init(struct pdftext *pt)
{
	memset(pt, 0, sizeof(*pt));
	sbuf_init(&pt->raw);
}

void pdftext_release(struct pdftext *pt)
{
	sbuf_release(&pt->raw);
	free(pt->lines);
	free(pt->page_first);
	pdftext_init(pt);
}

static int is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* Appends line text[s..e) (boxes b[cs..ce) when b) as a line of page. */
static int add_line(struct pdftext *pt, const char *text, size_t s, size_t e,
		    const struct pdftext_box *b, size_t cs, size_t ce)
{
	struct pdftext_line *l;
	size_t i, k;
	int ret;

	while (s < e && is_space((unsigned char)text[s])) {
		s++;
		cs++;
	}
	while (e > s && is_space((unsigned char)text[e - 1])) {
		e--;
		ce--;
	}
	if (s == e)
		return 0;
	if (ARRAY_GROW(pt->lines, pt->cap, pt->nlines + 1) || sbuf_grow(&pt->raw, e - s))
		return -ENOMEM;
	l = &pt->lines[pt->nlines];
	memset(l, 0, sizeof(*l));
	l->off = pt->raw.len;
	l->len = e - s;
	l->page = pt->npages;
	for (i = s; i < e; i++) {
		unsigned char c = (unsigned char)text[i];

		ret = sbuf_addch(&pt->raw, c < 0x20 ? ' ' : (char)c);
		if (ret)
			return ret;
		l->nchars += (c & 0xC0) != 0x80;
	}
	if (b && ce > cs) {
		l->geom = 1;
		l->x1 = b[cs].x1;
		l->x2 = b[ce - 1].x2;
		l->y1 = b[cs].y1;
		l->y2 = b[cs].y2;
		for (k = cs; k < ce; k++) {
			if (b[k].y1 < l->y1)
				l->y1 = b[k].y1;
			if (b[k].y2 > l->y2)
				l->y2 = b[k].y2;
		}
	}
	pt->nlines++;
	return 0;
}

int pdftext_add_page(struct pdftext *pt, const char *text, size_t len,
		     const struct pdftext_box *boxes, size_t nboxes)
{
	size_t i, s = 0, cp = 0, cs = 0, nch = 0;
	int ret;

	for (i = 0; i < len; i++)
		nch += ((unsigned char)text[i] & 0xC0) != 0x80;
	if (nch != nboxes)
		boxes = NULL;
	if (ARRAY_GROW(pt->page_first, pt->pcap, (size_t)pt->npages + 2))
		return -ENOMEM;
	pt->page_first[pt->npages] = pt->nlines;
	for (i = 0; i <= len; i++) {
		if (i == len || text[i] == '\n') {
			ret = add_line(pt, text, s, i, boxes, cs, cp);
			if (ret) {
				pt->nlines = pt->page_first[pt->npages];
				return ret;
			}
			s = i + 1;
			cs = cp + 1;
		}
		if (i < len && ((unsigned char)text[i] & 0xC0) != 0x80)
			cp++;
	}
	pt->npages++;
	pt->page_first[pt->npages] = pt->nlines;
	return 0;
}

static const char *line_text(const struct pdftext *pt, const struct pdftext_line *l)
{
	return pt->raw.buf + l->off;
}

/* Value of a canonical roman numeral (one case), or 0. */
static int roman_value(const char *s, size_t n)
{
	static const char *const enc[] = { "m", "cm", "d", "cd", "c", "xc", "l", "xl",
					   "x", "ix", "v", "iv", "i" };
	static const int val[] = { 1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1 };
	char low[16], canon[48];
	size_t i, o = 0;
	int v = 0, upper = s[0] >= 'A' && s[0] <= 'Z', k, x;

	if (!n || n >= sizeof(low))
		return 0;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if ((c >= 'A' && c <= 'Z') != upper)
			return 0;
		low[i] = upper ? (char)(c + 32) : c;
		if (!strchr("ivxlcdm", low[i]))
			return 0;
	}
	for (i = 0; i < n; i++) {
		int a = 0, b = 0;

		for (k = 0; k < 13; k++) {
			if (enc[k][0] == low[i] && !enc[k][1])
				a = val[k];
			if (i + 1 < n && enc[k][0] == low[i + 1] && !enc[k][1])
				b = val[k];
		}
		v += a < b ? -a : a;
	}
	if (v <= 0 || v >= 4000)
		return 0;
	for (x = v, k = 0; k < 13; k++)
		for (; x >= val[k]; x -= val[k]) {
			size_t m = strlen(enc[k]);

			memcpy(canon + o, enc[k], m);
			o += m;
		}
	return o == n && !memcmp(canon, low, n) ? v : 0;
}

static int is_page_number(const char *s, size_t n)
{
	size_t a = 0, b = n, i;

	while (a < b && strchr(" -[]()", s[a]))
		a++;
	while (b > a && strchr(" -[]().", s[b - 1]))
		b--;
	if (a == b)
		return 0;
	for (i = a; i < b && s[i] >= '0' && s[i] <= '9'; i++)
		;
	if (i == b)
		return b - a <= 5;
	return roman_value(s + a, b - a) > 0;
}

/* The key of a candidate line (rules in pdftext.h), 0 when it is none. */
static uint64_t line_key(const char *s, size_t n)
{
	char k[PDFTEXT_MAX_RUNNING];
	size_t i, o = 0;

	if (n >= sizeof(k))
		return 0;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (c >= '0' && c <= '9') {
			if (!o || k[o - 1] != '#')
				k[o++] = '#';
			continue;
		}
		k[o++] = c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
	}
	return XXH3_64bits(k, o) | 1;
}

struct cand {
	uint64_t key;
	uint32_t page;
	uint32_t where;		/* 0 top, 1 bottom */
};

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->where != y->where)
		return x->where < y->where ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->page < y->page ? -1 : x->page > y->page;
}

/* The key of line li if it is a candidate at the end where, else 0. */
static uint64_t cand_key(const struct pdftext *pt, size_t li)
{
	const struct pdftext_line *l = &pt->lines[li];

	return line_key(line_text(pt, l), l->len);
}

/* Sorted keys that are running: c[] with key 0 for the rest. */
static void mark_running(struct cand *c, size_t n)
{
	size_t i = 0, j, k;

	while (i < n) {
		size_t near = 0;

		for (j = i + 1; j < n && c[j].where == c[i].where && c[j].key == c[i].key; j++)
			;
		/* page numbers can repeat inside a group: count distinct pages */
		for (k = i + 1; k < j; k++)
			if (c[k].page != c[k - 1].page && c[k].page - c[k - 1].page <= RUN_NEAR)
				near++;
		if (j - i < RUN_MIN_PAGES || !near)
			for (k = i; k < j; k++)
				c[k].key = 0;
		i = j;
	}
}

static int is_running(const struct cand *c, size_t n, uint32_t where, uint64_t key)
{
	size_t lo = 0, hi = n;

	if (!key)
		return 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		struct cand m = { key, 0, where };

		if (cand_cmp(&c[mid], &m) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && c[lo].where == where && c[lo].key == key;
}

/* Drops running lines and page numbers at both ends of every page. */
static int drop_running(struct pdftext *pt)
{
	struct cand *c = NULL, *r;
	size_t n = 0, cap = 0, nr = 0, i;
	uint32_t p, w;
	int ret = 0;

	for (p = 0; p < pt->npages; p++) {
		size_t a = pt->page_first[p], b = pt->page_first[p + 1], k;

		for (k = 0; k < CAND && a + k < b; k++) {
			size_t li[2] = { a + k, b - 1 - k };

			for (w = 0; w < 2; w++) {
				uint64_t key = cand_key(pt, li[w]);

				if (!key)
					continue;
				if (ARRAY_GROW(c, cap, n + 1)) {
					ret = -ENOMEM;
					goto out;
				}
				c[n++] = (struct cand){ key, p, w };
			}
		}
	}
	if (n)
		qsort(c, n, sizeof(*c), cand_cmp);
	mark_running(c, n);
	/* keep the running keys only, in order, for the binary search */
	for (r = c, i = 0; i < n; i++)
		if (c[i].key)
			r[nr++] = c[i];
	for (p = 0; p < pt->npages; p++) {
		size_t a = pt->page_first[p], b = pt->page_first[p + 1], k;

		for (w = 0; w < 2; w++)
			for (k = 0; k < CAND && a + k < b; k++) {
				struct pdftext_line *l = &pt->lines[w ? b - 1 - k : a + k];

				if (l->drop || (!is_page_number(line_text(pt, l), l->len) &&
						!is_running(r, nr, w, cand_key(pt, (size_t)(l - pt->lines)))))
					break;
				l->drop = 1;
			}
	}
out:
	free(c);
	return ret;
}

/* Hashes of the hyphenated words written inside lines ("navy-crowded"),
 * lower-cased (ASCII), sorted. */
struct compounds {
	uint64_t *h;
	size_t n, cap;
};

static uint64_t word_hash(const char *a, size_t na, const char *b, size_t nb)
{
	char buf[128];
	size_t i, o = 0;

	if (na + nb + 1 > sizeof(buf))
		return 0;
	for (i = 0; i < na; i++)
		buf[o++] = a[i] >= 'A' && a[i] <= 'Z' ? (char)(a[i] + 32) : a[i];
	buf[o++] = '-';
	for (i = 0; i < nb; i++)
		buf[o++] = b[i] >= 'A' && b[i] <= 'Z' ? (char)(b[i] + 32) : b[i];
	return XXH3_64bits(buf, o);
}

static int is_wordch(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80 || c == '\'';
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int collect_compounds(const struct pdftext *pt, struct compounds *cp)
{
	size_t li, i;

	for (li = 0; li < pt->nlines; li++) {
		const struct pdftext_line *l = &pt->lines[li];
		const char *s = line_text(pt, l);

		if (l->drop)
			continue;
		for (i = 1; i + 1 < l->len; i++) {
			size_t a = i, b = i + 1;

			if (s[i] != '-' || !is_wordch((unsigned char)s[i - 1]) ||
			    !is_wordch((unsigned char)s[i + 1]))
				continue;
			while (a > 0 && is_wordch((unsigned char)s[a - 1]))
				a--;
			while (b < l->len && is_wordch((unsigned char)s[b]))
				b++;
			if (ARRAY_GROW(cp->h, cp->cap, cp->n + 1))
				return -ENOMEM;
			cp->h[cp->n++] = word_hash(s + a, i - a, s + i + 1, b - i - 1);
		}
	}
	if (cp->n)
		qsort(cp->h, cp->n, sizeof(*cp->h), u64_cmp);
	return 0;
}

static int has_compound(const struct compounds *cp, uint64_t h)
{
	return h && cp->n && bsearch(&h, cp->h, cp->n, sizeof(*cp->h), u64_cmp);
}

/* The code point before byte e of s (or -1) and where it starts. */
static int32_t last_cp(const char *s, size_t e, size_t *start)
{
	size_t b = e;
	utf8proc_int32_t c = -1;

	while (b > 0 && ((unsigned char)s[b - 1] & 0xC0) == 0x80 && e - b < 4)
		b--;
	if (b == 0)
		return -1;
	b--;
	if (utf8proc_iterate((const utf8proc_uint8_t *)s + b, (utf8proc_ssize_t)(e - b), &c) < 0)
		return -1;
	*start = b;
	return c;
}

static int is_letter(int32_t c)
{
	utf8proc_category_t k;

	if (c < 0)
		return 0;
	k = utf8proc_category(c);
	return k == UTF8PROC_CATEGORY_LU || k == UTF8PROC_CATEGORY_LL ||
	       k == UTF8PROC_CATEGORY_LT || k == UTF8PROC_CATEGORY_LO;
}

/* How line a joins line b of the same paragraph. */
enum join { JOIN_SPACE, JOIN_TIGHT, JOIN_DEHYPHEN };

static enum join join_kind(const struct pdftext *pt, const struct compounds *cp,
			   const struct pdftext_line *a, const struct pdftext_line *b,
			   size_t *hylen)
{
	const char *s = line_text(pt, a), *t = line_text(pt, b);
	size_t hs = 0, ls = 0, ws, we;
	int32_t hy = last_cp(s, a->len, &hs), prev, next = -1;

	*hylen = a->len - hs;
	if (hy == 0xAD)
		return JOIN_DEHYPHEN;
	utf8proc_iterate((const utf8proc_uint8_t *)t, (utf8proc_ssize_t)b->len, &next);
	/* a dash cut by the line end: "dawn-" "-streamed", "subtlety--" "their" */
	if (next == '-' || next == 0x2014 || next == 0x2013 || hy == 0x2014 || hy == 0x2013)
		return JOIN_TIGHT;
	if (hy != '-' && hy != 0x2010)
		return JOIN_SPACE;
	prev = last_cp(s, hs, &ls);
	if (prev == '-')
		return JOIN_TIGHT;
	if (!is_letter(prev) || !is_letter(next))
		return JOIN_SPACE;
	if (utf8proc_category(next) != UTF8PROC_CATEGORY_LL)
		return JOIN_TIGHT;
	for (ws = hs; ws > 0 && is_wordch((unsigned char)s[ws - 1]); ws--)
		;
	for (we = 0; we < b->len && is_wordch((unsigned char)t[we]); we++)
		;
	return has_compound(cp, word_hash(s + ws, hs - ws, t, we)) ? JOIN_TIGHT : JOIN_DEHYPHEN;
}

/* Page statistics for the paragraph rules. */
struct pstat {
	double left, right, pitch;
	size_t maxchars;
};

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Margins of page p from its own lines: 1 when it has enough of them to
 * tell (PAGE_MIN_LINES with boxes), else 0. */
static int page_margins(const struct pdftext *pt, uint32_t p, double *left, double *right)
{
	size_t a = pt->page_first[p], b = pt->page_first[p + 1], i, n = 0;

	for (i = a; i < b; i++) {
		const struct pdftext_line *l = &pt->lines[i];

		if (l->drop || !l->geom)
			continue;
		if (!n || l->x1 < *left)
			*left = l->x1;
		if (!n || l->x2 > *right)
			*right = l->x2;
		n++;
	}
	return n >= PAGE_MIN_LINES;
}

/* The median margins of the pages that tell them, for the pages that do
 * not (a chapter's last lines, a title page). */
static int doc_margins(const struct pdftext *pt, struct pstat *doc)
{
	double *l = NULL, *r = NULL;
	size_t n = 0;
	uint32_t p;
	int ret = 0;

	memset(doc, 0, sizeof(*doc));
	if (!pt->npages)
		return 0;
	l = malloc(pt->npages * sizeof(*l));
	r = malloc(pt->npages * sizeof(*r));
	if (!l || !r) {
		ret = -ENOMEM;
		goto out;
	}
	for (p = 0; p < pt->npages; p++)
		n += page_margins(pt, p, &l[n], &r[n]);
	if (n) {
		qsort(l, n, sizeof(*l), dbl_cmp);
		qsort(r, n, sizeof(*r), dbl_cmp);
		doc->left = l[n / 2];
		doc->right = r[n / 2];
	}
out:
	free(l);
	free(r);
	return ret;
}

static int page_stat(const struct pdftext *pt, uint32_t p, const struct pstat *doc,
		     struct pstat *st)
{
	size_t a = pt->page_first[p], b = pt->page_first[p + 1], i, n = 0;
	double *dy = NULL;

	memset(st, 0, sizeof(*st));
	if (!page_margins(pt, p, &st->left, &st->right) && doc->right > doc->left) {
		st->left = doc->left;
		st->right = doc->right;
	}
	if (b > a && !(dy = malloc((b - a) * sizeof(*dy))))
		return -ENOMEM;
	for (i = a; i < b; i++) {
		const struct pdftext_line *l = &pt->lines[i], *m = l + 1;

		if (l->drop)
			continue;
		if (l->nchars > st->maxchars)
			st->maxchars = l->nchars;
		if (l->geom && i + 1 < b && m->geom && !m->drop && m->y1 > l->y1 &&
		    m->y1 - l->y1 < 3 * (l->y2 - l->y1))
			dy[n++] = m->y1 - l->y1;
	}
	if (n) {
		qsort(dy, n, sizeof(*dy), dbl_cmp);
		st->pitch = dy[n / 2];
	}
	free(dy);
	return 0;
}

static int ends_sentence(const char *s, size_t n)
{
	size_t k;
	int32_t c;

	while (n > 0) {
		c = last_cp(s, n, &k);
		if (c == '"' || c == '\'' || c == ')' || c == 0x201D || c == 0x2019 || c == 0xBB) {
			n = k;
			continue;
		}
		return c == '.' || c == '!' || c == '?' || c == ':' || c == 0x2026;
	}
	return 0;
}

/* 1 if line a (page statistics sa) ends its paragraph before line b (sb). */
static int para_break(const struct pdftext *pt, const struct pdftext_line *a,
		      const struct pstat *sa, const struct pdftext_line *b,
		      const struct pstat *sb)
{
	int sent = ends_sentence(line_text(pt, a), a->len);
	double w = sa->right - sa->left, h = a->y2 - a->y1, ind;

	if (!a->geom || !b->geom || w <= 0) {
		if (!sa->maxchars)
			return 1;
		return (sent && a->nchars * 5 < sa->maxchars * 4) || a->nchars * 2 < sa->maxchars;
	}
	if (a->x2 < sa->right - w / 4 || (sent && a->x2 < sa->right - w * 0.08))
		return 1;
	ind = w * 0.02 > h / 2 ? w * 0.02 : h / 2;
	if (b->page == a->page) {
		if (sa->pitch > 0 && b->y1 - a->y1 > 1.5 * sa->pitch)
			return 1;
		return b->x1 > a->x1 + ind && b->x1 > sb->left + ind;
	}
	return b->x1 > sb->left + ind;
}

struct emit {
	struct sbuf *out;
	size_t *off;
	size_t n, cap;
	size_t chunk_start;
	uint32_t chunk_page;
};

/* Starts a paragraph at line l: separator, and a chunk when due. */
static int emit_para(struct emit *e, const struct pdftext_line *l, size_t chunk_bytes)
{
	int ret;

	if (e->n && e->out->len) {
		ret = sbuf_add(e->out, "\n\n", 2);
		if (ret)
			return ret;
	}
	if (!e->n || (l->page != e->chunk_page && e->out->len - e->chunk_start >= chunk_bytes)) {
		if (ARRAY_GROW(e->off, e->cap, e->n + 1))
			return -ENOMEM;
		e->off[e->n++] = e->out->len;
		e->chunk_start = e->out->len;
		e->chunk_page = l->page;
	}
	return 0;
}

static int emit_all(const struct pdftext *pt, const struct compounds *cp, size_t chunk_bytes,
		    struct emit *e)
{
	const struct pdftext_line *prev = NULL;
	struct pstat st[2], doc;	/* the pages of prev and of the current line */
	uint32_t p;
	size_t i;
	int ret;

	memset(st, 0, sizeof(st));
	ret = doc_margins(pt, &doc);
	for (p = 0; !ret && p < pt->npages; p++) {
		st[0] = st[1];
		ret = page_stat(pt, p, &doc, &st[1]);
		for (i = pt->page_first[p]; !ret && i < pt->page_first[p + 1]; i++) {
			const struct pdftext_line *l = &pt->lines[i];
			const char *s = line_text(pt, l);
			enum join j;
			size_t hylen;

			if (l->drop)
				continue;
			if (!prev || para_break(pt, prev, &st[prev->page == p ? 1 : 0], l, &st[1])) {
				ret = emit_para(e, l, chunk_bytes);
			} else {
				j = join_kind(pt, cp, prev, l, &hylen);
				if (j == JOIN_DEHYPHEN)
					sbuf_setlen(e->out, e->out->len - hylen);
				else if (j == JOIN_SPACE)
					ret = sbuf_addch(e->out, ' ');
			}
			if (!ret)
				ret = sbuf_add(e->out, s, l->len);
			prev = l;
		}
	}
	return ret;
}

int pdftext_finish(struct pdftext *pt, size_t chunk_bytes, struct sbuf *out,
		   size_t **chunk_off, size_t *nchunks)
{
	struct compounds cp = { 0 };
	struct emit e = { 0 };
	size_t len0 = out->len;
	int ret;

	e.out = out;
	ret = drop_running(pt);
	if (!ret)
		ret = collect_compounds(pt, &cp);
	if (!ret)
		ret = emit_all(pt, &cp, chunk_bytes, &e);
	free(cp.h);
	if (ret) {
		free(e.off);
		sbuf_setlen(out, len0);
		return ret;
	}
	*chunk_off = e.off;
	*nchunks = e.n;
	return 0;
}
