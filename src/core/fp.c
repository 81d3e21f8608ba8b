/* fp.c - every fingerprint family in one pass, and all scores of a pair
 * (fp.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fp.h"
#include "grow.h"
#include "simfeat_i.h"
#include "wordhash.h"

/* The byte families each read a piece while it is still in cache. */
#define PIECE 32768

struct fp {
	struct texthash *th;
	struct simhash *sh;
	struct rsimhash *rs;
	struct mlsh *ml;
	struct minhash *mh;
	struct dupniq *dq;
	struct chunksketch *ck;
	struct wordhash wh;
	uint64_t last[MINHASH_SHINGLE];	/* the last word hashes, oldest first */
	uint32_t *anc;			/* shingle anchors so far (fp_book.anchors) */
	size_t nanc, capanc;
	uint64_t nbytes;
	uint32_t nbreaks;
	int failed;
	/* fp_compute: chunk starts taken from the document */
	const uint32_t *chunk_word;
	size_t nchunks, next_chunk;
};

void fp_book_init(struct fp_book *b)
{
	memset(b, 0, sizeof(*b));
	dupniq_seq_init(&b->dq);
	chunksketch_book_init(&b->ck);
}

void fp_book_release(struct fp_book *b)
{
	free(b->anchors);
	dupniq_seq_release(&b->dq);
	chunksketch_book_release(&b->ck);
	fp_book_init(b);
}

void fp_free(struct fp *f)
{
	if (!f)
		return;
	texthash_free(f->th);
	simhash_free(f->sh);
	rsimhash_free(f->rs);
	mlsimhash_free(f->ml);
	minhash_free(f->mh);
	dupniq_free(f->dq);
	chunksketch_free(f->ck);
	wordhash_release(&f->wh);
	free(f->anc);
	free(f);
}

struct fp *fp_new(void)
{
	struct fp *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	wordhash_init(&f->wh);
	f->th = texthash_new();
	f->sh = simhash_new();
	f->rs = rsimhash_new();
	f->ml = mlsimhash_new();
	f->mh = minhash_new(MINHASH_OPH);
	f->dq = dupniq_new();
	f->ck = chunksketch_new();
	if (!f->th || !f->sh || !f->rs || !f->ml || !f->mh || !f->dq || !f->ck) {
		fp_free(f);
		return NULL;
	}
	return f;
}

/* S4's 12-character window and S1's 4-character one in a single pass over
 * the characters (rs->g carries both; sh->g stays unused). */
static void grams_generic(struct fp *f, const void *buf, size_t len)
{
	fpc_gram_feed(&f->rs->g, buf, len, 1, rsimhash_feature, f->rs, 4, simhash_feature,
		      simhash_feature_run, f->sh);
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2")))
static void grams_avx2(struct fp *f, const void *buf, size_t len)
{
	fpc_gram_feed(&f->rs->g, buf, len, 1, rsimhash_feature, f->rs, 4, simhash_feature,
		      simhash_feature_run, f->sh);
}
#endif

static void grams(struct fp *f, const void *buf, size_t len)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (fpc_avx2()) {
		grams_avx2(f, buf, len);
		return;
	}
#endif
	grams_generic(f, buf, len);
}

static void anchor_add(struct fp *f, uint32_t a)
{
	if (f->nanc == f->capanc && ARRAY_GROW(f->anc, f->capanc, f->nanc + 1)) {
		f->failed = 1;
		return;
	}
	f->anc[f->nanc++] = a;
}

static int u32_cmp(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

/* Moves the anchors into b: sorted, unique, the FP_ANCHORS_MAX smallest. */
static int anchors_final(struct fp *f, struct fp_book *b)
{
	size_t i, n = 0;

	if (!f->nanc)
		return 0;
	qsort(f->anc, f->nanc, sizeof(*f->anc), u32_cmp);
	for (i = 0; i < f->nanc && n < FP_ANCHORS_MAX; i++)
		if (!n || f->anc[n - 1] != f->anc[i])
			f->anc[n++] = f->anc[i];
	b->anchors = malloc(n * sizeof(*b->anchors));
	if (!b->anchors)
		return -ENOMEM;
	memcpy(b->anchors, f->anc, n * sizeof(*b->anchors));
	b->nanchors = (uint32_t)n;
	return 0;
}

static void word_cb(void *ctx, uint64_t h, uint32_t idx)
{
	struct fp *f = ctx;
	uint64_t sh = 0;

	while (f->next_chunk < f->nchunks && f->chunk_word[f->next_chunk] <= idx) {
		if (f->chunk_word[f->next_chunk] == idx)
			chunksketch_break(f->ck);
		f->next_chunk++;
	}
	memmove(f->last, f->last + 1, sizeof(f->last) - sizeof(f->last[0]));
	f->last[MINHASH_SHINGLE - 1] = h;
	if (idx + 1 >= MINHASH_SHINGLE)
		sh = minhash_shingle(f->last, MINHASH_SHINGLE);
	minhash_add_word_sh(f->mh, h, sh);
	mlsimhash_add_word(f->ml, h);
	if (sh && (sh & ((1u << FP_ANCHOR_BITS) - 1)) == 0)
		anchor_add(f, (uint32_t)(sh >> 32));
	if (dupniq_add_word(f->dq, h) < 0 || chunksketch_add_word_sh(f->ck, h, sh) < 0)
		f->failed = 1;
}

int fp_update(struct fp *f, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		size_t n = len < PIECE ? len : PIECE;

		texthash_update(f->th, p, n);
		grams(f, p, n);
		if (wordhash_update(&f->wh, p, n, word_cb, f) < 0)
			f->failed = 1;
		f->nbytes += n;
		p += n;
		len -= n;
	}
	return f->failed ? -ENOMEM : 0;
}

