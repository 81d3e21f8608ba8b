/* fpcore_i.h - private to the fingerprint modules (src/), not an API: the
 * helpers they share, a fixed mixing function, the character n-gram window
 * over UTF-8 text, and a bit-sliced counter that sums many hash vectors bit
 * by bit.
 *
 * The stored bits of several families depend on fpc_mix() and on the
 * character rule of the n-gram window: changing either needs a new
 * FPREC_VERSION (the golden vectors in the tests will say so).
 */
#ifndef FPCORE_I_H
#define FPCORE_I_H

#include <stdint.h>
#include <string.h>

/* Set to 1 to run the portable code instead of the AVX2 code even where
 * the CPU has AVX2 (the tests check that both give the same bits). */
extern int fpc_portable;

/* Whether to take the AVX2 paths.  __builtin_cpu_supports reads a flag
 * libgcc sets at start-up: cheap, and free of the races a cached function
 * pointer would bring. */
static inline int fpc_avx2(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
	return !fpc_portable && __builtin_cpu_supports("avx2");
#else
	return 0;
#endif
}

/* splitmix64 finaliser: a fixed 64-bit bijection with good avalanche. */
static inline uint64_t fpc_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= UINT64_C(0xbf58476d1ce4e5b9);
	x ^= x >> 27;
	x *= UINT64_C(0x94d049bb133111eb);
	x ^= x >> 31;
	return x;
}

static inline void fpc_put_le64(uint8_t *p, uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* one store: byte stores read back as a word stall the CPU */
	memcpy(p, &v, 8);
#else
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
#endif
}

static inline uint64_t fpc_popcount64(uint64_t x)
{
	return (uint64_t)__builtin_popcountll(x);
}

/* Character n-gram window.  Characters follow simhash.h: a character starts
 * at each non-continuation byte and ends at the length its lead byte
 * announces or at the next non-continuation byte; a continuation byte that
 * finds no open character is one by itself. */
#define FPC_GRAM_MAX 12
#define FPC_GRAM_BUF 256

struct fpc_gram {
	unsigned n;		/* gram length in characters */
	unsigned start;		/* buf offset of the oldest character kept */
	unsigned done;		/* end of the last complete character */
	unsigned end;		/* end of the bytes, open character included */
	unsigned want;		/* expected bytes of the open character, 0: none */
	unsigned head;		/* clen ring index of the oldest character */
	unsigned nwin;		/* complete characters kept, <= n */
	uint64_t nchars;	/* complete characters seen */
	int prev_space;		/* the last complete character was a space */
	unsigned start_s;	/* short window (see fpc_gram_feed): oldest byte */
	unsigned nshort;	/* short window: complete characters kept */
	unsigned run1;		/* one-byte characters ending the text, capped at n */
	uint8_t clen[16];	/* byte lengths of the kept characters (ring),
				 * FPC_WORD_START set on a word's first one */
	uint8_t buf[FPC_GRAM_BUF];
};

#define FPC_WORD_START 0x80

static inline void fpc_gram_init(struct fpc_gram *g, unsigned n)
{
	memset(g, 0, sizeof(*g) - sizeof(g->buf));
	g->n = n;
	g->prev_space = 1;
}

static inline unsigned fpc_lead_len(uint8_t c)
{
	if (c < 0x80)
		return 1;
	if (c >= 0xf0 && c < 0xf8)
		return 4;
	if (c >= 0xe0 && c < 0xf0)
		return 3;
	if (c >= 0xc0 && c < 0xe0)
		return 2;
	return 1;	/* stray continuation or invalid lead: one byte */
}

typedef void fpc_gram_emit(void *ctx, const uint8_t *p, unsigned len);
/* The grams of len bytes starting at p, p + 1, ..., p + count - 1, in that
 * order (the same as count fpc_gram_emit calls). */
typedef void fpc_gram_run(void *ctx, const uint8_t *p, size_t count);

/* The end of the ASCII run starting at p[from]: the first i >= from with
 * p[i] >= 0x80, or len. */
static inline __attribute__((always_inline))
size_t fpc_ascii_end(const uint8_t *p, size_t from, size_t len)
{
	size_t i = from;
	uint64_t w;

	for (; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, 8);
		if (w & UINT64_C(0x8080808080808080))
			break;
	}
	while (i < len && p[i] < 0x80)
		i++;
	return i;
}

/* Bit 7 of each byte of w set where that byte is a space (exact: no
 * carries cross bytes). */
static inline uint64_t fpc_space_bytes(uint64_t w)
{
	uint64_t t = w ^ UINT64_C(0x2020202020202020);
	uint64_t lo7 = UINT64_C(0x7f7f7f7f7f7f7f7f);

	return ~(((t & lo7) + lo7) | t) & UINT64_C(0x8080808080808080);
}

/* emit(ctx, p + r + 1, n) for every r in [from, to) with p[r] == ' ', in
 * ascending order: the grams of the ASCII fast path that start a word.
 * Spaces are found 64 bytes at a time, so that the branch that depends
 * on the text is taken once per space and once per 64 bytes rather than
 * once per byte. */
