/* judge.c - which books relate to one book and how: the candidates, their
 * comparison from the smaller id's side, a cache of comparisons, and the
 * indexing-time judgement that stores the relations (see judge.h). */
#include "judge.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "book.h"
#include "bookrec.h"
#include "grow.h"
#include "lang.h"
#include "rsort.h"

#define MAX_CANDIDATES 2000	/* compared per book at most (nearest first) */

/* Pruning-key candidates (JUDGE_SRC_UNIQUE): a key held by more than
 * UQ_MAX_POSTINGS books is frequent (a common word or phrase, boilerplate)
 * and skipped.  A book is a candidate when it shares at least
 * UQ_ANCHOR_MIN shingle anchors (IDX_UQ_HI keys) and UQ_ANCHOR_SHARE of
 * the smaller anchor set (about the share of the smaller book's text found
 * in the other: exact for containment), or at least UQ_WORD_MIN sampled
 * unique words and UQ_WORD_SHARE of the smaller word set (OCR-heavy copies,
 * whose shingles break; unrelated books share many words that are unique
 * in both, hence the higher share); the UQ_MAX_CANDIDATES best by the
 * larger share are kept.  Measured in docs/ACCURACY.md and
 * docs/BENCHMARKS.md (bench_excerpt). */
#define UQ_MAX_POSTINGS 1000
#define UQ_ANCHOR_MIN 2
#define UQ_ANCHOR_SHARE 0.10
#define UQ_WORD_MIN 3
#define UQ_WORD_SHARE 0.25
#define UQ_MAX_CANDIDATES 200

/* Names candidates (JUDGE_SRC_NAMES): books sharing at least NAMES_MIN_SHARED
 * of the NAMES_SLOTS names bands (bookrec.h).  Measured on the shared real
 * books (docs/ACCURACY.md, "Other translations"): of 1,225 pairs, the
 * unrelated ones share 0 bands (1,193) or 1 (7); 2 or more are editions,
 * volumes and translations.  NAMES_NO_BAND stands in for the min-hash bands
 * in the query (band i is compared with band i, so the names bands keep
 * their places): a value no band is expected to hold. */
#define NAMES_MIN_SHARED 2
#define NAMES_NO_BAND 0x6E616D65735F6E6Fu
/* A book in another known language (lang.h) is a names candidate with one
 * shared band: a translation into another language keeps few names (the
 * French Alice shares 25 of the English one's 138 rare names), and books
 * of two languages seldom share a pair of consecutive names by chance (no
 * wording in common); measured in docs/ACCURACY.md. */
#define NAMES_MIN_SHARED_LANG 1

/* ---- comparison cache ---- */

struct judge_cache {
	pthread_mutex_t lock;
	struct judge_pair *slot;
	size_t cap, n, max;
};

struct judge_cache *judge_cache_new(size_t max_pairs)
{
	struct judge_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->max = max_pairs ? max_pairs : (size_t)1 << 18;
	c->cap = 1024;
	while (c->cap < c->max * 2)
		c->cap *= 2;
	c->slot = calloc(c->cap, sizeof(*c->slot));
	if (!c->slot) {
		free(c);
		return NULL;
	}
	pthread_mutex_init(&c->lock, NULL);
	return c;
}

void judge_cache_free(struct judge_cache *c)
{
	if (!c)
		return;
	pthread_mutex_destroy(&c->lock);
	free(c->slot);
	free(c);
}

static size_t pair_hash(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9E3779B97F4A7C15u ^ (b + 0x632BE59BD9B4E019u) * 0xC2B2AE3D27D4EB4Fu;

	return (size_t)(h ^ h >> 29);
}

static int cache_get(struct judge_cache *c, const struct judge_pair *key, struct judge_pair *out)
{
	size_t i;
	int found = 0;

	pthread_mutex_lock(&c->lock);
	for (i = pair_hash(key->a, key->b) & (c->cap - 1); c->slot[i].used; i = (i + 1) & (c->cap - 1)) {
		if (c->slot[i].a == key->a && c->slot[i].b == key->b) {
			if (c->slot[i].tag_a == key->tag_a && c->slot[i].tag_b == key->tag_b) {
				*out = c->slot[i];
				found = 1;
			}
			break;
		}
	}
	pthread_mutex_unlock(&c->lock);
	return found;
}

