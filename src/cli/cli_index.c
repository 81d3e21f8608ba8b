/* cli_index.c - `simbook index DIR`: index a library folder without mounting.
 *
 * The same indexer as the mount (scan + fingerprinting workers, indexer.h),
 * run once to completion: the index it leaves is the one the mount and the
 * query commands read.  Progress goes to stderr: a bar redrawn in place when
 * stderr is a terminal, plain lines every few seconds otherwise (logs).  The
 * summary goes to stdout.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.h"
#include "climount.h"
#include "cliopt.h"
#include "idx.h"
#include "idxlock.h"
#include "indexer.h"
#include "libroot.h"
#include "monoclock.h"
#include "progress.h"
#include "rcluri.h"
#include "sbuf.h"
#include "skipped.h"

static const char index_usage[] =
	"usage: simbook index DIR [--index IDXDIR] [--threads N] [--quiet] [--interval SECS]\n"
	"                         [--hidden] [--extensionless]\n"
	"Indexes the library folder DIR without mounting it.  A library that\n"
	"simbookfs serves is refused (the mount keeps its own index up to date),\n"
	"and so is one another simbook index is indexing.\n"
	"Files unchanged since the last run (size, mtime, ctime, inode) are not\n"
	"read again; files gone are removed from the index.\n"
	"  --index IDXDIR  the index folder (default DIR/" LIBROOT_INDEX_NAME "); as with\n"
	"                  simbookfs -o index=: outside DIR, or directly inside it;\n"
	"                  or redis://HOST:PORT[,HOST:PORT...][/NAMESPACE]: an index\n"
	"                  in Redis or a Redis Cluster (no lock: mounts share it)\n"
	"  --threads N     fingerprinting threads (default: one per CPU)\n"
	"  --quiet         no progress, only the summary and the failures\n"
	"  --interval SECS seconds between progress lines when stderr is not a\n"
	"                  terminal (default 2; a terminal gets a bar redrawn in place)\n"
	"  --hidden        index files under hidden folders (.name, such as calibre's\n"
	"                  .caltrash) too; by default they are left out\n"
	"  --extensionless plain text files without an extension (README, COPYING)\n"
	"                  are books; by default they are not\n"
	"Output: progress on stderr; failures on stderr, one line each\n"
	"(\"simbook index: failed: PATH: REASON\"); two summary lines on stdout:\n"
	"  indexed DIR: F files, B books, X failed, N not books; Q read, R removed, S s\n"
	"  skipped: N KIND, N KIND, ... (or none), the files never compared by kind\n"
	"Exit status: 0 every file is indexed or recognised as not a book; 1 done,\n"
	"but some files could not be indexed (listed on stderr; the rest of the\n"
	"index is complete); 2 error (bad arguments, DIR or the index unusable);\n"
	"3 the index is in use (by simbookfs serving DIR, or another simbook index;\n"
	"the message names it), or DIR is inside a simbookfs mount; 130 interrupted\n"
	"(what was done is kept; the next run goes on from there).\n";

static volatile sig_atomic_t index_stop;

static void on_signal(int sig)
{
	(void)sig;
	index_stop = 1;
}

static double mono_now(void)
{
	return (double)monoclock_ns() / 1e9;
}

static void snap_take(struct indexer *ixr, double t0, struct progress_snap *s,
		      struct indexer_status *st)
{
	indexer_status(ixr, st);
	memset(s, 0, sizeof(*s));
	s->elapsed = mono_now() - t0;
	s->scanning = st->scan_running;
	s->seen = st->scan_files;
	s->todo = st->scan_queued;
	s->done = st->scan_queued > st->queued ? st->scan_queued - st->queued : 0;
}

static unsigned term_width(void)
{
	struct winsize ws;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 80;
}

/* Prints every file of the index that could not be indexed. */
static uint64_t print_failures(struct idx *ix)
{
	struct idx_file *f = NULL;
	size_t n = 0, i, pl;
	int ret = idx_errors(ix, &f, &n);

	if (ret) {
		fprintf(stderr, "simbook index: cannot list the failures: %s\n", strerror(-ret));
		return 0;
	}
	for (i = 0; i < n; i++) {
		pl = strlen(f[i].path);
		/* The reasons usually start with the path already. */
		if (f[i].error && !strncmp(f[i].error, f[i].path, pl) && f[i].error[pl] == ':')
			fprintf(stderr, "simbook index: failed: %s\n", f[i].error);
		else
			fprintf(stderr, "simbook index: failed: %s: %s\n", f[i].path,
				f[i].error ? f[i].error : "unknown error");
	}
	idx_files_free(f, n);
	return n;
}

