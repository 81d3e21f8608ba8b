/* idx_copies.c - groups of copies (books with one copy key): finding a
 * group's first members, a book leaving its group (the next copy promoted),
 * and reading groups. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "byteorder.h"
#include "grow.h"
#include "idx_i.h"

/* 1 when book id's row has copy key key (a copies row naming a book that
 * is not there, planted or damaged, is ignored). */
static int copy_member(struct wtx *w, const uint8_t key[COPY_KEY], uint64_t id)
{
	uint8_t kb[8];
	struct brec b;
	struct kvs_val v;

	be_put(kb, id, 8);
	return idx_w_get(w, DB_BOOK, kb, 8, &v) == 0 && idx_brec_decode(&v, &b) == 0 &&
	       b.version == BOOK_VERSION && memcmp(b.key, key, COPY_KEY) == 0;
}

struct first_arg {
	struct wtx *w;
	const uint8_t *key;
	uint64_t skip, *ids;
	size_t *n;
};

/* Stops at the first row read after two were found: the walk reads one row
 * past the last one kept, and a cursor error on that read is returned. */
static int first_row(const struct kvs_val *k, const struct kvs_val *v, void *arg)
{
	struct first_arg *a = arg;
	uint64_t id;

	(void)v;
	if (*a->n >= 2)
		return 1;
	if (k->len != COPY_KEY + 8 || memcmp(k->data, a->key, COPY_KEY) != 0)
		return 1;
	id = be_get((const uint8_t *)k->data + COPY_KEY, 8);
	if (id != a->skip && copy_member(a->w, a->key, id))
		a->ids[(*a->n)++] = id;
	return 0;
}

/* The (at most) two smallest ids of the copy group key other than skip:
 * *n of them (0, 1 or 2) in ids[]. */
int idx_group_first(struct wtx *w, const uint8_t key[COPY_KEY], uint64_t skip, uint64_t ids[2],
		    size_t *n)
{
	struct first_arg a = { w, key, skip, ids, n };
	uint8_t k0[COPY_KEY + 8];

	*n = 0;
	memcpy(k0, key, COPY_KEY);
	be_put(k0 + COPY_KEY, 0, 8);
	return idx_walk(w->tx, DB_COPY, k0, sizeof(k0), first_row, &a);
}

/* Book id leaves its copy group (b: its book row).  A representative's band
 * entries go; when copies remain, the next one (smallest id) becomes the
 * representative: its band entries are written from its stored book row and
 * pruning keys, and it takes over the cluster links, relations and judged
 * mark, which hold for it as they held for id (the same fingerprint gives
 * the same verdicts and the same tag), so no comparison is needed.  A copy
 * leaving only updates the representative's flag. */
int idx_group_leave(struct wtx *w, uint64_t id, const struct brec *b)
{
	uint8_t k[COPY_KEY + 8], *row = NULL;
	uint64_t next[2];
	struct brec nb;
	size_t n = 0;
	int ret = 0;

	if (b->version == BOOK_VERSION) {
		ret = idx_group_first(w, b->key, id, next, &n);
		if (ret == 0) {
			memcpy(k, b->key, COPY_KEY);
			be_put(k + COPY_KEY, id, 8);
			ret = idx_w_del(w, DB_COPY, k, sizeof(k));
		}
		if (ret)
			return ret;
	}
	if (b->flags & BOOK_F_COPY)
		return n == 1 ? idx_book_set_flags(w, next[0], 0) : 0;
	ret = idx_bands_apply(w, id, b, 0);
	if (ret || n == 0)
		return ret;
	ret = idx_book_load(w, next[0], &row, &nb);
	if (ret == 0)
		ret = idx_bands_apply(w, next[0], &nb, 1);
	if (ret == 0)
		ret = idx_book_set_flags(w, next[0], n > 1 ? BOOK_F_COPIES : 0);
	if (ret == 0)
		ret = idx_judgement_move(w, id, next[0]);
	free(row);
	return ret;
}

/* Appends to *ids (ascending) the group of copies of book id (in tx), id
 * included; a book without a copy key (a hostile row) is its own group.
 * -ENOENT when id has no book row. */
int idx_group_read(struct kvs_tx *tx, uint64_t id, uint64_t **ids, size_t *n, size_t *cap)
{
	uint8_t kb[8], key[COPY_KEY + 8];
	struct kvs_cur *cur = NULL;
	struct brec b;
	struct kvs_val v;
	int ret;

	be_put(kb, id, 8);
	ret = kvs_get(tx, DB_BOOK, kb, 8, &v);
	if (ret == 0 && idx_brec_decode(&v, &b) == 0 && (b.flags & (BOOK_F_COPIES | BOOK_F_COPY))) {
		memcpy(key, b.key, COPY_KEY);
		ret = kvs_cur_open(tx, DB_COPY, &cur);
		if (ret)
			return ret;
		ret = idx_ids_with_prefix(cur, key, COPY_KEY, ids, n, cap);
		kvs_cur_close(cur);
		return ret;
	}
	if (ret)
		return ret;
	if (ARRAY_GROW(*ids, *cap, *n + 1))
		return -ENOMEM;
	(*ids)[(*n)++] = id;
	return 0;
}

