/* names.h - a sketch of a book's names and numbers in their order, the part
 * of a text that another translation keeps (candidate search only).
 *
 * Definition: the tokens of the extracted text (runs of letters and marks,
 * or of digits; before normalisation, which drops digits and case) that
 * are names or numbers: a word of two letters or more written with a
 * capital first inside a sentence (not after . ! ? : ; a quote, a bracket,
 * a dash or a blank line, where any word has one), or a run of digits.
 * Not names: a word without a lower-case letter (emphasis, a heading; one
 * of the letters of roman numerals alone, II or XIV, is a number), and in
 * verse (NAMES_VERSE_LINES lines or more inside paragraphs, most of them
 * starting with a capital) the first word of a line.
 * In a text that capitalises its common nouns (NAMES_NOUN_CAPS_PCT), a
 * capitalised word that nouns.h takes for a common noun is no name either.
 * Of them the rare ones, those whose word (in any case) has at most NAMES_RARE
 * occurrences in the book (a verse number or the hero's name recurs
 * everywhere and says nothing).  Keys: each pair of consecutive rare
 * tokens in text order (a translation keeps names and numbers in their
 * order, so it keeps most pairs; two unrelated books share a name or two,
 * seldom a pair; two numbers in a row are left out: contents, verse and
 * page lists are alike in many books).
 * Two streams of keys: the names and numbers above (slots 0 ..
 * NAMES_NAME_SLOTS - 1), and the same with every other capitalised word
 * (sentence and verse line starts) written with a capital at most
 * NAMES_RARE times (the rest of the slots): a text whose only capitals
 * start its sentences has no names, and a rewording that keeps its
 * capitalised words keeps that stream; kept apart, so that one side's
 * sentence starts do not break the names stream's pairs.  Each stream's
 * slots are independent minima over its key set (k-mins min-hash): two
 * books share slot i with probability the Jaccard index of their key sets
 * of that stream.  A stream with fewer than NAMES_MIN_KEYS keys fills its
 * slots from the other's, so they match only where all of those do.  The
 * Project Gutenberg header and licence are left out as for the
 * fingerprints (norm_strip_gutenberg()).
 * Deterministic: a function of the text alone, on every machine.
 */
#ifndef NAMES_H
#define NAMES_H

#include <stddef.h>
#include <stdint.h>

#define NAMES_SLOTS 32
#define NAMES_NAME_SLOTS 24	/* the names stream's; the rest every capital's */
#define NAMES_RARE 6
#define NAMES_VERSE_LINES 50
/* A text with this percentage of its words or more capitalised inside a
 * sentence (verse line starts not counted) writes its common nouns with a
 * capital: its names stream keeps only the capitalised words that nouns.h
 * does not take for nouns.  Measured on the shared books: the two German
 * texts 16.7% and 18.0%; the English and French texts and EPUBs 1-8%, the
 * First Folio Hamlet 11.0%, an EPUB of place names (IDPF georgia-cfi)
 * 13.1%. */
#define NAMES_NOUN_CAPS_PCT 12
/* Fewer keys than this: too few names to sketch (nkeys says how many). */
#define NAMES_MIN_KEYS 8

struct names_sketch {
	uint32_t nkeys;			/* pairs of consecutive rare tokens (the
					 * stream with more) */
	uint64_t slot[NAMES_SLOTS];	/* minima; all 0 when nkeys is 0 */
};

/* Sketches len bytes of UTF-8 text (invalid bytes separate tokens) into
 * out.  0 or -ENOMEM (out zeroed). */
int names_sketch(const char *utf8, size_t len, struct names_sketch *out);

/* Slots two sketches share (both with nkeys >= NAMES_MIN_KEYS; else 0). */
unsigned names_shared(const struct names_sketch *a, const struct names_sketch *b);

#endif
