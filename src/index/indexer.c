/* indexer.c - fingerprint on write: index + queue + scan for one library
 * (see indexer.h). */
#include "indexer.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "book.h"
#include "bookfile.h"
#include "bookrec.h"
#include "extract.h"
#include "fprec.h"
#include "fspath.h"
#include "ijournal.h"
#include "held.h"
#include "queue.h"
#include "sbuf.h"
#include "scan.h"
#include "judge.h"
#include "watch.h"
#include "monoclock.h"

#define SNIFF_BYTES 4096
#define OPS_BATCH 4096		/* path changes per index transaction at most */
#define OPS_GATHER_NS 2000000L	/* a burst of path changes gathers this long */
/* Finished books wait for the writer until PUT_BATCH of them are ready, or
 * the work queue has nothing more to give, or the first has waited
 * PUT_GATHER_NS; a worker waits while PUT_MAX are pending. */
#define PUT_BATCH 16
#define PUT_GATHER_NS 500000000L
#define PUT_MAX (4 * PUT_BATCH)
#define WRITER_NICE 5		/* as the workers: the filesystem's threads first */
#define CATCHUP_BATCH 16	/* unjudged books judged between two looks at the list */
#define CLAIM_MS_DEFAULT 60000	/* a claim on a book of a shared index, unless renewed */
#define HELD_SLACK_MS 100	/* after a claim's end: its holder's commit is in */

/* A change waiting for the index (see indexer_flush()). */
enum ixop_kind {
	IXOP_UNLINK,
	IXOP_RENAME,		/* from -> to, flags as idx_rename() */
	IXOP_RESTAT,		/* from's ctime changed (a hard link) */
	IXOP_PUT,		/* a worker's result for book id: rf, or the
				 * failure state with the reason in from */
};

struct ixop {
	struct ixop *next;
	enum ixop_kind kind;
	unsigned flags;
	char *to;		/* IXOP_RENAME: points into from's allocation */
	uint64_t id;		/* IXOP_PUT */
	struct idx_stat st;	/* IXOP_PUT: the stat the file was read with */
	struct bookrec_fp *rf;	/* IXOP_PUT: owned; NULL for a failure */
	enum idx_state state;	/* IXOP_PUT failure: IDX_FAILED or IDX_NOT_BOOK */
	char from[];
};

struct indexer {
	int rootfd;
	struct idx *ix;
	struct queue *q;
	struct scan *scan;
	/* a shared index: books another process claimed wait here, and how
	 * long a claim of this one lasts */
	struct held *held;
	unsigned claim_ms;
	struct extract_limits lim;
	unsigned rescan_secs;
	int use_watch;
	struct watch *watch;		/* set by the background thread */
	void (*notify)(void *arg);
	void *notify_arg;
	struct ijr *jr;			/* indexer_opts.journal */
	atomic_uint_fast64_t indexed;
	/* the rescan timer thread */
	pthread_t timer;
	int has_timer;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int stopping;
	int started;			/* indexer_start() ran: replays may run */
	char *skip_dir;
	int include_hidden;		/* indexer_opts: files under hidden folders */
	int extensionless;		/* indexer_opts: plain text without an extension */
	/* Unlinks and renames wait here for the writer thread, so the
	 * filesystem's threads never wait for an index transaction.  Anyone
	 * about to read or write a path's entry (a worker, the watch) applies
	 * them first, under flush_lock, so the index sees them in order.  The
	 * workers' finished books go into the same list, so a book and the
	 * path changes around it reach the index in the order they happened,
	 * and the writer stores many books per transaction. */
	pthread_mutex_t ops_lock;
	pthread_cond_t ops_cond;	/* wakes the writer */
	pthread_cond_t puts_cond;	/* wakes a worker waiting for room */
	struct ixop *ops_head, **ops_tail;
	uint64_t ops_pending;		/* appended and not yet applied */
	uint64_t paths_pending;		/* of which path changes */
	uint64_t paths_applying;	/* path changes a flush has taken and
					 * not yet applied */
	uint64_t puts_pending;		/* of which books */
	uint64_t put_since_ns;		/* when the oldest pending book came */
	int put_now;			/* no more work queued: store them now */
	int ops_stop;
	pthread_t writer;
	int has_writer;
	/* Books stored but not judged (an index upgraded from schema 4): the
	 * writer judges them in id order when it has nothing else to do,
	 * from indexer_start() on (judge_more: under ops_lock; judge_from:
	 * the writer's once started). */
	int judge_more;
	uint64_t judge_from;
	pthread_mutex_t flush_lock;	/* one batch applied at a time, in order */
};

static void indexer_notify(struct indexer *ixr)
{
	if (ixr->notify)
		ixr->notify(ixr->notify_arg);
}

static void indexer_flush(struct indexer *ixr, int all);
static void *indexer_writer(void *arg);
static void indexer_unlink_now(struct indexer *ixr, const char *path);
static void indexer_rename_now(struct indexer *ixr, const char *from, const char *to, int exchange);
static void indexer_link_now(struct indexer *ixr, const char *from, const char *to);

/* While the shared index's server is out of reach: the change goes to the
 * journal (1), to be handed to the indexer when it is back; else 0. */
static int indexer_journaled(struct indexer *ixr, enum ijr_op op, const char *a,
			     const char *b)
{
	if (!ixr->jr || !idx_health(ixr->ix, NULL, 0, NULL))
		return 0;
	(void)ijr_add(ixr->jr, op, a, b);	/* a failure owes a rescan */
	return 1;
}

/* A journal record, handed back (ijr_replay(): no ijr_* call here). */
static void indexer_replayed(void *arg, enum ijr_op op, const char *a, const char *b)
{
	struct indexer *ixr = arg;

	switch (op) {
	case IJR_WRITE:
		queue_push(ixr->q, a, QUEUE_HIGH);
		break;
	case IJR_UNLINK:
		indexer_unlink_now(ixr, a);
		break;
	case IJR_RENAME:
	case IJR_EXCHANGE:
		indexer_rename_now(ixr, a, b, op == IJR_EXCHANGE);
		break;
	case IJR_LINK:
		indexer_link_now(ixr, a, b);
		break;
	case IJR_RESCAN:
		(void)scan_request(ixr->scan);
		break;
	}
}

/* The changes journaled while the index was out of reach, applied now
 * that it is back (their books are fingerprinted and judged by the
 * workers as any written book), and the journal emptied. */
static void indexer_replay(struct indexer *ixr)
{
	if (!ixr->jr)
		return;
	/* Under lock: not before the indexer is whole (the watcher hears
	 * of the first subscription inside indexer_new()), nor once
	 * indexer_free() began.  An empty journal costs no I/O. */
	pthread_mutex_lock(&ixr->lock);
	if (ixr->started && !ixr->stopping && !idx_health(ixr->ix, NULL, 0, NULL))
		(void)ijr_replay(ixr->jr, indexer_replayed, ixr);
	pthread_mutex_unlock(&ixr->lock);
}

