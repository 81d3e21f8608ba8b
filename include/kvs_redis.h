/* kvs_redis.h - the Redis backend of kvs.h (kvs_redis.c), on the Redis
 * and Redis Cluster client rcl.h.
 *
 * Layout: every key of one library carries the hash tag {NS} (NS: the
 * URI's namespace, "simbook" when it names none), so the whole library is
 * one slot: one master holds it (many libraries spread over a cluster) and
 * every transaction is one slot's WATCH/MULTI/EXEC.
 *   {NS}:v      the version: INCRed by every commit (kvs_generation())
 *   {NS}:z:T    table T's keys, a sorted set of score 0 (members in
 *               memcmp() order: ZRANGEBYLEX serves seek and next)
 *   {NS}:h:T    table T's values, a hash key -> value
 * A dup table is its sorted set alone, of members key || value: a key's
 * values are one lexicographic range (ZLEXCOUNT counts them).
 *
 * Writes: fn's puts and dels are kept in memory (reads in the write see
 * them), then one WATCH {NS}:v ... MULTI ... INCR {NS}:v EXEC; a WATCH
 * that fails (another writer committed) runs fn again from scratch, as
 * kvs.h allows.  Writers of one handle take turns (one in-process lock).
 * Reads: {NS}:v before and after fn; fn runs again when it moved (a
 * snapshot is a run no commit overlapped).  From the fourth run on, a read
 * holds off this handle's own commits while it runs; after KVS_REDIS_READS
 * runs it gives -EAGAIN.  A read fn must not write through the same handle.
 * kvs_sync() has nothing to do: durability is the server's configuration.
 * A server out of reach (kvs_health(), kvs_redis_health.c): transactions
 * fail at once with -EHOSTDOWN until a prober thread reaches it again.
 */
#ifndef KVS_REDIS_H
#define KVS_REDIS_H

#include <stddef.h>

#include "kvs.h"

#define KVS_REDIS_READS 32
#define KVS_REDIS_WRITES 64

/* Connects to the redis:// URI text and makes a store of its namespace
 * (*out: kvs_free()).  Returns 0, -EINVAL for a URI that does not parse,
 * or the client's -errno; why (size n, may be NULL) gets a reason. */
int kvs_redis_open(const char *uri, struct kvs **out, char *why, size_t n);

#endif
