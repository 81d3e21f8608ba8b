/* wordhash.c - streaming word splitter and word hash (wordhash.h). */
#include <errno.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "wordhash.h"

void wordhash_init(struct wordhash *wh)
{
	sbuf_init(&wh->part);
	wh->nwords = 0;
}

void wordhash_release(struct wordhash *wh)
{
	sbuf_release(&wh->part);
	wh->nwords = 0;
}

uint64_t wordhash_of(const void *word, size_t len)
{
	return XXH3_64bits_withSeed(word, len, WORDHASH_SEED);
}

int wordhash_update(struct wordhash *wh, const void *buf, size_t len,
		    wordhash_fn *fn, void *ctx)
{
	const char *p = buf, *end = p + len, *w;
	int ret = 0;

	while (p < end) {
		if (*p == ' ') {
			if (wh->part.len) {
				fn(ctx, wordhash_of(wh->part.buf, wh->part.len), wh->nwords++);
				sbuf_setlen(&wh->part, 0);
			}
			p++;
			continue;
		}
		w = p;
		p = memchr(p, ' ', (size_t)(end - p));
		if (!p) {
			p = end;
			/* cut by the end of the piece: keep it for later */
			if (sbuf_add(&wh->part, w, (size_t)(p - w)) < 0) {
				sbuf_setlen(&wh->part, 0);
				ret = -ENOMEM;
			}
			break;
		}
		if (wh->part.len) {
			if (sbuf_add(&wh->part, w, (size_t)(p - w)) < 0) {
				sbuf_setlen(&wh->part, 0);
				ret = -ENOMEM;
				continue;
			}
			fn(ctx, wordhash_of(wh->part.buf, wh->part.len), wh->nwords++);
			sbuf_setlen(&wh->part, 0);
		} else {
			fn(ctx, wordhash_of(w, (size_t)(p - w)), wh->nwords++);
		}
	}
	return ret;
}

void wordhash_flush(struct wordhash *wh, wordhash_fn *fn, void *ctx)
{
	if (wh->part.len)
		fn(ctx, wordhash_of(wh->part.buf, wh->part.len), wh->nwords++);
	sbuf_setlen(&wh->part, 0);
}

void wordhash_final(struct wordhash *wh, wordhash_fn *fn, void *ctx)
{
	wordhash_flush(wh, fn, ctx);
	wh->nwords = 0;
}
