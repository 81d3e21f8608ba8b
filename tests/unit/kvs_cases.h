/* kvs_cases.h - the cases of the key-value store's unit tests that every
 * backend must pass (test_kvs.c: LMDB; test_kvs_redis.c: Redis).  The
 * includer defines store_open(): a fresh, empty store with the tables
 * below (T_DUP a dup table), or NULL; kvs_free() releases it. */
#ifndef KVS_CASES_H
#define KVS_CASES_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kvs.h"

static struct kvs *store_open(uint64_t map_size);

enum { T_PLAIN, T_DUP, T_OTHER, NT };

struct kv {
	const void *k, *v;
	size_t klen, vlen;
};

static int put_fn(struct kvs_tx *tx, void *arg)
{
	const struct kv *p = arg;

	return kvs_put(tx, T_PLAIN, p->k, p->klen, p->v, p->vlen);
}

static int del_fn(struct kvs_tx *tx, void *arg)
{
	const struct kv *p = arg;

	return kvs_del(tx, T_PLAIN, p->k, p->klen);
}

/* The value of k in T_PLAIN copied into buf (room 64), by the one-get
 * path: its length, or the lookup's -errno. */
struct got {
	char buf[64];
	int len;
};

static int got_fn(int ret, const struct kvs_val *v, void *arg)
{
	struct got *g = arg;

	if (ret)
		return g->len = ret;
	if (v->len > sizeof(g->buf))
		return g->len = -EOVERFLOW;
	memcpy(g->buf, v->data, v->len);
	g->len = (int)v->len;
	return 0;
}

static int get_str(struct kvs *s, const char *k, struct got *g)
{
	memset(g, 0, sizeof(*g));
	kvs_read_get(s, T_PLAIN, k, strlen(k), got_fn, g);
	return g->len;
}

static void test_rows(void)
{
	struct kvs *s = store_open(1 << 20);
	struct kv a = { "alpha", "one", 5, 3 }, b = { "alpha", "two!", 5, 4 },
		  e = { "empty", NULL, 5, 0 };
	uint64_t g0;
	struct got g;

	REQUIRE(s);
	CHECK_EQ_INT(get_str(s, "alpha", &g), -ENOENT);
	g0 = kvs_generation(s);
	CHECK_EQ_INT(kvs_write(s, put_fn, &a), 0);
	CHECK(kvs_generation(s) != g0);
	CHECK_EQ_INT(get_str(s, "alpha", &g), 3);
	CHECK(memcmp(g.buf, "one", 3) == 0);
	CHECK_EQ_INT(kvs_write(s, put_fn, &b), 0);	/* overwrite */
	CHECK_EQ_INT(get_str(s, "alpha", &g), 4);
	CHECK(memcmp(g.buf, "two!", 4) == 0);
	CHECK_EQ_INT(kvs_write(s, put_fn, &e), 0);	/* an empty value is a row */
	CHECK_EQ_INT(get_str(s, "empty", &g), 0);
	CHECK_EQ_INT(kvs_write(s, del_fn, &a), 0);
	CHECK_EQ_INT(get_str(s, "alpha", &g), -ENOENT);
	CHECK_EQ_INT(kvs_write(s, del_fn, &a), 0);	/* missing: not an error */
	CHECK_EQ_INT(kvs_sync(s), 0);
	kvs_free(s);
}

/* Binary keys, 0x00 and 0xff bytes and prefixes of one another, in
 * memcmp() order (shorter first). */
static const uint8_t k0[] = { 0x00 }, k1[] = { 0x00, 0x00 }, k2[] = { 0x00, 0xff },
		     k3[] = { 0x01 }, k4[] = { 0x7f, 0x00, 0x80 }, k5[] = { 0xff },
		     k6[] = { 0xff, 0x00 }, k7[] = { 0xff, 0xff, 0xff };
