/* fuzz_fp.c - libFuzzer target: every fingerprint family on arbitrary bytes
 * (invalid UTF-8, NULs, runs of spaces) must not crash, and feeding the
 * bytes in two pieces cut anywhere must give the same fingerprints.
 *
 *   make fuzz && build-fuzz/fuzz/fuzz_fp -max_total_time=60 CORPUS_DIR */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fp.h"
#include "fprec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fp_book one, two, dec;
	struct fp_scores s;
	struct sbuf r1, r2;
	struct fp *f;
	size_t cut;

	if (size < 1)
		return 0;
	cut = data[0] % size;	/* the first byte picks the cut */
	fp_book_init(&one);
	fp_book_init(&two);
	fp_book_init(&dec);
	sbuf_init(&r1);
	sbuf_init(&r2);
	f = fp_new();
	if (!f || fp_compute_text(data, size, &one) != 0)
		abort();
	if (fp_update(f, data, cut) != 0 || fp_update(f, data + cut, size - cut) != 0 ||
	    fp_final(f, &two) != 0)
		abort();
	if (fprec_encode(&one, &r1) != 0 || fprec_encode(&two, &r2) != 0 ||
	    r1.len != r2.len || memcmp(r1.buf, r2.buf, r1.len) != 0)
		abort();
	if (fprec_decode(r1.buf, r1.len, &dec) != 0 || fp_compare(&one, &dec, &s) != 0 ||
	    s.simhash_distance != 0 || !s.same_text)
		abort();
	fp_free(f);
	fp_book_release(&one);
	fp_book_release(&two);
	fp_book_release(&dec);
	sbuf_release(&r1);
	sbuf_release(&r2);
	return 0;
}
