/* cli_dedup.c - `simbook dedup`: keeps one member of each group of
 * duplicates and deletes, links, reflinks or moves the others.
 *
 * Groups come from the mount's duplicates/ or clusters/ views (a path on a
 * mount), from `simbook duplicates|clusters --json` run on the library (a
 * path in an unmounted library), or from such JSON lines given with --from.
 * The files are read once to plan (identical-file groups are split by their
 * bytes), and each file is checked again right before it is touched; a
 * library served by a mount elsewhere is acted on through that mount, so the
 * views follow.  Nothing ever touches the kept member of a group.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#include <linux/fs.h>
#include <unistd.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "book.h"
#include "cli.h"
#include "dedupplan.h"
#include "idxlock.h"
#include "jsonw.h"
#include "libroot.h"
#include "rcluri.h"
#include "sbuf.h"

static const char dedup_usage[] =
	"usage: simbook dedup [PATH] [--from FILE|-] [--relation REL] [KEEP RULES...]\n"
	"                     [--print|--delete|--hardlink|--symlink|--reflink|--move-to DIR]\n"
	"                     [--yes-different-bytes] [-0|--json] [--index IDXDIR] [--root DIR]\n"
	"Keeps one file of each group of duplicates and acts on the others.\n"
	"Groups: of the library or mount holding PATH (default: the current folder),\n"
	"those with a member inside PATH; on a mount read from its views, else from\n"
	"the library's index (--index, --root as for simbook duplicates); with\n"
	"--from, from the JSON lines of `simbook duplicates|clusters --json`.\n"
	"  --relation identical-file  byte copies (default; split out of the\n"
	"                             same-text groups by comparing the bytes)\n"
	"             same-text       the same normalised text, any format\n"
	"             near-duplicate  the clusters of near duplicates\n"
	"Keep rules, applied in the order given, then the shortest path:\n"
	"  --keep oldest|newest|largest|smallest|shortest-path\n"
	"  --prefer PATH-PREFIX       files at or below this folder first\n"
	"  --prefer-format LIST       by extension in this order, e.g. epub,azw3,pdf,txt\n"
	"  (default: --keep oldest)\n"
	"Actions on every file but the kept one:\n"
	"  --print        dry run (default): what is kept, what would go, bytes reclaimed\n"
	"  --delete       remove it\n"
	"  --hardlink     replace it by a hard link to the kept file (same filesystem)\n"
	"  --symlink      replace it by a relative symbolic link to the kept file\n"
	"  --reflink      replace it by a copy-on-write clone of the kept file (FICLONE)\n"
	"  --move-to DIR  move it to DIR, under its path relative to the library\n"
	"  --yes-different-bytes  required to act on same-text or near-duplicate\n"
	"                 groups, whose files are not byte copies\n"
	"  --pause-before-act  (for tests) stop (SIGSTOP) between plan and action\n"
	"Right before acting, each file is compared again with the kept file (the\n"
	"bytes; the text for same-text; unchanged since the plan for near-duplicate)\n"
	"and skipped when it changed.  A library served by simbookfs is changed\n"
	"through its mount.  Names already hard-linked to the kept file are left.\n"
	"Output: one line per file, RESULT TAB ACTION TAB PATH [TAB (reason)], RESULT\n"
	"keep, would (dry run), done, skipped or failed; '# group' lines; a summary.\n"
	"  -0             the same records ending in NUL, no group lines, the\n"
	"                 summary and reasons on stderr\n"
	"  --json         one object per file: {\"group\",\"result\",\"action\",\"path\",\n"
	"                 \"abs\",\"kept\",\"size\",\"reason\"}, then {\"summary\":{...}}\n"
	"Exit status (grep's convention): 0 found (dry run) or acted on a file, 1 no\n"
	"group or nothing acted on, 2 error or a failed action, 130 interrupted\n"
	"(SIGINT/SIGTERM: the current file is finished, no group loses its last file).\n";

enum dd_rel { REL_IDENT, REL_TEXT, REL_NEAR };
enum dd_act { ACT_PRINT, ACT_DELETE, ACT_HARDLINK, ACT_SYMLINK, ACT_REFLINK, ACT_MOVE };

static const char *const act_name[] = { "delete", "delete", "hardlink", "symlink", "reflink",
					"move" };
static const char *const rel_name[] = { "identical-file", "same-text", "near-duplicate" };

struct dd_opts {
	const char *path, *from, *index, *root, *move_to;
	enum dd_rel rel;
	enum dd_act act;
	struct dd_rules rules;
	int nul, json, yes_diff, pause;
	char *resolved[DD_RULES_MAX];	/* --prefer folders, resolved */
	size_t nresolved;
};

struct dd_set {
	size_t n;
	struct dd_group *g;
};

