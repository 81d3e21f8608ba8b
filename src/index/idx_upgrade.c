/* idx_upgrade.c - upgrades of the index's tables in place, inside idx_open()'s
 * first write transaction: tables refilled from stored rows (a new band
 * layout, schema 3 postings) and the copies of schema 4 books. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "byteorder.h"
#include "grow.h"
#include "idx_i.h"

/* The number of rows of table db (0 when it cannot tell). */
static uint64_t table_rows(struct wtx *w, int db)
{
	uint64_t n;

	return kvs_rows(w->tx, db, &n) == 0 ? n : 0;
}

struct rebuild_arg {
	struct wtx *w;
	int (*row)(struct wtx *w, uint64_t id, const struct kvs_val *v);
	uint64_t done, total;
};

static int rebuild_row(const struct kvs_val *k, const struct kvs_val *v, void *arg)
{
	struct rebuild_arg *a = arg;
	int ret = 0;

	if (k->len == 8)
		ret = a->row(a->w, be_get(k->data, 8), v);
	if (ret == 0)
		ret = idx_open_progress(a->w->ix, IDX_OPEN_UPGRADE, ++a->done, a->total);
	return ret;
}

/* Empties table dst and calls row(w, id, value) for every row of table
 * src whose key is a book id, in key order; the rows' writes must not
 * touch src (its cursor walks on).  An upgrade inside idx_open(): its
 * progress is reported per row. */
static int rebuild_from(struct wtx *w, int dst, int src,
			int (*row)(struct wtx *w, uint64_t id, const struct kvs_val *v))
{
	struct rebuild_arg a = { w, row, 0, table_rows(w, src) };
	int ret;

	ret = idx_open_progress(w->ix, IDX_OPEN_UPGRADE, 0, a.total);
	if (ret == 0)
		ret = kvs_clear(w->tx, dst);
	if (ret)
		return ret;
	return idx_walk(w->tx, src, NULL, 0, rebuild_row, &a);
}

/* A book's simhash bands, from its book row (an undecodable one is skipped). */
static int shband_row(struct wtx *w, uint64_t id, const struct kvs_val *v)
{
	struct brec b;

	if (idx_brec_decode(v, &b) || (b.flags & BOOK_F_COPY))
		return 0;	/* a copy has no band entries */
	return idx_shband_apply(w, b.sh, id, 1);
}

/* A book's pruning-key postings, from its uqbook row (a malformed one is
 * skipped). */
static int uqkey_row(struct wtx *w, uint64_t id, const struct kvs_val *v)
{
	if (v->len % 4 || v->len / 4 > IDX_UQ_MAX)
		return 0;
	return idx_uq_put_postings(w, id, v->data, (uint32_t)(v->len / 4));
}

/* The band layout changed: the simhash bands rebuilt from the books. */
int idx_rebuild_shband(struct wtx *w)
{
	return rebuild_from(w, DB_SHBAND, DB_BOOK, shband_row);
}

/* Schema 3 to 4: the pruning-key postings rewritten from uqbook with the
 * books' key counts; nothing else changed, so nothing else is lost. */
int idx_rebuild_uqkey(struct wtx *w)
{
	return rebuild_from(w, DB_UQKEY, DB_UQBOOK, uqkey_row);
}

/* A version 1 book row rewritten as version 2 (its copy key from the row
 * and its pruning keys, no flags) and entered in the copies table. */