struct copies_arg {
	uint64_t id, **ids;
	size_t *n, cap;
};

static int copies_txn(struct kvs_tx *tx, void *arg)
{
	struct copies_arg *a = arg;

	*a->n = 0;	/* a rerun starts over */
	return idx_group_read(tx, a->id, a->ids, a->n, &a->cap);
}

int idx_copies(struct idx *ix, uint64_t id, uint64_t **ids, size_t *n)
{
	struct copies_arg a = { id, ids, n, 0 };
	int ret;

	*ids = NULL;
	*n = 0;
	ret = kvs_read(ix->kv, copies_txn, &a);
	if (ret) {
		free(*ids);
		*ids = NULL;
		*n = 0;
	}
	return ret;
}

struct cgroups_arg {
	struct idx_groups *cg;
	uint8_t prev[COPY_KEY];
	size_t n, cap, ng, gcap, run;
};

static int cgroups_row(const struct kvs_val *k, const struct kvs_val *v, void *arg)
{
	struct cgroups_arg *a = arg;
	struct idx_groups *cg = a->cg;
	uint64_t id;

	(void)v;
	if (k->len != COPY_KEY + 8)
		return 0;
	id = be_get((const uint8_t *)k->data + COPY_KEY, 8);
	if (!a->run || memcmp(a->prev, k->data, COPY_KEY) != 0) {
		/* a group of one is dropped: overwrite its entry */
		if (a->run == 1)
			a->n--;
		else if (a->run > 1)
			a->ng++;
		memcpy(a->prev, k->data, COPY_KEY);
		a->run = 0;
	}
	/* room for this id, and for the end of this group and of the next */
	if (ARRAY_GROW(cg->ids, a->cap, a->n + 1) || ARRAY_GROW(cg->start, a->gcap, a->ng + 2))
		return -ENOMEM;
	if (a->run == 0)
		cg->start[a->ng] = a->n;
	cg->ids[a->n++] = id;
	a->run++;
	return 0;
}

/* The groups of copies of two or more, from one pass over the copies
 * table: group i is ids[start[i]] .. ids[start[i + 1] - 1], ascending (the
 * representative first). */
static int copy_groups_txn(struct kvs_tx *tx, struct idx_groups *cg)
{
	struct cgroups_arg a = { .cg = cg };
	int ret;

	memset(cg, 0, sizeof(*cg));
	ret = idx_walk(tx, DB_COPY, NULL, 0, cgroups_row, &a);
	if (ret) {
		idx_groups_release(cg);
		return ret;
	}
	if (a.run == 1)
		a.n--;
	else if (a.run > 1)
		a.ng++;
	if (cg->start)
		cg->start[a.ng] = a.n;
	cg->ngroups = a.ng;
	return 0;
}

static int load_groups_txn(struct kvs_tx *tx, void *arg)
{
	idx_groups_release(arg);	/* a rerun starts over */
	return copy_groups_txn(tx, arg);
}

int idx_load_copy_groups(struct idx *ix, struct idx_groups *cg)
{
	memset(cg, 0, sizeof(*cg));
	return kvs_read(ix->kv, load_groups_txn, cg);
}

/* Appends the copies of every representative (in tx) to the n books ids[]
 * with simhashes sh[] (room for *cap, grown), each with its
 * representative's simhash (a group has one). */
int idx_copies_add(struct kvs_tx *tx, uint64_t **ids, uint8_t (**sh)[IDX_SH_BYTES], size_t *n,
		   size_t *cap)
{
	struct idx_groups cg = { 0 };
	uint8_t kb[8];
	struct brec b;
	struct kvs_val v;
	size_t gi, i;
	int ret = copy_groups_txn(tx, &cg);

	for (gi = 0; ret == 0 && gi < cg.ngroups; gi++) {
		size_t s0 = cg.start[gi], s1 = cg.start[gi + 1];

		be_put(kb, cg.ids[s0], 8);
		if (kvs_get(tx, DB_BOOK, kb, 8, &v) || idx_brec_decode(&v, &b) ||
		    (b.flags & BOOK_F_COPY))
			continue;
		if (*n + (s1 - s0) > *cap) {
			size_t nc = (*n + (s1 - s0)) * 2;
			uint64_t *pi = realloc(*ids, nc * sizeof(*pi));
			uint8_t (*ps)[IDX_SH_BYTES];

			if (!pi) {
				ret = -ENOMEM;
				break;
			}
			*ids = pi;
			ps = realloc(*sh, nc * sizeof(*ps));
			if (!ps) {
				ret = -ENOMEM;
				break;
			}
			*sh = ps;
			*cap = nc;
		}
		for (i = s0 + 1; i < s1; i++) {
			(*ids)[*n] = cg.ids[i];
			memcpy((*sh)[*n], b.sh, IDX_SH_BYTES);
			(*n)++;
		}
	}
	idx_groups_release(&cg);
	return ret;
}
