/* norm.c - normalised word text for fingerprints (rules in norm.h).
 *
 * One pass over the input.  Runs of plain ASCII are tokenised by a byte
 * table (the common case in books, and the reason this is fast); a run that
 * holds non-ASCII bytes, together with the ASCII byte just before it (a
 * combining mark may compose with it) unless that byte is white space, goes
 * through utf8proc's compatibility decomposition, case folding and
 * composition, then the same tokeniser per code point.  A run ends at ASCII
 * white space or before an ASCII byte followed by another ASCII byte (or the
 * end): no composition or case folding crosses such a point.
 */
#include "norm.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "grow.h"
#include "sbuf.h"

/* Longest non-ASCII run handed to utf8proc at once; longer runs are split at
 * a grapheme boundary, which no composition crosses. */
#define RUN_MAX 16384

#define NORM_OPTS (UTF8PROC_STABLE | UTF8PROC_COMPAT | UTF8PROC_CASEFOLD | UTF8PROC_COMPOSE)

enum cls { C_SEP, C_LETTER, C_APOS, C_HYPH, C_WS, C_NL, C_IGNORE, C_MARK, C_CJK };

enum join { J_NONE, J_APOS, J_HYPH, J_HYPH_SP, J_HYPH_NL };

/* Classes of ASCII bytes (upper case is folded when copied). */
static const unsigned char ascii_cls[256] = {	/* bytes >= 0x80: C_SEP, unused */
	['\t'] = C_WS, ['\v'] = C_WS, ['\f'] = C_WS, [' '] = C_WS,
	['\n'] = C_NL, ['\r'] = C_NL,
	['\''] = C_APOS, ['-'] = C_HYPH,
	['a'] = C_LETTER, ['b'] = C_LETTER, ['c'] = C_LETTER, ['d'] = C_LETTER,
	['e'] = C_LETTER, ['f'] = C_LETTER, ['g'] = C_LETTER, ['h'] = C_LETTER,
	['i'] = C_LETTER, ['j'] = C_LETTER, ['k'] = C_LETTER, ['l'] = C_LETTER,
	['m'] = C_LETTER, ['n'] = C_LETTER, ['o'] = C_LETTER, ['p'] = C_LETTER,
	['q'] = C_LETTER, ['r'] = C_LETTER, ['s'] = C_LETTER, ['t'] = C_LETTER,
	['u'] = C_LETTER, ['v'] = C_LETTER, ['w'] = C_LETTER, ['x'] = C_LETTER,
	['y'] = C_LETTER, ['z'] = C_LETTER,
	['A'] = C_LETTER, ['B'] = C_LETTER, ['C'] = C_LETTER, ['D'] = C_LETTER,
	['E'] = C_LETTER, ['F'] = C_LETTER, ['G'] = C_LETTER, ['H'] = C_LETTER,
	['I'] = C_LETTER, ['J'] = C_LETTER, ['K'] = C_LETTER, ['L'] = C_LETTER,
	['M'] = C_LETTER, ['N'] = C_LETTER, ['O'] = C_LETTER, ['P'] = C_LETTER,
	['Q'] = C_LETTER, ['R'] = C_LETTER, ['S'] = C_LETTER, ['T'] = C_LETTER,
	['U'] = C_LETTER, ['V'] = C_LETTER, ['W'] = C_LETTER, ['X'] = C_LETTER,
	['Y'] = C_LETTER, ['Z'] = C_LETTER,
};

#define FOLD_CACHE 512	/* direct-mapped cache of folded code points */
#define FOLD_OUT 3
#define ONE_MAX 32		/* longest NFKC-casefold expansion is 18 */

struct fold_slot {
	int32_t cp;
	uint8_t n;		/* 0: empty */
	int32_t out[FOLD_OUT];
};

struct norm_state {
	struct sbuf out;
	uint32_t *word_off;
	size_t nwords, cap_words;
	uint32_t *chunk_word;
	const size_t *chunk_off;
	size_t nchunks, next_chunk;
	int in_word;		/* 0, 1 = in a word, 2 = just after a per-char letter */
	enum join join;
	int32_t *ubuf;		/* utf8proc scratch (code points) */
	size_t ubuf_cap;
	char *fix;		/* a run with invalid UTF-8 replaced */
	size_t fix_cap;
	int32_t one[ONE_MAX];
	struct fold_slot cache[FOLD_CACHE];
};

