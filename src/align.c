/* align.c - LCS of two unique-word sequences, cut into blocks (see align.h). */
#include "align.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The k-th smallest of v[0..n) (v is reordered): what v[k] would be after
 * a sort, in linear expected time (a comparison per pair of books calls
 * this twice, so a full sort showed in the profile of index-wide work). */
static uint32_t kth_smallest(uint32_t *v, uint32_t n, uint32_t k)
{
	uint32_t lo = 0, hi = n - 1;

	while (lo < hi) {
		uint32_t pivot = v[lo + (hi - lo) / 2], i = lo, j = hi, t;

		/* Hoare partition: v[lo..j] <= pivot <= v[i..hi] */
		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				t = v[i];
				v[i] = v[j];
				v[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j && j != UINT32_MAX)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return v[k];
	}
	return v[k];
}

/* Gaps below this are counted in a histogram (most gaps between
 * consecutive LCS words are short), the rest selected by kth_smallest(). */
#define SMALL_GAPS 1024

/* What kth_smallest() gives for the len - 1 gaps between consecutive LCS
 * words, at (len - 1) / 2, in one counting pass when the median is a short
 * gap (tmp: len - 1 scratch entries). */
static uint32_t median_gap(const uint32_t *p, const uint32_t *lcs, uint32_t len, uint32_t *tmp)
{
	uint32_t cnt[SMALL_GAPS], n = len - 1, k = (len - 1) / 2, nbig = 0, i, g, seen;

	memset(cnt, 0, sizeof(cnt));
	for (i = 1; i < len; i++) {
		g = p[lcs[i]] - p[lcs[i - 1]];
		if (g < SMALL_GAPS)
			cnt[g]++;
		else
			tmp[nbig++] = g;
	}
	if (k >= n - nbig)
		return kth_smallest(tmp, nbig, k - (n - nbig));
	for (g = 0, seen = 0;; g++) {
		seen += cnt[g];
		if (seen > k)
			return g;
	}
}

/* factor times the median distance between consecutive LCS words on one
 * side (nwords words, p positions), within [ALIGN_MIN_GAP,
 * ALIGN_MAX_SPACINGS mean spacings of nuniq unique words] (tmp: len - 1
 * scratch entries). */
static double gap_of(uint32_t nwords, uint32_t nuniq, const uint32_t *p, const uint32_t *lcs,
		     uint32_t len, uint32_t *tmp, double factor)
{
	double g, cap = ALIGN_MAX_SPACINGS * (double)nwords / (double)nuniq;

	g = factor * (double)median_gap(p, lcs, len, tmp);
	if (g > cap)
		g = cap;
	return g < ALIGN_MIN_GAP ? ALIGN_MIN_GAP : g;
}

int align_blocks(const struct dupniq_seq *a, const struct dupniq_seq *b, double gap_factor,
		 struct align_cover *out)
{
	struct dupniq_lookup sb = { NULL, NULL, 0 };
	uint32_t *pa = NULL, *pb = NULL, *tail = NULL, *prev = NULL, n = 0, len = 0, i, k, start;
	uint64_t cov_a = 0, cov_b = 0;
	double ga, gb;
	uint32_t nu;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (!a->n || !b->n)
		return 0;
	if (gap_factor <= 0)
		gap_factor = ALIGN_GAP_FACTOR;
	pa = malloc(a->n * sizeof(*pa));
	pb = malloc(a->n * sizeof(*pb));
	tail = malloc(a->n * sizeof(*tail));
	prev = malloc(a->n * sizeof(*prev));
	if (!pa || !pb || !tail || !prev || dupniq_lookup_init(&sb, b)) {
		ret = -ENOMEM;
		goto out;
	}
	/* common words in A's order, with their position in B */
	for (i = 0; i < a->n; i++) {
		long j = dupniq_lookup_find(&sb, a->hash[i]);

		if (j < 0)
			continue;
		pa[n] = a->pos[i];
		pb[n] = b->pos[j];
		n++;
	}
	/* longest increasing subsequence of pb, with back links */
	for (k = 0; k < n; k++) {
		uint32_t lo = 0, hi = len;

		while (lo < hi) {
			uint32_t mid = (lo + hi) / 2;

			if (pb[tail[mid]] < pb[k])
				lo = mid + 1;
			else
				hi = mid;
		}
		prev[k] = lo ? tail[lo - 1] : UINT32_MAX;
		tail[lo] = k;
		if (lo == len)
			len++;
	}
	out->lcs = len;
	if (len < 2)
		goto out;
	/* walk the LCS backwards: tail[] is reused to hold it in order */
	for (k = tail[len - 1], i = len; k != UINT32_MAX; k = prev[k])
		tail[--i] = k;
	/* The spacing cap uses the smaller unique-word count of the two: OCR
	 * garbage makes many words unique in a noisy copy, which would make
	 * its spacing, and so its cap, too small. */
	nu = a->n < b->n ? a->n : b->n;
	ga = gap_of(a->nwords, nu, pa, tail, len, prev, gap_factor);
	gb = gap_of(b->nwords, nu, pb, tail, len, prev, gap_factor);
	/* blocks: runs of close pairs; only runs of ALIGN_MIN_PAIRS count */
	for (i = 1, start = 0; i <= len; i++) {
		uint32_t x0 = tail[i - 1], x1 = i < len ? tail[i] : 0;

		if (i < len && pa[x1] - pa[x0] <= ga && pb[x1] - pb[x0] <= gb)
			continue;
		if (i - start >= ALIGN_MIN_PAIRS) {
			cov_a += pa[x0] - pa[tail[start]];
			cov_b += pb[x0] - pb[tail[start]];
			out->blocks++;
		}
		start = i;
	}
	out->cover_a = a->nwords ? (double)cov_a / a->nwords : 0.0;
	out->cover_b = b->nwords ? (double)cov_b / b->nwords : 0.0;
	if (out->cover_a > 1.0)
		out->cover_a = 1.0;
	if (out->cover_b > 1.0)
		out->cover_b = 1.0;
out:
	dupniq_lookup_release(&sb);
	free(pa);
	free(pb);
	free(tail);
	free(prev);
	if (ret)
		memset(out, 0, sizeof(*out));
	return ret;
}
