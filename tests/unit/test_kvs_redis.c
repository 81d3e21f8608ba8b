/* Unit tests for the Redis backend of the key-value store (kvs_redis.h)
 * against a redis-server of its own (skipped, exit 77, without one): the
 * cases every backend passes (kvs_cases.h), then Redis's own: a write
 * reads its own changes (overlay merged into gets, cursors, counts), a
 * write that loses the WATCH race to another handle runs again and both
 * land, reads never see half a write (a writer and a reader thread), the
 * generation, another handle's commits heard (kvs_watch), bad URIs, the
 * server out of reach and back (kvs_health); the prefetch hints give what
 * plain lookups give; a write's rows put out of order and twice read back
 * in order, the later put winning; which errors say the server is out of
 * reach. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "check.h"
#include "kvs_cases.h"
#include "kvs_redis.h"
#include "rcl.h"
#include "redisrv.h"

static int port;
static int ns_seq;
static char ns_last[64];

/* A handle on namespace ns. */
static struct kvs *open_ns(const char *ns)
{
	char uri[128], why[256];
	struct kvs *s = NULL;

	snprintf(uri, sizeof(uri), "redis://127.0.0.1:%d/%s", port, ns);
	if (kvs_redis_open(uri, &s, why, sizeof(why))) {
		fprintf(stderr, "  %s\n", why);
		return NULL;
	}
	return s;
}

/* A fresh namespace: an empty store (the map size is LMDB's matter). */
static struct kvs *store_open(uint64_t map_size)
{
	(void)map_size;
	snprintf(ns_last, sizeof(ns_last), "t%d-%d", (int)getpid(), ++ns_seq);
	return open_ns(ns_last);
}

/* ---- a write reads its own changes ---- */

struct ov_arg {
	size_t idx[NORD + 4], n;
	uint64_t rows, dups;
	size_t dcount;
	int got_new, got_gone;
};

static int ov_fn(struct kvs_tx *tx, void *arg)
{
	static const uint8_t knew[] = { 0x7f }, dkey[] = { 'k', 'e', 'y', '1' };
	struct ov_arg *a = arg;
	struct kvs_cur *c = NULL;
	struct kvs_val k, v;
	uint8_t val = 9, dv[8] = { 0 };
	size_t i;
	int ret;

	memset(a, 0, sizeof(*a));
	/* a new key between stored ones, one stored key gone, one rewritten */
	ret = kvs_put(tx, T_PLAIN, knew, 1, &val, 1);
	if (ret == 0)
		ret = kvs_del(tx, T_PLAIN, ordered[2].b, ordered[2].n);
	if (ret == 0)
		ret = kvs_put(tx, T_PLAIN, ordered[5].b, ordered[5].n, &val, 1);
	a->got_new = kvs_get(tx, T_PLAIN, knew, 1, &v) == 0 && v.len == 1;
	a->got_gone = kvs_get(tx, T_PLAIN, ordered[2].b, ordered[2].n, &v);
	if (ret == 0)
		ret = kvs_cur_open(tx, T_PLAIN, &c);
	for (ret = ret ? ret : kvs_cur_seek(c, NULL, 0, &k, &v); ret == 0 && a->n < NORD + 4;
	     ret = kvs_cur_next(c, &k, &v)) {
		for (i = 0; i < NORD; i++)
			if (k.len == ordered[i].n && memcmp(k.data, ordered[i].b, k.len) == 0)
				break;
		if (k.len == 1 && *(const uint8_t *)k.data == 0x7f)
			i = 100;	/* the new key */
		else if (i < NORD && *(const uint8_t *)v.data != (i == 5 ? 9 : i))
			i = 200;	/* a stale value */
		a->idx[a->n++] = i;
	}
	kvs_cur_close(c);
	if (ret != -ENOENT)
		return ret;
	ret = kvs_rows(tx, T_PLAIN, &a->rows);
	/* a dup key with values stored and one added here */
	dv[7] = 'Z';
	if (ret == 0)
		ret = kvs_dup_add(tx, T_DUP, dkey, 4, 1, dv, 8);
	if (ret == 0)
		ret = kvs_cur_open(tx, T_DUP, &c);
	if (ret == 0)
		ret = kvs_dup_count(c, dkey, 4, &a->dcount);
	kvs_cur_close(c);
	if (ret == 0)
		ret = kvs_rows(tx, T_DUP, &a->dups);
	return ret;
}