static void cache_put(struct judge_cache *c, const struct judge_pair *r)
{
	size_t i;

	pthread_mutex_lock(&c->lock);
	if (c->n >= c->max) {
		memset(c->slot, 0, c->cap * sizeof(*c->slot));
		c->n = 0;
	}
	for (i = pair_hash(r->a, r->b) & (c->cap - 1); c->slot[i].used; i = (i + 1) & (c->cap - 1))
		if (c->slot[i].a == r->a && c->slot[i].b == r->b)
			break;
	if (!c->slot[i].used)
		c->n++;
	c->slot[i] = *r;
	c->slot[i].used = 1;
	pthread_mutex_unlock(&c->lock);
}

/* ---- the score ---- */

static unsigned pct(double x, unsigned lo, unsigned hi)
{
	long v = x < 0 ? 0 : (long)(x * 100.0 + 0.5);

	if (v < (long)lo)
		v = lo;
	if (v > (long)hi)
		v = hi;
	return (unsigned)v;
}

/* The fraction of one side found in the other: the anchor share
 * (anchorshare.h, the 5-gram containment); for a book too short for one,
 * the aligned blocks, else the matched text windows. */
static double side_share(double share, double block, double block_other, double chunk)
{
	if (share >= 0)
		return share;
	if (block >= 0 && block_other >= 0 && block + block_other > 0)
		return block;
	return chunk > 0 ? chunk : 0;
}

void judge_shares(const struct relate_signals *sig, double *a, double *b)
{
	*a = side_share(sig->share_a, sig->block_cover_a, sig->block_cover_b, sig->chunk_cover_a);
	*b = side_share(sig->share_b, sig->block_cover_b, sig->block_cover_a, sig->chunk_cover_b);
}

unsigned judge_share(enum relate_class cls_this, double cover_this, double cover_other)
{
	double f;

	switch (cls_this) {
	case RELATE_IDENTICAL_FILE:
	case RELATE_SAME_TEXT:
		return 100;
	case RELATE_A_CONTAINS_B:	/* the part listed: its text found in this */
		f = cover_other;
		break;
	case RELATE_NEAR_DUPLICATE:
	case RELATE_B_CONTAINS_A:
	case RELATE_OVERLAP:
	case RELATE_OTHER_TRANSLATION:	/* near 0: its wording is not shared */
		f = cover_this;
		break;
	default:
		return 0;
	}
	/* 100 only when all of it was found; 1 at least for a relation */
	if (f >= 1.0)
		return 100;
	return pct(f, 1, 99);
}

unsigned judge_score(const struct relate_signals *sig, const struct relate_result *rel)
{
	double a, b;

	judge_shares(sig, &a, &b);
	return judge_share(rel->cls, a, b);
}

/* ---- comparing a pair ---- */

static int load_book(struct idx *ix, uint64_t id, struct book **b)
{
	uint32_t ver = 0;
	void *rec = NULL;
	size_t len = 0;
	int ret;

	*b = NULL;
	ret = idx_record(ix, id, &ver, &rec, &len);
	if (!ret)
		ret = ver == BOOKREC_IDX_VERSION ? bookrec_decode(rec, len, b) : -ENOTSUP;
	free(rec);
	/* the anchors are not in the record but in the pruning keys: the
	 * share of the text found in the other book (anchorshare.h) */
	if (!ret) {
		ret = idx_uq_hi_keys(ix, id, &(*b)->fp.anchors, &(*b)->fp.nanchors);
		if (ret == -ENOENT || ret == -EIO)
			ret = 0;
	}
	if (ret) {
		book_free(*b);
		*b = NULL;
	}
	return ret;
}

enum relate_class judge_mirror(enum relate_class cls)
{
	if (cls == RELATE_A_CONTAINS_B)
		return RELATE_B_CONTAINS_A;
	if (cls == RELATE_B_CONTAINS_A)
		return RELATE_A_CONTAINS_B;
	return cls;
}

int judge_compare(struct idx *ix, struct judge_cache *c, const struct idx_file *af,
		  struct book **ba, const struct idx_file *cf, struct judge_pair *r)
{
	struct book *bb = NULL;
	struct book_cmp cmp;
	int ret, lo = af->id < cf->id;