void norm_doc_init(struct norm_doc *doc)
{
	memset(doc, 0, sizeof(*doc));
}

void norm_doc_release(struct norm_doc *doc)
{
	free(doc->text);
	free(doc->word_off);
	free(doc->chunk_word);
	norm_doc_init(doc);
}

static int is_per_char_script(int32_t c)
{
	return (c >= 0x0E00 && c <= 0x0EFF) ||		/* Thai, Lao */
	       (c >= 0x1000 && c <= 0x109F) ||		/* Myanmar */
	       (c >= 0x1780 && c <= 0x17FF) ||		/* Khmer */
	       (c >= 0x19E0 && c <= 0x19FF) ||		/* Khmer symbols */
	       (c >= 0x2E80 && c <= 0x2FDF) ||		/* CJK radicals, Kangxi */
	       (c >= 0x3005 && c <= 0x3007) ||		/* iteration marks, ling */
	       (c >= 0x3021 && c <= 0x3029) ||		/* Hangzhou numerals */
	       (c >= 0x3031 && c <= 0x303C) ||
	       (c >= 0x3040 && c <= 0x31BF) ||		/* kana, Bopomofo */
	       (c >= 0x31F0 && c <= 0x31FF) ||		/* Katakana ext. */
	       (c >= 0x3400 && c <= 0x4DBF) ||		/* CJK ext. A */
	       (c >= 0x4E00 && c <= 0x9FFF) ||		/* CJK unified */
	       (c >= 0xA000 && c <= 0xA4CF) ||		/* Yi */
	       (c >= 0xA9E0 && c <= 0xA9FF) ||		/* Myanmar ext. B */
	       (c >= 0xAA60 && c <= 0xAA7F) ||		/* Myanmar ext. A */
	       (c >= 0xF900 && c <= 0xFAFF) ||		/* CJK compatibility */
	       (c >= 0xFF66 && c <= 0xFF9F) ||		/* half-width Katakana */
	       (c >= 0x1B000 && c <= 0x1B16F) ||	/* kana supplement */
	       (c >= 0x20000 && c <= 0x3134F);		/* CJK ext. B.. */
}

static enum cls classify(int32_t c)
{
	if (c < 0x80)
		return (enum cls)ascii_cls[c];
	switch (c) {
	case 0x2019: case 0x02BC:
		return C_APOS;
	case 0x2010: case 0x2011: case 0x00AD:
		return C_HYPH;
	case 0x0085: case 0x2028: case 0x2029:
		return C_NL;
	default:
		break;
	}
	switch (utf8proc_category(c)) {
	case UTF8PROC_CATEGORY_LU: case UTF8PROC_CATEGORY_LL: case UTF8PROC_CATEGORY_LT:
	case UTF8PROC_CATEGORY_LM: case UTF8PROC_CATEGORY_LO:
		return is_per_char_script(c) ? C_CJK : C_LETTER;
	case UTF8PROC_CATEGORY_MN: case UTF8PROC_CATEGORY_MC: case UTF8PROC_CATEGORY_ME:
		return C_MARK;
	case UTF8PROC_CATEGORY_ZS:
		return C_WS;
	case UTF8PROC_CATEGORY_ZL: case UTF8PROC_CATEGORY_ZP:
		return C_NL;
	case UTF8PROC_CATEGORY_CF:
		return C_IGNORE;
	default:
		return C_SEP;
	}
}

/* Records the start of a word read at input offset pos. */
static inline int word_start(struct norm_state *st, size_t pos)
{
	if (st->nwords == st->cap_words && ARRAY_GROW(st->word_off, st->cap_words, st->nwords + 1))
		return -ENOMEM;
	if (st->nwords)
		st->out.buf[st->out.len++] = ' ';	/* reserve() made room */
	if (st->out.len > UINT32_MAX)
		return -EINVAL;
	while (st->next_chunk < st->nchunks && st->chunk_off[st->next_chunk] <= pos)
		st->chunk_word[st->next_chunk++] = (uint32_t)st->nwords;
	st->word_off[st->nwords++] = (uint32_t)st->out.len;
	return 0;
}

