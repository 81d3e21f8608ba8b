/* scan.c - incremental scan of SRC against the index (see scan.h). */
#include "scan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fspath.h"
#include "grow.h"
#include "monoclock.h"

#define BATCH 256	/* files marked queued per index transaction */

struct scan {
	int src_fd;
	struct idx *ix;
	struct queue *q;
	char *skip_dir;
	int include_hidden, extensionless;
	uint32_t rec_version;
	pthread_mutex_t lock;		/* guards prog, thread state */
	struct scan_progress prog;
	atomic_int cancel;
	int busy;			/* a scan is running (either way) */
	int again;			/* requested while running: run once more */
	int has_thread;
	int thread_ret;			/* result of the last run */
	pthread_t thread;
};

/* One regular file found on disk. */
struct dfile {
	char *name;
	struct idx_stat st;
};

/* A file found new in this run (for rename matching) or one that vanished. */
struct moved {
	char *path;
	struct idx_stat st;
	struct moved *hnext;
};

struct mlist {
	struct moved *v;
	size_t n, cap;
};

struct dirid {
	dev_t dev;
	ino_t ino;
	int used;
};

/* State of one run. */
struct run {
	struct scan *s;
	dev_t skip_dev;
	ino_t skip_ino;
	int have_skip;
	char **stack;			/* directories still to read (relative) */
	size_t nstack, capstack;
	struct dirid *seen;		/* directories read: open-addressing set */
	size_t nseen, capseen;
	struct mlist fresh, gone;
	const char **bpaths;		/* pending batch for idx_mark_queued */
	struct idx_stat *bsts;
	size_t nbatch;
};

static void prog_add(struct scan *s, uint64_t *field, uint64_t n)
{
	pthread_mutex_lock(&s->lock);
	*field += n;
	pthread_mutex_unlock(&s->lock);
}

static void prog_error(struct scan *s, int err)
{
	pthread_mutex_lock(&s->lock);
	s->prog.errors++;
	s->prog.last_error = err;
	pthread_mutex_unlock(&s->lock);
}

static struct idx_stat to_idx_stat(const struct stat *st)
{
	struct idx_stat r;

	r.size = (uint64_t)st->st_size;
	r.mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
	r.ctime_ns = (int64_t)st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec;
	r.ino = (uint64_t)st->st_ino;
	r.dev = (uint64_t)st->st_dev;
	return r;
}

static int mlist_push(struct mlist *l, char *path, const struct idx_stat *st)
{
	if (ARRAY_GROW(l->v, l->cap, l->n + 1))
		return -ENOMEM;
	l->v[l->n].path = path;
	l->v[l->n].st = *st;
	l->v[l->n].hnext = NULL;
	l->n++;
	return 0;
}

static void mlist_release(struct mlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i].path);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static int stack_push(struct run *r, char *path)
{
	if (ARRAY_GROW(r->stack, r->capstack, r->nstack + 1))
		return -ENOMEM;
	r->stack[r->nstack++] = path;
	return 0;
}

/* Records (dev, ino) of a directory; 1 when it was already seen (a bind
 * mount loop), 0 when new, -ENOMEM. */
static int seen_add(struct run *r, dev_t dev, ino_t ino)
{
	size_t i, mask;

	if (r->nseen * 2 >= r->capseen) {
		struct dirid *old = r->seen;
		size_t oldcap = r->capseen, nc = oldcap ? oldcap * 2 : 1024, k;

		r->seen = calloc(nc, sizeof(*r->seen));
		if (!r->seen) {
			r->seen = old;
			return -ENOMEM;
		}
		r->capseen = nc;
		r->nseen = 0;
		for (k = 0; k < oldcap; k++)
			if (old[k].used)
				seen_add(r, old[k].dev, old[k].ino);
		free(old);
	}
	mask = r->capseen - 1;
	for (i = (size_t)(((uint64_t)ino * 0x9e3779b97f4a7c15ull) ^ (uint64_t)dev) & mask;;
	     i = (i + 1) & mask) {
		if (!r->seen[i].used) {
			r->seen[i].used = 1;
			r->seen[i].dev = dev;
			r->seen[i].ino = ino;
			r->nseen++;
			return 0;
		}
		if (r->seen[i].dev == dev && r->seen[i].ino == ino)
			return 1;
	}
}

