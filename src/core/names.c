/* names.c - the names-and-numbers sketch (see names.h). */
#include "names.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "grow.h"
#include "norm.h"

#define T_CAP 1u	/* a capital first, inside a sentence */
#define T_LOWER 2u	/* lower case first */
#define T_NUM 4u	/* digits */
#define T_START 8u	/* a capital first at a sentence start */
#define T_LINE 16u	/* first on a line inside a paragraph (verse) */
#define T_ALLCAPS 32u	/* no lower-case letter: emphasis, a heading */
#define T_ROMAN 64u	/* of the letters of roman numerals alone */

struct tok {
	uint64_t h;	/* hash of the lower-cased token */
	uint32_t flags;
	uint32_t num;	/* 1: digits */
};

/* The two key streams of the sketch (names.h): its slots
 * [0, NAMES_NAME_SLOTS) and [NAMES_NAME_SLOTS, NAMES_SLOTS). */
enum { S_NAMES, S_CAPITALS, S_N };

/* A bijective 64-bit mix (the SplitMix64 finaliser). */
static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xBF58476D1CE4E5B9u;
	x ^= x >> 27;
	x *= 0x94D049BB133111EBu;
	return x ^ x >> 31;
}

/* After character c between tokens: whether the next word starts a
 * sentence (after . ! ? : ; an opening or closing quote, a bracket, a dash,
 * a blank line), so that its capital says nothing. */
static void boundary(int32_t c, int *start, int *nl)
{
	switch (c) {
	case ' ': case '\t': case '\r':
		return;		/* most marks between words: nothing changes */
	case '\n':
		if (++*nl >= 2)
			*start = 1;
		return;
	case '.': case '!': case '?': case ':': case ';': case '"': case '\'':
	case '(': case ')': case '[': case ']': case '{': case '}': case '*': case '_':
	case 0x2014: case 0x2013: case 0xAB: case 0xBB: case 0xBF: case 0xA1: case 0x2026:
		*start = 1;
		return;
	case ',': case '-':
		*start = 0;
		return;
	default:
		if (c >= 0x2018 && c <= 0x201F)
			*start = 1;
	}
}

/* Whether letter c is written as a capital (upper or title case). */
static int is_upper(int32_t c)
{
	if (c < 0x80)
		return c >= 'A' && c <= 'Z';
	return utf8proc_category(c) == UTF8PROC_CATEGORY_LU ||
	       utf8proc_category(c) == UTF8PROC_CATEGORY_LT;
}

/* Called for each token in text order: 0 to go on, else the error to stop
 * with. */
typedef int (*tok_fn)(const struct tok *t, void *arg);

/* Calls fn for the tokens of the text in order. */
static int tokenise(const char *s, size_t len, tok_fn fn, void *arg)
{
	size_t i = 0;
	uint64_t h = 0;
	uint32_t flags = 0, ncp = 0, caps = 0;
	int kind = 0;	/* 0 none, 1 letters, 2 digits */
	int start = 1;	/* a word here starts a sentence, a quotation or a paragraph */
	int nl = 0;	/* line ends since the last token or mark */

	while (i <= len) {
		utf8proc_int32_t c = -1;
		utf8proc_ssize_t k = 1;
		int ck = 0;

		if (i < len && (unsigned char)s[i] < 0x80) {
			/* ASCII, most of most books: no table look-ups */
			c = (unsigned char)s[i];
			ck = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ? 1 :
			     c >= '0' && c <= '9' ? 2 : 0;
		} else if (i < len) {
			k = utf8proc_iterate((const utf8proc_uint8_t *)s + i,
					     (utf8proc_ssize_t)(len - i), &c);
			if (k < 1) {
				k = 1;
				c = -1;
			}
		}
		if (c >= 0x80) {
			switch (utf8proc_category(c)) {
			case UTF8PROC_CATEGORY_LU: case UTF8PROC_CATEGORY_LL:
			case UTF8PROC_CATEGORY_LT: case UTF8PROC_CATEGORY_LM:
			case UTF8PROC_CATEGORY_LO: case UTF8PROC_CATEGORY_MN:
			case UTF8PROC_CATEGORY_MC: case UTF8PROC_CATEGORY_ME:
				ck = 1;
				break;
			case UTF8PROC_CATEGORY_ND:
				ck = 2;
				break;
			default:
				break;
			}
		}
		if (kind && ck != kind) {
			/* a single letter (I, A, a) is no name */
			if (kind == 2 || ncp >= 2) {
				struct tok t = { mix(h ^ (uint64_t)kind << 62),
						 flags & T_NUM ? flags : flags | caps, kind == 2 };
				int ret = fn(&t, arg);

				if (ret)
					return ret;
			}
			kind = 0;
			start = nl = 0;
		}
		if (!ck && c >= 0)
			boundary(c, &start, &nl);
		if (ck && !kind) {
			kind = ck;
			h = 0x9E3779B97F4A7C15u;
			ncp = 0;
			caps = T_ALLCAPS | T_ROMAN;
			flags = ck == 2 ? T_NUM : !is_upper(c) ? T_LOWER : start ? T_START : T_CAP;
			if (ck == 1 && nl == 1 && !start)
				flags |= T_LINE;
		}
		if (ck) {
			int32_t lc = c < 0x80 ? (c >= 'A' && c <= 'Z' ? c + 32 : c) : utf8proc_tolower(c);

			if (c < 0x80 ? c >= 'a' && c <= 'z' :
			    utf8proc_category(c) == UTF8PROC_CATEGORY_LL)
				caps = 0;
			else if (c >= 0x80 || !strchr("IVXLCDM", (int)c))
				caps &= ~(uint32_t)T_ROMAN;

			h = (h ^ (uint64_t)(uint32_t)lc) * 0x100000001B3u;
			ncp++;
		}
		i += (size_t)k;
	}
	return 0;
}

