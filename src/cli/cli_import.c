/* cli_import.c - `simbook import`: bulk-loads the record lines of `simbook
 * fingerprint --records` (fpline.h) into a library's index, then judges
 * the books as the indexer does (docs/BULK.md).
 *
 * Lines are read in batches; each batch is sorted by path and stored with
 * two transactions (idx_mark_queued() for the entries, idx_apply() for
 * the fingerprints), so the index's B-trees are filled in key order.  The
 * judgement comes after the whole load, so that every book finds all its
 * candidates; it runs in threads, each pair being compared once, by the
 * book of the pair judged later (judge_batch()).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bookrec.h"
#include "cli.h"
#include "climount.h"
#include "cliopt.h"
#include "fpline.h"
#include "fspath.h"
#include "idx.h"
#include "idxlock.h"
#include "judge.h"
#include "libroot.h"
#include "monoclock.h"
#include "rcluri.h"
#include "rsort.h"
#include "sbuf.h"

#define IMPORT_BATCH 1024	/* records per pair of transactions */
#define IMPORT_PROG "simbook import"

_Static_assert(FPLINE_BANDS_MAX == 1024 && FPLINE_KEYS_MAX == IDX_UQ_MAX &&
	       FPLINE_REC_MAX == 64u << 20, "fpline.h's bounds are the index's (idx_fp.h)");

static const char import_usage[] =
	"usage: simbook import --index IDXDIR [--library DIR] [--from PREFIX] [--threads N]\n"
	"                      [--hidden] [FILE...]\n"
	"Loads the record lines of simbook fingerprint --records (from the FILEs, or\n"
	"standard input when none is given or FILE is -) into the index of library\n"
	"DIR, then finds the relations of the books as simbook index does.  Each\n"
	"record's path (a relative one taken from the current directory, as a path\n"
	"given here) must be inside DIR or inside PREFIX.  As for simbook index, a\n"
	"library simbookfs serves is refused, and so is one being indexed or imported.\n"
	"  --index IDXDIR  the index folder (DIR/" LIBROOT_INDEX_NAME " when IDXDIR\n"
	"                  ends so and no DIR is given), or a Redis index\n"
	"                  redis://HOST:PORT[,HOST:PORT...][/NAMESPACE] (--library\n"
	"                  DIR then names the library)\n"
	"  --library DIR   the library folder the records' paths are in\n"
	"  --from PREFIX   the library folder as the mappers named it, when they saw\n"
	"                  it elsewhere (another machine's mount point)\n"
	"  --threads N     judging threads (default: one per CPU)\n"
	"  --hidden        keep records of files under hidden folders (as simbook\n"
	"                  index --hidden); by default they are left out\n"
	"A record whose file is at its path under DIR with the same size and mtime\n"
	"is stored with the file's own stat, so the next scan (simbookfs, simbook\n"
	"index) does not read it again; otherwise that scan reads it again.\n"
	"Output: one line on stderr per bad record (\"FILE:LINE: REASON\") or record\n"
	"left out; the summary on stdout:\n"
	"  imported IDXDIR: N records, B books stored, X bad, S left out; J judged, T s\n"
	"  (L s loading)\n"
	"Exit status: 0 every record imported (or left out as above); 1 done, but\n"
	"some lines were bad (the others are imported); 2 error (bad arguments, the\n"
	"index unusable, input unreadable); 3 the index is in use.\n";

/* The command line. */
struct import_args {
	const char *index, *library, *from;
	char **files;
	int nfiles;
	unsigned threads;
	int hidden;
};

/* One record waiting in a batch. */
struct import_rec {
	char *rel;		/* path in the library */
	size_t seq;		/* input order: the last of one path wins */
	struct idx_stat st;
	struct fpline r;
};

/* A run. */
struct import {
	struct idx *ix;
	struct libroot lr;
	int rootfd;
	/* made absolute and clean (given_root()), without the leading '/' */
	char *given_root;	/* the library folder as given */
	char *from;		/* --from, or NULL */
	char *cwd;		/* the current directory */
	int hidden;
	struct import_rec batch[IMPORT_BATCH];
	size_t nbatch, seq;
	uint64_t records, stored, bad, left_out, restat;
};

