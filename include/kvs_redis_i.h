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

/* kvs_claim() of KEYS[1] for handle ARGV[1], ARGV[2] ms: -1 taken (or
 * renewed), else the ms left of another's claim (0: it just ended).
 * kvs_unclaim(): deleted only when still the handle's own. */
#define RD_CLAIM_LUA \
	"local v = redis.call('GET', KEYS[1]) " \
	"if v == false or v == ARGV[1] then " \
	"redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return -1 end " \
	"local t = redis.call('PTTL', KEYS[1]) " \
	"if t < 0 then return 0 end return t"
#define RD_UNCLAIM_LUA \
	"if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end return 0"

struct kvs_redis {
	const struct kvs_ops *ops;	/* first: kvs_ops.h */
	struct rcl *c;
	struct rcl_script *fetch;	/* RD_FETCH_LUA */
	struct rcl_script *claim, *unclaim;	/* RD_CLAIM_LUA, RD_UNCLAIM_LUA */
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
	void (*watch_fn)(void *arg);	/* set under hlock */
	void *watch_arg;
	/* kvs_redis_health.c: the server out of reach (kvs_health()) from a
	 * transport error until a probe reaches it again */
	atomic_int down;
	pthread_mutex_t hlock;		/* the fields below, watch_fn */
	pthread_cond_t hcond;		/* wakes the prober: down, or stop */
	char why[256];			/* the error that took it down */
	int64_t since;			/* when (seconds since the epoch) */
	char *uri;			/* what the prober connects to */
	pthread_t prober;
	int has_prober, hstop;
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

/* kvs_redis_health.c.  init: hcond (0 or -errno; hlock is the caller's).
 * Starts the prober (s->uri set, s->c open): 0 or
 * -errno; stop: before s->c goes (NULL-safe on a handle never started). */
int rd_health_init(struct kvs_redis *s);
int rd_health_start(struct kvs_redis *s);
void rd_health_stop(struct kvs_redis *s);
/* At the start of a transaction: -EHOSTDOWN while the server is out of
 * reach (no wait), else 0. */
int rd_gate(struct kvs_redis *s);
/* At its end: ret, after marking the server out of reach when ret is a
 * transport error (no node answered until the client's deadline). */
int rd_seen(struct kvs_redis *s, int ret);
int rd_health(struct kvs *kv, char *why, size_t n, int64_t *since);

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

/* kvs_claim() and kvs_unclaim() (kvs_redis_claim.c): the key {NS}:c:NAME
 * holds the claiming handle's id, with an expiry. */
int rd_claim(struct kvs *kv, const void *name, size_t len, unsigned ttl_ms, unsigned *left_ms);
void rd_unclaim(struct kvs *kv, const void *name, size_t len);

#endif