/* idx_watch(): another mount's commit, or the server gone or back. */
static void indexer_heard(void *arg)
{
	struct indexer *ixr = arg;

	indexer_replay(ixr);
	indexer_notify(ixr);
}

/* Links op at the end of the list; ops_lock held. */
static void ops_link(struct indexer *ixr, struct ixop *op)
{
	op->next = NULL;
	*ixr->ops_tail = op;
	ixr->ops_tail = &op->next;
	ixr->ops_pending++;
	if (op->kind == IXOP_PUT)
		ixr->puts_pending++;
	else
		ixr->paths_pending++;
}

static void ixop_free(struct ixop *op)
{
	if (op->rf)
		bookrec_fp_release(op->rf);
	free(op->rf);
	free(op);
}

/* Hands a worker's result for book id (read with stat st) to the writer:
 * the fingerprint rf (taken, also on error), or with rf NULL the failure
 * state and its reason err.  Waits while PUT_MAX books are pending, so a
 * writer that falls behind holds the workers back instead of their records
 * piling up.  0 or -ENOMEM. */
static int indexer_push_put(struct indexer *ixr, uint64_t id, const struct idx_stat *st,
			    struct bookrec_fp *rf, enum idx_state state, const char *err)
{
	size_t le = err ? strlen(err) + 1 : 1;
	struct ixop *op = calloc(1, sizeof(*op) + le);
	struct queue_stats qs;

	if (!op) {
		if (rf)
			bookrec_fp_release(rf);
		free(rf);
		return -ENOMEM;
	}
	op->kind = IXOP_PUT;
	op->id = id;
	op->st = *st;
	op->rf = rf;
	op->state = state;
	memcpy(op->from, err ? err : "", le);
	queue_stats(ixr->q, &qs);
	pthread_mutex_lock(&ixr->ops_lock);
	while (ixr->puts_pending >= PUT_MAX && !ixr->ops_stop)
		pthread_cond_wait(&ixr->puts_cond, &ixr->ops_lock);
	if (!ixr->puts_pending)
		ixr->put_since_ns = (uint64_t)monoclock_ns();
	/* nothing else waits for a worker: no reason to hold this one back
	 * (a book written alone shows in the views at once) */
	if (!qs.pending)
		ixr->put_now = 1;
	ops_link(ixr, op);
	pthread_cond_signal(&ixr->ops_cond);
	pthread_mutex_unlock(&ixr->ops_lock);
	return 0;
}

static void stat_to_idx(const struct stat *s, struct idx_stat *o)
{
	o->size = (uint64_t)s->st_size;
	o->mtime_ns = (int64_t)s->st_mtim.tv_sec * 1000000000 + s->st_mtim.tv_nsec;
	o->ctime_ns = (int64_t)s->st_ctim.tv_sec * 1000000000 + s->st_ctim.tv_nsec;
	o->ino = (uint64_t)s->st_ino;
	o->dev = (uint64_t)s->st_dev;
}


/* Records a failure (or "not a book") for id with reason err, through the
 * writer like a fingerprint. */
static int put_failed(struct indexer *ixr, uint64_t id, const struct idx_stat *st,
		      enum idx_state state, const char *err)
{
	return indexer_push_put(ixr, id, st, NULL, state, err);
}

/* After storing book id read with stat st: if the file was renamed while it
 * was read, the rename's new stat (stored by the rename) was just
 * overwritten with the old one.  Store the current stat again when it is
 * still the same content (same inode, size and mtime), else fingerprint the
 * file again (a write under its old name, or a utimens(), came after the
 * read), so the index converges now rather than at the next scan. */
static void indexer_settle(struct indexer *ixr, uint64_t id, const struct idx_stat *st)
{
	struct idx_file f = { 0 };
	struct idx_stat now;
	struct stat sb;

	if (idx_get_id(ixr->ix, id, &f) == 0 &&
	    fstatat(ixr->rootfd, f.path, &sb, AT_SYMLINK_NOFOLLOW) == 0) {
		stat_to_idx(&sb, &now);
		if (idx_stat_same(&now, st))
			;
		else if (now.ino == st->ino && now.dev == st->dev && now.size == st->size &&
			 now.mtime_ns == st->mtime_ns)
			idx_set_stat(ixr->ix, f.path, &now);
		else	/* changed meanwhile (e.g. utimens before a rename) */
			queue_push(ixr->q, f.path, QUEUE_HIGH);
	}
	idx_file_release(&f);
}

/* Whether the last component of path is "metadata.opf". */
static int is_opf(const char *path)
{
	const char *base = strrchr(path, '/');

	return !strcmp(base ? base + 1 : path, "metadata.opf");
}

/* The metadata.opf at path was written, renamed or removed: the books of its
 * folder take its title and author now (or lose them), their fingerprints
 * kept (idx_set_record()).  A book read while the metadata.opf changed may
 * be stored with the older title right after: the next change of either
 * file puts it right. */
static void indexer_retitle(struct indexer *ixr, const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = strndup(path, slash ? (size_t)(slash - path) : 0), *title = NULL;
	char *author = NULL;
	struct idx_entry *ents = NULL;
	struct sbuf nrec;
	size_t n = 0, i, len;
	uint32_t ver;
	void *rec;
	int changed = 0;

	sbuf_init(&nrec);
	if (!dir || bookfile_opf(ixr->rootfd, path, &title, &author) < 0 ||
	    idx_list(ixr->ix, dir, 0, &ents, &n))
		goto out;
	for (i = 0; i < n; i++) {
		const struct idx_file *f = &ents[i].file;

		if (ents[i].is_dir || !f->has_fp || f->rec_version != BOOKREC_IDX_VERSION)
			continue;
		rec = NULL;
		sbuf_setlen(&nrec, 0);
		if (idx_record(ixr->ix, f->id, &ver, &rec, &len) == 0 &&
		    ver == BOOKREC_IDX_VERSION &&
		    bookrec_retitle(rec, len, title, author, &nrec) == 0 &&
		    (nrec.len != len || memcmp(nrec.buf, rec, len)) &&
		    idx_set_record(ixr->ix, f->id, ver, nrec.buf, nrec.len) == 0)
			changed = 1;
		free(rec);
	}
	if (changed)
		indexer_notify(ixr);
out:
	idx_entries_free(ents, n);
	sbuf_release(&nrec);
	free(title);
	free(author);
	free(dir);
}

/* Whether a folder of path (not its last component) is hidden (".name"):
 * calibre's .caltrash, .git, a sync tool's cache. */
