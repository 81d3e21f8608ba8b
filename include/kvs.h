/* kvs.h - the ordered key-value store under the index (private to
 * src/index, like idx_i.h): the one seam between the index's table logic
 * (idx_*.c) and the engine that keeps its tables.  The LMDB backend is
 * kvs_lmdb.c (kvs_lmdb.h); the table logic includes only this header, so a
 * backend that implements these calls gives the same answers.
 *
 * A store holds one library's tables, numbered 0 .. KVS_TABLES - 1 (the
 * index's DB_* ids).  Keys and values are byte strings; a table's keys are
 * kept in memcmp() order (a shorter key before a longer one it prefixes).
 * Keys are 1 .. KVS_KEY_MAX bytes.  A "dup" table (the index's uqkey) holds
 * several fixed-size values per key, kept in memcmp() order, and is used
 * only through the kvs_dup_* calls.
 *
 * Transactions.  Every access happens inside a function the store runs:
 *  - kvs_write(): fn runs in one atomic write transaction (one writer at a
 *    time); committed when fn returns >= 0, nothing kept when it returns
 *    < 0.  The store may abort and run fn AGAIN from scratch (LMDB: the map
 *    was full, it grows it first; another backend: an optimistic conflict),
 *    so fn must not keep state from one run to the next except through the
 *    store, and must reset what it reports at its start.
 *  - kvs_read(): fn sees one consistent snapshot; writes committed after it
 *    began are not seen.  The store may run fn again (a backend that checks
 *    its snapshot at the end), so fn resets its outputs at its start.
 * Both return fn's result, or a -errno of the store.
 *
 * Values (struct kvs_val) point into the store's memory: valid until the
 * transaction ends or the next write in it (copy them out before a put or
 * del in the same write transaction).  Never written through.
 *
 * Errors are -errno: -ENOENT (no such key, or a cursor at the end),
 * -ENOSPC (the store is full), -EAGAIN, -ENOMEM, -EINVAL (a key or value
 * the store refuses), -EIO (damage, a failed transaction).
 */
#ifndef KVS_H
#define KVS_H

#include <stddef.h>
#include <stdint.h>

#define KVS_TABLES 16
#define KVS_KEY_MAX 511

struct kvs;
struct kvs_tx;
struct kvs_cur;

struct kvs_val {
	const void *data;
	size_t len;
};

typedef int (*kvs_fn)(struct kvs_tx *tx, void *arg);

/* Runs fn in one write transaction (see above): fn's result or -errno. */
int kvs_write(struct kvs *s, kvs_fn fn, void *arg);
/* Runs fn on one snapshot (see above): fn's result or -errno. */
int kvs_read(struct kvs *s, kvs_fn fn, void *arg);

/* The cheap one-lookup read: fn gets the lookup's result (0 or -errno,
 * -ENOENT when absent) and, when 0, the value (copy it out: it lives only
 * during the call); returns what fn returns, or the store's -errno. */
typedef int (*kvs_get_fn)(int ret, const struct kvs_val *v, void *arg);
int kvs_read_get(struct kvs *s, int table, const void *k, size_t klen, kvs_get_fn fn,
		 void *arg);

/* 0 and *v, or -ENOENT when k is absent. */
int kvs_get(struct kvs_tx *tx, int table, const void *k, size_t klen, struct kvs_val *v);
/* Sets k's value (v may be NULL when vlen is 0). */
int kvs_put(struct kvs_tx *tx, int table, const void *k, size_t klen, const void *v,
	    size_t vlen);
/* Removes k; a missing key is not an error. */
int kvs_del(struct kvs_tx *tx, int table, const void *k, size_t klen);
/* The number of rows of a table (a dup table: of values). */
int kvs_rows(struct kvs_tx *tx, int table, uint64_t *n);
/* Removes every row of a table (write transactions only). */
int kvs_clear(struct kvs_tx *tx, int table);

/* Cursors, in key order; one lives inside its transaction (close it before
 * fn returns).  seek: the first row whose key is >= k (k NULL or klen 0:
 * the first row); next: the row after.  0 with *key and *val, or -ENOENT
 * past the end.  Not for dup tables. */
int kvs_cur_open(struct kvs_tx *tx, int table, struct kvs_cur **c);
void kvs_cur_close(struct kvs_cur *c);
int kvs_cur_seek(struct kvs_cur *c, const void *k, size_t klen, struct kvs_val *key,
		 struct kvs_val *val);