static const struct { const uint8_t *b; size_t n; } ordered[] = {
	{ k0, 1 }, { k1, 2 }, { k2, 2 }, { k3, 1 }, { k4, 3 }, { k5, 1 }, { k6, 2 }, { k7, 3 },
};
#define NORD (sizeof(ordered) / sizeof(ordered[0]))

static int put_ordered(struct kvs_tx *tx, void *arg)
{
	static const int shuffle[NORD] = { 5, 2, 7, 0, 3, 6, 1, 4 };
	size_t i;
	int ret = 0;
	uint8_t v;

	(void)arg;
	for (i = 0; i < NORD && ret == 0; i++) {
		v = (uint8_t)shuffle[i];
		ret = kvs_put(tx, T_PLAIN, ordered[shuffle[i]].b, ordered[shuffle[i]].n, &v, 1);
	}
	/* a row of another table between them: never seen by T_PLAIN's cursor */
	if (ret == 0)
		ret = kvs_put(tx, T_OTHER, k3, 1, "x", 1);
	return ret;
}

struct seek_arg {
	const void *start;
	size_t slen;
	size_t idx[NORD + 1];
	size_t n;
	int end;
};

/* The index in ordered[] of each row from start on; end: the -errno that
 * ended the walk. */
static int seek_fn(struct kvs_tx *tx, void *arg)
{
	struct seek_arg *a = arg;
	struct kvs_cur *c = NULL;
	struct kvs_val k, v;
	size_t i;
	int ret;

	a->n = 0;
	ret = kvs_cur_open(tx, T_PLAIN, &c);
	if (ret)
		return ret;
	for (ret = kvs_cur_seek(c, a->start, a->slen, &k, &v); ret == 0 && a->n <= NORD;
	     ret = kvs_cur_next(c, &k, &v)) {
		for (i = 0; i < NORD; i++)
			if (k.len == ordered[i].n && memcmp(k.data, ordered[i].b, k.len) == 0)
				break;
		if (i < NORD && (v.len != 1 || *(const uint8_t *)v.data != i))
			i = NORD + 1;	/* the wrong value: fails below */
		a->idx[a->n++] = i;
	}
	a->end = ret;
	kvs_cur_close(c);
	return 0;
}

static void test_ordered(void)
{
	static const uint8_t s1[] = { 0x00, 0x01 }, s2[] = { 0xff, 0x01 },
			     s3[] = { 0xff, 0xff, 0xff, 0x00 }, s4[] = { 0x7f };
	struct kvs *s = store_open(1 << 20);
	struct seek_arg a;
	size_t i;

	REQUIRE(s);
	REQUIRE(kvs_write(s, put_ordered, NULL) == 0);
	memset(&a, 0, sizeof(a));
	CHECK_EQ_INT(kvs_read(s, seek_fn, &a), 0);	/* NULL: from the first row */
	CHECK_EQ_INT(a.n, NORD);
	for (i = 0; i < a.n; i++)
		CHECK_EQ_INT(a.idx[i], i);
	CHECK_EQ_INT(a.end, -ENOENT);
	a.start = s1;	/* between 00 00 and 00 ff */
	a.slen = sizeof(s1);
	CHECK_EQ_INT(kvs_read(s, seek_fn, &a), 0);
	CHECK_EQ_INT(a.n, NORD - 2);
	CHECK_EQ_INT(a.idx[0], 2);
	a.start = s4;	/* a prefix of 7f 00 80: that key */
	a.slen = sizeof(s4);
	CHECK_EQ_INT(kvs_read(s, seek_fn, &a), 0);
	CHECK_EQ_INT(a.n, 4);
	CHECK_EQ_INT(a.idx[0], 4);
	a.start = s2;
	a.slen = sizeof(s2);
	CHECK_EQ_INT(kvs_read(s, seek_fn, &a), 0);
	CHECK_EQ_INT(a.n, 1);
	CHECK_EQ_INT(a.idx[0], 7);
	a.start = s3;	/* past the last key */
	a.slen = sizeof(s3);
	CHECK_EQ_INT(kvs_read(s, seek_fn, &a), 0);
	CHECK_EQ_INT(a.n, 0);
	CHECK_EQ_INT(a.end, -ENOENT);
	a.start = k0;	/* exactly the first key */
	a.slen = 1;
	CHECK_EQ_INT(kvs_read(s, seek_fn, &a), 0);
	CHECK_EQ_INT(a.n, NORD);
	a.start = "";	/* a key of no bytes: the first row */
	a.slen = 0;
	CHECK_EQ_INT(kvs_read(s, seek_fn, &a), 0);
	CHECK_EQ_INT(a.n, NORD);
	CHECK_EQ_INT(a.idx[0], 0);
	kvs_free(s);
}

