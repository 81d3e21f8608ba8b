/* idx_fp.h - what the fingerprinting supplies the index for one book
 * (struct idx_fp), in a header of its own so that the code that builds it
 * (bookrec.h) need not see the index's API.  idx.h includes it.
 */
#ifndef IDX_FP_H
#define IDX_FP_H

#include <stddef.h>
#include <stdint.h>

#define IDX_SH_BYTES 16		/* simhash-128 and text hash, most significant byte first */
#define IDX_UQ_MAX 4096		/* pruning keys per book at most */
/* A pruning key with this bit set is of the second kind (shingle anchors),
 * counted apart from the first (idx_uq_candidates()). */
#define IDX_UQ_HI 0x80000000u

/* What the fingerprinting work supplies for one book.  The index copies it. */
struct idx_fp {
	uint8_t simhash[IDX_SH_BYTES];
	uint8_t text_hash[IDX_SH_BYTES];
	const uint64_t *mh_bands;	/* min-hash LSH band hashes, band i = mh_bands[i] */
	uint32_t n_mh_bands;		/* <= 1024 */
	uint32_t rec_version;		/* the record format's version */
	const void *rec;		/* the encoded fingerprint record */
	size_t rec_len;			/* <= 64 MiB */
	const uint32_t *uq_keys;	/* pruning keys (bookrec_fp_make()), ascending, unique */
	uint32_t n_uq_keys;		/* <= IDX_UQ_MAX; 0: none */
};

#endif
