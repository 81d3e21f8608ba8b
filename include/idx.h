/* idx.h - the index: files, fingerprint records and band tables.
 *
 * The index's tables live in an ordered key-value store (kvs.h, private to
 * src/index): the table logic behind this interface reaches them only
 * through it, and the store today is LMDB (kvs_lmdb.c; opening, schema
 * check and rebuild of the LMDB file in idx.c).  Where this header speaks
 * of LMDB below, it describes that store; a later backend implements kvs.h
 * and gets the same answers from the same table logic.
 *
 * One environment per library, in a directory the caller chooses (the daemon
 * defaults to a hidden folder inside SRC).  The index holds, per file of the
 * library (relative path, '/'-separated, no leading '/', no "." or ".."
 * components, never empty):
 *  - a stable 64-bit book id (never reused; kept across rename), the stat
 *    fields the incremental scan compares, an indexing state and the last
 *    error text;
 *  - once fingerprinted: the 128-bit simhash, the 128-bit exact-text hash, the
 *    min-hash LSH band hashes and the fingerprint record, an opaque byte
 *    string with the caller's format version (the fingerprint module owns its
 *    format; the index only stores it);
 *  - band tables that answer "which books are within Hamming distance d of
 *    this simhash" exactly (band.h: pigeonhole over max_d + 1 bands), "which
 *    books share a min-hash band", "which books have this text hash", and
 *    an inverted table of pruning keys (32-bit sampled unique words,
 *    dupniq.h, and shingle anchors, fp.h) that answers "which books share
 *    many of this book's keys" (a short text inside a long one, OCR-heavy
 *    copies: what whole-book sketches miss);
 *  - "not a duplicate" exemptions between two books (kept across rename);
 *  - groups of copies: books whose stored fingerprints are identical (the
 *    same text; idx_copies()).  Only the smallest id of a group, its
 *    representative, has band entries and pruning-key postings, so the
 *    candidate queries (idx_near_reps, idx_mh_candidates,
 *    idx_uq_candidates) name representatives, and whoever needs every book
 *    expands a representative into its group (idx_copies()); n copies of a
 *    text cost n rows, not n band entries each.  Removing, rewriting or
 *    renaming over a representative promotes the next copy in the same
 *    transaction (its band entries written from its stored rows, the
 *    cluster links, relations and judged mark moved to it);
 *  - the rel table: every verified relation between two books with what a
 *    similar list shows of it, and per book whether it was judged (its
 *    list is complete), which the fingerprinting work records
 *    (idx_rels_set) and which go with either book's fingerprint; a
 *    similar list is one range read of it (idx_rels_get).  Like the links,
 *    stored for representatives: a copy is never judged;
 *  - the clusters table: the relations that join a cluster (identical
 *    file, same text, near duplicate) again, as bare links, so clusters/
 *    reads them in one pass over small rows (idx_link_groups).
 *
 * Concurrency: any number of threads may call any function at once (except
 * idx_close()).  Reads run in their own LMDB read transaction per call
 * (MDB_NOTLS) and are never blocked by a writer; writes are serialised by a
 * mutex inside the index, each call being one transaction (all or nothing).
 * Open the index after any fork() (daemonizing): LMDB environments and the
 * index's threads do not survive it.  The only pause readers can see
 * is while the map grows (a write hit MDB_MAP_FULL: the map doubles and the
 * write is retried), which waits for in-flight read calls to finish.  Several
 * processes may open the same index (LMDB's own locking); one of them should
 * be the writer at a time.
 *
 * Durability: the index is derived data that a rescan can rebuild, so commits
 * are not fsync'd one by one (MDB_NOSYNC: an fsync per rename or unlink
 * through the mount would make `rm -r` crawl); a flusher thread syncs within
 * opts.sync_ms of a write, and idx_close() flushes (as does idx_sync(),
 * idx_test.h).  A crash of the process loses nothing; a crash of the
 * machine can lose the writes of the last interval, which the next scan
 * redoes, and an index LMDB then finds unreadable is rebuilt at open.
 *
 * Ownership: everything returned is copied out of LMDB before the read
 * transaction ends and belongs to the caller: arrays are malloc'd (free()
 * them, or the named _free function for arrays of structs that own strings).
 * Nothing returned points into the map.
 *
 * Errors: every function returns 0 or a negative errno.  LMDB's own codes are
 * converted in one place (idx_err() in kvs_lmdb.c): MDB_NOTFOUND -> -ENOENT,
 * MDB_MAP_FULL/MDB_TXN_FULL -> -ENOSPC (after growth failed or past 1 TiB),
 * MDB_READERS_FULL -> -EAGAIN, corruption and version mismatches -> -EIO,
 * system errors -> their -errno.  A value in the database
 * that does not decode (short or hostile) is -EIO for that entry, never a
 * crash; lists skip such entries.
 */
