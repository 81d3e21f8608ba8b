/* idx.c - the LMDB index (see idx.h).  With idxcheck.c (the reads of a data
 * file that may be damaged) the only module that includes lmdb.h.
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
 *   uqkey   u32 pruning key -> postings (MDB_DUPSORT | MDB_DUPFIXED: 12
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
#include "idx.h"
#include "band.h"
#include "idxcheck.h"
#include "rsort.h"
#include "byteorder.h"

#include <errno.h>
#include <lmdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#define KEY_INLINE 480
#define PKEY_MAX (KEY_INLINE + 1 + 8)
#define MAP_MIN ((uint64_t)1 << 20)
#define MAP_DEFAULT ((uint64_t)256 << 20)
#define MAP_LIMIT ((uint64_t)1 << 40)
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
 * big-endian (exact: the views print what the comparison gave). */
#define REL_VERSION 1
#define REL_LEN 28
/* Judged mark (rel table, key id + 0): version, fingerprint tag. */
#define JUDGED_LEN 9

enum {
	DB_META, DB_FILES, DB_IDS, DB_BOOK, DB_REC, DB_SHBAND, DB_MHBAND, DB_TEXT, DB_EXEMPT,
	DB_FAIL, DB_UQKEY, DB_UQBOOK, DB_CLUSTER, DB_COPY, DB_REL, NDB
};
static const char *const db_names[NDB] = {
	"meta", "files", "ids", "book", "rec", "shband", "mhband", "text", "exempt", "fail",
	"uqkey", "uqbook", "clusters", "copies", "rel"
};

struct idx {
	MDB_env *env;
	MDB_dbi db[NDB];
	struct band_layout bl;
	pthread_mutex_t wlock;		/* one writer at a time */
	pthread_rwlock_t maplock;	/* held shared by every txn, exclusive to resize */
	int rebuilt;			/* enum idx_rebuild */
	uint64_t kept_files, kept_pairs;	/* carried over by the rebuild */
	/* idx_opts.progress, while idx_open() runs */
	int (*progress)(void *arg, enum idx_open_phase phase, uint64_t done, uint64_t total);
	void *progress_arg;
	/* the flusher: fdatasync within sync_ms of a commit */
	pthread_t flusher;
	pthread_mutex_t flock;
	pthread_cond_t fcond;
	int dirty, stopping, has_flusher;
	uint32_t sync_ms;
};

/* A write transaction and the meta values it caches until commit. */
struct wtx {
	struct idx *ix;
	MDB_txn *txn;
	int mapfull;
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

/* ---- the one place LMDB codes become errno ---- */

static int idx_err(int rc)
{
	switch (rc) {
	case MDB_SUCCESS:
		return 0;
	case MDB_NOTFOUND:
		return -ENOENT;
	case MDB_KEYEXIST:
		return -EEXIST;
	case MDB_MAP_FULL:
	case MDB_TXN_FULL:
	case MDB_PAGE_FULL:
		return -ENOSPC;
	case MDB_READERS_FULL:
	case MDB_TLS_FULL:
	case MDB_MAP_RESIZED:
		return -EAGAIN;
	case MDB_DBS_FULL:
		return -EMFILE;
	case MDB_BAD_VALSIZE:
		return -EINVAL;
	default:
		/* corruption, version mismatch, incompatible, internal */
		return rc > 0 ? -rc : -EIO;
	}
}

/* ---- byte order ---- */

static MDB_val mval(const void *p, size_t len)
{
	MDB_val v;

	v.mv_data = (void *)(uintptr_t)p;
	v.mv_size = len;
	return v;
}

static const uint8_t empty_val[1];

/* ---- paths ---- */

int idx_path_check(const char *path)
{
	const char *p = path, *seg;
	size_t len;

	if (!path)
		return -EINVAL;
	len = strlen(path);
	if (len == 0)
		return -EINVAL;
	if (len > IDX_PATH_MAX)
		return -ENAMETOOLONG;
	while (*p) {
		seg = p;
		while (*p && *p != '/')
			p++;
		if (p == seg || (p - seg == 1 && seg[0] == '.') ||
		    (p - seg == 2 && seg[0] == '.' && seg[1] == '.'))
			return -EINVAL;
		if (*p == '/' && !p[1])
			return -EINVAL;
		if (*p)
			p++;
	}
	return 0;
}

static void path_key(const char *path, size_t len, struct pkey *k)
{
	if (len <= KEY_INLINE) {
		memcpy(k->b, path, len);
		k->len = len;
		return;
	}
	memcpy(k->b, path, KEY_INLINE);
	k->b[KEY_INLINE] = 0;
	be_put(k->b + KEY_INLINE + 1, XXH3_64bits(path, len), 8);
	k->len = PKEY_MAX;
}

/* ---- records ---- */

static int frec_decode(const MDB_val *v, struct frec *f)
{
	const uint8_t *p = v->mv_data;

	if (v->mv_size < FREC_HDR || p[0] != FREC_VERSION)
		return -EIO;
	f->state = p[1];
	f->pathlen = (size_t)be_get(p + 2, 2);
	f->errlen = (size_t)be_get(p + 4, 2);
	f->flags = p[6];
	if (f->state < IDX_QUEUED || f->state > IDX_NOT_BOOK || f->pathlen == 0 ||
	    f->pathlen > IDX_PATH_MAX || f->errlen > IDX_ERR_MAX ||
	    v->mv_size != FREC_HDR + f->pathlen + f->errlen)
		return -EIO;
	f->id = be_get(p + 8, 8);
	f->st.size = be_get(p + 16, 8);
	f->st.mtime_ns = (int64_t)be_get(p + 24, 8);
	f->st.ctime_ns = (int64_t)be_get(p + 32, 8);
	f->st.ino = be_get(p + 40, 8);
	f->st.dev = be_get(p + 48, 8);
	memcpy(f->path, p + FREC_HDR, f->pathlen);
	f->path[f->pathlen] = '\0';
	memcpy(f->err, p + FREC_HDR + f->pathlen, f->errlen);
	f->err[f->errlen] = '\0';
	if (f->id == 0 || strlen(f->path) != f->pathlen || strlen(f->err) != f->errlen)
		return -EIO;
	return 0;
}

static size_t frec_encode(const struct frec *f, uint8_t *p)
{
	memset(p, 0, FREC_HDR);
	p[0] = FREC_VERSION;
	p[1] = f->state;
	be_put(p + 2, f->pathlen, 2);
	be_put(p + 4, f->errlen, 2);
	p[6] = f->flags;
	be_put(p + 8, f->id, 8);
	be_put(p + 16, f->st.size, 8);
	be_put(p + 24, (uint64_t)f->st.mtime_ns, 8);
	be_put(p + 32, (uint64_t)f->st.ctime_ns, 8);
	be_put(p + 40, f->st.ino, 8);
	be_put(p + 48, f->st.dev, 8);
	memcpy(p + FREC_HDR, f->path, f->pathlen);
	memcpy(p + FREC_HDR + f->pathlen, f->err, f->errlen);
	return FREC_HDR + f->pathlen + f->errlen;
}

static void frec_set_err(struct frec *f, const char *err)
{
	size_t len = err ? strlen(err) : 0;

	if (len > IDX_ERR_MAX)
		len = IDX_ERR_MAX;
	memcpy(f->err, err ? err : "", len);
	f->err[len] = '\0';
	f->errlen = len;
}

/* A decoded book record; mh points into the map (valid in its txn only)
 * or into the copy it was decoded from. */
struct brec {
	uint32_t version, rec_version, n_mh;
	uint8_t flags;
	uint8_t sh[IDX_SH_BYTES], th[IDX_SH_BYTES];
	uint8_t key[COPY_KEY];	/* zero in a version 1 record */
	const uint8_t *mh;
};

static int brec_decode(const MDB_val *v, struct brec *b)
{
	const uint8_t *p = v->mv_data;
	size_t hdr;

	if (v->mv_size < BOOK_HDR1 || (p[0] != BOOK_VERSION && p[0] != 1))
		return -EIO;
	b->version = p[0];
	hdr = p[0] == 1 ? BOOK_HDR1 : BOOK_HDR;
	b->n_mh = (uint32_t)be_get(p + 2, 2);
	if (b->n_mh > MH_MAX || v->mv_size != hdr + (size_t)b->n_mh * 8)
		return -EIO;
	b->flags = p[0] == 1 ? 0 : p[1];
	b->rec_version = (uint32_t)be_get(p + 4, 4);
	memcpy(b->sh, p + 8, IDX_SH_BYTES);
	memcpy(b->th, p + 24, IDX_SH_BYTES);
	memset(b->key, 0, COPY_KEY);
	if (p[0] != 1)
		memcpy(b->key, p + 40, COPY_KEY);
	b->mh = p + hdr;
	return 0;
}

static void file_out(const struct frec *r, struct idx_file *f)
{
	memset(f, 0, sizeof(*f));
	f->id = r->id;
	f->st = r->st;
	f->state = (enum idx_state)r->state;
}

static int file_copy_strings(const struct frec *r, struct idx_file *f)
{
	f->path = strdup(r->path);
	if (!f->path)
		return -ENOMEM;
	if (r->errlen) {
		f->error = strdup(r->err);
		if (!f->error) {
			free(f->path);
			f->path = NULL;
			return -ENOMEM;
		}
	}
	return 0;
}

void idx_file_release(struct idx_file *f)
{
	if (!f)
		return;
	free(f->path);
	free(f->error);
	f->path = NULL;
	f->error = NULL;
}

/* ---- transactions ---- */

/* Adopts a map size another process grew.  Called without maplock held. */
static void adopt_map(struct idx *ix)
{
	pthread_rwlock_wrlock(&ix->maplock);
	mdb_env_set_mapsize(ix->env, 0);
	pthread_rwlock_unlock(&ix->maplock);
}

static int rtx_begin(struct idx *ix, MDB_txn **txn)
{
	int rc;

	for (;;) {
		pthread_rwlock_rdlock(&ix->maplock);
		rc = mdb_txn_begin(ix->env, NULL, MDB_RDONLY, txn);
		if (rc == 0)
			return 0;
		pthread_rwlock_unlock(&ix->maplock);
		if (rc != MDB_MAP_RESIZED)
			return idx_err(rc);
		adopt_map(ix);
	}
}

static void rtx_end(struct idx *ix, MDB_txn *txn)
{
	mdb_txn_abort(txn);
	pthread_rwlock_unlock(&ix->maplock);
}

static int grow_map(struct idx *ix)
{
	MDB_envinfo info;
	int ret = 0;

	pthread_rwlock_wrlock(&ix->maplock);
	mdb_env_info(ix->env, &info);
	if ((uint64_t)info.me_mapsize >= MAP_LIMIT)
		ret = -ENOSPC;
	else
		ret = idx_err(mdb_env_set_mapsize(ix->env, info.me_mapsize * 2));
	pthread_rwlock_unlock(&ix->maplock);
	return ret;
}

static int w_get(struct wtx *w, int db, const void *k, size_t klen, MDB_val *v)
{
	MDB_val key = mval(k, klen);

	return idx_err(mdb_get(w->txn, w->ix->db[db], &key, v));
}

static int w_put(struct wtx *w, int db, const void *k, size_t klen, const void *v, size_t vlen)
{
	MDB_val key = mval(k, klen), val = mval(v ? v : empty_val, vlen);
	int rc = mdb_put(w->txn, w->ix->db[db], &key, &val, 0);

	if (rc == MDB_MAP_FULL)
		w->mapfull = 1;
	return idx_err(rc);
}

/* Deleting a missing key is not an error. */
static int w_del(struct wtx *w, int db, const void *k, size_t klen)
{
	MDB_val key = mval(k, klen);
	int rc = mdb_del(w->txn, w->ix->db[db], &key, NULL);

	if (rc == MDB_MAP_FULL)
		w->mapfull = 1;
	return rc == MDB_NOTFOUND ? 0 : idx_err(rc);
}

static int meta_load(struct wtx *w)
{
	MDB_val v;
	int ret, k;

	if (w->meta_loaded)
		return 0;
	w->nextid = 1;
	memset(w->counts, 0, sizeof(w->counts));
	ret = w_get(w, DB_META, "nextid", 6, &v);
	if (ret == 0 && v.mv_size == 8)
		w->nextid = be_get(v.mv_data, 8);
	else if (ret && ret != -ENOENT)
		return ret;
	ret = w_get(w, DB_META, "counts", 6, &v);
	if (ret == 0 && v.mv_size == sizeof(w->counts))
		for (k = 0; k <= IDX_NSTATES; k++)
			w->counts[k] = be_get((const uint8_t *)v.mv_data + 8 * k, 8);
	else if (ret && ret != -ENOENT)
		return ret;
	w->meta_loaded = 1;
	return 0;
}

static int meta_flush(struct wtx *w)
{
	uint8_t b[8 * (IDX_NSTATES + 1)];
	int ret, k;

	if (!w->meta_dirty)
		return 0;
	be_put(b, w->nextid, 8);
	ret = w_put(w, DB_META, "nextid", 6, b, 8);
	if (ret)
		return ret;
	for (k = 0; k <= IDX_NSTATES; k++)
		be_put(b + 8 * k, w->counts[k], 8);
	return w_put(w, DB_META, "counts", 6, b, sizeof(b));
}

/* Moves the counters from one (state, has fingerprint) to another; 0 = none. */
static int count_move(struct wtx *w, uint8_t from_state, int from_fp, uint8_t to_state, int to_fp)
{
	int ret = meta_load(w);

	if (ret)
		return ret;
	if (from_state && w->counts[from_state])
		w->counts[from_state]--;
	if (from_fp && w->counts[0])
		w->counts[0]--;
	if (to_state)
		w->counts[to_state]++;
	if (to_fp)
		w->counts[0]++;
	w->meta_dirty = 1;
	return 0;
}

typedef int (*write_fn)(struct wtx *w, void *arg);

/* Runs fn in one write transaction: commit when it returns >= 0 (returned),
 * abort otherwise; when the map was full, grow it and run fn again. */
static int idx_write(struct idx *ix, write_fn fn, void *arg)
{
	struct wtx w;
	int ret, rc;

	pthread_mutex_lock(&ix->wlock);
	for (;;) {
		memset(&w, 0, sizeof(w));
		w.ix = ix;
		pthread_rwlock_rdlock(&ix->maplock);
		rc = mdb_txn_begin(ix->env, NULL, 0, &w.txn);
		if (rc) {
			pthread_rwlock_unlock(&ix->maplock);
			if (rc == MDB_MAP_RESIZED) {
				adopt_map(ix);
				continue;
			}
			ret = idx_err(rc);
			break;
		}
		ret = fn(&w, arg);
		if (ret >= 0) {
			int r2 = meta_flush(&w);

			if (r2 == 0) {
				rc = mdb_txn_commit(w.txn);
				if (rc == MDB_MAP_FULL)
					w.mapfull = 1;
				if (rc)
					ret = idx_err(rc);
			} else {
				mdb_txn_abort(w.txn);
				ret = r2;
			}
		} else {
			mdb_txn_abort(w.txn);
		}
		pthread_rwlock_unlock(&ix->maplock);
		if (ret >= 0 && ix->has_flusher) {
			pthread_mutex_lock(&ix->flock);
			if (!ix->dirty) {
				ix->dirty = 1;
				pthread_cond_signal(&ix->fcond);
			}
			pthread_mutex_unlock(&ix->flock);
		}
		if (ret < 0 && w.mapfull) {
			ret = grow_map(ix);
			if (ret == 0)
				continue;
		}
		break;
	}
	pthread_mutex_unlock(&ix->wlock);
	return ret;
}

/* ---- file and book helpers inside a write txn ---- */

static int file_load_key(struct wtx *w, const struct pkey *k, const char *path, struct frec *f)
{
	MDB_val v;
	int ret = w_get(w, DB_FILES, k->b, k->len, &v);

	if (ret)
		return ret;
	ret = frec_decode(&v, f);
	if (ret == 0 && path && strcmp(path, f->path) != 0)
		ret = -EIO;	/* a hash collision of two long paths */
	return ret;
}

static int file_store(struct wtx *w, const struct frec *f)
{
	uint8_t buf[FREC_HDR + IDX_PATH_MAX + IDX_ERR_MAX];
	struct pkey k;
	size_t len = frec_encode(f, buf);

	path_key(f->path, f->pathlen, &k);
	return w_put(w, DB_FILES, k.b, k.len, buf, len);
}

static int file_by_id(struct wtx *w, uint64_t id, struct frec *f)
{
	uint8_t kb[8];
	struct pkey k;
	MDB_val v;
	int ret;

	be_put(kb, id, 8);
	ret = w_get(w, DB_IDS, kb, 8, &v);
	if (ret)
		return ret;
	if (v.mv_size == 0 || v.mv_size > PKEY_MAX)
		return -EIO;
	memcpy(k.b, v.mv_data, v.mv_size);
	k.len = v.mv_size;
	ret = file_load_key(w, &k, NULL, f);
	if (ret == 0 && f->id != id)
		ret = -EIO;
	return ret;
}

static void shband_key(const struct band_layout *bl, const uint8_t sh[IDX_SH_BYTES], uint32_t b,
		       uint64_t id, uint8_t *key, size_t *klen)
{
	key[0] = (uint8_t)b;
	be_put(key + 1, band_value(bl, sh, b), bl->value_bytes);
	be_put(key + 1 + bl->value_bytes, id, 8);
	*klen = 1 + (size_t)bl->value_bytes + 8;
}

static int shband_apply(struct wtx *w, const uint8_t sh[IDX_SH_BYTES], uint64_t id, int add)
{
	uint8_t key[1 + 8 + 8];
	size_t klen;
	uint32_t b;
	int ret;

	for (b = 0; b < w->ix->bl.nbands; b++) {
		shband_key(&w->ix->bl, sh, b, id, key, &klen);
		ret = add ? w_put(w, DB_SHBAND, key, klen, sh, IDX_SH_BYTES)
			  : w_del(w, DB_SHBAND, key, klen);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- pruning keys (uqkey, uqbook) ---- */

#define UQ_POSTING 12	/* bytes of a uqkey posting: id, key count, high-key count */

/* Keys with IDX_UQ_HI among n ascending big-endian keys: the tail. */
static uint32_t uq_count_hi(const uint8_t *keys, uint32_t n)
{
	uint32_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (keys[4 * (size_t)mid] & 0x80)
			hi = mid;
		else
			lo = mid + 1;
	}
	return n - lo;
}

/* The posting of book id, which has n keys, nhi of them with IDX_UQ_HI
 * (n <= IDX_UQ_MAX, so both fit 16 bits). */
static void uq_posting(uint8_t p[UQ_POSTING], uint64_t id, uint32_t n, uint32_t nhi)
{
	be_put(p, id, 8);
	be_put(p + 8, n, 2);
	be_put(p + 10, nhi, 2);
}

/* Removes the pruning-key postings of id (none stored: nothing to do), and
 * its uqbook row unless keep_row (a representative demoted to a copy keeps
 * its keys, to have its postings written again if it is promoted). */
static int uq_remove(struct wtx *w, uint64_t id, int keep_row)
{
	uint8_t kb[8], key[4], post[UQ_POSTING];
	uint32_t *keys = NULL, n, i;
	MDB_val v;
	int ret, rc;

	be_put(kb, id, 8);
	ret = w_get(w, DB_UQBOOK, kb, 8, &v);
	if (ret == -ENOENT)
		return 0;
	if (ret)
		return ret;
	n = (uint32_t)(v.mv_size / 4);
	uq_posting(post, id, n, uq_count_hi(v.mv_data, n));
	if (n) {
		/* copy out: the deletes below may move the page */
		keys = malloc(n * sizeof(*keys));
		if (!keys)
			return -ENOMEM;
		for (i = 0; i < n; i++)
			keys[i] = (uint32_t)be_get((const uint8_t *)v.mv_data + 4 * i, 4);
	}
	for (i = 0; ret == 0 && i < n; i++) {
		MDB_val k = mval(key, 4), d = mval(post, UQ_POSTING);

		be_put(key, keys[i], 4);
		rc = mdb_del(w->txn, w->ix->db[DB_UQKEY], &k, &d);
		if (rc == MDB_MAP_FULL)
			w->mapfull = 1;
		ret = rc == MDB_NOTFOUND ? 0 : idx_err(rc);
	}
	free(keys);
	return ret || keep_row ? ret : w_del(w, DB_UQBOOK, kb, 8);
}

/* Puts the postings of id for its n big-endian keys (uqbook's value). */
static int uq_put_postings(struct wtx *w, uint64_t id, const uint8_t *keys, uint32_t n)
{
	uint8_t post[UQ_POSTING];
	MDB_cursor *cur = NULL;
	uint32_t i;
	int ret = 0, rc;

	uq_posting(post, id, n, uq_count_hi(keys, n));
	/* one cursor for every posting (mdb_put() sets one up per call) */
	rc = mdb_cursor_open(w->txn, w->ix->db[DB_UQKEY], &cur);
	if (rc)
		return idx_err(rc);
	for (i = 0; ret == 0 && i < n; i++) {
		MDB_val k = mval(keys + 4 * (size_t)i, 4), d = mval(post, UQ_POSTING);

		rc = mdb_cursor_put(cur, &k, &d, 0);
		if (rc == MDB_MAP_FULL)
			w->mapfull = 1;
		ret = rc == MDB_KEYEXIST ? 0 : idx_err(rc);
	}
	mdb_cursor_close(cur);
	return ret;
}

/* A row of a two-way pair table copied out of the map. */
struct pairrow {
	uint64_t other;
	uint8_t fwd[REL_LEN], rev[REL_LEN];	/* the values of id + other, other + id */
	uint8_t nfwd, nrev;
};

/* The value v copied into buf (room REL_LEN; longer values, which no pair
 * table holds, are cut, and decode as nothing). */
static uint8_t pair_val(const MDB_val *v, uint8_t *buf)
{
	size_t n = v->mv_size < REL_LEN ? v->mv_size : REL_LEN;

	if (n)
		memcpy(buf, v->mv_data, n);
	return (uint8_t)n;
}

/* Removes every pair of the two-way pair table db (exemptions, cluster
 * links, relations) that involves id; with move, each pair (id, x) becomes
 * (to, x) with the same values both ways (none with x == to).  The rel
 * table's judged mark (id, 0) is one-way: it goes, or moves to to. */
static int pairs_move(struct wtx *w, int db, uint64_t id, int move, uint64_t to)
{
	uint8_t key[16], rev[16];
	struct pairrow *rows = NULL;
	size_t n = 0, cap = 0, i;
	MDB_cursor *cur = NULL;
	MDB_val k, v;
	int rc, ret = 0;

	be_put(key, id, 8);
	rc = mdb_cursor_open(w->txn, w->ix->db[db], &cur);
	if (rc)
		return idx_err(rc);
	k = mval(key, 8);
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (k.mv_size != 16 || memcmp(k.mv_data, key, 8) != 0)
			break;
		if (n == cap) {
			struct pairrow *p;

			cap = cap ? cap * 2 : 16;
			p = realloc(rows, cap * sizeof(*p));
			if (!p) {
				ret = -ENOMEM;
				goto out;
			}
			rows = p;
		}
		rows[n].other = be_get((const uint8_t *)k.mv_data + 8, 8);
		rows[n].nfwd = pair_val(&v, rows[n].fwd);
		rows[n++].nrev = 0;
	}
	mdb_cursor_close(cur);
	cur = NULL;
	for (i = 0; i < n && ret == 0; i++) {
		struct pairrow *r = &rows[i];

		be_put(key + 8, r->other, 8);
		be_put(rev, r->other, 8);
		be_put(rev + 8, id, 8);
		if (move && r->other && w_get(w, db, rev, 16, &v) == 0)
			r->nrev = pair_val(&v, r->rev);
		ret = w_del(w, db, key, 16);
		if (ret == 0 && r->other)
			ret = w_del(w, db, rev, 16);
		if (ret == 0 && move && r->other != to) {
			be_put(rev, to, 8);
			be_put(rev + 8, r->other, 8);
			ret = w_put(w, db, rev, 16, r->fwd, r->nfwd);
			if (ret == 0 && r->other) {
				be_put(rev, r->other, 8);
				be_put(rev + 8, to, 8);
				ret = w_put(w, db, rev, 16, r->rev, r->nrev);
			}
		}
	}
out:
	if (cur)
		mdb_cursor_close(cur);
	free(rows);
	return ret;
}

/* A representative's cluster links, relations and judged mark go to to,
 * which takes its place with the same fingerprint (its tag, so the mark
 * holds for it, and the same verdicts). */
static int judgement_move(struct wtx *w, uint64_t id, uint64_t to)
{
	int ret = pairs_move(w, DB_CLUSTER, id, 1, to);

	return ret ? ret : pairs_move(w, DB_REL, id, 1, to);
}

static int pairs_remove_all(struct wtx *w, int db, uint64_t id)
{
	return pairs_move(w, db, id, 0, 0);
}

/* The copy key of a fingerprint: the XXH3-128 of everything the band
 * tables are written from (simhash, text hash, record version, min-hash
 * bands, pruning keys; the bands and keys as stored, big-endian), so two
 * books with one key find exactly the same candidates and compare alike
 * with every other book.  mh: n_mh * 8 bytes, uq: n_uq * 4 bytes. */
static int copy_key(const uint8_t sh[IDX_SH_BYTES], const uint8_t th[IDX_SH_BYTES],
		    uint32_t rec_version, const uint8_t *mh, uint32_t n_mh, const uint8_t *uq,
		    uint32_t n_uq, uint8_t key[COPY_KEY])
{
	size_t len = 2 * IDX_SH_BYTES + 4 + 2 + (size_t)n_mh * 8 + 4 + (size_t)n_uq * 4;
	uint8_t *buf = malloc(len), *p = buf;
	XXH128_hash_t h;

	if (!buf)
		return -ENOMEM;
	memcpy(p, sh, IDX_SH_BYTES);
	memcpy(p + IDX_SH_BYTES, th, IDX_SH_BYTES);
	p += 2 * IDX_SH_BYTES;
	be_put(p, rec_version, 4);
	be_put(p + 4, n_mh, 2);
	p += 6;
	if (n_mh)
		memcpy(p, mh, (size_t)n_mh * 8);
	p += (size_t)n_mh * 8;
	be_put(p, n_uq, 4);
	if (n_uq)
		memcpy(p + 4, uq, (size_t)n_uq * 4);
	h = XXH3_128bits(buf, len);
	free(buf);
	be_put(key, h.high64, 8);
	be_put(key + 8, h.low64, 8);
	return 0;
}

/* The book row of id copied out of the map (*row, malloc'd) and decoded
 * into *b (pointing into *row).  -ENOENT when there is none, -EIO when it
 * does not decode. */
static int book_load(struct wtx *w, uint64_t id, uint8_t **row, struct brec *b)
{
	uint8_t kb[8];
	MDB_val v;
	int ret;

	*row = NULL;
	be_put(kb, id, 8);
	ret = w_get(w, DB_BOOK, kb, 8, &v);
	if (ret)
		return ret;
	*row = malloc(v.mv_size ? v.mv_size : 1);
	if (!*row)
		return -ENOMEM;
	memcpy(*row, v.mv_data, v.mv_size);
	v.mv_data = *row;
	ret = brec_decode(&v, b);
	if (ret) {
		free(*row);
		*row = NULL;
	}
	return ret;
}

/* Sets the flags byte of id's book row (a version 2 row; others are left). */
static int book_set_flags(struct wtx *w, uint64_t id, uint8_t flags)
{
	uint8_t *row = NULL, kb[8];
	struct brec b;
	int ret = book_load(w, id, &row, &b);

	if (ret == 0 && b.version == BOOK_VERSION && row[1] != flags) {
		row[1] = flags;
		be_put(kb, id, 8);
		ret = w_put(w, DB_BOOK, kb, 8, row, BOOK_HDR + (size_t)b.n_mh * 8);
	}
	free(row);
	return ret;
}

/* Adds (add) or removes the band entries of book id described by b: the
 * simhash bands, the min-hash bands and the pruning-key postings (written
 * from its uqbook row; removing keeps that row).  Only a representative
 * has them. */
static int bands_apply(struct wtx *w, uint64_t id, const struct brec *b, int add)
{
	uint8_t key[18], kb[8];
	MDB_val v;
	uint32_t i;
	int ret = shband_apply(w, b->sh, id, add);

	for (i = 0; ret == 0 && i < b->n_mh; i++) {
		be_put(key, i, 2);
		memcpy(key + 2, b->mh + 8 * (size_t)i, 8);
		be_put(key + 10, id, 8);
		ret = add ? w_put(w, DB_MHBAND, key, 18, NULL, 0) : w_del(w, DB_MHBAND, key, 18);
	}
	if (ret)
		return ret;
	if (!add)
		return uq_remove(w, id, 1);
	be_put(kb, id, 8);
	ret = w_get(w, DB_UQBOOK, kb, 8, &v);
	if (ret == -ENOENT)
		return 0;
	if (ret == 0 && (v.mv_size % 4 || v.mv_size / 4 > IDX_UQ_MAX))
		return 0;	/* a malformed row: no postings, as in rebuild_uqkey */
	if (ret == 0) {
		uint8_t *keys = malloc(v.mv_size ? v.mv_size : 1);

		/* copy out: the puts may move the page */
		if (!keys)
			return -ENOMEM;
		memcpy(keys, v.mv_data, v.mv_size);
		ret = uq_put_postings(w, id, keys, (uint32_t)(v.mv_size / 4));
		free(keys);
	}
	return ret;
}

/* 1 when book id's row has copy key key (a copies row naming a book that
 * is not there, planted or damaged, is ignored). */
static int copy_member(struct wtx *w, const uint8_t key[COPY_KEY], uint64_t id)
{
	uint8_t kb[8];
	struct brec b;
	MDB_val v;

	be_put(kb, id, 8);
	return w_get(w, DB_BOOK, kb, 8, &v) == 0 && brec_decode(&v, &b) == 0 &&
	       b.version == BOOK_VERSION && memcmp(b.key, key, COPY_KEY) == 0;
}

/* The (at most) two smallest ids of the copy group key other than skip:
 * *n of them (0, 1 or 2) in ids[]. */
static int group_first(struct wtx *w, const uint8_t key[COPY_KEY], uint64_t skip, uint64_t ids[2],
		       size_t *n)
{
	uint8_t k0[COPY_KEY + 8];
	MDB_cursor *cur = NULL;
	MDB_val k, v;
	int rc;

	*n = 0;
	memcpy(k0, key, COPY_KEY);
	be_put(k0 + COPY_KEY, 0, 8);
	rc = mdb_cursor_open(w->txn, w->ix->db[DB_COPY], &cur);
	if (rc)
		return idx_err(rc);
	k = mval(k0, sizeof(k0));
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0 && *n < 2;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		uint64_t id;

		if (k.mv_size != sizeof(k0) || memcmp(k.mv_data, key, COPY_KEY) != 0)
			break;
		id = be_get((const uint8_t *)k.mv_data + COPY_KEY, 8);
		if (id != skip && copy_member(w, key, id))
			ids[(*n)++] = id;
	}
	mdb_cursor_close(cur);
	return rc == 0 || rc == MDB_NOTFOUND ? 0 : idx_err(rc);
}

