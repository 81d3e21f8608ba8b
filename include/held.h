/* held.h - books another process is fingerprinting (it holds their claim,
 * idx_claim()), handed back for a second look when that claim ends: by
 * then the book is stored (the look finds it up to date) or its claimer
 * died (this process does the work).  One thread of its own, started with
 * the first held path; every function may be called from any thread
 * except held_free(). */
#ifndef HELD_H
#define HELD_H

#include <stddef.h>

struct held;

/* Called on the held thread with a path whose time came (path valid
 * during the call). */
typedef void held_fn(void *arg, const char *path);

/* *out: held_free().  0 or -ENOMEM. */
int held_new(struct held **out, held_fn *fn, void *arg);
/* Hands path (copied) back to fn in about ms milliseconds (within a
 * quarter of a second after).  0, -ENOMEM, or -errno from starting the
 * thread. */
int held_add(struct held *h, const char *path, unsigned ms);
/* How many paths wait. */
size_t held_count(struct held *h);
/* Stops the thread, drops the paths still waiting, frees h (NULL: nothing). */
void held_free(struct held *h);

#endif