#ifndef IDX_H
#define IDX_H

#include <stddef.h>
#include <stdint.h>

#include "idx_fp.h"

/* 2: the pruning-key tables; 3: the clusters table; 4: pruning-key postings
 * carry the book's key counts; 5: groups of copies (only a group's
 * representative has band entries, postings, links and relations) and the
 * rel table (every verified relation and the books judged); 6: the
 * relation rule of other-translation and dense coverage (relations and
 * cluster links judged by the rule before it are dropped).  A schema 3, 4
 * or 5 index is upgraded in place on open, its books unjudged; any other
 * is rebuilt. */
#define IDX_SCHEMA_VERSION 6
#define IDX_PATH_MAX 4095	/* longest relative path accepted */
#define IDX_ERR_MAX 1000	/* error texts are cut to this many bytes */

struct idx;

enum idx_state {
	IDX_QUEUED = 1,		/* known, waiting for (re)fingerprinting */
	IDX_INDEXED = 2,	/* fingerprinted; in the band tables */
	IDX_FAILED = 3,		/* could not be indexed; error says why */
	IDX_NOT_BOOK = 4,	/* recognised as not a book; skipped */
};
#define IDX_NSTATES 5

/* The stat fields the scan compares (times in ns since the epoch). */
struct idx_stat {
	uint64_t size;
	int64_t mtime_ns;
	int64_t ctime_ns;
	uint64_t ino;
	uint64_t dev;
};

/* What idx_open() reports to opts.progress while it works. */
enum idx_open_phase {
	IDX_OPEN_UPGRADE = 1,	/* an upgrade in place (a newer schema, a new band
				 * layout): tables refilled from stored data */
	IDX_OPEN_REBUILD = 2,	/* a rebuild: another schema or an unreadable
				 * file, the files' ids and marks carried over */
};

/* A zeroed struct (or NULL) gives every default. */
struct idx_opts {
	uint32_t max_d;		/* simhash threshold the band tables guarantee
				 * (0 = 7: 8 bands of 16 bits; at most 63);
				 * changing it on an existing index rebuilds the
				 * simhash band table */
	uint64_t map_size;	/* initial map size in bytes (0 = 256 MiB); grows
				 * by doubling when full */
	uint32_t sync_ms;	/* committed writes reach the disk within this
				 * many ms (0 = 1000) */
	/* Called (may be NULL) on the opening thread while idx_open() upgrades
	 * or rebuilds: once when the work starts (done 0), then after each
	 * entry, with total the entries to go through (0 when not known yet).
	 * Called often: keep it cheap.  A non-zero return stops the open:
	 * idx_open() returns -ECANCELED, the transaction is dropped and the
	 * stored index stays as it was, so the next open does the work again. */
	int (*progress)(void *arg, enum idx_open_phase phase, uint64_t done, uint64_t total);
	void *progress_arg;
	/* Non-zero: read an existing index that another process (a mount's
	 * daemon, `simbook index`) may be writing, changing nothing: nothing
	 * is created, upgraded or rebuilt, no write may be called, and the
	 * other options are ignored (the stored threshold is used).  Then
	 * idx_open() returns -ENOENT (no index folder), -ESTALE (not filled
	 * yet, or another version's: its writer upgrades it), -EIO (damaged),
	 * -EPROTONOSUPPORT (a newer version's), -errno of LMDB. */
	int readonly;
};

#define IDX_UQ_POSTINGS_MAX 100000	/* the largest max_postings accepted */