static int dup_seed(struct kvs_tx *tx, void *arg)
{
	uint8_t v[8] = { 0 };
	int ret;

	(void)arg;
	v[7] = 'A';
	ret = kvs_dup_add(tx, T_DUP, "key1", 4, 1, v, 8);
	v[7] = 'B';
	if (ret == 0)
		ret = kvs_dup_add(tx, T_DUP, "key1", 4, 1, v, 8);
	return ret;
}

static void test_read_own_writes(void)
{
	static const size_t want[] = { 0, 1, 3, 100, 4, 5, 6, 7 };
	struct kvs *s = store_open(0);
	struct ov_arg a;
	struct walk_arg *w = malloc(sizeof(*w));
	size_t i;

	REQUIRE(s && w);
	REQUIRE(kvs_write(s, put_ordered, NULL) == 0);
	REQUIRE(kvs_write(s, dup_seed, NULL) == 0);
	CHECK_EQ_INT(kvs_write(s, ov_fn, &a), 0);
	CHECK(a.got_new);
	CHECK_EQ_INT(a.got_gone, -ENOENT);
	CHECK_EQ_INT(a.n, NORD);
	for (i = 0; i < a.n && i < NORD; i++)
		CHECK_EQ_INT(a.idx[i], want[i]);
	CHECK_EQ_INT(a.rows, NORD);	/* one in, one out */
	CHECK_EQ_INT(a.dcount, 3);
	CHECK_EQ_INT(a.dups, 3);
	/* committed: a read sees the same */
	walk_of(s, w, "key1");
	CHECK_EQ_INT(w->count, 3);
	CHECK(w->n == 3 && w->vals[0][7] == 'A' && w->vals[1][7] == 'B' && w->vals[2][7] == 'Z');
	free(w);
	kvs_free(s);
}

/* ---- the prefetch hints give the answers of plain lookups ---- */

#define PF_KEYS 8
#define PF_MAX 40

/* Dup key "dk" i has 13 * i values (some above PF_MAX, one above the
 * server's first batch); prefix "r" i of T_OTHER has 35 * i rows (one
 * more than a prefetch's first fetch), then a row of the next prefix. */
static int pf_seed(struct kvs_tx *tx, void *arg)
{
	uint8_t key[4] = { 'd', 'k', 0, 0 }, v[8] = { 0 }, rk[4] = { 'r', 0, 0, 0 };
	int i, j, ret = 0;

	(void)arg;
	for (i = 0; i < PF_KEYS && ret == 0; i++) {
		key[2] = (uint8_t)i;
		for (j = 0; j < 13 * i && ret == 0; j++) {
			v[6] = (uint8_t)(j >> 8);
			v[7] = (uint8_t)j;
			ret = kvs_dup_add(tx, T_DUP, key, 4, 1, v, 8);
		}
		rk[1] = (uint8_t)i;
		for (j = 0; j < 35 * i && ret == 0; j++) {
			rk[2] = (uint8_t)(j >> 8);
			rk[3] = (uint8_t)j;
			v[0] = (uint8_t)i;
			ret = kvs_put(tx, T_OTHER, rk, 4, v, 8);
		}
	}
	return ret;
}

struct pf_arg {
	int hint;
	/* per key: the count, a sum of the values walked, rows of the prefix */
	size_t count[PF_KEYS + 1], walked[PF_KEYS + 1], rows[PF_KEYS + 1];
	uint64_t sum[PF_KEYS + 1];
};