static int flush_batch(struct run *r)
{
	struct scan *s = r->s;
	size_t i;
	int ret;

	if (!r->nbatch)
		return 0;
	/* another process sharing the index may have stored some of them
	 * since they were listed */
	ret = idx_mark_stale(s->ix, r->bpaths, r->bsts, r->nbatch, s->rec_version);
	if (ret == -EINVAL || ret == -ENAMETOOLONG) {
		/* one bad name in the batch: retry one by one */
		for (i = 0; i < r->nbatch; i++) {
			ret = idx_mark_stale(s->ix, &r->bpaths[i], &r->bsts[i], 1, s->rec_version);
			if (ret == -EINVAL || ret == -ENAMETOOLONG) {
				prog_error(s, ret);
				r->bpaths[i] = NULL;
			} else if (ret) {
				goto out;
			}
		}
		ret = 0;
	}
	if (ret)
		goto out;
	for (i = 0; i < r->nbatch; i++) {
		if (!r->bpaths[i])
			continue;
		if (s->q) {
			int rc = queue_push(s->q, r->bpaths[i], QUEUE_LOW);

			if (rc && rc != -ESHUTDOWN)
				prog_error(s, rc);
		}
	}
	prog_add(s, &s->prog.queued, r->nbatch);
out:
	r->nbatch = 0;
	return ret;
}

/* Queues a new or changed file; path is handed over to r->fresh. */
static int queue_file(struct run *r, char *path, const struct idx_stat *st)
{
	int ret = mlist_push(&r->fresh, path, st);

	if (ret) {
		free(path);
		return ret;
	}
	r->bpaths[r->nbatch] = path;
	r->bsts[r->nbatch] = *st;
	r->nbatch++;
	return r->nbatch == BATCH ? flush_batch(r) : 0;
}

/* Queues a file the index already has queued as it is now (path: freed).
 * Not marked again: with an index other mounts share, the entry read a
 * moment ago may have been stored since by the mount that queued it, and
 * marking it would have it fingerprinted again. */
static int queue_only(struct run *r, char *path)
{
	int rc = r->s->q ? queue_push(r->s->q, path, QUEUE_LOW) : 0;

	free(path);
	if (rc && rc != -ESHUTDOWN)
		prog_error(r->s, rc);
	prog_add(r->s, &r->s->prog.queued, 1);
	return 0;
}

/* Records everything the index has at or under path as vanished. */
static int gone_tree(struct run *r, const char *path, int is_dir, const struct idx_file *f)
{
	struct idx_entry *ents = NULL;
	size_t n = 0, i;
	char *p;
	int ret;

	if (!is_dir) {
		p = strdup(path);
		if (!p)
			return -ENOMEM;
		ret = mlist_push(&r->gone, p, &f->st);
		if (ret)
			free(p);
		return ret;
	}
	ret = idx_list(r->s->ix, path, IDX_LIST_RECURSIVE, &ents, &n);
	for (i = 0; ret == 0 && i < n; i++) {
		ret = mlist_push(&r->gone, ents[i].name, &ents[i].file.st);
		if (ret == 0)
			ents[i].name = NULL;
	}
	idx_entries_free(ents, n);
	return ret;
}