/* One file as stored.  path and error are malloc'd; idx_file_release() frees
 * them.  simhash/text_hash/rec_version/n_mh_bands are valid when has_fp. */
struct idx_file {
	uint64_t id;
	struct idx_stat st;
	enum idx_state state;
	char *path;
	char *error;		/* NULL when none */
	int has_fp;		/* a fingerprint is stored (also while re-queued) */
	uint8_t simhash[IDX_SH_BYTES];
	uint8_t text_hash[IDX_SH_BYTES];
	uint32_t rec_version;
	uint32_t n_mh_bands;
	/* valid when has_fp: has_copies = 1 for the representative of a group
	 * of two or more copies, is_copy = 1 for the other members (idx_copies()) */
	int has_copies, is_copy;
};

/* A candidate: a book id and its distance (simhash: Hamming bits; min-hash:
 * number of shared bands). */
struct idx_hit {
	uint64_t id;
	uint32_t dist;
};

/* A pruning-key candidate (idx_uq_candidates()). */
struct idx_uq_hit {
	uint64_t id;
	uint32_t shared;	/* keys the two books share (frequent ones left out) */
	uint32_t nkeys;		/* keys the candidate has */
	/* The same for the keys with the top bit set (IDX_UQ_HI: a second
	 * kind of key, counted apart; included in shared and nkeys too). */
	uint32_t shared_hi, nkeys_hi;
};

struct idx_uq_stats {
	uint32_t keys;		/* keys of the queried book */
	uint32_t keys_hi;	/* of them, with the top bit set */
	uint32_t stopped;	/* of them, held by more than max_postings books: skipped */
	uint64_t postings;	/* entries read for the others */
};

struct idx_pair {
	uint64_t a, b;		/* a < b */
	uint32_t dist;
};

/* Groups of book ids: group g is ids[start[g]] .. ids[start[g + 1] - 1]. */
struct idx_groups {
	size_t ngroups;
	size_t *start;		/* ngroups + 1 entries */
	uint64_t *ids;
};

/* An entry of a directory listing (idx_list). */
struct idx_entry {
	char *name;		/* child name, or the full relative path with IDX_LIST_RECURSIVE */
	int is_dir;		/* a subdirectory that holds indexed files (file is zeroed) */
	struct idx_file file;	/* for files */
};

struct idx_counts {
	uint64_t files;			/* all entries */
	uint64_t state[IDX_NSTATES];	/* entries per enum idx_state */
	uint64_t books;			/* entries with a fingerprint */
};

/* Opens (creating when needed) the index in directory dir (created, mode
 * 0700, if missing; its parent must exist).  opts may be NULL for defaults.
 * An index written with another schema version, or one LMDB cannot read, is
 * rebuilt (idx_rebuilt() says how; the next scan refills it).  A rebuild
 * keeps what a person made: every file's entry with its id and stored stat
 * (state IDX_QUEUED, no fingerprint), the "not a duplicate" pairs between
 * them and the next id, when the old file is sound.  The old data file
 * waits in dir as data.mdb.prev until the copy is on disk; an open that
 * finds it (a rebuild that was stopped) does the rebuild again.  LMDB
 * checks no page, so the data file is mapped here only after a child
 * process walked it whole (idxcheck.h); a damaged one is rebuilt, and the
 * old file is read only in a child too: one that is damaged (in any page,
 * or with a schema number no version wrote) or not an index is kept as
 * IDX_DAMAGED_NAME (marks lost) instead of deleted.
 * An index from a newer schema is refused and left as it is.
 * Returns 0 and *out, or -errno (-EINVAL for bad options;
 * -EPROTONOSUPPORT for a newer schema, see idx_strerror(); an error
 * reading the old file that is not the file's fault, such as -ENOMEM,
 * fails and keeps it for the next open; -EBUSY when another process is
 * rebuilding the index; -ECANCELED when opts.progress stopped it). */
int idx_open(struct idx **out, const char *dir, const struct idx_opts *opts);
/* Calls fn(arg) on a thread of the index's each time another process
 * sharing the index (a Redis one: another mount, simbook index) commits a
 * change (idx_generation() has moved before), and when its server goes out
 * of reach or comes back (idx_health()).  0, -EOPNOTSUPP (an LMDB
 * index: no other process writes it), or -errno. */
