/* idx_read.c - reads of file entries and records: lookups by path and id,
 * fingerprint records, directory listings, failed files and counts. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "byteorder.h"
#include "grow.h"
#include "idx_i.h"

/* Fills f from a decoded record plus its book record (same txn). */
static int file_fill(struct kvs_tx *tx, const struct frec *r, struct idx_file *f)
{
	uint8_t kb[8];
	struct kvs_val v;
	struct brec b;
	int ret;

	idx_file_out(r, f);
	if (r->flags & FLAG_FP) {
		be_put(kb, r->id, 8);
		if (kvs_get(tx, DB_BOOK, kb, 8, &v) == 0 && idx_brec_decode(&v, &b) == 0) {
			f->has_fp = 1;
			memcpy(f->simhash, b.sh, IDX_SH_BYTES);
			memcpy(f->text_hash, b.th, IDX_SH_BYTES);
			f->rec_version = b.rec_version;
			f->n_mh_bands = b.n_mh;
			f->has_copies = !!(b.flags & BOOK_F_COPIES);
			f->is_copy = !!(b.flags & BOOK_F_COPY);
		}
	}
	ret = idx_file_copy_strings(r, f);
	return ret;
}

static int get_by_key(struct kvs_tx *tx, const struct pkey *pk, const char *path,
		      uint64_t want_id, struct idx_file *f)
{
	struct frec *r = NULL;
	struct kvs_val v;
	int ret;

	r = malloc(sizeof(*r));
	if (!r)
		return -ENOMEM;
	ret = kvs_get(tx, DB_FILES, pk->b, pk->len, &v);
	if (ret == 0)
		ret = idx_frec_decode(&v, r);
	if (ret == 0 && ((path && strcmp(path, r->path) != 0) || (want_id && r->id != want_id)))
		ret = -EIO;
	if (ret == 0)
		ret = file_fill(tx, r, f);
	free(r);
	return ret;
}

/* The file whose ids row is id (want it checked against the record). */
static int get_by_id(struct kvs_tx *tx, uint64_t id, struct idx_file *f)
{
	uint8_t kb[8];
	struct pkey pk;
	struct kvs_val v;
	int ret;

	be_put(kb, id, 8);
	ret = kvs_get(tx, DB_IDS, kb, 8, &v);
	if (ret == 0 && (v.len == 0 || v.len > PKEY_MAX))
		ret = -EIO;
	if (ret)
		return ret;
	memcpy(pk.b, v.data, v.len);
	pk.len = v.len;
	return get_by_key(tx, &pk, NULL, id, f);
}

struct get_arg {
	const char *path;
	const uint64_t *ids;
	size_t n;
	struct idx_file *f;
};

static int get_fn(struct kvs_tx *tx, void *arg)
{
	struct get_arg *a = arg;
	struct pkey k;

	idx_file_release(a->f);	/* a rerun starts over */
	memset(a->f, 0, sizeof(*a->f));
	if (!a->path)
		return get_by_id(tx, a->ids[0], a->f);
	idx_path_key(a->path, strlen(a->path), &k);
	return get_by_key(tx, &k, a->path, 0, a->f);
}

int idx_get(struct idx *ix, const char *path, struct idx_file *f)
{
	struct get_arg a = { path, NULL, 1, f };
	int ret;

	memset(f, 0, sizeof(*f));
	ret = idx_path_check(path);
	if (ret)
		return ret;
	return kvs_read(ix->kv, get_fn, &a);
}

int idx_get_id(struct idx *ix, uint64_t id, struct idx_file *f)
{
	struct get_arg a = { NULL, &id, 1, f };

	memset(f, 0, sizeof(*f));
	return kvs_read(ix->kv, get_fn, &a);
}

static int get_ids_fn(struct kvs_tx *tx, void *arg)
{
	struct get_arg *a = arg;
	size_t i;
	int r;

	for (i = 0; i < a->n; i++) {
		idx_file_release(&a->f[i]);	/* a rerun starts over */
		memset(&a->f[i], 0, sizeof(a->f[i]));
	}
	for (i = 0; i < a->n; i++) {
		r = get_by_id(tx, a->ids[i], &a->f[i]);
		if (r == -ENOMEM)
			return r;
		if (r)
			memset(&a->f[i], 0, sizeof(a->f[i]));
	}
	return 0;
}

int idx_get_ids(struct idx *ix, const uint64_t *ids, size_t n, struct idx_file *files)
{
	struct get_arg a = { NULL, ids, n, files };
	size_t i;
	int ret;

	memset(files, 0, n * sizeof(*files));
	ret = kvs_read(ix->kv, get_ids_fn, &a);
	for (i = 0; ret && i < n; i++)
		idx_file_release(&files[i]);
	return ret;
}

int idx_record(struct idx *ix, uint64_t id, uint32_t *rec_version, void **rec, size_t *len)
{
	return idx_record_head(ix, id, SIZE_MAX, rec_version, rec, len);
}

struct head_arg {
	size_t max;
	uint32_t *rec_version;
	void **rec;
	size_t *len;
};