/* Book id leaves its copy group (b: its book row).  A representative's band
 * entries go; when copies remain, the next one (smallest id) becomes the
 * representative: its band entries are written from its stored book row and
 * pruning keys, and it takes over the cluster links, relations and judged
 * mark, which hold for it as they held for id (the same fingerprint gives
 * the same verdicts and the same tag), so no comparison is needed.  A copy
 * leaving only updates the representative's flag. */
static int group_leave(struct wtx *w, uint64_t id, const struct brec *b)
{
	uint8_t k[COPY_KEY + 8], *row = NULL;
	uint64_t next[2];
	struct brec nb;
	size_t n = 0;
	int ret = 0;

	if (b->version == BOOK_VERSION) {
		ret = group_first(w, b->key, id, next, &n);
		if (ret == 0) {
			memcpy(k, b->key, COPY_KEY);
			be_put(k + COPY_KEY, id, 8);
			ret = w_del(w, DB_COPY, k, sizeof(k));
		}
		if (ret)
			return ret;
	}
	if (b->flags & BOOK_F_COPY)
		return n == 1 ? book_set_flags(w, next[0], 0) : 0;
	ret = bands_apply(w, id, b, 0);
	if (ret || n == 0)
		return ret;
	ret = book_load(w, next[0], &row, &nb);
	if (ret == 0)
		ret = bands_apply(w, next[0], &nb, 1);
	if (ret == 0)
		ret = book_set_flags(w, next[0], n > 1 ? BOOK_F_COPIES : 0);
	if (ret == 0)
		ret = judgement_move(w, id, next[0]);
	free(row);
	return ret;
}

/* Removes the fingerprint of id: book, record and every band entry. */
static int book_remove(struct wtx *w, uint64_t id)
{
	uint8_t kb[8], key[IDX_SH_BYTES + 8], *row = NULL;
	struct brec b;
	int ret, had_row = 0;

	be_put(kb, id, 8);
	ret = book_load(w, id, &row, &b);
	if (ret == -ENOENT || ret == -EIO) {
		/* none, or one that does not decode: only its own keys to find */
		ret = 0;
		goto rec;
	}
	if (ret)
		return ret;
	had_row = 1;
	ret = group_leave(w, id, &b);
	if (ret == 0) {
		memcpy(key, b.th, IDX_SH_BYTES);
		be_put(key + IDX_SH_BYTES, id, 8);
		ret = w_del(w, DB_TEXT, key, IDX_SH_BYTES + 8);
	}
	if (ret == 0)
		ret = w_del(w, DB_BOOK, kb, 8);
	free(row);
	if (ret)
		return ret;
rec:
	/* group_leave() removed a representative's postings, keeping the row */
	ret = had_row ? w_del(w, DB_UQBOOK, kb, 8) : uq_remove(w, id, 0);
	return ret ? ret : w_del(w, DB_REC, kb, 8);
}

/* Stores the fingerprint of id (which has none: book_remove() ran).  The
 * book joins the group of its copy key: alone or with a larger id as
 * representative it gets the band entries (the old representative's go, and
 * its cluster links, relations and judged mark move over); else it is a
 * copy and only gets its rows. */
static int book_add(struct wtx *w, uint64_t id, const struct idx_fp *fp)
{
	uint8_t kb[8], key[IDX_SH_BYTES + 8], ck[COPY_KEY + 8], *buf = NULL, *rec = NULL;
	uint8_t *uq = NULL, *orow = NULL;
	size_t blen = BOOK_HDR + (size_t)fp->n_mh_bands * 8, n = 0;
	uint64_t first[2];
	struct brec b, ob;
	uint32_t i;
	int ret;

	be_put(kb, id, 8);
	buf = calloc(1, blen);
	rec = malloc(4 + fp->rec_len);
	uq = malloc(fp->n_uq_keys ? (size_t)fp->n_uq_keys * 4 : 1);
	if (!buf || !rec || !uq) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < fp->n_uq_keys; i++)
		be_put(uq + 4 * (size_t)i, fp->uq_keys[i], 4);
	buf[0] = BOOK_VERSION;
	be_put(buf + 2, fp->n_mh_bands, 2);
	be_put(buf + 4, fp->rec_version, 4);
	memcpy(buf + 8, fp->simhash, IDX_SH_BYTES);
	memcpy(buf + 24, fp->text_hash, IDX_SH_BYTES);
	for (i = 0; i < fp->n_mh_bands; i++)
		be_put(buf + BOOK_HDR + 8 * i, fp->mh_bands[i], 8);
	ret = copy_key(fp->simhash, fp->text_hash, fp->rec_version, buf + BOOK_HDR,
		       fp->n_mh_bands, uq, fp->n_uq_keys, buf + 40);
	if (ret == 0)
		ret = group_first(w, buf + 40, id, first, &n);
	if (ret)
		goto out;
	if (n && first[0] < id) {
		buf[1] = BOOK_F_COPY;
		if (n == 1)
			ret = book_set_flags(w, first[0], BOOK_F_COPIES);
	} else if (n) {
		/* id takes over from the representative first[0] */
		buf[1] = BOOK_F_COPIES;
		ret = book_load(w, first[0], &orow, &ob);
		if (ret == 0)
			ret = bands_apply(w, first[0], &ob, 0);
		if (ret == 0)
			ret = book_set_flags(w, first[0], BOOK_F_COPY);
		if (ret == 0)
			ret = judgement_move(w, first[0], id);
	}
	if (ret == 0)
		ret = w_put(w, DB_BOOK, kb, 8, buf, blen);
	if (ret)
		goto out;
	be_put(rec, fp->rec_version, 4);
	if (fp->rec_len)
		memcpy(rec + 4, fp->rec, fp->rec_len);
	ret = w_put(w, DB_REC, kb, 8, rec, 4 + fp->rec_len);
	if (ret == 0) {
		memcpy(ck, buf + 40, COPY_KEY);
		be_put(ck + COPY_KEY, id, 8);
		ret = w_put(w, DB_COPY, ck, sizeof(ck), NULL, 0);
	}
	if (ret == 0) {
		memcpy(key, fp->text_hash, IDX_SH_BYTES);
		be_put(key + IDX_SH_BYTES, id, 8);
		ret = w_put(w, DB_TEXT, key, IDX_SH_BYTES + 8, NULL, 0);
	}
	if (ret == 0 && fp->n_uq_keys)
		ret = w_put(w, DB_UQBOOK, kb, 8, uq, (size_t)fp->n_uq_keys * 4);
	if (ret == 0 && !(buf[1] & BOOK_F_COPY)) {
		MDB_val v = mval(buf, blen);

		ret = brec_decode(&v, &b);
		if (ret == 0)
			ret = bands_apply(w, id, &b, 1);
	}
out:
	free(orow);
	free(buf);
	free(rec);
	free(uq);
	return ret;
}

/* Deletes a file entry entirely. */
static int file_remove(struct wtx *w, const struct frec *f)
{
	uint8_t kb[8];
	struct pkey k;
	int ret;

	be_put(kb, f->id, 8);
	ret = book_remove(w, f->id);
	if (ret == 0)
		ret = pairs_remove_all(w, DB_EXEMPT, f->id);
	if (ret == 0)
		ret = pairs_remove_all(w, DB_CLUSTER, f->id);
	if (ret == 0)
		ret = pairs_remove_all(w, DB_REL, f->id);
	if (ret == 0)
		ret = w_del(w, DB_FAIL, kb, 8);
	if (ret == 0)
		ret = w_del(w, DB_IDS, kb, 8);
	if (ret)
		return ret;
	path_key(f->path, f->pathlen, &k);
	ret = w_del(w, DB_FILES, k.b, k.len);
	if (ret)
		return ret;
	return count_move(w, f->state, f->flags & FLAG_FP, 0, 0);
}

static int flist_push(struct flist *l, const struct frec *f)
{
	if (l->n == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 8;
		struct frec *p = realloc(l->v, nc * sizeof(*p));

		if (!p)
			return -ENOMEM;
		l->v = p;
		l->cap = nc;
	}
	l->v[l->n++] = *f;
	return 0;
}

/* Cursor over the files whose path starts with prefix (plen bytes), in key
 * order.  Calls fn for each; stops early when fn returns non-zero (> 0 means
 * stop without error).  On each call *next may be set to a key to continue
 * from (skipping a subtree); next->len == 0 means the next key. */
typedef int (*files_fn)(const struct frec *f, void *arg, struct pkey *next);

static int files_under(MDB_txn *txn, MDB_dbi dbi, const char *prefix, size_t plen, files_fn fn,
		       void *arg)
{
	size_t kplen = plen <= KEY_INLINE ? plen : KEY_INLINE;
	struct frec *f = NULL;
	MDB_cursor *cur = NULL;
	struct pkey next;
	MDB_val k, v;
	int rc, ret = 0;

	f = malloc(sizeof(*f));
	if (!f)
		return -ENOMEM;
	rc = mdb_cursor_open(txn, dbi, &cur);
	if (rc) {
		ret = idx_err(rc);
		goto out;
	}
	k = mval(prefix, kplen);
	rc = kplen ? mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE) : mdb_cursor_get(cur, &k, &v, MDB_FIRST);
	while (rc == 0) {
		if (k.mv_size < kplen || memcmp(k.mv_data, prefix, kplen) != 0)
			break;
		next.len = 0;
		if (frec_decode(&v, f) == 0 && f->pathlen >= plen && memcmp(f->path, prefix, plen) == 0) {
			ret = fn(f, arg, &next);
			if (ret)
				break;
		}
		if (next.len) {
			k = mval(next.b, next.len);
			rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
		} else {
			rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
		}
	}
	if (rc && rc != MDB_NOTFOUND && ret == 0)
		ret = idx_err(rc);
