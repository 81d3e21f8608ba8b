/* lang.h - the language of a text, from a sample of it.
 *
 * Two steps: the script of the letters (code point ranges), which names the
 * language outright for Greek (el), Hebrew (he), Hangul (ko), kana (ja),
 * Han with less than a tenth kana (zh), Devanagari (hi), Thai (th), Armenian (hy),
 * Georgian (ka), and Arabic script (ar; fa when the letters only Persian
 * uses are frequent); then, for Latin and Cyrillic, the share of the words
 * that are among a language's most frequent function words (a stop-word
 * profile per language, LANG_LATIN and LANG_CYRILLIC below).  The best
 * language must cover at least LANG_MIN_SHARE of the words and beat the
 * second by LANG_MARGIN, else the answer is "unknown" (a text too short,
 * mixed, or in a language without a profile).  Deterministic, pure.
 */
#ifndef LANG_H
#define LANG_H

#include <stddef.h>

#define LANG_SAMPLE (256u << 10)	/* bytes of the text read at most */
#define LANG_MIN_WORDS 50		/* fewer words (of a cased script): unknown */
#define LANG_MIN_SHARE 0.08
#define LANG_MARGIN 1.3
/* A Han, kana or Hangul character writes a syllable or a word: it weighs
 * as this many letters of an alphabet when the scripts are counted, so a
 * Japanese or Chinese manual full of English commands is not "unknown". */
#define LANG_SYLLABLE_LETTERS 2

/* The language of len bytes of UTF-8 (the first LANG_SAMPLE of them): an
 * ISO 639-1 code, static, or "" when unknown.  Invalid bytes separate
 * words. */
const char *lang_detect(const char *utf8, size_t len);

/* The ISO 639-1 code of a declared language (EPUB/OPF dc:language, HTML
 * lang, FB2 lang: "en", "en-GB", "EN_us", "eng", "fre", "deu"...), static,
 * or "" when not one lang_detect() can answer. */
const char *lang_code(const char *declared);

/* 1 when a and b are both known (non-empty) and differ. */
int lang_differ(const char *a, const char *b);

#endif