static int in_hidden_dir(const char *path)
{
	const char *p = path, *slash;

	while ((slash = strchr(p, '/')) != NULL) {
		if (*p == '.')
			return 1;
		p = slash + 1;
	}
	return 0;
}

/* Whether the last component of path has no extension (COPYING, README). */
static int no_extension(const char *path)
{
	const char *base = strrchr(path, '/'), *dot;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	return !dot || dot == base;
}

/* Fingerprints the open file fd (stat st) as book id and hands the result
 * to the writer. */
static int index_fd(struct indexer *ixr, const char *path, int fd, uint64_t id,
		    const struct idx_stat *st)
{
	struct sbuf err;
	struct bookrec_fp *rf = NULL;
	struct book *b = NULL;
	char *data = NULL;
	uint64_t max;
	size_t len = 0;
	char head[SNIFF_BYTES];
	ssize_t n;
	enum extract_format fmt;
	int ret;

	sbuf_init(&err);
	n = pread(fd, head, sizeof(head), 0);
	if (n < 0) {
		sbuf_addf(&err, "%s: %s", path, strerror(errno));
		ret = put_failed(ixr, id, st, IDX_FAILED, err.buf);
		goto out;
	}
	/* Non-books (pictures, videos) are never read whole. */
	fmt = extract_sniff(head, (size_t)n, path);
	if (fmt == EXTRACT_FMT_UNKNOWN) {
		sbuf_addf(&err, "%s: not a book (%s)", path,
			  extract_notbook_kind(head, (size_t)n, path));
		ret = put_failed(ixr, id, st, IDX_NOT_BOOK, err.buf);
		goto out;
	}
	if (fmt == EXTRACT_FMT_TXT && !ixr->extensionless && no_extension(path)) {
		sbuf_addf(&err, "%s: not a book (%s)", path, SCAN_NOEXT_KIND);
		ret = put_failed(ixr, id, st, IDX_NOT_BOOK, err.buf);
		goto out;
	}
	max = extract_max_file_bytes(&ixr->lim, fmt);
	if (st->size > max) {
		sbuf_addf(&err, "%s: too large (%llu bytes, limit %llu)", path,
			  (unsigned long long)st->size, (unsigned long long)max);
		ret = put_failed(ixr, id, st, IDX_FAILED, err.buf);
		goto out;
	}
	ret = bookfile_read(fd, max, st->size, &data, &len);
	if (ret) {
		sbuf_addf(&err, "%s: %s", path, strerror(-ret));
		ret = put_failed(ixr, id, st, IDX_FAILED, err.buf);
		goto out;
	}
	ret = book_load_buffer(data, len, path, &ixr->lim, &b, &err);
	if (ret) {
		if (!err.len)
			sbuf_addf(&err, "%s: %s", path, strerror(-ret));
		ret = put_failed(ixr, id, st, ret == EXTRACT_NOTBOOK ? IDX_NOT_BOOK : IDX_FAILED,
				 err.buf);
		goto out;
	}
	bookfile_calibre(ixr->rootfd, path, b);
	/* record, bands and pruning keys, as every index user stores them */
	rf = malloc(sizeof(*rf));
	if (!rf) {
		ret = -ENOMEM;
		goto out;
	}
	ret = bookrec_fp_make(b, rf);
	if (ret) {
		bookrec_fp_release(rf);
		free(rf);
		goto out;
	}
	/* stored, then settled and linked, by the writer (indexer_put_after()) */
	ret = indexer_push_put(ixr, id, st, rf, IDX_INDEXED, NULL);
out:
	book_free(b);
	free(data);
	sbuf_release(&err);
	return ret;
}

/* What a stored book leaves to do (on the thread that stored it); the
 * nlater books later[] were stored with it and come next. */
static void indexer_put_after(struct indexer *ixr, const struct ixop *op, const uint64_t *later,
			      size_t nlater)
{
	atomic_fetch_add(&ixr->indexed, 1);
	indexer_settle(ixr, op->id, &op->st);
	/* its relations (the similar lists) and the links of clusters/,
	 * judged here so that readers never compare; gone meanwhile
	 * (-ENOENT) is fine, and a failure leaves the book unjudged: its
	 * list is computed at read time until it is indexed again */
	(void)judge_batch(ixr->ix, op->id, later, nlater);
}

/* Called once path's entry exists (id; had: the entry's id before this job
 * made sure of it, 0 if there was none): 1 when the file opened as sb has
 * left path and the rename or unlink that took it was applied before the
 * entry was made, which then stands for nothing and is removed.  An entry
 * that was already there is left alone: the change that took the file is
 * still to come and moves or removes it (with its id and exemptions). */