static int pf_walk(const uint8_t *vals, size_t n, size_t vlen, void *arg)
{
	struct pf_arg *a = arg;
	size_t i;

	for (i = 0; i < n; i++)
		a->sum[PF_KEYS] += vals[i * vlen + 6] * 256u + vals[i * vlen + 7];
	a->walked[PF_KEYS] += n;
	return 0;
}

/* Looks the keys up in a shuffled order (hinted in another: the store
 * must not rely on it), plus one key no hint names. */
static int pf_read(struct kvs_tx *tx, void *arg)
{
	static const int order[PF_KEYS + 1] = { 3, 0, 7, 1, 6, 2, 5, 4, 9 };
	struct pf_arg *a = arg;
	struct kvs_cur *c = NULL;
	uint8_t keys[PF_KEYS * 4], rkeys[PF_KEYS * 3];
	struct kvs_val k, v;
	int i, ret;

	memset(a->count, 0, sizeof(a->count));
	memset(a->walked, 0, sizeof(a->walked));
	memset(a->rows, 0, sizeof(a->rows));
	memset(a->sum, 0, sizeof(a->sum));
	for (i = 0; i < PF_KEYS; i++) {
		memcpy(keys + 4 * i, (const uint8_t[]){ 'd', 'k', (uint8_t)i, 0 }, 4);
		memcpy(rkeys + 3 * i, (const uint8_t[]){ 'r', (uint8_t)i, 0 }, 3);
	}
	ret = kvs_cur_open(tx, T_DUP, &c);
	if (ret == 0 && a->hint)
		ret = kvs_dup_prefetch(c, keys, 4, PF_KEYS, PF_MAX);
	for (i = 0; ret == 0 && i <= PF_KEYS; i++) {
		uint8_t key[4] = { 'd', 'k', (uint8_t)order[i], 0 };
		size_t n = 0;

		ret = kvs_dup_count(c, key, 4, &n);
		a->count[order[i] % (PF_KEYS + 1)] = n;
		if (ret == 0 && n && n <= PF_MAX) {
			a->walked[PF_KEYS] = a->sum[PF_KEYS] = 0;
			ret = kvs_dup_walk(c, pf_walk, a);
			a->walked[order[i]] = a->walked[PF_KEYS];
			a->sum[order[i]] = a->sum[PF_KEYS];
		}
	}
	kvs_cur_close(c);
	c = NULL;
	if (ret == 0)
		ret = kvs_cur_open(tx, T_OTHER, &c);
	if (ret == 0 && a->hint)
		ret = kvs_cur_prefetch(c, rkeys, 3, PF_KEYS, 2);
	for (i = 0; ret == 0 && i <= PF_KEYS; i++) {
		uint8_t key[3] = { 'r', (uint8_t)order[i], 0 };
		int rc;

		for (rc = kvs_cur_seek(c, key, 3, &k, &v); rc == 0; rc = kvs_cur_next(c, &k, &v)) {
			if (k.len != 4 || memcmp(k.data, key, 2) != 0)
				break;
			if (v.len != 8 || ((const uint8_t *)v.data)[0] != order[i])
				return -EIO;
			a->rows[order[i] % (PF_KEYS + 1)]++;
		}
		if (rc != 0 && rc != -ENOENT)
			ret = rc;
	}
	kvs_cur_close(c);
	return ret;
}

static void test_prefetch(void)
{
	struct kvs *s = store_open(0);
	struct pf_arg plain, hinted;
	int i;

	memset(&plain, 0, sizeof(plain));
	memset(&hinted, 0, sizeof(hinted));
	hinted.hint = 1;
	REQUIRE(s);
	REQUIRE(kvs_write(s, pf_seed, NULL) == 0);
	CHECK_EQ_INT(kvs_read(s, pf_read, &plain), 0);
	CHECK_EQ_INT(kvs_read(s, pf_read, &hinted), 0);
	for (i = 0; i < PF_KEYS; i++) {
		CHECK_EQ_INT(plain.count[i], 13 * i);
		CHECK_EQ_INT(plain.rows[i], 35 * i);
		CHECK_EQ_INT(plain.walked[i], 13 * i <= PF_MAX ? 13 * i : 0);
		CHECK_EQ_INT(hinted.count[i], plain.count[i]);
		CHECK_EQ_INT(hinted.walked[i], plain.walked[i]);
		CHECK_EQ_INT(hinted.sum[i], plain.sum[i]);
		CHECK_EQ_INT(hinted.rows[i], plain.rows[i]);
	}
	CHECK_EQ_INT(hinted.count[PF_KEYS], 0);
	CHECK_EQ_INT(hinted.rows[PF_KEYS], 0);
	kvs_free(s);
}

