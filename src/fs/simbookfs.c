/* simbookfs.c - the mount daemon: parses options, opens SRC, mounts the
 * passthrough (fsops) at MNT and serves it until unmounted or signalled. */
#include "fsops.h"
#include "idxlock.h"
#include "ijournal.h"
#include "indexer.h"
#include "libroot.h"
#include "memtune.h"
#include "opener.h"
#include "rcluri.h"
#include "slog.h"
#include "views.h"
#include "fspath.h"

#include <errno.h>
#include <fuse_log.h>
#include <limits.h>
#include <pthread.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

struct sbfs_opts {
	char *src;
	char *mnt;
	int foreground;
	int debug;
	int single;
	int help;
	int version;
	int xattr;
	int idxattr;		/* -o idxattr: serve user.simbookfs.id */
	int shared;		/* allow_other or allow_root: several users */
	unsigned int cache_timeout;
	unsigned int readahead_kb;
	unsigned int max_read;
	unsigned int max_threads;
	unsigned int max_idle;
	int clone_fd;
	char *index;		/* -o index=DIR */
	char *state_dir;	/* -o state_dir=DIR: the outage journal's folder */
	char *viewprefix;	/* -o viewprefix=STR */
	char *viewmode;		/* -o viewmode=links|files */
	int noindex;		/* -o noindex: passthrough only */
	int nowatch;		/* -o nowatch: no inotify on SRC */
	int hidden;		/* -o hidden: index hidden folders too */
	int extensionless;	/* -o extensionless: text without an extension is a book */
	unsigned int rescan;	/* -o rescan=SECS */
	unsigned int index_threads;
	unsigned int claim_secs;	/* -o claim_secs=SECS (a redis:// index) */
	unsigned int test_open_delay_ms;	/* for tests only (opener.h) */
};

enum { KEY_FOREGROUND, KEY_DEBUG, KEY_SINGLE, KEY_HELP, KEY_VERSION, KEY_SHARED };

#define SBFS_OPT(t, f, v) { t, offsetof(struct sbfs_opts, f), v }
static const struct fuse_opt sbfs_opt_table[] = {
	SBFS_OPT("xattr", xattr, 1),
	SBFS_OPT("noxattr", xattr, 0),
	SBFS_OPT("idxattr", idxattr, 1),
	SBFS_OPT("noidxattr", idxattr, 0),
	SBFS_OPT("cache_timeout=%u", cache_timeout, 0),
	SBFS_OPT("readahead_kb=%u", readahead_kb, 0),
	SBFS_OPT("max_read=%u", max_read, 0),
	SBFS_OPT("max_threads=%u", max_threads, 0),
	SBFS_OPT("max_idle_threads=%u", max_idle, 0),
	SBFS_OPT("clone_fd", clone_fd, 1),
	SBFS_OPT("noclone_fd", clone_fd, 0),
	SBFS_OPT("index=%s", index, 0),
	SBFS_OPT("state_dir=%s", state_dir, 0),
	SBFS_OPT("viewprefix=%s", viewprefix, 0),
	SBFS_OPT("viewmode=%s", viewmode, 0),
	SBFS_OPT("noindex", noindex, 1),
	SBFS_OPT("nowatch", nowatch, 1),
	SBFS_OPT("hidden", hidden, 1),
	SBFS_OPT("extensionless", extensionless, 1),
	SBFS_OPT("rescan=%u", rescan, 0),
	SBFS_OPT("index_threads=%u", index_threads, 0),
	SBFS_OPT("claim_secs=%u", claim_secs, 0),
	SBFS_OPT("test_open_delay_ms=%u", test_open_delay_ms, 0),
	FUSE_OPT_KEY("allow_other", KEY_SHARED),
	FUSE_OPT_KEY("allow_root", KEY_SHARED),
	FUSE_OPT_KEY("-f", KEY_FOREGROUND),
	FUSE_OPT_KEY("-d", KEY_DEBUG),
	FUSE_OPT_KEY("debug", KEY_DEBUG),
	FUSE_OPT_KEY("-s", KEY_SINGLE),
	FUSE_OPT_KEY("-h", KEY_HELP),
	FUSE_OPT_KEY("--help", KEY_HELP),
	FUSE_OPT_KEY("-V", KEY_VERSION),
	FUSE_OPT_KEY("--version", KEY_VERSION),
	FUSE_OPT_END
};