	memset(r, 0, sizeof(*r));
	r->a = lo ? af->id : cf->id;
	r->b = lo ? cf->id : af->id;
	r->tag_a = idx_fp_tag(lo ? af : cf);
	r->tag_b = idx_fp_tag(lo ? cf : af);
	if (c && cache_get(c, r, r))
		return 0;
	if (!*ba) {
		ret = load_book(ix, af->id, ba);
		if (ret)
			return ret;
	}
	ret = load_book(ix, cf->id, &bb);
	if (ret)
		return ret;
	ret = lo ? book_compare(*ba, bb, NULL, &cmp) : book_compare(bb, *ba, NULL, &cmp);
	book_free(bb);
	if (ret)
		return ret;
	r->cls = cmp.rel.cls;
	r->score = judge_score(&cmp.sig, &cmp.rel);
	r->dist = cmp.sig.simhash_distance;
	r->jaccard = cmp.sig.jaccard;
	judge_shares(&cmp.sig, &r->cover_a, &r->cover_b);
	r->used = 1;
	if (c)
		cache_put(c, r);
	return 0;
}

/* ---- candidates ---- */

/* A pruning-key candidate and its share of the smaller key set. */
struct uqsel {
	uint64_t id;
	double share;
};

static int uqsel_cmp(const void *pa, const void *pb)
{
	const struct uqsel *a = pa, *b = pb;

	if (a->share != b->share)
		return a->share > b->share ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

/* The pruning-key candidates of f that pass the share rule, best first:
 * ids written to out (room for UQ_MAX_CANDIDATES), their number. */
static int uq_candidates(struct idx *ix, const struct idx_file *f, uint64_t *out, size_t *nout)
{
	struct idx_uq_hit *h = NULL;
	struct idx_uq_stats st;
	struct uqsel *sel = NULL;
	size_t n = 0, i, k = 0;
	uint32_t ma, mw, sa, sw;
	double share;
	int ret;

	*nout = 0;
	ret = idx_uq_candidates(ix, f->id, UQ_MAX_POSTINGS, UQ_ANCHOR_MIN, &h, &n, &st);
	if (ret || !n)
		goto out;
	sel = malloc(n * sizeof(*sel));
	if (!sel) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		ma = h[i].nkeys_hi < st.keys_hi ? h[i].nkeys_hi : st.keys_hi;
		mw = h[i].nkeys - h[i].nkeys_hi < st.keys - st.keys_hi ?
		     h[i].nkeys - h[i].nkeys_hi : st.keys - st.keys_hi;
		sa = h[i].shared_hi;
		sw = h[i].shared - h[i].shared_hi;
		share = 0;
		if (ma && sa >= UQ_ANCHOR_MIN && sa >= UQ_ANCHOR_SHARE * ma)
			share = (double)sa / ma;
		if (mw && sw >= UQ_WORD_MIN && sw >= UQ_WORD_SHARE * mw && (double)sw / mw > share)
			share = (double)sw / mw;
		if (share > 0)
			sel[k++] = (struct uqsel){ h[i].id, share };
	}
	if (k)
		qsort(sel, k, sizeof(*sel), uqsel_cmp);
	for (i = 0; i < k && i < UQ_MAX_CANDIDATES; i++)
		out[i] = sel[i].id;
	*nout = i;
out:
	free(sel);
	free(h);
	return ret;
}

int judge_expand(struct idx *ix, const struct idx_file *f, const struct idx_file *rel,
		 uint64_t **ids, size_t *n)
{
	size_t i, j;
	int ret;

	*ids = NULL;
	*n = 0;
	if (!rel->has_copies || memcmp(rel->text_hash, f->text_hash, IDX_SH_BYTES) == 0) {
		*ids = malloc(sizeof(**ids));
		if (!*ids)
			return -ENOMEM;
		(*ids)[0] = rel->id;
		*n = 1;
		return 0;
	}
	ret = idx_copies(ix, rel->id, ids, n);
	for (i = j = 0; ret == 0 && i < *n; i++)
		if ((*ids)[i] != f->id)
			(*ids)[j++] = (*ids)[i];
	if (!ret)
		*n = j;
	return ret;
}