/* ---- a write's rows put out of order, twice, then removed ---- */

static int unsorted_put(struct kvs_tx *tx, void *arg)
{
	static const uint8_t order[] = { 9, 3, 7, 3, 1, 8, 0, 5, 9, 2 };
	struct kvs_cur *c = NULL;
	struct kvs_val k, v;
	size_t *seen = arg, i;
	uint8_t key[2] = { 'u', 0 }, val;
	int ret = 0, rc;

	*seen = 0;
	for (i = 0; i < sizeof(order) && ret == 0; i++) {
		key[1] = order[i];
		val = (uint8_t)i;	/* the later put of 3 and 9 wins */
		ret = kvs_put(tx, T_PLAIN, key, 2, &val, 1);
	}
	key[1] = 8;
	if (ret == 0)
		ret = kvs_del(tx, T_PLAIN, key, 2);
	if (ret == 0)
		ret = kvs_cur_open(tx, T_PLAIN, &c);
	/* 0 1 2 3 5 7 9, in order, each once */
	for (rc = ret ? -ENOENT : kvs_cur_seek(c, "u", 1, &k, &v); rc == 0;
	     rc = kvs_cur_next(c, &k, &v)) {
		static const uint8_t want[] = { 0, 1, 2, 3, 5, 7, 9 }, wantv[] = { 6, 4, 9, 3, 7, 2, 8 };

		if (*seen >= sizeof(want) || k.len != 2 || ((const uint8_t *)k.data)[1] != want[*seen] ||
		    v.len != 1 || *(const uint8_t *)v.data != wantv[*seen])
			ret = -EIO;
		++*seen;
	}
	kvs_cur_close(c);
	return ret;
}

static int unsorted_check(struct kvs_tx *tx, void *arg)
{
	uint64_t n = 0;
	struct kvs_val v;
	int ret = kvs_rows(tx, T_PLAIN, &n);

	*(uint64_t *)arg = n;
	if (ret == 0 && kvs_get(tx, T_PLAIN, "u\x09", 2, &v) == 0 &&
	    (v.len != 1 || *(const uint8_t *)v.data != 8))
		ret = -EIO;
	if (ret == 0 && kvs_get(tx, T_PLAIN, "u\x08", 2, &v) != -ENOENT)
		ret = -EIO;
	return ret;
}

static void test_unsorted_write(void)
{
	struct kvs *s = store_open(0);
	size_t seen = 0;
	uint64_t rows = 0;

	REQUIRE(s);
	CHECK_EQ_INT(kvs_write(s, unsorted_put, &seen), 0);
	CHECK_EQ_INT(seen, 7);
	CHECK_EQ_INT(kvs_read(s, unsorted_check, &rows), 0);
	CHECK_EQ_INT(rows, 7);
	kvs_free(s);
}

/* ---- two handles: the write that loses the race runs again ---- */

struct race_arg {
	struct kvs *other;
	int runs, inner;
};

/* The counter (0 when absent), or -errno. */
static int counter(struct kvs_tx *tx, uint32_t *n)
{
	struct kvs_val v;
	int ret = kvs_get(tx, T_OTHER, "count", 5, &v);

	*n = 0;
	if (ret == -ENOENT)
		return 0;
	if (ret == 0 && v.len != 4)
		return -EIO;
	if (ret == 0)
		memcpy(n, v.data, 4);
	return ret;
}