void fp_break(struct fp *f)
{
	wordhash_flush(&f->wh, word_cb, f);
	chunksketch_break(f->ck);
	f->nbreaks++;
}

int fp_final(struct fp *f, struct fp_book *out)
{
	struct fp_book b;
	int ret = 0;

	fp_book_init(&b);
	wordhash_final(&f->wh, word_cb, f);
	b.nbytes = f->nbytes;
	b.nchunks = f->nbreaks;
	b.size_class = simhash_size_class(f->nbytes);
	texthash_final(f->th, &b.text);
	/* the last grams of both windows; leaves rs->g empty, so that the
	 * families' own finals below add nothing more */
	fpc_gram_final(&f->rs->g, 1, rsimhash_feature, f->rs, 4, simhash_feature, f->sh);
	simhash_final(f->sh, &b.sim, NULL);
	rsimhash_final(f->rs, &b.rsim);
	mlsimhash_final(f->ml, &b.mlsh);
	minhash_final(f->mh, &b.mh);
	if (dupniq_final(f->dq, &b.dq) < 0 || f->failed)
		ret = -ENOMEM;
	if (chunksketch_final(f->ck, &b.ck) < 0)
		ret = -ENOMEM;
	if (anchors_final(f, &b) < 0)
		ret = -ENOMEM;
	f->nanc = 0;
	b.nwords = b.ck.nwords;
	texthash_reset(f->th);
	f->nbytes = 0;
	f->nbreaks = 0;
	f->failed = 0;
	f->chunk_word = NULL;
	f->nchunks = f->next_chunk = 0;
	if (ret < 0) {
		fp_book_release(&b);
		return ret;
	}
	fp_book_release(out);
	*out = b;
	return 0;
}

int fp_compute(const struct norm_doc *doc, struct fp_book *out)
{
	struct fp *f = fp_new();
	int ret;

	if (!f)
		return -ENOMEM;
	f->chunk_word = doc->chunk_word;
	f->nchunks = doc->chunk_word ? doc->nchunks : 0;
	ret = fp_update(f, doc->text, doc->len);
	if (fp_final(f, out) < 0)
		ret = -ENOMEM;
	else
		out->nchunks = (uint32_t)doc->nchunks;
	fp_free(f);
	return ret;
}

int fp_compute_text(const void *text, size_t len, struct fp_book *out)
{
	struct fp *f = fp_new();
	int ret;

	if (!f)
		return -ENOMEM;
	ret = fp_update(f, text, len);
	if (fp_final(f, out) < 0)
		ret = -ENOMEM;
	fp_free(f);
	return ret;
}

int fp_compare(const struct fp_book *a, const struct fp_book *b, struct fp_scores *s)
{
	struct dupniq_lcs l;
	int ret;

	dupniq_lcs_init(&l);
	ret = fp_compare_lcs(a, b, s, &l);
	dupniq_lcs_release(&l);
	return ret;
}

int fp_compare_lcs(const struct fp_book *a, const struct fp_book *b, struct fp_scores *s,
		   struct dupniq_lcs *lcs)
{
	int ret;

	memset(s, 0, sizeof(*s));
	s->same_text = a->nbytes == b->nbytes && a->text.hi == b->text.hi &&
		       a->text.lo == b->text.lo;
	s->simhash_distance = simhash_distance(&a->sim, &b->sim);
	s->size_class_diff = (int)b->size_class - (int)a->size_class;
	s->rsim_asym_ab = rsimhash_distance_asym(&a->rsim, &b->rsim);
	s->rsim_asym_ba = rsimhash_distance_asym(&b->rsim, &a->rsim);
	s->rsim_distance = s->rsim_asym_ab > s->rsim_asym_ba ? s->rsim_asym_ab : s->rsim_asym_ba;
	s->mlsimhash_distance = mlsimhash_distance(&a->mlsh, &b->mlsh, &s->mlsimhash_lexicon);
	s->minhash_bsim = minhash_bsim(&a->mh, &b->mh);
	s->jaccard = minhash_jaccard(&a->mh, &b->mh);
	s->a_nbytes = a->nbytes;
	s->b_nbytes = b->nbytes;
	s->a_nwords = a->nwords;
	s->b_nwords = b->nwords;
	ret = dupniq_lcs_find(&a->dq, &b->dq, 0, lcs);
	if (ret < 0)
		return ret;
	dupniq_compare_lcs(&a->dq, &b->dq, lcs, &s->dupniq);
	ret = chunksketch_align(&a->ck.win, &b->ck.win, CHUNKSKETCH_MIN_SIM, &s->win_fit);
	if (ret < 0)
		return ret;
	if (a->ck.spine.n >= 2 && b->ck.spine.n >= 2)
		ret = chunksketch_align(&a->ck.spine, &b->ck.spine, CHUNKSKETCH_MIN_SIM, &s->spine_fit);
	return ret;
}
