/* idx.c - the index's handle (idx.h) and the LMDB file's own matters:
 * opening the environment (the LMDB store of kvs_lmdb.h), the schema check
 * (with the upgrades and rebuilds it starts), close and the handle's
 * accessors.  The index's other files are src/index/idx_*.c, sharing
 * include/idx_i.h; they reach the tables through kvs.h only. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "byteorder.h"
#include "idxcheck.h"
#include "idx_i.h"
#include "kvs_lmdb.h"
#include "kvs_redis.h"
#include "rcluri.h"

const char *const idx_db_names[NDB] = {
	"meta", "files", "ids", "book", "rec", "shband", "mhband", "text", "exempt", "fail",
	"uqkey", "uqbook", "clusters", "copies", "rel"
};

/* Tells opts.progress how far an upgrade or rebuild is: 0, or -ECANCELED
 * when the caller wants the open stopped. */
int idx_open_progress(struct idx *ix, enum idx_open_phase phase, uint64_t done,
			 uint64_t total)
{
	if (!ix->progress)
		return 0;
	return ix->progress(ix->progress_arg, phase, done, total) ? -ECANCELED : 0;
}

static int env_open(struct idx *ix, const char *dir, uint64_t map_size, unsigned flags)
{
	return kvs_lmdb_env_open(ix->kv, dir, map_size, flags);
}

int idx_env_remove(const char *dir)
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

struct init_arg {
	uint32_t max_d;
	int incompatible;	/* set the file aside and rebuild */
	int damaged;		/* ... because it is damaged: nothing in it is trusted */
};

/* What the stored schema number says: a number no version wrote (not 4
 * bytes, 0, or past SCHEMA_FUTURE_MAX) is damage, not another version. */
enum schema_kind { SCHEMA_CURRENT, SCHEMA_UPGRADE, SCHEMA_OLD, SCHEMA_NEWER, SCHEMA_BROKEN };

static enum schema_kind schema_judge(const void *p, size_t len)
{
	uint64_t n;

	if (len != 4)
		return SCHEMA_BROKEN;
	n = be_get(p, 4);
	if (n == IDX_SCHEMA_VERSION)
		return SCHEMA_CURRENT;
	if (n >= 3 && n <= 5)
		return SCHEMA_UPGRADE;
	if (n == 1 || n == 2)
		return SCHEMA_OLD;
	if (n > IDX_SCHEMA_VERSION && n <= SCHEMA_FUTURE_MAX)
		return SCHEMA_NEWER;
	return SCHEMA_BROKEN;
}

/* An LMDB error of the first reads that means the file is damaged (the
 * walk was skipped: the file was stamped or in use). */
static int lmdb_damage(int rc)
{
	return rc == MDB_CORRUPTED || rc == MDB_PAGE_NOTFOUND || rc == MDB_INVALID;
}

/* The schema's own work once the tables are open, on any store: a fresh
 * index stamped, an upgrade from schema `upgrade` (0: none) run, the
 * simhash bands rebuilt when max_d changed. */
static int init_tables(struct wtx *w, struct init_arg *ia, int fresh, int upgrade)
{
	struct kvs_val mv;
	uint8_t b[4];
	int ret;

	if (upgrade) {
		uint8_t s[4];

		/* 3: the postings get their counts; 3 and 4: the groups of
		 * copies; 5: the links of the old relation rule go; every
		 * one: the rel table starts empty, every book unjudged (its
		 * list is computed at read time until the daemon judges it) */
		be_put(s, IDX_SCHEMA_VERSION, 4);
		ret = upgrade == 3 ? idx_rebuild_uqkey(w) : 0;
		if (ret == 0)
			ret = kvs_clear(w->tx, DB_REL);
		if (ret == 0 && upgrade < 5)
			ret = idx_upgrade_copies(w);
		if (ret == 0 && upgrade == 5)
			ret = kvs_clear(w->tx, DB_CLUSTER);
		if (ret == 0) {
			uint8_t z[8] = { 0 };

			ret = idx_w_put(w, DB_META, "judge", 5, z, 8);	/* every book owed */
		}
		if (ret == 0)
			ret = idx_w_put(w, DB_META, "schema", 6, s, 4);
		if (ret)
			return ret;
	}
	be_put(b, ia->max_d, 4);
	if (fresh) {
		uint8_t s[4];

		be_put(s, IDX_SCHEMA_VERSION, 4);
		ret = idx_w_put(w, DB_META, "schema", 6, s, 4);
		if (ret == 0)
			ret = idx_w_put(w, DB_META, "maxd", 4, b, 4);
		return ret;
	}
	ret = idx_w_get(w, DB_META, "maxd", 4, &mv);
	if (ret && ret != -ENOENT)
		return ret;
	if (ret == 0 && mv.len == 4 && be_get(mv.data, 4) == ia->max_d)
		return 0;
	/* The band layout changed: rebuild the simhash bands from the books. */
	ret = idx_rebuild_shband(w);
	if (ret == 0)
		ret = idx_w_put(w, DB_META, "maxd", 4, b, 4);
	return ret;
}