/* The summary of the skipped files, as .simbookfs/status counts them. */
static void print_skipped(struct idx *ix)
{
	struct skipped sk;
	struct sbuf line;
	int ret;

	sbuf_init(&line);
	ret = skipped_count(ix, &sk);
	if (!ret) {
		ret = skipped_text(&sk, &line);
		skipped_release(&sk);
	}
	if (ret)
		fprintf(stderr, "simbook index: cannot count the skipped files: %s\n", strerror(-ret));
	else
		printf("skipped: %s\n", line.buf);
	sbuf_release(&line);
}

/* The command line of `simbook index`. */
struct index_args {
	const char *dir, *index;
	struct indexer_opts io;
	double interval;	/* seconds between progress lines (not a tty) */
	int quiet;
};

/* Reads argv into *a.  Returns -1 to go on, else the exit status (0 after
 * --help, 2 on a bad argument, reported). */
static int index_parse(int argc, char **argv, struct index_args *a)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' }, { "index", required_argument, NULL, 'i' },
		{ "threads", required_argument, NULL, 't' },
		{ "interval", required_argument, NULL, 'n' }, { "quiet", no_argument, NULL, 'q' },
		{ "hidden", no_argument, NULL, 'H' }, { "extensionless", no_argument, NULL, 'E' },
		{ NULL, 0, NULL, 0 }
	};
	char *end;
	int c, first = 1;

	while ((c = cliopt_next("index", first, argc, argv, ":hq", longopts)) != -1) {
		first = 0;
		switch (c) {
		case 'h':
			fputs(index_usage, stdout);
			return 0;
		case 'i':
			a->index = optarg;
			break;
		case 't':
			errno = 0;
			a->io.threads = (unsigned)strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || a->io.threads > 1024)
				return cliopt_usage("index", "bad --threads '%s'", optarg);
			break;
		case 'n':
			a->interval = strtod(optarg, &end);
			if (*end || !*optarg || !(a->interval >= 0.05 && a->interval <= 86400))
				return cliopt_usage("index", "bad --interval '%s'", optarg);
			break;
		case 'q':
			a->quiet = 1;
			break;
		case 'H':
			a->io.include_hidden = 1;
			break;
		case 'E':
			a->io.extensionless = 1;
			break;
		default:
			return 2;
		}
	}
	if (optind < argc)
		a->dir = argv[optind++];
	if (optind < argc)
		return cliopt_usage("index", "one DIR only, not also '%s'", argv[optind]);
	if (!a->dir)
		return cliopt_usage("index", "which folder? a DIR is needed");
	return -1;
}

int cli_index_lock(const char *cmd, const char *prog, const struct libroot *lr,
		   struct idxlock **lock)
{
	struct idxlock_holder h;
	char why[2 * PATH_MAX + 128];
	int ret;