out:
	if (cur)
		mdb_cursor_close(cur);
	free(f);
	return ret < 0 ? ret : 0;
}

static int collect_fn(const struct frec *f, void *arg, struct pkey *next)
{
	(void)next;
	return flist_push(arg, f);
}

/* Collects the file at path and every file under path + "/". */
static int collect_tree(struct wtx *w, const char *path, struct flist *l)
{
	size_t len = strlen(path);
	struct frec *f = NULL;
	struct pkey k;
	char *prefix = NULL;
	int ret;

	f = malloc(sizeof(*f));
	prefix = malloc(len + 2);
	if (!f || !prefix) {
		ret = -ENOMEM;
		goto out;
	}
	path_key(path, len, &k);
	ret = file_load_key(w, &k, path, f);
	if (ret == 0)
		ret = flist_push(l, f);
	else if (ret == -ENOENT || ret == -EIO)
		ret = 0;
	if (ret)
		goto out;
	memcpy(prefix, path, len);
	prefix[len] = '/';
	prefix[len + 1] = '\0';
	ret = files_under(w->txn, w->ix->db[DB_FILES], prefix, len + 1, collect_fn, l);
out:
	free(f);
	free(prefix);
	return ret;
}

/* ---- the flusher ---- */

static void *flusher_main(void *p)
{
	struct idx *ix = p;
	struct timespec ts;

	pthread_mutex_lock(&ix->flock);
	while (!ix->stopping) {
		if (!ix->dirty) {
			pthread_cond_wait(&ix->fcond, &ix->flock);
			continue;
		}
		/* let the writes of one interval gather, then sync them at once */
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += ix->sync_ms / 1000;
		ts.tv_nsec += (long)(ix->sync_ms % 1000) * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		while (!ix->stopping && pthread_cond_timedwait(&ix->fcond, &ix->flock, &ts) == 0)
			;
		ix->dirty = 0;
		pthread_mutex_unlock(&ix->flock);
		/* without MDB_WRITEMAP this is an fdatasync of the data file:
		 * it does not touch the map, so no maplock */
		mdb_env_sync(ix->env, 1);
		pthread_mutex_lock(&ix->flock);
	}
	pthread_mutex_unlock(&ix->flock);
	return NULL;
}

static void flusher_stop(struct idx *ix)
{
	if (!ix->has_flusher)
		return;
	pthread_mutex_lock(&ix->flock);
	ix->stopping = 1;
	pthread_cond_signal(&ix->fcond);
	pthread_mutex_unlock(&ix->flock);
	pthread_join(ix->flusher, NULL);
	ix->has_flusher = 0;
}

/* ---- open, schema, close ---- */

/* Tells opts.progress how far an upgrade or rebuild is: 0, or -ECANCELED
 * when the caller wants the open stopped. */
static int open_progress(struct idx *ix, enum idx_open_phase phase, uint64_t done,
			 uint64_t total)
{
	if (!ix->progress)
		return 0;
	return ix->progress(ix->progress_arg, phase, done, total) ? -ECANCELED : 0;
}

static int env_open(struct idx *ix, const char *dir, uint64_t map_size)
{
	int rc;

	rc = mdb_env_create(&ix->env);
	if (rc)
		return idx_err(rc);
	rc = mdb_env_set_maxdbs(ix->env, NDB + 4);
	if (rc == 0)
		rc = mdb_env_set_maxreaders(ix->env, 512);
	if (rc == 0)
		rc = mdb_env_set_mapsize(ix->env, map_size);
	if (rc == 0)
		rc = mdb_env_open(ix->env, dir, MDB_NOTLS | MDB_NOSYNC, 0600);
	if (rc == 0) {
		int dead = 0;

		/* free reader slots left by a process that died mid-read */
		rc = mdb_reader_check(ix->env, &dead);
	}
	if (rc) {
		mdb_env_close(ix->env);
		ix->env = NULL;
	}
	return rc;	/* raw: the caller tells corruption from other errors */
}

static int env_remove(const char *dir)
{
	static const char *const names[] = { "data.mdb", "lock.mdb" };
	char p[4096];
	size_t i;

	for (i = 0; i < 2; i++) {
		if (snprintf(p, sizeof(p), "%s/%s", dir, names[i]) >= (int)sizeof(p))
			return -ENAMETOOLONG;
		if (unlink(p) && errno != ENOENT)
			return -errno;
	}
	return 0;
}

/* ---- carrying a person's marks over a rebuild ----
 *
 * The "not a duplicate" marks are the only thing in the index a scan cannot
 * recreate, and they are stored by book id.  So a rebuild keeps every
 * file's path -> id row (with its stored stat, state reset to queued, no
 * fingerprint), the exemption pairs between kept ids, and nextid; the scan
 * then fingerprints every book again under the id it had.  The old data
 * file is first renamed to PREV_NAME and removed only after the copy is on
 * disk, so a crash mid-rebuild redoes the copy at the next open.
 * frec_decode() reads the file record of every schema so far (FREC_VERSION
 * 1, id at byte 8, since schema 1): a new record layout must keep decoding
 * the old one here, or the marks of its users are lost. */

#define PREV_NAME "data.mdb.prev"

/* The data file's (or its set-aside copy's) path in p. */
static int dir_file(const char *dir, const char *name, char *p, size_t size)
{
	return snprintf(p, size, "%s/%s", dir, name) >= (int)size ? -ENAMETOOLONG : 0;
}

/* Moves an incompatible data file aside for carry_over(); the lock file goes. */
static int env_set_aside(const char *dir)
{
	char from[4096], to[4096];
	int ret = dir_file(dir, "data.mdb", from, sizeof(from));

	if (ret == 0)
		ret = dir_file(dir, PREV_NAME, to, sizeof(to));
	if (ret)
		return ret;
	if (rename(from, to) && errno != ENOENT)
		return -errno;
	return env_remove(dir);
}

/* The old file's tables, in the order carry_over() asks idxcheck_dump(). */
enum { OLD_META, OLD_FILES, OLD_EXEMPT, OLD_NTABLES };

struct carry_arg {
	struct idx *ix;
	uint64_t done, total;	/* files and exempt rows gone through (progress) */
	const struct idxcheck_rows *rows;	/* the old file's rows, read in a child */
	uint64_t old_nextid;
	int ours;		/* the old file has a schema number: it is an index */
	struct frec *f;
	uint64_t nfiles, npairs;
};

/* 1 when id has a row in the new ids table, 0 when not, or -errno. */
static int carry_has_id(struct wtx *w, const uint8_t *kb)
{
	MDB_val v;
	int ret = w_get(w, DB_IDS, kb, 8, &v);

	return ret == 0 ? 1 : ret == -ENOENT ? 0 : ret;
}

static int carry_files(struct wtx *w, struct carry_arg *a)
{
	struct frec *f = a->f;
	const uint8_t *rk, *rv;
	size_t pos = 0, rkl, rvl;
	unsigned t;
	struct pkey k;
	MDB_val v, cur_v;
	uint8_t kb[8];
	int ret = 0;

	while (ret == 0 && idxcheck_next(a->rows, &pos, &t, &rk, &rkl, &rv, &rvl)) {
		if (t != OLD_FILES)
			continue;
		ret = open_progress(a->ix, IDX_OPEN_REBUILD, ++a->done, a->total);
		if (ret)
			break;
		/* A row that does not decode, or whose id or key is taken (a
		 * damaged table), is left to the scan: a new id, no marks. */
		cur_v = mval(rv, rvl);
		if (frec_decode(&cur_v, f))
			continue;
		be_put(kb, f->id, 8);
		path_key(f->path, f->pathlen, &k);
		ret = carry_has_id(w, kb);
		if (ret == 0) {
			ret = w_get(w, DB_FILES, k.b, k.len, &v);
			ret = ret == 0 ? 1 : ret == -ENOENT ? 0 : ret;
		}
		if (ret == 1) {
			ret = 0;
			continue;
		}
		if (ret)
			break;
		f->state = IDX_QUEUED;
		f->flags = 0;
		frec_set_err(f, NULL);
		ret = file_store(w, f);
		if (ret == 0)
			ret = w_put(w, DB_IDS, kb, 8, k.b, k.len);
		if (ret == 0)
			ret = count_move(w, 0, 0, IDX_QUEUED, 0);
		if (ret == 0) {
			if (f->id >= w->nextid) {
				w->nextid = f->id + 1;
				w->meta_dirty = 1;
			}
			a->nfiles++;
		}
	}
	return ret;
}

static int carry_exempt(struct wtx *w, struct carry_arg *a)
{
	const uint8_t *p, *rv;
	size_t pos = 0, rkl, rvl;
	unsigned t;
	int ret = 0;

	while (ret == 0 && idxcheck_next(a->rows, &pos, &t, &p, &rkl, &rv, &rvl)) {
		if (t != OLD_EXEMPT)
			continue;
		ret = open_progress(a->ix, IDX_OPEN_REBUILD, ++a->done, a->total);
		if (ret)
			break;
		if (rkl != 16 || be_get(p, 8) == be_get(p + 8, 8))
			continue;
		ret = carry_has_id(w, p);
		if (ret == 1)
			ret = carry_has_id(w, p + 8);
		if (ret == 1) {
			ret = w_put(w, DB_EXEMPT, p, 16, NULL, 0);
			/* both orders are stored: count each pair once */
			a->npairs += be_get(p, 8) < be_get(p + 8, 8);
		}
	}
	return ret;
}

static int carry_fn(struct wtx *w, void *arg)
{
	struct carry_arg *a = arg;
	int ret = meta_load(w);

	a->nfiles = a->npairs = a->done = 0;
	if (ret)
		return ret;
	if (a->old_nextid > w->nextid) {
		w->nextid = a->old_nextid;	/* ids are never reused */
		w->meta_dirty = 1;
	}
	ret = carry_files(w, a);
	if (ret == 0)
		ret = carry_exempt(w, a);
	return ret;
}

/* The old file's schema (to tell an index from another program's file) and
 * nextid, from its meta rows; how many files and exempt rows there are to
 * copy (the progress total). */
static void carry_meta(struct carry_arg *a)
{
	const uint8_t *k, *v;
	size_t pos = 0, kl, vl;
	unsigned t;

	while (idxcheck_next(a->rows, &pos, &t, &k, &kl, &v, &vl)) {
		a->total += t == OLD_FILES || t == OLD_EXEMPT;
		if (t != OLD_META)
			continue;
		if (kl == 6 && memcmp(k, "schema", 6) == 0 && vl == 4)
			a->ours = 1;
		if (kl == 6 && memcmp(k, "nextid", 6) == 0 && vl == 8)
			a->old_nextid = be_get(v, 8);
	}
}

/* Copies the set-aside data file's files (path -> id rows), exemptions and
 * nextid into the new, empty index in one transaction, syncs, then removes
 * the old file.  The old file is read in a child process (idxcheck_dump()),
 * so a damaged one that would crash or hang LMDB costs that child only.  An
 * old file that is damaged, or is not an index, is renamed to
 * IDX_DAMAGED_NAME for the user instead, and ix->rebuilt says the marks are
 * lost; an error that is not the file's (memory, descriptors, the new
 * index) keeps it for the next open. */
static int carry_over(struct idx *ix, const char *dir, const char *prev)
{
	static const char *const tables[OLD_NTABLES] = { "meta", "files", "exempt" };
	struct idxcheck_rows rows = { NULL, 0 };
	struct carry_arg a = { .ix = ix };
	char aside[4096];
	int ret, kept = 0;

	ret = dir_file(dir, IDX_DAMAGED_NAME, aside, sizeof(aside));
	if (ret == 0)
		ret = idxcheck_dump(prev, tables, OLD_NTABLES, &rows);
	if (ret < 0)
		return ret;
	if (ret == 0) {
		a.rows = &rows;
		carry_meta(&a);
	}
	if (a.ours) {
		a.f = malloc(sizeof(*a.f));
		ret = a.f ? idx_write(ix, carry_fn, &a) : -ENOMEM;
		free(a.f);
		if (ret < 0)
			goto out;
		kept = 1;
	}
	if (kept) {
		ix->rebuilt = IDX_REBUILT_KEPT;
		ix->kept_files = a.nfiles;
		ix->kept_pairs = a.npairs;
	} else {
		ix->rebuilt = IDX_REBUILT_LOST;
	}
	ret = idx_err(mdb_env_sync(ix->env, 1));
	if (ret == 0 && (kept ? unlink(prev) : rename(prev, aside)))
		ret = -errno;
out:
	idxcheck_rows_release(&rows);
	return ret;
}

struct init_arg {
	uint32_t max_d;
	int incompatible;
};

/* The number of rows of table dbi of txn (0 when it cannot tell). */
static uint64_t table_rows(MDB_txn *txn, MDB_dbi dbi)
{
	MDB_stat st;

	return mdb_stat(txn, dbi, &st) == 0 ? (uint64_t)st.ms_entries : 0;
}

/* Empties table dst and calls row(w, id, value) for every row of table
 * src whose key is a book id, in key order; the rows' writes must not
 * touch src (its cursor walks on).  An upgrade inside idx_open(): its
 * progress is reported per row. */
static int rebuild_from(struct wtx *w, int dst, int src,
			int (*row)(struct wtx *w, uint64_t id, const MDB_val *v))
{
	uint64_t total = table_rows(w->txn, w->ix->db[src]), done = 0;
	MDB_cursor *cur = NULL;
	MDB_val k, v;
	int rc, ret;

	ret = open_progress(w->ix, IDX_OPEN_UPGRADE, 0, total);
	if (ret == 0)
		ret = idx_err(mdb_drop(w->txn, w->ix->db[dst], 0));
	if (ret)
		return ret;
	rc = mdb_cursor_open(w->txn, w->ix->db[src], &cur);
	if (rc)
		return idx_err(rc);
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0 && ret == 0;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (k.mv_size == 8)
			ret = row(w, be_get(k.mv_data, 8), &v);
		if (ret == 0)
			ret = open_progress(w->ix, IDX_OPEN_UPGRADE, ++done, total);
	}
	mdb_cursor_close(cur);
	if (ret)
		return ret;
	return rc == MDB_NOTFOUND ? 0 : idx_err(rc);
}

/* A book's simhash bands, from its book row (an undecodable one is skipped). */
static int shband_row(struct wtx *w, uint64_t id, const MDB_val *v)
{
	struct brec b;

	if (brec_decode(v, &b) || (b.flags & BOOK_F_COPY))
		return 0;	/* a copy has no band entries */
	return shband_apply(w, b.sh, id, 1);
}

/* A book's pruning-key postings, from its uqbook row (a malformed one is
 * skipped). */
static int uqkey_row(struct wtx *w, uint64_t id, const MDB_val *v)
{
	if (v->mv_size % 4 || v->mv_size / 4 > IDX_UQ_MAX)
		return 0;
	return uq_put_postings(w, id, v->mv_data, (uint32_t)(v->mv_size / 4));
}

/* The band layout changed: the simhash bands rebuilt from the books. */
static int rebuild_shband(struct wtx *w)
{
	return rebuild_from(w, DB_SHBAND, DB_BOOK, shband_row);
}

/* Schema 3 to 4: the pruning-key postings rewritten from uqbook with the
 * books' key counts; nothing else changed, so nothing else is lost. */
static int rebuild_uqkey(struct wtx *w)
{
	return rebuild_from(w, DB_UQKEY, DB_UQBOOK, uqkey_row);
}

/* A version 1 book row rewritten as version 2 (its copy key from the row
 * and its pruning keys, no flags) and entered in the copies table. */
static int copies_row(struct wtx *w, uint64_t id)
{
	uint8_t kb[8], ck[COPY_KEY + 8], *row = NULL, *nrow = NULL, *uq = NULL;
	size_t nuq = 0;
	struct brec b;
	MDB_val v;
	int ret = book_load(w, id, &row, &b);

	if (ret == -EIO || (ret == 0 && b.version != 1))
		ret = 0;	/* undecodable rows are skipped (lists skip them too) */
	if (ret || !row || b.version != 1)
		goto out;
	be_put(kb, id, 8);
	ret = w_get(w, DB_UQBOOK, kb, 8, &v);
	if (ret == 0 && v.mv_size % 4 == 0 && v.mv_size / 4 <= IDX_UQ_MAX) {
		nuq = v.mv_size / 4;
		uq = malloc(v.mv_size ? v.mv_size : 1);
		if (!uq) {
			ret = -ENOMEM;
			goto out;
		}
		memcpy(uq, v.mv_data, v.mv_size);
	} else if (ret == -ENOENT || ret == 0) {
		ret = 0;
	} else {
		goto out;
	}
	nrow = calloc(1, BOOK_HDR + (size_t)b.n_mh * 8);
	if (!nrow) {
		ret = -ENOMEM;
		goto out;
	}
	memcpy(nrow, row, BOOK_HDR1);
	nrow[0] = BOOK_VERSION;
	nrow[1] = 0;
	memcpy(nrow + BOOK_HDR, b.mh, (size_t)b.n_mh * 8);
	ret = copy_key(b.sh, b.th, b.rec_version, b.mh, b.n_mh, uq, (uint32_t)nuq, nrow + 40);
	if (ret == 0)
		ret = w_put(w, DB_BOOK, kb, 8, nrow, BOOK_HDR + (size_t)b.n_mh * 8);
	if (ret == 0) {
		memcpy(ck, nrow + 40, COPY_KEY);
		be_put(ck + COPY_KEY, id, 8);
		ret = w_put(w, DB_COPY, ck, sizeof(ck), NULL, 0);
	}
out:
	free(row);
	free(nrow);
	free(uq);
	return ret;
}

/* Book id becomes a copy (not its group's representative): flag set, band
 * entries and links gone (the representative's links hold for the group). */
static int copies_demote(struct wtx *w, uint64_t id)
{
	uint8_t *row = NULL;
	struct brec b;
	int ret = book_load(w, id, &row, &b);

	if (ret == 0)
		ret = bands_apply(w, id, &b, 0);
	if (ret == 0)
		ret = book_set_flags(w, id, BOOK_F_COPY);
	if (ret == 0)
		ret = pairs_remove_all(w, DB_CLUSTER, id);
	if (ret == 0)
		ret = pairs_remove_all(w, DB_REL, id);
	free(row);
	return ret == -EIO ? 0 : ret;
}

/* Schema 4 to 5: every book row gets its copy key and an entry in the
 * copies table; in each group of copies the books after the first lose
 * their band entries, postings and links, the first is flagged. */
static int upgrade_copies(struct wtx *w)
{
	uint64_t *ids = NULL, prev_first = 0;
	size_t n = 0, cap = 0, i, run = 0;
	uint8_t prev[COPY_KEY];
	MDB_cursor *cur = NULL;
	MDB_val k, v;
	int rc, ret = open_progress(w->ix, IDX_OPEN_UPGRADE, 0, 0);

	if (ret)
		return ret;
	rc = mdb_cursor_open(w->txn, w->ix->db[DB_BOOK], &cur);
	for (rc = rc ? rc : mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (k.mv_size != 8)
			continue;
		if (n == cap) {
			uint64_t *p;

			cap = cap ? cap * 2 : 1024;
			p = realloc(ids, cap * sizeof(*p));
			if (!p) {
				ret = -ENOMEM;
				break;
			}
			ids = p;
		}
		ids[n++] = be_get(k.mv_data, 8);
	}
	if (cur)
		mdb_cursor_close(cur);
	cur = NULL;
	if (ret == 0 && rc != MDB_NOTFOUND)
		ret = idx_err(rc);
	for (i = 0; ret == 0 && i < n; i++) {
		ret = copies_row(w, ids[i]);
		if (ret == 0)
			ret = open_progress(w->ix, IDX_OPEN_UPGRADE, i + 1, n);
	}
	free(ids);
	if (ret)
		return ret;
	rc = mdb_cursor_open(w->txn, w->ix->db[DB_COPY], &cur);
	if (rc)
		return idx_err(rc);
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0 && ret == 0;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		uint64_t id;

		if (k.mv_size != COPY_KEY + 8)
			continue;
		id = be_get((const uint8_t *)k.mv_data + COPY_KEY, 8);
		if (run && memcmp(prev, k.mv_data, COPY_KEY) == 0) {
			if (run++ == 1)
				ret = book_set_flags(w, prev_first, BOOK_F_COPIES);
			if (ret == 0)
				ret = copies_demote(w, id);
			continue;
		}
		memcpy(prev, k.mv_data, COPY_KEY);
		prev_first = id;
		run = 1;
	}
	mdb_cursor_close(cur);
	if (ret)
		return ret;
	return rc == MDB_NOTFOUND ? 0 : idx_err(rc);
}