int idx_watch(struct idx *ix, void (*fn)(void *arg), void *arg);
/* A shared index's server out of reach (kvs_health()): 0, or 1 with why
 * (the connection error, n bytes; may be NULL) and *since (seconds since
 * the epoch; may be NULL).  Meanwhile every call on the index fails at once
 * with -EHOSTDOWN (or the error that took it away); the idx_watch()
 * function runs when it goes and when it is back.  An LMDB index: 0. */
int idx_health(struct idx *ix, char *why, size_t n, int64_t *since);

/* Claims the fingerprinting of book id among the processes sharing the
 * index (the mounts of one library starting together): see kvs_claim().
 * 1 taken, 0 another's (ending within *left_ms), -EOPNOTSUPP (LMDB: no
 * other process writes it), or -errno. */
int idx_claim(struct idx *ix, uint64_t id, unsigned ttl_ms, unsigned *left_ms);
/* Gives up this process's claim on book id (its result is stored). */
void idx_unclaim(struct idx *ix, uint64_t id);
/* Flushes and closes.  No call may be running or follow.  NULL is allowed. */
void idx_close(struct idx *ix);
/* Where a rebuild keeps an old data file it could not carry over whole (LMDB
 * cannot read it, reading it crashed or hung, or it holds another program's
 * tables), in the index folder; one such file, replaced by the next. */
#define IDX_DAMAGED_NAME "data.mdb.damaged"
/* A message for an error of idx_open() (or any idx_ call): for
 * -EPROTONOSUPPORT, that the index was written by a newer version and what
 * to do; else strerror(-err).  Static storage. */
const char *idx_strerror(int err);
/* What idx_open() did with the index it found. */
enum idx_rebuild {
	IDX_REBUILT_NOT = 0,	/* opened as it was (or created in an empty dir) */
	IDX_REBUILT_KEPT = 1,	/* another schema: rebuilt, entries, ids and marks kept */
	IDX_REBUILT_LOST = 2	/* unreadable: rebuilt empty; its marks are lost */
};
/* enum idx_rebuild: non-zero when idx_open() started over. */
int idx_rebuilt(const struct idx *ix);
/* What the check of the data file at idx_open() had to say (idxcheck.h's
 * note: why it was judged damaged, readers it had to kill and where they
 * were stuck); "" when nothing.  Valid while ix is. */
const char *idx_check_note(const struct idx *ix);
/* After IDX_REBUILT_KEPT: how many file entries and "not a duplicate" pairs
 * the rebuild carried over (0 and 0 otherwise). */
void idx_rebuild_kept(const struct idx *ix, uint64_t *files, uint64_t *pairs);
/* The band layout's threshold (opts.max_d). */
uint32_t idx_max_d(const struct idx *ix);
/* A number that grows with every committed write (LMDB's last transaction
 * id): callers cache derived results (clusters, listings) under it. */
uint64_t idx_generation(struct idx *ix);

/* ---- writes (each one transaction) ---- */

/* Records that the n files paths[i] (with stat sts[i]) need fingerprinting:
 * creates entries (new ids) for unknown paths, updates the stat of known ones
 * and sets their state to IDX_QUEUED; a stored fingerprint stays in the band
 * tables until replaced.  ids (may be NULL) receives each file's id.
 * Returns 0, -EINVAL (bad path), -ENAMETOOLONG, -ENOSPC, -EIO. */
int idx_mark_queued(struct idx *ix, const char *const *paths, const struct idx_stat *sts,
		    size_t n, uint64_t *ids);
/* idx_mark_queued() (without ids) of the files that still need work when
 * the transaction runs: a file stored meanwhile, by another process that
 * shares the index, with stat sts[i] and a record of rec_version, is left
 * as it is (a scan that listed it as new would have it read twice).  The
 * same returns. */
int idx_mark_stale(struct idx *ix, const char *const *paths, const struct idx_stat *sts,
		   size_t n, uint32_t rec_version);
/* Whether stat a (stored in the index) and stat b (taken now) describe the
 * same unchanged file: the same size, mtime, ctime and inode.  The device is
 * left out: its number can change across reboots without any change to the
 * file.  What the scan calls unchanged. */
