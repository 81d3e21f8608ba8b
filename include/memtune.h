/* memtune.h - glibc's allocator set for a process that reads whole books.
 *
 * A book's text, markup and fingerprint buffers are 0.1-10 MB each, made
 * and freed once per book.  glibc serves blocks over its mmap threshold
 * (128 KiB at first, raised by each such free) with fresh mmap()s and
 * gives freed heap tops back to the kernel, so the next book faults the
 * same memory in again: the same file took 19 ms or 35 ms to extract
 * depending on what the process had freed before it.  Fixed thresholds
 * keep those buffers in the heap; memtune_idle() gives the free heap back
 * when the work is done (the daemon after indexing 40 books: 26-28 MB
 * resident when idle, 21-22 MB without these settings).
 */
#ifndef MEMTUNE_H
#define MEMTUNE_H

/* Sets the thresholds; call once at the start of main(), before threads. */
void memtune_init(void);

/* Returns the free heap memory of every arena to the kernel (a worker
 * going idle after a batch of books). */
void memtune_idle(void);

#endif
