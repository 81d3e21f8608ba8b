/* idx_book.c - a book's rows and a file's entry inside a write transaction:
 * storing and removing a fingerprint (book row, record, band entries,
 * copy group), and loading, storing and removing file entries. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "byteorder.h"
#include "grow.h"
#include "idx_i.h"

int idx_shband_apply(struct wtx *w, const uint8_t sh[IDX_SH_BYTES], uint64_t id, int add)
{
	uint8_t key[1 + 8 + 8];
	size_t klen;
	uint32_t b;
	int ret;

	for (b = 0; b < w->ix->bl.nbands; b++) {
		idx_shband_key(&w->ix->bl, sh, b, id, key, &klen);
		ret = add ? idx_w_put(w, DB_SHBAND, key, klen, sh, IDX_SH_BYTES)
			  : idx_w_del(w, DB_SHBAND, key, klen);
		if (ret)
			return ret;
	}
	return 0;
}

/* The book row of id copied out of the map (*row, malloc'd) and decoded
 * into *b (pointing into *row).  -ENOENT when there is none, -EIO when it
 * does not decode. */
int idx_book_load(struct wtx *w, uint64_t id, uint8_t **row, struct brec *b)
{
	uint8_t kb[8];
	struct kvs_val v;
	int ret;

	*row = NULL;
	be_put(kb, id, 8);
	ret = idx_w_get(w, DB_BOOK, kb, 8, &v);
	if (ret)
		return ret;
	*row = malloc(v.len ? v.len : 1);
	if (!*row)
		return -ENOMEM;
	memcpy(*row, v.data, v.len);
	v.data = *row;
	ret = idx_brec_decode(&v, b);
	if (ret) {
		free(*row);
		*row = NULL;
	}
	return ret;
}

/* Sets the flags byte of id's book row (a version 2 row; others are left). */
int idx_book_set_flags(struct wtx *w, uint64_t id, uint8_t flags)
{
	uint8_t *row = NULL, kb[8];
	struct brec b;
	int ret = idx_book_load(w, id, &row, &b);

	if (ret == 0 && b.version == BOOK_VERSION && row[1] != flags) {
		row[1] = flags;
		be_put(kb, id, 8);
		ret = idx_w_put(w, DB_BOOK, kb, 8, row, BOOK_HDR + (size_t)b.n_mh * 8);
	}
	free(row);
	return ret;
}

/* Adds (add) or removes the band entries of book id described by b: the
 * simhash bands, the min-hash bands and the pruning-key postings (written
 * from its uqbook row; removing keeps that row).  Only a representative
 * has them. */
int idx_bands_apply(struct wtx *w, uint64_t id, const struct brec *b, int add)
{
	uint8_t key[18], kb[8];
	struct kvs_val v;
	uint32_t i;
	int ret = idx_shband_apply(w, b->sh, id, add);

	for (i = 0; ret == 0 && i < b->n_mh; i++) {
		be_put(key, i, 2);
		memcpy(key + 2, b->mh + 8 * (size_t)i, 8);
		be_put(key + 10, id, 8);
		ret = add ? idx_w_put(w, DB_MHBAND, key, 18, NULL, 0) : idx_w_del(w, DB_MHBAND, key, 18);
	}
	if (ret)
		return ret;
	if (!add)
		return idx_uq_remove(w, id, 1);
	be_put(kb, id, 8);
	ret = idx_w_get(w, DB_UQBOOK, kb, 8, &v);
	if (ret == -ENOENT)
		return 0;
	if (ret == 0 && (v.len % 4 || v.len / 4 > IDX_UQ_MAX))
		return 0;	/* a malformed row: no postings, as in idx_rebuild_uqkey */
	if (ret == 0) {
		uint8_t *keys = malloc(v.len ? v.len : 1);

		/* copy out: the puts may move the page */
		if (!keys)
			return -ENOMEM;
		memcpy(keys, v.data, v.len);
		ret = idx_uq_put_postings(w, id, keys, (uint32_t)(v.len / 4));
		free(keys);
	}
	return ret;
}

/* Removes the fingerprint of id: book, record and every band entry. */
int idx_book_remove(struct wtx *w, uint64_t id)
{
	uint8_t kb[8], key[IDX_SH_BYTES + 8], *row = NULL;
	struct brec b;
	int ret, had_row = 0;

	be_put(kb, id, 8);
	ret = idx_book_load(w, id, &row, &b);
	if (ret == -ENOENT || ret == -EIO) {
		/* none, or one that does not decode: only its own keys to find */
		ret = 0;
		goto rec;
	}
	if (ret)
		return ret;
	had_row = 1;
	ret = idx_group_leave(w, id, &b);
	if (ret == 0) {
		memcpy(key, b.th, IDX_SH_BYTES);
		be_put(key + IDX_SH_BYTES, id, 8);
		ret = idx_w_del(w, DB_TEXT, key, IDX_SH_BYTES + 8);
	}
	if (ret == 0)
		ret = idx_w_del(w, DB_BOOK, kb, 8);
	free(row);
	if (ret)
		return ret;
rec:
	/* idx_group_leave() removed a representative's postings, keeping the row */
	ret = had_row ? idx_w_del(w, DB_UQBOOK, kb, 8) : idx_uq_remove(w, id, 0);
	return ret ? ret : idx_w_del(w, DB_REC, kb, 8);
}

