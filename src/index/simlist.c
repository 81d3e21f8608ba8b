/* simlist.c - the ranked, named list of books similar to one book (see
 * simlist.h). */
#include "simlist.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "book.h"
#include "bookrec.h"
#include "rsort.h"

#define MAX_CANDIDATES 2000	/* compared per book at most (nearest first) */

/* Pruning-key candidates (SIMLIST_SRC_UNIQUE): a key held by more than
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

/* ---- comparison cache ---- */

/* The comparison of books a < b, from a's side (book_compare(a, b)): a
 * pair has one verdict, whichever book is listed or judged, so a stored
 * list and one computed at read time agree. */
struct pairres {
	uint64_t a, b;		/* a < b; used != 0 marks a filled slot */
	uint64_t tag_a, tag_b;	/* fingerprint tags the result is valid for */
	int used;
	enum relate_class cls;	/* a's side */
	unsigned score;
	int dist;
	double jaccard, cover_a, cover_b;	/* fraction of a found in b, of b in a */
};

struct simcache {
	pthread_mutex_t lock;
	struct pairres *slot;
	size_t cap, n, max;
};

struct simcache *simcache_new(size_t max_pairs)
{
	struct simcache *c = calloc(1, sizeof(*c));

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

void simcache_free(struct simcache *c)
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

static int simcache_get(struct simcache *c, const struct pairres *key, struct pairres *out)
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

static void simcache_put(struct simcache *c, const struct pairres *r)
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

/* ---- pure parts ---- */

static const char *const labels[RELATE_NCLASSES] = {
	[RELATE_UNRELATED] = "unrelated",
	[RELATE_IDENTICAL_FILE] = "identical file",
	[RELATE_SAME_TEXT] = "same text",
	[RELATE_NEAR_DUPLICATE] = "near duplicate",
	[RELATE_A_CONTAINS_B] = "part of this",
	[RELATE_B_CONTAINS_A] = "contains this",
	[RELATE_OVERLAP] = "overlap",
};

/* Sort order of the classes, best first. */
static const int class_rank[RELATE_NCLASSES] = {
	[RELATE_IDENTICAL_FILE] = 0, [RELATE_SAME_TEXT] = 1, [RELATE_NEAR_DUPLICATE] = 2,
	[RELATE_A_CONTAINS_B] = 3, [RELATE_B_CONTAINS_A] = 3, [RELATE_OVERLAP] = 4,
	[RELATE_UNRELATED] = 5,
};

const char *simlist_label(enum relate_class cls)
{
	return (unsigned)cls < RELATE_NCLASSES ? labels[cls] : "?";
}

static double max2(double a, double b)
{
	return a > b ? a : b;
}

static unsigned pct(double x, unsigned lo, unsigned hi)
{
	long v = x < 0 ? 0 : (long)(x * 100.0 + 0.5);

	if (v < (long)lo)
		v = lo;
	if (v > (long)hi)
		v = hi;
	return (unsigned)v;
}

unsigned simlist_score(const struct relate_signals *sig, const struct relate_result *rel)
{
	switch (rel->cls) {
	case RELATE_IDENTICAL_FILE:
	case RELATE_SAME_TEXT:
		return 100;
	case RELATE_NEAR_DUPLICATE:
		if (rel->difference >= 0)
			return pct(1.0 - rel->difference, 1, 99);
		return pct(max2(sig->jaccard, 1.0 - sig->simhash_distance / 128.0), 1, 99);
	case RELATE_A_CONTAINS_B:
		return pct(max2(sig->chunk_cover_b, sig->span_cover_b), 1, 100);
	case RELATE_B_CONTAINS_A:
		return pct(max2(sig->chunk_cover_a, sig->span_cover_a), 1, 100);
	case RELATE_OVERLAP:
		return pct(max2(max2(sig->chunk_cover_a, sig->chunk_cover_b), sig->jaccard), 1, 99);
	default:
		return 0;
	}
}

int simlist_fit(struct sbuf *out, const char *base, size_t max)
{
	size_t len = strlen(base), ext = 0, keep;
	const char *dot = strrchr(base, '.');

	if (len <= max)
		return sbuf_add(out, base, len);
	if (dot && dot != base && (size_t)(base + len - dot) <= 16 && (size_t)(base + len - dot) < max)
		ext = (size_t)(base + len - dot);
	keep = max - ext;
	while (keep > 0 && ((unsigned char)base[keep] & 0xC0) == 0x80)
		keep--;
	if (sbuf_add(out, base, keep))
		return -ENOMEM;
	return sbuf_add(out, base + len - ext, ext);
}

int simlist_name(struct sbuf *out, size_t rank, int width, unsigned score, const char *label,
		 const char *base)
{
	sbuf_setlen(out, 0);
	if (sbuf_addf(out, "%0*zu %u%% %s - ", width, rank, score, label))
		return -ENOMEM;
	if (out->len >= NAME_MAX)
		return -ENAMETOOLONG;
	return simlist_fit(out, base, NAME_MAX - out->len);
}

static int entry_cmp(const void *pa, const void *pb)
{
	const struct simlist_entry *a = pa, *b = pb;
	int ra = class_rank[a->cls], rb = class_rank[b->cls];

	if (ra != rb)
		return ra < rb ? -1 : 1;
	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	return strcmp(a->path, b->path);
}

static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

int simlist_rank(struct simlist *l)
{
	struct sbuf nm;
	size_t i, digits = 2, lim = 100;
	int ret = 0;

	qsort(l->v, l->n, sizeof(*l->v), entry_cmp);
	while (l->n >= lim) {
		digits++;
		lim *= 10;
	}
	sbuf_init(&nm);
	for (i = 0; i < l->n && !ret; i++) {
		ret = simlist_name(&nm, i + 1, (int)digits, l->v[i].score,
				   simlist_label(l->v[i].cls), base_of(l->v[i].path));
		if (!ret) {
			free(l->v[i].name);
			l->v[i].name = strdup(nm.buf);
			if (!l->v[i].name)
				ret = -ENOMEM;
		}
	}
	sbuf_release(&nm);
	return ret;
}

int simlist_link(char *buf, size_t size, int depth, const char *path)
{
	size_t need = (size_t)depth * 3 + strlen(path) + 1, i;

	if (depth < 0 || need > size)
		return -ENAMETOOLONG;
	for (i = 0; i < (size_t)depth; i++)
		memcpy(buf + 3 * i, "../", 3);
	strcpy(buf + 3 * (size_t)depth, path);
	return 0;
}

int simlist_escape(struct sbuf *out, const char *s)
{
	int ret = 0;

	for (; *s && !ret; s++) {
		if (*s == '\t')
			ret = sbuf_addstr(out, "\\t");
		else if (*s == '\n')
			ret = sbuf_addstr(out, "\\n");
		else if (*s == '\\')
			ret = sbuf_addstr(out, "\\\\");
		else
			ret = sbuf_addch(out, *s);
	}
	return ret;
}

int simlist_unescape(char *s)
{
	char *d = s;

	for (; *s; s++, d++) {
		if (*s != '\\') {
			*d = *s;
			continue;
		}
		s++;
		if (*s == 't')
			*d = '\t';
		else if (*s == 'n')
			*d = '\n';
		else if (*s == '\\')
			*d = '\\';
		else
			return -EINVAL;
	}
	*d = '\0';
	return 0;
}

struct nd_line {
	const char *a, *b;	/* a < b, byte order */
};

static int nd_line_cmp(const void *x, const void *y)
{
	const struct nd_line *p = x, *q = y;
	int c = strcmp(p->a, q->a);

	return c ? c : strcmp(p->b, q->b);
}

int simlist_exemptions_tsv(struct idx *ix, struct sbuf *out)
{
	struct idx_file *f = NULL;
	struct idx_pair *p = NULL;
	struct nd_line *l = NULL;
	uint64_t *ids = NULL;
	size_t n = 0, nl = 0, i;
	int ret = idx_exemptions(ix, &p, &n);

	if (ret || !n)
		goto out;
	ids = malloc(2 * n * sizeof(*ids));
	f = calloc(2 * n, sizeof(*f));
	l = malloc(n * sizeof(*l));
	if (!ids || !f || !l) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		ids[2 * i] = p[i].a;
		ids[2 * i + 1] = p[i].b;
	}
	ret = idx_get_ids(ix, ids, 2 * n, f);
	if (ret)
		goto out;
	for (i = 0; i < n; i++) {
		const char *a = f[2 * i].path, *b = f[2 * i + 1].path;

		if (!a || !b)
			continue;
		l[nl++] = strcmp(a, b) < 0 ? (struct nd_line){ a, b } : (struct nd_line){ b, a };
	}
	qsort(l, nl, sizeof(*l), nd_line_cmp);
	for (i = 0; i < nl && !ret; i++) {
		ret = simlist_escape(out, l[i].a);
		if (!ret)
			ret = sbuf_addch(out, '\t');
		if (!ret)
			ret = simlist_escape(out, l[i].b);
		if (!ret)
			ret = sbuf_addch(out, '\n');
	}
out:
	if (f)
		for (i = 0; i < 2 * n; i++)
			idx_file_release(&f[i]);
	free(f);
	free(l);
	free(ids);
	free(p);
	return ret;
}

