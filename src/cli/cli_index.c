/* cli_indexcmd.c - `simbook index DIR`: index a library folder without mounting.
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
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "idx.h"
#include "indexer.h"
#include "libroot.h"
#include "progress.h"
#include "sbuf.h"

static const char index_usage[] =
	"usage: simbook index DIR [--index IDXDIR] [--threads N] [--quiet] [--interval SECS]\n"
	"Indexes the library folder DIR without mounting it (do not run it on a\n"
	"library that is mounted: the mount keeps its own index up to date).\n"
	"Files unchanged since the last run (size, mtime, ctime, inode) are not\n"
	"read again; files gone are removed from the index.\n"
	"  --index IDXDIR  the index folder (default DIR/" LIBROOT_INDEX_NAME "); as with\n"
	"                  simbookfs -o index=: outside DIR, or directly inside it\n"
	"  --threads N     fingerprinting threads (default: one per CPU)\n"
	"  --quiet         no progress, only the summary and the failures\n"
	"  --interval SECS seconds between progress lines when stderr is not a\n"
	"                  terminal (default 2; a terminal gets a bar redrawn in place)\n"
	"Output: progress on stderr; failures on stderr, one line each\n"
	"(\"simbook index: failed: PATH: REASON\"); one summary line on stdout:\n"
	"  indexed DIR: F files, B books, X failed, N not books; Q read, R removed, S s\n"
	"Exit status: 0 every file is indexed or recognised as not a book; 1 done,\n"
	"but some files could not be indexed (listed on stderr; the rest of the\n"
	"index is complete); 2 error (bad arguments, DIR or the index unusable);\n"
	"130 interrupted (what was done is kept; the next run goes on from there).\n";

static volatile sig_atomic_t index_stop;

static void on_signal(int sig)
{
	(void)sig;
	index_stop = 1;
}

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
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

int cli_index(int argc, char **argv)
{
	const char *dir = NULL, *index = NULL;
	struct libroot lr = { 0 };
	struct indexer_opts io = { 0 };
	struct indexer_status st;
	struct progress_snap snap;
	struct indexer *ixr = NULL;
	struct sigaction sa, old_int, old_term;
	struct sbuf line;
	double t0, next, interval = 2, now;
	int quiet = 0, tty, rootfd = -1, status = 2, ret, i, drawn = 0, sigs = 0;
	char *end;

	sbuf_init(&line);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(index_usage, stdout);
			return 0;
		} else if (!strcmp(argv[i], "--index") && i + 1 < argc) {
			index = argv[++i];
		} else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
			errno = 0;
			io.threads = (unsigned)strtoul(argv[++i], &end, 10);
			if (errno || *end || !*argv[i] || io.threads > 1024) {
				fprintf(stderr, "simbook index: bad --threads '%s'\n", argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--interval") && i + 1 < argc) {
			interval = strtod(argv[++i], &end);
			if (*end || !*argv[i] || !(interval >= 0.05 && interval <= 86400)) {
				fprintf(stderr, "simbook index: bad --interval '%s'\n", argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q")) {
			quiet = 1;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "simbook index: unknown or incomplete option '%s'\n%s", argv[i],
				index_usage);
			return 2;
		} else if (!dir) {
			dir = argv[i];
		} else {
			fprintf(stderr, "%s", index_usage);
			return 2;
		}
	}
	if (!dir) {
		fprintf(stderr, "%s", index_usage);
		return 2;
	}
	ret = libroot_place(&lr, dir, index);
	if (ret) {
		if (ret == -EINVAL)
			fprintf(stderr, "simbook index: %s: the index must be outside DIR or directly "
				"in it\n", index);
		else
			fprintf(stderr, "simbook index: %s (index %s%s): %s%s\n", dir,
				index ? index : dir, index ? "" : "/" LIBROOT_INDEX_NAME,
				strerror(-ret), !index && (ret == -EACCES || ret == -EROFS) ?
				" (use --index IDXDIR for a read-only DIR)" : "");
		goto out;
	}
	rootfd = open(lr.root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		fprintf(stderr, "simbook index: %s: %s\n", lr.root, strerror(errno));
		goto out;
	}
	io.index_dir = lr.index;
	io.skip_dir = lr.hidden ? lr.index : NULL;
	ret = indexer_new(&ixr, rootfd, &io);
	if (ret) {
		fprintf(stderr, "simbook index: cannot open the index in %s: %s\n", lr.index,
			idx_strerror(ret));
		goto out;
	}
	if (idx_rebuilt(indexer_idx(ixr)) == IDX_REBUILT_KEPT) {
		uint64_t kf = 0, kp = 0;

		idx_rebuild_kept(indexer_idx(ixr), &kf, &kp);
		fprintf(stderr, "simbook index: the index in %s was from another version: "
			"rebuilding it; kept %llu files' ids and %llu \"not a duplicate\" marks\n",
			lr.index, (unsigned long long)kf, (unsigned long long)kp);
	} else if (idx_rebuilt(indexer_idx(ixr))) {
		fprintf(stderr, "simbook index: the index in %s was unreadable: rebuilding it; "
			"its \"not a duplicate\" marks are lost (the old file is kept as "
			"%s/" IDX_DAMAGED_NAME ")\n", lr.index, lr.index);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	index_stop = 0;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigs = 1;
	tty = !quiet && isatty(STDERR_FILENO);
	if (!quiet && !tty)
		fprintf(stderr, "simbook index: indexing %s into %s\n", lr.root, lr.index);
	t0 = mono_now();
	next = t0 + interval;
	ret = indexer_start(ixr);
	if (ret) {
		fprintf(stderr, "simbook index: cannot start the scan: %s\n", strerror(-ret));
		goto out;
	}
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
	       "%llu read, %llu removed, %.2f s\n", lr.root, (unsigned long long)st.files,
	       (unsigned long long)st.books, (unsigned long long)st.failed,
	       (unsigned long long)st.not_books, (unsigned long long)snap.done,
	       (unsigned long long)st.scan_removed, snap.elapsed);
	fflush(stdout);
out:
	indexer_free(ixr);
	if (sigs) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
	}
	if (rootfd >= 0)
		close(rootfd);
	libroot_release(&lr);
	sbuf_release(&line);
	return status;
}