	*lock = NULL;
	if (rcluri_is_uri(lr->index))
		return 0;	/* a Redis index: shared by design, no lock */
	ret = idxlock_take(lock, lr->index, prog, lr->root, NULL, &h);
	if (ret == -EBUSY) {
		idxlock_describe(&h, why, sizeof(why));
		if (!*h.src || !strcmp(h.src, lr->root))
			fprintf(stderr, "simbook %s: %s%s\n", cmd, why,
				!strcmp(h.prog, IDXLOCK_PROG_DAEMON) ?
				": the mount keeps its index up to date, nothing to do (simbook "
				"similar, clusters and duplicates read it)" : "");
		else
			fprintf(stderr, "simbook %s: the index %s is in use: %s\n", cmd, lr->index,
				why);
		return 3;
	}
	if (ret) {
		fprintf(stderr, "simbook %s: cannot lock the index %s: %s\n", cmd, lr->index,
			strerror(-ret));
		return 2;
	}
	return 0;
}

/* Places the index of a->dir (*lr), locks it (*lock), opens the library
 * folder (*rootfd) and the indexer (*ixr), and says when the index is
 * being rebuilt.  Returns 0, or the exit status after reporting why not
 * (what was opened is the caller's to release). */
static int index_open(struct index_args *a, struct libroot *lr, struct idxlock **lock,
		      int *rootfd, struct indexer **ixr)
{
	char mnt[PATH_MAX];
	int ret;

	/* The index folder is hidden there and the lock out of reach. */
	if (climount_find(a->dir, mnt, sizeof(mnt))) {
		fprintf(stderr, "simbook index: %s is inside the simbookfs mount at %s, whose daemon "
			"keeps the index up to date: nothing to do (simbook similar, clusters "
			"and duplicates read it through the mount)\n", a->dir, mnt);
		return 3;
	}
	ret = libroot_place(lr, a->dir, a->index);
	if (ret) {
		if (ret == -EINVAL)
			fprintf(stderr, "simbook index: %s: the index must be outside DIR or directly "
				"in it\n", a->index);
		else
			fprintf(stderr, "simbook index: %s (index %s%s): %s%s\n", a->dir,
				a->index ? a->index : a->dir, a->index ? "" : "/" LIBROOT_INDEX_NAME,
				strerror(-ret), !a->index && (ret == -EACCES || ret == -EROFS) ?
				" (use --index IDXDIR for a read-only DIR)" : "");
		return 2;
	}
	ret = cli_index_lock("index", IDXLOCK_PROG_INDEX, lr, lock);
	if (ret)
		return ret;
	*rootfd = open(lr->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*rootfd < 0) {
		fprintf(stderr, "simbook index: %s: %s\n", lr->root, strerror(errno));
		return 2;
	}
	a->io.index_dir = lr->index;
	a->io.skip_dir = lr->hidden ? lr->index : NULL;
	ret = indexer_new(ixr, *rootfd, &a->io);
	if (ret) {
		fprintf(stderr, "simbook index: cannot open the index in %s: %s\n", lr->index,
			idx_strerror(ret));
		return 2;
	}
	if (idx_rebuilt(indexer_idx(*ixr)) == IDX_REBUILT_KEPT) {
		uint64_t kf = 0, kp = 0;

		idx_rebuild_kept(indexer_idx(*ixr), &kf, &kp);
		fprintf(stderr, "simbook index: the index in %s was from another version: "
			"rebuilding it; kept %llu files' ids and %llu \"not a duplicate\" marks\n",
			lr->index, (unsigned long long)kf, (unsigned long long)kp);
	} else if (idx_rebuilt(indexer_idx(*ixr))) {
		fprintf(stderr, "simbook index: the index in %s was unreadable: rebuilding it; "
			"its \"not a duplicate\" marks are lost (the old file is kept as "
			"%s/" IDX_DAMAGED_NAME ")\n", lr->index, lr->index);
	}
	return 0;
}

/* Waits until the first scan is over and the queue is empty, or a signal
 * came (index_stop), showing progress on stderr: a bar redrawn in place
 * when tty, else a line every interval seconds unless quiet.  t0: the
 * start (mono_now()). */
