/* idx_rel.c - the two-way pair tables: exemptions, cluster links and stored
 * relations with the judged marks, and the catch-up of unjudged books. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "byteorder.h"
#include "grow.h"
#include "idx_i.h"

/* A row of a two-way pair table copied out of the map. */
struct pairrow {
	uint64_t other;
	uint8_t fwd[REL_LEN], rev[REL_LEN];	/* the values of id + other, other + id */
	uint8_t nfwd, nrev;
};

/* The value v copied into buf (room REL_LEN; longer values, which no pair
 * table holds, are cut, and decode as nothing). */
static uint8_t pair_val(const struct kvs_val *v, uint8_t *buf)
{
	size_t n = v->len < REL_LEN ? v->len : REL_LEN;

	if (n)
		memcpy(buf, v->data, n);
	return (uint8_t)n;
}

/* Removes every pair of the two-way pair table db (exemptions, cluster
 * links, relations) that involves id; with move, each pair (id, x) becomes
 * (to, x) with the same values both ways (none with x == to).  The rel
 * table's judged mark (id, 0) is one-way: it goes, or moves to to. */
static int pairs_move(struct wtx *w, int db, uint64_t id, int move, uint64_t to)
{
	uint8_t key[16], rev[16];
	struct pairrow *rows = NULL;
	size_t n = 0, cap = 0, i;
	struct kvs_cur *cur = NULL;
	struct kvs_val k, v;
	int rc, ret;

	be_put(key, id, 8);
	ret = kvs_cur_open(w->tx, db, &cur);
	if (ret)
		return ret;
	for (rc = kvs_cur_seek(cur, key, 8, &k, &v); rc == 0; rc = kvs_cur_next(cur, &k, &v)) {
		if (k.len != 16 || memcmp(k.data, key, 8) != 0)
			break;
		if (ARRAY_GROW(rows, cap, n + 1)) {
			ret = -ENOMEM;
			goto out;
		}
		rows[n].other = be_get((const uint8_t *)k.data + 8, 8);
		rows[n].nfwd = pair_val(&v, rows[n].fwd);
		rows[n++].nrev = 0;
	}
	kvs_cur_close(cur);
	cur = NULL;
	if (rc != -ENOENT && rc != 0)
		ret = rc;
	for (i = 0; i < n && ret == 0; i++) {
		struct pairrow *r = &rows[i];

		be_put(key + 8, r->other, 8);
		be_put(rev, r->other, 8);
		be_put(rev + 8, id, 8);
		if (move && r->other && idx_w_get(w, db, rev, 16, &v) == 0)
			r->nrev = pair_val(&v, r->rev);
		ret = idx_w_del(w, db, key, 16);
		if (ret == 0 && r->other)
			ret = idx_w_del(w, db, rev, 16);
		if (ret == 0 && move && r->other != to) {
			be_put(rev, to, 8);
			be_put(rev + 8, r->other, 8);
			ret = idx_w_put(w, db, rev, 16, r->fwd, r->nfwd);
			if (ret == 0 && r->other) {
				be_put(rev, r->other, 8);
				be_put(rev + 8, to, 8);
				ret = idx_w_put(w, db, rev, 16, r->rev, r->nrev);
			}
		}
	}
out:
	kvs_cur_close(cur);
	free(rows);
	return ret;
}

/* A representative's cluster links, relations and judged mark go to to,
 * which takes its place with the same fingerprint (its tag, so the mark
 * holds for it, and the same verdicts). */
int idx_judgement_move(struct wtx *w, uint64_t id, uint64_t to)
{
	int ret = pairs_move(w, DB_CLUSTER, id, 1, to);

	return ret ? ret : pairs_move(w, DB_REL, id, 1, to);
}

int idx_pairs_remove_all(struct wtx *w, int db, uint64_t id)
{
	return pairs_move(w, db, id, 0, 0);
}

static void dbl_be(uint8_t *p, double d)
{
	uint64_t u;

	memcpy(&u, &d, 8);
	be_put(p, u, 8);
}

static double be_dbl(const uint8_t *p)
{
	uint64_t u = be_get(p, 8);
	double d;

	memcpy(&d, &u, 8);
	return d;
}