/* The occurrences of each distinct token, counted up to NAMES_RARE + 1 in
 * a hash table kept at most half full (linear probing; the token hashes
 * are already mixed).  A book has far fewer distinct words than tokens, so
 * the table stays small. */
struct count {
	uint64_t h;
	uint32_t n;		/* occurrences in any case */
	uint16_t ncap, used;	/* ncap: of them, written with a capital first */
};

struct counts {
	struct count *t;
	size_t cap, used;
	struct tok *keep;	/* the capitalised words and numbers, in order */
	size_t nkeep, kcap;
	size_t nline, nline_cap;	/* words first on a line inside a
					 * paragraph, and of them capitalised */
};

/* The slot of hash h in t (cap - 1 = mask): its own or the empty one where
 * it goes. */
static struct count *count_slot(struct count *t, size_t mask, uint64_t h)
{
	size_t j = (size_t)h & mask;

	while (t[j].used && t[j].h != h)
		j = (j + 1) & mask;
	return &t[j];
}

/* Doubles the table. */
static int count_grow(struct counts *c)
{
	struct count *nt = calloc(c->cap * 2, sizeof(*nt));
	size_t i;

	if (!nt)
		return -ENOMEM;
	for (i = 0; i < c->cap; i++)
		if (c->t[i].used)
			*count_slot(nt, c->cap * 2 - 1, c->t[i].h) = c->t[i];
	free(c->t);
	c->t = nt;
	c->cap *= 2;
	return 0;
}

static int count_tok(const struct tok *t, void *arg)
{
	struct counts *c = arg;
	struct count *e = count_slot(c->t, c->cap - 1, t->h);

	if (!e->used) {
		if (2 * (c->used + 1) > c->cap) {
			if (count_grow(c))
				return -ENOMEM;
			e = count_slot(c->t, c->cap - 1, t->h);
		}
		e->h = t->h;
		e->used = 1;
		c->used++;
	}
	if (e->n <= NAMES_RARE)
		e->n++;
	if ((t->flags & (T_CAP | T_START)) && e->ncap <= NAMES_RARE)
		e->ncap++;
	if (t->flags & T_LINE) {
		c->nline++;
		c->nline_cap += (t->flags & T_CAP) != 0;
	}
	/* a capitalised word or a number: kept in order for the keys, which
	 * need the counts of the whole book first */
	if (t->flags & (T_NUM | T_CAP | T_START)) {
		if (ARRAY_GROW(c->keep, c->kcap, c->nkeep + 1))
			return -ENOMEM;
		c->keep[c->nkeep++] = *t;
	}
	return 0;
}

/* The streams (a bit per enum value) token t of a book (verse: its lines
 * start with capitals) is in, by the rules of names.h: 0 when in none. */