static int dfile_cmp(const void *a, const void *b)
{
	return strcmp(((const struct dfile *)a)->name, ((const struct dfile *)b)->name);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int needs_work(const struct scan *s, const struct idx_file *f, const struct idx_stat *st)
{
	if (!idx_stat_same(&f->st, st) || f->state == IDX_QUEUED)
		return 1;
	/* left out by a mount without the option that is given now */
	if (s->extensionless && f->state == IDX_NOT_BOOK && f->error &&
	    strstr(f->error, ": not a book (" SCAN_NOEXT_KIND ")"))
		return 1;
	return s->rec_version && f->has_fp && f->rec_version != s->rec_version;
}

/* What one directory holds on disk: its regular files and its
 * subdirectories, sorted by name once listed. */
struct dlist {
	struct dfile *files;
	size_t nf, capf;
	char **subdirs;
	size_t nd, capd;
};

static void dlist_release(struct dlist *l)
{
	size_t i;

	for (i = 0; i < l->nf; i++)
		free(l->files[i].name);
	free(l->files);
	for (i = 0; i < l->nd; i++)
		free(l->subdirs[i]);
	free(l->subdirs);
	memset(l, 0, sizeof(*l));
}

/* Opens directory dir (relative path, "" = SRC) for reading into *out, or
 * leaves *out NULL when it is not to be read: the index's own folder, one
 * read already (a bind mount loop), or gone or unreadable (counted as an
 * error; the index is left as is for an unreadable one, the parent handles
 * a vanished one).  Returns 0, or -errno when SRC itself cannot be opened. */
static int scan_dir_open(struct run *r, const char *dir, DIR **out)
{
	struct scan *s = r->s;
	struct stat st;
	DIR *d;
	int fd, ret;

	*out = NULL;
	fd = *dir ? openat(s->src_fd, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
		  : openat(s->src_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		ret = -errno;
		if (fd >= 0)
			close(fd);
		if (!*dir)
			return ret;
		prog_error(s, ret);
		return 0;
	}
	if (r->have_skip && st.st_dev == r->skip_dev && st.st_ino == r->skip_ino) {
		close(fd);
		return 0;
	}
	ret = seen_add(r, st.st_dev, st.st_ino);
	if (ret) {
		close(fd);
		return ret < 0 ? ret : 0;
	}
	d = fdopendir(fd);
	if (!d) {
		prog_error(s, -errno);
		close(fd);
		return 0;
	}
	prog_add(s, &s->prog.dirs, 1);
	*out = d;
	return 0;
}

/* Lists the regular files (with their stat) and subdirectories of d into
 * l, sorted by name.  Returns 0, 1 when the listing stopped early (counted
 * as an error: a partial listing must not remove anything), or -ENOMEM. */
static int scan_dir_list(struct run *r, DIR *d, struct dlist *l)
{
	struct scan *s = r->s;
	struct dirent *de;
	struct stat st;

	while ((errno = 0, de = readdir(d)) != NULL) {
		unsigned char type = de->d_type;

		if (de->d_name[0] == '.' && (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		if (fspath_fuse_hidden(de->d_name))
			continue;	/* unlinked through the mount, only still open */
		if (type == DT_UNKNOWN || type == DT_REG) {
			if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
				if (errno != ENOENT)
					prog_error(s, -errno);
				continue;
			}
			type = S_ISREG(st.st_mode) ? DT_REG : S_ISDIR(st.st_mode) ? DT_DIR : DT_UNKNOWN;
		}
		if (type == DT_REG) {
			if (ARRAY_GROW(l->files, l->capf, l->nf + 1))
				return -ENOMEM;
			l->files[l->nf].name = strdup(de->d_name);
			if (!l->files[l->nf].name)
				return -ENOMEM;
			l->files[l->nf].st = to_idx_stat(&st);
			l->nf++;
		} else if (type == DT_DIR && (s->include_hidden || de->d_name[0] != '.')) {
			if (fspath_status_dir(de->d_name))
				continue;	/* a mount's reports, not books */
			if (ARRAY_GROW(l->subdirs, l->capd, l->nd + 1))
				return -ENOMEM;
			l->subdirs[l->nd] = strdup(de->d_name);
			if (!l->subdirs[l->nd])
				return -ENOMEM;
			l->nd++;
		}
	}
	if (errno) {
		prog_error(s, -errno);
		return 1;
	}
	prog_add(s, &s->prog.files, l->nf);
	if (l->nf)
		qsort(l->files, l->nf, sizeof(*l->files), dfile_cmp);
	if (l->nd)
		qsort(l->subdirs, l->nd, sizeof(*l->subdirs), name_cmp);
	return 0;
}

/* Reconciles the index entries ents[0..ne-1] of dir with the listing l,
 * both sorted by name: new and changed files are queued, vanished ones
 * recorded as gone. */
static int scan_dir_merge(struct run *r, const char *dir, const struct idx_entry *ents, size_t ne,
			  const struct dlist *l)
{
	struct scan *s = r->s;
	const struct dfile *files = l->files;
	char *const *subdirs = l->subdirs;
	size_t nf = l->nf, nd = l->nd, i = 0, j = 0, k = 0;
	int ret = 0;

	while (i < ne || j < nf) {
		int c = i >= ne ? 1 : j >= nf ? -1 : strcmp(ents[i].name, files[j].name);
		char *path;

		if (c > 0) {		/* on disk only: new */
			path = fspath_join(dir, files[j].name);
			if (!path)
				return -ENOMEM;
			ret = queue_file(r, path, &files[j].st);
			j++;
		} else if (c < 0) {	/* in the index only: vanished unless a dir still */
			int still_dir = 0;

			if (ents[i].is_dir) {
				while (k < nd && strcmp(subdirs[k], ents[i].name) < 0)
					k++;
				still_dir = k < nd && strcmp(subdirs[k], ents[i].name) == 0;
			}
			if (!still_dir) {
				path = fspath_join(dir, ents[i].name);
				if (!path)
					return -ENOMEM;
				ret = gone_tree(r, path, ents[i].is_dir, &ents[i].file);
				free(path);
			}
			i++;
		} else {		/* both */
			path = fspath_join(dir, files[j].name);
			if (!path)
				return -ENOMEM;
			if (ents[i].is_dir) {
				/* a directory of books replaced by a file */
				ret = gone_tree(r, path, 1, NULL);
				if (ret == 0)
					ret = queue_file(r, path, &files[j].st);
				else
					free(path);
			} else if (ents[i].file.state == IDX_QUEUED &&
				   idx_stat_same(&ents[i].file.st, &files[j].st)) {
				ret = queue_only(r, path);
			} else if (needs_work(s, &ents[i].file, &files[j].st)) {
				ret = queue_file(r, path, &files[j].st);
			} else {
				free(path);
				prog_add(s, &s->prog.unchanged, 1);
			}
			i++;
			j++;
		}
		if (ret)
			return ret;
	}
	return 0;
}

/* Reads one directory (relative path dir, "" = SRC) and reconciles it; its
 * subdirectories are read next, in name order (pushed in reverse). */
static int scan_dir(struct run *r, char *dir)
{
	struct idx_entry *ents = NULL;
	struct dlist l;
	size_t ne = 0, i;
	DIR *d = NULL;
	int ret;

	memset(&l, 0, sizeof(l));
	ret = scan_dir_open(r, dir, &d);
	if (ret || !d)
		goto out;
	ret = scan_dir_list(r, d, &l);
	if (ret) {
		ret = ret < 0 ? ret : 0;
		goto out;
	}
	ret = idx_list(r->s->ix, dir, 0, &ents, &ne);
	if (ret)
		goto out;
	ret = scan_dir_merge(r, dir, ents, ne, &l);
	if (ret)
		goto out;
	for (i = l.nd; i-- > 0;) {
		char *path = fspath_join(dir, l.subdirs[i]);

		if (!path || stack_push(r, path)) {
			free(path);
			ret = -ENOMEM;
			goto out;
		}
	}
out:
	if (d)
		closedir(d);
	dlist_release(&l);
	idx_entries_free(ents, ne);
	return ret;
}

/* Vanished files that reappear elsewhere (same inode, size, mtime) are
 * renames: keep their ids; the rest leave the index. */
/* Whether the last component of path is a calibre metadata.opf. */
static int opf_path(const char *path)
{
	const char *base = strrchr(path, '/');

	return !strcmp(base ? base + 1 : path, "metadata.opf");
}

static int settle_gone(struct run *r)
{
	struct scan *s = r->s;
	struct moved **table = NULL, *m;
	size_t tsize = 1, i;
	struct stat sb;
	int ret = 0;

	if (!r->gone.n)
		return 0;
	while (tsize < r->fresh.n * 2)
		tsize *= 2;
	table = calloc(tsize, sizeof(*table));
	if (!table)
		return -ENOMEM;
	for (i = 0; i < r->fresh.n; i++) {
		m = &r->fresh.v[i];
		m->hnext = table[(m->st.ino ^ m->st.dev * 31) & (tsize - 1)];
		table[(m->st.ino ^ m->st.dev * 31) & (tsize - 1)] = m;
	}
	for (i = 0; i < r->gone.n && ret == 0; i++) {
		const struct moved *g = &r->gone.v[i];

		for (m = table[(g->st.ino ^ g->st.dev * 31) & (tsize - 1)]; m; m = m->hnext)
			if (m->path[0] && m->st.ino == g->st.ino && m->st.dev == g->st.dev &&
			    m->st.size == g->st.size && m->st.mtime_ns == g->st.mtime_ns)
				break;
		/* a metadata.opf gone or moved: the indexer re-titles the
		 * books of both folders when it takes the paths */
		if (s->q && opf_path(g->path))
			queue_push(s->q, g->path, QUEUE_HIGH);
		if (m) {
			ret = idx_rename(s->ix, g->path, m->path, 0);
			if (ret >= 0)
				ret = idx_set_stat(s->ix, m->path, &m->st);
			if (ret == 0 && s->q && opf_path(m->path))
				queue_push(s->q, m->path, QUEUE_HIGH);
			if (ret == 0) {
				prog_add(s, &s->prog.renamed, 1);
				m->path[0] = '\0';	/* matched once */
			}
		} else if (fstatat(s->src_fd, g->path, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
			   S_ISREG(sb.st_mode)) {
			/* There now: made after this run listed its folder (by
			 * the mount or the watch, which keep it up to date). */
			ret = 0;
		} else {
			ret = idx_unlink(s->ix, g->path);
			if (ret > 0) {
				prog_add(s, &s->prog.removed, (uint64_t)ret);
				ret = 0;
			}
		}
		if (ret == -EINVAL || ret == -ENAMETOOLONG || ret == -ENOENT) {
			prog_error(s, ret);
			ret = 0;
		}
	}
	free(table);
	return ret;
}

static int run_scan(struct scan *s)
{
	struct run r;
	struct stat st;
	char *dir;
	int ret = 0;

	memset(&r, 0, sizeof(r));
	r.s = s;
	if (s->skip_dir && stat(s->skip_dir, &st) == 0) {
		r.have_skip = 1;
		r.skip_dev = st.st_dev;
		r.skip_ino = st.st_ino;
	}
	r.bpaths = malloc(BATCH * sizeof(*r.bpaths));
	r.bsts = malloc(BATCH * sizeof(*r.bsts));
	dir = strdup("");
	if (!r.bpaths || !r.bsts || !dir || stack_push(&r, dir)) {
		free(dir);
		ret = -ENOMEM;
	}
	while (ret == 0 && r.nstack) {
		if (atomic_load(&s->cancel)) {
			ret = -ECANCELED;
			break;
		}
		dir = r.stack[--r.nstack];
		ret = scan_dir(&r, dir);
		free(dir);
		/* keep the index and the queue fed while walking a big tree */
		if (ret == 0 && r.nbatch && (r.nstack == 0 || r.nbatch >= BATCH / 4))
			ret = flush_batch(&r);
	}
	if (ret == 0)
		ret = flush_batch(&r);
	if (ret == 0)
		ret = settle_gone(&r);
	while (r.nstack)
		free(r.stack[--r.nstack]);
	free(r.stack);
	free(r.seen);
	free(r.bpaths);
	free(r.bsts);
	mlist_release(&r.fresh);
	mlist_release(&r.gone);
	return ret;
}

/* Marks a run as started; the caller holds s->lock and checked !busy. */
static void run_begin_locked(struct scan *s)
{
	s->busy = 1;
	atomic_store(&s->cancel, 0);
	s->prog.running = 1;
	s->prog.dirs = s->prog.files = s->prog.unchanged = s->prog.queued = 0;
	s->prog.removed = s->prog.renamed = s->prog.errors = 0;
	s->prog.last_error = 0;
	s->prog.started_ns = monoclock_ns();
	s->prog.finished_ns = 0;
}

static void run_end_locked(struct scan *s, int ret)
{
	s->busy = 0;
	s->prog.running = 0;
	s->prog.runs++;
	s->prog.finished_ns = monoclock_ns();
	if (ret && ret != -ECANCELED) {
		s->prog.errors++;
		s->prog.last_error = ret;
	}
}

/* Runs scans until no request came in during the last one; the run was
 * begun by the caller. */
static int run_loop(struct scan *s)
{
	int ret;

	for (;;) {
		ret = run_scan(s);
		pthread_mutex_lock(&s->lock);
		if (s->again && ret != -ECANCELED && !atomic_load(&s->cancel)) {
			/* requested while running: the walk may have passed the
			 * change already, so go round once more */
			s->again = 0;
			run_end_locked(s, ret);
			run_begin_locked(s);
			pthread_mutex_unlock(&s->lock);
			continue;
		}
		s->again = 0;
		s->thread_ret = ret;
		run_end_locked(s, ret);
		pthread_mutex_unlock(&s->lock);
		return ret;
	}
}

int scan_run(struct scan *s)
{
	pthread_mutex_lock(&s->lock);
	if (s->busy) {
		pthread_mutex_unlock(&s->lock);
		return -EBUSY;
	}
	run_begin_locked(s);
	pthread_mutex_unlock(&s->lock);
	return run_loop(s);
}

static void *scan_thread(void *p)
{
	run_loop(p);
	return NULL;
}

int scan_start(struct scan *s)
{
	int ret;

	pthread_mutex_lock(&s->lock);
	if (s->busy) {
		pthread_mutex_unlock(&s->lock);
		return -EBUSY;
	}
	if (s->has_thread) {
		/* a finished run not collected yet: it no longer needs the lock */
		pthread_join(s->thread, NULL);
		s->has_thread = 0;
	}
	run_begin_locked(s);
	ret = -pthread_create(&s->thread, NULL, scan_thread, s);
	if (ret)
		run_end_locked(s, ret);
	else
		s->has_thread = 1;
	pthread_mutex_unlock(&s->lock);
	return ret;
}

int scan_request(struct scan *s)
{
	int ret;

	for (;;) {
		ret = scan_start(s);
		if (ret != -EBUSY)
			return ret;
		pthread_mutex_lock(&s->lock);
		if (s->busy) {
			s->again = 1;
			pthread_mutex_unlock(&s->lock);
			return 0;
		}
		pthread_mutex_unlock(&s->lock);
	}
}

int scan_wait(struct scan *s)
{
	pthread_t th;
	int ret, has;

	pthread_mutex_lock(&s->lock);
	has = s->has_thread;
	th = s->thread;
	s->has_thread = 0;
	pthread_mutex_unlock(&s->lock);
	if (!has)
		return 0;
	pthread_join(th, NULL);
	pthread_mutex_lock(&s->lock);
	ret = s->thread_ret;
	pthread_mutex_unlock(&s->lock);
	return ret;
}

void scan_cancel(struct scan *s)
{
	atomic_store(&s->cancel, 1);
}

void scan_progress(struct scan *s, struct scan_progress *p)
{
	pthread_mutex_lock(&s->lock);
	*p = s->prog;
	pthread_mutex_unlock(&s->lock);
}

int scan_new(struct scan **out, const struct scan_opts *opts)
{
	struct scan *s = NULL;
	int fd;

	*out = NULL;
	if (!opts || !opts->ix || (opts->src_fd < 0 && !opts->src))
		return -EINVAL;
	fd = opts->src_fd >= 0 ? fcntl(opts->src_fd, F_DUPFD_CLOEXEC, 3)
			       : open(opts->src, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	s = calloc(1, sizeof(*s));
	if (!s) {
		close(fd);
		return -ENOMEM;
	}
	s->src_fd = fd;
	s->ix = opts->ix;
	s->q = opts->q;
	s->rec_version = opts->rec_version;
	s->include_hidden = opts->include_hidden;
	s->extensionless = opts->extensionless;
	if (opts->skip_dir) {
		s->skip_dir = strdup(opts->skip_dir);
		if (!s->skip_dir) {
			close(fd);
			free(s);
			return -ENOMEM;
		}
	}
	pthread_mutex_init(&s->lock, NULL);
	*out = s;
	return 0;
}

void scan_free(struct scan *s)
{
	if (!s)
		return;
	scan_cancel(s);
	scan_wait(s);
	close(s->src_fd);
	free(s->skip_dir);
	pthread_mutex_destroy(&s->lock);
	free(s);
}