static inline __attribute__((always_inline))
void fpc_each_space(const uint8_t *p, size_t from, size_t to, fpc_gram_emit *emit,
		    void *ctx, unsigned n)
{
	size_t r = from;
	uint64_t m, w;
	unsigned k;

	for (; r + 64 <= to; r += 64) {
		m = 0;
		for (k = 0; k < 8; k++) {
			memcpy(&w, p + r + 8 * k, 8);
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
			w = __builtin_bswap64(w);
#endif
			/* gather the 8 flag bits into one byte */
			m |= ((fpc_space_bytes(w) >> 7) * UINT64_C(0x0102040810204080) >> 56) << (8 * k);
		}
		while (m) {
			emit(ctx, p + r + (unsigned)__builtin_ctzll(m) + 1, n);
			m &= m - 1;
		}
	}
	for (; r < to; r++)
		if (p[r] == ' ')
			emit(ctx, p + r + 1, n);
}

/* Runs emit(ctx, bytes, len) for every n-gram completed by the bytes, or
 * with anchored != 0 only for those whose first character starts a word
 * (is the text's first or follows a space).  With emit_s not NULL, also
 * runs emit_s(ctx_s, bytes, len) for every (unanchored) gram of ns
 * characters, ns <= n, so that two families share one pass; run_s (may be
 * NULL) does the same for a run of grams on the ASCII fast path.  Always
 * inlined with constant arguments, so each family's feature code sits in
 * the loop; the state lives in locals during the loop because stores
 * through uint8_t pointers would otherwise force reloading every field. */
static inline __attribute__((always_inline))
void fpc_gram_feed(struct fpc_gram *g, const void *buf, size_t len,
		   int anchored, fpc_gram_emit *emit, void *ctx,
		   unsigned ns, fpc_gram_emit *emit_s, fpc_gram_run *run_s, void *ctx_s)
{
	const uint8_t *p = buf;
	unsigned n = g->n, start = g->start, done = g->done, end = g->end;
	unsigned want = g->want, head = g->head, nwin = g->nwin;
	unsigned start_s = g->start_s, nshort = g->nshort, run1 = g->run1, k;
	uint64_t nchars = g->nchars;
	int prev_space = g->prev_space;
	uint8_t *b = g->buf, *clen = g->clen;
	size_t i;

/* reads a gram from the input when it lies there whole: reading bytes
 * just stored one by one into b stalls the CPU */
#define FPC_EMIT(fn, c, from, iend) do { \
	unsigned wl_ = done - (from); \
	if (wl_ <= (iend)) \
		fn((c), p + (iend) - wl_, wl_); \
	else \
		fn((c), b + (from), wl_); \
} while (0)

/* closes the open character, emitting the grams that end with it */
#define FPC_CLOSE(iend) do { \
	unsigned tail_; \
	if (nwin == n) { \
		start += clen[head] & ~FPC_WORD_START; \
		head = (head + 1) & 15; \
		nwin--; \
	} \
	tail_ = (head + nwin) & 15; \
	if (emit_s && nshort == ns) { \
		start_s += clen[(tail_ - nshort) & 15] & ~FPC_WORD_START; \
		nshort--; \
	} \
	clen[tail_] = (uint8_t)((end - done) | (prev_space ? FPC_WORD_START : 0)); \
	prev_space = end - done == 1 && b[done] == ' '; \
	run1 = end - done == 1 ? (run1 < n ? run1 + 1 : n) : 0; \
	nwin++; \
	nshort++; \
	nchars++; \
	done = end; \
	want = 0; \
	if (emit_s && nshort == ns) \
		FPC_EMIT(emit_s, ctx_s, start_s, iend); \
	if (nwin == n && (!anchored || (clen[head] & FPC_WORD_START))) \
		FPC_EMIT(emit, ctx, start, iend); \
} while (0)

	for (i = 0; i < len; i++) {
		uint8_t c = p[i];

		/* Fast path for ASCII once the last n characters are single bytes
		 * of this piece: every gram is then the n bytes ending at a byte
		 * of the run, read from the input; the window is rebuilt once at
		 * the end of the run.  Each family gets the same grams in the same
		 * order as on the general path below (the two families count into
		 * separate counters, so one may go before the other). */
		if (!want && run1 == n && i >= n && c < 0x80) {
			size_t j = fpc_ascii_end(p, i + 1, len), q;

			if (emit_s && run_s)
				run_s(ctx_s, p + i + 1 - ns, j - i);
			else if (emit_s)
				for (q = i; q < j; q++)
					emit_s(ctx_s, p + q + 1 - ns, ns);
			if (anchored)
				fpc_each_space(p, i - n, j - n, emit, ctx, n);
			else
				for (q = i; q < j; q++)
					emit(ctx, p + q + 1 - n, n);
			nchars += j - i;
			memcpy(b, p + j - n, n);
			for (k = 0; k < n; k++)
				clen[k] = (uint8_t)(1 | (p[j - n + k - 1] == ' ' ? FPC_WORD_START : 0));
			start = 0;
			done = end = n;
			head = 0;
			nwin = n;
			if (emit_s) {
				start_s = n - ns;
				nshort = ns;
			}
			prev_space = p[j - 1] == ' ';
			i = j - 1;
			continue;
		}
		if (want) {
			if ((c & 0xc0) == 0x80) {
				b[end++] = c;
				if (end - done == want)
					FPC_CLOSE(i + 1);
				continue;
			}
			FPC_CLOSE(i);
		}
		if (end + 4 > FPC_GRAM_BUF) {
			memmove(b, b + start, end - start);
			done -= start;
			end -= start;
			if (emit_s)
				start_s -= start;
			start = 0;
		}
		b[end++] = c;
		want = fpc_lead_len(c);
		if (want == 1)
			FPC_CLOSE(i + 1);
	}
