/* idx_i.h - private to the index (src/index/idx*.c): the handle, the
 * transaction helpers, the record codecs and the table ids, shared by the
 * index's files.  The tables live in a key-value store (kvs.h); the table
 * logic reaches them only through it.  The store is LMDB (kvs_lmdb.c):
 * opening it, the schema check, upgrades that need LMDB and the rebuild of
 * a damaged file (idx.c, idx_rebuild.c, idxcheck.c) are the LMDB file's
 * own matters and the only index files besides kvs_lmdb.c that include
 * lmdb.h.
 *
 * Sub-databases and their layouts (integers big-endian, so keys sort the same
 * on every machine and a prefix is a range):
 *   meta    "schema" -> u32, "nextid" -> u64, "maxd" -> u32,
 *           "counts" -> u64[IDX_NSTATES + 1] (per state; [0] = with fingerprint),
 *           "judge" -> u64 (a catch-up of unjudged books is owed from that id on)
 *   files   path key -> file record (FREC_* below; holds the full path)
 *   ids     id -> path key
 *   book    id -> book record (BOOK_* below: simhash, text hash, copy key,
 *           flags, min-hash bands)
 *   rec     id -> u32 record version + the opaque fingerprint record
 *   shband  u8 band + band value (layout.value_bytes) + id -> simhash
 *   mhband  u16 band + u64 band hash + id -> (empty)
 *   text    text hash (16) + id -> (empty)
 *   exempt  id + id -> (empty), stored in both orders
 *   fail    id -> (empty) for files in state IDX_FAILED
 *   uqkey   u32 pruning key -> postings (a kvs dup table; in LMDB
 *           MDB_DUPSORT | MDB_DUPFIXED: 12
 *           bytes a posting, and the count of a key without reading its
 *           postings): the pruning keys of every book (sampled unique
 *           words, dupniq.h; shingle anchors, fp.h).  A posting is the id
 *           (u64) then the book's u16 key count and u16 count of keys with
 *           IDX_UQ_HI, so a candidate's score needs no lookup of its own
 *           (schema 4; schema 3 postings held the id alone and are
 *           rewritten from uqbook on open)
 *   uqbook  id -> u32 keys of that book, ascending (to remove them, and the
 *           counts its postings carry)
 *   clusters id + id -> (empty), both orders: verified near-duplicate links
 *           (idx_rels_set), removed with either book's fingerprint
 *   copies  copy key (16) + id -> (empty): every fingerprinted book under
 *           the XXH3-128 of its whole stored fingerprint (copy_key()).
 *           Books with one key are copies of one text; only the smallest
 *           id of such a group (its representative) has entries in
 *           shband, mhband and uqkey (schema 5), so n copies cost n rows
 *           there instead of n band entries each and n^2 comparisons.
 *   rel     id + id -> relation (REL_* below), both orders, each from its
 *           first id's side: every verified relation a similar list shows
 *           (idx_rels_set), removed with either book's fingerprint; and
 *           id + 0 -> u8 version + u64 fingerprint tag: the book was judged
 *           on that fingerprint (its list is complete; schema 5).  Like
 *           clusters, stored for representatives only (a copy's list is
 *           its representative's), moved with the links on a promotion.
 * A path key is the path itself when it has at most KEY_INLINE bytes (LMDB
 * keys are limited to 511), else its first KEY_INLINE bytes, a NUL (never in
 * a path) and the XXH3-64 of the whole path; so keys keep path order closely
 * enough that every path with a given prefix is in one key range.
 */
#ifndef IDX_I_H
#define IDX_I_H

#include <stddef.h>
#include <stdint.h>

#include "band.h"
#include "idx.h"
#include "idx_test.h"
#include "kvs.h"

#define KEY_INLINE 480
#define PKEY_MAX (KEY_INLINE + 1 + 8)
#define MAP_MIN ((uint64_t)1 << 20)
#define MAP_DEFAULT ((uint64_t)256 << 20)
#define MH_MAX 1024
#define REC_MAX ((size_t)64 << 20)
/* a stored schema above this is damage, not a newer version */
#define SCHEMA_FUTURE_MAX 1000u

/* File record. */
#define FREC_VERSION 1
#define FREC_HDR 56
#define FLAG_FP 1u

