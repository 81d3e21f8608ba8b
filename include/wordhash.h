/* wordhash.h - streaming word splitter for normalised text (norm.h).
 *
 * Turns normalised bytes, fed in pieces split anywhere (inside a word or a
 * multi-byte character), into the sequence of 64-bit word hashes that every
 * word-based fingerprint (min-hash, multi-lexicon simhash, DUPNIQ, chunk
 * sketches) consumes.  Words are the maximal runs of bytes other than the
 * ASCII space; a run of several spaces counts as one separator, so the
 * splitter tolerates input that is not perfectly normalised.
 *
 * Word hash: XXH3_64bits_withSeed(word bytes, length, WORDHASH_SEED).  The
 * value is stored (indirectly) in fingerprint records: never change it
 * without bumping the record format version (fprec.h).
 */
#ifndef WORDHASH_H
#define WORDHASH_H

#include <stddef.h>
#include <stdint.h>

#include "sbuf.h"

#define WORDHASH_SEED UINT64_C(0x73696d626f6f6b31)	/* "simbook1" */

/* Called once per complete word, in text order; idx counts words from 0. */
typedef void wordhash_fn(void *ctx, uint64_t hash, uint32_t idx);

/* Embedded by its owner; wordhash_init() allocates nothing. */
struct wordhash {
	struct sbuf part;	/* bytes of a word cut by the end of a piece */
	uint32_t nwords;	/* words emitted so far */
};

void wordhash_init(struct wordhash *wh);
void wordhash_release(struct wordhash *wh);
/* Feeds len bytes; fn runs for each word completed by them.  Returns 0 or
 * -ENOMEM (the word being cut is then lost; the state stays usable). */
int wordhash_update(struct wordhash *wh, const void *buf, size_t len,
		    wordhash_fn *fn, void *ctx);
/* Ends the word being cut, if any (as a space would): for chunk breaks. */
void wordhash_flush(struct wordhash *wh, wordhash_fn *fn, void *ctx);
/* Emits the last word, if any, and resets wh for a new text. */
void wordhash_final(struct wordhash *wh, wordhash_fn *fn, void *ctx);
/* Hash of one word (bytes without spaces). */
uint64_t wordhash_of(const void *word, size_t len);

#endif