/* ---- dup tables ---- */

#define NBIG 3000	/* values of one key: several pages, several runs */

struct dup_arg {
	int op;		/* 0 add, 1 del */
	const uint8_t *keys;
	size_t nkeys;
	uint8_t v[8];
};

static int dup_fn(struct kvs_tx *tx, void *arg)
{
	struct dup_arg *a = arg;

	return a->op == 0 ? kvs_dup_add(tx, T_DUP, a->keys, 4, a->nkeys, a->v, 8)
			  : kvs_dup_del(tx, T_DUP, a->keys, 4, a->nkeys, a->v, 8);
}

static int big_fn(struct kvs_tx *tx, void *arg)
{
	uint8_t v[8];
	int i, ret = 0;

	(void)arg;
	/* descending: the table keeps them ascending */
	for (i = NBIG - 1; i >= 0 && ret == 0; i--) {
		memset(v, 0, 8);
		v[6] = (uint8_t)(i >> 8);
		v[7] = (uint8_t)i;
		ret = kvs_dup_add(tx, T_DUP, "big!", 4, 1, v, 8);
	}
	return ret;
}

struct walk_arg {
	const char *key;
	size_t count, n, runs, vlen;
	uint8_t vals[NBIG][8];
	int ret;
};

static int walk_run(const uint8_t *vals, size_t n, size_t vlen, void *arg)
{
	struct walk_arg *a = arg;

	a->runs++;
	a->vlen = vlen;
	if (vlen != 8 || a->n + n > NBIG)
		return -EINVAL;
	memcpy(a->vals[a->n], vals, n * 8);
	a->n += n;
	return 0;
}

static int walk_fn(struct kvs_tx *tx, void *arg)
{
	struct walk_arg *a = arg;
	struct kvs_cur *c = NULL;
	int ret;

	a->count = a->n = a->runs = a->vlen = 0;
	ret = kvs_cur_open(tx, T_DUP, &c);
	if (ret == 0)
		ret = kvs_dup_count(c, a->key, 4, &a->count);
	if (ret == 0 && a->count)
		ret = kvs_dup_walk(c, walk_run, a);
	kvs_cur_close(c);
	return ret;
}

static struct walk_arg *walk_of(struct kvs *s, struct walk_arg *a, const char *key)
{
	a->key = key;
	a->ret = kvs_read(s, walk_fn, a);
	return a;
}

