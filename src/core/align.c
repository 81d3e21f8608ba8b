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
static uint32_t median_gap(const uint32_t *p, uint32_t len, uint32_t *tmp)
{
	uint32_t cnt[SMALL_GAPS], n = len - 1, k = (len - 1) / 2, nbig = 0, i, g, seen;

	memset(cnt, 0, sizeof(cnt));
	for (i = 1; i < len; i++) {
		g = p[i] - p[i - 1];
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
static double gap_of(uint32_t nwords, uint32_t nuniq, const uint32_t *p, uint32_t len,
		     uint32_t *tmp, double factor)
{
	double g, cap = ALIGN_MAX_SPACINGS * (double)nwords / (double)nuniq;

	g = factor * (double)median_gap(p, len, tmp);
	if (g > cap)
		g = cap;
	return g < ALIGN_MIN_GAP ? ALIGN_MIN_GAP : g;
}

/* 1 when the LCS pairs [from, to) are at least ALIGN_MIN_DENSITY of the
 * distinctive words inside their stretch on one side (the side with fewer:
 * OCR garbage adds distinctive words to a noisy copy). */
static int dense(const struct dupniq_lcs *l, uint32_t from, uint32_t to, uint64_t *uniq)
{
	uint32_t ua = l->xi[l->chain[to - 1]] - l->xi[l->chain[from]] + 1;
	uint32_t ub = l->yi[l->chain[to - 1]] - l->yi[l->chain[from]] + 1;

	*uniq = ua < ub ? ua : ub;
	return (double)(to - from) >= ALIGN_MIN_DENSITY * (double)*uniq;
}

int align_blocks_lcs(const struct dupniq_seq *a, const struct dupniq_seq *b,
		     const struct dupniq_lcs *l, double gap_factor, struct align_cover *out)
{
	uint32_t *pa = NULL, *pb = NULL, *tmp = NULL, len = l->len, i, start;
	uint64_t cov_a = 0, cov_b = 0, pairs = 0, uniq = 0, u;
	double ga, gb;
	uint32_t nu;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	out->lcs = len;
	if (len < 2)
		return 0;
	if (gap_factor <= 0)
		gap_factor = ALIGN_GAP_FACTOR;
	/* the LCS pairs in order: word positions in A and in B */
	pa = malloc(len * sizeof(*pa));
	pb = malloc(len * sizeof(*pb));
	tmp = malloc(len * sizeof(*tmp));
	if (!pa || !pb || !tmp) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < len; i++) {
		pa[i] = a->pos[l->xi[l->chain[i]]];
		pb[i] = b->pos[l->yi[l->chain[i]]];
	}
	/* The spacing cap uses the smaller unique-word count of the two: OCR
	 * garbage makes many words unique in a noisy copy, which would make
	 * its spacing, and so its cap, too small. */
	nu = a->n < b->n ? a->n : b->n;
	ga = gap_of(a->nwords, nu, pa, len, tmp, gap_factor);
	gb = gap_of(b->nwords, nu, pb, len, tmp, gap_factor);
	/* blocks: runs of close pairs; only runs of ALIGN_MIN_PAIRS count */
	for (i = 1, start = 0; i <= len; i++) {
		if (i < len && pa[i] - pa[i - 1] <= ga && pb[i] - pb[i - 1] <= gb)
			continue;
		if (i - start >= ALIGN_MIN_PAIRS && dense(l, start, i, &u)) {
			cov_a += pa[i - 1] - pa[start];
			cov_b += pb[i - 1] - pb[start];
			pairs += i - start;
			uniq += u;
			out->blocks++;
		}
		start = i;
	}
	out->cover_a = a->nwords ? (double)cov_a / a->nwords : 0.0;
	out->cover_b = b->nwords ? (double)cov_b / b->nwords : 0.0;
	out->density = uniq ? (double)pairs / (double)uniq : 0.0;
	if (out->cover_a > 1.0)
		out->cover_a = 1.0;
	if (out->cover_b > 1.0)
		out->cover_b = 1.0;
out:
	free(pa);
	free(pb);
	free(tmp);
	if (ret)
		memset(out, 0, sizeof(*out));
	return ret;
}

int align_blocks(const struct dupniq_seq *a, const struct dupniq_seq *b, double gap_factor,
		 struct align_cover *out)
{
	struct dupniq_lcs l;
	int ret;

	dupniq_lcs_init(&l);
	ret = dupniq_lcs_find(a, b, 0, &l);
	if (ret)
		memset(out, 0, sizeof(*out));
	else
		ret = align_blocks_lcs(a, b, &l, gap_factor, out);
	dupniq_lcs_release(&l);
	return ret;
}