static int bump(struct kvs_tx *tx, void *arg)
{
	uint32_t n;
	int ret = counter(tx, &n);

	(void)arg;
	if (ret)
		return ret;
	n++;
	return kvs_put(tx, T_OTHER, "count", 5, &n, 4);
}

/* Reads the counter, then lets the other handle commit before its own
 * commit (on its first run only): its WATCH fails, it runs again. */
static int racing(struct kvs_tx *tx, void *arg)
{
	struct race_arg *a = arg;
	int ret = bump(tx, NULL);

	if (a->runs++ == 0)
		a->inner = kvs_write(a->other, bump, NULL);
	return ret;
}

static int count_of(struct kvs_tx *tx, void *arg)
{
	uint32_t n;
	int ret = counter(tx, &n);

	(void)arg;
	return ret ? ret : (int)n;
}

static void test_conflict(void)
{
	struct kvs *s = store_open(0), *t = s ? open_ns(ns_last) : NULL;
	struct race_arg a = { t, 0, -1 };
	uint64_t g;

	REQUIRE(s && t);
	CHECK_EQ_INT(kvs_write(s, racing, &a), 0);
	CHECK_EQ_INT(a.inner, 0);
	CHECK_EQ_INT(a.runs, 2);
	CHECK_EQ_INT(kvs_read(s, count_of, NULL), 2);	/* both landed */
	CHECK_EQ_INT(kvs_read(t, count_of, NULL), 2);
	/* the generation follows the other handle's commits after a read */
	g = kvs_generation(s);
	CHECK_EQ_INT(kvs_write(t, bump, NULL), 0);
	CHECK_EQ_INT(kvs_read(s, count_of, NULL), 3);
	CHECK(kvs_generation(s) > g);
	kvs_free(t);
	kvs_free(s);
}

/* ---- reads never see half a write ---- */

#define SNAP_ITER 300

struct pair_arg {
	struct kvs *s;
	uint32_t i;
	int torn, reads, err;
};

/* Writes i under "a", "b" and a key of its own, in one transaction. */
static int pair_put(struct kvs_tx *tx, void *arg)
{
	const struct pair_arg *p = arg;
	uint8_t key[5] = { 'k' };
	int ret = kvs_put(tx, T_PLAIN, "a", 1, &p->i, 4);

	memcpy(key + 1, &p->i, 4);
	if (ret == 0)
		ret = kvs_put(tx, T_PLAIN, key, 5, &p->i, 4);
	if (ret == 0)
		ret = kvs_put(tx, T_PLAIN, "b", 1, &p->i, 4);
	return ret;
}

/* "a" and "b" equal, and as many 'k' rows as the value says. */
static int pair_check(struct kvs_tx *tx, void *arg)
{
	struct kvs_val va, vb;
	uint32_t a = 0, b = 0;
	uint64_t rows = 0;
	int ret = kvs_get(tx, T_PLAIN, "a", 1, &va);

	(void)arg;
	if (ret == -ENOENT)
		return 0;
	if (ret == 0 && va.len == 4)
		memcpy(&a, va.data, 4);
	if (ret == 0)
		ret = kvs_rows(tx, T_PLAIN, &rows);
	if (ret == 0)
		ret = kvs_get(tx, T_PLAIN, "b", 1, &vb);
	if (ret == 0 && vb.len == 4)
		memcpy(&b, vb.data, 4);
	if (ret)
		return ret;
	return a == b && rows == (uint64_t)a + 2 ? 0 : 1;
}

static void *writer_main(void *p)
{
	struct pair_arg *w = p;

	for (w->i = 1; w->i <= SNAP_ITER && !w->err; w->i++)
		w->err = kvs_write(w->s, pair_put, w);
	return NULL;
}

/* The reader shares the writer's handle: from its fourth run on, a read
 * holds the handle's commits off, so it never gives up (-EAGAIN). */