struct dd_sum {
	size_t groups, kept, done, would, skipped, failed;
	uint64_t bytes;
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* ---- options ---- */

static int bad_opt(const char *what)
{
	fprintf(stderr, "simbook dedup: %s (see simbook dedup --help)\n", what);
	return 2;
}

/* Returns -1 to go on, else the exit status. */
static int dd_parse(int argc, char **argv, struct dd_opts *o)
{
	enum { O_FROM = 256, O_REL, O_KEEP, O_PREFER, O_PFMT, O_PRINT, O_DELETE, O_HARD, O_SYM,
	       O_REF, O_MOVE, O_YES, O_JSON, O_INDEX, O_ROOT, O_PAUSE };
	static const struct option lo[] = {
		{ "help", no_argument, NULL, 'h' }, { "from", required_argument, NULL, O_FROM },
		{ "relation", required_argument, NULL, O_REL },
		{ "keep", required_argument, NULL, O_KEEP },
		{ "prefer", required_argument, NULL, O_PREFER },
		{ "prefer-format", required_argument, NULL, O_PFMT },
		{ "print", no_argument, NULL, O_PRINT }, { "delete", no_argument, NULL, O_DELETE },
		{ "hardlink", no_argument, NULL, O_HARD }, { "symlink", no_argument, NULL, O_SYM },
		{ "reflink", no_argument, NULL, O_REF },
		{ "move-to", required_argument, NULL, O_MOVE },
		{ "yes-different-bytes", no_argument, NULL, O_YES },
		{ "json", no_argument, NULL, O_JSON }, { "index", required_argument, NULL, O_INDEX },
		{ "root", required_argument, NULL, O_ROOT },
		/* for tests: stops (SIGSTOP) between the plan and the first action */
		{ "pause-before-act", no_argument, NULL, O_PAUSE },
		{ NULL, 0, NULL, 0 }
	};
	char msg[PATH_MAX + 64];
	int c, acts = 0, ret;

	memset(o, 0, sizeof(*o));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h0", lo, NULL)) != -1) {
		ret = 0;
		switch (c) {
		case 'h': fputs(dedup_usage, stdout); return 0;
		case '0': o->nul = 1; break;
		case O_FROM: o->from = optarg; break;
		case O_REL:
			for (o->rel = REL_IDENT; o->rel <= REL_NEAR; o->rel++)
				if (!strcmp(optarg, rel_name[o->rel]))
					break;
			if (o->rel > REL_NEAR) {
				snprintf(msg, sizeof(msg), "unknown relation '%s' for --relation",
					 optarg);
				return bad_opt(msg);
			}
			break;
		case O_KEEP:
			ret = dd_rules_keep(&o->rules, optarg);
			if (ret == -EINVAL) {
				snprintf(msg, sizeof(msg), "unknown rule '%s' for --keep", optarg);
				return bad_opt(msg);
			}
			break;
		case O_PREFER:
			/* compared with the absolute paths of the members */
			if (o->nresolved < DD_RULES_MAX &&
			    (o->resolved[o->nresolved] = realpath(optarg, NULL)))
				optarg = o->resolved[o->nresolved++];
			ret = dd_rules_add(&o->rules, DD_PREFER_PREFIX, optarg);
			break;
		case O_PFMT: ret = dd_rules_add(&o->rules, DD_PREFER_FORMAT, optarg); break;
		case O_PRINT: o->act = ACT_PRINT; acts++; break;
		case O_DELETE: o->act = ACT_DELETE; acts++; break;
		case O_HARD: o->act = ACT_HARDLINK; acts++; break;
		case O_SYM: o->act = ACT_SYMLINK; acts++; break;
		case O_REF: o->act = ACT_REFLINK; acts++; break;
		case O_MOVE: o->act = ACT_MOVE; o->move_to = optarg; acts++; break;
		case O_YES: o->yes_diff = 1; break;
		case O_JSON: o->json = 1; break;
		case O_INDEX: o->index = optarg; break;
		case O_ROOT: o->root = optarg; break;
		case O_PAUSE: o->pause = 1; break;
		case ':':
			snprintf(msg, sizeof(msg), "option '%s' needs a value", argv[optind - 1]);
			return bad_opt(msg);
		default:
			if (optopt && strncmp(argv[optind - 1], "--", 2))
				snprintf(msg, sizeof(msg), "unknown option '-%c'", optopt);
			else if (optopt)
				snprintf(msg, sizeof(msg), "option '%.*s' takes no value",
					 (int)strcspn(argv[optind - 1], "="), argv[optind - 1]);
			else
				snprintf(msg, sizeof(msg), "unknown option '%s'", argv[optind - 1]);
			return bad_opt(msg);
		}
		if (ret)
			return bad_opt(ret == -E2BIG ? "too many keep rules" : "empty rule argument");
	}
	if (optind < argc)
		o->path = argv[optind++];
	if (optind < argc)
		return bad_opt("one PATH at most");
	if (acts > 1)
		return bad_opt("one action at most");
	if (o->nul && o->json)
		return bad_opt("-0 and --json exclude each other");
	if (o->from && (o->path || o->index || o->root))
		return bad_opt("--from takes no PATH, --index or --root");
	if (o->act != ACT_PRINT && o->rel != REL_IDENT && !o->yes_diff)
		return bad_opt("acting on same-text or near-duplicate groups needs "
			       "--yes-different-bytes (their files are not byte copies)");
	if (!o->rules.n)
		dd_rules_keep(&o->rules, "oldest");
	return -1;
}

/* ---- reading the groups ---- */