/* The row key a + b and its value, from a's side. */
static int rel_put(struct wtx *w, uint64_t a, uint64_t b, uint8_t cls, const struct idx_rel *r,
		   double cover_a, double cover_b)
{
	uint8_t k[16], v[REL_LEN];

	be_put(k, a, 8);
	be_put(k + 8, b, 8);
	v[0] = REL_VERSION;
	v[1] = cls;
	v[2] = r->score;
	v[3] = r->dist;
	dbl_be(v + 4, r->jaccard);
	dbl_be(v + 12, cover_a);
	dbl_be(v + 20, cover_b);
	return idx_w_put(w, DB_REL, k, 16, v, REL_LEN);
}

struct rels_arg {
	const struct idx_judgement *v;
	size_t n;
};

/* Where a relation judged with book id on the fingerprint of tag is
 * stored: *to = id, or 0 when id no longer holds that fingerprint.  With
 * th (the judged book's text hash), id is the other book of the pair: when
 * it became a copy meanwhile (a smaller id of its text took over), its
 * representative, which holds the same fingerprint, unless it has the
 * judged book's text (those pairs are each judged, book by book).  Without
 * th, id is the judged book and a copy gives 0 (a copy is never judged);
 * then its text hash goes to th_out.  0 or -errno. */
static int rel_book(struct wtx *w, uint64_t id, uint64_t tag, const uint8_t *th, uint64_t *to,
		    uint8_t *th_out)
{
	uint64_t first[2];
	uint8_t kb[8];
	struct brec b;
	size_t n = 0;
	struct kvs_val v;
	int ret;

	*to = 0;
	be_put(kb, id, 8);
	ret = idx_w_get(w, DB_BOOK, kb, 8, &v);
	if (ret == -ENOENT || (ret == 0 && idx_brec_decode(&v, &b)))
		return 0;
	if (ret || !tag || idx_fp_tag_of(b.sh, b.th, b.rec_version) != tag)
		return ret;
	if (th_out)
		memcpy(th_out, b.th, IDX_SH_BYTES);
	if (b.version != BOOK_VERSION || !(b.flags & BOOK_F_COPY)) {
		*to = id;
		return 0;
	}
	if (!th)
		return 0;
	if (memcmp(th, b.th, IDX_SH_BYTES) == 0) {
		*to = id;
		return 0;
	}
	ret = idx_group_first(w, b.key, 0, first, &n);
	if (ret == 0 && n)
		*to = first[0];
	return ret;
}

static int rels_fn(struct wtx *w, void *arg)
{
	struct rels_arg *a = arg;
	uint8_t k1[16], k2[16], mark[JUDGED_LEN];
	uint64_t ta, tb;
	size_t i, j;
	int ret = 0, added = 0;

	for (j = 0; j < a->n && ret == 0; j++) {
		const struct idx_judgement *jd = &a->v[j];
		uint8_t th[IDX_SH_BYTES];

		ret = rel_book(w, jd->id, jd->tag, NULL, &ta, th);
		if (ret || !ta)
			continue;	/* judged on a fingerprint replaced meanwhile,
					 * or a copy now (its representative's judgement
					 * holds for it) */
		for (i = 0; i < jd->n && ret == 0; i++) {
			const struct idx_rel *r = &jd->rels[i];

			if (r->id == jd->id || !r->id || !r->tag)
				continue;
			ret = rel_book(w, r->id, r->tag, th, &tb, NULL);
			if (ret || !tb || tb == jd->id)
				continue;	/* that book's own judgement finds the pair */
			ret = rel_put(w, jd->id, tb, r->cls_this, r, r->cover_this, r->cover_other);
			if (ret == 0)
				ret = rel_put(w, tb, jd->id, r->cls_other, r, r->cover_other,
					      r->cover_this);
			if (ret == 0 && r->link) {
				be_put(k1, jd->id, 8);
				be_put(k1 + 8, tb, 8);
				be_put(k2, tb, 8);
				be_put(k2 + 8, jd->id, 8);
				ret = idx_w_put(w, DB_CLUSTER, k1, 16, NULL, 0);
				if (ret == 0)
					ret = idx_w_put(w, DB_CLUSTER, k2, 16, NULL, 0);
			}
			added++;
		}
		if (ret)
			break;
		be_put(k1, jd->id, 8);
		be_put(k1 + 8, 0, 8);
		mark[0] = REL_VERSION;
		be_put(mark + 1, jd->tag, 8);
		ret = idx_w_put(w, DB_REL, k1, 16, mark, JUDGED_LEN);
	}
	return ret ? ret : added;
}

