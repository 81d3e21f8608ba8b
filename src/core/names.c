/* names.c - the names-and-numbers sketch (see names.h). */
#include "names.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "grow.h"
#include "norm.h"
#include "nouns.h"

#define T_CAP 1u	/* a capital first, inside a sentence */
#define T_LOWER 2u	/* lower case first */
#define T_NUM 4u	/* digits */
#define T_START 8u	/* a capital first at a sentence start */
#define T_LINE 16u	/* first on a line inside a paragraph (verse) */
#define T_ALLCAPS 32u	/* no lower-case letter: emphasis, a heading */
#define T_ROMAN 64u	/* of the letters of roman numerals alone */

struct tok {
	uint64_t h;	/* hash of the lower-cased token */
	uint32_t off;	/* its first byte in the text */
	uint16_t len;	/* its bytes (UINT16_MAX: as many or more) */
	uint16_t flags;	/* T_NUM: digits */
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

/* The occurrences of each distinct token, counted up to NAMES_RARE + 1 in
 * a hash table kept at most half full (linear probing; the token hashes
 * are already mixed).  A book has far fewer distinct words than tokens, so
 * the table stays small, but not small enough for the first level cache:
 * tokens wait in a batch whose slots are prefetched before they are
 * counted, so that the cache misses overlap.  The hashes and the counts
 * are apart (a count n of 0: an empty slot), 10 bytes a slot: fewer fresh
 * pages, whose faults cost more than the counting. */
#define BATCH 64

struct count {
	uint8_t n;	/* occurrences in any case */
	uint8_t ncap;	/* of them, written with a capital first; and
			 * C_NOUN for a common noun (nouns.h) */
};

#define C_NOUN 0x80u	/* above any count (NAMES_RARE + 1 at most) */

struct counts {
	uint64_t *h;		/* cap hashes, set where n is not 0 */
	struct count *n;	/* cap counts */
	size_t cap, used;
	struct tok *keep;	/* the capitalised words and numbers, in order */
	size_t nkeep, kcap;
	size_t nline, nline_cap;	/* words first on a line inside a
					 * paragraph, and of them capitalised */
	size_t nword, ncap_mid, ncap_line;	/* words; of them with a capital
						 * inside a sentence, not first on
						 * a line and first on a line */
	struct nouns_tok *all;	/* every token, when collect is set */
	size_t nall, acap;
	int collect, verse;	/* the second reading; in verse */
	struct tok batch[BATCH];
	size_t nbatch;
};

/* The slot of hash h (mask = cap - 1): its own or the empty one where it
 * goes. */
static size_t count_slot(const uint64_t *hs, const struct count *ns, size_t mask, uint64_t h)
{
	size_t j = (size_t)h & mask;

	while (ns[j].n && hs[j] != h)
		j = (j + 1) & mask;
	return j;
}

/* Allocates the arrays of a table of cap slots, all empty. */
static int count_alloc(struct counts *c, size_t cap)
{
	c->h = malloc(cap * sizeof(*c->h));
	c->n = calloc(cap, sizeof(*c->n));
	c->cap = cap;
	return c->h && c->n ? 0 : -ENOMEM;
}

/* Doubles the table. */
static int count_grow(struct counts *c)
{
	struct counts o = *c;
	size_t i, j;

	if (count_alloc(c, o.cap * 2)) {
		free(c->h);
		free(c->n);
		c->h = o.h;
		c->n = o.n;
		c->cap = o.cap;
		return -ENOMEM;
	}
	for (i = 0; i < o.cap; i++)
		if (o.n[i].n) {
			j = count_slot(c->h, c->n, c->cap - 1, o.h[i]);
			c->h[j] = o.h[i];
			c->n[j] = o.n[i];
		}
	free(o.h);
	free(o.n);
	return 0;
}

/* Whether a token is kept, in text order, as a candidate for the keys: a
 * capitalised word or a number.  Whether it is rare, and in which stream,
 * is known only once the whole book is counted (names_sketch()). */
static int names_keep(const struct tok *t)
{
	return (t->flags & (T_NUM | T_CAP | T_START)) != 0;
}

static int count_tok(struct counts *c, const struct tok *t)
{
	size_t j = count_slot(c->h, c->n, c->cap - 1, t->h);
	struct count *e;

	if (!c->n[j].n) {
		if (2 * (c->used + 1) > c->cap) {
			if (count_grow(c))
				return -ENOMEM;
			j = count_slot(c->h, c->n, c->cap - 1, t->h);
		}
		c->h[j] = t->h;
		c->used++;
	}
	e = &c->n[j];
	if (e->n <= NAMES_RARE)
		e->n++;
	if ((t->flags & (T_CAP | T_START)) && e->ncap <= NAMES_RARE)
		e->ncap++;
	if (t->flags & T_LINE) {
		c->nline++;
		c->nline_cap += (t->flags & T_CAP) != 0;
	}
	c->nword += !(t->flags & T_NUM);
	if ((t->flags & (T_CAP | T_ALLCAPS)) == T_CAP) {
		c->ncap_mid += !(t->flags & T_LINE);
		c->ncap_line += (t->flags & T_LINE) != 0;
	}
	if (names_keep(t)) {
		if (ARRAY_GROW(c->keep, c->kcap, c->nkeep + 1))
			return -ENOMEM;
		c->keep[c->nkeep++] = *t;
	}
	return 0;
}

/* Keeps the batched tokens in c->all (the second reading, nouns.h). */
static int collect_flush(struct counts *c)
{
	size_t i;

	if (ARRAY_GROW(c->all, c->acap, c->nall + c->nbatch))
		return -ENOMEM;
	for (i = 0; i < c->nbatch; i++) {
		const struct tok *t = &c->batch[i];
		struct nouns_tok *a = &c->all[c->nall++];

		a->h = t->h;
		a->off = t->off;
		a->len = t->len;
		a->cls = t->flags & T_LOWER ? NOUNS_LOWER :
			 (t->flags & (T_CAP | T_ALLCAPS)) == T_CAP &&
			 !(c->verse && (t->flags & T_LINE)) ? NOUNS_CAP : NOUNS_OTHER;
	}
	c->nbatch = 0;
	return 0;
}

/* Counts the batched tokens, in order. */
static int count_flush(struct counts *c)
{
	size_t i, j, mask = c->cap - 1;
	int ret = 0;

	if (c->collect)
		return collect_flush(c);
	for (i = 0; i < c->nbatch; i++) {
		j = (size_t)c->batch[i].h & mask;
		__builtin_prefetch(&c->h[j]);
		__builtin_prefetch(&c->n[j]);
	}
	for (i = 0; i < c->nbatch && !ret; i++)
		ret = count_tok(c, &c->batch[i]);
	c->nbatch = 0;
	return ret;
}

#define TOK_SEED 0x9E3779B97F4A7C15u
#define TOK_MUL 0x100000001B3u

/* The tokeniser between two characters. */
struct scan {
	uint64_t h;	/* the current token's hash so far */
	uint32_t flags, caps, ncp;	/* caps: T_ALLCAPS and T_ROMAN while
					 * its letters allow them */
	int kind;	/* of the current token: 0 none, 1 letters, 2 digits */
	int start;	/* a word here starts a sentence, a quotation or a paragraph */
	int nl;		/* line ends since the last token or mark */
	size_t pos, off;	/* where the scanner is; where the token began */
};

/* Ends the current token of sc (kind != 0): a single letter (I, A, a) is
 * no name. */
static inline int scan_end(struct scan *sc, struct counts *cs)
{
	int ret = 0;

	if (sc->kind == 2 || sc->ncp >= 2) {
		struct tok *t = &cs->batch[cs->nbatch++];

		t->h = mix(sc->h ^ (uint64_t)sc->kind << 62);
		t->flags = (uint16_t)(sc->kind == 2 ? sc->flags : sc->flags | sc->caps);
		t->off = (uint32_t)sc->off;
		t->len = sc->pos - sc->off < UINT16_MAX ? (uint16_t)(sc->pos - sc->off) : UINT16_MAX;
		if (cs->nbatch == BATCH)
			ret = count_flush(cs);
	}
	sc->kind = 0;
	sc->start = sc->nl = 0;
	return ret;
}

/* The flags of a token of kind ck that starts with a capital or not
 * (upper), where the scanner's start and nl are. */
static inline uint32_t scan_flags(int ck, int upper, int start, int nl)
{
	uint32_t f = ck == 2 ? T_NUM : !upper ? T_LOWER : start ? T_START : T_CAP;

	if (ck == 1 && nl == 1 && !start)
		f |= T_LINE;
	return f;
}

/* One character that is not ASCII: c, or -1 for an invalid byte. */
static int scan_other(struct scan *sc, struct counts *cs, int32_t c)
{
	int ck = 0, ret;

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
	if (sc->kind && ck != sc->kind && (ret = scan_end(sc, cs)))
		return ret;
	if (!ck) {
		if (c >= 0)
			boundary(c, &sc->start, &sc->nl);
		return 0;
	}
	if (!sc->kind) {
		sc->kind = ck;
		sc->off = sc->pos;
		sc->h = TOK_SEED;
		sc->ncp = 0;
		sc->caps = T_ALLCAPS | T_ROMAN;
		sc->flags = scan_flags(ck, is_upper(c), sc->start, sc->nl);
	}
	if (utf8proc_category(c) == UTF8PROC_CATEGORY_LL)
		sc->caps = 0;
	else
		sc->caps &= ~(uint32_t)T_ROMAN;
	sc->h = (sc->h ^ (uint64_t)(uint32_t)utf8proc_tolower(c)) * TOK_MUL;
	sc->ncp++;
	return 0;
}

/* ASCII bytes: a letter or a digit (the kind of their token), or what
 * boundary() does for them. */
enum { A_NONE, A_LETTER, A_DIGIT, A_NL, A_START, A_RESET };

static const unsigned char ascii_cls[128] = {
	['0'] = A_DIGIT, ['1'] = A_DIGIT, ['2'] = A_DIGIT, ['3'] = A_DIGIT, ['4'] = A_DIGIT,
	['5'] = A_DIGIT, ['6'] = A_DIGIT, ['7'] = A_DIGIT, ['8'] = A_DIGIT, ['9'] = A_DIGIT,
	['a'] = A_LETTER, ['b'] = A_LETTER, ['c'] = A_LETTER, ['d'] = A_LETTER,
	['e'] = A_LETTER, ['f'] = A_LETTER, ['g'] = A_LETTER, ['h'] = A_LETTER,
	['i'] = A_LETTER, ['j'] = A_LETTER, ['k'] = A_LETTER, ['l'] = A_LETTER,
	['m'] = A_LETTER, ['n'] = A_LETTER, ['o'] = A_LETTER, ['p'] = A_LETTER,
	['q'] = A_LETTER, ['r'] = A_LETTER, ['s'] = A_LETTER, ['t'] = A_LETTER,
	['u'] = A_LETTER, ['v'] = A_LETTER, ['w'] = A_LETTER, ['x'] = A_LETTER,
	['y'] = A_LETTER, ['z'] = A_LETTER,
	['A'] = A_LETTER, ['B'] = A_LETTER, ['C'] = A_LETTER, ['D'] = A_LETTER,
	['E'] = A_LETTER, ['F'] = A_LETTER, ['G'] = A_LETTER, ['H'] = A_LETTER,
	['I'] = A_LETTER, ['J'] = A_LETTER, ['K'] = A_LETTER, ['L'] = A_LETTER,
	['M'] = A_LETTER, ['N'] = A_LETTER, ['O'] = A_LETTER, ['P'] = A_LETTER,
	['Q'] = A_LETTER, ['R'] = A_LETTER, ['S'] = A_LETTER, ['T'] = A_LETTER,
	['U'] = A_LETTER, ['V'] = A_LETTER, ['W'] = A_LETTER, ['X'] = A_LETTER,
	['Y'] = A_LETTER, ['Z'] = A_LETTER,
	['\n'] = A_NL,
	['.'] = A_START, ['!'] = A_START, ['?'] = A_START, [':'] = A_START,
	[';'] = A_START, ['"'] = A_START, ['\''] = A_START, ['('] = A_START,
	[')'] = A_START, ['['] = A_START, [']'] = A_START, ['{'] = A_START,
	['}'] = A_START, ['*'] = A_START, ['_'] = A_START,
	[','] = A_RESET, ['-'] = A_RESET,
};

/* What an ASCII letter or digit leaves of a token's T_ALLCAPS | T_ROMAN:
 * nothing after a lower-case letter, T_ROMAN only after I V X L C D M. */
#define AC T_ALLCAPS
#define AR (T_ALLCAPS | T_ROMAN)
static const unsigned char ascii_caps[128] = {
	['0'] = AC, ['1'] = AC, ['2'] = AC, ['3'] = AC, ['4'] = AC,
	['5'] = AC, ['6'] = AC, ['7'] = AC, ['8'] = AC, ['9'] = AC,
	['A'] = AC, ['B'] = AC, ['C'] = AR, ['D'] = AR, ['E'] = AC, ['F'] = AC,
	['G'] = AC, ['H'] = AC, ['I'] = AR, ['J'] = AC, ['K'] = AC, ['L'] = AR,
	['M'] = AR, ['N'] = AC, ['O'] = AC, ['P'] = AC, ['Q'] = AC, ['R'] = AC,
	['S'] = AC, ['T'] = AC, ['U'] = AC, ['V'] = AR, ['W'] = AC, ['X'] = AR,
	['Y'] = AC, ['Z'] = AC,
};
#undef AC
#undef AR

/* Counts the tokens of the text in order: a token's hash is over its
 * lower-cased code points; its flags say whether it is a number, how its
 * first letter is written and where (a sentence start, a line start), and
 * whether it is all capitals or of roman numerals' letters.  ASCII, most
 * of most books, is read with the state in locals and a token's run at a
 * time; the rest a code point at a time. */
static int tokenise(const char *s, size_t len, struct counts *cs)
{
	const unsigned char *p = (const unsigned char *)s;
	struct scan sc = { 0, 0, 0, 0, 0, 1, 0, 0, 0 };
	uint64_t h = 0;
	uint32_t flags = 0, caps = 0, ncp = 0;
	int kind = 0, start = 1, nl = 0, ret;
	size_t i = 0, toff = 0;

#define SCAN_SAVE() (sc.h = h, sc.flags = flags, sc.caps = caps, sc.ncp = ncp, \
		     sc.kind = kind, sc.start = start, sc.nl = nl, sc.pos = i, sc.off = toff)
#define SCAN_LOAD() (h = sc.h, flags = sc.flags, caps = sc.caps, ncp = sc.ncp, \
		     kind = sc.kind, start = sc.start, nl = sc.nl, toff = sc.off)
	while (i < len) {
		unsigned b = p[i], a;

		if (b >= 0x80) {
			utf8proc_int32_t c;
			utf8proc_ssize_t k = utf8proc_iterate(p + i, (utf8proc_ssize_t)(len - i), &c);

			if (k < 1) {
				k = 1;
				c = -1;
			}
			SCAN_SAVE();
			ret = scan_other(&sc, cs, c);
			if (ret)
				return ret;
			SCAN_LOAD();
			i += (size_t)k;
			continue;
		}
		a = ascii_cls[b];
		if ((int)a != kind && kind) {
			SCAN_SAVE();
			ret = scan_end(&sc, cs);
			if (ret)
				return ret;
			kind = 0;
			start = nl = 0;
		}
		if (a != A_LETTER && a != A_DIGIT) {
			if (a == A_NL && ++nl >= 2)
				start = 1;
			else if (a == A_START)
				start = 1;
			else if (a == A_RESET)
				start = 0;
			i++;
			continue;
		}
		if (!kind) {
			kind = (int)a;
			toff = i;
			h = TOK_SEED;
			ncp = 0;
			caps = T_ALLCAPS | T_ROMAN;
			flags = scan_flags(kind, b <= 'Z', start, nl);
		}
		{
			uint64_t fold = a == A_LETTER ? 0x20 : 0;

			do {
				h = (h ^ (b | fold)) * TOK_MUL;
				caps &= ascii_caps[b];
				ncp++;
			} while (++i < len && (b = p[i]) < 0x80 && ascii_cls[b] == a);
		}
	}