static int sbfs_opt_proc(void *data, const char *arg, int key, struct fuse_args *outargs)
{
	struct sbfs_opts *o = data;

	(void)outargs;
	switch (key) {
	case FUSE_OPT_KEY_NONOPT:
		if (!o->src)
			return (o->src = strdup(arg)) ? 0 : -1;
		if (!o->mnt)
			return (o->mnt = strdup(arg)) ? 0 : -1;
		fprintf(stderr, "simbookfs: unexpected argument '%s'\n", arg);
		return -1;
	case KEY_FOREGROUND:
		o->foreground = 1;
		return 0;
	case KEY_DEBUG:
		/* Keep it: libfuse prints every request too. */
		o->debug = o->foreground = 1;
		return 1;
	case KEY_SINGLE:
		o->single = 1;
		return 0;
	case KEY_SHARED:
		/* kept for libfuse; the views must know other users look */
		o->shared = 1;
		return 1;
	case KEY_HELP:
		o->help = 1;
		return 0;
	case KEY_VERSION:
		o->version = 1;
		return 0;
	default:
		return 1;
	}
}

static void sbfs_usage(FILE *out)
{
	fprintf(out,
		"usage: simbookfs SRC MNT [-f] [-d] [-s] [-o opt,...]\n"
		"\n"
		"Mounts a passthrough view of the directory SRC at MNT (MNT may be SRC).\n"
		"\n"
		"  -f                     stay in the foreground\n"
		"  -d, -o debug           log every request (implies -f)\n"
		"  -s                     one thread only\n"
		"  -h, --help             this help, then libfuse's options\n"
		"  -V, --version          print the version\n"
		"\n"
		"simbookfs options:\n"
		"  -o cache_timeout=SECS  how long the kernel trusts cached names and\n"
		"                         attributes (default 3600; missing names: 1 s,\n"
		"                         -o negative_timeout=); lower it when other\n"
		"                         programs change SRC behind the mount's back\n"
		"                         (sets entry_timeout and attr_timeout, which\n"
		"                         can also be given one by one)\n"
		"  -o xattr               pass extended attributes through (default\n"
		"                         off: getxattr/setxattr fail with ENOTSUP and\n"
		"                         'ls -l' stays fast; see README)\n"
		"  -o idxattr             serve each book's id as the xattr user.simbookfs.id\n"
		"                         (default off, on with -o xattr: every getxattr\n"
		"                         then goes to the daemon, which makes 'ls -l'\n"
		"                         about 10 times slower)\n"
		"  -o readahead_kb=N      kernel read-ahead for the mount when run as\n"
		"                         root (default 2048; 0 keeps the kernel's 128)\n"
		"  -o max_read=BYTES      largest read request (default 524288, so that a\n"
		"                         read-ahead window is several requests served\n"
		"                         at once; 0: the kernel's 1 MiB)\n"
		"  -o max_threads=N       worker threads at most (default 8)\n"
		"  -o max_idle_threads=N  idle workers kept (default 4)\n"
		"  -o [no]clone_fd        one /dev/fuse fd per worker (default on)\n"
		"\n"
		"  -o index=DIR           keep the index in DIR (default: SRC/" LIBROOT_INDEX_NAME ",\n"
		"                         hidden from the mount); DIR must be outside SRC\n"
		"                         or directly in it\n"
		"  -o index=redis://HOST:PORT[\\,HOST:PORT...][/NAMESPACE]\n"
		"                         keep it in Redis or a Redis Cluster, shared by\n"
		"                         every mount of the library (no lock); while\n"
		"                         it cannot be reached the files are served as\n"
		"                         ever and changes wait in a local journal\n"
		"  -o state_dir=DIR       the folder of that journal (default\n"
		"                         $XDG_STATE_HOME/simbookfs or ~/.local/state/simbookfs)\n"
		"  -o viewprefix=STR      prefix of the view folders (default none: similar,\n"
		"                         clusters, duplicates, lookup, .simbookfs); use it\n"
		"                         when SRC has a top-level entry of one of those names\n"
		"  -o viewmode=MODE       view entries are 'links' (default: relative symlinks\n"
		"                         to the books) or 'files' (read-only files with the\n"
		"                         books' content, for clients that never follow\n"
		"                         symlinks: Syncthing, Samba, backup tools)\n"
		"  -o rescan=SECS         rescan SRC for changes made behind the mount's back\n"
		"                         every SECS seconds (default 300, 0 = only at mount)\n"
		"  -o nowatch             do not watch SRC with inotify for changes made\n"
		"                         behind the mount's back (rely on rescan=)\n"
		"  -o index_threads=N     fingerprinting threads (default: one per CPU)\n"
		"  -o claim_secs=SECS     a redis:// index shared by several mounts: a book\n"
		"                         one of them fingerprints is left to it for SECS\n"
		"                         seconds, then taken over if it died (default 60)\n"
		"  -o hidden              index files under hidden folders (.name, such as\n"
		"                         calibre's .caltrash) too; by default they are left out\n"
		"  -o extensionless       plain text files without an extension (README,\n"
		"                         COPYING) are books; by default they are not\n"
		"  -o noindex             plain passthrough: no index, no views (and no\n"
		"                         lock: it may run beside another daemon)\n"
		"\n"
		"For tests only (never set it otherwise):\n"
		"  -o test_open_delay_ms=N  pause N ms before opening the index and at\n"
		"                         every entry an upgrade or rebuild goes through,\n"
		"                         so that a short one can be watched\n"
		"\n"
		"Useful standard options: allow_other (needs root or user_allow_other),\n"
		"ro, default_permissions (always on), fsname=NAME.\n"
		"\n");
}

