/* idx_rebuild.c - carrying a person's marks over a rebuild of the LMDB index.
 *
 * The "not a duplicate" marks are the only thing in the index a scan cannot
 * recreate, and they are stored by book id.  So a rebuild keeps every
 * file's path -> id row (with its stored stat, state reset to queued, no
 * fingerprint), the exemption pairs between kept ids, and nextid; the scan
 * then fingerprints every book again under the id it had.  The old data
 * file is first renamed to PREV_NAME and removed only after the copy is on
 * disk, so a crash mid-rebuild redoes the copy at the next open.
 * idx_frec_decode() reads the file record of every schema so far
 * (FREC_VERSION 1, id at byte 8, since schema 1): a new record layout must
 * keep decoding the old one here, or the marks of its users are lost.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "byteorder.h"
#include "idxcheck.h"
#include "idx_i.h"

/* The data file's (or its set-aside copy's) path in p. */
int idx_dir_file(const char *dir, const char *name, char *p, size_t size)
{
	return snprintf(p, size, "%s/%s", dir, name) >= (int)size ? -ENAMETOOLONG : 0;
}

/* Moves an incompatible data file aside for idx_carry_over(); the lock file goes. */
int idx_env_set_aside(const char *dir)
{
	char from[4096], to[4096];
	int ret = idx_dir_file(dir, "data.mdb", from, sizeof(from));

	if (ret == 0)
		ret = idx_dir_file(dir, PREV_NAME, to, sizeof(to));
	if (ret)
		return ret;
	if (rename(from, to) && errno != ENOENT)
		return -errno;
	return idx_env_remove(dir);
}

/* The old file's tables, in the order idx_carry_over() asks idxcheck_dump(). */
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
	struct kvs_val v;
	int ret = idx_w_get(w, DB_IDS, kb, 8, &v);

	return ret == 0 ? 1 : ret == -ENOENT ? 0 : ret;
}

static int carry_files(struct wtx *w, struct carry_arg *a)
{
	struct frec *f = a->f;
	const uint8_t *rk, *rv;
	size_t pos = 0, rkl, rvl;
	unsigned t;
	struct pkey k;
	struct kvs_val v, cur_v;
	uint8_t kb[8];
	int ret = 0;

	while (ret == 0 && idxcheck_next(a->rows, &pos, &t, &rk, &rkl, &rv, &rvl)) {
		if (t != OLD_FILES)
			continue;
		ret = idx_open_progress(a->ix, IDX_OPEN_REBUILD, ++a->done, a->total);
		if (ret)
			break;
		/* A row that does not decode, or whose id or key is taken (a
		 * damaged table), is left to the scan: a new id, no marks. */
		cur_v.data = rv;
		cur_v.len = rvl;
		if (idx_frec_decode(&cur_v, f))
			continue;
		be_put(kb, f->id, 8);
		idx_path_key(f->path, f->pathlen, &k);
		ret = carry_has_id(w, kb);
		if (ret == 0) {
			ret = idx_w_get(w, DB_FILES, k.b, k.len, &v);
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
		idx_frec_set_err(f, NULL);
		ret = idx_file_store(w, f);
		if (ret == 0)
			ret = idx_w_put(w, DB_IDS, kb, 8, k.b, k.len);
		if (ret == 0)
			ret = idx_count_move(w, 0, 0, IDX_QUEUED, 0);
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
		ret = idx_open_progress(a->ix, IDX_OPEN_REBUILD, ++a->done, a->total);
		if (ret)
			break;
		if (rkl != 16 || be_get(p, 8) == be_get(p + 8, 8))
			continue;
		ret = carry_has_id(w, p);
		if (ret == 1)
			ret = carry_has_id(w, p + 8);
		if (ret == 1) {
			ret = idx_w_put(w, DB_EXEMPT, p, 16, NULL, 0);
			/* both orders are stored: count each pair once */
			a->npairs += be_get(p, 8) < be_get(p + 8, 8);
		}
	}
	return ret;
}

static int carry_fn(struct wtx *w, void *arg)
{
	struct carry_arg *a = arg;
	int ret = idx_meta_load(w);

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
		/* a number no version wrote is damage, not an index */
		if (kl == 6 && memcmp(k, "schema", 6) == 0 && vl == 4 && be_get(v, 4) >= 1 &&
		    be_get(v, 4) <= SCHEMA_FUTURE_MAX)
			a->ours = 1;
		if (kl == 6 && memcmp(k, "nextid", 6) == 0 && vl == 8)
			a->old_nextid = be_get(v, 8);
	}
}

/* Copies the set-aside data file's files (path -> id rows), exemptions and
 * nextid into the new, empty index in one transaction, syncs, then removes
 * the old file.  The old file is read in a child process (idxcheck_dump(),
 * which walks the whole file first), so a damaged one that would crash or
 * hang LMDB costs that child only.  An old file that is damaged (damaged:
 * the open already found it so; else the dump does), or is not an index,
 * is renamed to IDX_DAMAGED_NAME for the user instead, and ix->rebuilt
 * says the marks are lost: rows read from a file with a broken page
 * elsewhere are not trusted either.  An error that is not the file's
 * (memory, descriptors, the new index) keeps it for the next open. */
int idx_carry_over(struct idx *ix, const char *dir, const char *prev, int damaged)
{
	static const char *const tables[OLD_NTABLES] = { "meta", "files", "exempt" };
	struct idxcheck_rows rows = { NULL, 0 };
	struct carry_arg a = { .ix = ix };
	struct idxcheck_note note = { "" };
	char aside[4096];
	size_t len;
	int ret, kept = 0;

	ret = idx_dir_file(dir, IDX_DAMAGED_NAME, aside, sizeof(aside));
	if (ret == 0 && !damaged)
		ret = idxcheck_dump(prev, tables, OLD_NTABLES, &rows, &note);
	/* after the open's own note: why the copy of the marks took longer,
	 * or why they were lost */
	len = strlen(ix->check_note);
	if (note.text[0])
		snprintf(ix->check_note + len, sizeof(ix->check_note) - len, "%sthe copy of its rows: %s",
			 len ? "; " : "", note.text);
	if (ret < 0)
		return ret;
	if (ret == 0 && !damaged) {
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
	ret = kvs_sync(ix->kv);
	if (ret == 0 && (kept ? unlink(prev) : rename(prev, aside)))
		ret = -errno;
out:
	idxcheck_rows_release(&rows);
	return ret;
}