/* Book record.  Version 1 (schema <= 4) had no copy key and no flags;
 * version 2 adds them (BOOK_HDR2), read only by the schema 5 upgrade. */
#define BOOK_VERSION 2
#define BOOK_HDR 56
#define BOOK_HDR1 40
#define BOOK_F_COPIES 1u	/* the representative of a group of two or more */
#define BOOK_F_COPY 2u		/* in a group, not its representative: no band entries */
#define COPY_KEY 16

/* Relation row (rel table): version, class, score, simhash distance, then
 * the Jaccard estimate and the two cover fractions as IEEE-754 binary64,
 * big-endian (exact: the views print what the comparison gave).  Version
 * 2: the covers are the shares of judge_shares() (5-gram containment; in
 * version 1 the span of the alignment, which overstated): a book judged
 * under version 1 reads as not judged, is listed by comparison and judged
 * again, as after a change of fingerprint.  Version 3: a text aligned
 * whole but reworded throughout is another translation (relate.c,
 * reworded()), no longer a near duplicate: books are judged again. */
#define REL_VERSION 3
#define REL_LEN 28
/* Judged mark (rel table, key id + 0): version, fingerprint tag. */
#define JUDGED_LEN 9

/* Where a rebuild keeps the old data file until its marks are carried over
 * (idx_rebuild.c). */
#define PREV_NAME "data.mdb.prev"

enum {
	DB_META, DB_FILES, DB_IDS, DB_BOOK, DB_REC, DB_SHBAND, DB_MHBAND, DB_TEXT, DB_EXEMPT,
	DB_FAIL, DB_UQKEY, DB_UQBOOK, DB_CLUSTER, DB_COPY, DB_REL, NDB
};
_Static_assert(NDB <= KVS_TABLES, "the index's tables are the store's tables");
/* The tables' names in the environment, by DB_* (idx.c). */
extern const char *const idx_db_names[NDB];

struct idx {
	struct kvs *kv;			/* the tables (the LMDB store, kvs_lmdb.h) */
	struct band_layout bl;
	int remote;			/* the Redis store (kvs_redis.h), not LMDB */
	int rebuilt;			/* enum idx_rebuild */
	uint64_t kept_files, kept_pairs;	/* carried over by the rebuild */
	char check_note[1024];		/* idx_check_note() */
	/* idx_opts.progress, while idx_open() runs */
	int (*progress)(void *arg, enum idx_open_phase phase, uint64_t done, uint64_t total);
	void *progress_arg;
};

/* A write transaction and the meta values it caches until commit. */
struct wtx {
	struct idx *ix;
	struct kvs_tx *tx;
	int meta_loaded, meta_dirty;
	uint64_t nextid;
	uint64_t counts[IDX_NSTATES + 1];
};

/* A decoded file record, copied out of the map. */
struct frec {
	uint64_t id;
	struct idx_stat st;
	uint8_t state, flags;
	size_t pathlen, errlen;
	char path[IDX_PATH_MAX + 1];
	char err[IDX_ERR_MAX + 1];
};

struct pkey {
	uint8_t b[PKEY_MAX];
	size_t len;
};

/* A list of files collected before they are changed. */
struct flist {
	struct frec *v;
	size_t n, cap;
};

/* A decoded book record; mh points into the map (valid in its txn only)
 * or into the copy it was decoded from. */
struct brec {
	uint32_t version, rec_version, n_mh;
	uint8_t flags;
	uint8_t sh[IDX_SH_BYTES], th[IDX_SH_BYTES];
	uint8_t key[COPY_KEY];	/* zero in a version 1 record */
	const uint8_t *mh;
};

/* ---- transactions (idx_txn.c) ---- */

/* Row access inside a write transaction (kvs_get/put/del).  idx_w_del() of
 * a missing key is not an error. */
static inline int idx_w_get(struct wtx *w, int db, const void *k, size_t klen,
			    struct kvs_val *v)
{
	return kvs_get(w->tx, db, k, klen, v);
}

static inline int idx_w_put(struct wtx *w, int db, const void *k, size_t klen, const void *v,
			    size_t vlen)
{
	return kvs_put(w->tx, db, k, klen, v, vlen);
}

static inline int idx_w_del(struct wtx *w, int db, const void *k, size_t klen)
{
	return kvs_del(w->tx, db, k, klen);
}

