/* fuzz_record.c - libFuzzer target: fprec_decode() on arbitrary bytes must
 * never crash, leak or read out of bounds, and whatever it accepts must
 * encode back to exactly the same bytes and compare without trouble.
 *
 *   make fuzz && build-fuzz/fuzz/fuzz_record -max_total_time=60 \
 *       -max_len=8192 CORPUS_DIR tests/fuzz/corpus_record */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "fp.h"
#include "fprec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one(const uint8_t *data, size_t size)
{
	struct fp_book b;
	struct fp_scores s;
	struct sbuf again;

	fp_book_init(&b);
	sbuf_init(&again);
	if (fprec_decode(data, size, &b) == 0) {
		if (fprec_encode(&b, &again) != 0 || again.len != size ||
		    memcmp(again.buf, data, size) != 0)
			abort();
		/* scores of hostile (but accepted) records stay defined */
		if (fp_compare(&b, &b, &s) != 0)
			abort();
	}
	sbuf_release(&again);
	fp_book_release(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;
	uint32_t h;

	one(data, size);
	/* again with a valid checksum, so that mutations reach the parser */
	if (size < 4 || !(copy = malloc(size)))
		return 0;
	memcpy(copy, data, size);
	h = XXH32(copy, size - 4, 0);
	copy[size - 4] = (uint8_t)(h >> 24);
	copy[size - 3] = (uint8_t)(h >> 16);
	copy[size - 2] = (uint8_t)(h >> 8);
	copy[size - 1] = (uint8_t)h;
	one(copy, size);
	free(copy);
	return 0;
}
