/* norm.h - normalised text: the input of every fingerprint.
 *
 * The contract between extraction and fingerprints (ALGORITHMS.md):
 *  - UTF-8, Unicode compatibility-normalised (NFKC) and case-folded, in every
 *    script, not only ASCII;
 *  - words are runs of letters (and combining marks); digits, punctuation and
 *    symbols are dropped; an apostrophe or hyphen inside a word is dropped
 *    and joins its two halves ("don't" -> "dont", "to-day" -> "today", and a
 *    word hyphenated across a line break is joined);
 *  - each character of a script written without spaces (Han, Hiragana,
 *    Katakana, Thai, ...) is a word of its own, so word n-grams over such text
 *    are character n-grams;
 *  - words are separated by exactly one ASCII space; no leading or trailing
 *    space; the empty text has no words;
 *  - the Project Gutenberg header and licence footer are removed before
 *    normalising when present (norm_strip_gutenberg()).
 * The same input always gives the same bytes, on every machine.
 */
#ifndef NORM_H
#define NORM_H

#include <stddef.h>
#include <stdint.h>

struct norm_doc {
	char *text;		/* NUL-terminated normalised text, owned */
	size_t len;		/* bytes, excluding the NUL */
	uint32_t *word_off;	/* byte offset in text of each word's start, owned */
	size_t nwords;
	uint32_t *chunk_word;	/* first word of each input chunk, ascending, owned;
				 * chunk_word[0] == 0 when nchunks > 0 */
	size_t nchunks;
};

#endif