/* Reads argv.  -1 to go on, else the exit status. */
static int import_parse(int argc, char **argv, struct import_args *a)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' }, { "index", required_argument, NULL, 'i' },
		{ "library", required_argument, NULL, 'l' }, { "from", required_argument, NULL, 'f' },
		{ "threads", required_argument, NULL, 't' },
		{ "hidden", no_argument, NULL, 'H' }, { NULL, 0, NULL, 0 }
	};
	char *end;
	int c, first = 1;

	while ((c = cliopt_next("import", first, argc, argv, ":h", longopts)) != -1) {
		first = 0;
		if (c == 'h') {
			fputs(import_usage, stdout);
			return 0;
		} else if (c == 'i') {
			a->index = optarg;
		} else if (c == 'l') {
			a->library = optarg;
		} else if (c == 'f') {
			a->from = optarg;
		} else if (c == 't') {
			errno = 0;
			a->threads = (unsigned)strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || !a->threads || a->threads > 1024)
				return cliopt_usage("import", "bad --threads '%s'", optarg);
		} else if (c == 'H') {
			a->hidden = 1;
		} else {
			return 2;
		}
	}
	if (!a->index)
		return cliopt_usage("import", "which index? --index IDXDIR is needed");
	a->files = argv + optind;
	a->nfiles = argc - optind;
	return -1;
}

/* Splits path into its components without "" and "." into out ('/'
 * between, no leading one).  -EINVAL for a ".." (a record names a file,
 * lexically: the files may not be on this machine). */
static int path_clean(const char *path, struct sbuf *out)
{
	const char *p = path, *e;
	size_t n;

	sbuf_setlen(out, 0);
	for (; *p; p = *e ? e + 1 : e) {
		e = strchrnul(p, '/');
		n = (size_t)(e - p);
		if (!n || (n == 1 && *p == '.'))
			continue;
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return -EINVAL;
		if ((out->len && sbuf_addch(out, '/')) || sbuf_add(out, p, n))
			return -ENOMEM;
	}
	return 0;
}

/* The rest of clean path p after the clean folder root, or NULL. */
static const char *path_under(const char *p, const char *root)
{
	size_t n = strlen(root);

	if (!n)
		return p;
	return !strncmp(p, root, n) && (p[n] == '/' || !p[n]) ? p + n + !!p[n] : NULL;
}

/* Whether a folder of path (not its last component) is hidden (".name"),
 * which the scan leaves out unless asked. */
static int in_hidden_dir(const char *path)
{
	const char *p = path, *slash;

	for (; (slash = strchr(p, '/')) != NULL; p = slash + 1)
		if (*p == '.')
			return 1;
	return 0;
}

/* The library-relative path of record path p into rel, or a reason in why
 * (-EXDEV outside the library, -EINVAL not a file's path, 1 left out). */
static int import_map(struct import *im, const char *p, struct sbuf *rel, const char **why)
{
	struct sbuf clean, abs;
	const char *r = NULL;
	int ret;

	sbuf_init(&clean);
	sbuf_init(&abs);
	/* a relative path as if given on this command line */
	ret = *p == '/' ? sbuf_addstr(&abs, p) : sbuf_addf(&abs, "/%s/%s", im->cwd, p);
	if (!ret)
		ret = path_clean(abs.buf, &clean);
	*why = "a path with \"..\" in it (records name files)";
	if (!ret) {
		if (im->from)
			r = path_under(clean.buf, im->from);
		if (!r)
			r = path_under(clean.buf, im->given_root);
		if (!r)
			r = path_under(clean.buf, im->lr.root + 1);
		*why = "outside the library";
		ret = r ? 0 : -EXDEV;
	}
	if (!ret && !*r) {
		*why = "the library folder itself, not a file";
		ret = -EINVAL;
	} else if (!ret && strlen(r) > IDX_PATH_MAX) {
		*why = "too long a path";
		ret = -EINVAL;
	}
	if (!ret && sbuf_addstr(rel, r))
		ret = -ENOMEM;
	if (!ret && (libroot_in_index(&im->lr, rel->buf) || fspath_fuse_hidden(rel->buf))) {
		*why = "left out: in the index folder, or a file unlinked while open";
		ret = 1;
	} else if (!ret && !im->hidden && in_hidden_dir(rel->buf)) {
		*why = "left out: under a hidden folder (see --hidden)";
		ret = 1;
	}
	sbuf_release(&clean);
	sbuf_release(&abs);
	return ret;
}

