/* idx_read.c - reads of file entries and records: lookups by path and id,
 * fingerprint records, directory listings, failed files and counts. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "byteorder.h"
#include "idx_i.h"

/* Fills f from a decoded record plus its book record (same txn). */
static int file_fill(struct idx *ix, MDB_txn *txn, const struct frec *r, struct idx_file *f)
{
	uint8_t kb[8];
	MDB_val k, v;
	struct brec b;
	int ret;

	idx_file_out(r, f);
	if (r->flags & FLAG_FP) {
		be_put(kb, r->id, 8);
		k = idx_mval(kb, 8);
		if (mdb_get(txn, ix->db[DB_BOOK], &k, &v) == 0 && idx_brec_decode(&v, &b) == 0) {
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

static int get_by_key(struct idx *ix, MDB_txn *txn, const struct pkey *pk, const char *path,
		      uint64_t want_id, struct idx_file *f)
{
	struct frec *r = NULL;
	MDB_val k = idx_mval(pk->b, pk->len), v;
	int ret;

	r = malloc(sizeof(*r));
	if (!r)
		return -ENOMEM;
	ret = idx_err(mdb_get(txn, ix->db[DB_FILES], &k, &v));
	if (ret == 0)
		ret = idx_frec_decode(&v, r);
	if (ret == 0 && ((path && strcmp(path, r->path) != 0) || (want_id && r->id != want_id)))
		ret = -EIO;
	if (ret == 0)
		ret = file_fill(ix, txn, r, f);
	free(r);
	return ret;
}

int idx_get(struct idx *ix, const char *path, struct idx_file *f)
{
	MDB_txn *txn = NULL;
	struct pkey k;
	int ret;

	memset(f, 0, sizeof(*f));
	ret = idx_path_check(path);
	if (ret)
		return ret;
	ret = idx_rtx_begin(ix, &txn);
	if (ret)
		return ret;
	idx_path_key(path, strlen(path), &k);
	ret = get_by_key(ix, txn, &k, path, 0, f);
	idx_rtx_end(ix, txn);
	return ret;
}

int idx_get_id(struct idx *ix, uint64_t id, struct idx_file *f)
{
	MDB_txn *txn = NULL;
	uint8_t kb[8];
	struct pkey pk;
	MDB_val k, v;
	int ret;

	memset(f, 0, sizeof(*f));
	ret = idx_rtx_begin(ix, &txn);
	if (ret)
		return ret;
	be_put(kb, id, 8);
	k = idx_mval(kb, 8);
	ret = idx_err(mdb_get(txn, ix->db[DB_IDS], &k, &v));
	if (ret == 0 && (v.mv_size == 0 || v.mv_size > PKEY_MAX))
		ret = -EIO;
	if (ret == 0) {
		memcpy(pk.b, v.mv_data, v.mv_size);
		pk.len = v.mv_size;
		ret = get_by_key(ix, txn, &pk, NULL, id, f);
	}
	idx_rtx_end(ix, txn);
	return ret;
}

int idx_get_ids(struct idx *ix, const uint64_t *ids, size_t n, struct idx_file *files)
{
	MDB_txn *txn = NULL;
	uint8_t kb[8];
	struct pkey pk;
	MDB_val k, v;
	size_t i;
	int ret, r;

	memset(files, 0, n * sizeof(*files));
	ret = idx_rtx_begin(ix, &txn);
	if (ret)
		return ret;
	for (i = 0; i < n && ret == 0; i++) {
		be_put(kb, ids[i], 8);
		k = idx_mval(kb, 8);
		if (mdb_get(txn, ix->db[DB_IDS], &k, &v) || v.mv_size == 0 || v.mv_size > PKEY_MAX)
			continue;
		memcpy(pk.b, v.mv_data, v.mv_size);
		pk.len = v.mv_size;
		r = get_by_key(ix, txn, &pk, NULL, ids[i], &files[i]);
		if (r == -ENOMEM)
			ret = r;
		else if (r)
			memset(&files[i], 0, sizeof(files[i]));
	}
	idx_rtx_end(ix, txn);
	for (i = 0; ret && i < n; i++)
		idx_file_release(&files[i]);
	return ret;
}

int idx_record(struct idx *ix, uint64_t id, uint32_t *rec_version, void **rec, size_t *len)
{
	return idx_record_head(ix, id, SIZE_MAX, rec_version, rec, len);
}

int idx_record_head(struct idx *ix, uint64_t id, size_t max, uint32_t *rec_version, void **rec,
		    size_t *len)
{
	MDB_txn *txn = NULL;
	uint8_t kb[8];
	MDB_val k, v;
	size_t n;
	int ret;

	*rec = NULL;
	*len = 0;
	ret = idx_rtx_begin(ix, &txn);
	if (ret)
		return ret;
	be_put(kb, id, 8);
	k = idx_mval(kb, 8);
	ret = idx_err(mdb_get(txn, ix->db[DB_REC], &k, &v));
	if (ret == 0 && v.mv_size < 4)
		ret = -EIO;
	if (ret == 0) {
		n = v.mv_size - 4 < max ? v.mv_size - 4 : max;
		*rec = malloc(n + 1);
		if (!*rec) {
			ret = -ENOMEM;
		} else {
			*rec_version = (uint32_t)be_get(v.mv_data, 4);
			memcpy(*rec, (const uint8_t *)v.mv_data + 4, n);
			*len = n;
		}
	}
	idx_rtx_end(ix, txn);
	return ret;
}

int idx_mh_bands(struct idx *ix, uint64_t id, uint64_t **bands, uint32_t *n)
{
	MDB_txn *txn = NULL;
	uint8_t kb[8];
	struct brec b;
	MDB_val k, v;
	uint32_t i;
	int ret;

	*bands = NULL;
	*n = 0;
	ret = idx_rtx_begin(ix, &txn);
	if (ret)
		return ret;
	be_put(kb, id, 8);
	k = idx_mval(kb, 8);
	ret = idx_err(mdb_get(txn, ix->db[DB_BOOK], &k, &v));
	if (ret == 0)
		ret = idx_brec_decode(&v, &b);
	if (ret == 0) {
		*bands = malloc((b.n_mh ? b.n_mh : 1) * sizeof(**bands));
		if (!*bands) {
			ret = -ENOMEM;
		} else {
			for (i = 0; i < b.n_mh; i++)
				(*bands)[i] = be_get(b.mh + 8 * i, 8);
			*n = b.n_mh;
		}
	}
	idx_rtx_end(ix, txn);
	return ret;
}

struct list_arg {
	struct idx *ix;
	MDB_txn *txn;
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
	if (a->n == a->cap) {
		size_t nc = a->cap ? a->cap * 2 : 32;
		struct idx_entry *p = realloc(a->v, nc * sizeof(*p));

		if (!p)
			return -ENOMEM;
		a->v = p;
		a->cap = nc;
	}
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
		ret = file_fill(a->ix, a->txn, f, &e->file);
		if (ret) {
			free(e->name);
			return ret;
		}
	}
	a->n++;
	return 0;
}

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct idx_entry *)a)->name, ((const struct idx_entry *)b)->name);
}