/* Says what a rebuild of the index kept (the "not a duplicate" marks are
 * the one thing in it no scan can make again) and what the check of its
 * file had to say. */
static void sbfs_log_rebuild(const struct idx *ix, const char *where)
{
	uint64_t files = 0, pairs = 0;
	const char *note = idx_check_note(ix);

	switch (idx_rebuilt(ix)) {
	case IDX_REBUILT_KEPT:
		idx_rebuild_kept(ix, &files, &pairs);
		slog(LOG_NOTICE, "the index of %s was from another version: rebuilding it; kept "
		     "%llu files' ids and %llu \"not a duplicate\" marks", where,
		     (unsigned long long)files, (unsigned long long)pairs);
		break;
	case IDX_REBUILT_LOST:
		slog(LOG_WARNING, "the index of %s was unreadable: rebuilding it; its \"not a "
		     "duplicate\" marks are lost (the old file is kept as " IDX_DAMAGED_NAME
		     " in the index folder)%s%s", where, note[0] ? "; the check: " : "", note);
		return;
	default:
		break;
	}
	/* readers of the check that had to be killed, and where they were */
	if (note[0])
		slog(LOG_NOTICE, "the check of the index of %s: %s", where, note);
}

/* With -d, every change the hook sees is logged, which is how the tests
 * observe the change-notification interface. */
static void sbfs_log_change(void *arg, enum fs_change what, const char *path, const char *path2)
{
	static const char *const names[] = {
		[FS_CHANGE_WRITE] = "write", [FS_CHANGE_UNLINK] = "unlink",
		[FS_CHANGE_RENAME] = "rename", [FS_CHANGE_EXCHANGE] = "exchange",
		[FS_CHANGE_LINK] = "link", [FS_CHANGE_PERM] = "perm",
	};

	(void)arg;
	fuse_log(FUSE_LOG_DEBUG, "simbookfs: change %s '%s'%s%s%s\n", names[what], path,
		 path2 ? " '" : "", path2 ? path2 : "", path2 ? "'" : "");
}

/* The index opener behind the change hook (set before requests are
 * served), and what its log lines name. */
struct sbfs_glue {
	struct opener *op;
	struct ijr *jr;		/* a shared index's outage journal, or NULL */
	struct views *views;	/* told of folder permission changes; NULL: none */
	const char *where;	/* the index's place: -o index= or SRC */
	int in_src;		/* the index is in SRC (not -o index=) */
	int debug;
};

static void sbfs_journal(struct ijr *jr, enum fs_change what, const char *path,
			 const char *path2)
{
	static const enum ijr_op ops[] = {
		[FS_CHANGE_WRITE] = IJR_WRITE, [FS_CHANGE_UNLINK] = IJR_UNLINK,
		[FS_CHANGE_RENAME] = IJR_RENAME, [FS_CHANGE_EXCHANGE] = IJR_EXCHANGE,
		[FS_CHANGE_LINK] = IJR_LINK,
	};

	if ((unsigned)what < sizeof(ops) / sizeof(ops[0]) && ops[what] &&
	    ijr_add(jr, ops[what], path, path2))
		slog(LOG_WARNING, "the journal %s refused a change: a rescan is owed",
		     ijr_path(jr));
}

static void sbfs_change(void *arg, enum fs_change what, const char *path, const char *path2)
{
	struct sbfs_glue *g = arg;
	/* NULL while the index opens: the scan after the open finds the
	 * change (opener.h) */
	struct indexer *ixr = g->op ? opener_indexer(g->op) : NULL;

	if (g->debug)
		sbfs_log_change(NULL, what, path, path2);
	if (what == FS_CHANGE_PERM) {
		if (g->views)
			views_perm_changed(g->views);
		return;
	}
	if (!ixr) {
		/* a shared index's server out of reach at mount (or opening):
		 * kept for the indexer, which replays it at its start */
		if (g->jr)
			sbfs_journal(g->jr, what, path, path2);
		return;
	}
	switch (what) {
	case FS_CHANGE_WRITE:
		indexer_written(ixr, path);
		break;
	case FS_CHANGE_UNLINK:
		indexer_unlinked(ixr, path);
		break;
	case FS_CHANGE_RENAME:
	case FS_CHANGE_EXCHANGE:
		indexer_renamed(ixr, path, path2, what == FS_CHANGE_EXCHANGE);
		break;
	case FS_CHANGE_LINK:
		indexer_linked(ixr, path, path2);
		break;
	case FS_CHANGE_PERM:
		break;
	}
}