static int init_fn(struct wtx *w, void *arg)
{
	struct init_arg *ia = arg;
	struct idx *ix = w->ix;
	MDB_stat st;
	MDB_val v;
	uint8_t b[4];
	int rc, ret, i, fresh = 0, upgrade = 0;

	rc = mdb_dbi_open(w->txn, db_names[DB_META], MDB_CREATE, &ix->db[DB_META]);
	if (rc == MDB_INCOMPATIBLE) {
		ia->incompatible = 1;
		return -EIO;
	}
	if (rc)
		return idx_err(rc);
	ret = w_get(w, DB_META, "schema", 6, &v);
	if (ret == -ENOENT) {
		MDB_dbi main_db;

		/* Only our meta table may exist in a fresh environment. */
		rc = mdb_dbi_open(w->txn, NULL, 0, &main_db);
		if (rc == 0)
			rc = mdb_stat(w->txn, main_db, &st);
		if (rc)
			return idx_err(rc);
		if (st.ms_entries > 1) {
			ia->incompatible = 1;
			return -EIO;
		}
		fresh = 1;
	} else if (ret) {
		return ret;
	} else if (v.mv_size == 4 && (be_get(v.mv_data, 4) == 3 || be_get(v.mv_data, 4) == 4)) {
		upgrade = (int)be_get(v.mv_data, 4);
	} else if (v.mv_size == 4 && be_get(v.mv_data, 4) > IDX_SCHEMA_VERSION &&
		   be_get(v.mv_data, 4) <= SCHEMA_FUTURE_MAX) {
		/* a newer version's index: rebuilding would destroy it */
		return -EPROTONOSUPPORT;
	} else if (v.mv_size != 4 || be_get(v.mv_data, 4) != IDX_SCHEMA_VERSION) {
		ia->incompatible = 1;
		return -EIO;
	}
	for (i = DB_META + 1; i < NDB; i++) {
		rc = mdb_dbi_open(w->txn, db_names[i], i == DB_UQKEY ?
				  MDB_CREATE | MDB_DUPSORT | MDB_DUPFIXED : MDB_CREATE, &ix->db[i]);
		if (rc == MDB_INCOMPATIBLE) {
			ia->incompatible = 1;
			return -EIO;
		}
		if (rc)
			return idx_err(rc);
	}
	if (upgrade) {
		uint8_t s[4];

		/* 3: the postings get their counts; 3 and 4: the rel table
		 * starts empty, every book unjudged (its list is computed at
		 * read time until the daemon judges it) */
		be_put(s, IDX_SCHEMA_VERSION, 4);
		ret = upgrade == 3 ? rebuild_uqkey(w) : 0;
		if (ret == 0)
			ret = idx_err(mdb_drop(w->txn, ix->db[DB_REL], 0));
		if (ret == 0)
			ret = upgrade_copies(w);
		if (ret == 0) {
			uint8_t z[8] = { 0 };

			ret = w_put(w, DB_META, "judge", 5, z, 8);	/* every book owed */
		}
		if (ret == 0)
			ret = w_put(w, DB_META, "schema", 6, s, 4);
		if (ret)
			return ret;
	}
	be_put(b, ia->max_d, 4);
	if (fresh) {
		uint8_t s[4];

		be_put(s, IDX_SCHEMA_VERSION, 4);
		ret = w_put(w, DB_META, "schema", 6, s, 4);
		if (ret == 0)
			ret = w_put(w, DB_META, "maxd", 4, b, 4);
		return ret;
	}
	ret = w_get(w, DB_META, "maxd", 4, &v);
	if (ret && ret != -ENOENT)
		return ret;
	if (ret == 0 && v.mv_size == 4 && be_get(v.mv_data, 4) == ia->max_d)
		return 0;
	/* The band layout changed: rebuild the simhash bands from the books. */
	ret = rebuild_shband(w);
	if (ret == 0)
		ret = w_put(w, DB_META, "maxd", 4, b, 4);
	return ret;
}

int idx_open(struct idx **out, const char *dir, const struct idx_opts *opts)
{
	struct init_arg ia = { 7, 0 };
	uint64_t map_size = MAP_DEFAULT;
	struct idx *ix = NULL;
	char prev[4096];
	int ret, rc, attempt, locks = 0;

	*out = NULL;
	ix = calloc(1, sizeof(*ix));
	if (!ix)
		return -ENOMEM;
	ix->sync_ms = 1000;
	if (opts) {
		if (opts->max_d)
			ia.max_d = opts->max_d;
		if (opts->map_size)
			map_size = opts->map_size < MAP_MIN ? MAP_MIN : opts->map_size;
		if (opts->sync_ms)
			ix->sync_ms = opts->sync_ms;
		ix->progress = opts->progress;
		ix->progress_arg = opts->progress_arg;
	}
	ret = band_layout_init(&ix->bl, ia.max_d);
	if (ret)
		goto out;
	if (mkdir(dir, 0700) && errno != EEXIST) {
		ret = -errno;
		goto out;
	}
	{
		pthread_rwlockattr_t ra;

		/* a resize waiting for readers must not be starved by new ones */
		pthread_rwlockattr_init(&ra);
		pthread_rwlockattr_setkind_np(&ra, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
		ret = -pthread_rwlock_init(&ix->maplock, &ra);
		pthread_rwlockattr_destroy(&ra);
		if (ret)
			goto out;
		ret = -pthread_mutex_init(&ix->wlock, NULL);
		if (ret) {
			pthread_rwlock_destroy(&ix->maplock);
			goto out;
		}
		pthread_mutex_init(&ix->flock, NULL);
		pthread_cond_init(&ix->fcond, NULL);
		locks = 1;
	}
	ret = dir_file(dir, PREV_NAME, prev, sizeof(prev));
	if (ret)
		goto out;
	if (access(prev, F_OK) == 0) {
		/* A rebuild stopped before its copy was on disk: start it again,
		 * unless the process rebuilding it is still at work. */
		ret = idxcheck_in_use(dir);
		if (ret > 0)
			ret = -EBUSY;
		if (ret == 0)
			ret = open_progress(ix, IDX_OPEN_REBUILD, 0, 0);
		if (ret == 0)
			ret = env_remove(dir);
		if (ret)
			goto out;
	} else {
		/* LMDB checks no page: the data file is mapped here only after a
		 * child process walked it whole; a damaged one is set aside and
		 * rebuilt like one from another schema. */
		ret = idxcheck_walk(dir);
		if (ret == IDXCHECK_DAMAGED) {
			ret = open_progress(ix, IDX_OPEN_REBUILD, 0, 0);
			if (ret == 0)
				ret = env_set_aside(dir);
		}
		if (ret && ret != -ENOENT)
			goto out;
	}
	for (attempt = 0; attempt < 2; attempt++) {
		rc = env_open(ix, dir, map_size);
		if (rc == MDB_INVALID || rc == MDB_VERSION_MISMATCH || rc == MDB_CORRUPTED) {
			ia.incompatible = 1;
		} else if (rc) {
			ret = idx_err(rc);
			goto out;
		} else {
			ia.incompatible = 0;
			ret = idx_write(ix, init_fn, &ia);
			if (ret >= 0)
				break;
			if (!ia.incompatible)
				goto out;
			mdb_env_close(ix->env);
			ix->env = NULL;
		}
		if (attempt == 1)
			break;
		/* Unreadable or another schema: start over (a scan refills
		 * it), keeping what the old file holds of the marks. */
		ret = open_progress(ix, IDX_OPEN_REBUILD, 0, 0);
		if (ret == 0)
			ret = env_set_aside(dir);
		if (ret)
			goto out;
	}
	if (!ix->env) {
		ret = -EIO;
		goto out;
	}
	if (access(prev, F_OK) == 0) {
		ret = carry_over(ix, dir, prev);
		if (ret)
			goto out;
	}
	ret = -pthread_create(&ix->flusher, NULL, flusher_main, ix);
	if (ret)
		goto out;
	ix->has_flusher = 1;
	ix->progress = NULL;	/* the caller's arg need not outlive the open */
	*out = ix;
	ix = NULL;
	ret = 0;
out:
	if (ix) {
		if (ix->env)
			mdb_env_close(ix->env);
		if (locks) {
			pthread_rwlock_destroy(&ix->maplock);
			pthread_mutex_destroy(&ix->wlock);
			pthread_mutex_destroy(&ix->flock);
			pthread_cond_destroy(&ix->fcond);
		}
		free(ix);
	}
	return ret;
}

void idx_close(struct idx *ix)
{
	const char *path = NULL;
	char *dir = NULL;

	if (!ix)
		return;
	flusher_stop(ix);
	/* synced and closed by its writer: the next open need not walk it */
	if (mdb_env_sync(ix->env, 1) == 0 && mdb_env_get_path(ix->env, &path) == 0 && path)
		dir = strdup(path);
	mdb_env_close(ix->env);
	if (dir)
		idxcheck_stamp(dir);
	free(dir);
	pthread_rwlock_destroy(&ix->maplock);
	pthread_mutex_destroy(&ix->wlock);
	pthread_mutex_destroy(&ix->flock);
	pthread_cond_destroy(&ix->fcond);
	free(ix);
}

int idx_sync(struct idx *ix)
{
	return idx_err(mdb_env_sync(ix->env, 1));
}

int idx_rebuilt(const struct idx *ix)
{
	return ix->rebuilt;
}

void idx_rebuild_kept(const struct idx *ix, uint64_t *files, uint64_t *pairs)
{
	*files = ix->kept_files;
	*pairs = ix->kept_pairs;
}

uint32_t idx_max_d(const struct idx *ix)
{
	return ix->bl.max_d;
}

uint64_t idx_generation(struct idx *ix)
{
	MDB_envinfo info;

	/* reads the meta pages in the map: not while a resize remaps it */
	pthread_rwlock_rdlock(&ix->maplock);
	mdb_env_info(ix->env, &info);
	pthread_rwlock_unlock(&ix->maplock);
	return info.me_last_txnid;
}

/* ---- writes ---- */

struct mark_arg {
	const char *const *paths;
	const struct idx_stat *sts;
	size_t n;
	uint64_t *ids;
	struct frec *f;
};

static int mark_fn(struct wtx *w, void *arg)
{
	struct mark_arg *a = arg;
	struct frec *f = a->f;
	uint8_t kb[8];
	struct pkey k;
	size_t i;
	int ret;

	for (i = 0; i < a->n; i++) {
		size_t len = strlen(a->paths[i]);

		path_key(a->paths[i], len, &k);
		ret = file_load_key(w, &k, a->paths[i], f);
		if (ret == 0) {
			be_put(kb, f->id, 8);
			if (f->state == IDX_FAILED)
				ret = w_del(w, DB_FAIL, kb, 8);
			if (ret == 0)
				ret = count_move(w, f->state, 0, IDX_QUEUED, 0);
		} else if (ret == -ENOENT || ret == -EIO) {
			/* unknown, or an entry that does not decode: (re)create */
			ret = meta_load(w);
			if (ret)
				return ret;
			memset(f, 0, sizeof(*f));
			f->id = w->nextid++;
			w->meta_dirty = 1;
			f->pathlen = len;
			memcpy(f->path, a->paths[i], len + 1);
			be_put(kb, f->id, 8);
			ret = w_put(w, DB_IDS, kb, 8, k.b, k.len);
			if (ret == 0)
				ret = count_move(w, 0, 0, IDX_QUEUED, 0);
		}
		if (ret)
			return ret;
		f->state = IDX_QUEUED;
		f->st = a->sts[i];
		frec_set_err(f, NULL);
		ret = file_store(w, f);
		if (ret)
			return ret;
		if (a->ids)
			a->ids[i] = f->id;
	}
	return 0;
}

int idx_mark_queued(struct idx *ix, const char *const *paths, const struct idx_stat *sts,
		    size_t n, uint64_t *ids)
{
	struct mark_arg a = { paths, sts, n, ids, NULL };
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = idx_path_check(paths[i]);
		if (ret)
			return ret;
	}
	a.f = malloc(sizeof(*a.f));
	if (!a.f)
		return -ENOMEM;
	ret = idx_write(ix, mark_fn, &a);
	free(a.f);
	return ret < 0 ? ret : 0;
}

/* The tag of a fingerprint (idx_fp_tag()): simhash, text hash and record
 * version, hashed; never 0. */
static uint64_t fp_tag(const uint8_t sh[IDX_SH_BYTES], const uint8_t th[IDX_SH_BYTES],
		       uint32_t rec_version)
{
	uint8_t b[2 * IDX_SH_BYTES + 4];
	uint64_t t;

	memcpy(b, sh, IDX_SH_BYTES);
	memcpy(b + IDX_SH_BYTES, th, IDX_SH_BYTES);
	be_put(b + 2 * IDX_SH_BYTES, rec_version, 4);
	t = XXH3_64bits(b, sizeof(b));
	return t ? t : 1;
}

/* The tag of the fingerprint stored for id: 0 when there is none. */
static int w_fp_tag(struct wtx *w, uint64_t id, uint64_t *tag)
{
	uint8_t kb[8];
	struct brec b;
	MDB_val v;
	int ret;

	*tag = 0;
	be_put(kb, id, 8);
	ret = w_get(w, DB_BOOK, kb, 8, &v);
	if (ret == -ENOENT)
		return 0;
	if (ret == 0 && brec_decode(&v, &b) == 0)
		*tag = fp_tag(b.sh, b.th, b.rec_version);
	return ret;
}

/* Before book id gets fingerprint fp (NULL: none): its cluster links,
 * relations and judged mark were judged on the old fingerprint and go
 * (*keep = 0), unless the new one is the same (a re-read of unchanged text
 * keeps what it would find again). */
static int links_keep(struct wtx *w, uint64_t id, const struct idx_fp *fp, int *keep)
{
	uint64_t old = 0;
	int ret = w_fp_tag(w, id, &old);

	*keep = !ret && fp && old && old == fp_tag(fp->simhash, fp->text_hash, fp->rec_version);
	return ret;
}

struct put_arg {
	uint64_t id;
	const struct idx_stat *st;
	const struct idx_fp *fp;	/* NULL for a failure */
	enum idx_state state;
	const char *error;
	struct frec *f;
};

static int put_fn(struct wtx *w, void *arg)
{
	struct put_arg *a = arg;
	struct frec *f = a->f;
	uint8_t kb[8];
	int ret, had_fp, keep = 0;

	ret = file_by_id(w, a->id, f);
	if (ret)
		return ret;
	had_fp = f->flags & FLAG_FP;
	ret = links_keep(w, a->id, a->fp, &keep);
	/* a representative's links, relations and judged mark move to the
	 * copy promoted in its place (book_remove), and come back if the book
	 * joins the same group again (book_add) */
	if (ret == 0)
		ret = book_remove(w, a->id);
	if (ret == 0 && !keep)
		ret = pairs_remove_all(w, DB_CLUSTER, a->id);
	if (ret == 0 && !keep)
		ret = pairs_remove_all(w, DB_REL, a->id);
	if (ret == 0 && a->fp)
		ret = book_add(w, a->id, a->fp);
	if (ret)
		return ret;
	be_put(kb, a->id, 8);
	ret = a->state == IDX_FAILED ? w_put(w, DB_FAIL, kb, 8, NULL, 0) : w_del(w, DB_FAIL, kb, 8);
	if (ret)
		return ret;
	ret = count_move(w, f->state, had_fp, (uint8_t)a->state, a->fp != NULL);
	if (ret)
		return ret;
	f->state = (uint8_t)a->state;
	f->flags = a->fp ? FLAG_FP : 0;
	f->st = *a->st;
	frec_set_err(f, a->error);
	return file_store(w, f);
}

/* 0 when fp can be stored, else -EINVAL. */
static int fp_check(const struct idx_fp *fp)
{
	if (!fp || fp->n_mh_bands > MH_MAX || fp->rec_len > REC_MAX ||
	    (fp->n_mh_bands && !fp->mh_bands) || (fp->rec_len && !fp->rec) ||
	    fp->n_uq_keys > IDX_UQ_MAX || (fp->n_uq_keys && !fp->uq_keys))
		return -EINVAL;
	return 0;
}

int idx_put(struct idx *ix, uint64_t id, const struct idx_stat *st, const struct idx_fp *fp)
{
	struct put_arg a = { id, st, fp, IDX_INDEXED, NULL, NULL };
	int ret;

	if (fp_check(fp))
		return -EINVAL;
	a.f = malloc(sizeof(*a.f));
	if (!a.f)
		return -ENOMEM;
	ret = idx_write(ix, put_fn, &a);
	free(a.f);
	return ret < 0 ? ret : 0;
}

struct put_many_arg {
	size_t n;
	const uint64_t *ids;
	const struct idx_stat *sts;
	const struct idx_fp *fps;
	struct frec *f;
};

static int put_many_fn(struct wtx *w, void *arg)
{
	struct put_many_arg *m = arg;
	size_t i;
	int ret;

	for (i = 0; i < m->n; i++) {
		struct put_arg a = { m->ids[i], &m->sts[i], &m->fps[i], IDX_INDEXED, NULL, m->f };

		ret = put_fn(w, &a);
		if (ret)
			return ret;
	}
	return 0;
}

int idx_put_many(struct idx *ix, const uint64_t *ids, const struct idx_stat *sts,
		 const struct idx_fp *fps, size_t n)
{
	struct put_many_arg m = { n, ids, sts, fps, NULL };
	size_t i;
	int ret;

	for (i = 0; i < n; i++)
		if (fp_check(&fps[i]))
			return -EINVAL;
	m.f = malloc(sizeof(*m.f));
	if (!m.f)
		return -ENOMEM;
	ret = idx_write(ix, put_many_fn, &m);
	free(m.f);
	return ret < 0 ? ret : 0;
}

int idx_put_failed(struct idx *ix, uint64_t id, const struct idx_stat *st, enum idx_state state,
		   const char *error)
{
	struct put_arg a = { id, st, NULL, state, error, NULL };
	int ret;

	if (state != IDX_FAILED && state != IDX_NOT_BOOK)
		return -EINVAL;
	a.f = malloc(sizeof(*a.f));
	if (!a.f)
		return -ENOMEM;
	ret = idx_write(ix, put_fn, &a);
	free(a.f);
	return ret < 0 ? ret : 0;
}

struct stat_arg {
	const char *path;
	const struct idx_stat *st;
	struct frec *f;
};

static int set_stat_fn(struct wtx *w, void *arg)
{
	struct stat_arg *a = arg;
	struct pkey k;
	int ret;

	path_key(a->path, strlen(a->path), &k);
	ret = file_load_key(w, &k, a->path, a->f);
	if (ret)
		return ret;
	a->f->st = *a->st;
	return file_store(w, a->f);
}

int idx_set_stat(struct idx *ix, const char *path, const struct idx_stat *st)
{
	struct stat_arg a = { path, st, NULL };
	int ret = idx_path_check(path);

	if (ret)
		return ret;
	a.f = malloc(sizeof(*a.f));
	if (!a.f)
		return -ENOMEM;
	ret = idx_write(ix, set_stat_fn, &a);
	free(a.f);
	return ret < 0 ? ret : 0;
}

static int unlink_fn(struct wtx *w, void *arg)
{
	struct flist l = { NULL, 0, 0 };
	size_t i;
	int ret;

	ret = collect_tree(w, arg, &l);
	for (i = 0; ret == 0 && i < l.n; i++)
		ret = file_remove(w, &l.v[i]);
	free(l.v);
	return ret ? ret : (int)(l.n > INT32_MAX ? INT32_MAX : l.n);
}

