/* mutate.h - deterministic text mutations and synthetic books for the
 * accuracy harness (ALGORITHMS.md: OCR-style errors, sentence edits, partial
 * replacement, containment, format variants).
 *
 * Everything here is pure C over buffers and depends only on the seed: the
 * generator is xoshiro256** seeded through splitmix64, and every random
 * choice is drawn from it in a fixed order, so one seed gives the same bytes
 * on every machine.  Text is treated as UTF-8: mutations only ever split the
 * input at character boundaries and insert ASCII, so valid UTF-8 stays valid.
 *
 * Functions that produce text append to a caller-owned struct sbuf and return
 * 0 or -ENOMEM (the buffer may then hold part of the output); -EINVAL for
 * bad arguments.
 */
#ifndef MUTATE_H
#define MUTATE_H

#include <stddef.h>
#include <stdint.h>

#include "sbuf.h"

/* Random generator: xoshiro256**, state seeded by splitmix64(seed). */
struct mut_rng {
	uint64_t s[4];
};

void mut_rng_seed(struct mut_rng *r, uint64_t seed);
uint64_t mut_rng_next(struct mut_rng *r);
/* Uniform in [0, n); n == 0 gives 0.  Unbiased (rejection sampling). */
uint64_t mut_rng_below(struct mut_rng *r, uint64_t n);
/* Uniform double in [0, 1) with 53 random bits. */
double mut_rng_unit(struct mut_rng *r);

/* What mut_ocr() did, by kind of error. */
struct mut_ocr_stats {
	size_t chars;		/* characters (code points) of the input */
	size_t space_ins;	/* a space inserted before the character */
	size_t insert;		/* a random letter inserted */
	size_t subst;		/* one character replaced by one to three */
	size_t merge;		/* two characters merged into one (rn -> m) */
	size_t del;		/* a character dropped */
};

/* Appends to out a copy of in[0..len) where each character receives an
 * OCR-style error with probability rate (0 <= rate <= 1).  Error kinds, in
 * the proportions of the simhash study (space insertion the most common):
 * 40% space inserted, 20% random letter inserted, 25% substitution of one
 * character by one to three look-alikes (m -> rn, d -> cl, e -> c ...), 10%
 * merge of two characters into one (rn -> m, cl -> d, vv -> w ...), 5%
 * deletion.  Non-ASCII characters and line breaks only ever receive a space
 * insertion, so UTF-8 stays valid.  st (may be NULL) receives the counts. */
int mut_ocr(struct mut_rng *r, const char *in, size_t len, double rate,
	    struct sbuf *out, struct mut_ocr_stats *st);

/* Sentence edits: each sentence of in is dropped with probability rate, and
 * sentences drawn at random from donor are inserted at the places of the
 * dropped ones until as many bytes were added as removed, so the length
 * stays similar.  A sentence ends after '.', '!' or '?' followed by white
 * space, or at a blank line.  *removed and *added (may be NULL) receive the
 * sentence counts. */
int mut_sentences(struct mut_rng *r, const char *in, size_t len,
		  const char *donor, size_t dlen, double rate,
		  struct sbuf *out, size_t *removed, size_t *added);

/* Partial replacement: one contiguous region holding the fraction frac
 * (0 < frac < 1) of in is replaced by a contiguous piece of donor of the
 * same length (cut at white space on both texts).  When donor is shorter
 * than the region, the whole donor is used.  *replaced (may be NULL)
 * receives the number of bytes of in that were replaced. */
int mut_replace(struct mut_rng *r, const char *in, size_t len,
		const char *donor, size_t dlen, double frac,
		struct sbuf *out, size_t *replaced);

/* A contiguous part of in: bytes [from*len, to*len) moved to the nearest
 * paragraph (blank line) or else white-space boundary, 0 <= from < to <= 1.
 * Models volume 1 of a complete work (from = 0). */
int mut_slice(const char *in, size_t len, double from, double to, struct sbuf *out);

/* Anthology: the texts parts[0..n) joined in order, each followed by a
 * blank line.  Used with the book under test as one of the parts. */
int mut_join(const char *const *parts, const size_t *lens, size_t n, struct sbuf *out);

/* Minimal XHTML page around plain text: paragraphs at blank lines, &, <
 * and > escaped, a <title>.  Any white-space convention of the input is kept
 * inside the paragraphs. */
int mut_html(const char *title, const char *text, size_t len, struct sbuf *out);

/* Writes a minimal valid EPUB 3 (mimetype stored first, container.xml, OPF
 * with a spine, nav document) at path, the text split into nchapters
 * XHTML spine items at paragraph boundaries (1 <= nchapters <= 1000).
 * Returns 0, -EINVAL, -ENOMEM or -EIO (libzip failure). */
int mut_epub_write(const char *path, const char *title, const char *text, size_t len,
		   unsigned nchapters);

/* Synthetic pseudo-English book of about nwords words: sentences of 5 to 30
 * words with capitals and punctuation, paragraphs of 2 to 8 sentences.  The
 * vocabulary is a fixed list of common English words followed by
 * syllable-built words, drawn with a Zipf law (so a book has many words that
 * occur once, as real books do).  author selects a reordering of the
 * vocabulary and a set of stock phrases shared by all books of that author;
 * seed selects the book.  Same (author, seed, nwords), same bytes. */
int mut_synth(uint64_t author, uint64_t seed, size_t nwords, struct sbuf *out);

/* Rewording, as another translation or a revised one does: every word
 * that names or counts (a capital first: names, places, sentence starts;
 * or a digit: numbers, verses) is kept, in its place; every other word is,
 * with probability rate (0..1), replaced by a counterpart in the
 * pseudo-language lang: one of variants (>= 1) words that are a function
 * of the word, lang and the variant alone, so a word is translated the
 * same way throughout with one variant, and with a few synonyms with more.
 * Punctuation and white space are kept.  -EINVAL for a rate out of range
 * or no variant. */
int mut_reword(struct mut_rng *r, const char *in, size_t len, double rate, uint64_t lang,
	       unsigned variants, struct sbuf *out);

/* A language that capitalises its nouns: each lower-case word of in (an
 * ASCII letter first) becomes, with probability share (0..1), a noun: an
 * article (one of four pseudo-words, lower case) and the word with a
 * capital.  The rest is kept.  -EINVAL for a share out of range. */
int mut_nouns(struct mut_rng *r, const char *in, size_t len, double share, struct sbuf *out);

/* Partial replacement or insertion in parts (mutate_parts.c): the text cut
 * into nparts equal segments, and in each one a region of the fraction
 * frac of the segment replaced by donor text (insert = 0), or donor text
 * inserted so that it makes the fraction frac of the result (insert = 1:
 * the whole of in stays, in order).  The region sits at the relative place
 * where of its segment (0: its start, 1: its end; negative: at random).
 * One part at 0, 0.5 or 1 is a block at the start, middle or end; many
 * parts at 0 are interleaved chapters.  The donor is read on from a random
 * place, wrapping round, cut at white space.  *other (may be NULL)
 * receives the bytes of donor text written. */
struct mut_parts_spec {
	double frac;		/* 0 < frac < 1 */
	unsigned nparts;	/* >= 1 */
	double where;		/* <= 1 */
	int insert;
};

int mut_parts(struct mut_rng *r, const char *in, size_t len, const char *donor, size_t dlen,
	      const struct mut_parts_spec *sp, struct sbuf *out, size_t *other);

#endif