#undef FPC_CLOSE
#undef FPC_EMIT
	g->start = start;
	g->done = done;
	g->end = end;
	g->want = want;
	g->head = head;
	g->nwin = nwin;
	g->nchars = nchars;
	g->prev_space = prev_space;
	g->start_s = start_s;
	g->nshort = nshort;
	g->run1 = run1;
}

/* End of text: closes the open character and emits its grams (as in
 * fpc_gram_feed), or the whole text for a window longer than the text
 * (unless it is empty).  Leaves g as fpc_gram_init() did. */
static inline __attribute__((always_inline))
void fpc_gram_final(struct fpc_gram *g, int anchored, fpc_gram_emit *emit, void *ctx,
		    unsigned ns, fpc_gram_emit *emit_s, void *ctx_s)
{
	int full = 0, full_s = 0;

	if (g->want) {
		unsigned tail;

		if (g->nwin == g->n) {
			g->start += g->clen[g->head] & ~FPC_WORD_START;
			g->head = (g->head + 1) & 15;
			g->nwin--;
		}
		tail = (g->head + g->nwin) & 15;
		if (emit_s && g->nshort == ns) {
			g->start_s += g->clen[(tail - g->nshort) & 15] & ~FPC_WORD_START;
			g->nshort--;
		}
		/* an open character is never a space: no prev_space update */
		g->clen[tail] = (uint8_t)((g->end - g->done) | (g->prev_space ? FPC_WORD_START : 0));
		g->nwin++;
		g->nshort++;
		g->nchars++;
		g->done = g->end;
		g->want = 0;
		full = g->nwin == g->n && (!anchored || (g->clen[g->head] & FPC_WORD_START));
		full_s = g->nshort == ns;
	}
	if (emit_s && (full_s || (g->nchars > 0 && g->nchars < ns)))
		emit_s(ctx_s, g->buf + g->start_s, g->done - g->start_s);
	if (full || (g->nchars > 0 && g->nchars < g->n))
		emit(ctx, g->buf + g->start, g->done - g->start);
	fpc_gram_init(g, g->n);
}

/* Bit-sliced counter: adds vectors of nw 64-bit words (nw = 4 or 8) and
 * tells, for each bit position, how many of them had the bit set.  Inputs
 * are buffered 16 at a time and reduced with a carry-save adder tree
 * (Harley-Seal); the resulting "sixteens" ripple into FPC_PLANES bit
 * planes, flushed into plain counters before they can overflow.  A few
 * vector operations per input instead of one counter update per bit. */
#define FPC_MAXW 8
#define FPC_PLANES 12

struct fpc_bitctr {
	unsigned nw;
	unsigned nbuf;
	uint32_t nblocks;			/* sixteens since the last flush */
	uint64_t n;				/* vectors added */
	uint64_t buf[16][FPC_MAXW];
	uint64_t ones[FPC_MAXW], twos[FPC_MAXW], fours[FPC_MAXW], eights[FPC_MAXW];
	uint64_t plane[FPC_PLANES][FPC_MAXW];
	uint64_t count[FPC_MAXW * 64];		/* flushed counts */
};

void fpc_bitctr_init(struct fpc_bitctr *bc, unsigned nw);
/* Reduces the 16 buffered vectors (internal; called by fpc_bitctr_add). */
void fpc_bitctr_block(struct fpc_bitctr *bc);
/* counts[b] = number of added vectors with bit b set, b < nw * 64. */
void fpc_bitctr_counts(const struct fpc_bitctr *bc, uint64_t *counts);

static inline uint64_t *fpc_bitctr_slot(struct fpc_bitctr *bc)
{
	return bc->buf[bc->nbuf];
}

/* Commits the vector written into fpc_bitctr_slot(). */
static inline void fpc_bitctr_commit(struct fpc_bitctr *bc)
{
	bc->n++;
	if (++bc->nbuf == 16)
		fpc_bitctr_block(bc);
}

#endif
