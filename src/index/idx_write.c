/* idx_write.c - the writes of the LMDB index's API, each one transaction. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "byteorder.h"
#include "idx_i.h"

/* Runs fn in one write transaction with *f a malloc'd scratch file record
 * (freed after): 0 or -errno (a count fn returns is dropped). */
static int write_frec(struct idx *ix, write_fn fn, void *arg, struct frec **f)
{
	int ret;

	*f = malloc(sizeof(**f));
	if (!*f)
		return -ENOMEM;
	ret = idx_write(ix, fn, arg);
	free(*f);
	*f = NULL;
	return ret < 0 ? ret : 0;
}

struct mark_arg {
	const char *const *paths;
	const struct idx_stat *sts;
	size_t n;
	uint64_t *ids;
	uint32_t rec_version;	/* idx_mark_stale(): leave what has it; 0: mark all */
	struct frec *f;
};

/* Book id's stored book row into *b; *found 0 when it has none (or one that
 * does not decode). */
static int w_brec(struct wtx *w, uint64_t id, struct brec *b, int *found)
{
	uint8_t kb[8];
	struct kvs_val v;
	int ret;

	*found = 0;
	be_put(kb, id, 8);
	ret = idx_w_get(w, DB_BOOK, kb, 8, &v);
	if (ret == -ENOENT)
		return 0;
	if (ret == 0)
		*found = idx_brec_decode(&v, b) == 0;
	return ret;
}

/* 1 when file f, as loaded, was stored with stat st and the record version
 * asked for (idx_mark_stale()): nothing to do. */
static int mark_done(struct wtx *w, const struct mark_arg *a, const struct frec *f,
		     const struct idx_stat *st, int *done)
{
	struct brec b;
	int ret, found;

	*done = 0;
	if (!a->rec_version || f->state != IDX_INDEXED || !(f->flags & FLAG_FP) ||
	    !idx_stat_same(&f->st, st))
		return 0;
	ret = w_brec(w, f->id, &b, &found);
	*done = found && b.rec_version == a->rec_version;
	return ret;
}

static int mark_fn(struct wtx *w, void *arg)
{
	struct mark_arg *a = arg;
	struct frec *f = a->f;
	uint8_t kb[8];
	struct pkey k;
	size_t i;
	int ret;

	for (i = 0; i < a->n; i++) {
		size_t len = strlen(a->paths[i]);

		idx_path_key(a->paths[i], len, &k);
		ret = idx_file_load_key(w, &k, a->paths[i], f);
		if (ret == 0) {
			int done;

			ret = mark_done(w, a, f, &a->sts[i], &done);
			if (ret)
				return ret;
			if (done)
				continue;
			be_put(kb, f->id, 8);
			if (f->state == IDX_FAILED)
				ret = idx_w_del(w, DB_FAIL, kb, 8);
			if (ret == 0)
				ret = idx_count_move(w, f->state, 0, IDX_QUEUED, 0);
		} else if (ret == -ENOENT || ret == -EIO) {
			/* unknown, or an entry that does not decode: (re)create */
			ret = idx_meta_load(w);
			if (ret)
				return ret;
			memset(f, 0, sizeof(*f));
			f->id = w->nextid++;
			w->meta_dirty = 1;
			f->pathlen = len;
			memcpy(f->path, a->paths[i], len + 1);
			be_put(kb, f->id, 8);
			ret = idx_w_put(w, DB_IDS, kb, 8, k.b, k.len);
			if (ret == 0)
				ret = idx_count_move(w, 0, 0, IDX_QUEUED, 0);
		}
		if (ret)
			return ret;
		f->state = IDX_QUEUED;
		f->st = a->sts[i];
		idx_frec_set_err(f, NULL);
		ret = idx_file_store(w, f);
		if (ret)
			return ret;
		if (a->ids)
			a->ids[i] = f->id;
	}
	return 0;
}

/* Checks every path of a, then runs the marking transaction. */
static int mark(struct idx *ix, struct mark_arg *a)
{
	size_t i;
	int ret;

	for (i = 0; i < a->n; i++) {
		ret = idx_path_check(a->paths[i]);
		if (ret)
			return ret;
	}
	return write_frec(ix, mark_fn, a, &a->f);
}

int idx_mark_queued(struct idx *ix, const char *const *paths, const struct idx_stat *sts,
		    size_t n, uint64_t *ids)
{
	struct mark_arg a = { paths, sts, n, ids, 0, NULL };

	return mark(ix, &a);
}