/* The end of the background open (opener's thread): what it did, in the
 * log.  Passthrough goes on whatever happened. */
static void sbfs_opened(void *arg, struct indexer *ixr, int err)
{
	struct opener_info oi;
	struct sbfs_glue *g = arg;

	if (err == -ECANCELED) {
		slog(LOG_NOTICE, "the index of %s was not opened: unmounted meanwhile (an "
		     "upgrade or rebuild under way is done again at the next mount)", g->where);
		return;
	}
	if (err) {
		slog(LOG_ERR, "cannot open the index in %s: %s%s; serving the files, the views "
		     "stay empty", g->where, idx_strerror(err),
		     g->in_src && err != -EPROTONOSUPPORT ?
		     " (use -o index=DIR for a read-only SRC)" : "");
		return;
	}
	sbfs_log_rebuild(indexer_idx(ixr), g->where);
	opener_info(g->op, &oi);
	slog(LOG_INFO, "index of %s open after %.3f s", g->where, oi.seconds);
}

/* Raises the soft fd limit to the hard one: every file open through the
 * mount holds one fd here. */
static void sbfs_raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

struct sbfs_ra {
	char mnt[PATH_MAX];
	unsigned int kb;
};

/* The kernel offers FUSE only 128 KiB of read-ahead, so sequential reads
 * arrive in 128 KiB requests, one at a time; root may raise the mount's
 * read-ahead in sysfs.  A 2 MiB window cut into 512 KiB requests (max_read)
 * keeps four in flight, which two workers copy at once (the copy into the
 * mount's page cache is most of a first read's cost): a first read of
 * 1 GiB took 2.6-2.7x native against 3.7x with 256 KiB requests one by one.
 * Requests stay at most 512 KiB: from 1 MiB on, the reply no longer fits
 * libfuse's pipe (pipe-max-size is 1 MiB) and falls back from splice to
 * copying.  The INIT exchange caps the value, so it is written again until
 * it holds for a second.  The mount's device
 * comes from mountinfo: a stat of MNT would hold the mount busy, and a
 * umount right after mounting would fail.  Best effort: failure only
 * costs speed. */

/* The "major:minor" of the last mount at mnt into dev; 0 or -ENOENT. */
static int sbfs_mount_dev(const char *mnt, char *dev, size_t size)
{
	char line[PATH_MAX * 2], id[32], point[PATH_MAX * 2];
	int ret = -ENOENT;
	FILE *fp;

	fp = fopen("/proc/self/mountinfo", "r");
	if (!fp)
		return -errno;
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%*s %*s %31s %*s %4095s", id, point) != 2)
			continue;
		fspath_unescape_mountinfo(point);
		if (strcmp(point, mnt) == 0) {
			snprintf(dev, size, "%s", id);
			ret = 0;
		}
	}
	fclose(fp);
	return ret;
}

static void *sbfs_readahead_thread(void *arg)
{
	const struct timespec tick = { 0, 25 * 1000 * 1000 };
	struct sbfs_ra *ra = arg;
	char sys[128], dev[32], cur[32];
	unsigned int held = 0, i;
	FILE *fp;

	if (sbfs_mount_dev(ra->mnt, dev, sizeof(dev)) != 0)
		goto out;
	snprintf(sys, sizeof(sys), "/sys/class/bdi/%s/read_ahead_kb", dev);
	for (i = 0; i < 200 && held < 40; i++) {
		fp = fopen(sys, "r+");
		if (!fp)
			break;
		if (fgets(cur, sizeof(cur), fp) && strtoul(cur, NULL, 10) == ra->kb) {
			held++;
		} else {
			held = 0;
			rewind(fp);
			fprintf(fp, "%u\n", ra->kb);
		}
		fclose(fp);
		nanosleep(&tick, NULL);
	}
out:
	free(ra);
	return NULL;
}

static void sbfs_set_readahead(const char *mnt, unsigned int kb)
{
	struct sbfs_ra *ra;
	pthread_t t;

	if (!kb || geteuid() != 0 || !(ra = calloc(1, sizeof(*ra))))
		return;
	ra->kb = kb;
	snprintf(ra->mnt, sizeof(ra->mnt), "%s", mnt);
	if (pthread_create(&t, NULL, sbfs_readahead_thread, ra) != 0) {
		free(ra);
		return;
	}
	pthread_detach(t);
}

static int sbfs_serve(struct fuse *f, const struct sbfs_opts *o)
{
	struct fuse_loop_config *lc = NULL;
	int ret;

	if (o->single)
		return fuse_loop(f);
	lc = fuse_loop_cfg_create();
	if (!lc)
		return -ENOMEM;
	fuse_loop_cfg_set_clone_fd(lc, (unsigned int)o->clone_fd);
	fuse_loop_cfg_set_max_threads(lc, o->max_threads);
	fuse_loop_cfg_set_idle_threads(lc, o->max_idle);
	ret = fuse_loop_mt(f, lc);
	fuse_loop_cfg_destroy(lc);
	return ret;
}