/* The language stored in book id's record into lang ("" when unknown or
 * when the record cannot be read). */
static void record_lang(struct idx *ix, uint64_t id, char lang[3])
{
	uint32_t ver;
	void *rec = NULL;
	size_t len;

	lang[0] = '\0';
	if (idx_record_head(ix, id, BOOKREC_META_SPAN, &ver, &rec, &len) == 0 &&
	    ver == BOOKREC_IDX_VERSION)
		(void)bookrec_lang(rec, len, lang);
	free(rec);
}

/* Keeps of the names hits nm[0, *n) those sharing NAMES_MIN_SHARED bands,
 * or NAMES_MIN_SHARED_LANG with a book in a language known and other than
 * f's. */
static void names_lang_filter(struct idx *ix, const struct idx_file *f, struct idx_hit *nm,
			      size_t *n)
{
	char lf[3], lc[3];
	size_t i, j;

	record_lang(ix, f->id, lf);
	for (i = j = 0; i < *n; i++) {
		if (nm[i].dist < NAMES_MIN_SHARED) {	/* dist: shared bands */
			if (!*lf)
				continue;
			record_lang(ix, nm[i].id, lc);
			if (!lang_differ(lf, lc))
				continue;
		}
		nm[j++] = nm[i];
	}
	*n = j;
}

int judge_gather(struct idx *ix, const struct idx_file *f, unsigned sources, int keep_exempt,
		 uint64_t **out, size_t *nout)
{
	struct idx_hit *near = NULL, *mh = NULL, *nm = NULL;
	uint64_t *bands = NULL, *same = NULL, *ex = NULL, *ids = NULL;
	size_t nnear = 0, nmh = 0, nnm = 0, nsame = 0, nex = 0, nuq = 0, n = 0, i, j, k;
	uint32_t nb = 0;
	int ret = 0;

	if (sources & JUDGE_SRC_NEAR)
		ret = idx_near_reps(ix, f->simhash, idx_max_d(ix), &near, &nnear);
	if (!ret && (sources & (JUDGE_SRC_MINHASH | JUDGE_SRC_NAMES)) &&
	    idx_mh_bands(ix, f->id, &bands, &nb) == 0 && nb) {
		if (sources & JUDGE_SRC_MINHASH)
			ret = idx_mh_candidates(ix, bands, nb < BOOKREC_MH_BANDS ? nb :
						BOOKREC_MH_BANDS, 1, &mh, &nmh);
		if (!ret && (sources & JUDGE_SRC_NAMES) && nb > BOOKREC_MH_BANDS) {
			for (i = 0; i < BOOKREC_MH_BANDS; i++)
				bands[i] = NAMES_NO_BAND;
			ret = idx_mh_candidates(ix, bands, nb, NAMES_MIN_SHARED_LANG, &nm, &nnm);
			if (!ret)
				names_lang_filter(ix, f, nm, &nnm);
		}
	}
	if (!ret && (sources & JUDGE_SRC_TEXT))
		ret = idx_by_text_hash(ix, f->text_hash, &same, &nsame);
	if (!ret && !keep_exempt)
		ret = idx_exempt_ids(ix, f->id, &ex, &nex);
	if (ret == -ENOENT)
		ret = 0;
	if (ret)
		goto out;
	if (nnear > MAX_CANDIDATES)
		nnear = MAX_CANDIDATES;
	if (nmh > MAX_CANDIDATES)
		nmh = MAX_CANDIDATES;
	if (nnm > MAX_CANDIDATES)
		nnm = MAX_CANDIDATES;
	ids = malloc((nnear + nmh + nnm + nsame + UQ_MAX_CANDIDATES + 1) * sizeof(*ids));
	if (!ids) {
		ret = -ENOMEM;
		goto out;
	}
	if (sources & JUDGE_SRC_UNIQUE) {
		ret = uq_candidates(ix, f, ids, &nuq);
		if (ret)
			goto out;
		n = nuq;
	}
	for (i = 0; i < nnear; i++)
		ids[n++] = near[i].id;
	for (i = 0; i < nmh; i++)
		ids[n++] = mh[i].id;
	for (i = 0; i < nnm; i++)
		ids[n++] = nm[i].id;
	for (i = 0; i < nsame; i++)
		ids[n++] = same[i];
	qsort(ids, n, sizeof(*ids), rsort_cmp_u64);
	for (i = j = k = 0; i < n; i++) {
		if (ids[i] == f->id || (j && ids[j - 1] == ids[i]))
			continue;
		while (k < nex && ex[k] < ids[i])
			k++;
		if (k < nex && ex[k] == ids[i])
			continue;
		ids[j++] = ids[i];
	}
	n = j;
out:
	free(near);
	free(mh);
	free(nm);
	free(bands);
	free(same);
	free(ex);
	if (ret) {
		free(ids);
		ids = NULL;
		n = 0;
	}
	*out = ids;
	*nout = n;
	return ret;
}