int idx_mark_stale(struct idx *ix, const char *const *paths, const struct idx_stat *sts,
		   size_t n, uint32_t rec_version)
{
	struct mark_arg a = { paths, sts, n, NULL, rec_version, NULL };

	return mark(ix, &a);
}

int idx_stat_same(const struct idx_stat *a, const struct idx_stat *b)
{
	return a->size == b->size && a->mtime_ns == b->mtime_ns && a->ctime_ns == b->ctime_ns &&
	       a->ino == b->ino;
}

/* The tag of the fingerprint stored for id: 0 when there is none. */
static int w_fp_tag(struct wtx *w, uint64_t id, uint64_t *tag)
{
	struct brec b;
	int found, ret = w_brec(w, id, &b, &found);

	*tag = found ? idx_fp_tag_of(b.sh, b.th, b.rec_version) : 0;
	return ret;
}

/* Before book id gets fingerprint fp (NULL: none): its cluster links,
 * relations and judged mark were judged on the old fingerprint and go
 * (*keep = 0), unless the new one is the same (a re-read of unchanged text
 * keeps what it would find again). */
static int links_keep(struct wtx *w, uint64_t id, const struct idx_fp *fp, int *keep)
{
	uint64_t old = 0;
	int ret = w_fp_tag(w, id, &old);

	*keep = !ret && fp && old && old == idx_fp_tag_of(fp->simhash, fp->text_hash, fp->rec_version);
	return ret;
}

struct put_arg {
	uint64_t id;
	const struct idx_stat *st;
	const struct idx_fp *fp;	/* NULL for a failure */
	enum idx_state state;
	const char *error;
	struct frec *f;
};

static int put_fn(struct wtx *w, void *arg)
{
	struct put_arg *a = arg;
	struct frec *f = a->f;
	uint8_t kb[8];
	int ret, had_fp, keep = 0;

	ret = idx_file_by_id(w, a->id, f);
	if (ret)
		return ret;
	had_fp = f->flags & FLAG_FP;
	ret = links_keep(w, a->id, a->fp, &keep);
	/* a representative's links, relations and judged mark move to the
	 * copy promoted in its place (idx_book_remove), and come back if the book
	 * joins the same group again (idx_book_add) */
	if (ret == 0)
		ret = idx_book_remove(w, a->id);
	if (ret == 0 && !keep)
		ret = idx_pairs_remove_all(w, DB_CLUSTER, a->id);
	if (ret == 0 && !keep)
		ret = idx_pairs_remove_all(w, DB_REL, a->id);
	if (ret == 0 && a->fp)
		ret = idx_book_add(w, a->id, a->fp);
	if (ret)
		return ret;
	be_put(kb, a->id, 8);
	ret = a->state == IDX_FAILED ? idx_w_put(w, DB_FAIL, kb, 8, NULL, 0) : idx_w_del(w, DB_FAIL, kb, 8);
	if (ret)
		return ret;
	ret = idx_count_move(w, f->state, had_fp, (uint8_t)a->state, a->fp != NULL);
	if (ret)
		return ret;
	f->state = (uint8_t)a->state;
	f->flags = a->fp ? FLAG_FP : 0;
	f->st = *a->st;
	idx_frec_set_err(f, a->error);
	return idx_file_store(w, f);
}

int idx_put(struct idx *ix, uint64_t id, const struct idx_stat *st, const struct idx_fp *fp)
{
	struct put_arg a = { id, st, fp, IDX_INDEXED, NULL, NULL };

	if (idx_fp_check(fp))
		return -EINVAL;
	return write_frec(ix, put_fn, &a, &a.f);
}

struct put_many_arg {
	size_t n;
	const uint64_t *ids;
	const struct idx_stat *sts;
	const struct idx_fp *fps;
	struct frec *f;
};

static int put_many_fn(struct wtx *w, void *arg)
{
	struct put_many_arg *m = arg;
	size_t i;
	int ret;

	for (i = 0; i < m->n; i++) {
		struct put_arg a = { m->ids[i], &m->sts[i], &m->fps[i], IDX_INDEXED, NULL, m->f };

		ret = put_fn(w, &a);
		if (ret)
			return ret;
	}
	return 0;
}