static void test_snapshot_threads(void)
{
	struct kvs *s = store_open(0), *t = s ? open_ns(ns_last) : NULL;
	struct pair_arg w = { s, 0, 0, 0, 0 }, r = { s, 0, 0, 0, 0 };
	pthread_t th;
	int i, ret;

	REQUIRE(s && t);
	REQUIRE(pthread_create(&th, NULL, writer_main, &w) == 0);
	for (i = 0; i < SNAP_ITER; i++) {
		ret = kvs_read(s, pair_check, NULL);
		if (ret > 0)
			r.torn++;
		else if (ret < 0)
			r.err = ret;
	}
	pthread_join(th, NULL);
	CHECK_EQ_INT(w.err, 0);
	CHECK_EQ_INT(r.err, 0);
	CHECK_EQ_INT(r.torn, 0);
	CHECK_EQ_INT(kvs_read(t, pair_check, NULL), 0);
	kvs_free(t);
	kvs_free(s);
}

/* ---- kvs_watch(): another handle's commits are heard ---- */

static atomic_int heard_n;

static void heard_fn(void *arg)
{
	(void)arg;
	atomic_fetch_add(&heard_n, 1);
}

/* Waits (up to 10 s, in 10 ms steps) for the watcher to have heard n. */
static int heard_at_least(int n)
{
	struct timespec ts = { 0, 10 * 1000000L };
	int i;

	for (i = 0; i < 1000 && atomic_load(&heard_n) < n; i++)
		nanosleep(&ts, NULL);
	return atomic_load(&heard_n) >= n;
}

static void test_watch(void)
{
	struct kvs *s = store_open(0), *t = s ? open_ns(ns_last) : NULL;
	uint64_t g;
	int base;

	REQUIRE(s && t);
	REQUIRE(kvs_watch(t, heard_fn, NULL) == 0);
	CHECK_EQ_INT(kvs_watch(t, heard_fn, NULL), -EBUSY);
	/* the subscription's start is news too (msg NULL): count from there */
	REQUIRE(heard_at_least(1));
	base = atomic_load(&heard_n);
	g = kvs_generation(t);
	CHECK_EQ_INT(kvs_write(s, bump, NULL), 0);
	CHECK(heard_at_least(base + 1));
	/* t read nothing: the message moved its generation */
	CHECK(kvs_generation(t) > g);
	CHECK_EQ_INT(kvs_generation(t), kvs_generation(s));
	/* t's own commit is not news to t */
	base = atomic_load(&heard_n);
	CHECK_EQ_INT(kvs_write(t, bump, NULL), 0);
	CHECK_EQ_INT(kvs_write(s, bump, NULL), 0);
	CHECK(heard_at_least(base + 1));
	CHECK_EQ_INT(atomic_load(&heard_n), base + 1);
	kvs_free(t);
	kvs_free(s);
}

/* ---- URIs ---- */

static void test_bad_uri(void)
{
	struct kvs *s = (struct kvs *)&s;
	char why[256] = "";

	CHECK_EQ_INT(kvs_redis_open("redis://127.0.0.1:99999/x", &s, why, sizeof(why)), -EINVAL);
	CHECK(s == NULL);
	CHECK(strstr(why, "redis://127.0.0.1:99999/x") != NULL);
	CHECK_EQ_INT(kvs_redis_open("redis://127.0.0.1:1/{x}", &s, why, sizeof(why)), -EINVAL);
}

/* ---- the server out of reach, and back (kvs_health()) ---- */

static atomic_int away_heard;

static void away_fn(void *arg)
{
	(void)arg;
	atomic_fetch_add(&away_heard, 1);
}

static int away_put(struct kvs_tx *tx, void *arg)
{
	(void)arg;
	return kvs_put(tx, 0, "k", 1, "v", 1);
}

static int away_read(struct kvs_tx *tx, void *arg)
{
	struct kvs_val v;

	(void)arg;
	return kvs_get(tx, 0, "k", 1, &v);
}

static int away_get(int ret, const struct kvs_val *v, void *arg)
{
	(void)v;
	(void)arg;
	return ret;
}

