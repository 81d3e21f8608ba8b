/* simlist.c - the ranked, named list of books similar to one book, and the
 * listing files of the views (see simlist.h). */
#include "simlist.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "book.h"
#include "bookrec.h"
#include "grow.h"
#include "rsort.h"

/* ---- pure parts ---- */

static const char *const labels[RELATE_NCLASSES] = {
	[RELATE_UNRELATED] = "unrelated",
	[RELATE_IDENTICAL_FILE] = "identical file",
	[RELATE_SAME_TEXT] = "same text",
	[RELATE_NEAR_DUPLICATE] = "near duplicate",
	[RELATE_A_CONTAINS_B] = "part of this",
	[RELATE_B_CONTAINS_A] = "contains this",
	[RELATE_OVERLAP] = "overlap",
	[RELATE_OTHER_TRANSLATION] = "other translation",
};

/* Sort order of the classes among equal shares, best first. */
static const int class_rank[RELATE_NCLASSES] = {
	[RELATE_IDENTICAL_FILE] = 0, [RELATE_SAME_TEXT] = 1, [RELATE_NEAR_DUPLICATE] = 2,
	[RELATE_A_CONTAINS_B] = 3, [RELATE_B_CONTAINS_A] = 3, [RELATE_OVERLAP] = 4,
	[RELATE_OTHER_TRANSLATION] = 5, [RELATE_UNRELATED] = 6,
};

const char *simlist_label(enum relate_class cls)
{
	return (unsigned)cls < RELATE_NCLASSES ? labels[cls] : "?";
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

	/* other translations after every duplicate (they share no text);
	 * then by the share (one meaning for every class, judge_share()), so
	 * a name-sorted listing is sorted by the percentage in the names */
	if ((a->cls == RELATE_OTHER_TRANSLATION) != (b->cls == RELATE_OTHER_TRANSLATION))
		return a->cls == RELATE_OTHER_TRANSLATION ? 1 : -1;
	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	if (ra != rb)
		return ra < rb ? -1 : 1;
	return strcmp(a->path, b->path);
}

static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

int simlist_title_base(struct sbuf *out, const char *title, const char *path)
{
	const char *base = base_of(path), *dot = strrchr(base, '.');
	size_t i;

	sbuf_setlen(out, 0);
	if (sbuf_addstr(out, title))
		return -ENOMEM;
	for (i = 0; i < out->len; i++) {
		unsigned char ch = (unsigned char)out->buf[i];

		if (ch == '/')
			out->buf[i] = '_';
		else if (ch < 0x20 || ch == 0x7f)
			out->buf[i] = ' ';
	}
	return dot && dot != base && strlen(dot) <= 16 ? sbuf_addstr(out, dot) : 0;
}

int simlist_entry_base(struct sbuf *out, const char *title, const char *path)
{
	if (title && *title)
		return simlist_title_base(out, title, path);
	sbuf_setlen(out, 0);
	return sbuf_addstr(out, base_of(path));
}

int simlist_rank(struct simlist *l)
{
	struct sbuf nm, tb;
	size_t i, digits = 2, lim = 100;
	int ret = 0;

	qsort(l->v, l->n, sizeof(*l->v), entry_cmp);
	while (l->n >= lim) {
		digits++;
		lim *= 10;
	}
	sbuf_init(&nm);
	sbuf_init(&tb);
	for (i = 0; i < l->n && !ret; i++) {
		ret = simlist_entry_base(&tb, l->v[i].title, l->v[i].path);
		if (!ret)
			ret = simlist_name(&nm, i + 1, (int)digits, l->v[i].score,
					   simlist_label(l->v[i].cls), tb.buf);
		if (!ret) {
			free(l->v[i].name);
			l->v[i].name = strdup(nm.buf);
			if (!l->v[i].name)
				ret = -ENOMEM;
		}
	}
	sbuf_release(&nm);
	sbuf_release(&tb);
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
			       "cover_other\tid\tpath\ttitle\tlanguage\n");
	for (i = 0; i < l->n && !ret; i++) {
		const struct simlist_entry *e = &l->v[i];

		ret = sbuf_addf(out, "%zu\t%u\t%s\t%d\t%.3f\t%.3f\t%.3f\t%016llx\t", i + 1, e->score,
				relate_class_name(e->cls), e->simhash_distance, e->jaccard,
				e->cover_this, e->cover_other, (unsigned long long)e->id);
		if (!ret)
			ret = simlist_escape(out, e->path);
		if (!ret)
			ret = sbuf_addch(out, '\t');
		if (!ret && e->title)
			ret = simlist_escape(out, e->title);
		if (!ret)
			ret = sbuf_addf(out, "\t%s\n", *e->lang ? e->lang : "unknown");
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
		free(l->v[i].title);
	}
	free(l->v);
	free(l);
}