int simlist_tsv(const struct simlist *l, struct sbuf *out)
{
	size_t i;
	int ret;

	ret = sbuf_addstr(out, "rank\tscore\trelation\tsimhash_distance\tjaccard\tcover_this\t"
			       "cover_other\tid\tpath\n");
	for (i = 0; i < l->n && !ret; i++) {
		const struct simlist_entry *e = &l->v[i];

		ret = sbuf_addf(out, "%zu\t%u\t%s\t%d\t%.3f\t%.3f\t%.3f\t%016llx\t", i + 1, e->score,
				relate_class_name(e->cls), e->simhash_distance, e->jaccard,
				e->cover_this, e->cover_other, (unsigned long long)e->id);
		if (!ret)
			ret = simlist_escape(out, e->path);
		if (!ret)
			ret = sbuf_addch(out, '\n');
	}
	return ret;
}

void simlist_free(struct simlist *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->n; i++) {
		free(l->v[i].path);
		free(l->v[i].name);
	}
	free(l->v);
	free(l);
}

/* ---- computing a list ---- */

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
	return ret;
}

/* The class from the other book's side. */
static enum relate_class mirror(enum relate_class cls)
{
	if (cls == RELATE_A_CONTAINS_B)
		return RELATE_B_CONTAINS_A;
	if (cls == RELATE_B_CONTAINS_A)
		return RELATE_A_CONTAINS_B;
	return cls;
}