int judge_candidates(struct idx *ix, uint64_t id, unsigned sources, uint64_t **ids, size_t *n)
{
	struct idx_file f = { 0 }, cf = { 0 };
	uint64_t *c = NULL, *g = NULL;
	size_t nc = 0, ng = 0, i, j, k, cap = 0;
	int ret;

	*ids = NULL;
	*n = 0;

	ret = idx_get_id(ix, id, &f);
	if (!ret && !f.has_fp)
		ret = -ENOENT;
	if (!ret)
		ret = judge_gather(ix, &f, sources, 1, &c, &nc);
	/* each representative expanded into the copies it stands for (an
	 * exempted one too: its copies may not be), the exemptions dropped
	 * after */
	for (i = 0; !ret && i < nc; i++) {
		idx_file_release(&cf);
		if (idx_get_id(ix, c[i], &cf) || !cf.has_fp) {
			cf.id = c[i];
			cf.has_copies = 0;
		}
		free(g);
		g = NULL;
		ret = judge_expand(ix, &f, &cf, &g, &ng);
		if (!ret)
			ret = ARRAY_GROW(*ids, cap, *n + ng);
		for (j = 0; !ret && j < ng; j++)
			(*ids)[(*n)++] = g[j];
	}
	if (!ret && *n) {
		uint64_t *ex = NULL;
		size_t nex = 0;

		ret = idx_exempt_ids(ix, id, &ex, &nex);
		if (ret == -ENOENT)
			ret = 0;
		qsort(*ids, *n, sizeof(**ids), rsort_cmp_u64);
		for (j = k = 0; !ret && j < *n; j++)
			if ((!k || (*ids)[k - 1] != (*ids)[j]) &&
			    !(nex && bsearch(&(*ids)[j], ex, nex, sizeof(*ex), rsort_cmp_u64)))
				(*ids)[k++] = (*ids)[j];
		*n = k;
		free(ex);
	}
	if (ret) {
		free(*ids);
		*ids = NULL;
		*n = 0;
	}
	idx_file_release(&f);
	idx_file_release(&cf);
	free(g);
	free(c);
	return ret;
}

int judge_relation(struct idx *ix, struct judge_cache *c, uint64_t a, uint64_t b,
		   enum relate_class *cls)
{
	struct idx_file fa = { 0 }, fb = { 0 };
	struct book *ba = NULL;
	struct judge_pair r;
	int ret;

	*cls = RELATE_UNRELATED;
	ret = idx_get_id(ix, a, &fa);
	if (!ret)
		ret = idx_get_id(ix, b, &fb);
	if (!ret && (!fa.has_fp || !fb.has_fp))
		ret = -ENOENT;
	if (!ret)
		ret = judge_compare(ix, c, &fa, &ba, &fb, &r);
	if (!ret)
		*cls = a == r.a ? r.cls : judge_mirror(r.cls);
	book_free(ba);
	idx_file_release(&fa);
	idx_file_release(&fb);
	return ret;
}

/* 1 for the relations that join a cluster. */
static int joins_cluster(enum relate_class cls)
{
	return cls == RELATE_IDENTICAL_FILE || cls == RELATE_SAME_TEXT ||
	       cls == RELATE_NEAR_DUPLICATE;
}

/* After book f was judged: when f itself went or became a copy meanwhile,
 * the copy promoted in its place (or the smaller id that took it over)
 * took over the relations and links stored until then but not this
 * judgement, which was refused, so it is judged (the same fingerprint: the
 * representative of f's text with f's tag). */