int idx_unlink(struct idx *ix, const char *path)
{
	int ret = idx_path_check(path);

	if (ret)
		return ret;
	return idx_write(ix, unlink_fn, (void *)(uintptr_t)path);
}

static int drop_fn(struct wtx *w, void *arg)
{
	struct frec *f = malloc(sizeof(*f));
	int ret;

	if (!f)
		return -ENOMEM;
	ret = file_by_id(w, *(const uint64_t *)arg, f);
	if (ret == 0)
		ret = file_remove(w, f);
	free(f);
	return ret;
}

int idx_drop(struct idx *ix, uint64_t id)
{
	int ret = idx_write(ix, drop_fn, &id);

	return ret < 0 ? ret : 0;
}

struct rename_arg {
	const char *from, *to;
	unsigned flags;
};

/* Moves the entries of l from under old (olen bytes) to under new. */
static int move_entries(struct wtx *w, struct flist *l, size_t olen, const char *new_path)
{
	size_t nlen = strlen(new_path), i;
	uint8_t kb[8];
	struct pkey k;
	int ret;

	for (i = 0; i < l->n; i++) {
		struct frec *f = &l->v[i];
		size_t rest = f->pathlen - olen;

		if (nlen + rest > IDX_PATH_MAX)
			return -ENAMETOOLONG;
		memmove(f->path + nlen, f->path + olen, rest + 1);
		memcpy(f->path, new_path, nlen);
		f->pathlen = nlen + rest;
		ret = file_store(w, f);
		if (ret)
			return ret;
		path_key(f->path, f->pathlen, &k);
		be_put(kb, f->id, 8);
		ret = w_put(w, DB_IDS, kb, 8, k.b, k.len);
		if (ret)
			return ret;
	}
	return 0;
}

static int del_keys(struct wtx *w, const struct flist *l)
{
	struct pkey k;
	size_t i;
	int ret;

	for (i = 0; i < l->n; i++) {
		path_key(l->v[i].path, l->v[i].pathlen, &k);
		ret = w_del(w, DB_FILES, k.b, k.len);
		if (ret)
			return ret;
	}
	return 0;
}

static int rename_fn(struct wtx *w, void *arg)
{
	struct rename_arg *a = arg;
	struct flist from = { NULL, 0, 0 }, to = { NULL, 0, 0 };
	size_t i;
	int ret;

	ret = collect_tree(w, a->from, &from);
	if (ret || (!from.n && (a->flags & IDX_RENAME_KNOWN) && !(a->flags & IDX_RENAME_EXCHANGE)))
		goto out;
	ret = collect_tree(w, a->to, &to);
	if (ret)
		goto out;
	if (a->flags & IDX_RENAME_EXCHANGE) {
		ret = del_keys(w, &from);
		if (ret == 0)
			ret = del_keys(w, &to);
		if (ret == 0)
			ret = move_entries(w, &from, strlen(a->from), a->to);
		if (ret == 0)
			ret = move_entries(w, &to, strlen(a->to), a->from);
	} else {
		for (i = 0; ret == 0 && i < to.n; i++)
			ret = file_remove(w, &to.v[i]);
		if (ret == 0)
			ret = del_keys(w, &from);
		if (ret == 0)
			ret = move_entries(w, &from, strlen(a->from), a->to);
	}
	if (ret == 0)
		ret = (int)(from.n > INT32_MAX ? INT32_MAX : from.n);
out:
	free(from.v);
	free(to.v);
	return ret;
}

/* 1 when b is a (or under a/). */
static int path_within(const char *a, const char *b)
{
	size_t la = strlen(a);

	return strncmp(a, b, la) == 0 && (b[la] == '\0' || b[la] == '/');
}

/* 0 when the rename has work to do, 1 when it is a no-op (onto itself),
 * or -errno for bad arguments. */
static int rename_check(const char *from, const char *to, unsigned flags)
{
	int ret = idx_path_check(from);

	if (ret == 0)
		ret = idx_path_check(to);
	if (ret)
		return ret;
	if (flags & ~(IDX_RENAME_EXCHANGE | IDX_RENAME_KNOWN))
		return -EINVAL;
	if (strcmp(from, to) == 0)
		return 1;
	if (path_within(from, to) || path_within(to, from))
		return -EINVAL;
	return 0;
}

int idx_rename(struct idx *ix, const char *from, const char *to, unsigned flags)
{
	struct rename_arg a = { from, to, flags };
	int ret = rename_check(from, to, flags);

	if (ret)
		return ret < 0 ? ret : 0;
	return idx_write(ix, rename_fn, &a);
}

struct apply_arg {
	struct idx_op *ops;
	size_t n;
	struct frec *f;		/* scratch for the puts */
};

static int apply_fn(struct wtx *w, void *arg)
{
	struct apply_arg *a = arg;
	struct rename_arg ra;
	size_t i;
	int ret;

	for (i = 0; i < a->n; i++) {
		struct idx_op *op = &a->ops[i];

		if (op->result < 0)	/* refused before the transaction */
			continue;
		if (op->kind == IDX_OP_PUT || op->kind == IDX_OP_PUT_FAILED) {
			struct put_arg pa = { op->id, op->st,
					      op->kind == IDX_OP_PUT ? op->fp : NULL,
					      op->kind == IDX_OP_PUT ? IDX_INDEXED : op->state,
					      op->kind == IDX_OP_PUT ? NULL : op->error, a->f };

			/* gone meanwhile: put_fn() found no entry and wrote
			 * nothing; the other ops still apply */
			ret = put_fn(w, &pa);
			if (ret == -ENOENT) {
				op->result = ret;
				continue;
			}
		} else if (op->kind == IDX_OP_UNLINK) {
			ret = unlink_fn(w, (void *)(uintptr_t)op->path);
		} else if (strcmp(op->path, op->to) == 0) {
			ret = 0;	/* onto itself: nothing moves */
		} else {
			ra = (struct rename_arg){ op->path, op->to, op->flags };
			ret = rename_fn(w, &ra);
		}
		if (ret < 0)
			return ret;
		op->result = ret;
	}
	return 0;
}

int idx_apply(struct idx *ix, struct idx_op *ops, size_t n)
{
	struct apply_arg a = { ops, n, NULL };
	size_t i;
	int ret, puts = 0;

	for (i = 0; i < n; i++) {
		if (ops[i].kind == IDX_OP_UNLINK)
			ret = idx_path_check(ops[i].path);
		else if (ops[i].kind == IDX_OP_RENAME)
			ret = rename_check(ops[i].path, ops[i].to, ops[i].flags);
		else if (ops[i].kind == IDX_OP_PUT)
			ret = !ops[i].st ? -EINVAL : fp_check(ops[i].fp);
		else if (ops[i].kind == IDX_OP_PUT_FAILED)
			ret = !ops[i].st || (ops[i].state != IDX_FAILED &&
					     ops[i].state != IDX_NOT_BOOK) ? -EINVAL : 0;
		else
			ret = -EINVAL;
		ops[i].result = ret < 0 ? ret : 0;
		puts |= ops[i].kind == IDX_OP_PUT || ops[i].kind == IDX_OP_PUT_FAILED;
	}
	if (puts && !(a.f = malloc(sizeof(*a.f)))) {
		ret = -ENOMEM;
		goto out;
	}
	ret = idx_write(ix, apply_fn, &a);
	free(a.f);
out:
	for (i = 0; ret < 0 && i < n; i++)
		ops[i].result = ret;
	return ret < 0 ? ret : 0;
}

struct exempt_arg {
	const char *a, *b;
	int on;
	struct frec *f;
};

static int exempt_fn(struct wtx *w, void *arg)
{
	struct exempt_arg *a = arg;
	uint8_t k1[16], k2[16];
	uint64_t ida, idb;
	struct pkey k;
	int ret;

	path_key(a->a, strlen(a->a), &k);
	ret = file_load_key(w, &k, a->a, a->f);
	if (ret)
		return ret;
	ida = a->f->id;
	path_key(a->b, strlen(a->b), &k);
	ret = file_load_key(w, &k, a->b, a->f);
	if (ret)
		return ret;
	idb = a->f->id;
	if (ida == idb)
		return -EINVAL;
	be_put(k1, ida, 8);
	be_put(k1 + 8, idb, 8);
	be_put(k2, idb, 8);
	be_put(k2 + 8, ida, 8);
	if (a->on) {
		ret = w_put(w, DB_EXEMPT, k1, 16, NULL, 0);
		if (ret == 0)
			ret = w_put(w, DB_EXEMPT, k2, 16, NULL, 0);
	} else {
		ret = w_del(w, DB_EXEMPT, k1, 16);
		if (ret == 0)
			ret = w_del(w, DB_EXEMPT, k2, 16);
	}
	return ret;
}

int idx_exempt_set(struct idx *ix, const char *path_a, const char *path_b, int on)
{
	struct exempt_arg a = { path_a, path_b, on, NULL };
	int ret = idx_path_check(path_a);

	if (ret == 0)
		ret = idx_path_check(path_b);
	if (ret)
		return ret;
	a.f = malloc(sizeof(*a.f));
	if (!a.f)
		return -ENOMEM;
	ret = idx_write(ix, exempt_fn, &a);
	free(a.f);
	return ret < 0 ? ret : 0;
}

struct raw_arg {
	int db;
	const void *k, *v;
	size_t klen, vlen;
};

static int raw_fn(struct wtx *w, void *arg)
{
	struct raw_arg *a = arg;

	return w_put(w, a->db, a->k, a->klen, a->v, a->vlen);
}

int idx_debug_raw_put(struct idx *ix, const char *db, const void *key, size_t klen,
		      const void *val, size_t vlen)
{
	struct raw_arg a = { -1, key, val, klen, vlen };
	int i;

	for (i = 0; i < NDB; i++)
		if (strcmp(db, db_names[i]) == 0)
			a.db = i;
	if (a.db < 0 || klen == 0)
		return -EINVAL;
	return idx_write(ix, raw_fn, &a);
}

/* ---- reads ---- */

/* Fills f from a decoded record plus its book record (same txn). */
static int file_fill(struct idx *ix, MDB_txn *txn, const struct frec *r, struct idx_file *f)
{
	uint8_t kb[8];
	MDB_val k, v;
	struct brec b;
	int ret;

	file_out(r, f);
	if (r->flags & FLAG_FP) {
		be_put(kb, r->id, 8);
		k = mval(kb, 8);
		if (mdb_get(txn, ix->db[DB_BOOK], &k, &v) == 0 && brec_decode(&v, &b) == 0) {
			f->has_fp = 1;
			memcpy(f->simhash, b.sh, IDX_SH_BYTES);
			memcpy(f->text_hash, b.th, IDX_SH_BYTES);
			f->rec_version = b.rec_version;
			f->n_mh_bands = b.n_mh;
			f->has_copies = !!(b.flags & BOOK_F_COPIES);
			f->is_copy = !!(b.flags & BOOK_F_COPY);
		}
	}
	ret = file_copy_strings(r, f);
	return ret;
}

static int get_by_key(struct idx *ix, MDB_txn *txn, const struct pkey *pk, const char *path,
		      uint64_t want_id, struct idx_file *f)
{
	struct frec *r = NULL;
	MDB_val k = mval(pk->b, pk->len), v;
	int ret;

	r = malloc(sizeof(*r));
	if (!r)
		return -ENOMEM;
	ret = idx_err(mdb_get(txn, ix->db[DB_FILES], &k, &v));
	if (ret == 0)
		ret = frec_decode(&v, r);
	if (ret == 0 && ((path && strcmp(path, r->path) != 0) || (want_id && r->id != want_id)))
		ret = -EIO;
	if (ret == 0)
		ret = file_fill(ix, txn, r, f);
	free(r);
	return ret;
}

int idx_get(struct idx *ix, const char *path, struct idx_file *f)
{
	MDB_txn *txn = NULL;
	struct pkey k;
	int ret;

	memset(f, 0, sizeof(*f));
	ret = idx_path_check(path);
	if (ret)
		return ret;
	ret = rtx_begin(ix, &txn);
	if (ret)
		return ret;
	path_key(path, strlen(path), &k);
	ret = get_by_key(ix, txn, &k, path, 0, f);
	rtx_end(ix, txn);
	return ret;
}

int idx_get_id(struct idx *ix, uint64_t id, struct idx_file *f)
{
	MDB_txn *txn = NULL;
	uint8_t kb[8];
	struct pkey pk;
	MDB_val k, v;
	int ret;

	memset(f, 0, sizeof(*f));
	ret = rtx_begin(ix, &txn);
	if (ret)
		return ret;
	be_put(kb, id, 8);
	k = mval(kb, 8);
	ret = idx_err(mdb_get(txn, ix->db[DB_IDS], &k, &v));
	if (ret == 0 && (v.mv_size == 0 || v.mv_size > PKEY_MAX))
		ret = -EIO;
	if (ret == 0) {
		memcpy(pk.b, v.mv_data, v.mv_size);
		pk.len = v.mv_size;
		ret = get_by_key(ix, txn, &pk, NULL, id, f);
	}
	rtx_end(ix, txn);
	return ret;
}

int idx_get_ids(struct idx *ix, const uint64_t *ids, size_t n, struct idx_file *files)
{
	MDB_txn *txn = NULL;
	uint8_t kb[8];
	struct pkey pk;
	MDB_val k, v;
	size_t i;
	int ret, r;

	memset(files, 0, n * sizeof(*files));
	ret = rtx_begin(ix, &txn);
	if (ret)
		return ret;
	for (i = 0; i < n && ret == 0; i++) {
		be_put(kb, ids[i], 8);
		k = mval(kb, 8);
		if (mdb_get(txn, ix->db[DB_IDS], &k, &v) || v.mv_size == 0 || v.mv_size > PKEY_MAX)
			continue;
		memcpy(pk.b, v.mv_data, v.mv_size);
		pk.len = v.mv_size;
		r = get_by_key(ix, txn, &pk, NULL, ids[i], &files[i]);
		if (r == -ENOMEM)
			ret = r;
		else if (r)
			memset(&files[i], 0, sizeof(files[i]));
	}
	rtx_end(ix, txn);
	for (i = 0; ret && i < n; i++)
		idx_file_release(&files[i]);
	return ret;
}

int idx_record(struct idx *ix, uint64_t id, uint32_t *rec_version, void **rec, size_t *len)
{
	return idx_record_head(ix, id, SIZE_MAX, rec_version, rec, len);
}

int idx_record_head(struct idx *ix, uint64_t id, size_t max, uint32_t *rec_version, void **rec,
		    size_t *len)
{
	MDB_txn *txn = NULL;
	uint8_t kb[8];
	MDB_val k, v;
	size_t n;
	int ret;

	*rec = NULL;
	*len = 0;
	ret = rtx_begin(ix, &txn);
	if (ret)
		return ret;
	be_put(kb, id, 8);
	k = mval(kb, 8);
	ret = idx_err(mdb_get(txn, ix->db[DB_REC], &k, &v));
	if (ret == 0 && v.mv_size < 4)
		ret = -EIO;
	if (ret == 0) {
		n = v.mv_size - 4 < max ? v.mv_size - 4 : max;
		*rec = malloc(n + 1);
		if (!*rec) {
			ret = -ENOMEM;
		} else {
			*rec_version = (uint32_t)be_get(v.mv_data, 4);
			memcpy(*rec, (const uint8_t *)v.mv_data + 4, n);
			*len = n;
		}
	}
	rtx_end(ix, txn);
	return ret;
}

int idx_mh_bands(struct idx *ix, uint64_t id, uint64_t **bands, uint32_t *n)
{
	MDB_txn *txn = NULL;
	uint8_t kb[8];
	struct brec b;
	MDB_val k, v;
	uint32_t i;
	int ret;

	*bands = NULL;
	*n = 0;
	ret = rtx_begin(ix, &txn);
	if (ret)
		return ret;
	be_put(kb, id, 8);
	k = mval(kb, 8);
	ret = idx_err(mdb_get(txn, ix->db[DB_BOOK], &k, &v));
	if (ret == 0)
		ret = brec_decode(&v, &b);
	if (ret == 0) {
		*bands = malloc((b.n_mh ? b.n_mh : 1) * sizeof(**bands));
		if (!*bands) {
			ret = -ENOMEM;
		} else {
			for (i = 0; i < b.n_mh; i++)
				(*bands)[i] = be_get(b.mh + 8 * i, 8);
			*n = b.n_mh;
		}
	}
	rtx_end(ix, txn);
	return ret;
}

struct hits {
	struct idx_hit *v;
	size_t n, cap;
};

static int hits_push(struct hits *h, uint64_t id, uint32_t dist)
{
	if (h->n == h->cap) {
		size_t nc = h->cap ? h->cap * 2 : 32;
		struct idx_hit *p = realloc(h->v, nc * sizeof(*p));

		if (!p)
			return -ENOMEM;
		h->v = p;
		h->cap = nc;
	}
	h->v[h->n].id = id;
	h->v[h->n].dist = dist;
	h->n++;
	return 0;
}

static int hit_cmp_dist(const void *a, const void *b)
{
	const struct idx_hit *x = a, *y = b;

	if (x->dist != y->dist)
		return x->dist < y->dist ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Appends to *ids every id whose key in db starts with the plen-byte prefix
 * and is plen + 8 bytes long. */
static int ids_with_prefix(MDB_cursor *cur, const uint8_t *prefix, size_t plen, uint64_t **ids,
			   size_t *n, size_t *cap)
{
	MDB_val k = mval(prefix, plen), v;
	int rc;

	for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (k.mv_size < plen || memcmp(k.mv_data, prefix, plen) != 0)
			break;
		if (k.mv_size != plen + 8)
			continue;
		if (*n == *cap) {
			size_t nc = *cap ? *cap * 2 : 64;
			uint64_t *p = realloc(*ids, nc * sizeof(*p));

			if (!p)
				return -ENOMEM;
			*ids = p;
			*cap = nc;
		}
		(*ids)[(*n)++] = be_get((const uint8_t *)k.mv_data + plen, 8);
	}
	return rc == MDB_NOTFOUND || rc == 0 ? 0 : idx_err(rc);
}

/* Appends to *ids (ascending) the group of copies of book id (in txn), id
 * included; a book without a copy key (a hostile row) is its own group.
 * -ENOENT when id has no book row. */
static int group_read(struct idx *ix, MDB_txn *txn, uint64_t id, uint64_t **ids, size_t *n,
		      size_t *cap)
{
	uint8_t kb[8], key[COPY_KEY + 8];
	MDB_cursor *cur = NULL;
	struct brec b;
	MDB_val k, v;
	int rc, ret;

	be_put(kb, id, 8);
	k = mval(kb, 8);
	ret = idx_err(mdb_get(txn, ix->db[DB_BOOK], &k, &v));
	if (ret == 0 && brec_decode(&v, &b) == 0 && (b.flags & (BOOK_F_COPIES | BOOK_F_COPY))) {
		memcpy(key, b.key, COPY_KEY);
		rc = mdb_cursor_open(txn, ix->db[DB_COPY], &cur);
		if (rc)
			return idx_err(rc);
		ret = ids_with_prefix(cur, key, COPY_KEY, ids, n, cap);
		mdb_cursor_close(cur);
		return ret;
	}
	if (ret)
		return ret;
	if (*n == *cap) {
		uint64_t *p = realloc(*ids, (*cap + 1) * sizeof(*p));

		if (!p)
			return -ENOMEM;
		*ids = p;
		(*cap)++;
	}
	(*ids)[(*n)++] = id;
	return 0;
}

int idx_copies(struct idx *ix, uint64_t id, uint64_t **ids, size_t *n)
{
	MDB_txn *txn = NULL;
	size_t cap = 0;
	int ret;

	*ids = NULL;
	*n = 0;
	ret = rtx_begin(ix, &txn);
	if (ret)
		return ret;
	ret = group_read(ix, txn, id, ids, n, &cap);
	rtx_end(ix, txn);
	if (ret) {
		free(*ids);
		*ids = NULL;
		*n = 0;
	}
	return ret;
}

/* Adds to h the copies of every representative among its hits (in txn),
 * at their representative's distance (a group has one simhash). */
