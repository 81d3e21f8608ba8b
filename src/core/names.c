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

static int tok_cmp(const void *x, const void *y)
{
	const struct tok *a = x, *b = y;

	return a->h < b->h ? -1 : a->h > b->h;
}

/* After character c between tokens: whether the next word starts a
 * sentence (after . ! ? : ; an opening or closing quote, a bracket, a dash,
 * a blank line), so that its capital says nothing. */
static void boundary(int32_t c, int *start, int *nl)
{
	if (c == '\n' && ++*nl >= 2)
		*start = 1;
	else if (strchr(".!?:;\"'()[]{}*_", c < 128 ? (int)c : 1) && c != 0)
		*start = 1;
	else if (c == 0x2014 || c == 0x2013 || (c >= 0x2018 && c <= 0x201F) || c == 0xAB ||
		 c == 0xBB || c == 0xBF || c == 0xA1 || c == 0x2026)
		*start = 1;
	else if (c == ',' || c == '-')
		*start = 0;
}

/* The tokens of the text in order: *v malloc'd, *n of them. */
static int tokenise(const char *s, size_t len, struct tok **v, size_t *n)
{
	size_t cap = 0, i = 0;
	uint64_t h = 0;
	uint32_t flags = 0, ncp = 0;
	int kind = 0;	/* 0 none, 1 letters, 2 digits */
	int start = 1;	/* a word here starts a sentence, a quotation or a paragraph */
	int nl = 0;	/* line ends since the last token or mark */

	*v = NULL;
	*n = 0;
	while (i <= len) {
		utf8proc_int32_t c = -1;
		utf8proc_ssize_t k = 1;
		int ck = 0;

		if (i < len) {
			k = utf8proc_iterate((const utf8proc_uint8_t *)s + i,
					     (utf8proc_ssize_t)(len - i), &c);
			if (k < 1) {
				k = 1;
				c = -1;
			}
		}
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
		if (kind && ck != kind) {
			/* a single letter (I, A, a) is no name */
			if (kind == 2 || ncp >= 2) {
				if (ARRAY_GROW(*v, cap, *n + 1))
					return -ENOMEM;
				(*v)[(*n)++] = (struct tok){ mix(h ^ (uint64_t)kind << 62), flags, kind == 2 };
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
			flags = ck == 2 ? T_NUM :
				!start && (utf8proc_category(c) == UTF8PROC_CATEGORY_LU ||
					   utf8proc_category(c) == UTF8PROC_CATEGORY_LT) ? T_CAP : T_LOWER;
		}
		if (ck) {
			h = (h ^ (uint64_t)(uint32_t)utf8proc_tolower(c)) * 0x100000001B3u;
			ncp++;
		}
		i += (size_t)k;
	}
	return 0;
}

/* Marks each token that is a rare name or number (flags = 1, else 0). */
static int keep_rare(struct tok *v, size_t n)
{
	struct tok *s = malloc((n ? n : 1) * sizeof(*s));
	size_t i, j, e;

	if (!s)
		return -ENOMEM;
	if (n)
		memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), tok_cmp);
	/* per distinct token: 1 when it occurs NAMES_RARE times at most */
	for (i = j = 0; i < n; i = e, j++) {
		for (e = i; e < n && s[e].h == s[i].h; e++)
			;
		s[j].h = s[i].h;
		s[j].flags = e - i <= NAMES_RARE;
	}
	/* a rare word's capitalised occurrences (inside a sentence) and numbers */
	for (i = 0; i < n; i++) {
		struct tok *m = bsearch(&v[i], s, j, sizeof(*s), tok_cmp);

		v[i].flags = m && m->flags && (v[i].flags & (T_NUM | T_CAP));
	}
	free(s);
	return 0;
}

int names_sketch(const char *utf8, size_t len, struct names_sketch *out)
{
	struct tok *v = NULL;
	size_t n = 0, i, start = 0, end = len;
	uint64_t prev = 0, key;
	int have = 0, prev_num = 0, ret, k;

	memset(out, 0, sizeof(*out));
	norm_strip_gutenberg(utf8, len, &start, &end);
	ret = tokenise(utf8 + start, end - start, &v, &n);
	if (!ret)
		ret = keep_rare(v, n);
	if (ret)
		goto out;
	for (k = 0; k < NAMES_SLOTS; k++)
		out->slot[k] = UINT64_MAX;
	for (i = 0; i < n; i++) {
		if (!v[i].flags)
			continue;
		/* two numbers in a row are a list (contents, verses, pages),
		 * the same in many books */
		if (have && prev != v[i].h && !(prev_num && v[i].num)) {
			key = mix(prev * 0xC2B2AE3D27D4EB4Fu + v[i].h);
			out->nkeys++;
			for (k = 0; k < NAMES_SLOTS; k++) {
				uint64_t x = mix(key + (uint64_t)(k + 1) * 0x9E3779B97F4A7C15u);

				if (x < out->slot[k])
					out->slot[k] = x;
			}
		}
		prev = v[i].h;
		prev_num = (int)v[i].num;
		have = 1;
	}
	if (!out->nkeys)
		memset(out->slot, 0, sizeof(out->slot));
out:
	free(v);
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