static int judge_successor(struct idx *ix, const struct idx_file *f)
{
	struct idx_file now = { 0 };
	uint64_t *same = NULL, next = 0;
	size_t n = 0, i;
	int ret = idx_get_id(ix, f->id, &now);

	if (ret == 0 && now.has_fp && !now.is_copy && idx_fp_tag(&now) == idx_fp_tag(f)) {
		idx_file_release(&now);
		return 0;	/* f is still the representative */
	}
	idx_file_release(&now);
	ret = idx_by_text_hash(ix, f->text_hash, &same, &n);
	for (i = 0; ret == 0 && i < n && !next; i++) {
		if (same[i] != f->id && idx_get_id(ix, same[i], &now) == 0 && now.has_fp &&
		    !now.is_copy && idx_fp_tag(&now) == idx_fp_tag(f))
			next = same[i];
		idx_file_release(&now);
	}
	free(same);
	if (ret == -ENOENT)
		ret = 0;
	return ret == 0 && next ? judge_book(ix, next) : ret;
}

int judge_book(struct idx *ix, uint64_t id)
{
	return judge_batch(ix, id, NULL, 0);
}

int judge_batch(struct idx *ix, uint64_t id, const uint64_t *later, size_t nlater)
{
	struct idx_file f = { 0 }, cf = { 0 };
	struct idx_judgement jd = { 0 };
	struct idx_rel *rels = NULL;
	struct book *bf = NULL;
	enum relate_class cls;
	struct judge_pair r;
	uint64_t *ids = NULL, *own = NULL;
	size_t nids = 0, nr = 0, nown = 0, i;
	int ret, lo;

	ret = idx_get_id(ix, id, &f);
	if (!ret && !f.has_fp)
		ret = -ENOENT;
	/* a copy is in its representative's cluster by definition, and its
	 * relations to other books are the representative's */
	if (ret || f.is_copy)
		goto out;
	ret = judge_gather(ix, &f, JUDGE_SRC_ALL, 1, &ids, &nids);
	if (!ret && f.has_copies)
		ret = idx_copies(ix, id, &own, &nown);
	if (ret)
		goto out;
	rels = malloc((nids ? nids : 1) * sizeof(*rels));
	if (!rels) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nids; i++) {
		size_t k;

		idx_file_release(&cf);
		for (k = 0; k < nlater && later[k] != ids[i]; k++)
			;
		if (k < nlater)
			continue;	/* that book's own judgement compares the pair */
		if (nown && bsearch(&ids[i], own, nown, sizeof(*own), rsort_cmp_u64))
			continue;	/* a copy of id: joined without a link, listed
					 * by comparison (stored_list()) */
		if (idx_get_id(ix, ids[i], &cf) || !cf.has_fp)
			continue;
		/* a record that does not decode is skipped, as in the lists */
		ret = judge_compare(ix, NULL, &f, &bf, &cf, &r);
		if (ret == -ENOMEM)
			goto out;
		ret = 0;
		if (!r.used || r.cls == RELATE_UNRELATED)
			continue;
		lo = id == r.a;
		cls = lo ? r.cls : judge_mirror(r.cls);
		rels[nr++] = (struct idx_rel){
			.id = cf.id, .tag = idx_fp_tag(&cf), .cls_this = (uint8_t)cls,
			.cls_other = (uint8_t)judge_mirror(cls), .score = (uint8_t)r.score,
			.dist = (uint8_t)r.dist, .link = (uint8_t)joins_cluster(cls),
			.jaccard = r.jaccard, .cover_this = lo ? r.cover_a : r.cover_b,
			.cover_other = lo ? r.cover_b : r.cover_a,
		};
	}
	jd = (struct idx_judgement){ id, idx_fp_tag(&f), rels, nr };
	ret = idx_rels_set(ix, &jd, 1);
	/* refused because id went or became a copy meanwhile: its successor */
	if (ret >= 0)
		ret = judge_successor(ix, &f);
	if (ret > 0)
		ret = 0;
out:
	idx_file_release(&f);
	idx_file_release(&cf);
	book_free(bf);
	free(rels);
	free(ids);
	free(own);
	return ret;
}