static int init_fn(struct wtx *w, void *arg)
{
	struct init_arg *ia = arg;
	struct idx *ix = w->ix;
	MDB_stat st;
	MDB_val key, v;
	int rc, ret, i, fresh = 0, upgrade = 0;

	rc = mdb_dbi_open(w->tx->txn, idx_db_names[DB_META], MDB_CREATE, &ix->kv->db[DB_META]);
	if (rc == MDB_INCOMPATIBLE || lmdb_damage(rc)) {
		ia->incompatible = 1;
		ia->damaged = rc != MDB_INCOMPATIBLE;
		return -EIO;
	}
	if (rc)
		return idx_err(rc);
	key = kvs_mval("schema", 6);
	rc = mdb_get(w->tx->txn, ix->kv->db[DB_META], &key, &v);
	ret = idx_err(rc);
	if (lmdb_damage(rc)) {
		ia->incompatible = ia->damaged = 1;
		return -EIO;
	}
	if (ret == -ENOENT) {
		MDB_dbi main_db;

		/* Only our meta table may exist in a fresh environment. */
		rc = mdb_dbi_open(w->tx->txn, NULL, 0, &main_db);
		if (rc == 0)
			rc = mdb_stat(w->tx->txn, main_db, &st);
		if (rc)
			return idx_err(rc);
		if (st.ms_entries > 1) {
			ia->incompatible = 1;
			return -EIO;
		}
		fresh = 1;
	} else if (ret) {
		return ret;
	} else {
		switch (schema_judge(v.mv_data, v.mv_size)) {
		case SCHEMA_CURRENT:
			break;
		case SCHEMA_UPGRADE:
			upgrade = (int)be_get(v.mv_data, 4);
			break;
		case SCHEMA_NEWER:
			/* a newer version's index: rebuilding would destroy it */
			return -EPROTONOSUPPORT;
		case SCHEMA_OLD:
			ia->incompatible = 1;
			return -EIO;
		case SCHEMA_BROKEN:
			ia->incompatible = ia->damaged = 1;
			return -EIO;
		}
	}
	for (i = DB_META + 1; i < NDB; i++) {
		rc = mdb_dbi_open(w->tx->txn, idx_db_names[i], i == DB_UQKEY ?
				  MDB_CREATE | MDB_DUPSORT | MDB_DUPFIXED : MDB_CREATE, &ix->kv->db[i]);
		if (rc == MDB_INCOMPATIBLE || lmdb_damage(rc)) {
			ia->incompatible = 1;
			ia->damaged = rc != MDB_INCOMPATIBLE;
			return -EIO;
		}
		if (rc)
			return idx_err(rc);
	}
	return init_tables(w, ia, fresh, upgrade);
}

/* idx_opts.readonly: the tables of an index another process keeps, as
 * they are.  Its readers take slots in lock.mdb like the writer's own, so
 * the pages they read stay put while the writer goes on. */