int kvs_cur_next(struct kvs_cur *c, struct kvs_val *key, struct kvs_val *val);

/* Dup tables.  add: value v (vlen bytes, the table's value size) under each
 * of nkeys keys of klen bytes packed at keys; a pair already there is not
 * an error.  del: v from under each key; a missing pair is not an error. */
int kvs_dup_add(struct kvs_tx *tx, int table, const void *keys, size_t klen, size_t nkeys,
		const void *v, size_t vlen);
int kvs_dup_del(struct kvs_tx *tx, int table, const void *keys, size_t klen, size_t nkeys,
		const void *v, size_t vlen);
/* Puts c (a cursor of a dup table) on key k and counts its values without
 * reading them: 0 and *n (0 when k is absent: then c is on no key). */
int kvs_dup_count(struct kvs_cur *c, const void *k, size_t klen, size_t *n);
/* Hints for a backend that pays a round trip per lookup (Redis: it fetches
 * what the hint names at once, kept until the transaction ends; LMDB does
 * nothing).  keys need not outlive the call; 0 or -errno.
 * kvs_dup_prefetch(): the next kvs_dup_count() calls of c are on these
 * nkeys keys of klen bytes packed at keys (in that order, best), and the
 * values of those with at most max values will be walked.  The answers are
 * the same with or without it.
 * kvs_cur_prefetch(): the next seeks of c are at these nkeys keys, and
 * read only the rows whose key begins with the seek key's first plen bytes
 * (plen <= klen): after such a seek the cursor may end (-ENOENT) after
 * the last of those rows. */
int kvs_dup_prefetch(struct kvs_cur *c, const void *keys, size_t klen, size_t nkeys,
		     size_t max);
int kvs_cur_prefetch(struct kvs_cur *c, const void *keys, size_t klen, size_t nkeys,
		     size_t plen);
/* Calls fn with the values of the key kvs_dup_count() put c on, in order,
 * in runs of n values of vlen bytes packed at vals (valid during the call).
 * fn returns 0 to go on, > 0 to stop (0 returned), < 0 to stop with that
 * error.  Only after a kvs_dup_count() that found values. */
typedef int (*kvs_dup_fn)(const uint8_t *vals, size_t n, size_t vlen, void *arg);
int kvs_dup_walk(struct kvs_cur *c, kvs_dup_fn fn, void *arg);

/* Closes the store and frees s (NULL: nothing to do). */
void kvs_free(struct kvs *s);
/* Calls fn(arg), on a thread of the store's, each time another handle of
 * the same store (another process, another machine) has committed, and
 * when the store may have missed such news (a lost connection back):
 * kvs_generation() has moved before; and when its server went out of
 * reach or came back (kvs_health()).  One watcher per store, until
 * kvs_free().  0, -EOPNOTSUPP (a store no other process writes: LMDB),
 * or -errno. */
int kvs_watch(struct kvs *s, void (*fn)(void *arg), void *arg);
/* Whether the store's server can be reached: 0, or 1 with why (the error
 * that took it away, in n bytes; may be NULL) and *since (when, seconds
 * since the epoch; may be NULL).  While 1, kvs_write(), kvs_read() and
 * kvs_read_get() fail at once with -EHOSTDOWN (never waiting on the
 * network) and a thread of the store's tries the server again with a
 * growing pause; the kvs_watch() function runs when it goes and when it
 * is back.  An embedded store (LMDB) is always 0. */
int kvs_health(struct kvs *s, char *why, size_t n, int64_t *since);

/* A claim on a piece of work (name, len bytes) among the processes sharing
 * the store, so that several of them (the mounts of one library) do not
 * all do it: taken for ttl_ms unless another handle holds it.  1: taken
 * (or renewed: this handle held it), 0: another handle's, which ends
 * within *left_ms at the latest (it expires when its holder dies before
 * giving it up), -EOPNOTSUPP (a store only one process writes: LMDB), or
 * -errno (the server unreachable). */
int kvs_claim(struct kvs *s, const void *name, size_t len, unsigned ttl_ms, unsigned *left_ms);
/* Gives up this handle's claim on name; another's is left alone. */
void kvs_unclaim(struct kvs *s, const void *name, size_t len);
/* Makes every committed write durable: 0 or -errno. */
int kvs_sync(struct kvs *s);
/* A number that changes with every committed write (for caches). */
uint64_t kvs_generation(struct kvs *s);

#endif