static int hits_expand(struct idx *ix, MDB_txn *txn, struct hits *h)
{
	uint64_t *ids = NULL;
	size_t n0 = h->n, i, j, n, cap = 0;
	uint8_t kb[8];
	struct brec b;
	MDB_val k, v;
	int ret = 0;

	for (i = 0; i < n0 && ret == 0; i++) {
		be_put(kb, h->v[i].id, 8);
		k = mval(kb, 8);
		if (mdb_get(txn, ix->db[DB_BOOK], &k, &v) || brec_decode(&v, &b) ||
		    !(b.flags & BOOK_F_COPIES))
			continue;
		n = 0;
		ret = group_read(ix, txn, h->v[i].id, &ids, &n, &cap);
		for (j = 0; ret == 0 && j < n; j++)
			if (ids[j] != h->v[i].id)
				ret = hits_push(h, ids[j], h->v[i].dist);
	}
	free(ids);
	return ret;
}

static int near_query(struct idx *ix, const uint8_t sh[IDX_SH_BYTES], uint32_t d, int expand,
		      struct idx_hit **hits, size_t *n)
{
	const struct band_layout *bl = &ix->bl;
	struct hits h = { NULL, 0, 0 };
	MDB_cursor *cur = NULL;
	MDB_txn *txn = NULL;
	uint8_t key[1 + 8 + 8];
	size_t klen, plen = 1 + (size_t)bl->value_bytes;
	MDB_val k, v;
	uint32_t b;
	int rc, ret;

	*hits = NULL;
	*n = 0;
	if (d > bl->max_d)
		return -EINVAL;
	ret = rtx_begin(ix, &txn);
	if (ret)
		return ret;
	rc = mdb_cursor_open(txn, ix->db[DB_SHBAND], &cur);
	if (rc) {
		ret = idx_err(rc);
		goto out;
	}
	for (b = 0; b < bl->nbands && ret == 0; b++) {
		shband_key(bl, sh, b, 0, key, &klen);
		k = mval(key, klen);
		for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0;
		     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
			const uint8_t *cand = v.mv_data;
			uint32_t dist;

			if (k.mv_size < plen || memcmp(k.mv_data, key, plen) != 0)
				break;
			if (k.mv_size != klen || v.mv_size != IDX_SH_BYTES)
				continue;
			dist = band_distance(sh, cand);
			/* report a pair only from the first band it shares */
			if (dist > d || band_first_shared(bl, sh, cand) != b)
				continue;
			ret = hits_push(&h, be_get((const uint8_t *)k.mv_data + plen, 8), dist);
			if (ret)
				break;
		}
		if (ret == 0 && rc && rc != MDB_NOTFOUND)
			ret = idx_err(rc);
	}
	if (ret == 0 && expand)
		ret = hits_expand(ix, txn, &h);
out:
	if (cur)
		mdb_cursor_close(cur);
	rtx_end(ix, txn);
	if (ret) {
		free(h.v);
		return ret;
	}
	if (h.n)
		qsort(h.v, h.n, sizeof(*h.v), hit_cmp_dist);
	*hits = h.v;
	*n = h.n;
	return 0;
}

int idx_near(struct idx *ix, const uint8_t sh[IDX_SH_BYTES], uint32_t d, struct idx_hit **hits,
	     size_t *n)
{
	return near_query(ix, sh, d, 1, hits, n);
}

int idx_near_reps(struct idx *ix, const uint8_t sh[IDX_SH_BYTES], uint32_t d,
		  struct idx_hit **hits, size_t *n)
{
	return near_query(ix, sh, d, 0, hits, n);
}

static int hit_cmp_shared(const void *a, const void *b)
{
	const struct idx_hit *x = a, *y = b;

	if (x->dist != y->dist)
		return x->dist > y->dist ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

int idx_mh_candidates(struct idx *ix, const uint64_t *bands, uint32_t n, uint32_t min_shared,
		      struct idx_hit **hits, size_t *nhits)
{
	struct hits h = { NULL, 0, 0 };
	uint64_t *ids = NULL;
	size_t nids = 0, cap = 0, s, e;
	MDB_cursor *cur = NULL;
	MDB_txn *txn = NULL;
	uint8_t prefix[10];
	uint32_t i;
	int rc, ret;

	*hits = NULL;
	*nhits = 0;
	if (n > MH_MAX)
		return -EINVAL;
	if (min_shared == 0)
		min_shared = 1;
	ret = rtx_begin(ix, &txn);
	if (ret)
		return ret;
	rc = mdb_cursor_open(txn, ix->db[DB_MHBAND], &cur);
	if (rc)
		ret = idx_err(rc);
	for (i = 0; ret == 0 && i < n; i++) {
		be_put(prefix, i, 2);
		be_put(prefix + 2, bands[i], 8);
		ret = ids_with_prefix(cur, prefix, 10, &ids, &nids, &cap);
	}
	if (cur)
		mdb_cursor_close(cur);
	rtx_end(ix, txn);
	if (ret)
		goto out;
	if (nids)
		rsort_u64(ids, nids);
	for (s = 0; s < nids; s = e) {
		for (e = s + 1; e < nids && ids[e] == ids[s]; e++)
			;
		if (e - s >= min_shared) {
			ret = hits_push(&h, ids[s], (uint32_t)(e - s));
			if (ret)
				goto out;
		}
	}
	if (h.n)
		qsort(h.v, h.n, sizeof(*h.v), hit_cmp_shared);
	*hits = h.v;
	*nhits = h.n;
	h.v = NULL;
out:
	free(h.v);
	free(ids);
	return ret;
}

int idx_by_text_hash(struct idx *ix, const uint8_t hsh[IDX_SH_BYTES], uint64_t **ids, size_t *n)
{
	MDB_cursor *cur = NULL;
	MDB_txn *txn = NULL;
	size_t cap = 0;
	int rc, ret;

	*ids = NULL;
	*n = 0;
	ret = rtx_begin(ix, &txn);
	if (ret)
		return ret;
	rc = mdb_cursor_open(txn, ix->db[DB_TEXT], &cur);
	if (rc)
		ret = idx_err(rc);
	else
		ret = ids_with_prefix(cur, hsh, IDX_SH_BYTES, ids, n, &cap);
	if (cur)
		mdb_cursor_close(cur);
	rtx_end(ix, txn);
	if (ret) {
		free(*ids);
		*ids = NULL;
		*n = 0;
	}
	return ret;
}

/* The groups of copies of two or more, from one pass over the copies
 * table: group i is ids[start[i]] .. ids[start[i + 1] - 1], ascending (the
 * representative first). */
static int copy_groups_txn(struct idx *ix, MDB_txn *txn, struct idx_groups *cg)
{
	uint8_t prev[COPY_KEY];
	size_t n = 0, cap = 0, ng = 0, gcap = 0, run = 0;
	MDB_cursor *cur = NULL;
	MDB_val k, v;
	int rc, ret = 0;

	memset(cg, 0, sizeof(*cg));
	rc = mdb_cursor_open(txn, ix->db[DB_COPY], &cur);
	for (rc = rc ? rc : mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0 && ret == 0;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		uint64_t id;

		if (k.mv_size != COPY_KEY + 8)
			continue;
		id = be_get((const uint8_t *)k.mv_data + COPY_KEY, 8);
		if (!run || memcmp(prev, k.mv_data, COPY_KEY) != 0) {
			/* a group of one is dropped: overwrite its entry */
			if (run == 1)
				n--;
			else if (run > 1)
				ng++;
			memcpy(prev, k.mv_data, COPY_KEY);
			run = 0;
		}
		if (n + 1 >= cap) {
			uint64_t *p = realloc(cg->ids, (cap ? cap * 2 : 256) * sizeof(*p));

			if (!p) {
				ret = -ENOMEM;
				break;
			}
			cg->ids = p;
			cap = cap ? cap * 2 : 256;
		}
		if (ng + 2 >= gcap) {
			size_t *p = realloc(cg->start, (gcap ? gcap * 2 : 64) * sizeof(*p));

			if (!p) {
				ret = -ENOMEM;
				break;
			}
			cg->start = p;
			gcap = gcap ? gcap * 2 : 64;
		}
		if (run == 0)
			cg->start[ng] = n;
		cg->ids[n++] = id;
		run++;
	}
	if (ret == 0 && rc != MDB_NOTFOUND)
		ret = idx_err(rc);
	if (cur)
		mdb_cursor_close(cur);
	if (ret) {
		idx_groups_release(cg);
		return ret;
	}
	if (run == 1)
		n--;
	else if (run > 1)
		ng++;
	if (cg->start)
		cg->start[ng] = n;
	cg->ngroups = ng;
	return 0;
}

static int load_copy_groups(struct idx *ix, struct idx_groups *cg)
{
	MDB_txn *txn = NULL;
	int ret = rtx_begin(ix, &txn);

	if (ret)
		return ret;
	ret = copy_groups_txn(ix, txn, cg);
	rtx_end(ix, txn);
	return ret;
}

/* Appends the copies of every representative (in txn) to the n books ids[]
 * with simhashes sh[] (room for *cap, grown), each with its
 * representative's simhash (a group has one). */
static int copies_add(struct idx *ix, MDB_txn *txn, uint64_t **ids,
		      uint8_t (**sh)[IDX_SH_BYTES], size_t *n, size_t *cap)
{
	struct idx_groups cg = { 0 };
	uint8_t kb[8];
	struct brec b;
	MDB_val k, v;
	size_t gi, i;
	int ret = copy_groups_txn(ix, txn, &cg);

	for (gi = 0; ret == 0 && gi < cg.ngroups; gi++) {
		size_t s0 = cg.start[gi], s1 = cg.start[gi + 1];

		be_put(kb, cg.ids[s0], 8);
		k = mval(kb, 8);
		if (mdb_get(txn, ix->db[DB_BOOK], &k, &v) || brec_decode(&v, &b) ||
		    (b.flags & BOOK_F_COPY))
			continue;
		if (*n + (s1 - s0) > *cap) {
			size_t nc = (*n + (s1 - s0)) * 2;
			uint64_t *pi = realloc(*ids, nc * sizeof(*pi));
			uint8_t (*ps)[IDX_SH_BYTES];

			if (!pi) {
				ret = -ENOMEM;
				break;
			}
			*ids = pi;
			ps = realloc(*sh, nc * sizeof(*ps));
			if (!ps) {
				ret = -ENOMEM;
				break;
			}
			*sh = ps;
			*cap = nc;
		}
		for (i = s0 + 1; i < s1; i++) {
			(*ids)[*n] = cg.ids[i];
			memcpy((*sh)[*n], b.sh, IDX_SH_BYTES);
			(*n)++;
		}
	}
	idx_groups_release(&cg);
	return ret;
}

/* Loads every fingerprinted book's id and simhash from band 0 of the band
 * table (exactly one entry per book, already in a compact form). */
static int load_simhashes(struct idx *ix, uint64_t **ids_out, uint8_t (**sh_out)[IDX_SH_BYTES],
			  size_t *n_out)
{
	const struct band_layout *bl = &ix->bl;
	size_t klen = 1 + (size_t)bl->value_bytes + 8, n = 0, cap = 0;
	uint8_t (*sh)[IDX_SH_BYTES] = NULL;
	uint64_t *ids = NULL;
	MDB_cursor *cur = NULL;
	MDB_txn *txn = NULL;
	uint8_t zero = 0;
	MDB_stat st;
	MDB_val k, v;
	int rc, ret;

	ret = rtx_begin(ix, &txn);
	if (ret)
		return ret;
	rc = mdb_stat(txn, ix->db[DB_SHBAND], &st);
	if (rc == 0)
		rc = mdb_cursor_open(txn, ix->db[DB_SHBAND], &cur);
	if (rc) {
		ret = idx_err(rc);
		goto out;
	}
	cap = st.ms_entries / bl->nbands + 1;
	ids = malloc(cap * sizeof(*ids));
	sh = malloc(cap * sizeof(*sh));
	if (!ids || !sh) {
		ret = -ENOMEM;
		goto out;
	}
	k = mval(&zero, 1);
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (((const uint8_t *)k.mv_data)[0] != 0)
			break;
		if (k.mv_size != klen || v.mv_size != IDX_SH_BYTES)
			continue;
		if (n == cap) {
			size_t nc = cap * 2;
			uint64_t *pi = realloc(ids, nc * sizeof(*pi));
			uint8_t (*ps)[IDX_SH_BYTES];

			if (!pi) {
				ret = -ENOMEM;
				goto out;
			}
			ids = pi;
			ps = realloc(sh, nc * sizeof(*ps));
			if (!ps) {
				ret = -ENOMEM;
				goto out;
			}
			sh = ps;
			cap = nc;
		}
		ids[n] = be_get((const uint8_t *)k.mv_data + 1 + bl->value_bytes, 8);
		memcpy(sh[n], v.mv_data, IDX_SH_BYTES);
		n++;
	}
	if (rc && rc != MDB_NOTFOUND)
		ret = idx_err(rc);
	if (ret == 0)
		ret = copies_add(ix, txn, &ids, &sh, &n, &cap);
out:
	if (cur)
		mdb_cursor_close(cur);
	rtx_end(ix, txn);
	if (ret) {
		free(ids);
		free(sh);
		return ret;
	}
	*ids_out = ids;
	*sh_out = sh;
	*n_out = n;
	return 0;
}

static int pair_cmp(const void *a, const void *b)
{
	const struct idx_pair *x = a, *y = b;

	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	return x->b < y->b ? -1 : x->b > y->b;
}

int idx_near_pairs(struct idx *ix, uint32_t d, struct idx_pair **pairs, size_t *n)
{
	uint8_t (*sh)[IDX_SH_BYTES] = NULL;
	struct band_pair *bp = NULL;
	struct idx_pair *out = NULL;
	uint64_t *ids = NULL;
	size_t nb = 0, np = 0, i;
	int ret;

	*pairs = NULL;
	*n = 0;
	if (d > ix->bl.max_d)
		return -EINVAL;
	ret = load_simhashes(ix, &ids, &sh, &nb);
	if (ret)
		return ret;
	ret = band_pairs(&ix->bl, (const uint8_t (*)[BAND_SH_BYTES])sh, nb, d, &bp, &np);
	if (ret)
		goto out;
	if (np) {
		out = malloc(np * sizeof(*out));
		if (!out) {
			ret = -ENOMEM;
			goto out;
		}
		for (i = 0; i < np; i++) {
			uint64_t a = ids[bp[i].a], b = ids[bp[i].b];

			out[i].a = a < b ? a : b;
			out[i].b = a < b ? b : a;
			out[i].dist = bp[i].dist;
		}
		qsort(out, np, sizeof(*out), pair_cmp);
	}
	*pairs = out;
	*n = np;
out:
	free(bp);
	free(ids);
	free(sh);
	return ret;
}

int idx_exemptions(struct idx *ix, struct idx_pair **out, size_t *n_out)
{
	struct idx_pair *v = NULL;
	size_t n = 0, cap = 0;
	MDB_cursor *cur = NULL;
	MDB_txn *txn = NULL;
	MDB_val k, val;
	int rc, ret;

	ret = rtx_begin(ix, &txn);
	if (ret)
		return ret;
	rc = mdb_cursor_open(txn, ix->db[DB_EXEMPT], &cur);
	for (rc = rc ? rc : mdb_cursor_get(cur, &k, &val, MDB_FIRST); rc == 0;
	     rc = mdb_cursor_get(cur, &k, &val, MDB_NEXT)) {
		uint64_t a, b;

		if (k.mv_size != 16)
			continue;
		a = be_get(k.mv_data, 8);
		b = be_get((const uint8_t *)k.mv_data + 8, 8);
		if (a >= b)
			continue;
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 16;
			struct idx_pair *p = realloc(v, nc * sizeof(*p));

			if (!p) {
				ret = -ENOMEM;
				break;
			}
			v = p;
			cap = nc;
		}
		v[n].a = a;
		v[n].b = b;
		v[n].dist = 0;
		n++;
	}
	if (ret == 0 && rc != MDB_NOTFOUND)
		ret = idx_err(rc);
	if (cur)
		mdb_cursor_close(cur);
	rtx_end(ix, txn);
	if (ret) {
		free(v);
		return ret;
	}
	*out = v;
	*n_out = n;
	return 0;
}

static uint32_t uf_find(uint32_t *parent, uint32_t x)
{
	while (parent[x] != x) {
		parent[x] = parent[parent[x]];
		x = parent[x];
	}
	return x;
}

struct member {
	uint32_t root;
	uint32_t size;	/* of its group */
	uint64_t id;
	uint64_t min_id;	/* smallest id of its group */
};

static int member_cmp(const void *a, const void *b)
{
	const struct member *x = a, *y = b;

	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	if (x->min_id != y->min_id)
		return x->min_id < y->min_id ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Builds groups from n items (ids) joined by pairs of item indexes. */
static int groups_build(const uint64_t *ids, size_t n, const struct band_pair *bp, size_t np,
			const uint8_t *skip, struct idx_groups *g)
{
	uint32_t *parent = NULL, *size = NULL;
	uint64_t *min_id = NULL;
	struct member *m = NULL;
	size_t i, nm = 0, ng = 0;
	int ret = -ENOMEM;

	memset(g, 0, sizeof(*g));
	parent = malloc((n ? n : 1) * sizeof(*parent));
	size = calloc(n ? n : 1, sizeof(*size));
	min_id = malloc((n ? n : 1) * sizeof(*min_id));
	if (!parent || !size || !min_id)
		goto out;
	for (i = 0; i < n; i++)
		parent[i] = (uint32_t)i;
	for (i = 0; i < np; i++) {
		uint32_t a, b;

		if (skip && skip[i])
			continue;
		a = uf_find(parent, bp[i].a);
		b = uf_find(parent, bp[i].b);
		if (a != b)
			parent[a > b ? a : b] = a > b ? b : a;
	}
	for (i = 0; i < n; i++) {
		uint32_t r = uf_find(parent, (uint32_t)i);

		if (size[r] == 0 || ids[i] < min_id[r])
			min_id[r] = ids[i];
		size[r]++;
	}
	for (i = 0; i < n; i++)
		if (size[uf_find(parent, (uint32_t)i)] >= 2)
			nm++;
	m = malloc((nm ? nm : 1) * sizeof(*m));
	g->ids = malloc((nm ? nm : 1) * sizeof(*g->ids));
	g->start = malloc((nm + 1) * sizeof(*g->start));
	if (!m || !g->ids || !g->start)
		goto out;
	nm = 0;
	for (i = 0; i < n; i++) {
		uint32_t r = uf_find(parent, (uint32_t)i);

		if (size[r] < 2)
			continue;
		m[nm].root = r;
		m[nm].size = size[r];
		m[nm].id = ids[i];
		m[nm].min_id = min_id[r];
		nm++;
	}
	if (nm)
		qsort(m, nm, sizeof(*m), member_cmp);
	for (i = 0; i < nm; i++) {
		if (i == 0 || m[i].root != m[i - 1].root)
			g->start[ng++] = i;
		g->ids[i] = m[i].id;
	}
	g->start[ng] = nm;
	g->ngroups = ng;
	ret = 0;
out:
	if (ret)
		idx_groups_release(g);
	free(parent);
	free(size);
	free(min_id);
	free(m);
	return ret;
}

static int pair_find(const struct idx_pair *v, size_t n, uint64_t a, uint64_t b)
{
	struct idx_pair key;

	key.a = a;
	key.b = b;
	key.dist = 0;
	return n && bsearch(&key, v, n, sizeof(*v), pair_cmp) != NULL;
}

int idx_clusters(struct idx *ix, uint32_t d, struct idx_groups *g)
{
	uint8_t (*sh)[IDX_SH_BYTES] = NULL;
	struct band_pair *bp = NULL;
	struct idx_pair *ex = NULL;
	uint8_t *skip = NULL;
	uint64_t *ids = NULL;
	size_t nb = 0, np = 0, nex = 0, i;
	int ret;

	memset(g, 0, sizeof(*g));
	if (d > ix->bl.max_d)
		return -EINVAL;
	ret = load_simhashes(ix, &ids, &sh, &nb);
	if (ret == 0)
		ret = idx_exemptions(ix, &ex, &nex);
	if (ret == 0)
		ret = band_pairs(&ix->bl, (const uint8_t (*)[BAND_SH_BYTES])sh, nb, d, &bp, &np);
	if (ret)
		goto out;
	if (nex && np) {
		skip = calloc(np, 1);
		if (!skip) {
			ret = -ENOMEM;
			goto out;
		}
		for (i = 0; i < np; i++) {
			uint64_t a = ids[bp[i].a], b = ids[bp[i].b];

			skip[i] = (uint8_t)pair_find(ex, nex, a < b ? a : b, a < b ? b : a);
		}
	}
	ret = groups_build(ids, nb, bp, np, skip, g);
out:
	free(skip);
	free(bp);
	free(ex);
	free(ids);
	free(sh);
	return ret;
}

int idx_text_groups(struct idx *ix, struct idx_groups *g)
{
	struct band_pair *bp = NULL;
	uint64_t *ids = NULL;
	size_t n = 0, cap = 0, np = 0, pcap = 0;
	uint8_t prev[IDX_SH_BYTES];
	MDB_cursor *cur = NULL;
	MDB_txn *txn = NULL;
	MDB_val k, v;
	int rc, ret;

	memset(g, 0, sizeof(*g));
	ret = rtx_begin(ix, &txn);
	if (ret)
		return ret;
	rc = mdb_cursor_open(txn, ix->db[DB_TEXT], &cur);
	for (rc = rc ? rc : mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (k.mv_size != IDX_SH_BYTES + 8)
			continue;
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 256;
			uint64_t *p = realloc(ids, nc * sizeof(*p));

			if (!p) {
				ret = -ENOMEM;
				break;
			}
			ids = p;
			cap = nc;
		}
		ids[n] = be_get((const uint8_t *)k.mv_data + IDX_SH_BYTES, 8);
		/* join each entry to the previous one when the hash is the same */
		if (n && memcmp(prev, k.mv_data, IDX_SH_BYTES) == 0) {
			if (np == pcap) {
				size_t nc = pcap ? pcap * 2 : 64;
				struct band_pair *p = realloc(bp, nc * sizeof(*p));

				if (!p) {
					ret = -ENOMEM;
					break;
				}
				bp = p;
				pcap = nc;
			}
			bp[np].a = (uint32_t)(n - 1);
			bp[np].b = (uint32_t)n;
			bp[np].dist = 0;
			np++;
		}
		memcpy(prev, k.mv_data, IDX_SH_BYTES);
		n++;
	}
	if (ret == 0 && rc != MDB_NOTFOUND)
		ret = idx_err(rc);
	if (cur)
		mdb_cursor_close(cur);
	rtx_end(ix, txn);
	if (ret == 0 && n >= UINT32_MAX)
		ret = -EOVERFLOW;
	if (ret == 0)
		ret = groups_build(ids, n, bp, np, NULL, g);
	free(ids);
	free(bp);
	return ret;
}