/* The tokeniser state machine for one character of class cls.  Returns 1
 * when the character (a letter or mark) must be appended to the word, 0 when
 * not, or a negative errno. */
static int step(struct norm_state *st, enum cls cls, size_t pos)
{
	int ret;

	switch (cls) {
	case C_LETTER:
		if (st->in_word == 1 && st->join != J_HYPH_SP) {
			st->join = J_NONE;
			return 1;
		}
		ret = word_start(st, pos);
		if (ret)
			return ret;
		st->in_word = 1;
		st->join = J_NONE;
		return 1;
	case C_MARK:
		if (st->in_word && st->join == J_NONE)
			return 1;
		if (st->in_word == 1 && st->join != J_HYPH_SP) {
			st->join = J_NONE;
			return 1;
		}
		ret = word_start(st, pos);
		if (ret)
			return ret;
		st->in_word = 1;
		st->join = J_NONE;
		return 1;
	case C_CJK:
		ret = word_start(st, pos);
		if (ret)
			return ret;
		st->in_word = 2;
		st->join = J_NONE;
		return 1;
	case C_APOS:
		if (st->in_word == 1 && st->join == J_NONE)
			st->join = J_APOS;
		else
			st->in_word = 0, st->join = J_NONE;
		return 0;
	case C_HYPH:
		if (st->in_word == 1 && st->join == J_NONE)
			st->join = J_HYPH;
		else
			st->in_word = 0, st->join = J_NONE;
		return 0;
	case C_WS:
		if (st->in_word == 1 && st->join == J_HYPH)
			st->join = J_HYPH_SP;
		else if (!(st->in_word == 1 && (st->join == J_HYPH_SP || st->join == J_HYPH_NL)))
			st->in_word = 0, st->join = J_NONE;
		return 0;
	case C_NL:
		if (st->in_word == 1 && st->join >= J_HYPH)
			st->join = J_HYPH_NL;
		else
			st->in_word = 0, st->join = J_NONE;
		return 0;
	case C_IGNORE:
		return 0;
	case C_SEP:
	default:
		st->in_word = 0;
		st->join = J_NONE;
		return 0;
	}
}

/* Length of a valid UTF-8 sequence at p (at most n bytes), 0 if invalid. */
static size_t utf8_valid_len(const unsigned char *p, size_t n)
{
	unsigned char c = p[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		return n >= 2 && (p[1] & 0xC0) == 0x80 ? 2 : 0;
	if (c >= 0xE0 && c <= 0xEF) {
		if (n < 3 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80)
			return 0;
		if ((c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] >= 0xA0))
			return 0;
		return 3;
	}
	if (c >= 0xF0 && c <= 0xF4) {
		if (n < 4 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 ||
		    (p[3] & 0xC0) != 0x80)
			return 0;
		if ((c == 0xF0 && p[1] < 0x90) || (c == 0xF4 && p[1] >= 0x90))
			return 0;
		return 4;
	}
	return 0;
}

/* Copies a run into st->fix with each invalid byte replaced by U+FFFD.
 * Returns the new length, or 0 with *err set. */
static size_t fix_run(struct norm_state *st, const unsigned char *p, size_t n, int *err)
{
	size_t i = 0, o = 0, need = n * 3 + 1, k;

	if (need > st->fix_cap) {
		char *q = realloc(st->fix, need);

		if (!q) {
			*err = -ENOMEM;
			return 0;
		}
		st->fix = q;
		st->fix_cap = need;
	}
	while (i < n) {
		k = utf8_valid_len(p + i, n - i);
		if (k) {
			memcpy(st->fix + o, p + i, k);
			o += k;
			i += k;
		} else {
			memcpy(st->fix + o, "\xEF\xBF\xBD", 3);
			o += 3;
			i++;
		}
	}
	return o;
}

static int run_is_valid(const unsigned char *p, size_t n)
{
	size_t i = 0, k;

	while (i < n) {
		k = utf8_valid_len(p + i, n - i);
		if (!k)
			return 0;
		i += k;
	}
	return 1;
}

