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

/* Exact rules implemented by norm_run() (the contract above, made precise):
 *  - each code point goes through utf8proc's compatibility decomposition with
 *    case folding, then canonical composition (UTF8PROC_COMPAT |
 *    UTF8PROC_CASEFOLD | UTF8PROC_COMPOSE | UTF8PROC_STABLE), utf8proc 2.x
 *    tables; invalid UTF-8 bytes become U+FFFD (a separator);
 *  - word characters: general categories L* and M* (a mark is treated like
 *    a letter, except that after a per-character-script letter it attaches
 *    to that letter instead of starting a new word);
 *  - per-character scripts (each letter its own word, following marks attach
 *    to it): Thai, Lao, Myanmar, Khmer, CJK radicals and ideographs (all
 *    planes), Hiragana, Katakana (incl. phonetic extensions), Bopomofo, Yi;
 *  - joiners, never emitted: apostrophes U+0027, U+2019, U+02BC and hyphens
 *    U+002D, U+2010, U+2011, U+00AD between two letters join them; a hyphen
 *    followed by white space containing a line break (LF, CR, U+0085,
 *    U+2028, U+2029) and then a letter also joins ("to-\nday" -> "today");
 *    a hyphen followed by spaces without a line break does not;
 *  - format characters (Cf: BOM, ZWSP, ZWJ, ...) other than U+00AD are
 *    ignored without ending the word;
 *  - everything else (digits, punctuation, symbols, spaces, controls,
 *    separators) ends the current word.
 */

/* Makes an empty doc that owns nothing (safe to release). */
void norm_doc_init(struct norm_doc *doc);
/* Frees everything doc owns and leaves it empty. */
void norm_doc_release(struct norm_doc *doc);

/* Normalises len bytes of UTF-8 (need not be NUL-terminated; invalid bytes
 * are tolerated) into out, which must be empty (norm_doc_init) and is owned
 * by the caller afterwards.
 * chunk_off: nchunks byte offsets into utf8, ascending (may be NULL when
 * nchunks is 0); chunk k's first word is the first word that starts at or
 * after chunk_off[k] (chunk_word[0] is always 0, so words before
 * chunk_off[0] belong to chunk 0).  Word starts are located exactly when
 * each chunk starts after ASCII white space (extraction separates chunks
 * by "\n\n").
 * Returns 0, -EINVAL (offsets not ascending or beyond len, or more than
 * 2^32-1 bytes of output), -ENOMEM; out is left empty on error. */
int norm_run(const char *utf8, size_t len, const size_t *chunk_off, size_t nchunks,
	     struct norm_doc *out);

/* Finds the body of a Project Gutenberg text between its header and footer
 * markers: header = a line starting with "*** START OF THE PROJECT GUTENBERG",
 * "*** START OF THIS PROJECT GUTENBERG" (any number of '*' and spaces before
 * START, ASCII case-insensitive) or "*END*THE SMALL PRINT!" (old releases),
 * looked for in the first 256 KiB; the body starts at the next line.
 * Footer = the first line after the header starting with "*** END OF THE/THIS
 * PROJECT GUTENBERG" (any '*' and spaces before END), "End of the Project
 * Gutenberg" or "End of Project Gutenberg" (optionally after "The "); the
 * body ends where that line starts.  Leading spaces on a line
 * are skipped.
 * Sets *start and *end (0 <= start <= end <= len; the whole text when no
 * marker is found) and returns a bit mask: NORM_PG_HEADER | NORM_PG_FOOTER
 * for the markers found (0 when none). */
#define NORM_PG_HEADER 1
#define NORM_PG_FOOTER 2
int norm_strip_gutenberg(const char *text, size_t len, size_t *start, size_t *end);

/* The fingerprint input of a book: norm_strip_gutenberg() then norm_run() on
 * the body, with chunk_off (offsets into the whole text) clamped to the body.
 * Same ownership and errors as norm_run(). */
int norm_book(const char *utf8, size_t len, const size_t *chunk_off, size_t nchunks,
	      struct norm_doc *out);

#endif