int idx_rels_set(struct idx *ix, const struct idx_judgement *v, size_t n)
{
	struct rels_arg a = { v, n };
	size_t i;

	if (n && !v)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!v[i].id || (v[i].n && !v[i].rels))
			return -EINVAL;
	if (!n)
		return 0;
	return idx_write(ix, rels_fn, &a);
}

struct relsget_arg {
	const uint8_t *key;
	struct idx_rel *v;
	size_t n, cap;
};

/* One row after the judged mark: a relation of the book, or the end. */
static int relsget_row(const struct kvs_val *k, const struct kvs_val *val, void *arg)
{
	struct relsget_arg *a = arg;
	const uint8_t *b = val->data;
	struct idx_rel *p;

	if (k->len != 16 || memcmp(k->data, a->key, 8) != 0)
		return 1;
	if (val->len != REL_LEN || b[0] != REL_VERSION)
		return 0;	/* does not decode: skipped, as in every list */
	if (ARRAY_GROW(a->v, a->cap, a->n + 1))
		return -ENOMEM;
	p = &a->v[a->n++];
	memset(p, 0, sizeof(*p));
	p->id = be_get((const uint8_t *)k->data + 8, 8);
	p->cls_this = b[1];
	p->score = b[2];
	p->dist = b[3];
	p->jaccard = be_dbl(b + 4);
	p->cover_this = be_dbl(b + 12);
	p->cover_other = be_dbl(b + 20);
	return 0;
}

struct relsread_arg {
	struct relsget_arg g;
	uint64_t id, tag;
	int judged;
};

static int rels_txn(struct kvs_tx *tx, void *arg)
{
	struct relsread_arg *a = arg;
	struct kvs_cur *cur = NULL;
	struct kvs_val k, val;
	uint8_t key[16];
	int rc, ret;

	a->g.n = 0;	/* a rerun starts over */
	a->judged = 0;
	a->g.key = key;
	ret = kvs_cur_open(tx, DB_REL, &cur);
	if (ret)
		return ret;
	be_put(key, a->id, 8);
	be_put(key + 8, 0, 8);
	rc = kvs_cur_seek(cur, key, 16, &k, &val);
	/* the mark comes first (other id 0); without it, or from another
	 * fingerprint, the list is not complete: nothing more to read */
	if (rc == 0 && k.len == 16 && memcmp(k.data, key, 16) == 0 &&
	    val.len == JUDGED_LEN && ((const uint8_t *)val.data)[0] == REL_VERSION &&
	    a->tag && be_get((const uint8_t *)val.data + 1, 8) == a->tag)
		a->judged = 1;
	if (a->judged)
		ret = idx_cursor_walk_next(cur, relsget_row, &a->g);
	kvs_cur_close(cur);
	return ret;
}

int idx_rels_get(struct idx *ix, uint64_t id, uint64_t tag, struct idx_rel **out, size_t *nout)
{
	struct relsread_arg a = { { NULL, NULL, 0, 0 }, id, tag, 0 };
	int ret;

	*out = NULL;
	*nout = 0;
	ret = kvs_read(ix->kv, rels_txn, &a);
	if (ret) {
		free(a.g.v);
		return ret;
	}
	*out = a.g.v;
	*nout = a.g.n;
	return a.judged;
}

static int catchup_get(int ret, const struct kvs_val *v, void *arg)
{
	uint64_t *from = arg;

	if (ret == 0 && v->len == 8)
		*from = be_get(v->data, 8);
	if (ret == -ENOENT)
		return 0;
	return ret ? ret : 1;
}

int idx_catchup_get(struct idx *ix, uint64_t *from)
{
	*from = 0;
	return idx_read_get(ix, DB_META, "judge", 5, catchup_get, from);
}

struct catchup_arg {
	uint64_t from;
	int done;
};

static int catchup_fn(struct wtx *w, void *arg)
{
	struct catchup_arg *a = arg;
	uint8_t b[8];

	if (a->done)
		return idx_w_del(w, DB_META, "judge", 5);
	be_put(b, a->from, 8);
	return idx_w_put(w, DB_META, "judge", 5, b, 8);
}

int idx_catchup_set(struct idx *ix, uint64_t from, int done)
{
	struct catchup_arg a = { from, done };
	int ret = idx_write(ix, catchup_fn, &a);

	return ret < 0 ? ret : 0;
}

struct unjudged_arg {
	struct kvs_tx *tx;
	uint64_t from, *ids;
	size_t max, n;
};