static int rec_cmp(const void *pa, const void *pb)
{
	const struct import_rec *a = pa, *b = pb;
	int c = strcmp(a->rel, b->rel);

	return c ? c : a->seq < b->seq ? -1 : a->seq > b->seq;
}

static void rec_release(struct import_rec *r)
{
	free(r->rel);
	fpline_release(&r->r);
}

/* Stores the batch: sorted by path, the last record of a path only. */
static int import_flush(struct import *im)
{
	const char *paths[IMPORT_BATCH];
	struct idx_stat sts[IMPORT_BATCH];
	struct idx_fp fps[IMPORT_BATCH];
	struct idx_op ops[IMPORT_BATCH];
	uint64_t ids[IMPORT_BATCH];
	struct import_rec *v = im->batch;
	size_t i, n = 0;
	int ret = 0;

	qsort(v, im->nbatch, sizeof(*v), rec_cmp);
	for (i = 0; i < im->nbatch; i++) {
		if (i + 1 < im->nbatch && !strcmp(v[i].rel, v[i + 1].rel))
			continue;
		paths[n] = v[i].rel;
		sts[n] = v[i].st;
		fps[n] = (struct idx_fp){
			.mh_bands = v[i].r.bands, .n_mh_bands = v[i].r.n_bands,
			.rec_version = v[i].r.rec_version, .rec = v[i].r.rec,
			.rec_len = v[i].r.rec_len, .uq_keys = v[i].r.keys,
			.n_uq_keys = v[i].r.n_keys,
		};
		memcpy(fps[n].simhash, v[i].r.simhash, IDX_SH_BYTES);
		memcpy(fps[n].text_hash, v[i].r.text_hash, IDX_SH_BYTES);
		n++;
	}
	if (n)
		ret = idx_mark_queued(im->ix, paths, sts, n, ids);
	for (i = 0; !ret && i < n; i++)
		ops[i] = (struct idx_op){ .kind = IDX_OP_PUT, .id = ids[i], .st = &sts[i],
					  .fp = &fps[i] };
	if (!ret && n)
		ret = idx_apply(im->ix, ops, n);
	for (i = 0; !ret && i < n; i++) {
		if (ops[i].result)
			fprintf(stderr, "simbook import: %s: cannot store it: %s\n", paths[i],
				strerror(-ops[i].result));
		else
			im->stored++;
	}
	if (ret)
		fprintf(stderr, "simbook import: cannot store in the index %s: %s\n",
			im->lr.index, idx_strerror(ret));
	for (i = 0; i < im->nbatch; i++)
		rec_release(&v[i]);
	im->nbatch = 0;
	return ret;
}

/* The stat stored for a record of rel: the file's own when it is there
 * with the record's size and mtime (the next scan then leaves it alone),
 * else the record's size and mtime alone (that scan reads it again). */
static void import_stat(struct import *im, const char *rel, const struct fpline *r,
			struct idx_stat *st)
{
	struct stat sb;

