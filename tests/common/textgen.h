/* textgen.h - synthetic texts for test_clusters and bench_views: words
 * drawn from a vocabulary of random letter strings, so unrelated texts
 * differ in their character 4-grams as real ones do (a small syllable
 * vocabulary makes every book look alike), and near copies from a second
 * stream that replaces some of the words.  Deterministic: a 32-bit LCG
 * whose state the caller owns. */
#ifndef SIMBOOK_TEST_TEXTGEN_H
#define SIMBOOK_TEST_TEXTGEN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define TEXTGEN_WORD 10		/* bytes per vocabulary entry: 3..9 letters + NUL */

static inline uint32_t textgen_lcg(uint32_t *x)
{
	*x = *x * 1103515245u + 12345u;
	return *x >> 8;
}

/* Fills vocab[0..n) with random words of 3 to 9 letters from seed. */
static inline void textgen_vocab(char (*vocab)[TEXTGEN_WORD], unsigned n, uint32_t seed)
{
	unsigned i, k, len;

	for (i = 0; i < n; i++) {
		len = 3 + textgen_lcg(&seed) % 7;
		for (k = 0; k < len; k++)
			vocab[i][k] = (char)('a' + textgen_lcg(&seed) % 26);
		vocab[i][len] = '\0';
	}
}

/* Writes words words of the text base into out, which must hold
 * words * TEXTGEN_WORD + 2 bytes: each is vocab[textgen_lcg(base) % n],
 * replaced with a word of stream own when textgen_lcg(own) % change_in
 * is 0 (change_in 0: never); a newline after every line words, one at the
 * end.  Returns the length; out is NUL-terminated. */
static inline size_t textgen_words(char *out, const char (*vocab)[TEXTGEN_WORD], unsigned n,
				   uint32_t base, uint32_t own, unsigned change_in, unsigned words,
				   unsigned line)
{
	char *p = out;
	unsigned w, v;

	for (w = 0; w < words; w++) {
		size_t len;

		v = textgen_lcg(&base) % n;
		if (change_in && textgen_lcg(&own) % change_in == 0)
			v = textgen_lcg(&own) % n;
		len = strlen(vocab[v]);
		memcpy(p, vocab[v], len);
		p += len;
		*p++ = w % line == line - 1 ? '\n' : ' ';
	}
	*p++ = '\n';
	*p = '\0';
	return (size_t)(p - out);
}

#endif
