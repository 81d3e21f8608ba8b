/* idx.c - the LMDB index's handle (idx.h): opening the environment, the
 * schema check (with the upgrades and rebuilds it starts), close and the
 * handle's accessors.  The index's other files are src/index/idx_*.c,
 * sharing include/idx_i.h. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "byteorder.h"
#include "idxcheck.h"
#include "idx_i.h"

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

static enum schema_kind schema_judge(const MDB_val *v)
{
	uint64_t n;

	if (v->mv_size != 4)
		return SCHEMA_BROKEN;
	n = be_get(v->mv_data, 4);
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

static int init_fn(struct wtx *w, void *arg)
{
	struct init_arg *ia = arg;
	struct idx *ix = w->ix;
	MDB_stat st;
	MDB_val key, v;
	uint8_t b[4];
	int rc, ret, i, fresh = 0, upgrade = 0;

	rc = mdb_dbi_open(w->txn, idx_db_names[DB_META], MDB_CREATE, &ix->db[DB_META]);
	if (rc == MDB_INCOMPATIBLE || lmdb_damage(rc)) {
		ia->incompatible = 1;
		ia->damaged = rc != MDB_INCOMPATIBLE;
		return -EIO;
	}
	if (rc)
		return idx_err(rc);
	key = idx_mval("schema", 6);
	rc = mdb_get(w->txn, ix->db[DB_META], &key, &v);
	ret = idx_err(rc);
	if (lmdb_damage(rc)) {
		ia->incompatible = ia->damaged = 1;
		return -EIO;
	}
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
	} else {
		switch (schema_judge(&v)) {
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
		rc = mdb_dbi_open(w->txn, idx_db_names[i], i == DB_UQKEY ?
				  MDB_CREATE | MDB_DUPSORT | MDB_DUPFIXED : MDB_CREATE, &ix->db[i]);
		if (rc == MDB_INCOMPATIBLE || lmdb_damage(rc)) {
			ia->incompatible = 1;
			ia->damaged = rc != MDB_INCOMPATIBLE;
			return -EIO;
		}
		if (rc)
			return idx_err(rc);
	}
	if (upgrade) {
		uint8_t s[4];

		/* 3: the postings get their counts; 3 and 4: the groups of
		 * copies; 5: the links of the old relation rule go; every
		 * one: the rel table starts empty, every book unjudged (its
		 * list is computed at read time until the daemon judges it) */
		be_put(s, IDX_SCHEMA_VERSION, 4);
		ret = upgrade == 3 ? idx_rebuild_uqkey(w) : 0;
		if (ret == 0)
			ret = idx_err(mdb_drop(w->txn, ix->db[DB_REL], 0));
		if (ret == 0 && upgrade < 5)
			ret = idx_upgrade_copies(w);
		if (ret == 0 && upgrade == 5)
			ret = idx_err(mdb_drop(w->txn, ix->db[DB_CLUSTER], 0));
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
	ret = idx_w_get(w, DB_META, "maxd", 4, &v);
	if (ret && ret != -ENOENT)
		return ret;
	if (ret == 0 && v.mv_size == 4 && be_get(v.mv_data, 4) == ia->max_d)
		return 0;
	/* The band layout changed: rebuild the simhash bands from the books. */
	ret = idx_rebuild_shband(w);
	if (ret == 0)
		ret = idx_w_put(w, DB_META, "maxd", 4, b, 4);
	return ret;
}

int idx_open(struct idx **out, const char *dir, const struct idx_opts *opts)
{
	struct init_arg ia = { 7, 0, 0 };
	uint64_t map_size = MAP_DEFAULT;
	struct idx *ix = NULL;
	char prev[4096];
	int ret, rc, attempt, locks = 0, damaged = 0;

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
		ret = idxcheck_walk(dir);
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
		rc = env_open(ix, dir, map_size);
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
			mdb_env_close(ix->env);
			ix->env = NULL;
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
	if (!ix->env) {
		ret = -EIO;
		goto out;
	}
	if (access(prev, F_OK) == 0) {
		ret = idx_carry_over(ix, dir, prev, damaged);
		if (ret)
			goto out;
	}
	ret = idx_flusher_start(ix);
	if (ret)
		goto out;
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
	idx_flusher_stop(ix);
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

const char *idx_strerror(int err)
{
	if (err == -EPROTONOSUPPORT)
		return "the index was written by a newer version of simbookfs (a newer schema): "
		       "use that version, or move the index folder away to build a new index";
	if (err == -EBUSY)
		return "another process is rebuilding the index: wait for it to finish";
	return strerror(-err);
}