/* ---- computing a list from the judgement ---- */

/* The metadata.opf title of book id (NULL when it has none) and, when lang
 * is not NULL, its language ("" when unknown), from one read of its record. */
static int book_meta(struct idx *ix, uint64_t id, char **title, char lang[3])
{
	uint32_t ver;
	size_t len;
	void *rec = NULL;
	int ret = 0;

	*title = NULL;
	if (lang)
		lang[0] = '\0';
	if (idx_record_head(ix, id, BOOKREC_META_SPAN, &ver, &rec, &len) == 0 &&
	    ver == BOOKREC_IDX_VERSION) {
		if (lang)
			(void)bookrec_lang(rec, len, lang);
		if (bookrec_opf_name(rec, len, title) == -ENOMEM)
			ret = -ENOMEM;
	}
	free(rec);
	return ret;
}

int simlist_book_title(struct idx *ix, uint64_t id, char **title)
{
	return book_meta(ix, id, title, NULL);
}

/* The metadata.opf titles and the languages of l's entries (a record
 * without a title, or one that does not decode, names the entry by its file
 * name), then ranked and named. */
static int titles_rank(struct idx *ix, struct simlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].title);
		if (book_meta(ix, l->v[i].id, &l->v[i].title, l->v[i].lang))
			return -ENOMEM;
	}
	return simlist_rank(l);
}

/* The relation r as book id's list shows it. */
static struct simlist_entry pair_entry(const struct judge_pair *r, uint64_t id)
{
	int lo = id == r->a;
	enum relate_class cls = lo ? r->cls : judge_mirror(r->cls);
	double ct = lo ? r->cover_a : r->cover_b, co = lo ? r->cover_b : r->cover_a;

	return (struct simlist_entry){
		.id = lo ? r->b : r->a, .cls = cls, .score = judge_share(cls, ct, co),
		.simhash_distance = r->dist, .jaccard = r->jaccard,
		.cover_this = ct, .cover_other = co,
	};
}

/* Makes room in l (*cap entries) for n more. */
static int list_room(struct simlist *l, size_t *cap, size_t n)
{
	return ARRAY_GROW(l->v, *cap, l->n + n);
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
	int ret = judge_expand(ix, f, cf, &ids, &n);

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
		l->v[l->n].title = NULL;
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

int simlist_compute(struct idx *ix, struct judge_cache *c, uint64_t id,
		    int (*skip)(void *arg, const char *path), void *arg, struct simlist **out)
{
	struct idx_file f = { 0 }, cf = { 0 }, rf = { 0 };
	struct simlist *l = NULL;
	struct book *ba = NULL, *bra = NULL;
	struct simlist_entry e;
	struct judge_pair r;
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
		ret = judge_gather(ix, &f, JUDGE_SRC_ALL, 1, &ids, &nids);
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
		ret = via == id ? judge_compare(ix, c, &f, &ba, &cf, &r) :
			judge_compare(ix, c, &rf, &bra, &cf, &r);
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
	ret = titles_rank(ix, l);
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
static int add_same_text(struct idx *ix, struct judge_cache *c, const struct idx_file *f,
			 const uint64_t *ex, size_t nex, int (*skip)(void *arg, const char *path),
			 void *arg, struct simlist *l, size_t *cap)
{
	struct idx_file cf = { 0 };
	struct book *ba = NULL;
	uint64_t *same = NULL;
	struct judge_pair r;
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
		ret = judge_compare(ix, c, f, &ba, &cf, &r);
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
static int stored_list(struct idx *ix, struct judge_cache *c, const struct idx_file *f,
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
			.score = judge_share((enum relate_class)rels[i].cls_this,
					     rels[i].cover_this, rels[i].cover_other),
			.simhash_distance = rels[i].dist,
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
		ret = titles_rank(ix, l);
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

int simlist_get(struct idx *ix, struct judge_cache *c, uint64_t id,
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
