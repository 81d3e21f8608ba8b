/* kvs.c - kvs.h's calls, routed to the backend that made the handle
 * (kvs_ops.h: every store, transaction and cursor starts with its table). */
#include <errno.h>

#include "kvs_ops.h"

#include <errno.h>

#define OPS(p) (*(const struct kvs_ops *const *)(const void *)(p))

int kvs_write(struct kvs *s, kvs_fn fn, void *arg)
{
	return OPS(s)->write(s, fn, arg);
}

int kvs_read(struct kvs *s, kvs_fn fn, void *arg)
{
	return OPS(s)->read(s, fn, arg);
}

int kvs_read_get(struct kvs *s, int table, const void *k, size_t klen, kvs_get_fn fn,
		 void *arg)
{
	return OPS(s)->read_get(s, table, k, klen, fn, arg);
}

int kvs_get(struct kvs_tx *tx, int table, const void *k, size_t klen, struct kvs_val *v)
{
	return OPS(tx)->get(tx, table, k, klen, v);
}

int kvs_put(struct kvs_tx *tx, int table, const void *k, size_t klen, const void *v,
	    size_t vlen)
{
	return OPS(tx)->put(tx, table, k, klen, v, vlen);
}

int kvs_del(struct kvs_tx *tx, int table, const void *k, size_t klen)
{
	return OPS(tx)->del(tx, table, k, klen);
}

int kvs_rows(struct kvs_tx *tx, int table, uint64_t *n)
{
	return OPS(tx)->rows(tx, table, n);
}

int kvs_clear(struct kvs_tx *tx, int table)
{
	return OPS(tx)->clear(tx, table);
}

int kvs_cur_open(struct kvs_tx *tx, int table, struct kvs_cur **c)
{
	return OPS(tx)->cur_open(tx, table, c);
}

void kvs_cur_close(struct kvs_cur *c)
{
	if (c)
		OPS(c)->cur_close(c);
}

int kvs_cur_seek(struct kvs_cur *c, const void *k, size_t klen, struct kvs_val *key,
		 struct kvs_val *val)
{
	return OPS(c)->cur_seek(c, k, klen, key, val);
}

int kvs_cur_next(struct kvs_cur *c, struct kvs_val *key, struct kvs_val *val)
{
	return OPS(c)->cur_next(c, key, val);
}

int kvs_dup_add(struct kvs_tx *tx, int table, const void *keys, size_t klen, size_t nkeys,
		const void *v, size_t vlen)
{
	return OPS(tx)->dup_add(tx, table, keys, klen, nkeys, v, vlen);
}

int kvs_dup_del(struct kvs_tx *tx, int table, const void *keys, size_t klen, size_t nkeys,
		const void *v, size_t vlen)
{
	return OPS(tx)->dup_del(tx, table, keys, klen, nkeys, v, vlen);
}

int kvs_dup_count(struct kvs_cur *c, const void *k, size_t klen, size_t *n)
{
	return OPS(c)->dup_count(c, k, klen, n);
}

int kvs_dup_prefetch(struct kvs_cur *c, const void *keys, size_t klen, size_t nkeys,
		     size_t max)
{
	return OPS(c)->prefetch ? OPS(c)->prefetch(c, keys, klen, nkeys, max, 1) : 0;
}

int kvs_cur_prefetch(struct kvs_cur *c, const void *keys, size_t klen, size_t nkeys,
		     size_t plen)
{
	if (plen > klen)
		return -EINVAL;
	return OPS(c)->prefetch ? OPS(c)->prefetch(c, keys, klen, nkeys, plen, 0) : 0;
}

int kvs_dup_walk(struct kvs_cur *c, kvs_dup_fn fn, void *arg)
{
	return OPS(c)->dup_walk(c, fn, arg);
}

int kvs_sync(struct kvs *s)
{
	return OPS(s)->sync(s);
}

uint64_t kvs_generation(struct kvs *s)
{
	return OPS(s)->generation(s);
}

int kvs_watch(struct kvs *s, void (*fn)(void *arg), void *arg)
{
	return OPS(s)->watch(s, fn, arg);
}

int kvs_claim(struct kvs *s, const void *name, size_t len, unsigned ttl_ms, unsigned *left_ms)
{
	*left_ms = 0;
	return OPS(s)->claim ? OPS(s)->claim(s, name, len, ttl_ms, left_ms) : -EOPNOTSUPP;
}

void kvs_unclaim(struct kvs *s, const void *name, size_t len)
{
	if (OPS(s)->unclaim)
		OPS(s)->unclaim(s, name, len);
}

void kvs_free(struct kvs *s)
{
	if (s)
		OPS(s)->free(s);
}

int kvs_health(struct kvs *s, char *why, size_t n, int64_t *since)
{
	return OPS(s)->health ? OPS(s)->health(s, why, n, since) : 0;
}