#undef SCAN_SAVE
#undef SCAN_LOAD
	if (kind) {
		sc.h = h, sc.flags = flags, sc.caps = caps, sc.ncp = ncp, sc.kind = kind;
		sc.pos = len, sc.off = toff;
		if ((ret = scan_end(&sc, cs)))
			return ret;
	}
	return count_flush(cs);
}

/* The streams (a bit per enum value) token t of a book (verse: its lines
 * start with capitals) is in, by the rules of names.h: 0 when in none. */
static unsigned stream_bits(const struct tok *t, struct count e, int verse)
{
	const unsigned both = 1u << S_NAMES | 1u << S_CAPITALS;

	if ((t->flags & T_NUM) || (t->flags & (T_ALLCAPS | T_ROMAN)) == (T_ALLCAPS | T_ROMAN) ||
	    ((t->flags & T_CAP) && !(t->flags & T_ALLCAPS) && !(verse && (t->flags & T_LINE)) &&
	     !(e.ncap & C_NOUN)))
		return e.n <= NAMES_RARE ? both : 0;
	if (t->flags & T_ALLCAPS)
		return 0;
	/* a capital that says nothing: the stream of every capital only */
	return (e.ncap & ~C_NOUN) <= NAMES_RARE ? 1u << S_CAPITALS : 0;
}