/* Stores the fingerprint of id (which has none: idx_book_remove() ran).  The
 * book joins the group of its copy key: alone or with a larger id as
 * representative it gets the band entries (the old representative's go, and
 * its cluster links, relations and judged mark move over); else it is a
 * copy and only gets its rows. */
int idx_book_add(struct wtx *w, uint64_t id, const struct idx_fp *fp)
{
	uint8_t kb[8], key[IDX_SH_BYTES + 8], ck[COPY_KEY + 8], *buf = NULL, *rec = NULL;
	uint8_t *uq = NULL, *orow = NULL;
	size_t blen = BOOK_HDR + (size_t)fp->n_mh_bands * 8, n = 0;
	uint64_t first[2];
	struct brec b, ob;
	uint32_t i;
	int ret;

	be_put(kb, id, 8);
	buf = calloc(1, blen);
	rec = malloc(4 + fp->rec_len);
	uq = malloc(fp->n_uq_keys ? (size_t)fp->n_uq_keys * 4 : 1);
	if (!buf || !rec || !uq) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < fp->n_uq_keys; i++)
		be_put(uq + 4 * (size_t)i, fp->uq_keys[i], 4);
	buf[0] = BOOK_VERSION;
	be_put(buf + 2, fp->n_mh_bands, 2);
	be_put(buf + 4, fp->rec_version, 4);
	memcpy(buf + 8, fp->simhash, IDX_SH_BYTES);
	memcpy(buf + 24, fp->text_hash, IDX_SH_BYTES);
	for (i = 0; i < fp->n_mh_bands; i++)
		be_put(buf + BOOK_HDR + 8 * i, fp->mh_bands[i], 8);
	ret = idx_copy_key(fp->simhash, fp->text_hash, fp->rec_version, buf + BOOK_HDR,
		       fp->n_mh_bands, uq, fp->n_uq_keys, buf + 40);
	if (ret == 0)
		ret = idx_group_first(w, buf + 40, id, first, &n);
	if (ret)
		goto out;
	if (n && first[0] < id) {
		buf[1] = BOOK_F_COPY;
		if (n == 1)
			ret = idx_book_set_flags(w, first[0], BOOK_F_COPIES);
	} else if (n) {
		/* id takes over from the representative first[0] */
		buf[1] = BOOK_F_COPIES;
		ret = idx_book_load(w, first[0], &orow, &ob);
		if (ret == 0)
			ret = idx_bands_apply(w, first[0], &ob, 0);
		if (ret == 0)
			ret = idx_book_set_flags(w, first[0], BOOK_F_COPY);
		if (ret == 0)
			ret = idx_judgement_move(w, first[0], id);
	}
	if (ret == 0)
		ret = idx_w_put(w, DB_BOOK, kb, 8, buf, blen);
	if (ret)
		goto out;
	be_put(rec, fp->rec_version, 4);
	if (fp->rec_len)
		memcpy(rec + 4, fp->rec, fp->rec_len);
	ret = idx_w_put(w, DB_REC, kb, 8, rec, 4 + fp->rec_len);
	if (ret == 0) {
		memcpy(ck, buf + 40, COPY_KEY);
		be_put(ck + COPY_KEY, id, 8);
		ret = idx_w_put(w, DB_COPY, ck, sizeof(ck), NULL, 0);
	}
	if (ret == 0) {
		memcpy(key, fp->text_hash, IDX_SH_BYTES);
		be_put(key + IDX_SH_BYTES, id, 8);
		ret = idx_w_put(w, DB_TEXT, key, IDX_SH_BYTES + 8, NULL, 0);
	}
	if (ret == 0 && fp->n_uq_keys)
		ret = idx_w_put(w, DB_UQBOOK, kb, 8, uq, (size_t)fp->n_uq_keys * 4);
	if (ret == 0 && !(buf[1] & BOOK_F_COPY)) {
		struct kvs_val v = { buf, blen };

		ret = idx_brec_decode(&v, &b);
		if (ret == 0)
			ret = idx_bands_apply(w, id, &b, 1);
	}
out:
	free(orow);
	free(buf);
	free(rec);
	free(uq);
	return ret;
}

int idx_file_load_key(struct wtx *w, const struct pkey *k, const char *path, struct frec *f)
{
	struct kvs_val v;
	int ret = idx_w_get(w, DB_FILES, k->b, k->len, &v);

	if (ret)
		return ret;
	ret = idx_frec_decode(&v, f);
	if (ret == 0 && path && strcmp(path, f->path) != 0)
		ret = -EIO;	/* a hash collision of two long paths */
	return ret;
}