static int set_add(struct dd_set *s, struct dd_group *g)
{
	struct dd_group *v = realloc(s->g, (s->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	s->g = v;
	s->g[s->n++] = *g;
	memset(g, 0, sizeof(*g));
	return 0;
}

static void set_release(struct dd_set *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		dd_group_release(&s->g[i]);
	free(s->g);
	s->n = 0;
	s->g = NULL;
}

/* Parses JSON lines from the whole of buf into s; 0, -EINVAL (after
 * naming the line), -ENOMEM. */
static int read_json(const char *buf, size_t len, const char *name, struct dd_set *s)
{
	const char *p = buf, *end = buf + len, *nl;
	struct dd_group g;
	size_t line = 0;
	int ret;

	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		line++;
		if (nl == p || (nl - p == 1 && *p == '\r'))
			continue;
		ret = dd_json_group(p, (size_t)(nl - p), &g);
		if (!ret)
			ret = set_add(s, &g);
		dd_group_release(&g);
		if (ret == -EINVAL)
			fprintf(stderr, "simbook dedup: %s:%zu: not a group line of simbook "
				"duplicates|clusters --json\n", name, line);
		if (ret)
			return ret;
	}
	return 0;
}

static int slurp_fd(int fd, struct sbuf *out)
{
	ssize_t n;
	int ret;

	for (;;) {
		ret = sbuf_grow(out, 65536);
		if (ret)
			return ret;
		n = read(fd, out->buf + out->len, 65536);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		out->len += (size_t)n;
	}
}

/* --from FILE or -. 0 or 2 (printed). */
static int groups_from(const char *from, struct dd_set *s)
{
	struct sbuf in;
	int fd, ret;

	sbuf_init(&in);
	fd = strcmp(from, "-") ? open(from, O_RDONLY | O_CLOEXEC) : 0;
	if (fd < 0) {
		fprintf(stderr, "simbook dedup: %s: %s\n", from, strerror(errno));
		return 2;
	}
	ret = slurp_fd(fd, &in);
	if (fd)
		close(fd);
	if (ret)
		fprintf(stderr, "simbook dedup: %s: %s\n", from, strerror(-ret));
	else
		ret = read_json(in.buf, in.len, strcmp(from, "-") ? from : "stdin", s);
	sbuf_release(&in);
	return ret ? 2 : 0;
}

/* Runs this program's `duplicates|clusters --json` on the library; 0, 1
 * (no group) or 2 (it printed why). */
static int groups_query(const struct dd_opts *o, struct dd_set *s)
{
	const char *av[10];
	struct sbuf out;
	int pfd[2], st, ret, n = 0;
	pid_t pid;

	av[n++] = "simbook";
	av[n++] = o->rel == REL_NEAR ? "clusters" : "duplicates";
	av[n++] = "--json";
	if (o->index) {
		av[n++] = "--index";
		av[n++] = o->index;
	}
	if (o->root) {
		av[n++] = "--root";
		av[n++] = o->root;
	}
	av[n++] = "--";
	av[n++] = o->path ? o->path : ".";
	av[n] = NULL;
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return 2;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return 2;
	}
	if (pid == 0) {
		dup2(pfd[1], 1);
		execv("/proc/self/exe", (char **)av);
		_exit(127);
	}
	close(pfd[1]);
	sbuf_init(&out);
	ret = slurp_fd(pfd[0], &out);
	close(pfd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!ret && WIFEXITED(st) && WEXITSTATUS(st) <= 1)
		ret = read_json(out.buf, out.len, "simbook duplicates", s) ? 2 :
			WEXITSTATUS(st);
	else
		ret = 2;
	sbuf_release(&out);
	return ret;
}

/* The entries of one group folder of the views (links to the books). */
static int view_group(const char *mnt, const char *gdir, struct dd_group *g)
{
	char link[PATH_MAX], full[PATH_MAX * 2 + 2], real[PATH_MAX];
	struct dd_member *m;
	struct dirent *de;
	size_t nm = strlen(mnt);
	ssize_t n;
	DIR *d;
	int ret = 0;

	d = opendir(gdir);
	if (!d)
		return -errno;
	while (!ret && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if ((size_t)snprintf(full, sizeof(full), "%s/%s", gdir, de->d_name) >= sizeof(full))
			continue;
		n = readlink(full, link, sizeof(link) - 1);
		if (n < 0) {
			ret = errno == EINVAL ? -EMEDIUMTYPE : -errno;
			break;
		}
		link[n] = '\0';
		if ((size_t)snprintf(full, sizeof(full), "%s/%s", gdir, link) >= sizeof(full))
			continue;
		if (!realpath(full, real) || strncmp(real, mnt, nm) || real[nm] != '/')
			continue;	/* gone since the listing */
		m = realloc(g->m, (g->n + 1) * sizeof(*m));
		if (!m) {
			ret = -ENOMEM;
			break;
		}
		g->m = m;
		m = &g->m[g->n++];
		memset(m, 0, sizeof(*m));
		m->abs = strdup(real);
		m->path = strdup(real + nm + 1);
		if (!m->abs || !m->path)
			ret = -ENOMEM;
	}
	closedir(d);
	return ret;
}

/* The groups of the mount at mnt (its views).  0, 2 (printed), or 3 when
 * its view entries are files (-o viewmode=files), not links. */
