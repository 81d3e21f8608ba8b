/* test_memtune.c - the allocator settings: a book-sized buffer comes from
 * the heap, not a fresh mapping, and the heap it left behind goes back to
 * the kernel when memtune_idle() is called. */
#include "check.h"

#include <stdlib.h>
#include <string.h>

#include "memtune.h"

/* Under AddressSanitizer the allocator is the sanitizer's. */
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
#define GLIBC_MALLOC 1
#include <malloc.h>

static void test_book_buffers(void)
{
	enum { N = 12, SIZE = 1 << 20 };	/* under the trim threshold */
	char *b[N];
	struct mallinfo2 mi;
	size_t before, i;

	memtune_init();
	mi = mallinfo2();
	before = mi.hblks;
	for (i = 0; i < N; i++) {
		b[i] = malloc(SIZE);
		REQUIRE(b[i]);
		memset(b[i], (int)i, SIZE);	/* faulted in, as a book is */
	}
	mi = mallinfo2();
	CHECK(mi.hblks == before);	/* none of them was mapped apart */
	CHECK(mi.uordblks >= (size_t)N * SIZE);
	for (i = 0; i < N; i++)
		free(b[i]);
	mi = mallinfo2();
	CHECK(mi.fordblks >= (size_t)N * SIZE);	/* kept for the next book */
	memtune_idle();
	mi = mallinfo2();
	CHECK(mi.fordblks < (size_t)SIZE);	/* handed back when idle */
	/* a buffer over the threshold is still mapped apart */
	b[0] = malloc(12u << 20);
	REQUIRE(b[0]);
	mi = mallinfo2();
	CHECK(mi.hblks == before + 1);
	free(b[0]);
}
#else
static void test_book_buffers(void)
{
	memtune_init();
	memtune_idle();
	SKIP("not glibc's allocator");
}
#endif

int main(void)
{
	RUN(test_book_buffers);
	return CHECK_DONE();
}