static int emit_cps(struct norm_state *st, const int32_t *cps, size_t n, size_t pos);

/* Normalises one run (bytes [p, p+n) starting at input offset pos). */
static int slow_run(struct norm_state *st, const unsigned char *p, size_t n, size_t pos)
{
	const utf8proc_uint8_t *src = p;
	utf8proc_ssize_t got;
	size_t len = n;
	int ret = 0;

	if (!run_is_valid(p, n)) {
		len = fix_run(st, p, n, &ret);
		if (ret)
			return ret;
		src = (const utf8proc_uint8_t *)st->fix;
	}
	for (;;) {
		got = utf8proc_decompose(src, (utf8proc_ssize_t)len, st->ubuf,
					 (utf8proc_ssize_t)st->ubuf_cap, NORM_OPTS);
		if (got < 0)
			return got == UTF8PROC_ERROR_NOMEM ? -ENOMEM : -EINVAL;
		if ((size_t)got <= st->ubuf_cap)
			break;
		free(st->ubuf);
		st->ubuf_cap = (size_t)got + 256;
		st->ubuf = malloc(st->ubuf_cap * sizeof(*st->ubuf));
		if (!st->ubuf) {
			st->ubuf_cap = 0;
			return -ENOMEM;
		}
	}
	got = utf8proc_normalize_utf32(st->ubuf, got, NORM_OPTS);
	if (got < 0)
		return -EINVAL;
	return emit_cps(st, st->ubuf, (size_t)got, pos);
}

#define ONES	0x0101010101010101ULL
#define HIGHS	0x8080808080808080ULL

/* High bit set in each byte of w that is an ASCII letter; *low gets w with
 * those letters in lower case (other bytes are garbage). */
static inline uint64_t letter_mask(uint64_t w, uint64_t *low)
{
	uint64_t x = (w & ~HIGHS) | (ONES * 0x20);
	uint64_t ge_a = x + ONES * (0x80 - 'a');	/* no carries: x < 0x80 */
	uint64_t gt_z = x + ONES * (0x80 - 'z' - 1);

	*low = x;
	return ge_a & ~gt_z & ~w & HIGHS;
}

/* ASCII white space neither composes nor case-folds with its neighbours. */
static int is_space(unsigned char c)
{
	return ascii_cls[c] == C_WS || ascii_cls[c] == C_NL;
}

/* End of the non-ASCII run starting at i: the first ASCII byte followed by
 * an ASCII byte or the end, or a grapheme boundary past RUN_MAX bytes. */
static size_t run_end(const unsigned char *in, size_t len, size_t i)
{
	size_t j = i, start = i;

	while (j < len) {
		if (in[j] < 0x80 && (j + 1 == len || in[j + 1] < 0x80 || is_space(in[j])))
			return j;
		if (j - start >= RUN_MAX && (in[j] & 0xC0) != 0x80) {
			/* try to cut before the code point at j */
			size_t a = j, k;
			utf8proc_int32_t c1 = -1, c2 = -1;

			while (a > start && (in[a - 1] & 0xC0) == 0x80 && j - a < 4)
				a--;
			if (a > start)
				a--;
			while (a > start && (in[a] & 0xC0) == 0x80)
				a--;
			k = utf8_valid_len(in + a, len - a);
			if (k && a + k == j)
				utf8proc_iterate(in + a, (utf8proc_ssize_t)k, &c1);
			k = utf8_valid_len(in + j, len - j);
			if (k)
				utf8proc_iterate(in + j, (utf8proc_ssize_t)k, &c2);
			if ((c1 >= 0 && c2 >= 0 && utf8proc_grapheme_break(c1, c2)) ||
			    j - start >= 4 * RUN_MAX)
				return j;
		}
		j++;
	}
	return len;
}

/* Marks and conjoining jamo are the only code points that compose with, or
 * reorder around, the code point before them. */