static int groups_mount(const char *mnt, const struct dd_opts *o, struct dd_set *s)
{
	char vdir[PATH_MAX], gdir[PATH_MAX * 2];
	struct dd_group g = { 0, NULL };
	struct dirent *de;
	DIR *d;
	int ret = 0;

	snprintf(vdir, sizeof(vdir), "%s/%s", mnt, o->rel == REL_NEAR ? "clusters" : "duplicates");
	d = opendir(vdir);
	if (!d) {
		fprintf(stderr, "simbook dedup: %s: %s\n", vdir, strerror(errno));
		return 2;
	}
	while (!ret && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(gdir, sizeof(gdir), "%s/%s", vdir, de->d_name);
		ret = view_group(mnt, gdir, &g);
		if (!ret)
			ret = set_add(s, &g);
		dd_group_release(&g);
	}
	closedir(d);
	if (ret == -EMEDIUMTYPE)
		return 3;	/* -o viewmode=files: no links to follow */
	if (ret)
		fprintf(stderr, "simbook dedup: %s: %s\n", vdir, strerror(-ret));
	return ret ? 2 : 0;
}

/* Keeps the groups with a member at or below scope (absolute). */
static void set_scope(struct dd_set *s, const char *scope)
{
	size_t i, j, n = 0, len = strlen(scope);
	int hit;

	for (i = 0; i < s->n; i++) {
		for (j = 0, hit = 0; j < s->g[i].n && !hit; j++)
			hit = len == 1 || (!strncmp(s->g[i].m[j].abs, scope, len) &&
					   (!s->g[i].m[j].abs[len] || s->g[i].m[j].abs[len] == '/'));
		if (hit)
			s->g[n++] = s->g[i];
		else
			dd_group_release(&s->g[i]);
	}
	s->n = n;
}

/* The mount serving the library whose members s lists, if any: *mnt "" when
 * none.  The library is the part of abs before path.  An index in Redis
 * has no lock naming its mount (any number of mounts may share it): none
 * is found, and the changes reach them through their watch. */
static void served_at(const struct dd_set *s, const char *index, char mnt[PATH_MAX])
{
	struct idxlock_holder h;
	struct idxlock *lk = NULL;
	char root[PATH_MAX], dir[PATH_MAX];
	const struct dd_member *m;
	size_t la, lp;

	mnt[0] = '\0';
	if (!s->n || !s->g[0].n || (index && rcluri_is_uri(index)))
		return;
	m = &s->g[0].m[0];
	la = strlen(m->abs);
	lp = strlen(m->path);
	if (lp >= la || strcmp(m->abs + la - lp, m->path) || la - lp - 1 >= sizeof(root))
		return;
	memcpy(root, m->abs, la - lp - 1);
	root[la - lp - 1] = '\0';
	if ((size_t)snprintf(dir, sizeof(dir), "%s/%s", root, LIBROOT_INDEX_NAME) >= sizeof(dir))
		return;
	if (!index)
		index = dir;
	memset(&h, 0, sizeof(h));
	/* The lock is free unless a daemon or an indexer holds it: taken, it
	 * is given back at once. */
	if (idxlock_take(&lk, index, "simbook dedup", root, NULL, &h) == -EBUSY &&
	    !strcmp(h.prog, IDXLOCK_PROG_DAEMON) && h.mnt[0] && !strcmp(h.src, root))
		snprintf(mnt, PATH_MAX, "%s", h.mnt);
	idxlock_free(lk, 0);
}

/* Fills each member's act: through mnt when given, else its abs. */
static int set_act(struct dd_set *s, const char *mnt)
{
	size_t i, j;
	struct dd_member *m;

	for (i = 0; i < s->n; i++)
		for (j = 0; j < s->g[i].n; j++) {
			m = &s->g[i].m[j];
			if (*mnt && asprintf(&m->act, "%s/%s", mnt, m->path) < 0)
				m->act = NULL;
			else if (!*mnt)
				m->act = strdup(m->abs);
			if (!m->act)
				return -ENOMEM;
		}
	return 0;
}

/* All the groups for the options: 0, 1 (none) or 2 (printed). */
static int dd_groups(const struct dd_opts *o, struct dd_set *s, int *via_mount)
{
	char p[PATH_MAX], mnt[PATH_MAX] = "";
	char *vroot = NULL;
	int ret;

	*via_mount = 0;
	if (o->from) {
		ret = groups_from(o->from, s);
	} else if (!realpath(o->path ? o->path : ".", p)) {
		fprintf(stderr, "simbook dedup: %s: %s\n", o->path ? o->path : ".",
			strerror(errno));
		return 2;
	} else if (!o->index && !o->root &&
		   libroot_above(p, ".simbookfs/status", &vroot) == 0) {
		ret = groups_mount(vroot, o, s);
		if (ret == 3) {
			/* the entries are files, not links to the books: the
			 * same groups as JSON, the query reading the mount's
			 * index through the mount (paths under the mount) */
			set_release(s);
			ret = groups_query(o, s);
		} else if (!ret) {
			set_scope(s, p);
		}
		snprintf(mnt, sizeof(mnt), "%s", vroot);
		free(vroot);
		*via_mount = 1;
	} else {
		ret = groups_query(o, s);
	}
	if (ret)
		return ret;
	if (!*via_mount) {
		served_at(s, o->index, mnt);
		*via_mount = !!*mnt;
	}
	if (set_act(s, *via_mount ? mnt : "")) {
		fprintf(stderr, "simbook dedup: %s\n", strerror(ENOMEM));
		return 2;
	}
	return s->n ? 0 : 1;
}