int idx_put_many(struct idx *ix, const uint64_t *ids, const struct idx_stat *sts,
		 const struct idx_fp *fps, size_t n)
{
	struct put_many_arg m = { n, ids, sts, fps, NULL };
	size_t i;

	for (i = 0; i < n; i++)
		if (idx_fp_check(&fps[i]))
			return -EINVAL;
	return write_frec(ix, put_many_fn, &m, &m.f);
}

int idx_put_failed(struct idx *ix, uint64_t id, const struct idx_stat *st, enum idx_state state,
		   const char *error)
{
	struct put_arg a = { id, st, NULL, state, error, NULL };

	if (state != IDX_FAILED && state != IDX_NOT_BOOK)
		return -EINVAL;
	return write_frec(ix, put_fn, &a, &a.f);
}

struct record_arg {
	uint64_t id;
	uint32_t rec_version;
	const void *rec;
	size_t len;
};

static int set_record_fn(struct wtx *w, void *arg)
{
	struct record_arg *a = arg;
	uint8_t kb[8], *row = NULL, *rec = NULL;
	struct brec b;
	int ret = idx_book_load(w, a->id, &row, &b);

	if (ret == 0 && b.rec_version != a->rec_version)
		ret = -ESTALE;
	if (ret == 0 && !(rec = malloc(4 + a->len)))
		ret = -ENOMEM;
	if (ret == 0) {
		be_put(kb, a->id, 8);
		be_put(rec, a->rec_version, 4);
		if (a->len)
			memcpy(rec + 4, a->rec, a->len);
		ret = idx_w_put(w, DB_REC, kb, 8, rec, 4 + a->len);
	}
	free(rec);
	free(row);
	return ret;
}

int idx_set_record(struct idx *ix, uint64_t id, uint32_t rec_version, const void *rec, size_t len)
{
	struct record_arg a = { id, rec_version, rec, len };

	return idx_write(ix, set_record_fn, &a);
}

struct stat_arg {
	const char *path;
	const struct idx_stat *st;
	struct frec *f;
};

static int set_stat_fn(struct wtx *w, void *arg)
{
	struct stat_arg *a = arg;
	struct pkey k;
	int ret;

	idx_path_key(a->path, strlen(a->path), &k);
	ret = idx_file_load_key(w, &k, a->path, a->f);
	if (ret)
		return ret;
	a->f->st = *a->st;
	return idx_file_store(w, a->f);
}

int idx_set_stat(struct idx *ix, const char *path, const struct idx_stat *st)
{
	struct stat_arg a = { path, st, NULL };
	int ret = idx_path_check(path);

	if (ret)
		return ret;
	return write_frec(ix, set_stat_fn, &a, &a.f);
}

static int unlink_fn(struct wtx *w, void *arg)
{
	struct flist l = { NULL, 0, 0 };
	size_t i;
	int ret;

	ret = idx_collect_tree(w, arg, &l);
	for (i = 0; ret == 0 && i < l.n; i++)
		ret = idx_file_remove(w, &l.v[i]);
	free(l.v);
	return ret ? ret : (int)(l.n > INT32_MAX ? INT32_MAX : l.n);
}

int idx_unlink(struct idx *ix, const char *path)
{
	int ret = idx_path_check(path);

	if (ret)
		return ret;
	return idx_write(ix, unlink_fn, (void *)(uintptr_t)path);
}

static int drop_fn(struct wtx *w, void *arg)
{
	struct frec *f = malloc(sizeof(*f));
	int ret;

	if (!f)
		return -ENOMEM;
	ret = idx_file_by_id(w, *(const uint64_t *)arg, f);
	if (ret == 0)
		ret = idx_file_remove(w, f);
	free(f);
	return ret;
}

int idx_drop(struct idx *ix, uint64_t id)
{
	int ret = idx_write(ix, drop_fn, &id);

	return ret < 0 ? ret : 0;
}

struct rename_arg {
	const char *from, *to;
	unsigned flags;
};

/* Moves the entries of l from under old (olen bytes) to under new. */
static int move_entries(struct wtx *w, struct flist *l, size_t olen, const char *new_path)
{
	size_t nlen = strlen(new_path), i;
	uint8_t kb[8];
	struct pkey k;
	int ret;

	for (i = 0; i < l->n; i++) {
		struct frec *f = &l->v[i];
		size_t rest = f->pathlen - olen;

		if (nlen + rest > IDX_PATH_MAX)
			return -ENAMETOOLONG;
		memmove(f->path + nlen, f->path + olen, rest + 1);
		memcpy(f->path, new_path, nlen);
		f->pathlen = nlen + rest;
		ret = idx_file_store(w, f);
		if (ret)
			return ret;
		idx_path_key(f->path, f->pathlen, &k);
		be_put(kb, f->id, 8);
		ret = idx_w_put(w, DB_IDS, kb, 8, k.b, k.len);
		if (ret)
			return ret;
	}
	return 0;
}