int idx_stat_same(const struct idx_stat *a, const struct idx_stat *b);
/* Stores the fingerprint of book id, read from a file whose stat was st:
 * replaces any previous fingerprint, band entries and error; state becomes
 * IDX_INDEXED.  -ENOENT when id is no longer in the index (the file was
 * unlinked or replaced meanwhile: the work is simply dropped). */
int idx_put(struct idx *ix, uint64_t id, const struct idx_stat *st, const struct idx_fp *fp);
/* Records that book id could not be indexed: state is IDX_FAILED or
 * IDX_NOT_BOOK, error (may be NULL; cut to IDX_ERR_MAX bytes) says why, any
 * previous fingerprint is removed.  -ENOENT as for idx_put(). */
int idx_put_failed(struct idx *ix, uint64_t id, const struct idx_stat *st, enum idx_state state,
		   const char *error);
/* Replaces the fingerprint record of book id by rec (len bytes) of the same
 * rec_version, nothing else (bands, copies and relations stay): for parts
 * of the record no fingerprint depends on (a title).  -ENOENT when id has
 * no fingerprint, -ESTALE when its record has another version. */
int idx_set_record(struct idx *ix, uint64_t id, uint32_t rec_version, const void *rec, size_t len);
/* Updates the stored stat of path without changing its state (after a rename
 * or chmod through the mount, so the next scan does not redo the work).
 * -ENOENT when unknown. */
int idx_set_stat(struct idx *ix, const char *path, const struct idx_stat *st);
/* Removes path and everything under path + "/" (a directory), with their
 * fingerprints, band entries and exemptions.  Returns the number of files
 * removed (>= 0), or -errno. */
int idx_unlink(struct idx *ix, const char *path);

#define IDX_RENAME_EXCHANGE 1u	/* swap the two (RENAME_EXCHANGE) */
#define IDX_RENAME_KNOWN 2u	/* do nothing (keep to) unless from, or something
				 * under from + "/", is in the index: for renames
				 * reported twice (the mount and the inotify watch) */
/* Renames from to to: the file at from (and everything under from + "/")
 * moves to the new path, keeping ids, fingerprints and exemptions.  Entries
 * that were at to (or under to + "/") are unlinked first, unless flags has
 * IDX_RENAME_EXCHANGE, which swaps the two subtrees.  Renaming a path onto
 * itself does nothing; into its own subtree, or onto one of its ancestors, is
 * -EINVAL.  Returns the number of entries moved from from (0 when from is
 * unknown: nothing to do) or -errno. */
int idx_rename(struct idx *ix, const char *from, const char *to, unsigned flags);
/* A change for idx_apply(): a path change or a book's indexing result. */
enum idx_op_kind {
	IDX_OP_UNLINK = 1,	/* as idx_unlink(path) */
	IDX_OP_RENAME = 2,	/* as idx_rename(path, to, flags) */
	IDX_OP_PUT = 3,		/* as idx_put(id, st, fp) */
	IDX_OP_PUT_FAILED = 4,	/* as idx_put_failed(id, st, state, error) */
};
struct idx_op {
	enum idx_op_kind kind;
	const char *path;	/* IDX_OP_UNLINK, IDX_OP_RENAME */
	const char *to;		/* IDX_OP_RENAME only */
	unsigned flags;		/* IDX_OP_RENAME only */
	uint64_t id;		/* IDX_OP_PUT, IDX_OP_PUT_FAILED */
	const struct idx_stat *st;	/* IDX_OP_PUT, IDX_OP_PUT_FAILED */
	const struct idx_fp *fp;	/* IDX_OP_PUT only */
	enum idx_state state;	/* IDX_OP_PUT_FAILED only */
	const char *error;	/* IDX_OP_PUT_FAILED only (may be NULL) */
	int result;		/* out: what the single call would have returned */
};
/* Applies the n ops in order in one write transaction, so a burst of
 * unlinks or renames (rm -r, rsync), or of finished books, costs one commit
 * (the pages the books' band and pruning-key entries share are copied and
 * written once).  An op with bad arguments, or a put whose id is gone
 * (-ENOENT), gets its -errno in result and the others still apply; when the
 * transaction itself fails, nothing is applied, every result is that error
 * and it is returned (callers may retry op by op).  Returns 0 or -errno. */