/* Compares book af (loaded on demand into *ba) with candidate cf, from the
 * smaller id's side: *r (r->a < r->b). */
static int compare_pair(struct idx *ix, struct simcache *c, const struct idx_file *af,
			struct book **ba, const struct idx_file *cf, struct pairres *r)
{
	struct book *bb = NULL;
	struct book_cmp cmp;
	int ret, lo = af->id < cf->id;

	memset(r, 0, sizeof(*r));
	r->a = lo ? af->id : cf->id;
	r->b = lo ? cf->id : af->id;
	r->tag_a = idx_fp_tag(lo ? af : cf);
	r->tag_b = idx_fp_tag(lo ? cf : af);
	if (c && simcache_get(c, r, r))
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
	r->score = simlist_score(&cmp.sig, &cmp.rel);
	r->dist = cmp.sig.simhash_distance;
	r->jaccard = cmp.sig.jaccard;
	r->cover_a = max2(cmp.sig.chunk_cover_a, cmp.sig.span_cover_a);
	r->cover_b = max2(cmp.sig.chunk_cover_b, cmp.sig.span_cover_b);
	r->used = 1;
	if (c)
		simcache_put(c, r);
	return 0;
}

/* The relation r as book id's list shows it. */
static struct simlist_entry pair_entry(const struct pairres *r, uint64_t id)
{
	int lo = id == r->a;

	return (struct simlist_entry){
		.id = lo ? r->b : r->a, .cls = lo ? r->cls : mirror(r->cls), .score = r->score,
		.simhash_distance = r->dist, .jaccard = r->jaccard,
		.cover_this = lo ? r->cover_a : r->cover_b,
		.cover_other = lo ? r->cover_b : r->cover_a,
	};
}

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