static int is_combining(int32_t c)
{
	utf8proc_category_t cat;

	if (c < 0x300)
		return 0;
	if ((c >= 0x1100 && c <= 0x11FF) || (c >= 0xA960 && c <= 0xA97F) ||
	    (c >= 0xD7B0 && c <= 0xD7FF))
		return 1;
	cat = utf8proc_category(c);
	return cat == UTF8PROC_CATEGORY_MN || cat == UTF8PROC_CATEGORY_MC ||
	       cat == UTF8PROC_CATEGORY_ME;
}

/* The code point at p (valid UTF-8 of length k), or -1. */
static int32_t decode_at(const unsigned char *p, size_t n, size_t *k)
{
	utf8proc_int32_t c = -1;

	*k = utf8_valid_len(p, n);
	if (*k)
		utf8proc_iterate(p, (utf8proc_ssize_t)*k, &c);
	return c;
}

/* 1 if the code point starting at p combines with what precedes it. */
static int next_combines(const unsigned char *p, size_t n)
{
	size_t k;

	return n && p[0] >= 0x80 && is_combining(decode_at(p, n, &k));
}

/* Folds one code point that combines with neither neighbour: its result
 * does not depend on context, so it is cached. */
static int fold_one(struct norm_state *st, const unsigned char *p, size_t k, int32_t c,
		    const int32_t **res, size_t *nres)
{
	struct fold_slot *f = &st->cache[(uint32_t)c % FOLD_CACHE];
	utf8proc_ssize_t n;

	if (f->cp == c && f->n) {
		*res = f->out;
		*nres = f->n;
		return 0;
	}
	n = utf8proc_decompose(p, (utf8proc_ssize_t)k, st->one, ONE_MAX, NORM_OPTS);
	if (n < 0 || n > ONE_MAX)
		return -EINVAL;
	n = utf8proc_normalize_utf32(st->one, n, NORM_OPTS);
	if (n < 0)
		return -EINVAL;
	*res = st->one;
	*nres = (size_t)n;
	if (n <= FOLD_OUT) {
		f->cp = c;
		f->n = (uint8_t)n;
		memcpy(f->out, st->one, (size_t)n * sizeof(*f->out));
	}
	return 0;
}

static int emit_cps(struct norm_state *st, const int32_t *cps, size_t n, size_t pos)
{
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		/* room for a space, the code point and the NUL */
		ret = sbuf_grow(&st->out, 8);
		if (ret)
			return ret;
		ret = step(st, classify(cps[i]), pos);
		if (ret < 0)
			return ret;
		if (ret) {
			st->out.len += (size_t)utf8proc_encode_char(cps[i],
					(utf8proc_uint8_t *)st->out.buf + st->out.len);
		}
	}
	return 0;
}

/* Room for the rest of the input in the ASCII loop: one byte per input
 * byte plus one space per word, at most two per input byte. */
static int reserve(struct norm_state *st, size_t left)
{
	return sbuf_grow(&st->out, 2 * left + 16);
}

