/* names.c - the names-and-numbers sketch (see names.h). */
#include "names.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "grow.h"
#include "norm.h"

#define T_CAP 1u	/* written with a capital first */
#define T_LOWER 2u	/* lower case, or a capital at a sentence start */
#define T_NUM 4u	/* digits */

struct tok {
	uint64_t h;	/* hash of the lower-cased token */
	uint32_t flags;
	uint32_t num;	/* 1: digits */
};

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
 * are apart (a count of 0: an empty slot), 9 bytes a slot: fewer fresh
 * pages, whose faults cost more than the counting. */
#define BATCH 64

struct counts {
	uint64_t *h;		/* cap hashes, set where n is not 0 */
	uint8_t *n;		/* cap counts */
	size_t cap, used;
	struct tok *keep;	/* the names and numbers, in order */
	size_t nkeep, kcap;
	struct tok batch[BATCH];
	size_t nbatch;
};

/* The slot of hash h (mask = cap - 1): its own or the empty one where it
 * goes. */
static size_t count_slot(const uint64_t *hs, const uint8_t *ns, size_t mask, uint64_t h)
{
	size_t j = (size_t)h & mask;

	while (ns[j] && hs[j] != h)
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
		if (o.n[i]) {
			j = count_slot(c->h, c->n, c->cap - 1, o.h[i]);
			c->h[j] = o.h[i];
			c->n[j] = o.n[i];
		}
	free(o.h);
	free(o.n);
	return 0;
}

/* Whether a token is kept, in text order, as a candidate for the keys: a
 * capitalised word (inside a sentence) or a number.  Whether it is rare
 * is known only once the whole book is counted (names_sketch()). */
static int names_keep(const struct tok *t)
{
	return (t->flags & (T_NUM | T_CAP)) != 0;
}

static int count_tok(struct counts *c, const struct tok *t)
{
	size_t j = count_slot(c->h, c->n, c->cap - 1, t->h);

	if (!c->n[j]) {
		if (2 * (c->used + 1) > c->cap) {
			if (count_grow(c))
				return -ENOMEM;
			j = count_slot(c->h, c->n, c->cap - 1, t->h);
		}
		c->h[j] = t->h;
		c->used++;
	}
	if (c->n[j] <= NAMES_RARE)
		c->n[j]++;
	if (names_keep(t)) {
		if (ARRAY_GROW(c->keep, c->kcap, c->nkeep + 1))
			return -ENOMEM;
		c->keep[c->nkeep++] = *t;
	}
	return 0;
}

/* Counts the batched tokens, in order. */
static int count_flush(struct counts *c)
{
	size_t i, j, mask = c->cap - 1;
	int ret = 0;

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
	uint32_t flags, ncp;
	int kind;	/* of the current token: 0 none, 1 letters, 2 digits */
	int start;	/* a word here starts a sentence, a quotation or a paragraph */
	int nl;		/* line ends since the last token or mark */
};

/* Ends the current token of sc (kind != 0): a single letter (I, A, a) is
 * no name. */
static inline int scan_end(struct scan *sc, struct counts *cs)
{
	int ret = 0;

	if (sc->kind == 2 || sc->ncp >= 2) {
		struct tok *t = &cs->batch[cs->nbatch++];

		t->h = mix(sc->h ^ (uint64_t)sc->kind << 62);
		t->flags = sc->flags;
		t->num = sc->kind == 2;
		if (cs->nbatch == BATCH)
			ret = count_flush(cs);
	}
	sc->kind = 0;
	sc->start = sc->nl = 0;
	return ret;
}

/* Starts a token of kind ck at character c. */
static inline void scan_begin(struct scan *sc, int ck, int32_t c)
{
	sc->kind = ck;
	sc->h = TOK_SEED;
	sc->ncp = 0;
	sc->flags = ck == 2 ? T_NUM : !sc->start && is_upper(c) ? T_CAP : T_LOWER;
}

/* One character that is not ASCII: c, or -1 for an invalid byte. */
static int scan_other(struct scan *sc, struct counts *cs, int32_t c)
{
	int ck = 0, ret;

	if (c >= 0) {
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
	if (!sc->kind)
		scan_begin(sc, ck, c);
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

/* Counts the tokens of the text in order (the definition in names.h): a
 * token's hash is over its lower-cased code points; its flags say whether
 * it is a number, or a word written with a capital where a capital says
 * something.  ASCII, most of most books, is read with the state in locals
 * and a token's run at a time; the rest a code point at a time. */
static int tokenise(const char *s, size_t len, struct counts *cs)
{
	const unsigned char *p = (const unsigned char *)s;
	struct scan sc = { 0, 0, 0, 0, 1, 0 };
	uint64_t h = 0;
	uint32_t flags = 0, ncp = 0;
	int kind = 0, start = 1, nl = 0, ret;
	size_t i = 0;

#define SCAN_SAVE() (sc.h = h, sc.flags = flags, sc.ncp = ncp, sc.kind = kind, \
		     sc.start = start, sc.nl = nl)
#define SCAN_LOAD() (h = sc.h, flags = sc.flags, ncp = sc.ncp, kind = sc.kind, \
		     start = sc.start, nl = sc.nl)
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
			h = TOK_SEED;
			ncp = 0;
			flags = a == A_DIGIT ? T_NUM : !start && b <= 'Z' ? T_CAP : T_LOWER;
		}
		{
			uint64_t fold = a == A_LETTER ? 0x20 : 0;

			do {
				h = (h ^ (b | fold)) * TOK_MUL;
				ncp++;
			} while (++i < len && (b = p[i]) < 0x80 && ascii_cls[b] == a);
		}
	}
#undef SCAN_SAVE
#undef SCAN_LOAD
	if (kind) {
		sc.h = h, sc.flags = flags, sc.ncp = ncp, sc.kind = kind;
		if ((ret = scan_end(&sc, cs)))
			return ret;
	}
	return count_flush(cs);
}

int names_sketch(const char *utf8, size_t len, struct names_sketch *out)
{
	struct counts c = { 0 };
	size_t start = 0, end = len, i;
	uint64_t prev = 0, key;
	int have = 0, prev_num = 0, ret, k;
	const struct tok *t;

	memset(out, 0, sizeof(*out));
	norm_strip_gutenberg(utf8, len, &start, &end);
	ret = count_alloc(&c, 4096);
	if (!ret)
		ret = tokenise(utf8 + start, end - start, &c);
	if (ret)
		goto out;
	for (k = 0; k < NAMES_SLOTS; k++)
		out->slot[k] = UINT64_MAX;
	for (i = 0; i < c.nkeep; i++) {
		t = &c.keep[i];
		if (c.n[count_slot(c.h, c.n, c.cap - 1, t->h)] > NAMES_RARE)
			continue;
		/* two numbers in a row are a list (contents, verses, pages),
		 * the same in many books */
		if (have && prev != t->h && !(prev_num && t->num)) {
			key = mix(prev * 0xC2B2AE3D27D4EB4Fu + t->h);
			out->nkeys++;
			for (k = 0; k < NAMES_SLOTS; k++) {
				uint64_t x = mix(key + (uint64_t)(k + 1) * 0x9E3779B97F4A7C15u);

				if (x < out->slot[k])
					out->slot[k] = x;
			}
		}
		prev = t->h;
		prev_num = (int)t->num;
		have = 1;
	}
	if (!out->nkeys)
		memset(out->slot, 0, sizeof(out->slot));
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