int simlist_expand(struct idx *ix, const struct idx_file *f, const struct idx_file *rel,
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

/* Gathers candidate ids from the sources (SIMLIST_SRC_*): sorted, unique,
 * without id; without its exemptions unless keep_exempt.  Representatives
 * stand for their copies (simlist_expand()); the books with f's own text
 * come one by one (the text source). */
static int candidates(struct idx *ix, const struct idx_file *f, unsigned sources, int keep_exempt,
		      uint64_t **out, size_t *nout)
{
	struct idx_hit *near = NULL, *mh = NULL;
	uint64_t *bands = NULL, *same = NULL, *ex = NULL, *ids = NULL;
	size_t nnear = 0, nmh = 0, nsame = 0, nex = 0, nuq = 0, n = 0, i, j, k;
	uint32_t nb = 0;
	int ret = 0;

	if (sources & SIMLIST_SRC_NEAR)
		ret = idx_near_reps(ix, f->simhash, idx_max_d(ix), &near, &nnear);
	if (!ret && (sources & SIMLIST_SRC_MINHASH) && idx_mh_bands(ix, f->id, &bands, &nb) == 0 && nb)
		ret = idx_mh_candidates(ix, bands, nb, 1, &mh, &nmh);
	if (!ret && (sources & SIMLIST_SRC_TEXT))
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
	ids = malloc((nnear + nmh + nsame + UQ_MAX_CANDIDATES + 1) * sizeof(*ids));
	if (!ids) {
		ret = -ENOMEM;
		goto out;
	}
	if (sources & SIMLIST_SRC_UNIQUE) {
		ret = uq_candidates(ix, f, ids, &nuq);
		if (ret)
			goto out;
		n = nuq;
	}
	for (i = 0; i < nnear; i++)
		ids[n++] = near[i].id;
	for (i = 0; i < nmh; i++)
		ids[n++] = mh[i].id;
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

/* Makes room in l (*cap entries) for n more. */
static int list_room(struct simlist *l, size_t *cap, size_t n)
{
	struct simlist_entry *v;
	size_t nc = *cap;

	while (l->n + n > nc)
		nc *= 2;
	if (nc == *cap)
		return 0;
	v = realloc(l->v, nc * sizeof(*v));
	if (!v)
		return -ENOMEM;
	l->v = v;
	*cap = nc;
	return 0;
}

/* Appends to l (room for *cap entries, grown) the copies of the related
 * representative cf other than cf itself and the nex books ex[] exempted
 * from f, each under its own path with cf's entry e in f's list: copies
 * relate alike to every book of another text. */
static int add_copies(struct idx *ix, const struct idx_file *f, const struct idx_file *cf,
		      const struct simlist_entry *e, const uint64_t *ex, size_t nex,
		      int (*skip)(void *arg, const char *path), void *arg, struct simlist *l,
		      size_t *cap)
{
	struct idx_file mf = { 0 };
	uint64_t *ids = NULL;
	size_t n = 0, i;
	int ret = simlist_expand(ix, f, cf, &ids, &n);

	if (!ret)
		ret = list_room(l, cap, n);
	for (i = 0; !ret && n > 1 && i < n; i++) {
		idx_file_release(&mf);
		if (ids[i] == cf->id || (nex && bsearch(&ids[i], ex, nex, sizeof(*ex), rsort_cmp_u64)))
			continue;
		if (idx_get_id(ix, ids[i], &mf) || !mf.has_fp || mf.state != IDX_INDEXED)
			continue;
		if (skip && skip(arg, mf.path))
			continue;
		l->v[l->n] = *e;
		l->v[l->n].id = mf.id;
		l->v[l->n].path = mf.path;
		l->v[l->n].name = NULL;
		mf.path = NULL;
		l->n++;
	}
	idx_file_release(&mf);
	free(ids);
	return ret;
}

/* The representative of copy f with f's fingerprint into *rf (left empty,
 * id 0, when f is no copy or the group changed meanwhile).  0 or -errno. */
static int rep_of(struct idx *ix, const struct idx_file *f, struct idx_file *rf)
{
	uint64_t *g = NULL;
	size_t ng = 0;
	int ret = 0;

	if (!f->is_copy)
		return 0;
	ret = idx_copies(ix, f->id, &g, &ng);
	if (ret == -ENOENT)
		ret = 0;
	if (!ret && ng && g[0] != f->id && idx_get_id(ix, g[0], rf) == 0 &&
	    (!rf->has_fp || rf->is_copy || idx_fp_tag(rf) != idx_fp_tag(f)))
		idx_file_release(rf);
	free(g);
	if (ret)
		idx_file_release(rf);
	return ret;
}

int simlist_compute(struct idx *ix, struct simcache *c, uint64_t id,
		    int (*skip)(void *arg, const char *path), void *arg, struct simlist **out)
{
	struct idx_file f = { 0 }, cf = { 0 }, rf = { 0 };
	struct simlist *l = NULL;
	struct book *ba = NULL, *bra = NULL;
	struct simlist_entry e;
	struct pairres r;
	uint64_t *ids = NULL, *ex = NULL;
	size_t nids = 0, nex = 0, cap, i;
	int ret;

	*out = NULL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->id = id;
	l->generation = idx_generation(ix);
	ret = idx_get_id(ix, id, &f);
	if (!ret && !f.has_fp)
		ret = -ENOENT;
	/* exempted candidates too: a representative exempted from id still
	 * stands for its other copies */
	if (!ret)
		ret = candidates(ix, &f, SIMLIST_SRC_ALL, 1, &ids, &nids);
	if (!ret)
		ret = idx_exempt_ids(ix, id, &ex, &nex);
	/* a copy relates to the books of other texts as its representative
	 * does (identical fingerprints, one verdict: the stored lists') */
	if (!ret)
		ret = rep_of(ix, &f, &rf);
	if (ret)
		goto out;
	cap = nids ? nids : 1;
	l->v = calloc(cap, sizeof(*l->v));
	if (!l->v) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nids; i++) {
		uint64_t via;
		int shown;

		idx_file_release(&cf);
		if (idx_get_id(ix, ids[i], &cf) || !cf.has_fp || cf.state != IDX_INDEXED)
			continue;
		shown = !(nex && bsearch(&cf.id, ex, nex, sizeof(*ex), rsort_cmp_u64)) &&
			!(skip && skip(arg, cf.path));
		if (!shown && !cf.has_copies)
			continue;
		via = rf.id && memcmp(cf.text_hash, f.text_hash, IDX_SH_BYTES) ? rf.id : id;
		/* A record that does not decode is skipped, not fatal. */
		ret = via == id ? compare_pair(ix, c, &f, &ba, &cf, &r) :
			compare_pair(ix, c, &rf, &bra, &cf, &r);
		if (ret == -ENOMEM)
			goto out;
		ret = 0;
		if (r.cls == RELATE_UNRELATED || !r.used)
			continue;
		e = pair_entry(&r, via);
		if (shown) {
			ret = list_room(l, &cap, 1);
			if (ret)
				goto out;
			l->v[l->n] = e;
			l->v[l->n].id = cf.id;
			l->v[l->n].path = cf.path;
			cf.path = NULL;
			l->n++;
		}
		if (cf.has_copies) {
			ret = add_copies(ix, &f, &cf, &e, ex, nex, skip, arg, l, &cap);
			if (ret)
				goto out;
		}
	}
	ret = simlist_rank(l);
out:
	idx_file_release(&f);
	idx_file_release(&cf);
	idx_file_release(&rf);
	book_free(ba);
	book_free(bra);
	free(ids);
	free(ex);
	if (ret) {
		simlist_free(l);
		l = NULL;
	}
	*out = l;
	return ret;
}

/* Appends to l (room for *cap entries, grown) the books other than f
 * with f's text (its own group of copies among them, which its judgement
 * leaves out), each compared with f (identical file or same text; c may
 * be NULL), minus the nex exemptions ex[] and the paths skip drops: the
 * text source of simlist_compute(). */
static int add_same_text(struct idx *ix, struct simcache *c, const struct idx_file *f,
			 const uint64_t *ex, size_t nex, int (*skip)(void *arg, const char *path),
			 void *arg, struct simlist *l, size_t *cap)
{
	struct idx_file cf = { 0 };
	struct book *ba = NULL;
	uint64_t *same = NULL;
	struct pairres r;
	size_t n = 0, i;
	int ret = idx_by_text_hash(ix, f->text_hash, &same, &n);

	if (ret == -ENOENT)
		ret = 0;
	for (i = 0; !ret && i < n; i++) {
		idx_file_release(&cf);
		if (same[i] == f->id || (nex && bsearch(&same[i], ex, nex, sizeof(*ex), rsort_cmp_u64)))
			continue;
		if (idx_get_id(ix, same[i], &cf) || !cf.has_fp || cf.state != IDX_INDEXED)
			continue;
		if (skip && skip(arg, cf.path))
			continue;
		/* a record that does not decode is skipped, as in the lists */
		ret = compare_pair(ix, c, f, &ba, &cf, &r);
		if (ret != -ENOMEM)
			ret = 0;
		if (ret || r.cls == RELATE_UNRELATED || !r.used)
			continue;
		ret = list_room(l, cap, 1);
		if (ret)
			break;
		l->v[l->n] = pair_entry(&r, f->id);
		l->v[l->n].path = cf.path;
		cf.path = NULL;
		l->n++;
	}
	idx_file_release(&cf);
	book_free(ba);
	free(same);
	return ret;
}

/* The list of book f as stored by the judgement of its representative
 * (f itself unless it is a copy): those relations minus f's exemptions,
 * each related representative expanded into the copies it stands for
 * (add_copies(), as simlist_compute() does), plus the books of f's own
 * text compared (add_same_text(): its own copies, which no judgement
 * relates), ranked and named.  Returns 1 and *out when the representative
 * was judged on f's fingerprint (the same tag), 0 when not (the caller
 * computes the list), -errno.  The one place a stored list becomes
 * entries. */
static int stored_list(struct idx *ix, struct simcache *c, const struct idx_file *f,
		       int (*skip)(void *arg, const char *path), void *arg, struct simlist **out)
{
	struct idx_file *fs = NULL, rf = { 0 };
	struct idx_rel *rels = NULL;
	struct simlist *l = NULL;
	struct simlist_entry e;
	uint64_t *ex = NULL, *ids = NULL;
	size_t nr = 0, nex = 0, n = 0, i, cap = 0;
	int ret, judged = 0;

	*out = NULL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->id = f->id;
	l->generation = idx_generation(ix);
	ret = rep_of(ix, f, &rf);
	if (!ret && f->is_copy && !rf.id)
		goto out;	/* its group is changing: computed */
	if (!ret)
		ret = judged = idx_rels_get(ix, rf.id ? rf.id : f->id, idx_fp_tag(f), &rels, &nr);
	if (ret <= 0)
		goto out;
	ret = idx_exempt_ids(ix, f->id, &ex, &nex);
	if (ret == -ENOENT)
		ret = 0;
	if (ret)
		goto out;
	cap = nr ? nr : 1;
	ids = malloc(cap * sizeof(*ids));
	l->v = calloc(cap, sizeof(*l->v));
	if (!ids || !l->v) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nr; i++) {
		if (rels[i].id == f->id || rels[i].cls_this == RELATE_UNRELATED ||
		    rels[i].cls_this >= RELATE_NCLASSES || rels[i].score > 100)
			continue;
		rels[n] = rels[i];
		ids[n++] = rels[i].id;
	}
	fs = calloc(n ? n : 1, sizeof(*fs));
	if (!fs) {
		ret = -ENOMEM;
		goto out;
	}
	ret = idx_get_ids(ix, ids, n, fs);
	for (i = 0; i < n && !ret; i++) {
		int shown;

		if (!fs[i].path || !fs[i].has_fp || fs[i].state != IDX_INDEXED)
			continue;
		if (memcmp(fs[i].text_hash, f->text_hash, IDX_SH_BYTES) == 0)
			continue;	/* f's own text: add_same_text() */
		/* an exempted representative still stands for its other copies */
		shown = !(nex && bsearch(&rels[i].id, ex, nex, sizeof(*ex), rsort_cmp_u64)) &&
			!(skip && skip(arg, fs[i].path));
		e = (struct simlist_entry){
			.id = rels[i].id, .cls = (enum relate_class)rels[i].cls_this,
			.score = rels[i].score, .simhash_distance = rels[i].dist,
			.jaccard = rels[i].jaccard, .cover_this = rels[i].cover_this,
			.cover_other = rels[i].cover_other,
		};
		if (shown) {
			ret = list_room(l, &cap, 1);
			if (ret)
				break;
			l->v[l->n] = e;
			l->v[l->n++].path = fs[i].path;
			fs[i].path = NULL;
		}
		if (fs[i].has_copies)
			ret = add_copies(ix, f, &fs[i], &e, ex, nex, skip, arg, l, &cap);
	}
	if (!ret)
		ret = add_same_text(ix, c, f, ex, nex, skip, arg, l, &cap);
	if (!ret)
		ret = simlist_rank(l);
out:
	if (fs)
		for (i = 0; i < n; i++)
			idx_file_release(&fs[i]);
	idx_file_release(&rf);
	free(fs);
	free(ids);
	free(ex);
	free(rels);
	if (ret < 0 || !judged) {
		simlist_free(l);
		return ret < 0 ? ret : 0;
	}
	*out = l;
	return 1;
}