static int del_keys(struct wtx *w, const struct flist *l)
{
	struct pkey k;
	size_t i;
	int ret;

	for (i = 0; i < l->n; i++) {
		idx_path_key(l->v[i].path, l->v[i].pathlen, &k);
		ret = idx_w_del(w, DB_FILES, k.b, k.len);
		if (ret)
			return ret;
	}
	return 0;
}

static int rename_fn(struct wtx *w, void *arg)
{
	struct rename_arg *a = arg;
	struct flist from = { NULL, 0, 0 }, to = { NULL, 0, 0 };
	size_t i;
	int ret;

	ret = idx_collect_tree(w, a->from, &from);
	if (ret || (!from.n && (a->flags & IDX_RENAME_KNOWN) && !(a->flags & IDX_RENAME_EXCHANGE)))
		goto out;
	ret = idx_collect_tree(w, a->to, &to);
	if (ret)
		goto out;
	if (a->flags & IDX_RENAME_EXCHANGE) {
		ret = del_keys(w, &from);
		if (ret == 0)
			ret = del_keys(w, &to);
		if (ret == 0)
			ret = move_entries(w, &from, strlen(a->from), a->to);
		if (ret == 0)
			ret = move_entries(w, &to, strlen(a->to), a->from);
	} else {
		for (i = 0; ret == 0 && i < to.n; i++)
			ret = idx_file_remove(w, &to.v[i]);
		if (ret == 0)
			ret = del_keys(w, &from);
		if (ret == 0)
			ret = move_entries(w, &from, strlen(a->from), a->to);
	}
	if (ret == 0)
		ret = (int)(from.n > INT32_MAX ? INT32_MAX : from.n);
out:
	free(from.v);
	free(to.v);
	return ret;
}

/* 1 when b is a (or under a/). */
static int path_within(const char *a, const char *b)
{
	size_t la = strlen(a);

	return strncmp(a, b, la) == 0 && (b[la] == '\0' || b[la] == '/');
}

/* 0 when the rename has work to do, 1 when it is a no-op (onto itself),
 * or -errno for bad arguments. */
static int rename_check(const char *from, const char *to, unsigned flags)
{
	int ret = idx_path_check(from);

	if (ret == 0)
		ret = idx_path_check(to);
	if (ret)
		return ret;
	if (flags & ~(IDX_RENAME_EXCHANGE | IDX_RENAME_KNOWN))
		return -EINVAL;
	if (strcmp(from, to) == 0)
		return 1;
	if (path_within(from, to) || path_within(to, from))
		return -EINVAL;
	return 0;
}

int idx_rename(struct idx *ix, const char *from, const char *to, unsigned flags)
{
	struct rename_arg a = { from, to, flags };
	int ret = rename_check(from, to, flags);

	if (ret)
		return ret < 0 ? ret : 0;
	return idx_write(ix, rename_fn, &a);
}

struct apply_arg {
	struct idx_op *ops;
	size_t n;
	struct frec *f;		/* scratch for the puts */
};

static int apply_fn(struct wtx *w, void *arg)
{
	struct apply_arg *a = arg;
	struct rename_arg ra;
	size_t i;
	int ret;

	for (i = 0; i < a->n; i++) {
		struct idx_op *op = &a->ops[i];

		if (op->result < 0)	/* refused before the transaction */
			continue;
		if (op->kind == IDX_OP_PUT || op->kind == IDX_OP_PUT_FAILED) {
			struct put_arg pa = { op->id, op->st,
					      op->kind == IDX_OP_PUT ? op->fp : NULL,
					      op->kind == IDX_OP_PUT ? IDX_INDEXED : op->state,
					      op->kind == IDX_OP_PUT ? NULL : op->error, a->f };

			/* gone meanwhile: put_fn() found no entry and wrote
			 * nothing; the other ops still apply */
			ret = put_fn(w, &pa);
			if (ret == -ENOENT) {
				op->result = ret;
				continue;
			}
		} else if (op->kind == IDX_OP_UNLINK) {
			ret = unlink_fn(w, (void *)(uintptr_t)op->path);
		} else if (strcmp(op->path, op->to) == 0) {
			ret = 0;	/* onto itself: nothing moves */
		} else {
			ra = (struct rename_arg){ op->path, op->to, op->flags };
			ret = rename_fn(w, &ra);
		}
		if (ret < 0)
			return ret;
		op->result = ret;
	}
	return 0;
}