static int open_ro(struct idx *ix, const char *dir)
{
	struct idxcheck_note note;
	MDB_txn *txn = NULL;
	MDB_val key, v;
	uint32_t max_d = 7;
	int rc, ret, i;

	ret = idxcheck_walk(dir, &note);
	snprintf(ix->check_note, sizeof(ix->check_note), "%s", note.text);
	if (ret == IDXCHECK_DAMAGED)
		return -EIO;
	if (ret)
		return ret;
	rc = env_open(ix, dir, MAP_DEFAULT, MDB_RDONLY);
	if (rc)
		return rc == MDB_INVALID || rc == MDB_CORRUPTED ? -EIO :
		       rc == MDB_VERSION_MISMATCH ? -ESTALE : idx_err(rc);
	rc = mdb_txn_begin(ix->kv->env, NULL, MDB_RDONLY, &txn);
	if (rc == 0)
		rc = mdb_dbi_open(txn, idx_db_names[DB_META], 0, &ix->kv->db[DB_META]);
	if (rc == MDB_NOTFOUND) {
		ret = -ESTALE;	/* created, never filled: its writer is starting */
		goto out;
	}
	key = kvs_mval("schema", 6);
	if (rc == 0)
		rc = mdb_get(txn, ix->kv->db[DB_META], &key, &v);
	if (rc) {
		ret = rc == MDB_NOTFOUND ? -ESTALE : lmdb_damage(rc) || rc == MDB_INCOMPATIBLE ?
		      -EIO : idx_err(rc);
		goto out;
	}
	switch (schema_judge(v.mv_data, v.mv_size)) {
	case SCHEMA_CURRENT:
		break;
	case SCHEMA_NEWER:
		ret = -EPROTONOSUPPORT;
		goto out;
	case SCHEMA_BROKEN:
		ret = -EIO;
		goto out;
	default:
		ret = -ESTALE;	/* another version's: its writer upgrades it */
		goto out;
	}
	key = kvs_mval("maxd", 4);
	if (mdb_get(txn, ix->kv->db[DB_META], &key, &v) == 0 && v.mv_size == 4)
		max_d = (uint32_t)be_get(v.mv_data, 4);
	for (i = DB_META + 1, rc = 0; i < NDB && !rc; i++)
		rc = mdb_dbi_open(txn, idx_db_names[i], i == DB_UQKEY ?
				  MDB_DUPSORT | MDB_DUPFIXED : 0, &ix->kv->db[i]);
	if (rc) {
		ret = rc == MDB_NOTFOUND ? -ESTALE : lmdb_damage(rc) || rc == MDB_INCOMPATIBLE ?
		      -EIO : idx_err(rc);
		goto out;
	}
	ret = band_layout_init(&ix->bl, max_d);
	if (ret)
		goto out;
	/* committed, not aborted: the table handles outlive the transaction */
	rc = mdb_txn_commit(txn);
	txn = NULL;
	ret = idx_err(rc);
out:
	if (txn)
		mdb_txn_abort(txn);
	return ret;
}

/* The Redis store's schema check, on kvs alone.  Nothing is set aside or
 * rebuilt there (a server's keys have no aside): another schema that no
 * upgrade reaches, or damage, is refused (-EIO). */
static int init_redis_fn(struct wtx *w, void *arg)
{
	struct init_arg *ia = arg;
	struct kvs_val v;
	uint64_t rows = 0;
	int ret = idx_w_get(w, DB_META, "schema", 6, &v), fresh = 0, upgrade = 0;

	if (ret == -ENOENT) {
		ret = kvs_rows(w->tx, DB_FILES, &rows);
		if (ret)
			return ret;
		if (rows)
			return -EIO;	/* rows without a schema: not an index of ours */
		fresh = 1;
	} else if (ret) {
		return ret;
	} else {
		switch (schema_judge(v.data, v.len)) {
		case SCHEMA_CURRENT:
			break;
		case SCHEMA_UPGRADE:
			upgrade = (int)be_get(v.data, 4);
			break;
		case SCHEMA_NEWER:
			return -EPROTONOSUPPORT;
		default:
			return -EIO;
		}
	}
	return init_tables(w, ia, fresh, upgrade);
}