/* Loads the meta values (nextid, counts) w caches until commit. */
int idx_meta_load(struct wtx *w);
/* Moves the counters from one (state, has fingerprint) to another; 0 = none. */
int idx_count_move(struct wtx *w, uint8_t from_state, int from_fp, uint8_t to_state, int to_fp);

typedef int (*write_fn)(struct wtx *w, void *arg);
/* Runs fn in one write transaction (kvs_write()): commit when it returns
 * >= 0 (returned), abort otherwise; the store may run fn again from scratch
 * (w is fresh each time: meta values are loaded again). */
int idx_write(struct idx *ix, write_fn fn, void *arg);

/* ---- keys and records (idx_codec.c) ---- */

/* Validates a relative path as the index stores it: 0 or -EINVAL /
 * -ENAMETOOLONG. */
int idx_path_check(const char *path);

void idx_path_key(const char *path, size_t len, struct pkey *k);
/* 0, or -EIO for a record that does not decode. */
int idx_frec_decode(const struct kvs_val *v, struct frec *f);
/* Encodes f into p (room for FREC_HDR + IDX_PATH_MAX + IDX_ERR_MAX); its length. */
size_t idx_frec_encode(const struct frec *f, uint8_t *p);
/* Sets f's error text (NULL: none), cut to IDX_ERR_MAX bytes. */
void idx_frec_set_err(struct frec *f, const char *err);
/* 0, or -EIO for a record that does not decode; b->mh points into v. */
int idx_brec_decode(const struct kvs_val *v, struct brec *b);
/* f from r without its strings (zeroed first). */
void idx_file_out(const struct frec *r, struct idx_file *f);
/* f's path and error strdup'd from r: 0 or -ENOMEM (then none). */
int idx_file_copy_strings(const struct frec *r, struct idx_file *f);
/* The shband key of id for band b of simhash sh, into key (room 17). */
void idx_shband_key(const struct band_layout *bl, const uint8_t sh[IDX_SH_BYTES], uint32_t b,
		    uint64_t id, uint8_t *key, size_t *klen);
int idx_copy_key(const uint8_t sh[IDX_SH_BYTES], const uint8_t th[IDX_SH_BYTES],
		 uint32_t rec_version, const uint8_t *mh, uint32_t n_mh, const uint8_t *uq,
		 uint32_t n_uq, uint8_t key[COPY_KEY]);

/* ---- a supplied fingerprint (idx_fp.c) ---- */

/* The tag of a fingerprint (idx_fp_tag()); never 0. */
uint64_t idx_fp_tag_of(const uint8_t sh[IDX_SH_BYTES], const uint8_t th[IDX_SH_BYTES],
		       uint32_t rec_version);
/* 0 when fp can be stored, else -EINVAL. */
int idx_fp_check(const struct idx_fp *fp);

/* ---- open, upgrades, rebuild (idx.c, idx_upgrade.c, idx_rebuild.c) ---- */

int idx_open_progress(struct idx *ix, enum idx_open_phase phase, uint64_t done, uint64_t total);
/* Removes the environment's data and lock files from dir. */
int idx_env_remove(const char *dir);
/* dir + "/" + name into p: 0 or -ENAMETOOLONG. */
int idx_dir_file(const char *dir, const char *name, char *p, size_t size);
int idx_env_set_aside(const char *dir);
/* Carries the marks of the set-aside file prev over (damaged: the open
 * found it damaged, so nothing is read from it and it is kept aside). */
int idx_carry_over(struct idx *ix, const char *dir, const char *prev, int damaged);
int idx_rebuild_shband(struct wtx *w);
int idx_rebuild_uqkey(struct wtx *w);
int idx_upgrade_copies(struct wtx *w);

/* ---- book rows and file entries in a write txn (idx_book.c) ---- */

int idx_shband_apply(struct wtx *w, const uint8_t sh[IDX_SH_BYTES], uint64_t id, int add);
/* *row malloc'd (free it), *b decoded from it; -ENOENT, -EIO. */
int idx_book_load(struct wtx *w, uint64_t id, uint8_t **row, struct brec *b);
int idx_book_set_flags(struct wtx *w, uint64_t id, uint8_t flags);
int idx_bands_apply(struct wtx *w, uint64_t id, const struct brec *b, int add);
int idx_book_remove(struct wtx *w, uint64_t id);
int idx_book_add(struct wtx *w, uint64_t id, const struct idx_fp *fp);
int idx_file_load_key(struct wtx *w, const struct pkey *k, const char *path, struct frec *f);
int idx_file_store(struct wtx *w, const struct frec *f);
int idx_file_by_id(struct wtx *w, uint64_t id, struct frec *f);
int idx_file_remove(struct wtx *w, const struct frec *f);