int idx_apply(struct idx *ix, struct idx_op *ops, size_t n)
{
	struct apply_arg a = { ops, n, NULL };
	size_t i;
	int ret, puts = 0;

	for (i = 0; i < n; i++) {
		if (ops[i].kind == IDX_OP_UNLINK)
			ret = idx_path_check(ops[i].path);
		else if (ops[i].kind == IDX_OP_RENAME)
			ret = rename_check(ops[i].path, ops[i].to, ops[i].flags);
		else if (ops[i].kind == IDX_OP_PUT)
			ret = !ops[i].st ? -EINVAL : idx_fp_check(ops[i].fp);
		else if (ops[i].kind == IDX_OP_PUT_FAILED)
			ret = !ops[i].st || (ops[i].state != IDX_FAILED &&
					     ops[i].state != IDX_NOT_BOOK) ? -EINVAL : 0;
		else
			ret = -EINVAL;
		ops[i].result = ret < 0 ? ret : 0;
		puts |= ops[i].kind == IDX_OP_PUT || ops[i].kind == IDX_OP_PUT_FAILED;
	}
	if (puts && !(a.f = malloc(sizeof(*a.f)))) {
		ret = -ENOMEM;
		goto out;
	}
	ret = idx_write(ix, apply_fn, &a);
	free(a.f);
out:
	for (i = 0; ret < 0 && i < n; i++)
		ops[i].result = ret;
	return ret < 0 ? ret : 0;
}

struct exempt_arg {
	const char *a, *b;
	int on;
	struct frec *f;
};

static int exempt_fn(struct wtx *w, void *arg)
{
	struct exempt_arg *a = arg;
	uint8_t k1[16], k2[16];
	uint64_t ida, idb;
	struct pkey k;
	int ret;

	idx_path_key(a->a, strlen(a->a), &k);
	ret = idx_file_load_key(w, &k, a->a, a->f);
	if (ret)
		return ret;
	ida = a->f->id;
	idx_path_key(a->b, strlen(a->b), &k);
	ret = idx_file_load_key(w, &k, a->b, a->f);
	if (ret)
		return ret;
	idb = a->f->id;
	if (ida == idb)
		return -EINVAL;
	be_put(k1, ida, 8);
	be_put(k1 + 8, idb, 8);
	be_put(k2, idb, 8);
	be_put(k2 + 8, ida, 8);
	if (a->on) {
		ret = idx_w_put(w, DB_EXEMPT, k1, 16, NULL, 0);
		if (ret == 0)
			ret = idx_w_put(w, DB_EXEMPT, k2, 16, NULL, 0);
	} else {
		ret = idx_w_del(w, DB_EXEMPT, k1, 16);
		if (ret == 0)
			ret = idx_w_del(w, DB_EXEMPT, k2, 16);
	}
	return ret;
}

int idx_exempt_set(struct idx *ix, const char *path_a, const char *path_b, int on)
{
	struct exempt_arg a = { path_a, path_b, on, NULL };
	int ret = idx_path_check(path_a);

	if (ret == 0)
		ret = idx_path_check(path_b);
	if (ret)
		return ret;
	return write_frec(ix, exempt_fn, &a, &a.f);
}

struct raw_arg {
	int db;
	const void *k, *v;
	size_t klen, vlen;
};

static int raw_fn(struct wtx *w, void *arg)
{
	struct raw_arg *a = arg;

	return idx_w_put(w, a->db, a->k, a->klen, a->v, a->vlen);
}

int idx_debug_raw_put(struct idx *ix, const char *db, const void *key, size_t klen,
		      const void *val, size_t vlen)
{
	struct raw_arg a = { -1, key, val, klen, vlen };
	int i;

	for (i = 0; i < NDB; i++)
		if (strcmp(db, idx_db_names[i]) == 0)
			a.db = i;
	if (a.db < 0 || klen == 0)
		return -EINVAL;
	return idx_write(ix, raw_fn, &a);
}