static int record_head_get(int ret, const struct kvs_val *v, void *arg)
{
	struct head_arg *a = arg;
	size_t n;

	if (ret == 0 && v->len < 4)
		ret = -EIO;
	if (ret == 0) {
		n = v->len - 4 < a->max ? v->len - 4 : a->max;
		*a->rec = malloc(n + 1);
		if (!*a->rec) {
			ret = -ENOMEM;
		} else {
			*a->rec_version = (uint32_t)be_get(v->data, 4);
			memcpy(*a->rec, (const uint8_t *)v->data + 4, n);
			*a->len = n;
		}
	}
	return ret;
}

int idx_record_head(struct idx *ix, uint64_t id, size_t max, uint32_t *rec_version, void **rec,
		    size_t *len)
{
	struct head_arg a = { max, rec_version, rec, len };
	uint8_t kb[8];

	*rec = NULL;
	*len = 0;
	be_put(kb, id, 8);
	return idx_read_get(ix, DB_REC, kb, 8, record_head_get, &a);
}

struct bands_arg {
	uint64_t **bands;
	uint32_t *n;
};

static int mh_bands_get(int ret, const struct kvs_val *v, void *arg)
{
	struct bands_arg *a = arg;
	struct brec b;
	uint32_t i;

	if (ret == 0)
		ret = idx_brec_decode(v, &b);
	if (ret == 0) {
		*a->bands = malloc((b.n_mh ? b.n_mh : 1) * sizeof(**a->bands));
		if (!*a->bands) {
			ret = -ENOMEM;
		} else {
			for (i = 0; i < b.n_mh; i++)
				(*a->bands)[i] = be_get(b.mh + 8 * i, 8);
			*a->n = b.n_mh;
		}
	}
	return ret;
}

int idx_mh_bands(struct idx *ix, uint64_t id, uint64_t **bands, uint32_t *n)
{
	struct bands_arg a = { bands, n };
	uint8_t kb[8];

	*bands = NULL;
	*n = 0;
	be_put(kb, id, 8);
	return idx_read_get(ix, DB_BOOK, kb, 8, mh_bands_get, &a);
}

struct list_arg {
	struct kvs_tx *tx;
	const char *prefix;
	size_t plen;
	unsigned flags;
	struct idx_entry *v;
	size_t n, cap;
};

static int list_fn(const struct frec *f, void *arg, struct pkey *next)
{
	struct list_arg *a = arg;
	const char *rest = f->path + a->plen, *slash;
	struct idx_entry *e;
	size_t nlen;
	int ret;

	if (!*rest)
		return 0;	/* the directory itself as a file: not a child */
	slash = (a->flags & IDX_LIST_RECURSIVE) ? NULL : strchr(rest, '/');
	nlen = slash ? (size_t)(slash - rest) : strlen(rest);
	if (slash && a->n && a->v[a->n - 1].is_dir && strlen(a->v[a->n - 1].name) == nlen &&
	    memcmp(a->v[a->n - 1].name, rest, nlen) == 0)
		return 0;	/* still inside the subdirectory just listed */
	if (ARRAY_GROW(a->v, a->cap, a->n + 1))
		return -ENOMEM;
	e = &a->v[a->n];
	memset(e, 0, sizeof(*e));
	e->name = (a->flags & IDX_LIST_RECURSIVE) ? strdup(f->path) : strndup(rest, nlen);
	if (!e->name)
		return -ENOMEM;
	if (slash) {
		e->is_dir = 1;
		/* skip the rest of the subtree: "dir/sub0" follows "dir/sub/..." */
		if (a->plen + nlen + 1 <= KEY_INLINE) {
			memcpy(next->b, f->path, a->plen + nlen);
			next->b[a->plen + nlen] = '/' + 1;
			next->len = a->plen + nlen + 1;
		}
	} else {
		ret = file_fill(a->tx, f, &e->file);
		if (ret) {
			free(e->name);
			return ret;
		}
	}
	a->n++;
	return 0;
}

static int list_txn(struct kvs_tx *tx, void *arg)
{
	struct list_arg *a = arg;

	idx_entries_free(a->v, a->n);	/* a rerun starts over */
	a->v = NULL;
	a->n = a->cap = 0;
	a->tx = tx;
	return idx_files_under(tx, a->prefix, a->plen, list_fn, a);
}

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct idx_entry *)a)->name, ((const struct idx_entry *)b)->name);
}