/* Everything the daemon sets up, torn down by sbfs_cleanup().  Each step
 * below returns 0 to go on, or -1 to stop and exit with status.  Nothing is
 * created on disk until every option has been checked (fuse_new() checks
 * libfuse's): a refused command line leaves SRC as it was. */
struct sbfs {
	struct fuse_args args;
	struct sbfs_opts o;
	struct sbfs_glue glue;
	struct views *views;
	struct libroot lr;	/* SRC resolved and the index's place */
	struct idxlock *lock;	/* held on the index folder while we run */
	int index_used;		/* the index folder is ours to keep */
	char *index_dir;	/* where the index lives (sbfs_index_plan) */
	char *hidden;		/* the index folder's name in SRC, or NULL */
	char skip_dir[64];	/* the index folder for the scan, via rootfd */
	struct fs *fs;
	struct fuse *f;
	int rootfd;
	int mounted, handlers, blocked;
	sigset_t stopsigs;
	char mnt_real[PATH_MAX];	/* MNT made absolute, or "" */
	int status;		/* the exit status */
};

/* libfuse's option help with simbookfs's own defaults where they differ:
 * the name and attribute timeouts (cache_timeout) and the negative one
 * are set by sbfs_parse(), and libfuse would show its own (1 s, 0 s).
 * libfuse prints to stdout: its text goes through a temporary file. */
