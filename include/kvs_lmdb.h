/* kvs_lmdb.h - the LMDB backend of kvs.h (kvs_lmdb.c), and what the LMDB
 * file's own matters need of it: the index's open, schema check, upgrade
 * and rebuild (idx.c, idx_rebuild.c) reach the environment through the
 * handle below.  Only those files and kvs_lmdb.c include this header (and
 * so <lmdb.h>); the table logic sees kvs.h alone.
 *
 * One environment, its tables as MDB_dbi handles by table id (opened by
 * the caller, kvs_lmdb_dbi_open()), one writer at a time (wlock), the map
 * grown under maplock (held shared by every transaction, exclusive to a
 * resize), read transactions MDB_NOTLS, commits MDB_NOSYNC with a flusher
 * thread that syncs within sync_ms of a commit.
 */
#ifndef KVS_LMDB_H
#define KVS_LMDB_H

#include <lmdb.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "kvs_ops.h"

#define KVS_MAP_LIMIT ((uint64_t)1 << 40)

struct kvs {
	const struct kvs_ops *ops;	/* first: kvs_ops.h */
	MDB_env *env;			/* NULL until kvs_lmdb_env_open() */
	MDB_dbi db[KVS_TABLES];
	pthread_mutex_t wlock;		/* one writer at a time */
	pthread_rwlock_t maplock;	/* held shared by every txn, exclusive to resize */
	/* the flusher: fdatasync within sync_ms of a commit */
	pthread_t flusher;
	pthread_mutex_t flock;
	pthread_cond_t fcond;
	int dirty, stopping, has_flusher;
	uint32_t sync_ms;
};

/* A transaction: txn is LMDB's (the open path opens tables in it). */
struct kvs_tx {
	const struct kvs_ops *ops;	/* first: kvs_ops.h */
	struct kvs *s;
	MDB_txn *txn;
	int mapfull;	/* a put hit the map's end: grow it and run again */
};

/* An MDB_val over len bytes at p (LMDB does not write through it). */
static inline MDB_val kvs_mval(const void *p, size_t len)
{
	MDB_val v;

	v.mv_data = (void *)(uintptr_t)p;
	v.mv_size = len;
	return v;
}

/* An LMDB return code as 0 or -errno: the one place they are converted. */
int idx_err(int rc);

/* A store with no environment yet (*out: kvs_lmdb_free() it): 0 or -errno. */
int kvs_lmdb_new(struct kvs **out, uint32_t sync_ms);
/* Stops the flusher, closes the environment (if open) and frees s. */
void kvs_lmdb_free(struct kvs *s);
/* Opens the environment of folder dir (MDB_NOTLS | MDB_NOSYNC | flags) and
 * frees the reader slots of dead processes.  Returns LMDB's code, raw: the
 * caller tells a damaged or foreign file from other errors. */
int kvs_lmdb_env_open(struct kvs *s, const char *dir, uint64_t map_size, unsigned flags);
void kvs_lmdb_env_close(struct kvs *s);
/* Opens (flags: MDB_CREATE, MDB_DUPSORT | MDB_DUPFIXED for a dup table)
 * table id's handle as name in tx.  Raw LMDB code, as above. */
int kvs_lmdb_dbi_open(struct kvs_tx *tx, int table, const char *name, unsigned flags);
/* Starts the flusher thread: 0 or -errno; stop: none started, nothing to do. */
int kvs_lmdb_flusher_start(struct kvs *s);
void kvs_lmdb_flusher_stop(struct kvs *s);

#endif