int idx_file_store(struct wtx *w, const struct frec *f)
{
	uint8_t buf[FREC_HDR + IDX_PATH_MAX + IDX_ERR_MAX];
	struct pkey k;
	size_t len = idx_frec_encode(f, buf);

	idx_path_key(f->path, f->pathlen, &k);
	return idx_w_put(w, DB_FILES, k.b, k.len, buf, len);
}

int idx_file_by_id(struct wtx *w, uint64_t id, struct frec *f)
{
	uint8_t kb[8];
	struct pkey k;
	struct kvs_val v;
	int ret;

	be_put(kb, id, 8);
	ret = idx_w_get(w, DB_IDS, kb, 8, &v);
	if (ret)
		return ret;
	if (v.len == 0 || v.len > PKEY_MAX)
		return -EIO;
	memcpy(k.b, v.data, v.len);
	k.len = v.len;
	ret = idx_file_load_key(w, &k, NULL, f);
	if (ret == 0 && f->id != id)
		ret = -EIO;
	return ret;
}

/* Deletes a file entry entirely. */
int idx_file_remove(struct wtx *w, const struct frec *f)
{
	uint8_t kb[8];
	struct pkey k;
	int ret;

	be_put(kb, f->id, 8);
	ret = idx_book_remove(w, f->id);
	if (ret == 0)
		ret = idx_pairs_remove_all(w, DB_EXEMPT, f->id);
	if (ret == 0)
		ret = idx_pairs_remove_all(w, DB_CLUSTER, f->id);
	if (ret == 0)
		ret = idx_pairs_remove_all(w, DB_REL, f->id);
	if (ret == 0)
		ret = idx_w_del(w, DB_FAIL, kb, 8);
	if (ret == 0)
		ret = idx_w_del(w, DB_IDS, kb, 8);
	if (ret)
		return ret;
	idx_path_key(f->path, f->pathlen, &k);
	ret = idx_w_del(w, DB_FILES, k.b, k.len);
	if (ret)
		return ret;
	return idx_count_move(w, f->state, f->flags & FLAG_FP, 0, 0);
}

static int flist_push(struct flist *l, const struct frec *f)
{
	if (ARRAY_GROW(l->v, l->cap, l->n + 1))
		return -ENOMEM;
	l->v[l->n++] = *f;
	return 0;
}

int idx_files_under(struct kvs_tx *tx, const char *prefix, size_t plen, files_fn fn, void *arg)
{
	size_t kplen = plen <= KEY_INLINE ? plen : KEY_INLINE;
	struct frec *f = NULL;
	struct kvs_cur *cur = NULL;
	struct pkey next;
	struct kvs_val k, v;
	int rc, ret = 0;

	f = malloc(sizeof(*f));
	if (!f)
		return -ENOMEM;
	ret = kvs_cur_open(tx, DB_FILES, &cur);
	if (ret)
		goto out;
	rc = kvs_cur_seek(cur, prefix, kplen, &k, &v);
	while (rc == 0) {
		if (k.len < kplen || memcmp(k.data, prefix, kplen) != 0)
			break;
		next.len = 0;
		if (idx_frec_decode(&v, f) == 0 && f->pathlen >= plen && memcmp(f->path, prefix, plen) == 0) {
			ret = fn(f, arg, &next);
			if (ret)
				break;
		}
		if (next.len)
			rc = kvs_cur_seek(cur, next.b, next.len, &k, &v);
		else
			rc = kvs_cur_next(cur, &k, &v);
	}
	if (rc && rc != -ENOENT && ret == 0)
		ret = rc;
out:
	kvs_cur_close(cur);
	free(f);
	return ret < 0 ? ret : 0;
}

static int collect_fn(const struct frec *f, void *arg, struct pkey *next)
{
	(void)next;
	return flist_push(arg, f);
}

/* Collects the file at path and every file under path + "/". */
int idx_collect_tree(struct wtx *w, const char *path, struct flist *l)
{
	size_t len = strlen(path);
	struct frec *f = NULL;
	struct pkey k;
	char *prefix = NULL;
	int ret;

	f = malloc(sizeof(*f));
	prefix = malloc(len + 2);
	if (!f || !prefix) {
		ret = -ENOMEM;
		goto out;
	}
	idx_path_key(path, len, &k);
	ret = idx_file_load_key(w, &k, path, f);
	if (ret == 0)
		ret = flist_push(l, f);
	else if (ret == -ENOENT || ret == -EIO)
		ret = 0;
	if (ret)
		goto out;
	memcpy(prefix, path, len);
	prefix[len] = '/';
	prefix[len + 1] = '\0';
	ret = idx_files_under(w->tx, prefix, len + 1, collect_fn, l);
out:
	free(f);
	free(prefix);
	return ret;
}