static void sbfs_fuse_help(struct fuse_args *args, unsigned int cache_timeout)
{
	static const struct { const char *opt; int cache; } ours[] = {
		{ "-o entry_timeout=T", 1 }, { "-o attr_timeout=T", 1 },
		{ "-o negative_timeout=T", 0 },
	};
	char line[512], *paren;
	FILE *tmp = tmpfile();
	int saved = -1;
	size_t i;

	fflush(stdout);
	if (tmp)
		saved = dup(STDOUT_FILENO);
	if (saved >= 0 && dup2(fileno(tmp), STDOUT_FILENO) < 0) {
		close(saved);
		saved = -1;
	}
	fuse_lib_help(args);
	if (saved < 0) {
		if (tmp)
			fclose(tmp);
		return;
	}
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	rewind(tmp);
	while (fgets(line, sizeof(line), tmp)) {
		for (i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
			if (strstr(line, ours[i].opt) && (paren = strrchr(line, '(')) != NULL)
				break;
		if (i == sizeof(ours) / sizeof(ours[0])) {
			fputs(line, stdout);
			continue;
		}
		if (ours[i].cache)
			printf("%.*s(simbookfs: cache_timeout, %u s)\n", (int)(paren - line), line,
			       cache_timeout);
		else
			printf("%.*s(simbookfs: 1 s)\n", (int)(paren - line), line);
	}
	fclose(tmp);
}

/* The command line: SRC, MNT and the options, with ours for libfuse put in
 * front of the user's.  -V and -h stop here (status 0), and so does a bad
 * command line (status 2, or 1 when libfuse's parser refused it). */
static int sbfs_parse(struct sbfs *s)
{
	struct sbfs_opts *o = &s->o;
	char timeouts[128];

	if (fuse_opt_parse(&s->args, o, sbfs_opt_table, sbfs_opt_proc) != 0)
		return -1;
	if (o->version) {
		printf("simbookfs %s (libfuse %s)\n", SIMBOOK_VERSION, fuse_pkgversion());
		s->status = 0;
		return -1;
	}
	if (o->help) {
		sbfs_usage(stdout);
		printf("libfuse options:\n");
		sbfs_fuse_help(&s->args, o->cache_timeout);
		s->status = 0;
		return -1;
	}
	if (!o->src || !o->mnt) {
		sbfs_usage(stderr);
		s->status = 2;
		return -1;
	}
	if (o->viewmode && strcmp(o->viewmode, "links") && strcmp(o->viewmode, "files")) {
		fprintf(stderr, "simbookfs: viewmode must be 'links' or 'files', not '%s'\n",
			o->viewmode);
		s->status = 2;
		return -1;
	}
	/* Ours go first so that explicit libfuse options later on win. */
	snprintf(timeouts, sizeof(timeouts),
		 "-oentry_timeout=%u,attr_timeout=%u,negative_timeout=1,default_permissions,"
		 "fsname=simbookfs,subtype=simbookfs",
		 o->cache_timeout, o->cache_timeout);
	if (fuse_opt_insert_arg(&s->args, 1, timeouts) != 0)
		return -1;
	/* libfuse passes max_read to the kernel and wants init() to say the
	 * same (fs_init). */
	if (o->max_read) {
		snprintf(timeouts, sizeof(timeouts), "-omax_read=%u", o->max_read);
		if (fuse_opt_add_arg(&s->args, timeouts) != 0)
			return -1;
	}
	return 0;
}

/* Says why the index folder cannot be used (ret < 0). */
static void sbfs_index_error(const struct sbfs_opts *o, int ret)
{
	fprintf(stderr, "simbookfs: index %s: %s%s\n", o->index ? o->index : "folder in SRC",
		ret == -EINVAL ? "must be outside SRC or directly in it" : strerror(-ret),
		o->index || ret == -EINVAL ? "" :
		" (use -o index=DIR for a read-only SRC, or -o noindex)");
}

/* Where the index lives, by the rules of libroot.h, nothing created yet:
 * s->index_dir (usable after daemonizing and even when MNT is SRC: a folder
 * inside SRC is reached through rootfd's /proc link) and s->hidden (the
 * top-level SRC name to hide, or NULL). */
static int sbfs_index_plan(struct sbfs *s)
{
	int ret;

	ret = libroot_plan(&s->lr, s->o.src, s->o.index);
	if (ret)
		return ret;
	if (!s->lr.hidden) {
		/* Outside SRC. */
		s->index_dir = strdup(s->lr.index);
		return s->index_dir ? 0 : -ENOMEM;
	}
	s->hidden = strdup(s->lr.hidden);
	if (!s->hidden || asprintf(&s->index_dir, "/proc/self/fd/%d/%s", s->rootfd,
				   s->hidden) < 0) {
		s->index_dir = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* The index's place and the views on fs (not with -o noindex). */
static int sbfs_setup_views(struct sbfs *s)
{
	const struct sbfs_opts *o = &s->o;
	int ret;

	ret = sbfs_index_plan(s);
	if (ret) {
		sbfs_index_error(o, ret);
		return -1;
	}
	ret = views_new(&s->views, s->rootfd, o->viewprefix ? o->viewprefix : "", s->hidden);
	if (!ret) {
		views_set_files(s->views, o->viewmode && !strcmp(o->viewmode, "files"));
		views_set_library(s->views, s->lr.root, s->lr.index);
		views_set_shared(s->views, o->shared);
	}
	if (!ret && s->hidden)
		ret = fs_hide_name(s->fs, s->hidden);
	if (!ret)
		ret = views_register(s->views, s->fs);
	if (!ret)
		s->glue.views = s->views;
	/* Any xattr handler makes the kernel ask the daemon for every
	 * getxattr (ls -l asks two per file: 10k files 0.08 -> 1 s). */
	if (!ret && !o->idxattr && !o->xattr)
		fs_set_xattr_hook(s->fs, NULL, NULL);
	if (ret) {
		fprintf(stderr, "simbookfs: views: %s\n", ret == -EINVAL ?
			"bad viewprefix (no '/' allowed, names must differ)" : strerror(-ret));
		return -1;
	}
	return 0;
}

/* 0 when path (SRC or MNT, named by what) is a directory, else -1 after
 * saying why not.  Mounting over a file would make it answer EIO until
 * unmounted. */
static int sbfs_check_dir(const char *path, const char *what)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "simbookfs: %s %s: %s\n", what, path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "simbookfs: %s %s: not a directory\n", what, path);
		return -1;
	}
	return 0;
}

/* SRC opened, the passthrough on it with the change hook, and the views
 * unless -o noindex. */
static int sbfs_setup(struct sbfs *s)
{
	struct fs_options fo = { 0 };
	struct stat st;
	int ret;

	if (sbfs_check_dir(s->o.src, "SRC") || sbfs_check_dir(s->o.mnt, "MNT"))
		return -1;
	if (!realpath(s->o.mnt, s->mnt_real))
		s->mnt_real[0] = '\0';
	/* Opened before mounting, so MNT may be SRC itself. */
	s->rootfd = open(s->o.src, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->rootfd < 0 || fstat(s->rootfd, &st) < 0) {
		fprintf(stderr, "simbookfs: %s: %s\n", s->o.src, strerror(errno));
		return -1;
	}
	/* The kernel applies the caller's umask before asking us. */
	umask(0);
	sbfs_raise_nofile();
	fo.xattr = s->o.xattr;
	fo.max_read = s->o.max_read;
	ret = fs_new(&s->fs, s->rootfd, &fo);
	if (ret) {
		fprintf(stderr, "simbookfs: %s\n", strerror(-ret));
		return -1;
	}
	s->glue.debug = s->o.debug;
	fs_set_change_hook(s->fs, sbfs_change, &s->glue);
	if (!s->o.noindex)
		return sbfs_setup_views(s);
	return 0;
}

