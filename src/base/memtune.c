/* memtune.c - glibc's allocator set for a process that reads whole books. */
#include "memtune.h"

#include <stdlib.h>	/* __GLIBC__ */

/* Under AddressSanitizer the allocator is the sanitizer's, and glibc's
 * malloc_trim() would set up glibc's own arenas from whichever thread
 * calls it first, which glibc then miscounts at that thread's exit
 * ("malloc assertion failure in __malloc_arena_thread_freeres"). */
#if defined(__SANITIZE_ADDRESS__)
#define MEMTUNE_OFF 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MEMTUNE_OFF 1
#endif
#endif

#if defined(__GLIBC__) && !defined(MEMTUNE_OFF)
#include <malloc.h>

/* Above every buffer of a usual book; a larger one is still mapped apart
 * and unmapped at free.  The trim threshold is twice it, so freeing one
 * such buffer at the top of the heap does not hand it back at once. */
#define MMAP_THRESHOLD (8 << 20)
#define TRIM_THRESHOLD (16 << 20)

void memtune_init(void)
{
	(void)mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD);
	(void)mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD);
}

void memtune_idle(void)
{
	(void)malloc_trim(0);
}
#else
void memtune_init(void)
{
}

void memtune_idle(void)
{
}
#endif