static int indexer_left(struct indexer *ixr, const char *path, const struct stat *sb,
			uint64_t id, uint64_t had)
{
	struct idx_file f = { 0 };
	struct stat now;
	int stale;

	if (id == had)
		return 0;
	indexer_flush(ixr, 0);
	if (fstatat(ixr->rootfd, path, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
	    now.st_ino == sb->st_ino && now.st_dev == sb->st_dev)
		return 0;
	stale = idx_get(ixr->ix, path, &f) == 0 && f.id == id;
	if (stale && idx_unlink(ixr->ix, path) > 0)
		indexer_notify(ixr);
	idx_file_release(&f);
	return stale;
}

/* path is gone: its entry goes too if it never had a fingerprint (nothing
 * to keep) and no pending rename or unlink still has to deal with it. */
static int indexer_drop_unborn(struct indexer *ixr, const char *path)
{
	struct idx_file f = { 0 };
	struct stat sb;
	int ret = 0;

	/* the books too: one waiting for the writer has a fingerprint */
	indexer_flush(ixr, 1);
	if (idx_get(ixr->ix, path, &f) == 0 && f.state == IDX_QUEUED && !f.has_fp &&
	    fstatat(ixr->rootfd, path, &sb, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT) {
		ret = idx_unlink(ixr->ix, path);
		if (ret > 0)
			indexer_notify(ixr);
		ret = ret < 0 && ret != -ENOENT ? ret : 0;
	}
	idx_file_release(&f);
	return ret;
}

/* Whether this process is to fingerprint book id (path): 1 it claimed it
 * (an index shared with other processes), 2 no claim is needed (LMDB) or
 * could be asked for (the server out of reach: doing it twice is better
 * than not at all).  0: another process is on it; path comes back to the
 * queue when its claim ends, stored by then or left by a dead claimer. */
static int indexer_claim(struct indexer *ixr, const char *path, uint64_t id)
{
	unsigned left = 0;
	int ret = idx_claim(ixr->ix, id, ixr->claim_ms, &left);

	if (ret != 0)
		return ret == 1 ? 1 : 2;
	return held_add(ixr->held, path, left + HELD_SLACK_MS) ? 2 : 0;
}

/* Whether entry f of a file with stat st needs no fingerprinting. */
static int up_to_date(const struct idx_file *f, const struct idx_stat *st)
{
	return f->state != IDX_QUEUED && idx_stat_same(&f->st, st) &&
	       (f->state != IDX_INDEXED || f->rec_version == BOOKREC_IDX_VERSION);
}

/* The held thread: a claim another process had ended. */
static void indexer_unheld(void *arg, const char *path)
{
	struct indexer *ixr = arg;

	queue_push(ixr->q, path, QUEUE_LOW);
}

/* A worker's job: the result goes to the writer (indexer_push_put()). */
static int index_file(struct indexer *ixr, const char *path)
{
	struct idx_file f = { 0 };
	struct idx_stat st;
	struct stat sb = { 0 };
	uint64_t id = 0, cid = 0;
	int fd, ret = 0, known, claimed = 0;

	if (fspath_fuse_hidden(path))
		return 0;	/* unlinked, only still open: not in the library */
	indexer_flush(ixr, 0);
	if (is_opf(path))
		indexer_retitle(ixr, path);
	if (!ixr->include_hidden && in_hidden_dir(path)) {
		/* written there, or moved there (calibre's .caltrash) */
		ret = idx_unlink(ixr->ix, path);
		if (ret > 0)
			indexer_notify(ixr);
		return ret < 0 && ret != -ENOENT && ret != -EINVAL ? ret : 0;
	}
	fd = openat(ixr->rootfd, path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 || fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		ret = fd < 0 ? -errno : 0;
		if (fd >= 0)
			close(fd);
		/* A folder now (a watch echo of a folder rename): its files
		 * are handled on their own. */
		if (!ret && S_ISDIR(sb.st_mode))
			return 0;
		if (ret == -EACCES || ret == -EPERM || ret == -EMFILE || ret == -ENFILE ||
		    ret == -ENOMEM)
			goto unreadable;
		/* Gone: the unlink or the rename that took it is reported on
		 * its own (by the mount, the watch or the scan), maybe a moment
		 * after this job started.  Removing the entry here would lose
		 * a book that was only renamed (its id, its exemptions), unless
		 * it was never fingerprinted (a scan that listed the file just
		 * before it went). */
		if (ret == -ENOENT || ret == -ENOTDIR)
			return indexer_drop_unborn(ixr, path);
		/* Not a regular file any more: not a book. */
		ret = idx_unlink(ixr->ix, path);
		if (ret > 0)
			indexer_notify(ixr);
		return ret < 0 && ret != -ENOENT && ret != -EINVAL ? ret : 0;
	}
	stat_to_idx(&sb, &st);
	known = idx_get(ixr->ix, path, &f) == 0;
	if (known && up_to_date(&f, &st))
		goto out;	/* e.g. a rename's target */
	/* A known book is claimed before it is marked queued, and read again
	 * once claimed: another process sharing the index may have stored it
	 * since the look above (marking it would have it read twice). */
	if (known) {
		cid = f.id;
		claimed = indexer_claim(ixr, path, cid);
		if (!claimed)
			goto out;
		if (claimed == 1) {
			idx_file_release(&f);
			known = idx_get(ixr->ix, path, &f) == 0;
			if (known && up_to_date(&f, &st))
				goto out;
		}
	}
	ret = idx_mark_queued(ixr->ix, &path, &st, 1, &id);
	if (!ret && indexer_left(ixr, path, &sb, id, known ? f.id : 0))
		goto out;
	if (!ret && (!claimed || id != cid) && !indexer_claim(ixr, path, id))
		goto out;
	/* the writer notifies when the result is in the index (and gives
	 * the claim up) */
	if (!ret) {
		ret = index_fd(ixr, path, fd, id, &st);
		claimed = 0;
	}
out:
	if (claimed == 1)
		idx_unclaim(ixr->ix, cid);
	idx_file_release(&f);
	close(fd);
	return ret;

unreadable:
	/* Keep a record of files we may not read, so errors lists them. */
	if (fstatat(ixr->rootfd, path, &sb, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(sb.st_mode))
		return 0;
	stat_to_idx(&sb, &st);
	ret = idx_mark_queued(ixr->ix, &path, &st, 1, &id);
	if (!ret) {
		struct sbuf err;

		sbuf_init(&err);
		sbuf_addf(&err, "%s: cannot open: %s", path, strerror(EACCES));
		ret = put_failed(ixr, id, &st, IDX_FAILED, err.buf);
		sbuf_release(&err);
	}
	return ret;
}

int indexer_index_file(struct indexer *ixr, const char *path)
{
	int ret = index_file(ixr, path);

	indexer_flush(ixr, 1);
	return ret;
}

static int indexer_work(void *arg, const char *path)
{
	struct indexer *ixr = arg;
	int ret = index_file(ixr, path);

	/* the server went away under the job: done again when it is back */
	if (ret < 0 && indexer_journaled(ixr, IJR_WRITE, path, NULL))
		ret = 0;
	return ret;
}

/* 1 when the index holds files under the folder path. */
static int indexer_has_under(struct indexer *ixr, const char *path)
{
	struct idx_entry *ents = NULL;
	size_t n = 0;

	if (idx_list(ixr->ix, path, 0, &ents, &n))
		return 0;
	idx_entries_free(ents, n);
	return n > 0;
}

/* A rename seen by the watch is applied only when the disk agrees with a
 * plain rename of the file the index knows at from (an exchange, or a
 * rename the hook already applied, leaves both names to the worker). */
static void indexer_watch_renamed(struct indexer *ixr, const char *from, const char *to)
{
	struct idx_file f = { 0 };
	struct stat st;

	if (fstatat(ixr->rootfd, to, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	indexer_flush(ixr, 0);
	if (S_ISDIR(st.st_mode)) {
		/* A folder: its files move with it, ids kept. */
		if (faccessat(ixr->rootfd, from, F_OK, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT &&
		    indexer_has_under(ixr, from))
			indexer_renamed(ixr, from, to, 0);
		else if (!indexer_has_under(ixr, to))
			scan_request(ixr->scan);
		return;
	}
	if (idx_get(ixr->ix, from, &f) == 0 &&
	    f.st.ino == (uint64_t)st.st_ino && f.st.dev == (uint64_t)st.st_dev &&
	    faccessat(ixr->rootfd, from, F_OK, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT) {
		indexer_renamed(ixr, from, to, 0);
	} else {
		queue_push(ixr->q, from, QUEUE_HIGH);
		queue_push(ixr->q, to, QUEUE_HIGH);
	}
	idx_file_release(&f);
}

/* inotify events: changes made to SRC behind the mount's back (and echoes
 * of our own, which cost a stat: the index operations are idempotent). */
static void indexer_watched(void *arg, enum watch_what what, const char *path, const char *path2)
{
	struct indexer *ixr = arg;

	switch (what) {
	case WATCH_FILE:
		queue_push(ixr->q, path, QUEUE_HIGH);
		break;
	case WATCH_GONE:
		indexer_unlinked(ixr, path);
		break;
	case WATCH_RENAMED:
		indexer_watch_renamed(ixr, path, path2);
		break;
	case WATCH_RESCAN:
		scan_request(ixr->scan);
		break;
	}
}

/* The watch (its setup walks SRC, so it is made here, off the mount's
 * path), then periodic rescans. */
static void *indexer_timer(void *arg)
{
	struct indexer *ixr = arg;
	struct watch_opts wo = { 0 };
	struct watch *w = NULL;
	struct timespec ts;

	if (ixr->use_watch) {
		wo.src_fd = ixr->rootfd;
		wo.skip_dir = ixr->skip_dir;
		wo.fn = indexer_watched;
		wo.arg = ixr;
		if (watch_new(&w, &wo))
			w = NULL;
	}
	pthread_mutex_lock(&ixr->lock);
	ixr->watch = w;
	while (!ixr->stopping) {
		if (!ixr->rescan_secs) {
			pthread_cond_wait(&ixr->cond, &ixr->lock);
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += ixr->rescan_secs;
		while (!ixr->stopping &&
		       pthread_cond_timedwait(&ixr->cond, &ixr->lock, &ts) != ETIMEDOUT)
			;
		if (ixr->stopping)
			break;
		pthread_mutex_unlock(&ixr->lock);
		/* -EBUSY: the last one still runs; the next tick retries. */
		scan_start(ixr->scan);
		pthread_mutex_lock(&ixr->lock);
	}
	pthread_mutex_unlock(&ixr->lock);
	return NULL;
}

int indexer_new(struct indexer **out, int rootfd, const struct indexer_opts *opts)
{
	struct indexer *ixr = calloc(1, sizeof(*ixr));
	struct queue_opts qo = { 0 };
	struct scan_opts so = { 0 };
	struct idx_opts xo = { 0 };
	pthread_condattr_t ca;
	int ret;

	*out = NULL;
	if (!ixr)
		return -ENOMEM;
	ixr->rootfd = rootfd;
	ixr->rescan_secs = opts->rescan_secs;
	ixr->use_watch = !opts->no_watch;
	ixr->include_hidden = opts->include_hidden;
	ixr->extensionless = opts->extensionless;
	if (opts->skip_dir && !(ixr->skip_dir = strdup(opts->skip_dir))) {
		free(ixr);
		return -ENOMEM;
	}
	ixr->notify = opts->notify;
	ixr->notify_arg = opts->notify_arg;
	ixr->jr = opts->journal;
	ixr->claim_ms = opts->claim_secs ? opts->claim_secs * 1000 : CLAIM_MS_DEFAULT;
	extract_limits_default(&ixr->lim);
	pthread_mutex_init(&ixr->lock, NULL);
	pthread_mutex_init(&ixr->ops_lock, NULL);
	pthread_cond_init(&ixr->puts_cond, NULL);
	pthread_mutex_init(&ixr->flush_lock, NULL);
	ixr->ops_tail = &ixr->ops_head;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&ixr->cond, &ca);
	pthread_cond_init(&ixr->ops_cond, &ca);
	pthread_condattr_destroy(&ca);
	xo.progress = opts->open_progress;
	xo.progress_arg = opts->open_progress_arg;
	ret = idx_open(&ixr->ix, opts->index_dir, &xo);
	if (ret)
		goto fail;
	/* a shared index: other mounts' changes reach the views too, and
	 * the journal is replayed when its server is back */
	if (ixr->notify || ixr->jr) {
		ret = idx_watch(ixr->ix, indexer_heard, ixr);
		if (ret && ret != -EOPNOTSUPP)
			goto fail;
	}
	qo.threads = opts->threads;
	qo.nice = 5;
	qo.fn = indexer_work;
	qo.arg = ixr;
	ret = queue_new(&ixr->q, &qo);
	if (ret)
		goto fail;
	ret = held_new(&ixr->held, indexer_unheld, ixr);
	if (ret)
		goto fail;
	so.src_fd = rootfd;
	so.ix = ixr->ix;
	so.q = ixr->q;
	so.skip_dir = opts->skip_dir;
	so.include_hidden = opts->include_hidden;
	so.extensionless = opts->extensionless;
	so.rec_version = BOOKREC_IDX_VERSION;
	ret = scan_new(&ixr->scan, &so);
	if (ret)
		goto fail;
	ret = -pthread_create(&ixr->writer, NULL, indexer_writer, ixr);
	if (ret)
		goto fail;
	ixr->has_writer = 1;
	*out = ixr;
	return 0;
fail:
	indexer_free(ixr);
	return ret;
}

int indexer_start(struct indexer *ixr)
{
	int ret;

	/* what the journal kept while the server was out of reach (this
	 * mount's, or a former daemon's) before the scan */
	pthread_mutex_lock(&ixr->lock);
	ixr->started = 1;
	pthread_mutex_unlock(&ixr->lock);
	indexer_replay(ixr);
	/* -EBUSY: a scan already runs (a rescan the journal owed, or one a
	 * folder renamed since the publication asked for), started after the
	 * indexer was whole: it finds what this one would */
	ret = scan_start(ixr->scan);
	if (ret && ret != -EBUSY)
		return ret;
	ret = 0;
	/* owed after an upgrade (idx_catchup_get()); otherwise every book
	 * was judged after its store, and the book table is not walked */
	pthread_mutex_lock(&ixr->ops_lock);
	ixr->judge_more = idx_catchup_get(ixr->ix, &ixr->judge_from) == 1;
	pthread_cond_signal(&ixr->ops_cond);
	pthread_mutex_unlock(&ixr->ops_lock);
	if (ixr->rescan_secs || ixr->use_watch) {
		ret = -pthread_create(&ixr->timer, NULL, indexer_timer, ixr);
		ixr->has_timer = !ret;
	}
	return ret;
}

void indexer_free(struct indexer *ixr)
{
	if (!ixr)
		return;
	pthread_mutex_lock(&ixr->lock);
	ixr->stopping = 1;
	pthread_cond_broadcast(&ixr->cond);
	pthread_mutex_unlock(&ixr->lock);
	if (ixr->has_timer)
		pthread_join(ixr->timer, NULL);
	/* Before the queue and the index: its callbacks use them. */
	watch_free(ixr->watch);
	if (ixr->scan)
		scan_cancel(ixr->scan);
	scan_free(ixr->scan);
	held_free(ixr->held);
	if (ixr->q)
		queue_stop(ixr->q, QUEUE_CANCEL);
	if (ixr->has_writer) {
		pthread_mutex_lock(&ixr->ops_lock);
		ixr->ops_stop = 1;
		pthread_cond_signal(&ixr->ops_cond);
		pthread_cond_broadcast(&ixr->puts_cond);
		pthread_mutex_unlock(&ixr->ops_lock);
		pthread_join(ixr->writer, NULL);
	}
	/* The last path changes and books reach the index (their follow-up
	 * pushes fail quietly: the queue is stopped, the next scan does that
	 * work). */
	if (ixr->ix)
		indexer_flush(ixr, 1);
	queue_free(ixr->q);
	idx_close(ixr->ix);
	pthread_cond_destroy(&ixr->cond);
	pthread_mutex_destroy(&ixr->lock);
	pthread_cond_destroy(&ixr->ops_cond);
	pthread_cond_destroy(&ixr->puts_cond);
	pthread_mutex_destroy(&ixr->ops_lock);
	pthread_mutex_destroy(&ixr->flush_lock);
	free(ixr->skip_dir);
	free(ixr);
}

struct idx *indexer_idx(struct indexer *ixr)
{
	return ixr->ix;
}

void indexer_written(struct indexer *ixr, const char *path)
{
	if (indexer_journaled(ixr, IJR_WRITE, path, NULL))
		return;
	/* A failed push (shutting down, no memory) is found by the next scan. */
	queue_push(ixr->q, path, QUEUE_HIGH);
}

/* Appends a path change for the writer thread.  Only a short lock: the
 * caller may be a filesystem thread.  A change lost for want of memory is
 * found by the next scan. */
static void indexer_push_op(struct indexer *ixr, enum ixop_kind kind, const char *from,
			    const char *to, unsigned flags)
{
	size_t lf = strlen(from) + 1, lt = to ? strlen(to) + 1 : 0;
	struct ixop *op = calloc(1, sizeof(*op) + lf + lt);

	if (!op)
		return;
	op->kind = kind;
	op->flags = flags;
	memcpy(op->from, from, lf);
	op->to = NULL;
	if (to) {
		op->to = op->from + lf;
		memcpy(op->to, to, lt);
	}
	pthread_mutex_lock(&ixr->ops_lock);
	ops_link(ixr, op);
	if (ixr->paths_pending == 1)
		pthread_cond_signal(&ixr->ops_cond);
	pthread_mutex_unlock(&ixr->ops_lock);
}

/* The new stat of a renamed or linked file, so the scan and the worker see
 * no change.  Only when the content is the one the index knows (same inode,
 * size and mtime: a rename or a link changes the ctime alone); a file
 * written and then renamed before its worker ran keeps the old stat, so the
 * worker fingerprints the new content. */
static void indexer_restat(struct indexer *ixr, const char *path)
{
	struct idx_file f = { 0 };
	struct idx_stat st;
	struct stat sb;

	if (fstatat(ixr->rootfd, path, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(sb.st_mode) &&
	    idx_get(ixr->ix, path, &f) == 0) {
		stat_to_idx(&sb, &st);
		if (st.ino == f.st.ino && st.dev == f.st.dev && st.size == f.st.size &&
		    st.mtime_ns == f.st.mtime_ns && st.ctime_ns != f.st.ctime_ns)
			idx_set_stat(ixr->ix, path, &st);
	}
	idx_file_release(&f);
}

/* After a rename: a file the old name's extension made "not a book" (or
 * that failed) is judged again under its new name. */
static void indexer_rejudge(struct indexer *ixr, const char *path)
{
	struct idx_file f = { 0 };

	if (idx_get(ixr->ix, path, &f) == 0 && f.state != IDX_INDEXED && f.state != IDX_QUEUED)
		idx_mark_queued(ixr->ix, &path, &f.st, 1, NULL);
	idx_file_release(&f);
}

/* What a rename leaves to do once the index has it. */
static void indexer_renamed_after(struct indexer *ixr, const struct ixop *op)
{
	indexer_restat(ixr, op->to);
	indexer_rejudge(ixr, op->to);
	/* A file written under a temporary name and renamed into place (rsync,
	 * editors) may not be indexed yet: the worker checks, cheaply. */
	queue_push(ixr->q, op->to, QUEUE_HIGH);
	if (op->flags & IDX_RENAME_EXCHANGE) {
		indexer_restat(ixr, op->from);
		indexer_rejudge(ixr, op->from);
		queue_push(ixr->q, op->from, QUEUE_HIGH);
	}
}

/* Applies the batch (n ops, in order) in one transaction when possible,
 * then what each leaves to do.  1 when the index changed. */
static int indexer_apply(struct indexer *ixr, struct ixop **batch, size_t n)
{
	struct idx_op *ops = calloc(n, sizeof(*ops));
	uint64_t *stored = calloc(n, sizeof(*stored));
	size_t i, m = 0, ns = 0, k = 0;
	int changed = 0, ret = 0;

	if (!ops || !stored)
		ret = -ENOMEM;
	for (i = 0; !ret && i < n; i++) {
		struct ixop *op = batch[i];

		switch (op->kind) {
		case IXOP_RESTAT:
			continue;
		case IXOP_PUT:
			ops[m].kind = op->rf ? IDX_OP_PUT : IDX_OP_PUT_FAILED;
			ops[m].id = op->id;
			ops[m].st = &op->st;
			ops[m].fp = op->rf ? &op->rf->fp : NULL;
			ops[m].state = op->state;
			ops[m].error = op->from;
			break;
		default:
			ops[m].kind = op->kind == IXOP_UNLINK ? IDX_OP_UNLINK : IDX_OP_RENAME;
			ops[m].path = op->from;
			ops[m].to = op->to;
			ops[m].flags = op->flags;
			break;
		}
		m++;
	}
	if (!ret && m)
		ret = idx_apply(ixr->ix, ops, m);
	/* the books stored together, in order (see indexer_put_after()) */
	for (i = 0; !ret && i < m; i++)
		if (ops[i].kind == IDX_OP_PUT && ops[i].result == 0)
			stored[ns++] = ops[i].id;
	for (i = 0, m = 0; i < n; i++) {
		struct ixop *op = batch[i];
		int r;

		if (op->kind == IXOP_RESTAT) {
			indexer_restat(ixr, op->from);
			continue;
		}
		/* The batch failed as a whole (no memory, a full disk): one
		 * by one, so one bad change does not hold back the others. */
		if (!ret)
			r = ops[m++].result;
		else if (op->kind == IXOP_PUT && op->rf)
			r = idx_put(ixr->ix, op->id, &op->st, &op->rf->fp);
		else if (op->kind == IXOP_PUT)
			r = idx_put_failed(ixr->ix, op->id, &op->st, op->state, op->from);
		else if (op->kind == IXOP_UNLINK)
			r = idx_unlink(ixr->ix, op->from);
		else
			r = idx_rename(ixr->ix, op->from, op->to, op->flags);
		/* the server went away: a path change is journaled as it was;
		 * a book's result has lost its path, so a rescan is owed */
		if (r < 0 && ixr->jr && idx_health(ixr->ix, NULL, 0, NULL)) {
			if (op->kind == IXOP_PUT)
				(void)ijr_add(ixr->jr, IJR_RESCAN, NULL, NULL);
			else if (op->kind == IXOP_UNLINK)
				(void)ijr_add(ixr->jr, IJR_UNLINK, op->from, NULL);
			else
				(void)ijr_add(ixr->jr, op->flags & IDX_RENAME_EXCHANGE ?
						       IJR_EXCHANGE : IJR_RENAME, op->from, op->to);
			continue;
		}
		if (op->kind == IXOP_PUT) {
			idx_unclaim(ixr->ix, op->id);
			/* -ENOENT: the file went meanwhile, the work is dropped */
			if (r == 0 && op->rf && ns) {
				k++;	/* stored[k - 1] is op->id */
				indexer_put_after(ixr, op, stored + k, ns - k);
			} else if (r == 0 && op->rf) {
				indexer_put_after(ixr, op, NULL, 0);
			}
			changed |= r == 0;
		} else if (op->kind == IXOP_RENAME) {
			indexer_renamed_after(ixr, op);
			changed |= r != 0;
		} else {
			changed |= r > 0;
		}
		/* a metadata.opf removed or renamed away: its books lose its
		 * title (the worker re-titles; one renamed in is queued above) */
		if (op->kind != IXOP_PUT && is_opf(op->from))
			queue_push(ixr->q, op->from, QUEUE_HIGH);
	}
	free(ops);
	free(stored);
	return changed;
}

/* Applies every change appended so far, in order; returns when the index
 * has them.  With all = 0 only when a path change is among them (a worker
 * about to look a path up needs those; books waiting for the writer can
 * wait on).  Cheap when there is nothing to do. */
static void indexer_flush(struct indexer *ixr, int all)
{
	struct ixop *batch[OPS_BATCH];
	size_t n, puts;
	int changed = 0;

	/* A path change another thread has taken is not in the index yet:
	 * wait for it on flush_lock, which that thread holds until applied. */
	pthread_mutex_lock(&ixr->ops_lock);
	n = (size_t)(all ? ixr->ops_pending : ixr->paths_pending + ixr->paths_applying);
	pthread_mutex_unlock(&ixr->ops_lock);
	if (!n)
		return;
	pthread_mutex_lock(&ixr->flush_lock);
	for (;;) {
		pthread_mutex_lock(&ixr->ops_lock);
		for (n = 0, puts = 0; n < OPS_BATCH && ixr->ops_head; n++) {
			batch[n] = ixr->ops_head;
			ixr->ops_head = batch[n]->next;
			puts += batch[n]->kind == IXOP_PUT;
		}
		if (!ixr->ops_head)
			ixr->ops_tail = &ixr->ops_head;
		/* taken: room for the workers' next books */
		ixr->puts_pending -= puts;
		ixr->paths_pending -= n - puts;
		ixr->paths_applying += n - puts;
		ixr->put_now = ixr->put_now && ixr->puts_pending;
		pthread_cond_broadcast(&ixr->puts_cond);
		pthread_mutex_unlock(&ixr->ops_lock);
		if (!n)
			break;
		changed |= indexer_apply(ixr, batch, n);
		/* only now: status and indexer_wait_idle() count them until
		 * their follow-ups are done */
		pthread_mutex_lock(&ixr->ops_lock);
		ixr->ops_pending -= n;
		ixr->paths_applying -= n - puts;
		pthread_mutex_unlock(&ixr->ops_lock);
		while (n)
			ixop_free(batch[--n]);
	}
	pthread_mutex_unlock(&ixr->flush_lock);
	if (changed)
		indexer_notify(ixr);
}

/* Judges up to CATCHUP_BATCH books that have a fingerprint and no
 * judgement, from judge_from on, and records how far it got.  Returns 0
 * when none is left (recorded: the catch-up is over) or the index fails
 * (the next start tries again), which ends the catch-up.  Their lists are
 * computed at read time meanwhile, so this only makes them cheaper. */
static int indexer_catch_up(struct indexer *ixr)
{
	uint64_t ids[CATCHUP_BATCH];
	size_t n = 0, i;
	int busy;

	if (idx_unjudged(ixr->ix, ixr->judge_from, ids, CATCHUP_BATCH, &n))
		return 0;
	if (!n) {
		(void)idx_catchup_set(ixr->ix, 0, 1);
		return 0;
	}
	/* the later books of the batch judge their pairs with it; new work
	 * first (those later books are then still unjudged: the next round
	 * starts with them), and a stop */
	for (i = 0; i < n; i++) {
		(void)judge_batch(ixr->ix, ids[i], ids + i + 1, n - i - 1);
		ixr->judge_from = ids[i] + 1;
		pthread_mutex_lock(&ixr->ops_lock);
		busy = ixr->ops_pending || ixr->ops_stop;
		pthread_mutex_unlock(&ixr->ops_lock);
		if (busy)
			break;
	}
	/* a stop resumes here at the next start */
	(void)idx_catchup_set(ixr->ix, ixr->judge_from, 0);
	return 1;
}

/* The index writer: applies the list in batches.  After the first path
 * change of a burst it lets the burst gather for OPS_GATHER_NS (an `rm -r`
 * reports one unlink every few tens of microseconds), so a burst costs a
 * few commits instead of one per file, on a thread that competes with the
 * filesystem's for the same cores.  Finished books gather up to PUT_BATCH
 * per transaction while the workers have more to do: one commit then
 * writes the pages the books' postings share once, instead of once per
 * book; a book written alone goes in at once.  With nothing to store it
 * judges the books left unjudged (indexer_catch_up()). */
static void *indexer_writer(void *arg)
{
	struct indexer *ixr = arg;
	/* as nice as the workers whose results it stores (per thread on
	 * Linux; best effort) */
	id_t tid = (id_t)syscall(SYS_gettid);
	struct timespec ts;
	uint64_t due;

	(void)setpriority(PRIO_PROCESS, tid, getpriority(PRIO_PROCESS, tid) + WRITER_NICE);
	pthread_mutex_lock(&ixr->ops_lock);
	while (!ixr->ops_stop) {
		if (!ixr->ops_pending && ixr->judge_more) {
			int more;

			pthread_mutex_unlock(&ixr->ops_lock);
			more = indexer_catch_up(ixr);
			pthread_mutex_lock(&ixr->ops_lock);
			ixr->judge_more = more;
			continue;
		}
		if (!ixr->ops_pending) {
			pthread_cond_wait(&ixr->ops_cond, &ixr->ops_lock);
			continue;
		}
		if (ixr->paths_pending) {
			pthread_mutex_unlock(&ixr->ops_lock);
			nanosleep(&(struct timespec){ 0, OPS_GATHER_NS }, NULL);
		} else {
			due = ixr->put_since_ns + PUT_GATHER_NS;
			if (ixr->puts_pending && ixr->puts_pending < PUT_BATCH && !ixr->put_now &&
			    (uint64_t)monoclock_ns() < due) {
				ts.tv_sec = (time_t)(due / 1000000000u);
				ts.tv_nsec = (long)(due % 1000000000u);
				pthread_cond_timedwait(&ixr->ops_cond, &ixr->ops_lock, &ts);
				continue;
			}
			if (!ixr->puts_pending) {
				/* taken by a flush elsewhere, follow-ups running */
				pthread_cond_wait(&ixr->ops_cond, &ixr->ops_lock);
				continue;
			}
			pthread_mutex_unlock(&ixr->ops_lock);
		}
		indexer_flush(ixr, 1);
		pthread_mutex_lock(&ixr->ops_lock);
	}
	pthread_mutex_unlock(&ixr->ops_lock);
	return NULL;
}

static void indexer_unlink_now(struct indexer *ixr, const char *path)
{
	indexer_push_op(ixr, IXOP_UNLINK, path, NULL, 0);
}

void indexer_unlinked(struct indexer *ixr, const char *path)
{
	if (!indexer_journaled(ixr, IJR_UNLINK, path, NULL))
		indexer_unlink_now(ixr, path);
}

void indexer_renamed(struct indexer *ixr, const char *from, const char *to, int exchange)
{
	if (!indexer_journaled(ixr, exchange ? IJR_EXCHANGE : IJR_RENAME, from, to))
		indexer_rename_now(ixr, from, to, exchange);
}

static void indexer_rename_now(struct indexer *ixr, const char *from, const char *to, int exchange)
{
	/* Nothing moves to or from a .fuse_hidden name (the mount's unlink of
	 * an open file, seen by the watch): the library names lose their
	 * entries, and those still there are fingerprinted again. */
	if (fspath_fuse_hidden(from) || fspath_fuse_hidden(to)) {
		if (!fspath_fuse_hidden(from)) {
			indexer_unlink_now(ixr, from);
			if (exchange)
				queue_push(ixr->q, from, QUEUE_HIGH);
		}
		if (!fspath_fuse_hidden(to)) {
			indexer_unlink_now(ixr, to);
			queue_push(ixr->q, to, QUEUE_HIGH);
		}
		return;
	}
	/* The watch reports our own renames too, before or after the hook:
	 * whichever comes second finds from gone from the index and must not
	 * replace to (IDX_RENAME_KNOWN; a file renamed over another that was
	 * never indexed only needs to be fingerprinted, which the rename's
	 * follow-up queues). */
	indexer_push_op(ixr, IXOP_RENAME, from, to,
			exchange ? IDX_RENAME_EXCHANGE : IDX_RENAME_KNOWN);
}

void indexer_linked(struct indexer *ixr, const char *from, const char *to)
{
	if (!indexer_journaled(ixr, IJR_LINK, from, to))
		indexer_link_now(ixr, from, to);
}

static void indexer_link_now(struct indexer *ixr, const char *from, const char *to)
{
	queue_push(ixr->q, to, QUEUE_HIGH);
	/* The old name's ctime changed with its link count. */
	indexer_push_op(ixr, IXOP_RESTAT, from, NULL, 0);
}

void indexer_status(struct indexer *ixr, struct indexer_status *st)
{
	struct queue_stats qs;
	struct scan_progress sp;
	struct idx_counts c;

	memset(st, 0, sizeof(*st));
	queue_stats(ixr->q, &qs);
	scan_progress(ixr->scan, &sp);
	if (idx_counts(ixr->ix, &c) == 0) {
		st->files = c.files;
		st->books = c.books;
		st->failed = c.state[IDX_FAILED];
		st->not_books = c.state[IDX_NOT_BOOK];
	}
	pthread_mutex_lock(&ixr->ops_lock);
	st->queued = (uint64_t)qs.pending + qs.running + ixr->ops_pending;
	st->judging = ixr->judge_more;
	pthread_mutex_unlock(&ixr->ops_lock);
	st->indexed = atomic_load(&ixr->indexed);
	st->generation = idx_generation(ixr->ix);
	pthread_mutex_lock(&ixr->lock);
	if (ixr->watch) {
		struct watch_stats ws;

		watch_stats(ixr->watch, &ws);
		st->watching = 1;
		st->watch_incomplete = ws.incomplete;
	}
	pthread_mutex_unlock(&ixr->lock);
	st->scan_running = sp.running;
	st->scanning = sp.running || st->queued;
	st->scan_runs = sp.runs;
	st->scan_files = sp.files;
	st->scan_queued = sp.queued;
	st->scan_removed = sp.removed;
	st->scan_renamed = sp.renamed;
	if (sp.started_ns)
		st->scan_seconds = (double)((sp.finished_ns > sp.started_ns && !sp.running ?
					     sp.finished_ns : 0) - sp.started_ns) / 1e9;
}

static uint64_t indexer_ops_pending(struct indexer *ixr)
{
	uint64_t n;

	pthread_mutex_lock(&ixr->ops_lock);
	n = ixr->ops_pending;
	pthread_mutex_unlock(&ixr->ops_lock);
	return n;
}

int indexer_wait_idle(struct indexer *ixr, int timeout_ms)
{
	struct timespec t0, t1;
	struct scan_progress sp;
	int left = timeout_ms;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		scan_progress(ixr->scan, &sp);
		/* the path changes first: their follow-ups queue work */
		if (!sp.running && indexer_ops_pending(ixr) == 0 &&
		    queue_wait_idle(ixr->q, 0) == 0) {
			scan_progress(ixr->scan, &sp);
			if (!sp.running && indexer_ops_pending(ixr) == 0)
				return 0;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (timeout_ms >= 0) {
			left = timeout_ms - (int)((t1.tv_sec - t0.tv_sec) * 1000 +
						  (t1.tv_nsec - t0.tv_nsec) / 1000000);
			if (left <= 0)
				return -ETIMEDOUT;
		}
		nanosleep(&(struct timespec){ 0, 20000000 }, NULL);
	}
}