/* The index folder created when missing, checked writable, and locked for
 * the daemon's life: a second daemon on this library, or on another one
 * with the same -o index=, and `simbook index` are refused (exit status
 * 3), naming the holder.  -o noindex opens no index and takes no lock. */
static int sbfs_claim_index(struct sbfs *s)
{
	struct idxlock_holder h;
	char why[2 * PATH_MAX + 128];
	int ret;

	if (!s->views)
		return 0;
	/* a Redis index is shared by design: no folder, no lock */
	if (rcluri_is_uri(s->lr.index))
		return 0;
	ret = libroot_create(&s->lr);
	/* The index opens after daemonizing, when errors can no longer be
	 * shown: check now that its folder can be written. */
	if (!ret)
		ret = access(s->lr.index, W_OK) < 0 ? -errno : 0;
	if (ret) {
		sbfs_index_error(&s->o, ret);
		return -1;
	}
	ret = idxlock_take(&s->lock, s->index_dir, IDXLOCK_PROG_DAEMON, s->lr.root,
			   *s->mnt_real ? s->mnt_real : s->o.mnt, &h);
	if (ret == -EBUSY) {
		idxlock_describe(&h, why, sizeof(why));
		if (!*h.src || !strcmp(h.src, s->lr.root))
			fprintf(stderr, "simbookfs: %s\n", why);
		else
			fprintf(stderr, "simbookfs: the index %s is in use: %s\n", s->lr.index, why);
		s->status = 3;
		return -1;
	}
	if (ret) {
		fprintf(stderr, "simbookfs: cannot lock the index %s: %s\n", s->lr.index,
			strerror(-ret));
		return -1;
	}
	return 0;
}

/* The FUSE session: created (libfuse checks its options), the index folder
 * claimed, mounted at MNT and daemonized (unless -f), with the log going to
 * syslog from then on and the stop signals blocked until sbfs_run(). */
static int sbfs_session(struct sbfs *s)
{
	struct fuse_operations ops;
	int ret;

	fs_get_operations(s->fs, &ops);
	s->f = fuse_new(&s->args, &ops, sizeof(ops), s->fs);
	if (!s->f || sbfs_claim_index(s))
		return -1;
	/* Before mounting: a signal that comes once the mount is visible must
	 * end the loop and unmount.  libfuse only catches signals left at
	 * their default, and a daemon started in the background of a script
	 * inherits SIGINT ignored (it would then be lost).  The handlers
	 * survive fuse_daemonize()'s fork. */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (fuse_set_signal_handlers(fuse_get_session(s->f)) != 0)
		return -1;
	s->handlers = 1;
	/* Absolute: fuse_daemonize() changes to "/" and the unmount at exit
	 * uses the same string. */
	if (fuse_mount(s->f, *s->mnt_real ? s->mnt_real : s->o.mnt) != 0)
		return -1;
	s->mounted = 1;
	if (fuse_daemonize(s->o.foreground) != 0)
		return -1;
	/* From here on stderr is /dev/null unless -f: log to syslog. */
	slog_open("simbookfs", !s->o.foreground);
	fuse_set_log_func(slog_fuse);
	/* The lock came through the fork (flock() locks belong to the open
	 * file, which the child shares); the record names the child now. */
	ret = s->lock ? idxlock_refresh(s->lock) : 0;
	if (ret)
		slog(LOG_WARNING, "cannot record this daemon in the index's lock: %s",
		     strerror(-ret));
	/* Our threads (and theirs) start with the stop signals blocked, like
	 * libfuse's workers: the kernel may hand a process signal to any
	 * thread that takes it, and only the main thread's wait in the loop
	 * is woken by it.  One that comes meanwhile waits until the loop. */
	sigemptyset(&s->stopsigs);
	sigaddset(&s->stopsigs, SIGINT);
	sigaddset(&s->stopsigs, SIGTERM);
	sigaddset(&s->stopsigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &s->stopsigs, NULL);
	s->blocked = 1;
	return 0;
}

/* A shared index's outage journal (ijournal.h), when the index is one;
 * without it (no state folder) changes made while the server is out of
 * reach are found by the scans. */
static void sbfs_open_journal(struct sbfs *s)
{
	char path[PATH_MAX];
	int ret;

	if (!rcluri_is_uri(s->lr.index))
		return;
	ret = ijr_place(s->o.state_dir, s->lr.index, s->lr.root, path, sizeof(path));
	if (!ret)
		ret = ijr_open(path, 0, &s->glue.jr);
	if (ret) {
		slog(LOG_WARNING, "no outage journal for %s (%s): changes made while its server "
		     "is out of reach are found by the next scan", s->lr.index,
		     ret == -EINVAL ? "no state folder: -o state_dir=DIR" : strerror(-ret));
		return;
	}
	views_set_journal(s->views, s->glue.jr);
}