int simlist_get(struct idx *ix, struct simcache *c, uint64_t id,
		int (*skip)(void *arg, const char *path), void *arg, struct simlist **out)
{
	struct idx_file f = { 0 };
	int ret;

	*out = NULL;
	ret = idx_get_id(ix, id, &f);
	if (!ret && !f.has_fp)
		ret = -ENOENT;
	if (!ret)
		ret = stored_list(ix, c, &f, skip, arg, out);
	idx_file_release(&f);
	if (ret == 0)	/* not judged yet: computed */
		return simlist_compute(ix, c, id, skip, arg, out);
	return ret < 0 ? ret : 0;
}

int simlist_candidates(struct idx *ix, uint64_t id, unsigned sources, uint64_t **ids, size_t *n)
{
	struct idx_file f = { 0 }, cf = { 0 };
	uint64_t *c = NULL, *g = NULL, *v;
	size_t nc = 0, ng = 0, i, j, k, cap = 0;
	int ret;

	*ids = NULL;
	*n = 0;

	ret = idx_get_id(ix, id, &f);
	if (!ret && !f.has_fp)
		ret = -ENOENT;
	if (!ret)
		ret = candidates(ix, &f, sources, 1, &c, &nc);
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
		ret = simlist_expand(ix, &f, &cf, &g, &ng);
		if (!ret && *n + ng > cap) {
			cap = (*n + ng) * 2;
			v = realloc(*ids, cap * sizeof(*v));
			if (!v)
				ret = -ENOMEM;
			else
				*ids = v;
		}
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

int simlist_relation(struct idx *ix, struct simcache *c, uint64_t a, uint64_t b,
		     enum relate_class *cls)
{
	struct idx_file fa = { 0 }, fb = { 0 };
	struct book *ba = NULL;
	struct pairres r;
	int ret;

	*cls = RELATE_UNRELATED;
	ret = idx_get_id(ix, a, &fa);
	if (!ret)
		ret = idx_get_id(ix, b, &fb);
	if (!ret && (!fa.has_fp || !fb.has_fp))
		ret = -ENOENT;
	if (!ret)
		ret = compare_pair(ix, c, &fa, &ba, &fb, &r);
	if (!ret)
		*cls = pair_entry(&r, a).cls;
	book_free(ba);
	idx_file_release(&fa);
	idx_file_release(&fb);
	return ret;
}

/* Union-find over indexes. */
static size_t uf_find(size_t *p, size_t x)
{
	while (p[x] != x) {
		p[x] = p[p[x]];
		x = p[x];
	}
	return x;
}

/* A member of a group, sortable: size descending, the group's smallest id,
 * then the member's id. */
struct gmem {
	size_t size;
	uint64_t gid, id;
};

static int gmem_cmp(const void *pa, const void *pb)
{
	const struct gmem *a = pa, *b = pb;

	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	if (a->gid != b->gid)
		return a->gid < b->gid ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

/* Sorts the members m (group ordering of gmem_cmp) and writes the groups
 * of two or more into g, whose start and ids arrays have room for them. */
static void groups_fill(struct gmem *m, size_t nm, struct idx_groups *g)
{
	size_t i, j, k = 0, ng = 0;

	qsort(m, nm, sizeof(*m), gmem_cmp);
	for (i = 0; i < nm; i = j) {
		for (j = i; j < nm && m[j].gid == m[i].gid; j++)
			;
		if (j - i < 2)
			continue;
		g->start[ng++] = k;
		for (; i < j; i++)
			g->ids[k++] = m[i].id;
	}
	g->start[ng] = k;
	g->ngroups = ng;
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
	return ret == 0 && next ? simlist_judge(ix, next) : ret;
}

int simlist_judge(struct idx *ix, uint64_t id)
{
	return simlist_judge_batch(ix, id, NULL, 0);
}

int simlist_judge_batch(struct idx *ix, uint64_t id, const uint64_t *later, size_t nlater)
{
	struct idx_file f = { 0 }, cf = { 0 };
	struct idx_judgement jd = { 0 };
	struct idx_rel *rels = NULL;
	struct book *bf = NULL;
	struct simlist_entry e;
	struct pairres r;
	uint64_t *ids = NULL, *own = NULL;
	size_t nids = 0, nr = 0, nown = 0, i;
	int ret;

	ret = idx_get_id(ix, id, &f);
	if (!ret && !f.has_fp)
		ret = -ENOENT;
	/* a copy is in its representative's cluster by definition, and its
	 * relations to other books are the representative's */
	if (ret || f.is_copy)
		goto out;
	ret = candidates(ix, &f, SIMLIST_SRC_ALL, 1, &ids, &nids);
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
		ret = compare_pair(ix, NULL, &f, &bf, &cf, &r);
		if (ret == -ENOMEM)
			goto out;
		ret = 0;
		if (!r.used || r.cls == RELATE_UNRELATED)
			continue;
		e = pair_entry(&r, id);
		rels[nr++] = (struct idx_rel){
			.id = cf.id, .tag = idx_fp_tag(&cf), .cls_this = (uint8_t)e.cls,
			.cls_other = (uint8_t)mirror(e.cls), .score = (uint8_t)e.score,
			.dist = (uint8_t)e.simhash_distance, .link = (uint8_t)joins_cluster(e.cls),
			.jaccard = e.jaccard, .cover_this = e.cover_this, .cover_other = e.cover_other,
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

int simlist_clusters(struct idx *ix, struct idx_groups *g)
{
	return idx_link_groups(ix, g);
}

int simlist_group_title(struct idx *ix, const uint64_t *ids, size_t n, const char *path,
			char **title)
{
	const char *base = strrchr(path, '/'), *dot;
	uint32_t ver = 0;
	void *rec = NULL;
	size_t len = 0, j;

	*title = NULL;
	for (j = 0; j < n && j < SIMLIST_TITLE_MEMBERS && !*title; j++) {
		/* the title sits in the record's header: copy only that */
		if (idx_record_head(ix, ids[j], BOOKREC_HEAD_LEN + 2 * BOOKREC_META_MAX, &ver, &rec,
				    &len) == 0 && ver == BOOKREC_IDX_VERSION)
			bookrec_title(rec, len, title);
		free(rec);
		rec = NULL;
		if (*title && !**title) {
			free(*title);
			*title = NULL;
		}
	}
	if (*title)
		return 0;
	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	*title = strndup(base, dot && dot != base ? (size_t)(dot - base) : strlen(base));
	return *title ? 0 : -ENOMEM;
}

static int pair_cmp(const void *pa, const void *pb)
{
	const struct idx_pair *a = pa, *b = pb;

	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return a->b < b->b ? -1 : a->b > b->b;
}

int simlist_text_groups(struct idx *ix, struct idx_groups *g)
{
	struct idx_groups in = { 0 };
	struct idx_pair *ex = NULL;
	struct gmem *m = NULL;
	size_t *par = NULL, *size = NULL, nm = 0, nex = 0, nexid = 0, gi, i, j, k, a, b;
	uint64_t *gid = NULL, *exid = NULL;
	int ret;

	memset(g, 0, sizeof(*g));
	ret = idx_text_groups(ix, &in);
	if (!ret)
		ret = idx_exemptions(ix, &ex, &nex);
	if (ret) {
		idx_groups_release(&in);
		return ret;
	}
	k = in.ngroups ? in.start[in.ngroups] : 0;
	par = malloc((k + 1) * sizeof(*par));
	size = calloc(k + 1, sizeof(*size));
	gid = malloc((k + 1) * sizeof(*gid));
	m = malloc((k + 1) * sizeof(*m));
	exid = malloc((2 * nex + 1) * sizeof(*exid));
	g->ids = malloc((k + 1) * sizeof(*g->ids));
	g->start = malloc((k + 2) * sizeof(*g->start));
	if (!par || !size || !gid || !m || !exid || !g->ids || !g->start) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nex; i++) {
		exid[nexid++] = ex[i].a;
		exid[nexid++] = ex[i].b;
	}
	if (nexid)
		qsort(exid, nexid, sizeof(*exid), rsort_cmp_u64);
	for (i = 0; i < k; i++)
		par[i] = i;
	for (gi = 0; gi < in.ngroups; gi++) {
		size_t s0 = in.start[gi], s1 = in.start[gi + 1], free_at = s1;

		/* a member in no exemption is joined to every other member, so
		 * the group is whole; else every member is in an exemption (at
		 * most twice their number) and each pair is checked */
		for (i = s0; i < s1 && free_at == s1; i++)
			if (!nexid || !bsearch(&in.ids[i], exid, nexid, sizeof(*exid), rsort_cmp_u64))
				free_at = i;
		if (free_at < s1) {
			for (i = s0; i < s1; i++) {
				a = uf_find(par, i);
				b = uf_find(par, free_at);
				if (a != b)
					par[a] = b;
			}
			continue;
		}
		for (i = s0; i < s1; i++) {
			for (j = i + 1; j < s1; j++) {
				struct idx_pair key = { in.ids[i], in.ids[j], 0 };	/* ids ascend */

				if (bsearch(&key, ex, nex, sizeof(*ex), pair_cmp))
					continue;
				a = uf_find(par, i);
				b = uf_find(par, j);
				if (a != b)
					par[a] = b;
			}
		}
	}
	/* ids within a group ascend, so the first member met per root is its
	 * smallest id */
	for (i = k; i-- > 0;) {
		j = uf_find(par, i);
		size[j]++;
		gid[j] = in.ids[i];
	}
	for (i = 0; i < k; i++) {
		j = uf_find(par, i);
		m[nm++] = (struct gmem){ size[j], gid[j], in.ids[i] };
	}
	groups_fill(m, nm, g);
out:
	idx_groups_release(&in);
	free(ex);
	free(exid);
	free(par);
	free(size);
	free(gid);
	free(m);
	if (ret)
		idx_groups_release(g);
	return ret;
}