/* ---- planning ---- */

/* XXH3-128 of the file at path (opened without following a last link),
 * and its stat.  0 or -errno (-EINVAL: not a regular file). */
static int hash_file(const char *path, struct stat *st, uint8_t out[16])
{
	XXH3_state_t *x;
	XXH128_canonical_t c;
	char buf[65536];
	ssize_t n;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return errno == ELOOP ? -EINVAL : -errno;
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
		ret = S_ISREG(st->st_mode) ? -errno : -EINVAL;
		close(fd);
		return ret;
	}
	x = XXH3_createState();
	if (!x || XXH3_128bits_reset(x) != XXH_OK) {
		XXH3_freeState(x);
		close(fd);
		return -ENOMEM;
	}
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			break;
		}
		XXH3_128bits_update(x, buf, (size_t)n);
	}
	XXH128_canonicalFromHash(&c, XXH3_128bits_digest(x));
	memcpy(out, c.digest, 16);
	XXH3_freeState(x);
	close(fd);
	return ret;
}

/* Reads every member as it is now; members gone or unreadable are dropped
 * (with a warning), so are names of a file already listed (hard links). */
static int plan_stat(struct dd_group *g)
{
	struct stat st;
	size_t i, j, n = 0;
	int ret, dup;

	for (i = 0; i < g->n; i++) {
		struct dd_member *m = &g->m[i];

		ret = hash_file(m->act, &st, m->hash);
		if (ret == -ENOMEM)
			return ret;
		if (ret)
			fprintf(stderr, "simbook dedup: warning: %s: %s: left out\n", m->act,
				ret == -EINVAL ? "not a regular file" : strerror(-ret));
		else {
			m->dev = st.st_dev;
			m->ino = st.st_ino;
			m->nlink = st.st_nlink;
			m->size = (uint64_t)st.st_size;
			m->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 +
				      st.st_mtim.tv_nsec;
		}
		for (j = 0, dup = 0; j < n && !ret; j++)
			dup |= g->m[j].dev == m->dev && g->m[j].ino == m->ino;
		if (ret || dup) {
			free(m->path);
			free(m->abs);
			free(m->act);
			continue;
		}
		g->m[n++] = *m;
	}
	g->n = n;
	return 0;
}

static int by_bytes(const void *pa, const void *pb)
{
	const struct dd_member *a = pa, *b = pb;

	if (a->size != b->size)
		return a->size < b->size ? -1 : 1;
	return memcmp(a->hash, b->hash, 16);
}

/* Splits g into runs of the same size and content hash; groups of two or
 * more go to out, g is emptied. */
static int split_bytes(struct dd_group *g, struct dd_set *out)
{
	struct dd_group run;
	size_t i, j, k;
	int ret = 0;

	qsort(g->m, g->n, sizeof(*g->m), by_bytes);
	for (i = 0; i < g->n; i = j) {
		for (j = i + 1; j < g->n && !by_bytes(&g->m[i], &g->m[j]); j++)
			;
		if (j - i < 2 || ret)
			continue;
		run.n = j - i;
		run.m = malloc(run.n * sizeof(*run.m));
		if (!run.m) {
			ret = -ENOMEM;
			continue;
		}
		for (k = i; k < j; k++) {
			run.m[k - i] = g->m[k];
			memset(&g->m[k], 0, sizeof(g->m[k]));
		}
		ret = set_add(out, &run);
		dd_group_release(&run);
	}
	dd_group_release(g);
	return ret;
}

/* Turns the groups read into the groups acted on, kept member first. */
static int dd_plan(const struct dd_opts *o, struct dd_set *in, struct dd_set *out)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < in->n && !ret; i++) {
		ret = plan_stat(&in->g[i]);
		if (ret)
			break;
		if (o->rel == REL_IDENT)
			ret = split_bytes(&in->g[i], out);
		else if (in->g[i].n >= 2)
			ret = set_add(out, &in->g[i]);
	}
	for (i = 0; i < out->n; i++)
		dd_sort(&o->rules, &out->g[i]);
	return ret;
}

/* ---- checks right before acting ---- */

/* 1 when the two files hold the same bytes now, 0 when not, -errno. */
static int same_bytes(const char *a, const char *b)
{
	static char ba[65536], bb[65536];
	int fa, fb, ret = 1;
	ssize_t na, nb;

	fa = open(a, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fa < 0)
		return -errno;
	fb = open(b, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fb < 0) {
		ret = -errno;
		close(fa);
		return ret;
	}
	do {
		do
			na = read(fa, ba, sizeof(ba));
		while (na < 0 && errno == EINTR);
		nb = na <= 0 ? na : 0;
		while (na > 0 && nb < na) {
			ssize_t r = read(fb, bb + nb, (size_t)(na - nb));

			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				nb = r < 0 ? r : nb;
				break;
			}
			nb += r;
		}
		if (na < 0 || nb < 0)
			ret = -EIO;
		else if (nb != na || memcmp(ba, bb, (size_t)na))
			ret = 0;
	} while (ret == 1 && na > 0);
	if (ret == 1 && read(fb, bb, 1) != 0)
		ret = 0;	/* b is longer */
	close(fa);
	close(fb);
	return ret;
}