int idx_list(struct idx *ix, const char *dir, unsigned flags, struct idx_entry **ents, size_t *n)
{
	struct list_arg a = { NULL, NULL, 0, flags, NULL, 0, 0 };
	size_t dlen = strlen(dir), i, j;
	char *prefix = NULL;
	int ret;

	*ents = NULL;
	*n = 0;
	if (dlen) {
		ret = idx_path_check(dir);
		if (ret)
			return ret;
	}
	prefix = malloc(dlen + 2);
	if (!prefix)
		return -ENOMEM;
	memcpy(prefix, dir, dlen);
	if (dlen)
		prefix[dlen++] = '/';
	prefix[dlen] = '\0';
	a.prefix = prefix;
	a.plen = dlen;
	ret = kvs_read(ix->kv, list_txn, &a);
	free(prefix);
	if (ret) {
		idx_entries_free(a.v, a.n);
		return ret;
	}
	/* Key order is path order except around long (hashed) keys and where a
	 * subtree could not be skipped: sort, and merge repeated directories. */
	if (a.n)
		qsort(a.v, a.n, sizeof(*a.v), entry_cmp);
	for (i = j = 0; i < a.n; i++) {
		if (j && a.v[i].is_dir && a.v[j - 1].is_dir && strcmp(a.v[i].name, a.v[j - 1].name) == 0) {
			free(a.v[i].name);
			continue;
		}
		a.v[j++] = a.v[i];
	}
	*ents = a.v;
	*n = j;
	return 0;
}

void idx_entries_free(struct idx_entry *ents, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(ents[i].name);
		idx_file_release(&ents[i].file);
	}
	free(ents);
}

static int file_path_cmp(const void *a, const void *b)
{
	return strcmp(((const struct idx_file *)a)->path, ((const struct idx_file *)b)->path);
}

struct errors_arg {
	struct kvs_tx *tx;
	struct frec *r;
	struct idx_file *v;
	size_t n, cap;
};

static int errors_row(const struct kvs_val *k, const struct kvs_val *val, void *arg)
{
	struct errors_arg *a = arg;
	struct kvs_val pk, fv;
	int ret;

	(void)val;
	if (k->len != 8 || kvs_get(a->tx, DB_IDS, k->data, 8, &pk) ||
	    kvs_get(a->tx, DB_FILES, pk.data, pk.len, &fv) || idx_frec_decode(&fv, a->r) ||
	    a->r->id != be_get(k->data, 8))
		return 0;
	if (ARRAY_GROW(a->v, a->cap, a->n + 1))
		return -ENOMEM;
	idx_file_out(a->r, &a->v[a->n]);
	ret = idx_file_copy_strings(a->r, &a->v[a->n]);
	if (ret)
		return ret;
	a->n++;
	return 0;
}

static int errors_txn(struct kvs_tx *tx, void *arg)
{
	struct errors_arg *a = arg;

	idx_files_free(a->v, a->n);	/* a rerun starts over */
	a->v = NULL;
	a->n = a->cap = 0;
	a->tx = tx;
	return idx_walk(tx, DB_FAIL, NULL, 0, errors_row, a);
}

int idx_errors(struct idx *ix, struct idx_file **files, size_t *n)
{
	struct errors_arg a = { NULL, NULL, NULL, 0, 0 };
	int ret;

	*files = NULL;
	*n = 0;
	a.r = malloc(sizeof(*a.r));
	if (!a.r)
		return -ENOMEM;
	ret = kvs_read(ix->kv, errors_txn, &a);
	free(a.r);
	if (ret) {
		idx_files_free(a.v, a.n);
		return ret;
	}
	if (a.n)
		qsort(a.v, a.n, sizeof(*a.v), file_path_cmp);
	*files = a.v;
	*n = a.n;
	return 0;
}

void idx_files_free(struct idx_file *files, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		idx_file_release(&files[i]);
	free(files);
}

static int counts_get(int ret, const struct kvs_val *v, void *arg)
{
	struct idx_counts *c = arg;
	int i;

	if (ret == 0 && v->len == 8 * (IDX_NSTATES + 1)) {
		c->books = be_get(v->data, 8);
		for (i = 1; i < IDX_NSTATES; i++) {
			c->state[i] = be_get((const uint8_t *)v->data + 8 * i, 8);
			c->files += c->state[i];
		}
	} else if (ret == 0) {
		ret = -EIO;
	} else if (ret == -ENOENT) {
		ret = 0;	/* nothing written yet */
	}
	return ret;
}

int idx_counts(struct idx *ix, struct idx_counts *c)
{
	memset(c, 0, sizeof(*c));
	return idx_read_get(ix, DB_META, "counts", 6, counts_get, c);
}

struct skipped_arg {
	int (*fn)(void *arg, const char *path, enum idx_state state, const char *error);
	void *arg;
};

static int skipped_fn(const struct frec *f, void *arg, struct pkey *next)
{
	struct skipped_arg *a = arg;

	(void)next;
	if (f->state != IDX_FAILED && f->state != IDX_NOT_BOOK)
		return 0;
	return a->fn(a->arg, f->path, (enum idx_state)f->state, f->errlen ? f->err : NULL);
}

/* fn is the caller's: a store that reruns a read calls it again for the
 * rows it saw (LMDB never does). */
static int skipped_txn(struct kvs_tx *tx, void *arg)
{
	return idx_files_under(tx, "", 0, skipped_fn, arg);
}

int idx_skipped_walk(struct idx *ix,
		     int (*fn)(void *arg, const char *path, enum idx_state state, const char *error),
		     void *arg)
{
	struct skipped_arg a = { fn, arg };

	return kvs_read(ix->kv, skipped_txn, &a);
}