static int tokenise(struct norm_state *st, const unsigned char *in, size_t len)
{
	size_t i = 0, j, k;
	int ret;

	ret = reserve(st, len);
	if (ret)
		return ret;
	while (i < len) {
		unsigned char c = in[i];

		if (c < 0x80) {
			/* ASCII fast path, state in locals; reserve() made room */
			int in_word = st->in_word;
			enum join join = st->join;
			char *o;
			size_t ol;

			for (; i < len && (c = in[i]) < 0x80; i++) {
				if (i + 1 < len && in[i + 1] >= 0x80 && !is_space(c) &&
				    next_combines(in + i + 1, len - i - 1))
					break;
				switch (ascii_cls[c]) {
				case C_LETTER:
				letter:
					if (in_word != 1 || join == J_HYPH_SP) {
						ret = word_start(st, i);
						if (ret)
							return ret;
						in_word = 1;
					}
					join = J_NONE;
					o = st->out.buf;
					ol = st->out.len;
					o[ol++] = (char)(c | ((c >= 'A' && c <= 'Z') ? 0x20 : 0));
					/* the rest of the word's letters, eight bytes
					 * at a time (reserve() left room to store 8) */
					while (i + 9 <= len) {
						uint64_t w, low, m;
						size_t r;

						memcpy(&w, in + i + 1, 8);
						m = letter_mask(w, &low);
						memcpy(o + ol, &low, 8);
						r = (~m & HIGHS) ? (size_t)__builtin_ctzll(~m & HIGHS) / 8 : 8;
						/* a letter just before non-ASCII is left
						 * to the checks above (it may compose) */
						if (r && i + 1 + r < len && in[i + 1 + r] >= 0x80)
							r--;
						ol += r;
						i += r;
						if (r < 8)
							break;
					}
					while (i + 2 < len && ascii_cls[in[i + 1]] == C_LETTER &&
					       in[i + 2] < 0x80) {
						c = in[++i];
						o[ol++] = (char)(c | ((c >= 'A' && c <= 'Z') ? 0x20 : 0));
					}
					st->out.len = ol;
					/* the common "word word": straight to the
					 * next letter (its successor is ASCII, so
					 * the composition check is not needed) */
					if (i + 3 < len && in[i + 1] == ' ' &&
					    ascii_cls[in[i + 2]] == C_LETTER && in[i + 3] < 0x80) {
						in_word = 0;
						i += 2;
						c = in[i];
						goto letter;
					}
					break;
				case C_WS:
					if (in_word == 1 && join == J_HYPH)
						join = J_HYPH_SP;
					else if (!(in_word == 1 && join >= J_HYPH_SP))
						in_word = 0, join = J_NONE;
					break;
				case C_NL:
					if (in_word == 1 && join >= J_HYPH)
						join = J_HYPH_NL;
					else
						in_word = 0, join = J_NONE;
					break;
				case C_APOS:
					if (in_word == 1 && join == J_NONE)
						join = J_APOS;
					else
						in_word = 0, join = J_NONE;
					break;
				case C_HYPH:
					if (in_word == 1 && join == J_NONE)
						join = J_HYPH;
					else
						in_word = 0, join = J_NONE;
					break;
				default:
					in_word = 0, join = J_NONE;
					break;
				}
			}
			st->in_word = in_word;
			st->join = join;
			if (i >= len || c >= 0x80)
				continue;
			/* an ASCII base followed by combining marks: slow run */
		} else {
			int32_t cp = decode_at(in + i, len - i, &k);

			if (cp < 0) {
				/* invalid byte: U+FFFD, a separator */
				ret = step(st, C_SEP, i);
				if (ret < 0)
					return ret;
				i++;
				continue;
			}
			if (!is_combining(cp) && !next_combines(in + i + k, len - i - k)) {
				const int32_t *res;
				size_t nres;

				ret = fold_one(st, in + i, k, cp, &res, &nres);
				if (!ret)
					ret = emit_cps(st, res, nres, i);
				if (!ret)
					ret = reserve(st, len - i - k);
				if (ret)
					return ret;
				i += k;
				continue;
			}
		}
		/* a base followed by combining marks, or a stray mark */
		j = run_end(in, len, i);
		ret = slow_run(st, in + i, j - i, i);
		if (!ret)
			ret = reserve(st, len - j);
		if (ret)
			return ret;
		i = j;
	}
	st->out.buf[st->out.len] = '\0';
	return 0;
}

int norm_run(const char *utf8, size_t len, const size_t *chunk_off, size_t nchunks,
	     struct norm_doc *out)
{
	struct norm_state st;
	size_t k;
	int ret = 0;

	memset(&st, 0, sizeof(st));
	sbuf_init(&st.out);
	for (k = 0; k < nchunks; k++)
		if (chunk_off[k] > len || (k && chunk_off[k] < chunk_off[k - 1]))
			return -EINVAL;
	if (nchunks) {
		st.chunk_word = calloc(nchunks, sizeof(*st.chunk_word));
		if (!st.chunk_word)
			return -ENOMEM;
	}
	st.chunk_off = chunk_off;
	st.nchunks = nchunks;
	ret = tokenise(&st, (const unsigned char *)utf8, len);
	if (ret)
		goto out;
	if (st.out.len > UINT32_MAX) {
		ret = -EINVAL;
		goto out;
	}
	while (st.next_chunk < nchunks)
		st.chunk_word[st.next_chunk++] = (uint32_t)st.nwords;
	if (nchunks)
		st.chunk_word[0] = 0;
	out->text = sbuf_detach(&st.out, &out->len);
	if (!out->text) {
		ret = -ENOMEM;
		goto out;
	}
	out->word_off = st.word_off;
	out->nwords = st.nwords;
	out->chunk_word = st.chunk_word;
	out->nchunks = nchunks;
	st.word_off = NULL;
	st.chunk_word = NULL;
out:
	sbuf_release(&st.out);
	free(st.word_off);
	free(st.chunk_word);
	free(st.ubuf);
	free(st.fix);
	return ret;
}