/* Cursor over the files whose path starts with prefix (plen bytes), in key
 * order.  Calls fn for each; stops early when fn returns non-zero (> 0 means
 * stop without error).  On each call *next may be set to a key to continue
 * from (skipping a subtree); next->len == 0 means the next key. */
typedef int (*files_fn)(const struct frec *f, void *arg, struct pkey *next);
int idx_files_under(struct kvs_tx *tx, const char *prefix, size_t plen, files_fn fn, void *arg);
/* Collects into l (its v malloc'd) the file at path and every file under path + "/". */
int idx_collect_tree(struct wtx *w, const char *path, struct flist *l);

/* ---- groups of copies (idx_copies.c) ---- */

int idx_group_first(struct wtx *w, const uint8_t key[COPY_KEY], uint64_t skip, uint64_t ids[2],
		    size_t *n);
int idx_group_leave(struct wtx *w, uint64_t id, const struct brec *b);
int idx_group_read(struct kvs_tx *tx, uint64_t id, uint64_t **ids, size_t *n,
		   size_t *cap);
int idx_load_copy_groups(struct idx *ix, struct idx_groups *cg);
int idx_copies_add(struct kvs_tx *tx, uint64_t **ids, uint8_t (**sh)[IDX_SH_BYTES],
		   size_t *n, size_t *cap);

/* ---- pair tables (idx_rel.c) ---- */

int idx_judgement_move(struct wtx *w, uint64_t id, uint64_t to);
int idx_pairs_remove_all(struct wtx *w, int db, uint64_t id);

/* ---- pruning keys (idx_uqkey.c) ---- */

int idx_uq_remove(struct wtx *w, uint64_t id, int keep_row);
int idx_uq_put_postings(struct wtx *w, uint64_t id, const uint8_t *keys, uint32_t n);

/* ---- the read side (idx_txn.c) ---- */

/* Called for each row of a walk: 0 to go on, > 0 to stop (the walk returns
 * 0), < 0 to stop with that error.  k and v point into the store. */
typedef int (*idx_row_fn)(const struct kvs_val *k, const struct kvs_val *v, void *arg);
/* Calls fn for the rows of cur's table in key order, from the first key >=
 * start (slen bytes; NULL: from the first row), until fn stops it or the
 * table ends: the twin of idx_write().  0, fn's error, or the cursor's. */
int idx_cursor_walk(struct kvs_cur *cur, const void *start, size_t slen, idx_row_fn fn, void *arg);
/* idx_cursor_walk() from the row after the one cur is on (a row read by
 * hand first, e.g. a header row that decides whether to read on). */
int idx_cursor_walk_next(struct kvs_cur *cur, idx_row_fn fn, void *arg);
/* idx_cursor_walk() over table db of tx, on a cursor of its own. */
int idx_walk(struct kvs_tx *tx, int db, const void *start, size_t slen, idx_row_fn fn,
	     void *arg);
/* idx_walk() over every row of table db, in a read transaction of its own;
 * reset(arg) first on each run (the store may run a read again). */
int idx_read_walk(struct idx *ix, int db, void (*reset)(void *arg), idx_row_fn fn, void *arg);
/* Looks key up in table db in a read transaction of its own and returns
 * what fn makes of it (kvs_read_get(): fn copies the value out). */
int idx_read_get(struct idx *ix, int db, const void *key, size_t klen, kvs_get_fn fn, void *arg);
/* Appends to *ids (room *cap, grown) every id whose key (at cur) starts
 * with the plen-byte prefix and is plen + 8 bytes long. */
int idx_ids_with_prefix(struct kvs_cur *cur, const uint8_t *prefix, size_t plen, uint64_t **ids,
			size_t *n, size_t *cap);
/* idx_ids_with_prefix() into a malloc'd *ids, in a read transaction of its
 * own (NULL and 0 on error). */
int idx_read_ids(struct idx *ix, int db, const uint8_t *prefix, size_t plen, uint64_t **ids,
		 size_t *n);

#endif