/* 1 when path holds what the plan saw (same file, same bytes). */
static int unchanged(const struct dd_member *m)
{
	struct stat st;
	uint8_t h[16];

	return hash_file(m->act, &st, h) == 0 && st.st_dev == m->dev && st.st_ino == m->ino &&
	       !memcmp(h, m->hash, 16);
}

/* The normalised text hash of a file now; 0 or -errno. */
static int text_hash(const char *path, struct texthash_value *v)
{
	struct book *b = NULL;
	int ret = book_load(path, NULL, &b, NULL);

	if (!ret)
		*v = b->fp.text;
	book_free(b);
	return ret < 0 ? ret : ret ? -EINVAL : 0;
}

struct dd_keeper {
	int text_done, text_ret;
	struct texthash_value text;
};

/* NULL when m may be acted on against the kept k, else why not. */
static const char *verify(const struct dd_opts *o, const struct dd_member *k,
			  const struct dd_member *m, struct dd_keeper *kc)
{
	struct texthash_value t;
	struct stat st;

	if (lstat(m->act, &st) < 0 || !S_ISREG(st.st_mode))
		return "gone or no longer a regular file";
	if (st.st_dev != m->dev || st.st_ino != m->ino)
		return "replaced since the plan";
	if (lstat(k->act, &st) < 0 || !S_ISREG(st.st_mode) || st.st_ino != k->ino)
		return "the kept file is gone or was replaced";
	if (o->rel == REL_IDENT)
		return same_bytes(k->act, m->act) == 1 ? NULL :
			"changed since the plan: not the same bytes as the kept file";
	if (!unchanged(m))
		return "changed since the plan";
	if (o->rel == REL_NEAR)
		return unchanged(k) ? NULL : "the kept file changed since the plan";
	if (!kc->text_done) {
		kc->text_done = 1;
		kc->text_ret = text_hash(k->act, &kc->text);
	}
	if (kc->text_ret)
		return "the kept file's text cannot be read";
	if (text_hash(m->act, &t) || t.hi != kc->text.hi || t.lo != kc->text.lo)
		return "not the same text as the kept file now";
	return NULL;
}

/* ---- actions ---- */

/* A temporary name next to path: dir/.simbook-dedup-PID-N. */
static int tmp_name(const char *path, struct sbuf *out)
{
	static unsigned long seq;
	const char *slash = strrchr(path, '/');

	sbuf_setlen(out, 0);
	return sbuf_addf(out, "%.*s/.simbook-dedup-%ld-%lu", (int)(slash - path), path,
			 (long)getpid(), ++seq);
}

/* Puts tmp in place of path; tmp is removed on failure.  0 or -errno. */
static int replace(const char *tmp, const char *path)
{
	int ret = rename(tmp, path) < 0 ? -errno : 0;

	if (ret)
		unlink(tmp);
	return ret;
}

static int do_reflink(const struct dd_member *k, const struct dd_member *m, const char *tmp)
{
	struct stat st;
	int kfd, fd, ret = 0;

	if (lstat(m->act, &st) < 0)
		return -errno;
	kfd = open(k->act, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (kfd < 0)
		return -errno;
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, st.st_mode & 07777);
	if (fd < 0) {
		ret = -errno;
		close(kfd);
		return ret;
	}
	if (ioctl(fd, FICLONE, kfd) < 0)
		ret = -errno;
	if (!ret && fchmod(fd, st.st_mode & 07777) < 0)
		ret = -errno;
	if (close(fd) < 0 && !ret)
		ret = -errno;
	close(kfd);
	if (ret) {
		unlink(tmp);
		return ret;
	}
	return replace(tmp, m->act);
}

/* mkdir -p of the folders above path. */
static int make_parents(char *path)
{
	char *s;
	int ret = 0;

	for (s = strchr(path + 1, '/'); s && !ret; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(path, 0777) < 0 && errno != EEXIST)
			ret = -errno;
		*s = '/';
	}
	return ret;
}

/* Copies src to dst (a new file), with its mode and times. */
static int copy_file(const char *src, const char *dst)
{
	char buf[65536];
	struct stat st;
	struct timespec ts[2];
	ssize_t n, w;
	int in, out, ret = 0;

	in = open(src, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (in < 0)
		return -errno;
	if (fstat(in, &st) < 0) {
		ret = -errno;
		close(in);
		return ret;
	}
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, st.st_mode & 07777);
	if (out < 0) {
		ret = -errno;
		close(in);
		return ret;
	}
	while (!ret && (n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			ret = errno == EINTR ? 0 : -errno;
			continue;
		}
		for (w = 0; w < n && !ret; ) {
			ssize_t r = write(out, buf + w, (size_t)(n - w));

			if (r < 0 && errno != EINTR)
				ret = -errno;
			else if (r > 0)
				w += r;
		}
	}
	ts[0] = st.st_atim;
	ts[1] = st.st_mtim;
	if (!ret && (futimens(out, ts) < 0 || fsync(out) < 0))
		ret = -errno;
	if (close(out) < 0 && !ret)
		ret = -errno;
	close(in);
	if (ret)
		unlink(dst);
	return ret;
}