void idx_groups_release(struct idx_groups *g)
{
	if (!g)
		return;
	free(g->start);
	free(g->ids);
	memset(g, 0, sizeof(*g));
}

/* The ids paired with id in a table keyed by two big-endian ids (the
 * exemptions, the cluster links), into a malloc'd *ids. */
static int ids_paired(struct idx *ix, int db, uint64_t id, uint64_t **ids, size_t *n)
{
	MDB_cursor *cur = NULL;
	MDB_txn *txn = NULL;
	uint8_t prefix[8];
	size_t cap = 0;
	int rc, ret;

	*ids = NULL;
	*n = 0;
	ret = rtx_begin(ix, &txn);
	if (ret)
		return ret;
	be_put(prefix, id, 8);
	rc = mdb_cursor_open(txn, ix->db[db], &cur);
	if (rc)
		ret = idx_err(rc);
	else
		ret = ids_with_prefix(cur, prefix, 8, ids, n, &cap);
	if (cur)
		mdb_cursor_close(cur);
	rtx_end(ix, txn);
	if (ret) {
		free(*ids);
		*ids = NULL;
		*n = 0;
	}
	return ret;
}

int idx_exempt_ids(struct idx *ix, uint64_t id, uint64_t **ids, size_t *n)
{
	return ids_paired(ix, DB_EXEMPT, id, ids, n);
}

int idx_exempt_has(struct idx *ix, uint64_t a, uint64_t b)
{
	MDB_txn *txn = NULL;
	uint8_t kb[16];
	MDB_val k, v;
	int ret;

	ret = rtx_begin(ix, &txn);
	if (ret)
		return ret;
	be_put(kb, a, 8);
	be_put(kb + 8, b, 8);
	k = mval(kb, 16);
	ret = idx_err(mdb_get(txn, ix->db[DB_EXEMPT], &k, &v));
	rtx_end(ix, txn);
	if (ret == -ENOENT)
		return 0;
	return ret ? ret : 1;
}

struct list_arg {
	struct idx *ix;
	MDB_txn *txn;
	size_t plen;
	unsigned flags;
	struct idx_entry *v;
	size_t n, cap;
};

static int list_fn(const struct frec *f, void *arg, struct pkey *next)
{
	struct list_arg *a = arg;
	const char *rest = f->path + a->plen, *slash;
	struct idx_entry *e;
	size_t nlen;
	int ret;

	if (!*rest)
		return 0;	/* the directory itself as a file: not a child */
	slash = (a->flags & IDX_LIST_RECURSIVE) ? NULL : strchr(rest, '/');
	nlen = slash ? (size_t)(slash - rest) : strlen(rest);
	if (slash && a->n && a->v[a->n - 1].is_dir && strlen(a->v[a->n - 1].name) == nlen &&
	    memcmp(a->v[a->n - 1].name, rest, nlen) == 0)
		return 0;	/* still inside the subdirectory just listed */
	if (a->n == a->cap) {
		size_t nc = a->cap ? a->cap * 2 : 32;
		struct idx_entry *p = realloc(a->v, nc * sizeof(*p));

		if (!p)
			return -ENOMEM;
		a->v = p;
		a->cap = nc;
	}
	e = &a->v[a->n];
	memset(e, 0, sizeof(*e));
	e->name = (a->flags & IDX_LIST_RECURSIVE) ? strdup(f->path) : strndup(rest, nlen);
	if (!e->name)
		return -ENOMEM;
	if (slash) {
		e->is_dir = 1;
		/* skip the rest of the subtree: "dir/sub0" follows "dir/sub/..." */
		if (a->plen + nlen + 1 <= KEY_INLINE) {
			memcpy(next->b, f->path, a->plen + nlen);
			next->b[a->plen + nlen] = '/' + 1;
			next->len = a->plen + nlen + 1;
		}
	} else {
		ret = file_fill(a->ix, a->txn, f, &e->file);
		if (ret) {
			free(e->name);
			return ret;
		}
	}
	a->n++;
	return 0;
}

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct idx_entry *)a)->name, ((const struct idx_entry *)b)->name);
}

int idx_list(struct idx *ix, const char *dir, unsigned flags, struct idx_entry **ents, size_t *n)
{
	struct list_arg a = { ix, NULL, 0, flags, NULL, 0, 0 };
	size_t dlen = strlen(dir), i, j;
	char *prefix = NULL;
	int ret;

	*ents = NULL;
	*n = 0;
	if (dlen) {
		ret = idx_path_check(dir);
		if (ret)
			return ret;
	}
	prefix = malloc(dlen + 2);
	if (!prefix)
		return -ENOMEM;
	memcpy(prefix, dir, dlen);
	if (dlen)
		prefix[dlen++] = '/';
	prefix[dlen] = '\0';
	a.plen = dlen;
	ret = rtx_begin(ix, &a.txn);
	if (ret == 0) {
		ret = files_under(a.txn, ix->db[DB_FILES], prefix, dlen, list_fn, &a);
		rtx_end(ix, a.txn);
	}
	free(prefix);
	if (ret) {
		idx_entries_free(a.v, a.n);
		return ret;
	}
	/* Key order is path order except around long (hashed) keys and where a
	 * subtree could not be skipped: sort, and merge repeated directories. */
	if (a.n)
		qsort(a.v, a.n, sizeof(*a.v), entry_cmp);
	for (i = j = 0; i < a.n; i++) {
		if (j && a.v[i].is_dir && a.v[j - 1].is_dir && strcmp(a.v[i].name, a.v[j - 1].name) == 0) {
			free(a.v[i].name);
			continue;
		}
		a.v[j++] = a.v[i];
	}
	*ents = a.v;
	*n = j;
	return 0;
}

void idx_entries_free(struct idx_entry *ents, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(ents[i].name);
		idx_file_release(&ents[i].file);
	}
	free(ents);
}

static int file_path_cmp(const void *a, const void *b)
{
	return strcmp(((const struct idx_file *)a)->path, ((const struct idx_file *)b)->path);
}

int idx_errors(struct idx *ix, struct idx_file **files, size_t *n)
{
	struct idx_file *v = NULL;
	struct frec *r = NULL;
	size_t cnt = 0, cap = 0;
	MDB_cursor *cur = NULL;
	MDB_txn *txn = NULL;
	MDB_val k, val, pk, fv;
	int rc, ret;

	*files = NULL;
	*n = 0;
	r = malloc(sizeof(*r));
	if (!r)
		return -ENOMEM;
	ret = rtx_begin(ix, &txn);
	if (ret) {
		free(r);
		return ret;
	}
	rc = mdb_cursor_open(txn, ix->db[DB_FAIL], &cur);
	for (rc = rc ? rc : mdb_cursor_get(cur, &k, &val, MDB_FIRST); rc == 0;
	     rc = mdb_cursor_get(cur, &k, &val, MDB_NEXT)) {
		if (k.mv_size != 8 || mdb_get(txn, ix->db[DB_IDS], &k, &pk) ||
		    mdb_get(txn, ix->db[DB_FILES], &pk, &fv) || frec_decode(&fv, r) ||
		    r->id != be_get(k.mv_data, 8))
			continue;
		if (cnt == cap) {
			size_t nc = cap ? cap * 2 : 16;
			struct idx_file *p = realloc(v, nc * sizeof(*p));

			if (!p) {
				ret = -ENOMEM;
				break;
			}
			v = p;
			cap = nc;
		}
		file_out(r, &v[cnt]);
		ret = file_copy_strings(r, &v[cnt]);
		if (ret)
			break;
		cnt++;
	}
	if (ret == 0 && rc != MDB_NOTFOUND)
		ret = idx_err(rc);
	if (cur)
		mdb_cursor_close(cur);
	rtx_end(ix, txn);
	free(r);
	if (ret) {
		idx_files_free(v, cnt);
		return ret;
	}
	if (cnt)
		qsort(v, cnt, sizeof(*v), file_path_cmp);
	*files = v;
	*n = cnt;
	return 0;
}

void idx_files_free(struct idx_file *files, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		idx_file_release(&files[i]);
	free(files);
}

int idx_counts(struct idx *ix, struct idx_counts *c)
{
	MDB_txn *txn = NULL;
	MDB_val k = mval("counts", 6), v;
	int ret, i;

	memset(c, 0, sizeof(*c));
	ret = rtx_begin(ix, &txn);
	if (ret)
		return ret;
	ret = idx_err(mdb_get(txn, ix->db[DB_META], &k, &v));
	if (ret == 0 && v.mv_size == 8 * (IDX_NSTATES + 1)) {
		c->books = be_get(v.mv_data, 8);
		for (i = 1; i < IDX_NSTATES; i++) {
			c->state[i] = be_get((const uint8_t *)v.mv_data + 8 * i, 8);
			c->files += c->state[i];
		}
	} else if (ret == 0) {
		ret = -EIO;
	} else if (ret == -ENOENT) {
		ret = 0;	/* nothing written yet */
	}
	rtx_end(ix, txn);
	return ret;
}

/* ---- relations and cluster links ---- */

uint64_t idx_fp_tag(const struct idx_file *f)
{
	return f->has_fp ? fp_tag(f->simhash, f->text_hash, f->rec_version) : 0;
}

static void dbl_be(uint8_t *p, double d)
{
	uint64_t u;

	memcpy(&u, &d, 8);
	be_put(p, u, 8);
}

static double be_dbl(const uint8_t *p)
{
	uint64_t u = be_get(p, 8);
	double d;

	memcpy(&d, &u, 8);
	return d;
}

/* The row key a + b and its value, from a's side. */
static int rel_put(struct wtx *w, uint64_t a, uint64_t b, uint8_t cls, const struct idx_rel *r,
		   double cover_a, double cover_b)
{
	uint8_t k[16], v[REL_LEN];

	be_put(k, a, 8);
	be_put(k + 8, b, 8);
	v[0] = REL_VERSION;
	v[1] = cls;
	v[2] = r->score;
	v[3] = r->dist;
	dbl_be(v + 4, r->jaccard);
	dbl_be(v + 12, cover_a);
	dbl_be(v + 20, cover_b);
	return w_put(w, DB_REL, k, 16, v, REL_LEN);
}

struct rels_arg {
	const struct idx_judgement *v;
	size_t n;
};

/* Where a relation judged with book id on the fingerprint of tag is
 * stored: *to = id, or 0 when id no longer holds that fingerprint.  With
 * th (the judged book's text hash), id is the other book of the pair: when
 * it became a copy meanwhile (a smaller id of its text took over), its
 * representative, which holds the same fingerprint, unless it has the
 * judged book's text (those pairs are each judged, book by book).  Without
 * th, id is the judged book and a copy gives 0 (a copy is never judged);
 * then its text hash goes to th_out.  0 or -errno. */
static int rel_book(struct wtx *w, uint64_t id, uint64_t tag, const uint8_t *th, uint64_t *to,
		    uint8_t *th_out)
{
	uint64_t first[2];
	uint8_t kb[8];
	struct brec b;
	size_t n = 0;
	MDB_val v;
	int ret;

	*to = 0;
	be_put(kb, id, 8);
	ret = w_get(w, DB_BOOK, kb, 8, &v);
	if (ret == -ENOENT || (ret == 0 && brec_decode(&v, &b)))
		return 0;
	if (ret || !tag || fp_tag(b.sh, b.th, b.rec_version) != tag)
		return ret;
	if (th_out)
		memcpy(th_out, b.th, IDX_SH_BYTES);
	if (b.version != BOOK_VERSION || !(b.flags & BOOK_F_COPY)) {
		*to = id;
		return 0;
	}
	if (!th)
		return 0;
	if (memcmp(th, b.th, IDX_SH_BYTES) == 0) {
		*to = id;
		return 0;
	}
	ret = group_first(w, b.key, 0, first, &n);
	if (ret == 0 && n)
		*to = first[0];
	return ret;
}

static int rels_fn(struct wtx *w, void *arg)
{
	struct rels_arg *a = arg;
	uint8_t k1[16], k2[16], mark[JUDGED_LEN];
	uint64_t ta, tb;
	size_t i, j;
	int ret = 0, added = 0;

	for (j = 0; j < a->n && ret == 0; j++) {
		const struct idx_judgement *jd = &a->v[j];
		uint8_t th[IDX_SH_BYTES];

		ret = rel_book(w, jd->id, jd->tag, NULL, &ta, th);
		if (ret || !ta)
			continue;	/* judged on a fingerprint replaced meanwhile,
					 * or a copy now (its representative's judgement
					 * holds for it) */
		for (i = 0; i < jd->n && ret == 0; i++) {
			const struct idx_rel *r = &jd->rels[i];

			if (r->id == jd->id || !r->id || !r->tag)
				continue;
			ret = rel_book(w, r->id, r->tag, th, &tb, NULL);
			if (ret || !tb || tb == jd->id)
				continue;	/* that book's own judgement finds the pair */
			ret = rel_put(w, jd->id, tb, r->cls_this, r, r->cover_this, r->cover_other);
			if (ret == 0)
				ret = rel_put(w, tb, jd->id, r->cls_other, r, r->cover_other,
					      r->cover_this);
			if (ret == 0 && r->link) {
				be_put(k1, jd->id, 8);
				be_put(k1 + 8, tb, 8);
				be_put(k2, tb, 8);
				be_put(k2 + 8, jd->id, 8);
				ret = w_put(w, DB_CLUSTER, k1, 16, NULL, 0);
				if (ret == 0)
					ret = w_put(w, DB_CLUSTER, k2, 16, NULL, 0);
			}
			added++;
		}
		if (ret)
			break;
		be_put(k1, jd->id, 8);
		be_put(k1 + 8, 0, 8);
		mark[0] = REL_VERSION;
		be_put(mark + 1, jd->tag, 8);
		ret = w_put(w, DB_REL, k1, 16, mark, JUDGED_LEN);
	}
	return ret ? ret : added;
}

int idx_rels_set(struct idx *ix, const struct idx_judgement *v, size_t n)
{
	struct rels_arg a = { v, n };
	size_t i;

	if (n && !v)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!v[i].id || (v[i].n && !v[i].rels))
			return -EINVAL;
	if (!n)
		return 0;
	return idx_write(ix, rels_fn, &a);
}

int idx_rels_get(struct idx *ix, uint64_t id, uint64_t tag, struct idx_rel **out, size_t *nout)
{
	MDB_cursor *cur = NULL;
	MDB_txn *txn = NULL;
	struct idx_rel *v = NULL, *p;
	uint8_t key[16];
	size_t n = 0, cap = 0;
	MDB_val k, val;
	int rc, ret, judged = 0;

	*out = NULL;
	*nout = 0;
	ret = rtx_begin(ix, &txn);
	if (ret)
		return ret;
	rc = mdb_cursor_open(txn, ix->db[DB_REL], &cur);
	if (rc) {
		ret = idx_err(rc);
		goto out;
	}
	be_put(key, id, 8);
	be_put(key + 8, 0, 8);
	k = mval(key, 16);
	rc = mdb_cursor_get(cur, &k, &val, MDB_SET_RANGE);
	/* the mark comes first (other id 0); without it, or from another
	 * fingerprint, the list is not complete: nothing more to read */
	if (rc == 0 && k.mv_size == 16 && memcmp(k.mv_data, key, 16) == 0 &&
	    val.mv_size == JUDGED_LEN && ((const uint8_t *)val.mv_data)[0] == REL_VERSION &&
	    tag && be_get((const uint8_t *)val.mv_data + 1, 8) == tag)
		judged = 1;
	for (rc = judged ? mdb_cursor_get(cur, &k, &val, MDB_NEXT) : MDB_NOTFOUND; rc == 0;
	     rc = mdb_cursor_get(cur, &k, &val, MDB_NEXT)) {
		const uint8_t *b = val.mv_data;

		if (k.mv_size != 16 || memcmp(k.mv_data, key, 8) != 0)
			break;
		if (val.mv_size != REL_LEN || b[0] != REL_VERSION)
			continue;	/* does not decode: skipped, as in every list */
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			p = realloc(v, cap * sizeof(*v));
			if (!p) {
				ret = -ENOMEM;
				goto out;
			}
			v = p;
		}
		p = &v[n++];
		memset(p, 0, sizeof(*p));
		p->id = be_get((const uint8_t *)k.mv_data + 8, 8);
		p->cls_this = b[1];
		p->score = b[2];
		p->dist = b[3];
		p->jaccard = be_dbl(b + 4);
		p->cover_this = be_dbl(b + 12);
		p->cover_other = be_dbl(b + 20);
	}
	if (rc != 0 && rc != MDB_NOTFOUND)
		ret = idx_err(rc);
out:
	if (cur)
		mdb_cursor_close(cur);
	rtx_end(ix, txn);
	if (ret) {
		free(v);
		return ret;
	}
	*out = v;
	*nout = n;
	return judged;
}

int idx_catchup_get(struct idx *ix, uint64_t *from)
{
	MDB_txn *txn = NULL;
	MDB_val k = mval("judge", 5), v;
	int ret;

	*from = 0;
	ret = rtx_begin(ix, &txn);
	if (ret)
		return ret;
	ret = idx_err(mdb_get(txn, ix->db[DB_META], &k, &v));
	if (ret == 0 && v.mv_size == 8)
		*from = be_get(v.mv_data, 8);
	rtx_end(ix, txn);
	if (ret == -ENOENT)
		return 0;
	return ret ? ret : 1;
}

struct catchup_arg {
	uint64_t from;
	int done;
};

static int catchup_fn(struct wtx *w, void *arg)
{
	struct catchup_arg *a = arg;
	uint8_t b[8];

	if (a->done)
		return w_del(w, DB_META, "judge", 5);
	be_put(b, a->from, 8);
	return w_put(w, DB_META, "judge", 5, b, 8);
}

int idx_catchup_set(struct idx *ix, uint64_t from, int done)
{
	struct catchup_arg a = { from, done };
	int ret = idx_write(ix, catchup_fn, &a);

	return ret < 0 ? ret : 0;
}