/* idx_opts.readonly on Redis: the current schema or -ESTALE, and max_d. */
static int ro_redis_fn(struct kvs_tx *tx, void *arg)
{
	uint32_t *max_d = arg;
	struct kvs_val v;
	int ret = kvs_get(tx, DB_META, "schema", 6, &v);

	*max_d = 7;
	if (ret)
		return ret == -ENOENT ? -ESTALE : ret;
	switch (schema_judge(v.data, v.len)) {
	case SCHEMA_CURRENT:
		break;
	case SCHEMA_NEWER:
		return -EPROTONOSUPPORT;
	case SCHEMA_BROKEN:
		return -EIO;
	default:
		return -ESTALE;
	}
	if (kvs_get(tx, DB_META, "maxd", 4, &v) == 0 && v.len == 4)
		*max_d = (uint32_t)be_get(v.data, 4);
	return 0;
}

/* An index in Redis (kvs_redis.h): no folder, no lock (many mounts may
 * share it), the same schema record and upgrades as LMDB's through kvs. */
static int open_redis(struct idx *ix, const char *uri, struct init_arg *ia, int readonly)
{
	uint32_t max_d;
	int ret = kvs_redis_open(uri, &ix->kv, NULL, 0);

	if (ret)
		return ret;
	ix->remote = 1;
	if (!readonly) {
		ret = idx_write(ix, init_redis_fn, ia);
		return ret < 0 ? ret : 0;
	}
	ret = kvs_read(ix->kv, ro_redis_fn, &max_d);
	return ret ? ret : band_layout_init(&ix->bl, max_d);
}