/* ASCII case-insensitive prefix test. */
static int has_prefix_ci(const char *p, const char *end, const char *pre)
{
	for (; *pre; p++, pre++) {
		if (p >= end)
			return 0;
		char a = *p, b = *pre;

		if (a >= 'A' && a <= 'Z')
			a = (char)(a + 32);
		if (b >= 'A' && b <= 'Z')
			b = (char)(b + 32);
		if (a != b)
			return 0;
	}
	return 1;
}

static int is_pg_header(const char *p, const char *end)
{
	const char *q = p;

	if (has_prefix_ci(p, end, "*END*THE SMALL PRINT!") ||
	    has_prefix_ci(p, end, "*END THE SMALL PRINT!"))
		return 1;
	if (q >= end || *q != '*')
		return 0;
	while (q < end && (*q == '*' || *q == ' '))
		q++;
	return has_prefix_ci(q, end, "START OF THE PROJECT GUTENBERG") ||
	       has_prefix_ci(q, end, "START OF THIS PROJECT GUTENBERG");
}

static int is_pg_footer(const char *p, const char *end)
{
	const char *q = p;

	if (has_prefix_ci(p, end, "The ") && !has_prefix_ci(p, end, "The Project"))
		p += 4;
	if (has_prefix_ci(p, end, "End of the Project Gutenberg") ||
	    has_prefix_ci(p, end, "End of Project Gutenberg"))
		return 1;
	if (q >= end || *q != '*')
		return 0;
	while (q < end && (*q == '*' || *q == ' '))
		q++;
	return has_prefix_ci(q, end, "END OF THE PROJECT GUTENBERG") ||
	       has_prefix_ci(q, end, "END OF THIS PROJECT GUTENBERG");
}

int norm_strip_gutenberg(const char *text, size_t len, size_t *start, size_t *end)
{
	const char *p = text, *e = text + len, *hdr_end = text + (len < 262144 ? len : 262144);
	const char *nl;
	int found = 0;

	*start = 0;
	*end = len;
	/* header: scan line starts */
	while (p < hdr_end) {
		const char *s = p;

		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		nl = memchr(p, '\n', (size_t)(e - p));
		if (is_pg_header(s, e)) {
			*start = nl ? (size_t)(nl + 1 - text) : len;
			found |= NORM_PG_HEADER;
			p = nl ? nl + 1 : e;
			break;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	if (!(found & NORM_PG_HEADER))
		p = text;
	while (p < e) {
		const char *s = p;

		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		if (s < e && (*s == '*' || *s == 'E' || *s == 'e' || *s == 'T' || *s == 't') &&
		    is_pg_footer(s, e)) {
			*end = (size_t)(p - text);
			found |= NORM_PG_FOOTER;
			break;
		}
		nl = memchr(p, '\n', (size_t)(e - p));
		if (!nl)
			break;
		p = nl + 1;
	}
	return found;
}

int norm_book(const char *utf8, size_t len, const size_t *chunk_off, size_t nchunks,
	      struct norm_doc *out)
{
	size_t start, end, k, *off = NULL;
	int ret;

	norm_strip_gutenberg(utf8, len, &start, &end);
	if (nchunks) {
		off = malloc(nchunks * sizeof(*off));
		if (!off)
			return -ENOMEM;
		for (k = 0; k < nchunks; k++) {
			size_t o = chunk_off[k];

			o = o < start ? 0 : o - start;
			off[k] = o > end - start ? end - start : o;
		}
	}
	ret = norm_run(utf8 + start, end - start, off, nchunks, out);
	free(off);
	return ret;
}
