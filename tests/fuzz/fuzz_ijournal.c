/* fuzz_ijournal.c - libFuzzer target: ijr_parse() on arbitrary bytes must
 * never crash or read past them; the readable prefix it reports is within
 * the input, holds whole records only (parsing it alone gives the same
 * records and no damage), and every record it hands out has the shape the
 * writer makes.
 *
 *   make fuzz && build-fuzz/fuzz/fuzz_ijournal -max_total_time=60 \
 *       CORPUS_DIR tests/fuzz/corpus_ijournal */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ijournal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct tally {
	size_t n;
	uint64_t h;
};

static void rec(void *arg, enum ijr_op op, const char *a, const char *b)
{
	struct tally *t = arg;
	int two = op == IJR_RENAME || op == IJR_EXCHANGE || op == IJR_LINK;

	if (op == IJR_RESCAN ? a || b : !a || !*a || !b != !two || strlen(a) > IJR_PATH_MAX)
		abort();
	if (b && (!*b || strlen(b) > IJR_PATH_MAX))
		abort();
	t->n++;
	t->h = t->h * 31 + (uint64_t)op + (a ? strlen(a) : 0) * 7 + (b ? strlen(b) : 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tally one = { 0, 0 }, two = { 0, 0 };
	int damaged = 0, again = 0;
	size_t good = ijr_parse(data, size, rec, &one, &damaged);

	if (good > size || (!damaged && good != size) || (good && good < IJR_MAGIC_LEN))
		abort();
	if (good) {
		if (ijr_parse(data, good, rec, &two, &again) != good || again || two.n != one.n ||
		    two.h != one.h)
			abort();
	}
	return 0;
}