int idx_open(struct idx **out, const char *dir, const struct idx_opts *opts)
{
	struct init_arg ia = { 7, 0, 0 };
	uint64_t map_size = MAP_DEFAULT;
	struct idx *ix = NULL;
	char prev[4096];
	uint32_t sync_ms = 1000;
	int ret, rc, attempt, damaged = 0;

	*out = NULL;
	ix = calloc(1, sizeof(*ix));
	if (!ix)
		return -ENOMEM;
	if (opts) {
		if (opts->max_d)
			ia.max_d = opts->max_d;
		if (opts->map_size)
			map_size = opts->map_size < MAP_MIN ? MAP_MIN : opts->map_size;
		if (opts->sync_ms)
			sync_ms = opts->sync_ms;
		ix->progress = opts->progress;
		ix->progress_arg = opts->progress_arg;
	}
	ret = band_layout_init(&ix->bl, ia.max_d);
	if (ret)
		goto out;
	if (rcluri_is_uri(dir)) {
		ret = open_redis(ix, dir, &ia, opts && opts->readonly);
		if (ret)
			goto out;
		goto opened;
	}
	if (opts && opts->readonly && access(dir, F_OK) < 0) {
		ret = -errno;
		goto out;
	}
	if (!(opts && opts->readonly) && mkdir(dir, 0700) && errno != EEXIST) {
		ret = -errno;
		goto out;
	}
	ret = kvs_lmdb_new(&ix->kv, sync_ms);
	if (ret)
		goto out;
	if (opts && opts->readonly) {
		ret = open_ro(ix, dir);
		if (ret)
			goto out;
		goto opened;
	}
	ret = idx_dir_file(dir, PREV_NAME, prev, sizeof(prev));
	if (ret)
		goto out;
	if (access(prev, F_OK) == 0) {
		/* A rebuild stopped before its copy was on disk: start it again,
		 * unless the process rebuilding it is still at work. */
		ret = idxcheck_in_use(dir);
		if (ret > 0)
			ret = -EBUSY;
		if (ret == 0)
			ret = idx_open_progress(ix, IDX_OPEN_REBUILD, 0, 0);
		if (ret == 0)
			ret = idx_env_remove(dir);
		if (ret)
			goto out;
	} else {
		/* LMDB checks no page: the data file is mapped here only after a
		 * child process walked it whole; a damaged one is rebuilt and
		 * kept aside as IDX_DAMAGED_NAME, whichever page the damage hit
		 * (the schema number is read only from a file that passed). */
		struct idxcheck_note note;

		ret = idxcheck_walk(dir, &note);
		snprintf(ix->check_note, sizeof(ix->check_note), "%s", note.text);
		if (ret == IDXCHECK_DAMAGED) {
			damaged = 1;
			ret = idx_open_progress(ix, IDX_OPEN_REBUILD, 0, 0);
			if (ret == 0)
				ret = idx_env_set_aside(dir);
		}
		if (ret && ret != -ENOENT)
			goto out;
	}
	for (attempt = 0; attempt < 2; attempt++) {
		rc = env_open(ix, dir, map_size, 0);
		if (rc == MDB_INVALID || rc == MDB_VERSION_MISMATCH || rc == MDB_CORRUPTED) {
			ia.incompatible = 1;
			damaged |= rc != MDB_VERSION_MISMATCH;
		} else if (rc) {
			ret = idx_err(rc);
			goto out;
		} else {
			ia.incompatible = ia.damaged = 0;
			ret = idx_write(ix, init_fn, &ia);
			if (ret >= 0)
				break;
			if (!ia.incompatible)
				goto out;
			damaged |= ia.damaged;
			kvs_lmdb_env_close(ix->kv);
		}
		if (attempt == 1)
			break;
		/* Unreadable or another schema: start over (a scan refills
		 * it), keeping what the old file holds of the marks unless it
		 * is damaged. */
		ret = idx_open_progress(ix, IDX_OPEN_REBUILD, 0, 0);
		if (ret == 0)
			ret = idx_env_set_aside(dir);
		if (ret)
			goto out;
	}
	if (!ix->kv->env) {
		ret = -EIO;
		goto out;
	}
	if (access(prev, F_OK) == 0) {
		ret = idx_carry_over(ix, dir, prev, damaged);
		if (ret)
			goto out;
	}
	ret = kvs_lmdb_flusher_start(ix->kv);
	if (ret)
		goto out;
opened:
	ix->progress = NULL;	/* the caller's arg need not outlive the open */
	*out = ix;
	ix = NULL;
	ret = 0;
out:
	if (ix) {
		kvs_free(ix->kv);
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
	if (ix->remote) {
		kvs_free(ix->kv);
		free(ix);
		return;
	}
	kvs_lmdb_flusher_stop(ix->kv);
	/* synced and closed by its writer: the next open need not walk it
	 * (a read-only environment refuses the sync) */
	if (mdb_env_sync(ix->kv->env, 1) == 0 && mdb_env_get_path(ix->kv->env, &path) == 0 && path)
		dir = strdup(path);
	kvs_free(ix->kv);
	if (dir)
		idxcheck_stamp(dir);
	free(dir);
	free(ix);
}

int idx_watch(struct idx *ix, void (*fn)(void *arg), void *arg)
{
	return kvs_watch(ix->kv, fn, arg);
}

int idx_health(struct idx *ix, char *why, size_t n, int64_t *since)
{
	return kvs_health(ix->kv, why, n, since);
}

/* the name of book id's claim */
static size_t claim_name(uint64_t id, char name[32])
{
	return (size_t)snprintf(name, 32, "book:%" PRIu64, id);
}

int idx_claim(struct idx *ix, uint64_t id, unsigned ttl_ms, unsigned *left_ms)
{
	char name[32];

	return kvs_claim(ix->kv, name, claim_name(id, name), ttl_ms, left_ms);
}

void idx_unclaim(struct idx *ix, uint64_t id)
{
	char name[32];

	kvs_unclaim(ix->kv, name, claim_name(id, name));
}

int idx_sync(struct idx *ix)
{
	return kvs_sync(ix->kv);
}

const char *idx_check_note(const struct idx *ix)
{
	return ix->check_note;
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
	return kvs_generation(ix->kv);
}

const char *idx_strerror(int err)
{
	if (err == -EPROTONOSUPPORT)
		return "the index was written by a newer version of simbookfs (a newer schema): "
		       "use that version, or move the index folder away to build a new index";
	if (err == -EBUSY)
		return "another process is rebuilding the index: wait for it to finish";
	if (err == -ETIMEDOUT)
		return "the index did not answer in time (a server that did not answer, or the "
		       "check of an index file whose readers were held up, which says nothing "
		       "about the file): try again";
	if (err == -ESTALE)
		return "the index is being created or upgraded by the process that keeps it "
		       "(a mount's daemon, simbook index): try again once it is done";
	return strerror(-err);
}