int idx_list(struct idx *ix, const char *dir, unsigned flags, struct idx_entry **ents, size_t *n)
{
	struct list_arg a = { ix, NULL, 0, flags, NULL, 0, 0 };
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
	a.plen = dlen;
	ret = idx_rtx_begin(ix, &a.txn);
	if (ret == 0) {
		ret = idx_files_under(a.txn, ix->db[DB_FILES], prefix, dlen, list_fn, &a);
		idx_rtx_end(ix, a.txn);
	}
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

int idx_errors(struct idx *ix, struct idx_file **files, size_t *n)
{
	struct idx_file *v = NULL;
	struct frec *r = NULL;
	size_t cnt = 0, cap = 0;
	MDB_cursor *cur = NULL;
	MDB_txn *txn = NULL;
	MDB_val k, val, pk, fv;
	int rc, ret;

	*files = NULL;
	*n = 0;
	r = malloc(sizeof(*r));
	if (!r)
		return -ENOMEM;
	ret = idx_rtx_begin(ix, &txn);
	if (ret) {
		free(r);
		return ret;
	}
	rc = mdb_cursor_open(txn, ix->db[DB_FAIL], &cur);
	for (rc = rc ? rc : mdb_cursor_get(cur, &k, &val, MDB_FIRST); rc == 0;
	     rc = mdb_cursor_get(cur, &k, &val, MDB_NEXT)) {
		if (k.mv_size != 8 || mdb_get(txn, ix->db[DB_IDS], &k, &pk) ||
		    mdb_get(txn, ix->db[DB_FILES], &pk, &fv) || idx_frec_decode(&fv, r) ||
		    r->id != be_get(k.mv_data, 8))
			continue;
		if (cnt == cap) {
			size_t nc = cap ? cap * 2 : 16;
			struct idx_file *p = realloc(v, nc * sizeof(*p));

			if (!p) {
				ret = -ENOMEM;
				break;
			}
			v = p;
			cap = nc;
		}
		idx_file_out(r, &v[cnt]);
		ret = idx_file_copy_strings(r, &v[cnt]);
		if (ret)
			break;
		cnt++;
	}
	if (ret == 0 && rc != MDB_NOTFOUND)
		ret = idx_err(rc);
	if (cur)
		mdb_cursor_close(cur);
	idx_rtx_end(ix, txn);
	free(r);
	if (ret) {
		idx_files_free(v, cnt);
		return ret;
	}
	if (cnt)
		qsort(v, cnt, sizeof(*v), file_path_cmp);
	*files = v;
	*n = cnt;
	return 0;
}

void idx_files_free(struct idx_file *files, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		idx_file_release(&files[i]);
	free(files);
}

int idx_counts(struct idx *ix, struct idx_counts *c)
{
	MDB_txn *txn = NULL;
	MDB_val k = idx_mval("counts", 6), v;
	int ret, i;

	memset(c, 0, sizeof(*c));
	ret = idx_rtx_begin(ix, &txn);
	if (ret)
		return ret;
	ret = idx_err(mdb_get(txn, ix->db[DB_META], &k, &v));
	if (ret == 0 && v.mv_size == 8 * (IDX_NSTATES + 1)) {
		c->books = be_get(v.mv_data, 8);
		for (i = 1; i < IDX_NSTATES; i++) {
			c->state[i] = be_get((const uint8_t *)v.mv_data + 8 * i, 8);
			c->files += c->state[i];
		}
	} else if (ret == 0) {
		ret = -EIO;
	} else if (ret == -ENOENT) {
		ret = 0;	/* nothing written yet */
	}
	idx_rtx_end(ix, txn);
	return ret;
}