/* Moves m to DIR/its library path; a file already there is not replaced. */
static int do_move(const struct dd_opts *o, const struct dd_member *m, struct sbuf *tmp)
{
	struct stat st;
	char *dst = NULL;
	int ret;

	if (asprintf(&dst, "%s/%s", o->move_to, m->path) < 0)
		return -ENOMEM;
	ret = make_parents(dst);
	if (!ret && lstat(dst, &st) == 0)
		ret = -EEXIST;
	if (!ret && rename(m->act, dst) < 0) {
		ret = -errno;
		if (ret == -EXDEV) {
			/* another filesystem: a copy, in place, then the original goes */
			ret = tmp_name(dst, tmp);
			if (!ret)
				ret = copy_file(m->act, tmp->buf);
			if (!ret && same_bytes(m->act, tmp->buf) != 1)
				ret = -EIO;
			if (!ret && link(tmp->buf, dst) < 0)
				ret = -errno;
			if (tmp->len)
				unlink(tmp->buf);
			if (!ret && unlink(m->act) < 0) {
				ret = -errno;
				unlink(dst);
			}
		}
	}
	free(dst);
	return ret;
}

/* Acts on m (k kept); 0 or -errno. */
static int act(const struct dd_opts *o, const struct dd_member *k, const struct dd_member *m)
{
	struct sbuf tmp, target;
	char *slash;
	int ret;

	sbuf_init(&tmp);
	sbuf_init(&target);
	ret = tmp_name(m->act, &tmp);
	switch (ret ? ACT_PRINT : o->act) {
	case ACT_PRINT:
		break;
	case ACT_DELETE:
		ret = unlink(m->act) < 0 ? -errno : 0;
		break;
	case ACT_HARDLINK:
		ret = k->dev != m->dev ? -EXDEV : link(k->act, tmp.buf) < 0 ? -errno :
			replace(tmp.buf, m->act);
		break;
	case ACT_SYMLINK:
		slash = strrchr(m->act, '/');
		*slash = '\0';
		ret = dd_relpath(*m->act ? m->act : "/", k->act, &target);
		*slash = '/';
		if (!ret)
			ret = symlink(target.buf, tmp.buf) < 0 ? -errno : replace(tmp.buf, m->act);
		break;
	case ACT_REFLINK:
		ret = do_reflink(k, m, tmp.buf);
		break;
	case ACT_MOVE:
		ret = do_move(o, m, &tmp);
		break;
	}
	sbuf_release(&tmp);
	sbuf_release(&target);
	return ret;
}

/* ---- output ---- */

/* One record: result keep|would|done|skipped|failed. */
static int put(const struct dd_opts *o, size_t gi, const char *result, const char *action,
	       const struct dd_member *m, const struct dd_member *k, const char *reason)
{
	struct sbuf b;
	int ret = 0;

	sbuf_init(&b);
	if (o->json) {
		ret = sbuf_addf(&b, "{\"group\":%zu,\"result\":\"%s\",\"action\":\"%s\",\"path\":",
				gi + 1, result, action);
		if (!ret)
			ret = jsonw_str(&b, m->path);
		if (!ret)
			ret = sbuf_addstr(&b, ",\"abs\":");
		if (!ret)
			ret = jsonw_str(&b, m->act);
		if (!ret)
			ret = sbuf_addstr(&b, ",\"kept\":");
		if (!ret)
			ret = k ? jsonw_str(&b, k->act) : sbuf_addstr(&b, "null");
		if (!ret)
			ret = sbuf_addf(&b, ",\"size\":%llu,\"reason\":", (unsigned long long)m->size);
		if (!ret)
			ret = reason ? jsonw_str(&b, reason) : sbuf_addstr(&b, "null");
		if (!ret)
			ret = sbuf_addstr(&b, "}\n");
	} else {
		ret = sbuf_addf(&b, "%s\t%s\t%s", result, action, m->act);
		if (!ret && reason && !o->nul)
			ret = sbuf_addf(&b, "\t(%s)", reason);
		if (!ret)
			ret = o->nul ? sbuf_add(&b, "", 1) : sbuf_addch(&b, '\n');
		if (reason && o->nul)
			fprintf(stderr, "simbook dedup: %s: %s\n", m->act, reason);
	}
	if (!ret && fwrite(b.buf, 1, b.len, stdout) != b.len)
		ret = -EIO;
	sbuf_release(&b);
	return ret;
}