/* Starts our server again on the same port (it has no persistence: empty). */
static int away_restart(void)
{
	char ps[16];

	snprintf(ps, sizeof(ps), "%d", port);
	redisrv_pid = fork();
	if (redisrv_pid < 0)
		return -1;
	if (redisrv_pid == 0) {
		freopen("/dev/null", "w", stdout);
		execlp("redis-server", "redis-server", "--port", ps, "--bind", "127.0.0.1", "--save",
		       "", "--appendonly", "no", "--protected-mode", "no", (char *)NULL);
		_exit(127);
	}
	return redisrv_wait(port);
}

/* Last: it stops the server.  A transport error marks the store out of
 * reach; then every transaction fails at once, the watcher hears of it,
 * and the store comes back by itself once the server answers. */
static void test_server_away(void)
{
	struct kvs *s = store_open(0);
	struct timespec ts = { 0, 100 * 1000000L };
	char why[256] = "";
	int64_t since = 0;
	int ret, i;

	REQUIRE(s);
	CHECK_EQ_INT(kvs_health(s, why, sizeof(why), &since), 0);
	REQUIRE(kvs_watch(s, away_fn, NULL) == 0);
	CHECK_EQ_INT(kvs_write(s, away_put, NULL), 0);
	atomic_store(&away_heard, 0);
	redisrv_stop();
	ret = kvs_read_get(s, 0, "k", 1, away_get, NULL);
	CHECK(ret < 0 && ret != -ENOENT && ret != -EHOSTDOWN);
	CHECK_EQ_INT(kvs_health(s, why, sizeof(why), &since), 1);
	CHECK(since > 0);
	CHECK(strstr(why, "refused") != NULL);
	CHECK(atomic_load(&away_heard) >= 1);
	CHECK_EQ_INT(kvs_read_get(s, 0, "k", 1, away_get, NULL), -EHOSTDOWN);
	CHECK_EQ_INT(kvs_write(s, away_put, NULL), -EHOSTDOWN);
	CHECK_EQ_INT(kvs_read(s, away_read, NULL), -EHOSTDOWN);
	REQUIRE(away_restart() == 0);
	/* the prober's pause is 3.2 s at most: 20 s is plenty */
	for (i = 0; i < 200 && kvs_health(s, NULL, 0, NULL); i++)
		nanosleep(&ts, NULL);
	CHECK_EQ_INT(kvs_health(s, NULL, 0, NULL), 0);
	CHECK(atomic_load(&away_heard) >= 2);
	CHECK_EQ_INT(kvs_write(s, away_put, NULL), 0);
	CHECK_EQ_INT(kvs_read_get(s, 0, "k", 1, away_get, NULL), 0);
	kvs_free(s);
}

/* What counts as the server out of reach (kvs_health(), the opener's
 * retries): connection and timeout errors, not the answers of a server. */
static void test_transport_errors(void)
{
	static const int out[] = { ECONNREFUSED, ECONNRESET, ECONNABORTED, EHOSTUNREACH,
				   EHOSTDOWN, ENETUNREACH, ETIMEDOUT, EPIPE, ENOTCONN };
	static const int not[] = { 0, EIO, ENOMEM, EINVAL, EAGAIN, ENOENT, EACCES };
	size_t i;

	for (i = 0; i < sizeof(out) / sizeof(out[0]); i++)
		CHECK_EQ_INT(rcl_transport_error(-out[i]), 1);
	for (i = 0; i < sizeof(not) / sizeof(not[0]); i++)
		CHECK_EQ_INT(rcl_transport_error(-not[i]), 0);
}

int main(void)
{
	port = redisrv_need();
	RUN(test_transport_errors);
	RUN(test_rows);
	RUN(test_ordered);
	RUN(test_dup);
	RUN(test_failed_write);
	RUN(test_clear);
	RUN(test_read_own_writes);
	RUN(test_prefetch);
	RUN(test_unsorted_write);
	RUN(test_conflict);
	RUN(test_snapshot_threads);
	RUN(test_watch);
	RUN(test_bad_uri);
	RUN(test_server_away);
	return CHECK_DONE();
}