int idx_unjudged(struct idx *ix, uint64_t from, uint64_t *ids, size_t max, size_t *nout)
{
	MDB_cursor *cb = NULL, *cr = NULL;
	MDB_txn *txn = NULL;
	uint8_t kb[8], key[16];
	struct brec b;
	MDB_val k, v, rk, rv;
	size_t n = 0;
	int rc, ret;

	*nout = 0;
	ret = rtx_begin(ix, &txn);
	if (ret)
		return ret;
	rc = mdb_cursor_open(txn, ix->db[DB_BOOK], &cb);
	if (rc == 0)
		rc = mdb_cursor_open(txn, ix->db[DB_REL], &cr);
	if (rc) {
		ret = idx_err(rc);
		goto out;
	}
	be_put(kb, from, 8);
	k = mval(kb, 8);
	for (rc = mdb_cursor_get(cb, &k, &v, MDB_SET_RANGE); rc == 0 && n < max;
	     rc = mdb_cursor_get(cb, &k, &v, MDB_NEXT)) {
		uint64_t id, tag;

		if (k.mv_size != 8 || brec_decode(&v, &b))
			continue;
		if (b.version == BOOK_VERSION && (b.flags & BOOK_F_COPY))
			continue;	/* never judged: its representative's list holds */
		id = be_get(k.mv_data, 8);
		tag = fp_tag(b.sh, b.th, b.rec_version);
		be_put(key, id, 8);
		be_put(key + 8, 0, 8);
		rk = mval(key, 16);
		if (mdb_cursor_get(cr, &rk, &rv, MDB_SET_KEY) == 0 && rv.mv_size == JUDGED_LEN &&
		    ((const uint8_t *)rv.mv_data)[0] == REL_VERSION &&
		    be_get((const uint8_t *)rv.mv_data + 1, 8) == tag)
			continue;
		ids[n++] = id;
	}
	if (rc != 0 && rc != MDB_NOTFOUND)
		ret = idx_err(rc);
out:
	if (cb)
		mdb_cursor_close(cb);
	if (cr)
		mdb_cursor_close(cr);
	rtx_end(ix, txn);
	*nout = ret ? 0 : n;
	return ret;
}

int idx_links_of(struct idx *ix, uint64_t id, uint64_t **ids, size_t *n)
{
	return ids_paired(ix, DB_CLUSTER, id, ids, n);
}

/* Reads the links table in one pass: *ids the linked books (ascending,
 * unique: every book is the first half of the keys of its links) and
 * *pairs the links a < b as indexes into *ids. */
static int load_links(struct idx *ix, uint64_t **ids_out, size_t *nids_out,
		      struct band_pair **pairs_out, size_t *npairs_out)
{
	uint64_t *ids = NULL, (*raw)[2] = NULL;
	struct band_pair *bp = NULL;
	size_t nids = 0, capi = 0, nraw = 0, capr = 0, np = 0, i;
	MDB_cursor *cur = NULL;
	MDB_txn *txn = NULL;
	MDB_val k, v;
	int rc, ret;

	ret = rtx_begin(ix, &txn);
	if (ret)
		return ret;
	rc = mdb_cursor_open(txn, ix->db[DB_CLUSTER], &cur);
	for (rc = rc ? rc : mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0 && ret == 0;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		uint64_t a, b;

		if (k.mv_size != 16)
			continue;
		a = be_get(k.mv_data, 8);
		b = be_get((const uint8_t *)k.mv_data + 8, 8);
		if (a == b)
			continue;
		if (!nids || ids[nids - 1] != a) {
			if (nids == capi) {
				uint64_t *p;

				capi = capi ? capi * 2 : 1024;
				p = realloc(ids, capi * sizeof(*p));
				if (!p) {
					ret = -ENOMEM;
					break;
				}
				ids = p;
			}
			ids[nids++] = a;
		}
		if (a > b)
			continue;
		if (nraw == capr) {
			uint64_t (*p)[2];

			capr = capr ? capr * 2 : 1024;
			p = realloc(raw, capr * sizeof(*p));
			if (!p) {
				ret = -ENOMEM;
				break;
			}
			raw = p;
		}
		raw[nraw][0] = a;
		raw[nraw][1] = b;
		nraw++;
	}
	if (ret == 0 && rc != MDB_NOTFOUND)
		ret = idx_err(rc);
	if (cur)
		mdb_cursor_close(cur);
	rtx_end(ix, txn);
	if (ret)
		goto out;
	bp = malloc((nraw ? nraw : 1) * sizeof(*bp));
	if (!bp || nids > UINT32_MAX) {
		ret = bp ? -EOVERFLOW : -ENOMEM;
		goto out;
	}
	/* a hostile table may hold a link one way only: such a b is not in ids */
	for (i = 0; i < nraw; i++) {
		const uint64_t *pa = bsearch(&raw[i][0], ids, nids, sizeof(*ids), rsort_cmp_u64);
		const uint64_t *pb = bsearch(&raw[i][1], ids, nids, sizeof(*ids), rsort_cmp_u64);

		if (pa && pb)
			bp[np++] = (struct band_pair){ (uint32_t)(pa - ids), (uint32_t)(pb - ids), 0 };
	}
out:
	free(raw);
	if (ret) {
		free(ids);
		free(bp);
		return ret;
	}
	*ids_out = ids;
	*nids_out = nids;
	*pairs_out = bp;
	*npairs_out = np;
	return 0;
}

/* Pairs of ids (a, b) to unite, growing. */
struct idpairs {
	uint64_t (*v)[2];
	size_t n, cap;
};

static int idpairs_push(struct idpairs *p, uint64_t a, uint64_t b)
{
	if (p->n == p->cap) {
		size_t nc = p->cap ? p->cap * 2 : 1024;
		uint64_t (*q)[2] = realloc(p->v, nc * sizeof(*q));

		if (!q)
			return -ENOMEM;
		p->v = q;
		p->cap = nc;
	}
	p->v[p->n][0] = a;
	p->v[p->n][1] = b;
	p->n++;
	return 0;
}

/* The exemptions and the ids they involve, for the group joins. */
struct exset {
	struct idx_pair *pairs;	/* a < b, sorted */
	size_t npairs;
	uint64_t *ids;		/* every id of a pair, sorted, unique */
	size_t nids;
};

static int ex_has(const struct exset *e, uint64_t a, uint64_t b)
{
	return a != b && pair_find(e->pairs, e->npairs, a < b ? a : b, a < b ? b : a);
}

/* A member of v[0..n) in no exemption at all (one is joined to every other
 * member of a set it meets), or 0 when there is none. */
static uint64_t ex_free(const struct exset *e, const uint64_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!e->nids || !bsearch(&v[i], e->ids, e->nids, sizeof(*e->ids), rsort_cmp_u64))
			return v[i];
	return 0;
}

/* Unites the pairs of a x b (every pair of a when b is NULL) that are not
 * exempted, with as few pairs as keep the same components: when each side
 * has a member in no exemption, that member meets everyone, so one pair
 * (and the sides' own joins) does; else one side is all exempted members,
 * at most twice the exemptions, and its pairs are listed. */
static int join_sets(const struct exset *e, const uint64_t *a, size_t na, const uint64_t *b,
		     size_t nb, struct idpairs *out)
{
	uint64_t fa = ex_free(e, a, na), fb = b ? ex_free(e, b, nb) : fa;
	size_t i, j;
	int ret = 0;

	if (fa && fb) {
		if (!b) {
			for (i = 0; i < na && ret == 0; i++)
				if (a[i] != fa)
					ret = idpairs_push(out, fa, a[i]);
			return ret;
		}
		return idpairs_push(out, fa, fb);
	}
	for (i = 0; i < na && ret == 0; i++)
		for (j = b ? 0 : i + 1; j < (b ? nb : na) && ret == 0; j++) {
			uint64_t y = b ? b[j] : a[j];

			if (!ex_has(e, a[i], y))
				ret = idpairs_push(out, a[i], y);
		}
	return ret;
}

/* The group of copies of representative id in cg (via the sorted index
 * reps: rep id, group number), else NULL. */
static const uint64_t *group_of(const struct idx_groups *cg, const uint64_t (*reps)[2], uint64_t id,
				size_t *n)
{
	size_t lo = 0, hi = cg->ngroups, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (reps[mid][0] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == cg->ngroups || reps[lo][0] != id)
		return NULL;
	*n = cg->start[reps[lo][1] + 1] - cg->start[reps[lo][1]];
	return cg->ids + cg->start[reps[lo][1]];
}

static int u64pair_cmp(const void *pa, const void *pb)
{
	const uint64_t *a = pa, *b = pb;

	return a[0] < b[0] ? -1 : a[0] > b[0];
}

int idx_link_groups(struct idx *ix, struct idx_groups *g)
{
	struct idx_groups cg = { 0 };
	struct band_pair *bp = NULL, *up = NULL;
	struct idpairs jp = { NULL, 0, 0 };
	struct exset ex = { NULL, 0, NULL, 0 };
	uint64_t *ids = NULL, *all = NULL, (*reps)[2] = NULL;
	size_t nids = 0, np = 0, nall = 0, i, j;
	int ret;

	memset(g, 0, sizeof(*g));
	ret = load_links(ix, &ids, &nids, &bp, &np);
	if (ret == 0)
		ret = load_copy_groups(ix, &cg);
	if (ret == 0)
		ret = idx_exemptions(ix, &ex.pairs, &ex.npairs);
	if (ret)
		goto out;
	ex.ids = malloc((2 * ex.npairs + 1) * sizeof(*ex.ids));
	reps = malloc((cg.ngroups + 1) * sizeof(*reps));
	if (!ex.ids || !reps) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < ex.npairs; i++) {
		ex.ids[ex.nids++] = ex.pairs[i].a;
		ex.ids[ex.nids++] = ex.pairs[i].b;
	}
	if (ex.nids)
		qsort(ex.ids, ex.nids, sizeof(*ex.ids), rsort_cmp_u64);
	for (i = 0; i < cg.ngroups; i++) {
		reps[i][0] = cg.ids[cg.start[i]];
		reps[i][1] = i;
		ret = join_sets(&ex, cg.ids + cg.start[i], cg.start[i + 1] - cg.start[i], NULL, 0,
				&jp);
		if (ret)
			goto out;
	}
	if (cg.ngroups)
		qsort(reps, cg.ngroups, sizeof(*reps), u64pair_cmp);
	/* a link between two representatives stands for every pair of their
	 * groups */
	for (i = 0; i < np && ret == 0; i++) {
		uint64_t a = ids[bp[i].a], b = ids[bp[i].b];
		const uint64_t *ga, *gb;
		size_t na = 1, nb = 1;

		ga = group_of(&cg, (const uint64_t (*)[2])reps, a, &na);
		gb = group_of(&cg, (const uint64_t (*)[2])reps, b, &nb);
		ret = join_sets(&ex, ga ? ga : &a, ga ? na : 1, gb ? gb : &b, gb ? nb : 1, &jp);
	}
	if (ret)
		goto out;
	/* every id met, once, and the pairs as indexes into them */
	nall = nids + (cg.ngroups ? cg.start[cg.ngroups] : 0);
	all = malloc((nall + 1) * sizeof(*all));
	up = malloc((jp.n + 1) * sizeof(*up));
	if (!all || !up) {
		ret = -ENOMEM;
		goto out;
	}
	if (nids)
		memcpy(all, ids, nids * sizeof(*ids));
	if (nall > nids)
		memcpy(all + nids, cg.ids, (nall - nids) * sizeof(*all));
	if (nall)
		rsort_u64(all, nall);
	for (i = j = 0; i < nall; i++)
		if (!j || all[j - 1] != all[i])
			all[j++] = all[i];
	nall = j;
	if (nall > UINT32_MAX) {
		ret = -EOVERFLOW;
		goto out;
	}
	for (i = j = 0; i < jp.n; i++) {
		const uint64_t *pa = bsearch(&jp.v[i][0], all, nall, sizeof(*all), rsort_cmp_u64);
		const uint64_t *pb = bsearch(&jp.v[i][1], all, nall, sizeof(*all), rsort_cmp_u64);

		if (pa && pb)
			up[j++] = (struct band_pair){ (uint32_t)(pa - all), (uint32_t)(pb - all), 0 };
	}
	ret = groups_build(all, nall, up, j, NULL, g);
out:
	idx_groups_release(&cg);
	free(jp.v);
	free(ex.pairs);
	free(ex.ids);
	free(reps);
	free(all);
	free(up);
	free(bp);
	free(ids);
	return ret;
}

/* ---- pruning-key candidates ---- */

static int uqhit_cmp(const void *pa, const void *pb)
{
	const struct idx_uq_hit *a = pa, *b = pb;

	if (a->shared != b->shared)
		return a->shared > b->shared ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

/* The postings read for one query: ids[i] = id << 1 | (its key has
 * IDX_UQ_HI), cnt[i] = that book's key count << 16 | its high-key count. */
struct uqread {
	uint64_t *ids;
	uint32_t *cnt;
	size_t n, cap;
};

static int uqread_room(struct uqread *r, size_t m)
{
	size_t nc = r->cap ? r->cap : 256;
	uint64_t *ids;
	uint32_t *cnt;

	if (r->n + m <= r->cap)
		return 0;
	while (nc < r->n + m)
		nc *= 2;
	ids = realloc(r->ids, nc * sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	r->ids = ids;
	cnt = realloc(r->cnt, nc * sizeof(*cnt));
	if (!cnt)
		return -ENOMEM;
	r->cnt = cnt;
	r->cap = nc;
	return 0;
}

/* Appends the postings of key (4 bytes) to r, unless more than max books
 * hold it (a frequent key): then nothing is appended and *stop is set.
 * Reads a page of postings per call (MDB_DUPFIXED); a posting whose counts
 * cannot be a book's is left out. */
static int uq_postings(MDB_cursor *cur, const uint8_t *key, uint32_t max, struct uqread *r,
		       int *stop)
{
	uint64_t hi = key[0] >> 7, pid;
	MDB_val k = mval(key, 4), v;
	size_t cnt = 0, i, m;
	uint32_t nk, nhi;
	int rc, ret;

	*stop = 0;
	rc = mdb_cursor_get(cur, &k, &v, MDB_SET_KEY);
	if (rc == MDB_NOTFOUND)
		return 0;
	if (rc == 0)
		rc = mdb_cursor_count(cur, &cnt);
	if (rc)
		return idx_err(rc);
	if (cnt > max) {
		*stop = 1;
		return 0;
	}
	if (v.mv_size != UQ_POSTING)
		return 0;	/* not a posting of this layout */
	/* one value: GET_MULTIPLE leaves v as it is */
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_GET_MULTIPLE); rc == 0;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT_MULTIPLE)) {
		m = v.mv_size / UQ_POSTING;
		ret = uqread_room(r, m);
		if (ret)
			return ret;
		for (i = 0; i < m; i++) {
			const uint8_t *p = (const uint8_t *)v.mv_data + i * UQ_POSTING;

			pid = be_get(p, 8);
			nk = (uint32_t)be_get(p + 8, 2);
			nhi = (uint32_t)be_get(p + 10, 2);
			if (pid == 0 || pid >> 63 || nk > IDX_UQ_MAX || nhi > nk)
				continue;
			r->ids[r->n] = pid << 1 | hi;
			r->cnt[r->n++] = nk << 16 | nhi;
		}
	}
	return rc == MDB_NOTFOUND ? 0 : idx_err(rc);
}

/* Slot of id in an open-addressed table of mask + 1 slots (0 = empty). */
static size_t uq_slot(const uint64_t *tab, size_t mask, uint64_t id)
{
	size_t s = (size_t)((id * 0x9e3779b97f4a7c15ull) >> 32) & mask;

	while (tab[s] && tab[s] != id)
		s = (s + 1) & mask;
	return s;
}

int idx_uq_candidates(struct idx *ix, uint64_t id, uint32_t max_postings, uint32_t min_shared,
		      struct idx_uq_hit **hits, size_t *nhits, struct idx_uq_stats *stats)
{
	struct idx_uq_hit *h = NULL;
	struct uqread r = { 0 };
	uint64_t *tab = NULL;
	uint32_t *tcnt = NULL, n = 0, i, c;
	size_t nh = 0, s, e, mask = 15, slot;
	MDB_cursor *cur = NULL;
	MDB_txn *txn = NULL;
	uint8_t kb[8], *own = NULL;
	MDB_val k, v;
	int rc, ret, stop;

	*hits = NULL;
	*nhits = 0;
	memset(stats, 0, sizeof(*stats));
	if (min_shared == 0)
		min_shared = 1;
	if (max_postings == 0 || max_postings > IDX_UQ_POSTINGS_MAX)
		return -EINVAL;
	ret = rtx_begin(ix, &txn);
	if (ret)
		return ret;
	be_put(kb, id, 8);
	k = mval(kb, 8);
	rc = mdb_get(txn, ix->db[DB_UQBOOK], &k, &v);
	if (rc) {
		ret = rc == MDB_NOTFOUND ? 0 : idx_err(rc);
		goto out;
	}
	n = (uint32_t)(v.mv_size / 4);
	own = malloc(n ? (size_t)n * 4 : 1);
	if (!own) {
		ret = -ENOMEM;
		goto out;
	}
	memcpy(own, v.mv_data, (size_t)n * 4);
	stats->keys = n;
	stats->keys_hi = uq_count_hi(own, n);
	rc = mdb_cursor_open(txn, ix->db[DB_UQKEY], &cur);
	if (rc)
		ret = idx_err(rc);
	for (i = 0; ret == 0 && i < n; i++) {
		ret = uq_postings(cur, own + 4 * (size_t)i, max_postings, &r, &stop);
		stats->stopped += (uint32_t)stop;
	}
	stats->postings = r.n;
	if (ret || !r.n)
		goto out;
	/* every posting of a book carries its counts: keep them by id before
	 * the sort below separates them from the ids */
	while (mask + 1 < 2 * r.n)
		mask = mask * 2 + 1;
	tab = calloc(mask + 1, sizeof(*tab));
	tcnt = malloc((mask + 1) * sizeof(*tcnt));
	if (!tab || !tcnt) {
		ret = -ENOMEM;
		goto out;
	}
	for (s = 0; s < r.n; s++) {
		slot = uq_slot(tab, mask, r.ids[s] >> 1);
		if (!tab[slot]) {
			tab[slot] = r.ids[s] >> 1;
			tcnt[slot] = r.cnt[s];
		}
	}
	rsort_u64(r.ids, r.n);
	/* runs of one id (id << 1 | kind sorts both kinds of an id together) */
	for (s = 0; s < r.n; s = e) {
		for (e = s + 1; e < r.n && r.ids[e] >> 1 == r.ids[s] >> 1; e++)
			;
		nh += r.ids[s] >> 1 != id && e - s >= min_shared;
	}
	h = malloc((nh ? nh : 1) * sizeof(*h));
	if (!h) {
		ret = -ENOMEM;
		goto out;
	}
	nh = 0;
	for (s = 0; s < r.n; s = e) {
		uint32_t nhi = 0;

		for (e = s; e < r.n && r.ids[e] >> 1 == r.ids[s] >> 1; e++)
			nhi += (uint32_t)(r.ids[e] & 1);
		if (r.ids[s] >> 1 == id || e - s < min_shared)
			continue;
		c = tcnt[uq_slot(tab, mask, r.ids[s] >> 1)];
		h[nh++] = (struct idx_uq_hit){ r.ids[s] >> 1, (uint32_t)(e - s), c >> 16, nhi,
					       c & 0xffff };
	}
out:
	if (cur)
		mdb_cursor_close(cur);
	rtx_end(ix, txn);
	free(own);
	free(r.ids);
	free(r.cnt);
	free(tab);
	free(tcnt);
	if (ret) {
		free(h);
		return ret;
	}
	if (nh)
		qsort(h, nh, sizeof(*h), uqhit_cmp);
	else {
		free(h);
		h = NULL;
	}
	*hits = h;
	*nhits = nh;
	return 0;
}

const char *idx_strerror(int err)
{
	if (err == -EPROTONOSUPPORT)
		return "the index was written by a newer version of simbookfs (a newer schema): "
		       "use that version, or move the index folder away to build a new index";
	if (err == -EBUSY)
		return "another process is rebuilding the index: wait for it to finish";
	return strerror(-err);
}
