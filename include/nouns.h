/* nouns.h - which capitalised words of a text are common nouns, by the
 * text's own evidence (for the names sketch, names.h, of a text that writes
 * its nouns with a capital: German, Luxembourgish, old English prints).
 *
 * A capitalised word inside a sentence is taken for a common noun when
 *  - it follows, at least once, a lower-case word that the text mostly
 *    follows with a capital (an article or a possessive: at least
 *    NOUNS_DET_MIN followers, half of them capitalised), or a lower-case
 *    word whose last two letters are mostly followed by a capital
 *    (inflected adjectives: at least NOUNS_SUF_MIN followers, 40%; the
 *    articles above not counted);
 *  - or it shares its first NOUNS_PREFIX letters with another capitalised
 *    word (inflected forms, compounds with one head: a name keeps one
 *    form);
 *  - or it ends with another capitalised word of NOUNS_TAIL letters or
 *    more (a compound);
 *  - or it is longer than NOUNS_END + 1 letters and NOUNS_END_MIN such
 *    capitalised words or more end with its last NOUNS_END letters
 *    (derivational endings: -ung, -chen, -heit; names end alike seldom).
 * Only the text's own words are used: no dictionary, so any language
 * (and any text where most capitalised words are not names) is read alike.
 * Deterministic.
 */
#ifndef NOUNS_H
#define NOUNS_H

#include <stddef.h>
#include <stdint.h>

#define NOUNS_DET_MIN 10
#define NOUNS_SUF_MIN 30
#define NOUNS_PREFIX 5
#define NOUNS_TAIL 4
#define NOUNS_END 3
#define NOUNS_END_MIN 8

/* A word token of the text, in text order. */
enum nouns_cls {
	NOUNS_LOWER,	/* lower case first */
	NOUNS_CAP,	/* a capital first inside a sentence */
	NOUNS_OTHER	/* a capital at a sentence start, a number, all capitals */
};

struct nouns_tok {
	uint64_t h;		/* the caller's identity of the word (case folded) */
	uint32_t off, len;	/* its bytes in the text */
	uint32_t cls;		/* enum nouns_cls */
};

/* Reads the n tokens tok of text (UTF-8; tok[i].off + len within it) and
 * returns in *nouns (sorted, each once; the caller frees it) the h of the
 * NOUNS_CAP words that are common nouns by the rules above, *nn of them.
 * 0 or -ENOMEM (*nouns NULL). */
int nouns_mark(const char *text, const struct nouns_tok *tok, size_t n, uint64_t **nouns,
	       size_t *nn);

#endif
