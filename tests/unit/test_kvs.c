/* Unit tests for the index's key-value store (kvs.h) on its LMDB backend:
 * the cases every backend passes (kvs_cases.h: rows, ordered cursors over
 * binary keys, dup tables, failed writes, clear), then LMDB's own: writes
 * rerun when the map grows, read snapshots that a write inside them does
 * not change. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "kvs_cases.h"
#include "kvs_lmdb.h"

static const char *const names[NT] = { "plain", "dup", "other" };

static int open_tables(struct kvs_tx *tx, void *arg)
{
	int i, rc = 0;

	(void)arg;
	for (i = 0; i < NT && rc == 0; i++)
		rc = kvs_lmdb_dbi_open(tx, i, names[i],
				       MDB_CREATE | (i == T_DUP ? MDB_DUPSORT | MDB_DUPFIXED : 0));
	return idx_err(rc);
}

/* A store in a scratch folder with a map of map_size bytes (NULL on error). */
static struct kvs *store_open(uint64_t map_size)
{
	const char *dir = check_tmpdir();
	struct kvs *s = NULL;

	if (!dir || kvs_lmdb_new(&s, 50))
		return NULL;
	if (kvs_lmdb_env_open(s, dir, map_size, 0) || kvs_write(s, open_tables, NULL) < 0) {
		kvs_free(s);
		return NULL;
	}
	return s;
}

#define GROW_ROWS 600
#define GROW_VAL 4096

struct grow_arg {
	int runs;
	uint64_t rows;
};

/* Bumps a counter row and writes ~2.4 MB: more than the 1 MB map holds. */
static int grow_fn(struct kvs_tx *tx, void *arg)
{
	struct grow_arg *a = arg;
	static uint8_t val[GROW_VAL];
	struct kvs_val v;
	uint8_t key[4];
	uint32_t n = 0;
	int i, ret;

	a->runs++;
	ret = kvs_get(tx, T_OTHER, "count", 5, &v);
	if (ret == 0 && v.len == 4)
		memcpy(&n, v.data, 4);
	else if (ret != -ENOENT)
		return ret ? ret : -EIO;
	n++;
	ret = kvs_put(tx, T_OTHER, "count", 5, &n, 4);
	for (i = 0; i < GROW_ROWS && ret == 0; i++) {
		key[0] = 'r';
		key[1] = (uint8_t)(i >> 8);
		key[2] = (uint8_t)i;
		key[3] = (uint8_t)n;
		memset(val, i, sizeof(val));
		ret = kvs_put(tx, T_PLAIN, key, 4, val, sizeof(val));
	}
	return ret;
}

static int count_fn(struct kvs_tx *tx, void *arg)
{
	struct grow_arg *a = arg;
	struct kvs_val v;
	uint32_t n = 0;
	int ret = kvs_rows(tx, T_PLAIN, &a->rows);

	if (ret == 0)
		ret = kvs_get(tx, T_OTHER, "count", 5, &v);
	if (ret == 0 && v.len == 4)
		memcpy(&n, v.data, 4);
	return ret ? ret : (int)n;
}

static void test_rerun_write(void)
{
	struct kvs *s = store_open(1 << 20);
	struct grow_arg a = { 0, 0 };

	REQUIRE(s);
	CHECK_EQ_INT(kvs_write(s, grow_fn, &a), 0);
	CHECK(a.runs >= 2);	/* the map filled: grown, fn run again */
	CHECK_EQ_INT(kvs_read(s, count_fn, &a), 1);	/* committed once */
	CHECK_EQ_INT(a.rows, GROW_ROWS);
	a.runs = 0;
	CHECK_EQ_INT(kvs_write(s, grow_fn, &a), 0);
	CHECK_EQ_INT(kvs_read(s, count_fn, &a), 2);
	CHECK_EQ_INT(a.rows, 2 * GROW_ROWS);
	kvs_free(s);
}

struct snap_arg {
	struct kvs *s;
	struct got before, after;
	int wret;
	uint64_t rows_before, rows_after;
};

static int snap_get(struct kvs_tx *tx, struct got *g)
{
	struct kvs_val v;
	int ret = kvs_get(tx, T_PLAIN, "snap", 4, &v);

	memset(g, 0, sizeof(*g));
	if (ret == 0 && v.len <= sizeof(g->buf)) {
		memcpy(g->buf, v.data, v.len);
		g->len = (int)v.len;
	}
	return ret;
}

/* Reads, lets a write commit, reads again: both reads are the snapshot's. */
static int snap_fn(struct kvs_tx *tx, void *arg)
{
	struct snap_arg *a = arg;
	struct kv k = { "snap", "new", 4, 3 }, extra = { "snap2", "x", 5, 1 };
	int ret = snap_get(tx, &a->before);

	if (ret == 0)
		ret = kvs_rows(tx, T_PLAIN, &a->rows_before);
	a->wret = kvs_write(a->s, put_fn, &k);
	if (a->wret == 0)
		a->wret = kvs_write(a->s, put_fn, &extra);
	if (ret == 0)
		ret = snap_get(tx, &a->after);
	if (ret == 0)
		ret = kvs_rows(tx, T_PLAIN, &a->rows_after);
	return ret;
}

static void test_read_snapshot(void)
{
	struct kvs *s = store_open(1 << 20);
	struct kv k = { "snap", "old", 4, 3 };
	struct snap_arg a;
	struct got g;

	REQUIRE(s);
	REQUIRE(kvs_write(s, put_fn, &k) == 0);
	memset(&a, 0, sizeof(a));
	a.s = s;
	CHECK_EQ_INT(kvs_read(s, snap_fn, &a), 0);
	CHECK_EQ_INT(a.wret, 0);
	CHECK(a.before.len == 3 && memcmp(a.before.buf, "old", 3) == 0);
	CHECK(a.after.len == 3 && memcmp(a.after.buf, "old", 3) == 0);
	CHECK_EQ_INT(a.rows_before, 1);
	CHECK_EQ_INT(a.rows_after, 1);
	CHECK_EQ_INT(get_str(s, "snap", &g), 3);	/* a read begun after it sees it */
	CHECK(memcmp(g.buf, "new", 3) == 0);
	kvs_free(s);
}

int main(void)
{
	RUN(test_rows);
	RUN(test_ordered);
	RUN(test_dup);
	RUN(test_failed_write);
	RUN(test_rerun_write);
	RUN(test_read_snapshot);
	RUN(test_clear);
	return CHECK_DONE();
}