/* Whether the text writes its common nouns with a capital: a share of its
 * words of NAMES_NOUN_CAPS_PCT percent or more are capitalised inside a
 * sentence (not counting the line starts of verse). */
static int noun_capitals(const struct counts *c, int verse)
{
	size_t caps = c->ncap_mid + (verse ? 0 : c->ncap_line);

	return c->nword && 100 * caps >= NAMES_NOUN_CAPS_PCT * c->nword;
}

/* Reads text again and marks in c's counts the capitalised words that are
 * common nouns by its own evidence (nouns.h). */
static int mark_nouns(const char *text, size_t len, struct counts *c, int verse)
{
	uint64_t *nouns = NULL;
	size_t nn = 0, i, j;
	int ret;

	c->collect = 1;
	c->verse = verse;
	ret = tokenise(text, len, c);
	if (!ret)
		ret = nouns_mark(text, c->all, c->nall, &nouns, &nn);
	for (i = 0; !ret && i < nn; i++) {
		j = count_slot(c->h, c->n, c->cap - 1, nouns[i]);
		if (c->n[j].n)
			c->n[j].ncap |= C_NOUN;
	}
	free(nouns);
	free(c->all);
	c->all = NULL;
	c->collect = 0;
	return ret;
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
	struct counts c = { 0 };
	struct stream st[S_N];
	size_t start = 0, end = len, i;
	uint64_t fill;
	unsigned bits;
	int ret, k, s, verse;

	memset(out, 0, sizeof(*out));
	memset(st, 0, sizeof(st));
	norm_strip_gutenberg(utf8, len, &start, &end);
	ret = count_alloc(&c, 4096);
	if (!ret)
		ret = tokenise(utf8 + start, end - start, &c);
	if (ret)
		goto out;
	for (k = 0; k < NAMES_SLOTS; k++)
		out->slot[k] = UINT64_MAX;
	/* verse: most lines start with a capital, which says nothing there
	 * (in prose wrapped in lines, a line starts with any word) */
	verse = c.nline >= NAMES_VERSE_LINES && 2 * c.nline_cap > c.nline;
	/* offsets of nouns.h are 32 bits: a longer text keeps every capital */
	if (noun_capitals(&c, verse) && end - start <= UINT32_MAX &&
	    (ret = mark_nouns(utf8 + start, end - start, &c, verse)))
		goto out;
	for (i = 0; i < c.nkeep; i++) {
		const struct tok *t = &c.keep[i];
		int num = (t->flags & T_NUM) ||
			  (t->flags & (T_ALLCAPS | T_ROMAN)) == (T_ALLCAPS | T_ROMAN);

		bits = stream_bits(t, c.n[count_slot(c.h, c.n, c.cap - 1, t->h)], verse);
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
	free(c.h);
	free(c.n);
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