int idx_apply(struct idx *ix, struct idx_op *ops, size_t n);
/* Marks (on != 0) or unmarks the pair of files as "not a duplicate".  Stored
 * by id, so it survives renames; removed with either file.  -ENOENT when a
 * path is unknown, -EINVAL when both are the same file. */
int idx_exempt_set(struct idx *ix, const char *path_a, const char *path_b, int on);

/* ---- reads (copied out; see Ownership) ---- */

/* Looks up a file by path or by id.  Fills *f (release with
 * idx_file_release()).  -ENOENT when unknown. */
int idx_get(struct idx *ix, const char *path, struct idx_file *f);
int idx_get_id(struct idx *ix, uint64_t id, struct idx_file *f);
void idx_file_release(struct idx_file *f);
/* idx_get_id() of the n ids[i] into files[i], in one read transaction (a
 * group view reads tens of thousands).  An unknown id leaves files[i]
 * zeroed (path NULL).  Release each with idx_file_release().  0, or
 * -ENOMEM / -errno of the transaction (then every files[i] is zeroed). */
int idx_get_ids(struct idx *ix, const uint64_t *ids, size_t n, struct idx_file *files);
/* The fingerprint record of book id: *rec is malloc'd (*len bytes; free()),
 * *rec_version its format version.  -ENOENT when there is none. */
int idx_record(struct idx *ix, uint64_t id, uint32_t *rec_version, void **rec, size_t *len);
/* As idx_record(), only the first max bytes (at most) of the record: for
 * the parts read without decoding it (a title in the record's header),
 * without copying the whole record. */
int idx_record_head(struct idx *ix, uint64_t id, size_t max, uint32_t *rec_version, void **rec,
		    size_t *len);
/* The min-hash band hashes stored for id: *bands malloc'd, *n entries. */
int idx_mh_bands(struct idx *ix, uint64_t id, uint64_t **bands, uint32_t *n);

/* Books whose simhash is within d bits of sh (d <= idx_max_d(), else
 * -EINVAL), the book itself included when sh is its own.  Exact: every such
 * book is found (band lookup, then a Hamming check; every copy of a
 * representative found).  *hits is malloc'd, sorted by distance then id. */
int idx_near(struct idx *ix, const uint8_t sh[IDX_SH_BYTES], uint32_t d, struct idx_hit **hits,
	     size_t *n);
/* idx_near() without the copies: the representatives only (each stands
 * for its group, idx_copies()).  For candidate gathering, which compares a
 * group once. */
int idx_near_reps(struct idx *ix, const uint8_t sh[IDX_SH_BYTES], uint32_t d,
		  struct idx_hit **hits, size_t *n);
/* The group of copies of book id (books with an identical stored
 * fingerprint: text hash, simhash, record version, min-hash bands, pruning
 * keys): *ids malloc'd, ascending, so the representative comes first; id
 * itself included ({id} alone when it has no copies).  -ENOENT when id has
 * no fingerprint. */
int idx_copies(struct idx *ix, uint64_t id, uint64_t **ids, size_t *n);
/* Representatives (idx_copies()) sharing at least min_shared of the n
 * min-hash band hashes (band i compared with band i); hit.dist = number of
 * shared bands.  Sorted by shared bands (descending) then id. */
int idx_mh_candidates(struct idx *ix, const uint64_t *bands, uint32_t n, uint32_t min_shared,
		      struct idx_hit **hits, size_t *nhits);
/* Representatives (idx_copies()) sharing at least min_shared (0 counts as
 * 1) of book id's pruning keys, each key held by at most max_postings books counted (a key held by
 * more is a frequent word, like a stop word: skipped, so the cost of one
 * query is at most keys * (max_postings + 1) entries read); book id itself
 * left out; keys with IDX_UQ_HI set are also counted apart (the caller's
 * second kind of key).  *hits malloc'd, sorted by shared keys
 * (descending) then id;
 * *stats says how many keys were skipped.  A book without keys has no
 * hits.  The hits and their key counts come from the postings alone (one
 * read per key, none per candidate: the postings are written and removed
 * with their book in one transaction), so a posting planted in a damaged
 * index can name an id that is no book: callers look a hit up before use,
 * as the views do.  0, -EINVAL (max_postings 0 or > IDX_UQ_POSTINGS_MAX), -ENOMEM,
 * -EIO. */