/* Stops at the first row read after max were found: the walk reads one row
 * past the last one kept, and a cursor error on that read is returned. */
static int unjudged_row(const struct kvs_val *k, const struct kvs_val *v, void *arg)
{
	struct unjudged_arg *a = arg;
	uint8_t key[16];
	uint64_t id, tag;
	struct brec b;
	struct kvs_val rv;

	if (a->n >= a->max)
		return 1;
	if (k->len != 8 || idx_brec_decode(v, &b))
		return 0;
	if (b.version == BOOK_VERSION && (b.flags & BOOK_F_COPY))
		return 0;	/* never judged: its representative's list holds */
	id = be_get(k->data, 8);
	tag = idx_fp_tag_of(b.sh, b.th, b.rec_version);
	be_put(key, id, 8);
	be_put(key + 8, 0, 8);
	if (kvs_get(a->tx, DB_REL, key, 16, &rv) == 0 && rv.len == JUDGED_LEN &&
	    ((const uint8_t *)rv.data)[0] == REL_VERSION &&
	    be_get((const uint8_t *)rv.data + 1, 8) == tag)
		return 0;
	a->ids[a->n++] = id;
	return 0;
}

static int unjudged_txn(struct kvs_tx *tx, void *arg)
{
	struct unjudged_arg *a = arg;
	uint8_t kb[8];

	a->n = 0;	/* a rerun starts over */
	a->tx = tx;
	be_put(kb, a->from, 8);
	return idx_walk(tx, DB_BOOK, kb, 8, unjudged_row, a);
}

int idx_unjudged(struct idx *ix, uint64_t from, uint64_t *ids, size_t max, size_t *nout)
{
	struct unjudged_arg a = { NULL, from, ids, max, 0 };
	int ret;

	*nout = 0;
	ret = kvs_read(ix->kv, unjudged_txn, &a);
	*nout = ret ? 0 : a.n;
	return ret;
}

/* The ids paired with id in a table keyed by two big-endian ids (the
 * exemptions, the cluster links), into a malloc'd *ids. */
static int ids_paired(struct idx *ix, int db, uint64_t id, uint64_t **ids, size_t *n)
{
	uint8_t prefix[8];

	be_put(prefix, id, 8);
	return idx_read_ids(ix, db, prefix, 8, ids, n);
}

int idx_exempt_ids(struct idx *ix, uint64_t id, uint64_t **ids, size_t *n)
{
	return ids_paired(ix, DB_EXEMPT, id, ids, n);
}

static int exempt_has_get(int ret, const struct kvs_val *v, void *arg)
{
	(void)v;
	(void)arg;
	if (ret == -ENOENT)
		return 0;
	return ret ? ret : 1;
}

int idx_exempt_has(struct idx *ix, uint64_t a, uint64_t b)
{
	uint8_t kb[16];

	be_put(kb, a, 8);
	be_put(kb + 8, b, 8);
	return idx_read_get(ix, DB_EXEMPT, kb, 16, exempt_has_get, NULL);
}

int idx_links_of(struct idx *ix, uint64_t id, uint64_t **ids, size_t *n)
{
	return ids_paired(ix, DB_CLUSTER, id, ids, n);
}

struct exemptions_arg {
	struct idx_pair *v;
	size_t n, cap;
};

static int exemptions_row(const struct kvs_val *k, const struct kvs_val *val, void *arg)
{
	struct exemptions_arg *e = arg;
	uint64_t a, b;

	(void)val;
	if (k->len != 16)
		return 0;
	a = be_get(k->data, 8);
	b = be_get((const uint8_t *)k->data + 8, 8);
	if (a >= b)
		return 0;
	if (ARRAY_GROW(e->v, e->cap, e->n + 1))
		return -ENOMEM;
	e->v[e->n].a = a;
	e->v[e->n].b = b;
	e->v[e->n].dist = 0;
	e->n++;
	return 0;
}

static void exemptions_reset(void *arg)
{
	((struct exemptions_arg *)arg)->n = 0;
}

int idx_exemptions(struct idx *ix, struct idx_pair **out, size_t *n_out)
{
	struct exemptions_arg e = { NULL, 0, 0 };
	int ret = idx_read_walk(ix, DB_EXEMPT, exemptions_reset, exemptions_row, &e);

	if (ret) {
		free(e.v);
		return ret;
	}
	*out = e.v;
	*n_out = e.n;
	return 0;
}
