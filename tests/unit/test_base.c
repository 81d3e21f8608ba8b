/* test_base.c - the small shared helpers of src/base: byte order, array
 * growth, union-find, the monotonic clock. */
#include "check.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "byteorder.h"
#include "grow.h"
#include "monoclock.h"
#include "ufind.h"

static void test_byteorder(void)
{
	uint8_t b[8];
	unsigned n;

	be_put(b, 0x0102030405060708ull, 8);
	CHECK(b[0] == 1 && b[7] == 8);
	CHECK(be_get(b, 8) == 0x0102030405060708ull);
	for (n = 1; n <= 8; n++) {
		uint64_t v = 0xfedcba9876543210ull & (n == 8 ? ~0ull : (1ull << (8 * n)) - 1);

		memset(b, 0xaa, sizeof(b));
		be_put(b, v, n);
		CHECK(be_get(b, n) == v);
		if (n < 8)
			CHECK(b[n] == 0xaa);	/* nothing written past n bytes */
	}
	/* big-endian keys sort as numbers */
	{
		uint8_t x[4], y[4];

		be_put(x, 255, 4);
		be_put(y, 256, 4);
		CHECK(memcmp(x, y, 4) < 0);
	}
}

static void test_grow(void)
{
	uint32_t *v = NULL;
	size_t cap = 0, n, i;

	for (n = 0; n < 10000; n++) {
		CHECK(ARRAY_GROW(v, cap, n + 1) == 0);
		CHECK(cap >= n + 1);
		v[n] = (uint32_t)n;
	}
	for (i = 0; i < n; i++)
		CHECK(v[i] == i);
	/* no growth needed: nothing changes */
	{
		uint32_t *old = v;
		size_t oc = cap;

		CHECK(ARRAY_GROW(v, cap, 5) == 0);
		CHECK(v == old && cap == oc);
	}
	/* an impossible size fails and keeps the array */
	{
		uint32_t *old = v;
		size_t oc = cap;

		CHECK(ARRAY_GROW(v, cap, SIZE_MAX / 2) == -ENOMEM);
		CHECK(v == old && cap == oc);
	}
	free(v);
}

static void test_ufind(void)
{
	struct ufind u;
	size_t i;

	CHECK(ufind_init(&u, 10) == 0);
	for (i = 0; i < 10; i++)
		CHECK(ufind_find(&u, i) == i);
	CHECK(ufind_union(&u, 7, 3) == 3);
	CHECK(ufind_union(&u, 9, 7) == 3);
	CHECK(ufind_union(&u, 5, 1) == 1);
	CHECK(ufind_union(&u, 3, 5) == 1);	/* the smaller root wins */
	CHECK(ufind_find(&u, 9) == 1);
	CHECK(ufind_find(&u, 0) == 0);
	CHECK(ufind_union(&u, 9, 1) == 1);	/* already joined */
	ufind_release(&u);
	CHECK(u.parent == NULL);
	ufind_release(&u);

	/* the partition and the roots do not depend on the order of unions */
	{
		struct ufind a, b;
		size_t k;

		CHECK(ufind_init(&a, 1000) == 0);
		CHECK(ufind_init(&b, 1000) == 0);
		for (k = 0; k < 600; k++)
			ufind_union(&a, (k * 7919) % 1000, (k * 104729 + 13) % 1000);
		for (k = 600; k-- > 0;)
			ufind_union(&b, (k * 104729 + 13) % 1000, (k * 7919) % 1000);
		for (k = 0; k < 1000; k++)
			CHECK(ufind_find(&a, k) == ufind_find(&b, k));
		ufind_release(&a);
		ufind_release(&b);
	}
}

static void test_monoclock(void)
{
	int64_t a = monoclock_ns(), b = monoclock_ns();

	CHECK(a > 0 && b >= a);
}

int main(void)
{
	RUN(test_byteorder);
	RUN(test_grow);
	RUN(test_ufind);
	RUN(test_monoclock);
	return CHECK_DONE();
}