int idx_uq_candidates(struct idx *ix, uint64_t id, uint32_t max_postings, uint32_t min_shared,
		      struct idx_uq_hit **hits, size_t *nhits, struct idx_uq_stats *stats);
/* The keys of book id with IDX_UQ_HI set (the shingle anchors of
 * bookrec_fp_make()), that bit cleared: *keys malloc'd (NULL when none),
 * ascending.  0, -ENOENT (no keys row), -EIO, -ENOMEM. */
int idx_uq_hi_keys(struct idx *ix, uint64_t id, uint32_t **keys, uint32_t *n);
/* Books whose exact-text hash is h: *ids malloc'd, ascending. */
int idx_by_text_hash(struct idx *ix, const uint8_t h[IDX_SH_BYTES], uint64_t **ids, size_t *n);
/* ---- relations (the rel table) and cluster links (the clusters table) ---- */

/* A digest of f's stored fingerprint (simhash, text hash, record version):
 * another value once the book is fingerprinted with another result; 0 when
 * f has no fingerprint. */
uint64_t idx_fp_tag(const struct idx_file *f);

/* A verified relation of a judged book with another book, as a similar
 * list shows it.  The classes are opaque to the index (relate.h's enum
 * relate_class). */
struct idx_rel {
	uint64_t id;		/* the other book */
	uint64_t tag;		/* idx_rels_set(): idx_fp_tag() of the other book's
				 * fingerprint the verdict was reached on; 0 when read */
	uint8_t cls_this;	/* the relation from the judged (listed) book's side */
	uint8_t cls_other;	/* idx_rels_set(): from the other book's side */
	uint8_t score;		/* 0..100 */
	uint8_t dist;		/* simhash distance */
	uint8_t link;		/* idx_rels_set(): 1 when the pair joins a cluster */
	double jaccard;		/* Jaccard estimate */
	double cover_this;	/* fraction of the listed book found in the other */
	double cover_other;	/* fraction of the other found in the listed book */
};

/* The judgement of book id (tag: idx_fp_tag() of its fingerprint): its n
 * relations rels[i] with other books. */
struct idx_judgement {
	uint64_t id, tag;
	const struct idx_rel *rels;
	size_t n;
};

/* Records the n judgements v[i] in one transaction: each relation in the
 * rel table under both books (each row from its first book's side: class,
 * covers swapped), the relations with link set in the clusters table too,
 * and book v[i].id as judged on fingerprint v[i].tag.  A judgement whose
 * book no longer holds the fingerprint of its tag, or is a copy now (a
 * copy is never judged: its representative's relations hold for it), is
 * dropped whole; a relation whose other book does not hold its tag is
 * dropped (that book's own judgement finds the pair again), and one whose
 * other book became a copy of another text is stored under that copy's
 * representative (the same fingerprint).  When a representative leaves its
 * group, its relations and judged mark move to the copy promoted in its
 * place.  Relations and links stay until either
 * book's fingerprint goes or changes (idx_put with another fingerprint,
 * idx_put_failed, idx_unlink, idx_drop, a rename over it), and the judged
 * mark with the book's own; rows are only added, so relations another
 * book's judgement stored stay.  Exemptions do not remove relations,
 * readers hide them.  Returns the number of relations stored (>= 0),
 * -EINVAL, or -errno. */
int idx_rels_set(struct idx *ix, const struct idx_judgement *v, size_t n);
/* The relations stored for book id, from its side (tag, cls_other and link
 * zeroed), ascending by other id, exemptions included; rows that do not
 * decode are skipped.  Returns 1 and *v (malloc'd, free()) when id was
 * judged on the fingerprint of tag (idx_fp_tag() of its entry): the list
 * is complete; 0 and nothing when it was not (never judged, judged on
 * another fingerprint, or an index upgraded from schema 4); -errno. */