static void index_wait(struct indexer *ixr, int tty, int quiet, double interval, double t0)
{
	struct indexer_status st;
	struct progress_snap snap;
	struct sbuf line;
	double next = t0 + interval, now;
	int drawn = 0, ret;

	sbuf_init(&line);
	for (;;) {
		if (tty) {
			/* Drawn first, so even a short run shows where it stands. */
			snap_take(ixr, t0, &snap, &st);
			sbuf_setlen(&line, 0);
			if (!progress_tty(&line, &snap, term_width())) {
				fprintf(stderr, "\r%s\033[K", line.buf);
				drawn = 1;
			}
		}
		ret = indexer_wait_idle(ixr, tty ? 200 : 100);
		if (ret == 0) {
			indexer_status(ixr, &st);
			if (st.scan_runs >= 1 && !st.scanning)
				break;
		}
		if (index_stop)
			break;
		now = mono_now();
		if (!tty && !quiet && now >= next) {
			snap_take(ixr, t0, &snap, &st);
			sbuf_setlen(&line, 0);
			if (!progress_plain(&line, &snap))
				fprintf(stderr, "simbook index: %s\n", line.buf);
			next = now + interval;
		}
	}
	if (drawn)
		fprintf(stderr, "\r\033[K");
	sbuf_release(&line);
}

/* Reports how the run ended (interrupted, or the failures) and prints the
 * summary line; returns the exit status. */
static int index_summary(struct indexer *ixr, const struct libroot *lr, double t0)
{
	struct indexer_status st;
	struct progress_snap snap;
	int status;

	snap_take(ixr, t0, &snap, &st);
	if (index_stop) {
		fprintf(stderr, "simbook index: interrupted after %llu of %llu files; the next run "
			"goes on from there\n", (unsigned long long)snap.done,
			(unsigned long long)snap.todo);
		status = 130;
	} else {
		status = print_failures(indexer_idx(ixr)) ? 1 : 0;
	}
	printf("indexed %s: %llu files, %llu books, %llu failed, %llu not books; "
	       "%llu read, %llu removed, %.2f s\n", lr->root, (unsigned long long)st.files,
	       (unsigned long long)st.books, (unsigned long long)st.failed,
	       (unsigned long long)st.not_books, (unsigned long long)snap.done,
	       (unsigned long long)st.scan_removed, snap.elapsed);
	print_skipped(indexer_idx(ixr));
	fflush(stdout);
	return status;
}

int cli_index(int argc, char **argv)
{
	struct index_args a;
	struct libroot lr = { 0 };
	struct indexer *ixr = NULL;
	struct idxlock *lock = NULL;
	struct sigaction sa, old_int, old_term;
	double t0;
	int tty, rootfd = -1, status = 2, ret, sigs = 0;

	memset(&a, 0, sizeof(a));
	a.interval = 2;
	ret = index_parse(argc, argv, &a);
	if (ret >= 0)
		return ret;
	ret = index_open(&a, &lr, &lock, &rootfd, &ixr);
	if (ret) {
		status = ret;
		goto out;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	index_stop = 0;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigs = 1;
	tty = !a.quiet && isatty(STDERR_FILENO);
	if (!a.quiet && !tty)
		fprintf(stderr, "simbook index: indexing %s into %s\n", lr.root, lr.index);
	t0 = mono_now();
	ret = indexer_start(ixr);
	if (ret) {
		fprintf(stderr, "simbook index: cannot start the scan: %s\n", strerror(-ret));
		goto out;
	}
	index_wait(ixr, tty, a.quiet, a.interval, t0);
	status = index_summary(ixr, &lr, t0);
out:
	indexer_free(ixr);
	if (sigs) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
	}
	if (rootfd >= 0)
		close(rootfd);
	/* After the index is closed: the next writer may open it then. */
	idxlock_free(lock, 0);
	libroot_release(&lr);
	return status;
}