static int put_summary(const struct dd_opts *o, const struct dd_sum *s)
{
	int dry = o->act == ACT_PRINT, n;

	if (o->json)
		n = printf("{\"summary\":{\"groups\":%zu,\"kept\":%zu,\"would\":%zu,\"done\":%zu,"
			   "\"skipped\":%zu,\"failed\":%zu,\"bytes\":%llu,\"action\":\"%s\","
			   "\"dry_run\":%s,\"interrupted\":%s}}\n", s->groups, s->kept, s->would,
			   s->done, s->skipped, s->failed, (unsigned long long)s->bytes,
			   dry ? "print" : act_name[o->act], dry ? "true" : "false",
			   interrupted ? "true" : "false");
	else
		n = fprintf(o->nul ? stderr : stdout, "%s%zu groups, %zu kept, %zu %s (%s), "
			    "%zu skipped, %zu failed, %llu bytes %s%s\n", o->nul ? "simbook dedup: " :
			    "# ", s->groups, s->kept, dry ? s->would : s->done, dry ? "would go" :
			    "done", act_name[o->act], s->skipped, s->failed,
			    (unsigned long long)s->bytes, dry ? "would be reclaimed; dry run, "
			    "nothing changed" : "reclaimed", interrupted ? "; interrupted" : "");
	return n < 0 ? -EIO : 0;
}

/* Plans or acts on one group (kept member first). */
static int dd_group_run(const struct dd_opts *o, size_t gi, const struct dd_group *g,
			struct dd_sum *s)
{
	struct dd_keeper kc = { 0, 0, { 0, 0 } };
	const struct dd_member *k = &g->m[0];
	const char *an = act_name[o->act], *why;
	size_t i;
	int ret = 0, r;

	s->groups++;
	s->kept++;
	if (!o->json && !o->nul && printf("# group %zu: %zu files, %s\n", gi + 1, g->n,
					  rel_name[o->rel]) < 0)
		return -EIO;
	ret = put(o, gi, "keep", "keep", k, NULL, NULL);
	for (i = 1; i < g->n && !ret; i++) {
		const struct dd_member *m = &g->m[i];

		if (o->act == ACT_PRINT) {
			s->would++;
			s->bytes += m->nlink == 1 ? m->size : 0;
			ret = put(o, gi, "would", an, m, k, NULL);
			continue;
		}
		if (interrupted)
			break;
		why = verify(o, k, m, &kc);
		if (why) {
			s->skipped++;
			ret = put(o, gi, "skipped", an, m, k, why);
			continue;
		}
		r = act(o, k, m);
		if (r) {
			s->failed++;
			why = r == -EXDEV && o->act == ACT_HARDLINK ? "on another filesystem: no "
				"hard link" : o->act == ACT_REFLINK && (r == -EOPNOTSUPP ||
				r == -ENOTTY || r == -EINVAL || r == -EXDEV) ? "reflinks are not "
				"supported here" : r == -EEXIST ? "the destination exists" : strerror(-r);
			ret = put(o, gi, "failed", an, m, k, why);
			continue;
		}
		s->done++;
		s->bytes += m->nlink == 1 ? m->size : 0;
		ret = put(o, gi, "done", an, m, k, NULL);
	}
	if (!ret && fflush(stdout))
		ret = -EIO;
	return ret;
}

int cli_dedup(int argc, char **argv)
{
	struct dd_set in = { 0, NULL }, plan = { 0, NULL };
	struct sigaction sa;
	struct dd_opts o;
	struct dd_sum sum;
	size_t i;
	int status, ret, via_mount;

	status = dd_parse(argc, argv, &o);
	if (status >= 0)
		goto out;
	if (o.act == ACT_MOVE && access(o.move_to, W_OK) < 0) {
		fprintf(stderr, "simbook dedup: --move-to %s: %s\n", o.move_to, strerror(errno));
		status = 2;
		goto out;
	}
	status = dd_groups(&o, &in, &via_mount);
	if (status == 0 && dd_plan(&o, &in, &plan)) {
		fprintf(stderr, "simbook dedup: %s\n", strerror(ENOMEM));
		status = 2;
	}
	if (status == 2)
		goto out;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (o.pause && o.act != ACT_PRINT) {
		fprintf(stderr, "simbook dedup: paused before acting (pid %ld)\n", (long)getpid());
		raise(SIGSTOP);
	}
	memset(&sum, 0, sizeof(sum));
	ret = 0;
	for (i = 0; i < plan.n && !ret && !interrupted; i++)
		ret = dd_group_run(&o, i, &plan.g[i], &sum);
	if (!ret)
		ret = put_summary(&o, &sum);
	if (!ret && fflush(stdout))
		ret = -EIO;
	if (ret) {
		fprintf(stderr, "simbook dedup: cannot write the output\n");
		status = 2;
	} else if (sum.failed) {
		status = 2;
	} else if (interrupted) {
		status = 130;
	} else {
		status = (o.act == ACT_PRINT ? sum.would : sum.done) ? 0 : 1;
	}
	if (!status && o.act != ACT_PRINT && !via_mount && o.index && rcluri_is_uri(o.index))
		fprintf(stderr, "simbook dedup: done on the files: a mount of the library "
			"sharing the index sees the change through its watch; else run "
			"'simbook index' with --index %s\n", o.index);
	else if (!status && o.act != ACT_PRINT && !via_mount)
		fprintf(stderr, "simbook dedup: the library is not mounted: run 'simbook index' "
			"on it to bring its index up to date\n");
out:
	set_release(&in);
	set_release(&plan);
	for (i = 0; i < o.nresolved; i++)
		free(o.resolved[i]);
	return status;
}