int idx_rels_get(struct idx *ix, uint64_t id, uint64_t tag, struct idx_rel **v, size_t *n);
/* The books with a fingerprint and an id >= from that are not judged on
 * it, ascending, copies left out (never judged: their representative's
 * judgement holds for them): at most max into ids, *n of them.  Walks the
 * book table from from on (at a million books, hundreds of MB), so callers
 * walk it only when a catch-up is owed (idx_catchup_get()).  0 or -errno. */
int idx_unjudged(struct idx *ix, uint64_t from, uint64_t *ids, size_t max, size_t *n);
/* Whether the books of the index are owed a catch-up judgement (set by the
 * upgrade from schema 3 or 4, whose books have none): 1 and *from (the id
 * from which books may be unjudged), 0 when not owed, or -errno. */
int idx_catchup_get(struct idx *ix, uint64_t *from);
/* Records the catch-up's progress (books below from are judged) or, with
 * done, that it is over.  0 or -errno. */
int idx_catchup_set(struct idx *ix, uint64_t from, int done);
/* The stored links as a graph of texts, for clusters that do not chain
 * (groups.h): a unit is one text, the books of a group of copies (or a
 * book in none), except that a group holding an exempted pair gives each
 * of its books a unit of its own (alike with the others but the exempted
 * ones).  A link joins every unit of its one book's group to every unit of
 * the other's; exemptions remove the edge of two units when they cover
 * every pair of their books (exempted pairs are unique).  One pass over
 * the clusters, copies and exemptions tables. */
struct idx_link_graph {
	size_t nunits, nids;
	size_t *start;		/* nunits + 1: unit u is ids[start[u]..start[u + 1]) */
	uint64_t *ids;		/* every book of a unit, ascending within it */
	size_t nedges;
	uint32_t (*edges)[2];	/* unit pairs a < b, ascending, unique */
};

/* Fills *g (release with idx_link_graph_release(), also after an error).
 * 0, -ENOMEM, -EOVERFLOW, -errno of the index. */
int idx_link_graph(struct idx *ix, struct idx_link_graph *g);
void idx_link_graph_release(struct idx_link_graph *g);

/* Groups (size >= 2) of books with the same exact-text hash, same order
 * rules as idx_link_groups() (idx_test.h): by size (descending) then
 * smallest id; ids ascending within a group. */
int idx_text_groups(struct idx *ix, struct idx_groups *g);
void idx_groups_release(struct idx_groups *g);
/* Ids exempted from being duplicates of id: *ids malloc'd, ascending. */
int idx_exempt_ids(struct idx *ix, uint64_t id, uint64_t **ids, size_t *n);
/* Every exempted pair (a < b, dist 0), in ascending order: *pairs
 * malloc'd (NULL when there is none), *n.  0 or -errno. */
int idx_exemptions(struct idx *ix, struct idx_pair **pairs, size_t *n);

#define IDX_LIST_RECURSIVE 1u	/* every file under dir, names = full paths */
/* Lists dir ("" = the top): its files and the subdirectories that contain
 * indexed files, in byte order of the names; or, with IDX_LIST_RECURSIVE,
 * every file below it.  Free with idx_entries_free(). */
int idx_list(struct idx *ix, const char *dir, unsigned flags, struct idx_entry **ents, size_t *n);
void idx_entries_free(struct idx_entry *ents, size_t n);
/* Files in state IDX_FAILED, with their errors, by path.  Free with
 * idx_files_free(). */
int idx_errors(struct idx *ix, struct idx_file **files, size_t *n);
void idx_files_free(struct idx_file *files, size_t n);
/* Calls fn for every file in state IDX_FAILED or IDX_NOT_BOOK, with its
 * path and stored reason (NULL when none), both valid during the call only,
 * in key order (path order except around long paths), inside one read
 * transaction: fn must not call into the index.  Walks every file entry.
 * A negative return of fn stops the walk and is returned; else 0 or -errno. */
int idx_skipped_walk(struct idx *ix,
		     int (*fn)(void *arg, const char *path, enum idx_state state, const char *error),
		     void *arg);
int idx_counts(struct idx *ix, struct idx_counts *c);

#endif