static unsigned stream_bits(const struct tok *t, const struct count *e, int verse)
{
	const unsigned both = 1u << S_NAMES | 1u << S_CAPITALS;

	if (t->num || (t->flags & (T_ALLCAPS | T_ROMAN)) == (T_ALLCAPS | T_ROMAN) ||
	    ((t->flags & T_CAP) && !(t->flags & T_ALLCAPS) && !(verse && (t->flags & T_LINE))))
		return e->n <= NAMES_RARE ? both : 0;
	if (t->flags & T_ALLCAPS)
		return 0;
	/* a capital that says nothing: the stream of every capital only */
	return e->ncap <= NAMES_RARE ? 1u << S_CAPITALS : 0;
}

/* The running state of one key stream. */
struct stream {
	uint64_t prev;
	int have, prev_num;
	uint32_t nkeys;
};

/* Adds token t (num: a number, in digits or roman) to stream st, whose
 * minima are slot[0, n). */
static void stream_add(struct stream *st, const struct tok *t, int num, uint64_t *slot, int n)
{
	uint64_t key, x;
	int k;

	/* two numbers in a row are a list (contents, verses, pages), the
	 * same in many books */
	if (st->have && st->prev != t->h && !(st->prev_num && num)) {
		key = mix(st->prev * 0xC2B2AE3D27D4EB4Fu + t->h);
		st->nkeys++;
		for (k = 0; k < n; k++) {
			x = mix(key + (uint64_t)(k + 1) * 0x9E3779B97F4A7C15u);
			if (x < slot[k])
				slot[k] = x;
		}
	}
	st->prev = t->h;
	st->prev_num = num;
	st->have = 1;
}

int names_sketch(const char *utf8, size_t len, struct names_sketch *out)
{
	static const int first[S_N + 1] = { 0, NAMES_NAME_SLOTS, NAMES_SLOTS };
	struct counts c = { NULL, 4096, 0, NULL, 0, 0, 0, 0 };
	struct stream st[S_N];
	size_t start = 0, end = len, i;
	uint64_t fill;
	unsigned bits;
	int ret, k, s, verse;

	memset(out, 0, sizeof(*out));
	memset(st, 0, sizeof(st));
	norm_strip_gutenberg(utf8, len, &start, &end);
	c.t = calloc(c.cap, sizeof(*c.t));
	if (!c.t)
		return -ENOMEM;
	ret = tokenise(utf8 + start, end - start, count_tok, &c);
	if (ret)
		goto out;
	for (k = 0; k < NAMES_SLOTS; k++)
		out->slot[k] = UINT64_MAX;
	/* verse: most lines start with a capital, which says nothing there
	 * (in prose wrapped in lines, a line starts with any word) */
	verse = c.nline >= NAMES_VERSE_LINES && 2 * c.nline_cap > c.nline;
	for (i = 0; i < c.nkeep; i++) {
		const struct tok *t = &c.keep[i];
		int num = t->num || (t->flags & (T_ALLCAPS | T_ROMAN)) == (T_ALLCAPS | T_ROMAN);

		bits = stream_bits(t, count_slot(c.t, c.cap - 1, t->h), verse);
		for (s = 0; s < S_N; s++)
			if (bits & 1u << s)
				stream_add(&st[s], t, num, out->slot + first[s],
					   first[s + 1] - first[s]);
	}
	for (s = 0; s < S_N; s++)
		if (st[s].nkeys > out->nkeys)
			out->nkeys = st[s].nkeys;
	if (out->nkeys < NAMES_MIN_KEYS) {
		memset(out->slot, 0, sizeof(out->slot));
		goto out;
	}
	/* A stream with too few keys says nothing: its slots get values of
	 * this book's other stream, which another book shares only when it
	 * shares every minimum of that stream. */
	for (s = 0; s < S_N; s++) {
		if (st[s].nkeys >= NAMES_MIN_KEYS)
			continue;
		fill = 0x6E616D65735F6E6Fu;
		for (k = 0; k < NAMES_SLOTS; k++)
			if (k < first[s] || k >= first[s + 1])
				fill = mix(fill ^ out->slot[k]);
		for (k = first[s]; k < first[s + 1]; k++)
			out->slot[k] = mix(fill + (uint64_t)k);
	}
out:
	free(c.t);
	free(c.keep);
	if (ret)
		memset(out, 0, sizeof(*out));
	return ret;
}

unsigned names_shared(const struct names_sketch *a, const struct names_sketch *b)
{
	unsigned k, n = 0;

	if (a->nkeys < NAMES_MIN_KEYS || b->nkeys < NAMES_MIN_KEYS)
		return 0;
	for (k = 0; k < NAMES_SLOTS; k++)
		n += a->slot[k] == b->slot[k];
	return n;
}
