/* band.c - simhash banding and in-memory near-pair search (see band.h). */
#include "band.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

struct band_item {
	uint64_t v;
	uint32_t i;
};

static uint64_t load_be64(const uint8_t *p)
{
	uint64_t v = 0;
	int k;

	for (k = 0; k < 8; k++)
		v = v << 8 | p[k];
	return v;
}

/* Bits [off, off + w) of the 128-bit value hi:lo, counted from the top. */
static uint64_t bits128(uint64_t hi, uint64_t lo, uint32_t off, uint32_t w)
{
	uint64_t top;

	if (off == 0)
		top = hi;
	else if (off < 64)
		top = hi << off | lo >> (64 - off);
	else
		top = lo << (off - 64);
	return w >= 64 ? top : top >> (64 - w);
}

int band_layout_init(struct band_layout *bl, uint32_t max_d)
{
	uint32_t b, n, off = 0, maxw = 0;

	if (max_d > BAND_MAX_D)
		return -EINVAL;
	memset(bl, 0, sizeof(*bl));
	n = max_d + 1 < 2 ? 2 : max_d + 1;
	bl->max_d = max_d;
	bl->nbands = n;
	for (b = 0; b < n; b++) {
		/* The first 128 % n bands get one extra bit. */
		uint32_t w = 128 / n + (b < 128 % n ? 1 : 0);

		bl->off[b] = (uint8_t)off;
		bl->width[b] = (uint8_t)w;
		off += w;
		if (w > maxw)
			maxw = w;
	}
	bl->value_bytes = (uint8_t)((maxw + 7) / 8);
	return 0;
}

uint64_t band_value(const struct band_layout *bl, const uint8_t sh[BAND_SH_BYTES], uint32_t b)
{
	return bits128(load_be64(sh), load_be64(sh + 8), bl->off[b], bl->width[b]);
}

static uint32_t first_shared_x(const struct band_layout *bl, uint64_t xhi, uint64_t xlo)
{
	uint32_t b;

	for (b = 0; b < bl->nbands; b++)
		if (bits128(xhi, xlo, bl->off[b], bl->width[b]) == 0)
			return b;
	return bl->nbands;
}

uint32_t band_first_shared(const struct band_layout *bl, const uint8_t a[BAND_SH_BYTES],
			   const uint8_t b[BAND_SH_BYTES])
{
	return first_shared_x(bl, load_be64(a) ^ load_be64(b), load_be64(a + 8) ^ load_be64(b + 8));
}

uint32_t band_distance(const uint8_t a[BAND_SH_BYTES], const uint8_t b[BAND_SH_BYTES])
{
	return (uint32_t)(band_popcount64(load_be64(a) ^ load_be64(b)) +
			  band_popcount64(load_be64(a + 8) ^ load_be64(b + 8)));
}

/* LSD radix sort of items by v, which holds at most nbytes significant bytes. */
static void radix_sort(struct band_item *it, struct band_item *tmp, size_t n, uint32_t nbytes)
{
	size_t count[256], k, pos;
	uint32_t pass;
	struct band_item *src = it, *dst = tmp, *swap;

	for (pass = 0; pass < nbytes; pass++) {
		uint32_t sh = pass * 8;

		memset(count, 0, sizeof(count));
		for (k = 0; k < n; k++)
			count[(src[k].v >> sh) & 0xff]++;
		pos = 0;
		for (k = 0; k < 256; k++) {
			size_t c = count[k];

			count[k] = pos;
			pos += c;
		}
		for (k = 0; k < n; k++)
			dst[count[(src[k].v >> sh) & 0xff]++] = src[k];
		swap = src;
		src = dst;
		dst = swap;
	}
	if (src != it)
		memcpy(it, src, n * sizeof(*it));
}

static int pairs_push(struct band_pair **out, size_t *n, size_t *cap, uint32_t a, uint32_t b,
		      uint32_t dist)
{
	if (*n == *cap && ARRAY_GROW(*out, *cap, *n + 1))
		return -ENOMEM;
	(*out)[*n].a = a;
	(*out)[*n].b = b;
	(*out)[*n].dist = dist;
	(*n)++;
	return 0;
}

int band_pairs(const struct band_layout *bl, const uint8_t (*sh)[BAND_SH_BYTES], size_t n,
	       uint32_t d, struct band_pair **out, size_t *nout)
{
	uint64_t *hi = NULL, *lo = NULL;
	struct band_item *it = NULL, *tmp = NULL;
	struct band_pair *pairs = NULL;
	size_t np = 0, cap = 0, k, s, e, x, y;
	uint32_t b;
	int ret = 0;

	*out = NULL;
	*nout = 0;
	if (d > bl->max_d || n >= UINT32_MAX)
		return -EINVAL;
	if (n < 2)
		return 0;
	hi = malloc(n * sizeof(*hi));
	lo = malloc(n * sizeof(*lo));
	it = malloc(n * sizeof(*it));
	tmp = malloc(n * sizeof(*tmp));
	if (!hi || !lo || !it || !tmp) {
		ret = -ENOMEM;
		goto out;
	}
	for (k = 0; k < n; k++) {
		hi[k] = load_be64(sh[k]);
		lo[k] = load_be64(sh[k] + 8);
	}
	for (b = 0; b < bl->nbands; b++) {
		for (k = 0; k < n; k++) {
			it[k].v = bits128(hi[k], lo[k], bl->off[b], bl->width[b]);
			it[k].i = (uint32_t)k;
		}
		radix_sort(it, tmp, n, (bl->width[b] + 7u) / 8u);
		for (s = 0; s < n; s = e) {
			for (e = s + 1; e < n && it[e].v == it[s].v; e++)
				;
			for (x = s; x < e; x++) {
				for (y = x + 1; y < e; y++) {
					uint32_t i = it[x].i, j = it[y].i, dist;
					uint64_t xh = hi[i] ^ hi[j], xl = lo[i] ^ lo[j];

					dist = (uint32_t)(band_popcount64(xh) + band_popcount64(xl));
					if (dist > d || first_shared_x(bl, xh, xl) != b)
						continue;
					ret = pairs_push(&pairs, &np, &cap, i < j ? i : j, i < j ? j : i, dist);
					if (ret)
						goto out;
				}
			}
		}
	}
	*out = pairs;
	*nout = np;
	pairs = NULL;
out:
	free(pairs);
	free(hi);
	free(lo);
	free(it);
	free(tmp);
	return ret;
}