	memset(st, 0, sizeof(*st));
	st->size = r->size;
	st->mtime_ns = r->mtime_ns;
	if (fstatat(im->rootfd, rel, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(sb.st_mode) &&
	    (uint64_t)sb.st_size == r->size &&
	    (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec == r->mtime_ns) {
		st->ctime_ns = (int64_t)sb.st_ctim.tv_sec * 1000000000 + sb.st_ctim.tv_nsec;
		st->ino = (uint64_t)sb.st_ino;
		st->dev = (uint64_t)sb.st_dev;
	} else {
		im->restat++;
	}
}

/* One line (lineno of file name): into the batch, or a reason on stderr.
 * 0, or -errno of the index (fatal). */
static int import_line(struct import *im, const char *name, uint64_t lineno, const char *s,
		       size_t n)
{
	struct import_rec *rec = &im->batch[im->nbatch];
	struct sbuf rel;
	const char *why = NULL;
	char *title = NULL;
	int ret;

	sbuf_init(&rel);
	im->records++;
	ret = fpline_decode(s, n, &rec->r);
	if (ret == -EPROTO) {
		fprintf(stderr, "simbook import: %s:%llu: a record line of format version %ld; this "
			"simbook reads version %d: fingerprint the books again with it\n", name,
			(unsigned long long)lineno, fpline_version(s, n), FPLINE_VERSION);
	} else if (ret) {
		fprintf(stderr, "simbook import: %s:%llu: not a record line of simbook fingerprint "
			"--records%s\n", name, (unsigned long long)lineno,
			ret == -ENOMEM ? " (out of memory)" : " (cut, damaged or another text)");
	} else if (rec->r.rec_version != BOOKREC_IDX_VERSION ||
		   bookrec_title(rec->r.rec, rec->r.rec_len, &title)) {
		fprintf(stderr, "simbook import: %s:%llu: %s: a fingerprint record of version %lu, "
			"not %lu as this simbook stores: fingerprint the book again with it\n",
			name, (unsigned long long)lineno, rec->r.path,
			(unsigned long)rec->r.rec_version, (unsigned long)BOOKREC_IDX_VERSION);
		ret = -EPROTO;
	} else if ((ret = import_map(im, rec->r.path, &rel, &why)) != 0) {
		fprintf(stderr, "simbook import: %s:%llu: %s: %s%s%s\n", name,
			(unsigned long long)lineno, rec->r.path, why, ret == -EXDEV ? " folder " : "",
			ret == -EXDEV ? im->lr.root : "");
	}
	free(title);
	if (ret) {
		if (ret == 1)
			im->left_out++;
		else
			im->bad++;
		fpline_release(&rec->r);
		sbuf_release(&rel);
		return ret == -ENOMEM ? ret : 0;
	}
	import_stat(im, rel.buf, &rec->r, &rec->st);
	rec->rel = sbuf_detach(&rel, NULL);
	rec->seq = im->seq++;
	return ++im->nbatch == IMPORT_BATCH ? import_flush(im) : 0;
}

/* Every line of f (named name).  0, or -errno (unreadable, the index). */
static int import_stream(struct import *im, FILE *f, const char *name)
{
	char *line = NULL;
	size_t cap = 0;
	uint64_t lineno = 0;
	ssize_t n;
	int ret = 0;

	while (!ret && (n = getline(&line, &cap, f)) > 0) {
		lineno++;
		ret = import_line(im, name, lineno, line, (size_t)n);
	}
	if (!ret && ferror(f)) {
		ret = -EIO;
		fprintf(stderr, "simbook import: %s: cannot read it: %s\n", name, strerror(errno));
	}
	free(line);
	return ret;
}

/* The judging: books ids[0..n) (ascending, unjudged) share out among the
 * threads; a book leaves its pairs with the books after it to them. */
struct import_judge {
	struct idx *ix;
	const uint64_t *ids;
	size_t n;
	atomic_size_t next;
	atomic_ulong failed;
};

/* Judges ids[i]: its candidates that come later in ids are theirs. */
static int judge_one(struct import_judge *j, size_t i)
{
	struct idx_file f = { 0 };
	uint64_t *c = NULL, *later = NULL;
	size_t nc = 0, nl = 0, k;
	int ret;

	ret = idx_get_id(j->ix, j->ids[i], &f);
	if (!ret && f.has_fp)
		ret = judge_gather(j->ix, &f, JUDGE_SRC_ALL, 1, &c, &nc);
	if (!ret && nc && !(later = malloc(nc * sizeof(*later))))
		ret = -ENOMEM;
	for (k = 0; !ret && k < nc; k++)
		if (c[k] > j->ids[i] &&
		    bsearch(&c[k], j->ids + i + 1, j->n - i - 1, sizeof(*c), rsort_cmp_u64))
			later[nl++] = c[k];
	if (!ret && f.has_fp)
		ret = judge_batch(j->ix, j->ids[i], later, nl);
	idx_file_release(&f);
	free(c);
	free(later);
	return ret;
}

static void *judge_thread(void *arg)
{
	struct import_judge *j = arg;
	size_t i;

	while ((i = atomic_fetch_add(&j->next, 1)) < j->n)
		if (judge_one(j, i) && judge_one(j, i))	/* once more: -ENOMEM, a busy map */
			atomic_fetch_add(&j->failed, 1);
	return NULL;
}

/* Judges every book of the index that has no judgement on its
 * fingerprint (the imported ones, and any an earlier run left), in
 * threads.  *judged: how many.  0 or -errno. */
static int import_judge(struct idx *ix, unsigned threads, uint64_t *judged)
{
	struct import_judge j = { .ix = ix };
	uint64_t *ids = NULL, *nids, from = 0;
	size_t n = 0, cap = 0, got;
	pthread_t tid[1024];
	unsigned t, started = 0;
	int ret = 0;

	*judged = 0;
	do {
		if (n + 4096 > cap) {
			cap = cap ? 2 * cap : 65536;
			nids = realloc(ids, cap * sizeof(*ids));
			if (!nids) {
				ret = -ENOMEM;
				break;
			}
			ids = nids;
		}
		ret = idx_unjudged(ix, from, ids + n, 4096, &got);
		n += got;
		if (got)
			from = ids[n - 1] + 1;
	} while (!ret && got == 4096);
	j.ids = ids;
	j.n = n;
	if (!threads) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		threads = cpus > 0 ? (unsigned)(cpus < 1024 ? cpus : 1024) : 1;
	}
	for (t = 0; !ret && n && t < threads && t < n; t++, started++)
		if (pthread_create(&tid[t], NULL, judge_thread, &j))
			break;
	if (!ret && n && !started)
		judge_thread(&j);
	for (t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	if (!ret) {
		*judged = n - atomic_load(&j.failed);
		if (atomic_load(&j.failed))
			fprintf(stderr, "simbook import: %lu books could not be judged: their lists are "
				"computed when read\n", (unsigned long)atomic_load(&j.failed));
	}
	free(ids);
	return ret;
}

/* dir made absolute and clean, not resolved (records name their files as
 * the mapper was given them, symbolic links and all): *out malloc'd.
 * 0, -EINVAL (a ".."), -ENOMEM, -errno of getcwd(). */
static int given_root(const char *dir, char **out)
{
	struct sbuf abs, clean;
	char cwd[PATH_MAX];
	int ret = 0;

	*out = NULL;
	sbuf_init(&abs);
	sbuf_init(&clean);
	if (*dir != '/')
		ret = getcwd(cwd, sizeof(cwd)) ? sbuf_addf(&abs, "%s/", cwd) : -errno;
	if (!ret)
		ret = sbuf_addstr(&abs, dir);
	if (!ret)
		ret = path_clean(abs.buf, &clean);
	if (!ret)
		*out = sbuf_detach(&clean, NULL);
	sbuf_release(&abs);
	sbuf_release(&clean);
	return ret;
}

/* The library folder: --library, else the folder holding a default-named
 * index.  *root malloc'd.  0 or the exit status after saying why not. */
static int import_root(const struct import_args *a, char **root)
{
	const char *base = strrchr(a->index, '/');

	base = base ? base + 1 : a->index;
	if (a->library)
		*root = strdup(a->library);
	else if (strcmp(base, LIBROOT_INDEX_NAME))
		return cliopt_usage("import", "which library? --library DIR is needed for an "
				    "index not named %s", LIBROOT_INDEX_NAME);
	else
		*root = base == a->index ? strdup(".") : strndup(a->index, (size_t)(base - a->index));
	return *root ? 0 : 2;
}

/* The index of a->index for the library (import_root()), locked, opened:
 * into im.  0 or the exit status after reporting why not. */
static int import_open(const struct import_args *a, struct import *im, struct idxlock **lock)
{
	char mnt[PATH_MAX];
	char *root = NULL;
	int ret;

	if (strstr(a->index, "://") && !rcluri_is_uri(a->index)) {
		fprintf(stderr, "simbook import: %s: unknown kind of index (an index folder, or a "
			"redis:// URI)\n", a->index);
		return 2;
	}
	ret = import_root(a, &root);
	if (ret)
		return ret;
	if (climount_find(root, mnt, sizeof(mnt))) {
		fprintf(stderr, "simbook import: %s is inside the simbookfs mount at %s, whose daemon "
			"keeps the index up to date\n", root, mnt);
		free(root);
		return 3;
	}
	ret = libroot_place(&im->lr, root, a->index);
	if (!ret)
		ret = given_root(root, &im->given_root);
	if (!ret)
		ret = given_root(".", &im->cwd);
	if (!ret && a->from)
		ret = given_root(a->from, &im->from);
	if (ret)
		fprintf(stderr, "simbook import: %s (index %s): %s\n", root, a->index,
			ret == -EINVAL ? "the index must be outside the library folder or directly "
			"in it, and the folder's name without \"..\"" : strerror(-ret));
	free(root);
	if (ret)
		return 2;
	ret = cli_index_lock("import", IMPORT_PROG, &im->lr, lock);
	if (ret)
		return ret;
	im->rootfd = open(im->lr.root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (im->rootfd < 0) {
		fprintf(stderr, "simbook import: %s: %s\n", im->lr.root, strerror(errno));
		return 2;
	}
	ret = idx_open(&im->ix, im->lr.index, NULL);
	if (ret) {
		fprintf(stderr, "simbook import: cannot open the index in %s: %s\n", im->lr.index,
			idx_strerror(ret));
		return 2;
	}
	if (idx_rebuilt(im->ix))
		fprintf(stderr, "simbook import: the index in %s was from another version or "
			"unreadable: rebuilt; the next scan of the library fills in the rest\n",
			im->lr.index);
	return 0;
}

/* Every input: the files, or stdin.  0 or -errno (fatal). */
static int import_inputs(struct import *im, const struct import_args *a)
{
	FILE *f;
	int i, ret = 0;

	if (!a->nfiles)
		return import_stream(im, stdin, "(stdin)");
	for (i = 0; !ret && i < a->nfiles; i++) {
		if (!strcmp(a->files[i], "-")) {
			ret = import_stream(im, stdin, "(stdin)");
			continue;
		}
		f = fopen(a->files[i], "re");
		if (!f) {
			fprintf(stderr, "simbook import: %s: %s\n", a->files[i], strerror(errno));
			return -errno;
		}
		ret = import_stream(im, f, a->files[i]);
		fclose(f);
	}
	return ret;
}

int cli_import(int argc, char **argv)
{
	struct import_args a = { 0 };
	struct import *im = calloc(1, sizeof(*im));
	struct idxlock *lock = NULL;
	uint64_t judged = 0;
	int64_t t0 = monoclock_ns(), t_load;
	int status, ret;
	size_t i;

	if (!im)
		return 2;
	im->rootfd = -1;
	status = import_parse(argc, argv, &a);
	if (status < 0)
		status = import_open(&a, im, &lock);
	if (status)
		goto out;
	im->hidden = a.hidden;
	status = 2;
	ret = import_inputs(im, &a);
	if (!ret && im->nbatch)
		ret = import_flush(im);
	if (ret)
		goto out;
	t_load = monoclock_ns();
	ret = import_judge(im->ix, a.threads, &judged);
	if (ret) {
		fprintf(stderr, "simbook import: cannot judge the books: %s\n", idx_strerror(ret));
		goto out;
	}
	printf("imported %s: %llu records, %llu books stored, %llu bad, %llu left out; "
	       "%llu judged, %.2f s (%.2f s loading)\n", im->lr.index, (unsigned long long)im->records,
	       (unsigned long long)im->stored, (unsigned long long)im->bad,
	       (unsigned long long)im->left_out, (unsigned long long)judged,
	       (double)(monoclock_ns() - t0) / 1e9, (double)(t_load - t0) / 1e9);
	if (im->restat)
		printf("not found as recorded under %s: %llu (the next scan reads them again)\n",
		       im->lr.root, (unsigned long long)im->restat);
	status = fflush(stdout) ? 2 : im->bad ? 1 : 0;
out:
	for (i = 0; i < im->nbatch; i++)
		rec_release(&im->batch[i]);
	idx_close(im->ix);
	if (im->rootfd >= 0)
		close(im->rootfd);
	idxlock_free(lock, 0);
	libroot_release(&im->lr);
	free(im->given_root);
	free(im->cwd);
	free(im->from);
	free(im);
	return status;
}
