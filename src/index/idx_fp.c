/* idx_fp.c - a book's fingerprint as the index takes it (idx_fp.h): the check
 * of what a caller supplies and the fingerprint tag. */
#include "idx_fp.h"

#include <errno.h>
#include <string.h>

#include "byteorder.h"
#include "idx_i.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

/* The tag of a fingerprint (idx_fp_tag()): simhash, text hash and record
 * version, hashed; never 0. */
uint64_t idx_fp_tag_of(const uint8_t sh[IDX_SH_BYTES], const uint8_t th[IDX_SH_BYTES],
		       uint32_t rec_version)
{
	uint8_t b[2 * IDX_SH_BYTES + 4];
	uint64_t t;

	memcpy(b, sh, IDX_SH_BYTES);
	memcpy(b + IDX_SH_BYTES, th, IDX_SH_BYTES);
	be_put(b + 2 * IDX_SH_BYTES, rec_version, 4);
	t = XXH3_64bits(b, sizeof(b));
	return t ? t : 1;
}

uint64_t idx_fp_tag(const struct idx_file *f)
{
	return f->has_fp ? idx_fp_tag_of(f->simhash, f->text_hash, f->rec_version) : 0;
}

/* 0 when fp can be stored, else -EINVAL. */
int idx_fp_check(const struct idx_fp *fp)
{
	if (!fp || fp->n_mh_bands > MH_MAX || fp->rec_len > REC_MAX ||
	    (fp->n_mh_bands && !fp->mh_bands) || (fp->rec_len && !fp->rec) ||
	    fp->n_uq_keys > IDX_UQ_MAX || (fp->n_uq_keys && !fp->uq_keys))
		return -EINVAL;
	return 0;
}
