/* kvs_ops.h - what a backend of kvs.h provides (private to the index):
 * kvs.c routes every kvs.h call through the handle's table of functions,
 * so the LMDB store (kvs_lmdb.c) and the Redis store (kvs_redis.c) sit
 * side by side behind one interface.
 *
 * The routing needs one rule of every backend: its store, transaction and
 * cursor structures begin with a `const struct kvs_ops *ops` member (C lets
 * a pointer to a structure be read as a pointer to its first member), and
 * nothing else is read through the opaque kvs.h types.
 */
#ifndef KVS_OPS_H
#define KVS_OPS_H

#include "kvs.h"

struct kvs_ops {
	int (*write)(struct kvs *s, kvs_fn fn, void *arg);
	int (*read)(struct kvs *s, kvs_fn fn, void *arg);
	int (*read_get)(struct kvs *s, int table, const void *k, size_t klen, kvs_get_fn fn,
			void *arg);
	int (*get)(struct kvs_tx *tx, int table, const void *k, size_t klen, struct kvs_val *v);
	int (*put)(struct kvs_tx *tx, int table, const void *k, size_t klen, const void *v,
		   size_t vlen);
	int (*del)(struct kvs_tx *tx, int table, const void *k, size_t klen);
	int (*rows)(struct kvs_tx *tx, int table, uint64_t *n);
	int (*clear)(struct kvs_tx *tx, int table);
	int (*cur_open)(struct kvs_tx *tx, int table, struct kvs_cur **c);
	void (*cur_close)(struct kvs_cur *c);
	int (*cur_seek)(struct kvs_cur *c, const void *k, size_t klen, struct kvs_val *key,
			struct kvs_val *val);
	int (*cur_next)(struct kvs_cur *c, struct kvs_val *key, struct kvs_val *val);
	int (*dup_add)(struct kvs_tx *tx, int table, const void *keys, size_t klen, size_t nkeys,
		       const void *v, size_t vlen);
	int (*dup_del)(struct kvs_tx *tx, int table, const void *keys, size_t klen, size_t nkeys,
		       const void *v, size_t vlen);
	int (*dup_count)(struct kvs_cur *c, const void *k, size_t klen, size_t *n);
	int (*dup_walk)(struct kvs_cur *c, kvs_dup_fn fn, void *arg);
	int (*sync)(struct kvs *s);
	uint64_t (*generation)(struct kvs *s);
	int (*watch)(struct kvs *s, void (*fn)(void *arg), void *arg);
	void (*free)(struct kvs *s);
	/* NULL: always reachable */
	int (*health)(struct kvs *s, char *why, size_t n, int64_t *since);
	/* NULL: the store has no claims (kvs_claim() gives -EOPNOTSUPP) */
	int (*claim)(struct kvs *s, const void *name, size_t len, unsigned ttl_ms,
		     unsigned *left_ms);
	void (*unclaim)(struct kvs *s, const void *name, size_t len);
	/* NULL: a backend with nothing to gain from the prefetch hints */
	int (*prefetch)(struct kvs_cur *c, const void *keys, size_t klen, size_t nkeys,
			size_t max, int dup);
};

#endif