static int copies_row(struct wtx *w, uint64_t id)
{
	uint8_t kb[8], ck[COPY_KEY + 8], *row = NULL, *nrow = NULL, *uq = NULL;
	size_t nuq = 0;
	struct brec b;
	struct kvs_val v;
	int ret = idx_book_load(w, id, &row, &b);

	if (ret == -EIO || (ret == 0 && b.version != 1))
		ret = 0;	/* undecodable rows are skipped (lists skip them too) */
	if (ret || !row || b.version != 1)
		goto out;
	be_put(kb, id, 8);
	ret = idx_w_get(w, DB_UQBOOK, kb, 8, &v);
	if (ret == 0 && v.len % 4 == 0 && v.len / 4 <= IDX_UQ_MAX) {
		nuq = v.len / 4;
		uq = malloc(v.len ? v.len : 1);
		if (!uq) {
			ret = -ENOMEM;
			goto out;
		}
		memcpy(uq, v.data, v.len);
	} else if (ret == -ENOENT || ret == 0) {
		ret = 0;
	} else {
		goto out;
	}
	nrow = calloc(1, BOOK_HDR + (size_t)b.n_mh * 8);
	if (!nrow) {
		ret = -ENOMEM;
		goto out;
	}
	memcpy(nrow, row, BOOK_HDR1);
	nrow[0] = BOOK_VERSION;
	nrow[1] = 0;
	memcpy(nrow + BOOK_HDR, b.mh, (size_t)b.n_mh * 8);
	ret = idx_copy_key(b.sh, b.th, b.rec_version, b.mh, b.n_mh, uq, (uint32_t)nuq, nrow + 40);
	if (ret == 0)
		ret = idx_w_put(w, DB_BOOK, kb, 8, nrow, BOOK_HDR + (size_t)b.n_mh * 8);
	if (ret == 0) {
		memcpy(ck, nrow + 40, COPY_KEY);
		be_put(ck + COPY_KEY, id, 8);
		ret = idx_w_put(w, DB_COPY, ck, sizeof(ck), NULL, 0);
	}
out:
	free(row);
	free(nrow);
	free(uq);
	return ret;
}

/* Book id becomes a copy (not its group's representative): flag set, band
 * entries and links gone (the representative's links hold for the group). */
static int copies_demote(struct wtx *w, uint64_t id)
{
	uint8_t *row = NULL;
	struct brec b;
	int ret = idx_book_load(w, id, &row, &b);

	if (ret == 0)
		ret = idx_bands_apply(w, id, &b, 0);
	if (ret == 0)
		ret = idx_book_set_flags(w, id, BOOK_F_COPY);
	if (ret == 0)
		ret = idx_pairs_remove_all(w, DB_CLUSTER, id);
	if (ret == 0)
		ret = idx_pairs_remove_all(w, DB_REL, id);
	free(row);
	return ret == -EIO ? 0 : ret;
}

struct book_ids_arg {
	uint64_t *ids;
	size_t n, cap;
};

static int book_ids_row(const struct kvs_val *k, const struct kvs_val *v, void *arg)
{
	struct book_ids_arg *a = arg;

	(void)v;
	if (k->len != 8)
		return 0;
	if (ARRAY_GROW(a->ids, a->cap, a->n + 1))
		return -ENOMEM;
	a->ids[a->n++] = be_get(k->data, 8);
	return 0;
}

struct demote_arg {
	struct wtx *w;
	uint64_t prev_first;
	size_t run;
	uint8_t prev[COPY_KEY];
};

/* A row of the copies table: a book after the first of its group is
 * demoted, and the first flagged when the group has a second. */
static int demote_row(const struct kvs_val *k, const struct kvs_val *v, void *arg)
{
	struct demote_arg *a = arg;
	uint64_t id;
	int ret = 0;

	(void)v;
	if (k->len != COPY_KEY + 8)
		return 0;
	id = be_get((const uint8_t *)k->data + COPY_KEY, 8);
	if (a->run && memcmp(a->prev, k->data, COPY_KEY) == 0) {
		if (a->run++ == 1)
			ret = idx_book_set_flags(a->w, a->prev_first, BOOK_F_COPIES);
		if (ret == 0)
			ret = copies_demote(a->w, id);
		return ret;
	}
	memcpy(a->prev, k->data, COPY_KEY);
	a->prev_first = id;
	a->run = 1;
	return 0;
}

/* Schema 4 to 5: every book row gets its copy key and an entry in the
 * copies table; in each group of copies the books after the first lose
 * their band entries, postings and links, the first is flagged. */
int idx_upgrade_copies(struct wtx *w)
{
	struct book_ids_arg b = { NULL, 0, 0 };
	struct demote_arg d = { .w = w };
	size_t i;
	int ret = idx_open_progress(w->ix, IDX_OPEN_UPGRADE, 0, 0);

	if (ret)
		return ret;
	ret = idx_walk(w->tx, DB_BOOK, NULL, 0, book_ids_row, &b);
	for (i = 0; ret == 0 && i < b.n; i++) {
		ret = copies_row(w, b.ids[i]);
		if (ret == 0)
			ret = idx_open_progress(w->ix, IDX_OPEN_UPGRADE, i + 1, b.n);
	}
	free(b.ids);
	if (ret)
		return ret;
	return idx_walk(w->tx, DB_COPY, NULL, 0, demote_row, &d);
}