static void test_dup(void)
{
	static const uint8_t keys2[] = { 'k', 'e', 'y', '1', 'k', 'e', 'y', '2' };
	struct kvs *s = store_open(4 << 20);
	struct walk_arg *a = malloc(sizeof(*a));
	struct dup_arg d = { 0, keys2, 1, { 0 } };
	size_t i;
	int ok;

	REQUIRE(s);
	REQUIRE(a);
	/* values C, A, B under key1; B under key2 too (one call, two keys) */
	d.v[7] = 'C';
	CHECK_EQ_INT(kvs_write(s, dup_fn, &d), 0);
	d.v[7] = 'A';
	CHECK_EQ_INT(kvs_write(s, dup_fn, &d), 0);
	d.v[7] = 'B';
	d.nkeys = 2;
	CHECK_EQ_INT(kvs_write(s, dup_fn, &d), 0);
	d.nkeys = 1;
	d.v[7] = 'A';
	CHECK_EQ_INT(kvs_write(s, dup_fn, &d), 0);	/* already there: not an error */
	walk_of(s, a, "key1");
	CHECK_EQ_INT(a->ret, 0);
	CHECK_EQ_INT(a->count, 3);
	CHECK_EQ_INT(a->n, 3);
	CHECK_EQ_INT(a->vlen, 8);
	CHECK(a->vals[0][7] == 'A' && a->vals[1][7] == 'B' && a->vals[2][7] == 'C');
	walk_of(s, a, "key2");
	CHECK_EQ_INT(a->count, 1);
	CHECK_EQ_INT(a->n, 1);
	CHECK(a->vals[0][7] == 'B');
	walk_of(s, a, "key0");	/* absent: counted 0, not an error */
	CHECK_EQ_INT(a->ret, 0);
	CHECK_EQ_INT(a->count, 0);
	/* B goes from both keys; a missing pair is not an error */
	d.op = 1;
	d.nkeys = 2;
	d.v[7] = 'B';
	CHECK_EQ_INT(kvs_write(s, dup_fn, &d), 0);
	CHECK_EQ_INT(kvs_write(s, dup_fn, &d), 0);
	walk_of(s, a, "key1");
	CHECK_EQ_INT(a->count, 2);
	CHECK(a->n == 2 && a->vals[0][7] == 'A' && a->vals[1][7] == 'C');
	walk_of(s, a, "key2");
	CHECK_EQ_INT(a->count, 0);
	/* many values: read in runs, all of them, ascending */
	CHECK_EQ_INT(kvs_write(s, big_fn, NULL), 0);
	walk_of(s, a, "big!");
	CHECK_EQ_INT(a->ret, 0);
	CHECK_EQ_INT(a->count, NBIG);
	CHECK_EQ_INT(a->n, NBIG);
	CHECK(a->runs > 1);
	for (i = 0, ok = 1; i < a->n; i++)
		ok &= a->vals[i][6] == (uint8_t)(i >> 8) && a->vals[i][7] == (uint8_t)i;
	CHECK(ok);
	free(a);
	kvs_free(s);
}

/* ---- failed, rerun and concurrent transactions ---- */

static int fail_fn(struct kvs_tx *tx, void *arg)
{
	int ret = kvs_put(tx, T_PLAIN, "lost", 4, "x", 1);

	(void)arg;
	if (ret == 0)
		ret = kvs_del(tx, T_PLAIN, "kept", 4);
	return ret ? ret : -EINVAL;
}

static void test_failed_write(void)
{
	struct kvs *s = store_open(1 << 20);
	struct kv k = { "kept", "yes", 4, 3 };
	struct got g;

	REQUIRE(s);
	REQUIRE(kvs_write(s, put_fn, &k) == 0);
	CHECK_EQ_INT(kvs_write(s, fail_fn, NULL), -EINVAL);
	CHECK_EQ_INT(get_str(s, "lost", &g), -ENOENT);
	CHECK_EQ_INT(get_str(s, "kept", &g), 3);
	kvs_free(s);
}

static int clear_fn(struct kvs_tx *tx, void *arg)
{
	(void)arg;
	return kvs_clear(tx, T_PLAIN);
}

static int rows_fn(struct kvs_tx *tx, void *arg)
{
	return kvs_rows(tx, T_PLAIN, arg);
}

static void test_clear(void)
{
	struct kvs *s = store_open(1 << 20);
	uint64_t rows = 0;

	REQUIRE(s);
	REQUIRE(kvs_write(s, put_ordered, NULL) == 0);
	CHECK_EQ_INT(kvs_read(s, rows_fn, &rows), 0);
	CHECK_EQ_INT(rows, NORD);
	CHECK_EQ_INT(kvs_write(s, clear_fn, NULL), 0);
	CHECK_EQ_INT(kvs_read(s, rows_fn, &rows), 0);
	CHECK_EQ_INT(rows, 0);
	kvs_free(s);
}

#endif
