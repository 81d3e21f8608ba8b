/* kvs_redis_i.h - what the Redis store's files (kvs_redis.c: the handle,
 * transactions, rows; kvs_redis_cur.c: cursors, dup tables) share;
 * private to them. */
#ifndef KVS_REDIS_I_H
#define KVS_REDIS_I_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "kvs_ops.h"
#include "kvs_redis.h"
#include "rcl.h"

/* the namespace of a URI that names none */
#define KVS_REDIS_NS "simbook"
#define RD_NAME_MAX (RCLURI_MAX_NS + 32)

/* Rows of a table from ARGV[1] (a ZRANGEBYLEX bound) up to ARGV[2], at
 * most ARGV[3] of them: { keys } (ARGV[4] "0": a dup table's members) or
 * { keys, values }, in one round trip.  ARGV[4] "c": { count } of the
 * whole range, then its first members when there are any (a dup key's
 * count and first values in one round trip). */
#define RD_FETCH_LUA \
	"if ARGV[4] == 'c' then " \
	"local n = redis.call('ZLEXCOUNT', KEYS[1], ARGV[1], ARGV[2]) " \
	"if n == 0 then return {n} end " \
	"return {n, redis.call('ZRANGEBYLEX', KEYS[1], ARGV[1], ARGV[2], 'LIMIT', 0, ARGV[3])} " \
	"end " \
	"local k = redis.call('ZRANGEBYLEX', KEYS[1], ARGV[1], ARGV[2], 'LIMIT', 0, ARGV[3]) " \
	"if ARGV[4] == '0' or #k == 0 then return {k} end " \
	"return {k, redis.call('HMGET', KEYS[2], unpack(k))}"

struct kvs_redis {
	const struct kvs_ops *ops;	/* first: kvs_ops.h */
	struct rcl *c;
	struct rcl_script *fetch;	/* RD_FETCH_LUA */
	struct rcl_session *sess;	/* the writers' WATCH/MULTI/EXEC, under wlock */
	pthread_mutex_t wlock;		/* one writer of this handle at a time */
	pthread_rwlock_t clock;		/* EXEC exclusive; a read's late runs shared */
	_Atomic uint64_t gen;		/* the version key, last seen */
	char vkey[RD_NAME_MAX];		/* {NS}:v (also the slot's routing key) */
	size_t vkeylen;
	char zkey[KVS_TABLES][RD_NAME_MAX], hkey[KVS_TABLES][RD_NAME_MAX];
	char chan[RD_NAME_MAX];		/* {NS}:changes: "GENERATION HANDLE" a commit */
	size_t chan_len;
	uint64_t self;			/* this handle's id in those messages */
	struct rcl_sub *sub;		/* kvs_watch()'s subscriber */
	void (*watch_fn)(void *arg);
	void *watch_arg;
};

/* One row a write put (del 0) or removed (del 1); key and value owned. */
struct rd_ov {
	uint8_t *k, *v;
	size_t klen, vlen;
	uint64_t seq;	/* when set: of two rows of one key, the later wins */
	int del;
};

/* A table's overlay: rows [0, sorted) in key order, one a key; then rows
 * appended since, in any order (a bulk write's keys come unsorted: kept
 * in order on each put, they cost a memmove each), sorted in on the next
 * lookup (rd_ov_find()); cleared: the server's rows are gone; dup: a dup
 * table (its members have no values). */
struct rd_ovt {
	struct rd_ov *e;
	size_t n, cap, sorted;
	uint64_t seq;
	int cleared, dup;
};

struct rd_tx {
	const struct kvs_ops *ops;	/* first: kvs_ops.h */
	struct kvs_redis *s;
	int write, dirty;
	struct rd_ovt ov[KVS_TABLES];
	struct rcl_reply **kept;	/* replies values point into, freed at the end */
	size_t nkept, capkept;
};

extern const struct kvs_ops rd_ops;

/* memcmp() order, a prefix first. */
int rd_cmp(const void *a, size_t alen, const void *b, size_t blen);
/* Sorts t's appended rows in (the later of one key wins). */
void rd_ov_sort(struct rd_ovt *t);
/* The first overlay entry of t whose key is >= k (t sorted first). */
size_t rd_ov_find(struct rd_ovt *t, const void *k, size_t klen);
/* Sets k's overlay entry (del: a removal); values are copied. */
int rd_ov_set(struct rd_tx *tx, int table, const void *k, size_t klen, const void *v,
	      size_t vlen, int del);
/* How many of table's overlay entries [from, to) the server holds. */
int rd_ov_stored(struct rd_tx *tx, int table, size_t from, size_t to, uint64_t *n);
/* Keeps r until tx ends (freed now on failure): 0 or -ENOMEM. */
int rd_keep(struct rd_tx *tx, struct rcl_reply *r);
/* One command on the library's slot: 0 and *out, or -errno. */
int rd_cmd(struct kvs_redis *s, int argc, const char **argv, const size_t *argvlen,
	   struct rcl_reply **out);

/* kvs_redis_cur.c */
int rd_cur_open(struct kvs_tx *tx, int table, struct kvs_cur **c);
void rd_cur_close(struct kvs_cur *c);
int rd_cur_seek(struct kvs_cur *c, const void *k, size_t klen, struct kvs_val *key,
		struct kvs_val *val);
int rd_cur_next(struct kvs_cur *c, struct kvs_val *key, struct kvs_val *val);
int rd_dup_add(struct kvs_tx *tx, int table, const void *keys, size_t klen, size_t nkeys,
	       const void *v, size_t vlen);
int rd_dup_del(struct kvs_tx *tx, int table, const void *keys, size_t klen, size_t nkeys,
	       const void *v, size_t vlen);
int rd_dup_count(struct kvs_cur *c, const void *k, size_t klen, size_t *n);
int rd_dup_walk(struct kvs_cur *c, kvs_dup_fn fn, void *arg);
int rd_prefetch(struct kvs_cur *c, const void *keys, size_t klen, size_t nkeys, size_t max,
		int dup);

#endif
