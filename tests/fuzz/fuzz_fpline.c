/* fuzz_fpline.c - libFuzzer target: fpline_decode() on arbitrary bytes
 * must never crash, leak or read out of bounds, and whatever it accepts
 * must encode back to exactly the same line (its final '\n' optional).
 *
 *   make fuzz && build-fuzz/fuzz/fuzz_fpline -max_total_time=60 CORPUS_DIR \
 *       tests/fuzz/corpus_fpline */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fpline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fpline r;
	struct sbuf again;
	size_t n = size && data[size - 1] == '\n' ? size - 1 : size;
	int ret;

	sbuf_init(&again);
	ret = fpline_decode((const char *)data, size, &r);
	if (ret == 0) {
		if (fpline_encode(&r, &again) != 0 || again.len != n + 1 ||
		    memcmp(again.buf, data, n) != 0)
			abort();
	} else if (ret != -EINVAL && ret != -EPROTO && ret != -ENOMEM) {
		abort();
	}
	fpline_release(&r);
	sbuf_release(&again);
	return 0;
}