/* The index's background open and the views' threads (when there are
 * views).  After daemonizing: LMDB and threads do not survive fork().  The
 * index opens in the background (an upgrade or rebuild can take minutes):
 * SRC is served meanwhile. */
static int sbfs_start_index(struct sbfs *s)
{
	struct opener_opts oo = { 0 };
	int ret;

	if (!s->views)
		return 0;
	s->index_used = 1;
	oo.io.index_dir = s->index_dir;
	if (s->hidden) {
		snprintf(s->skip_dir, sizeof(s->skip_dir), "/proc/self/fd/%d/%s", s->rootfd,
			 s->hidden);
		oo.io.skip_dir = s->skip_dir;
	}
	oo.io.threads = s->o.index_threads;
	oo.io.rescan_secs = s->o.rescan;
	oo.io.no_watch = s->o.nowatch;
	oo.io.claim_secs = s->o.claim_secs;
	oo.io.include_hidden = s->o.hidden;
	oo.io.extensionless = s->o.extensionless;
	oo.io.notify = views_changed;
	oo.io.notify_arg = s->views;
	sbfs_open_journal(s);
	oo.io.journal = s->glue.jr;
	oo.opened = sbfs_opened;
	oo.arg = &s->glue;
	oo.test_delay_ms = s->o.test_open_delay_ms;
	s->glue.where = s->o.index ? s->o.index : s->o.src;
	s->glue.in_src = !s->o.index;
	ret = opener_new(&s->glue.op, s->rootfd, &oo);
	if (!ret) {
		views_attach(s->views, s->glue.op);
		ret = views_start(s->views, s->f);
	}
	if (!ret)
		ret = opener_start(s->glue.op);
	if (ret) {
		slog(LOG_ERR, "cannot start indexing: %s", strerror(-ret));
		return -1;
	}
	return 0;
}

/* Serves the mount until it is unmounted or a stop signal comes. */
static void sbfs_run(struct sbfs *s)
{
	int ret;

	if (*s->mnt_real)
		sbfs_set_readahead(s->mnt_real, s->o.readahead_kb);
	pthread_sigmask(SIG_UNBLOCK, &s->stopsigs, NULL);
	s->blocked = 0;
	slog(LOG_INFO, "serving %s at %s%s", s->o.src, s->o.mnt, s->views ? "" : " (noindex)");
	ret = sbfs_serve(s->f, &s->o);
	/* libfuse reports the signal that ended the loop: a clean exit. */
	s->status = ret == 0 || ret == SIGTERM || ret == SIGINT || ret == SIGHUP ? 0 : 1;
}

/* Undoes whatever the steps did, in reverse. */
static void sbfs_cleanup(struct sbfs *s)
{
	if (s->blocked)
		pthread_sigmask(SIG_UNBLOCK, &s->stopsigs, NULL);
	/* Threads that call into FUSE or the index stop first. */
	views_stop(s->views);
	opener_free(s->glue.op);
	s->glue.op = NULL;
	views_set_journal(s->views, NULL);
	ijr_free(s->glue.jr);
	s->glue.jr = NULL;
	if (s->mounted) {
		fuse_unmount(s->f);
		slog(s->status ? LOG_ERR : LOG_INFO, "unmounted %s%s", s->o.mnt,
		     s->status ? " after an error" : "");
	}
	slog_close();
	if (s->handlers)
		fuse_remove_signal_handlers(fuse_get_session(s->f));
	if (s->f)
		fuse_destroy(s->f);
	if (s->fs)
		fs_free(s->fs);
	views_free(s->views);
	/* Last, once the index is closed.  A folder made for a mount that
	 * never served is taken away again. */
	if (s->lr.created && !s->index_used) {
		idxlock_free(s->lock, 1);
		rmdir(s->index_dir);
	} else {
		idxlock_free(s->lock, 0);
	}
	libroot_release(&s->lr);
	free(s->index_dir);
	free(s->hidden);
	if (s->rootfd >= 0)
		close(s->rootfd);
	fuse_opt_free_args(&s->args);
	free(s->o.src);
	free(s->o.mnt);
	free(s->o.index);
	free(s->o.state_dir);
	free(s->o.viewprefix);
	free(s->o.viewmode);
}

int main(int argc, char **argv)
{
	struct sbfs s = {
		.args = FUSE_ARGS_INIT(argc, argv),
		.o = { .cache_timeout = 3600, .readahead_kb = 2048, .max_read = 512 * 1024,
		       .max_threads = 8, .max_idle = 4, .clone_fd = 1, .rescan = 300 },
		.rootfd = -1,
		.status = 1,
	};

	memtune_init();
	if (!sbfs_parse(&s) && !sbfs_setup(&s) && !sbfs_session(&s) && !sbfs_start_index(&s))
		sbfs_run(&s);
	sbfs_cleanup(&s);
	return s.status;
}
