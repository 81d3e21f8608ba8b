/* fptest.h - deterministic synthetic normalised text for the fingerprint
 * tests: a Zipf-like vocabulary with Latin, accented, Cyrillic and CJK
 * words (multi-byte UTF-8), OCR-style mutation, and random split points. */
#ifndef FPTEST_H
#define FPTEST_H

#include <stdint.h>
#include <string.h>

#include "sbuf.h"
#include "simgen.h"

/* Appends vocabulary word number k (the same bytes for the same k). */
static inline void fpt_word(struct sbuf *sb, uint64_t k)
{
	static const char *const accented[] = { "\xc3\xa9", "\xc3\xbc", "\xc3\xb1", "\xc3\xa5" };
	static const char *const cyrillic[] = { "\xd0\xb6", "\xd0\xb4", "\xd0\xbb", "\xd1\x8f" };
	uint64_t s = k * 7919 + 17, r = simgen_next(&s);
	unsigned len = 1 + (unsigned)(r % 9), i;

	if (k % 13 == 5) {	/* a CJK character is a word by itself */
		unsigned cp = 0x4e00 + (unsigned)(k % 2000);
		char b[3] = { (char)(0xe0 | cp >> 12), (char)(0x80 | ((cp >> 6) & 0x3f)),
			      (char)(0x80 | (cp & 0x3f)) };

		sbuf_add(sb, b, 3);
		return;
	}
	for (i = 0; i < len; i++) {
		r = simgen_next(&s);
		if (k % 7 == 3 && i % 3 == 1)
			sbuf_addstr(sb, accented[r % 4]);
		else if (k % 11 == 4)
			sbuf_addstr(sb, cyrillic[r % 4]);
		else
			sbuf_addch(sb, (char)('a' + r % 26));
	}
}

/* Appends nwords words (separated by single spaces) drawn from a vocabulary
 * of vocab words with a Zipf-like skew; same seed, same text. */
static inline void fpt_text(struct sbuf *sb, uint64_t seed, size_t nwords, uint64_t vocab)
{
	size_t i;

	for (i = 0; i < nwords; i++) {
		uint64_t a = simgen_next(&seed) % vocab, b = simgen_next(&seed) % vocab;

		if (sb->len)
			sbuf_addch(sb, ' ');
		fpt_word(sb, a * b / vocab);
	}
}

/* OCR-like damage: each byte, with probability permille/1000, is replaced
 * by a random letter, gets a space inserted after it, or is dropped.
 * Multi-byte characters may be cut: the fingerprints must cope. */
static inline void fpt_mutate(struct sbuf *out, const char *in, size_t len,
			      uint64_t seed, unsigned permille)
{
	size_t i;

	for (i = 0; i < len; i++) {
		uint64_t r = simgen_next(&seed);

		if (r % 1000 >= permille) {
			sbuf_addch(out, in[i]);
			continue;
		}
		switch ((r >> 20) % 3) {
		case 0:
			sbuf_addch(out, (char)('a' + (r >> 32) % 26));
			break;
		case 1:
			sbuf_addch(out, in[i]);
			sbuf_addch(out, ' ');
			break;
		default:
			break;
		}
	}
}

/* Splits [0, len) into up to 64 pieces at random offsets: fills cut[] with
 * ascending cut points and returns how many (pieces = n + 1). */
static inline unsigned fpt_cuts(uint64_t seed, size_t len, size_t *cut, unsigned max)
{
	unsigned n, i, j;

	if (!len)
		return 0;
	n = (unsigned)(simgen_next(&seed) % max);
	for (i = 0; i < n; i++)
		cut[i] = (size_t)(simgen_next(&seed) % (len + 1));
	for (i = 1; i < n; i++)	/* insertion sort: n is small */
		for (j = i; j > 0 && cut[j - 1] > cut[j]; j--) {
			size_t t = cut[j];

			cut[j] = cut[j - 1];
			cut[j - 1] = t;
		}
	return n;
}

/* Feeds buf to UPDATE(state, ptr, len) in the pieces of fpt_cuts(). */
#define FPT_FEED_SPLIT(seed, buf, len, UPDATE, state) do { \
	size_t fpt_cut_[64], fpt_at_ = 0; \
	unsigned fpt_n_ = fpt_cuts((seed), (len), fpt_cut_, 64), fpt_i_; \
	for (fpt_i_ = 0; fpt_i_ <= fpt_n_; fpt_i_++) { \
		size_t fpt_to_ = fpt_i_ < fpt_n_ ? fpt_cut_[fpt_i_] : (len); \
		UPDATE((state), (buf) + fpt_at_, fpt_to_ - fpt_at_); \
		fpt_at_ = fpt_to_; \
	} \
} while (0)

#endif
