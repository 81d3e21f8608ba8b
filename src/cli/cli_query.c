/* cli_query.c - `simbook similar`, `simbook clusters`, `simbook duplicates`:
 * the views' answers read straight from the index, without a mount.
 *
 * The lists and groups are the ones the mount shows (simlist.h computes the
 * similar lists, groups.h resolves the clusters and the same-text groups,
 * in the mount's order); files that are gone from the library since they
 * were indexed are left out, as the views leave them out.  Output is
 * human-readable by default, JSON Lines with --json, tab-separated with a
 * header line with --tsv; the formats are documented in the usage texts
 * below and in docs/USAGE.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "climount.h"
#include "cliopt.h"
#include "book.h"
#include "groups.h"
#include "idx.h"
#include "jsonw.h"
#include "judge.h"
#include "libroot.h"
#include "relate.h"
#include "sbuf.h"
#include "simlist.h"

enum q_fmt { Q_TEXT, Q_JSON, Q_TSV };

#define Q_COMMON_HELP \
	"  --json          JSON Lines: one object per line\n" \
	"  --tsv           tab-separated, one header line first; tabs, newlines and\n" \
	"                  backslashes in paths and titles written as \\t, \\n, \\\\\n" \
	"  --index IDXDIR  the index folder (default: the nearest " LIBROOT_INDEX_NAME "\n" \
	"                  found walking up from the path)\n" \
	"  --root DIR      the library folder the index describes (default: with\n" \
	"                  --index, the nearest folder at or above the path that\n" \
	"                  holds most of the index's top-level names)\n" \
	"Paths are relative to the library folder (\"path\") and absolute (\"abs\").\n" \
	"JSON strings are valid UTF-8: a byte of a file name that is not valid UTF-8\n" \
	"is written as \\udcXX (Python: os.fsencode() gives the name back).\n" \
	"On a simbookfs mount (over the library or elsewhere) the index is the\n" \
	"one its daemon keeps, read through the mount.\n" \
	"Exit status (grep's convention): 0 found, 1 nothing found, 2 error (no\n" \
	"index, path outside the library or not indexed, bad arguments, output\n" \
	"error).\n"

static const char similar_usage[] =
	"usage: simbook similar FILE [--json|--tsv] [--index IDXDIR] [--root DIR]\n"
	"The books similar to FILE, best first (the entries of the mount's\n"
	"similar/FILE/ folder).\n"
	"  default: one line per book: RANK SCORE% RELATION  PATH\n"
	"  --json: {\"book\",\"rank\",\"score\",\"relation\",\"label\",\"path\",\"abs\",\"id\",\n"
	"          \"simhash\",\"simhash_distance\",\"jaccard\",\"cover_this\",\"cover_other\",\n"
	"          \"title\",\"language\"}\n"
	"  --tsv:  the mount's .similar.tsv format: rank score relation\n"
	"          simhash_distance jaccard cover_this cover_other id path title\n"
	"          language\n"
	"relation: identical-file, same-text, near-duplicate, a-contains-b (FILE\n"
	"contains the book), b-contains-a (the book contains FILE), overlap,\n"
	"other-translation (the same work in other wording); label:\n"
	"the same in words as the mount names it; score 0..100; id: the index's\n"
	"book id (16 hex digits); simhash: the book's similarity id (32 hex digits,\n"
	"the user.simbookfs.id attribute of the mount); title: \"TITLE - AUTHOR\" of\n"
	"the book's calibre metadata.opf, which names its entries (null/empty: none);\n"
	"language: the book's (ISO 639-1: the declared one, else detected), or unknown.\n"
	Q_COMMON_HELP;

static const char groups_usage[] =
	"usage: simbook clusters|duplicates [DIR|FILE] [--json|--tsv] [--index IDXDIR] [--root DIR]\n"
	"clusters: groups of near duplicates (the mount's clusters/); duplicates:\n"
	"groups of files with the same text in any format (the mount's duplicates/).\n"
	"Only groups with a member inside DIR (or with FILE) are listed (default:\n"
	"the current folder; the library folder lists every group).  Groups come\n"
	"largest first, then by their smallest book id; members by book id, as the\n"
	"mount lists them; each member's relation is its relation to the group's\n"
	"first member.\n"
	"  default: a title line per group (\"TITLE (N books)\"), then its members\n"
	"           indented, with their relation and score to the first in\n"
	"           parentheses\n"
	"  --json: one object per group: {\"kind\",\"group\",\"title\",\"count\",\n"
	"          \"members\":[{\"path\",\"abs\",\"id\",\"simhash\",\"size\",\"mtime\",\n"
	"          \"relation\",\"label\",\"score\",\"simhash_distance\"}]} (relation,\n"
	"          label and score null for the first member; size in bytes and\n"
	"          mtime in seconds since 1970 as indexed)\n"
	"  --tsv:  one line per member: group count title relation score\n"
	"          simhash_distance size mtime id simhash path (relation and score\n"
	"          \"-\" for the first)\n"
	Q_COMMON_HELP;

struct q_opts {
	const char *index, *root, *path;
	enum q_fmt fmt;
};

struct q_ctx {
	const char *cmd;
	struct libroot lr;
	struct idx *ix;
	struct judge_cache *cache;
	int rootfd;
};

/* Parses the options; returns -1 to go on, else the exit status. */
static int q_parse(const char *cmd, const char *usage, int argc, char **argv, struct q_opts *o)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' }, { "json", no_argument, NULL, 'j' },
		{ "tsv", no_argument, NULL, 't' }, { "index", required_argument, NULL, 'i' },
		{ "root", required_argument, NULL, 'r' }, { NULL, 0, NULL, 0 }
	};
	int c, first = 1;

	memset(o, 0, sizeof(*o));
	while ((c = cliopt_next(cmd, first, argc, argv, ":h", longopts)) != -1) {
		first = 0;
		switch (c) {
		case 'h':
			fputs(usage, stdout);
			return 0;
		case 'j':
		case 't':
			if (o->fmt != Q_TEXT && o->fmt != (c == 'j' ? Q_JSON : Q_TSV))
				return cliopt_usage(cmd, "one of --json and --tsv");
			o->fmt = c == 'j' ? Q_JSON : Q_TSV;
			break;
		case 'i':
			o->index = optarg;
			break;
		case 'r':
			o->root = optarg;
			break;
		default:
			return 2;
		}
	}
	if (optind < argc)
		o->path = argv[optind++];
	if (optind < argc)
		return cliopt_usage(cmd, "one %s only, not also '%s'",
				    strcmp(cmd, "similar") ? "folder or file" : "file", argv[optind]);
	return -1;
}

static void q_close(struct q_ctx *c)
{
	judge_cache_free(c->cache);
	idx_close(c->ix);
	if (c->rootfd >= 0)
		close(c->rootfd);
	libroot_release(&c->lr);
}

/* The index's first top-level names, listed once for every folder probed. */
struct q_names {
	struct idx *ix;
	int loaded;
	size_t n;
	char *name[8];
};

/* 1 when folder dir holds the library the index describes: most of the
 * index's first top-level names exist in it. */
static int q_probe(void *arg, const char *dir)
{
	struct q_names *qn = arg;
	struct idx_entry *e = NULL;
	size_t n = 0, i, found = 0;
	struct stat st;
	int dfd;

	if (!qn->loaded) {
		qn->loaded = 1;
		if (idx_list(qn->ix, "", 0, &e, &n) == 0)
			for (i = 0; i < n && qn->n < 8; i++) {
				qn->name[qn->n] = e[i].name;
				e[i].name = NULL;
				qn->n++;
			}
		idx_entries_free(e, n);
	}
	if (qn->n == 0)
		return 0;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return 0;
	for (i = 0; i < qn->n; i++)
		found += fstatat(dfd, qn->name[i], &st, AT_SYMLINK_NOFOLLOW) == 0;
	close(dfd);
	return 2 * found > qn->n;
}

/* Opens the index in folder dir read-only (a daemon or `simbook index`
 * may be writing it; a query never changes it); root names the library
 * in the advice, mnt the mount whose daemon keeps it (NULL: none).
 * 0 or 2 after printing why not. */
static int q_open_idx(struct q_ctx *c, const char *dir, const char *root, const char *mnt)
{
	struct idx_opts io = { .readonly = 1 };
	int ret;

	ret = idx_open(&c->ix, dir, &io);
	if (!ret)
		return 0;
	if (mnt && ret == -EACCES)
		fprintf(stderr, "simbook %s: cannot open the index of the mount at %s: %s (its "
			"daemon runs as another user; ask it, or run simbook as that user)\n",
			c->cmd, mnt, strerror(-ret));
	else if (mnt && (ret == -ESTALE || ret == -ENOENT))
		fprintf(stderr, "simbook %s: the daemon of the mount at %s is still creating or "
			"upgrading its index: try again once %s/.simbookfs/status says \"idle\"\n",
			c->cmd, mnt, mnt);
	else if (ret == -ENOENT)
		fprintf(stderr, "simbook %s: no index in %s (run 'simbook index %s' first)\n",
			c->cmd, dir, root ? root : "DIR");
	else if (ret == -ESTALE || ret == -EIO)
		fprintf(stderr, "simbook %s: the index in %s is %s: %s\n", c->cmd, dir,
			ret == -EIO ? "damaged" : "unfinished or from another version",
			mnt ? "its daemon rebuilds it when next mounted" : root ?
			"run 'simbook index' on the library to bring it up to date" :
			"run 'simbook index DIR' to bring it up to date");
	else
		fprintf(stderr, "simbook %s: cannot open the index in %s: %s\n", c->cmd, dir,
			idx_strerror(ret));
	return 2;
}

/* The library of a path inside a simbookfs mount: the mount's own folder,
 * and the index its daemon keeps, opened where the status says.  0, 1
 * when path is in no mount, else 2 after printing why not. */
static int q_open_mount(struct q_ctx *c, const char *path)
{
	struct climount m;
	char mnt[PATH_MAX];
	int ret;

	if (!climount_find(path, mnt, sizeof(mnt)))
		return 1;
	ret = climount_library(mnt, &m);
	if (ret) {
		fprintf(stderr, "simbook %s: the simbookfs mount at %s %s\n", c->cmd, mnt,
			ret == -ENOENT ? "serves no index (-o noindex, or a daemon older than "
			"this simbook)" : strerror(-ret));
		return 2;
	}
	c->lr.root = m.mnt;
	m.mnt = NULL;
	ret = q_open_idx(c, m.reader, NULL, c->lr.root);
	climount_release(&m);
	return ret;
}

/* Finds and opens the index for o->path; 0, or 2 after printing why not. */
static int q_open(struct q_ctx *c, const char *cmd, const struct q_opts *o)
{
	struct q_names qn = { 0 };
	size_t i;
	int ret;

	memset(c, 0, sizeof(*c));
	c->cmd = cmd;
	c->rootfd = -1;
	/* On a mount, the daemon's index, unless one is given. */
	if (!o->index && !o->root) {
		ret = q_open_mount(c, o->path);
		if (ret == 2)
			goto fail;
		if (ret == 0)
			goto opened;
	}
	/* A given index is opened first: it tells which folder is the library. */
	if (o->index && q_open_idx(c, o->index, o->root, NULL))
		goto fail;
	qn.ix = c->ix;
	ret = libroot_find(&c->lr, o->path, o->index, o->root, q_probe, &qn);
	for (i = 0; i < qn.n; i++)
		free(qn.name[i]);
	if (ret == -ENOENT && access(o->path, F_OK) == 0) {
		if (o->index)
			fprintf(stderr, "simbook %s: no folder at or above %s holds the library that "
				"%s describes: give it with --root\n", cmd, o->path, o->index);
		else
			fprintf(stderr, "simbook %s: no index found for %s (no %s in it or above "
				"it; run 'simbook index DIR' or give --index)\n", cmd, o->path,
				LIBROOT_INDEX_NAME);
		goto fail;
	}
	if (ret == -EXDEV) {
		fprintf(stderr, "simbook %s: %s is not inside the library %s\n", cmd, o->path,
			o->root ? o->root : "");
		goto fail;
	}
	if (ret) {
		fprintf(stderr, "simbook %s: %s: %s\n", cmd, ret == -ENOENT || !o->index ? o->path :
			o->index, strerror(-ret));
		goto fail;
	}
	if (!c->ix && q_open_idx(c, c->lr.index, c->lr.root, NULL))
		goto fail;
opened:
	c->rootfd = open(c->lr.root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->rootfd < 0) {
		fprintf(stderr, "simbook %s: %s: %s\n", cmd, c->lr.root, strerror(errno));
		goto fail;
	}
	c->cache = judge_cache_new(0);
	if (!c->cache) {
		fprintf(stderr, "simbook %s: %s\n", cmd, strerror(ENOMEM));
		goto fail;
	}
	return 0;
fail:
	q_close(c);
	return 2;
}

/* Drops candidates that are no longer regular files in the library (or lie
 * in the index folder): the answers never name a file that is gone. */
static int q_skip(void *arg, const char *path)
{
	struct q_ctx *c = arg;
	struct stat st;

	if (libroot_in_index(&c->lr, path))
		return 1;
	return fstatat(c->rootfd, path, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode);
}

static void hex128(const uint8_t *h, char out[33])
{
	static const char digits[] = "0123456789abcdef";
	int i;

	for (i = 0; i < 16; i++) {
		out[2 * i] = digits[h[i] >> 4];
		out[2 * i + 1] = digits[h[i] & 15];
	}
	out[32] = '\0';
}

static int popcount128(const uint8_t *a, const uint8_t *b)
{
	int i, d = 0;

	for (i = 0; i < 16; i++)
		d += __builtin_popcount((unsigned)(a[i] ^ b[i]));
	return d;
}

/* Appends "path":...,"abs":... for rel. */
static int json_paths(struct sbuf *o, const struct q_ctx *c, const char *rel)
{
	struct sbuf abs;
	int ret;

	sbuf_init(&abs);
	ret = sbuf_addf(&abs, "%s%s%s", c->lr.root, strcmp(c->lr.root, "/") ? "/" : "", rel);
	if (!ret)
		ret = sbuf_addstr(o, "\"path\":");
	if (!ret)
		ret = jsonw_str(o, rel);
	if (!ret)
		ret = sbuf_addstr(o, ",\"abs\":");
	if (!ret)
		ret = jsonw_strn(o, abs.buf, abs.len);
	sbuf_release(&abs);
	return ret;
}

/* Writes the buffer to stdout; 0 or -EIO. */
static int q_flush(struct sbuf *o)
{
	if (o->len && fwrite(o->buf, 1, o->len, stdout) != o->len)
		return -EIO;
	sbuf_setlen(o, 0);
	return 0;
}

/* ---- similar ---- */

static int similar_entry(struct sbuf *o, struct q_ctx *c, const struct simlist *l, size_t i,
			 const char *book, enum q_fmt fmt)
{
	const struct simlist_entry *e = &l->v[i];
	struct idx_file f = { 0 };
	char hex[33] = "";
	int ret;

	if (fmt == Q_TEXT)
		return sbuf_addf(o, "%2zu %3u%% %-14s  %s\n", i + 1, e->score, simlist_label(e->cls),
				 e->path);
	ret = idx_get_id(c->ix, e->id, &f);
	if (!ret && f.has_fp)
		hex128(f.simhash, hex);
	idx_file_release(&f);
	if (ret && ret != -ENOENT)
		return ret;
	ret = sbuf_addstr(o, "{\"book\":");
	if (!ret)
		ret = jsonw_str(o, book);
	if (!ret)
		ret = sbuf_addf(o, ",\"rank\":%zu,\"score\":%u,\"relation\":\"%s\",\"label\":\"%s\",",
				i + 1, e->score, relate_class_name(e->cls), simlist_label(e->cls));
	if (!ret)
		ret = json_paths(o, c, e->path);
	if (!ret)
		ret = sbuf_addf(o, ",\"id\":\"%016llx\",\"simhash\":", (unsigned long long)e->id);
	if (!ret)
		ret = *hex ? sbuf_addf(o, "\"%s\"", hex) : sbuf_addstr(o, "null");
	if (!ret)
		ret = sbuf_addf(o, ",\"simhash_distance\":%d,\"jaccard\":%.3f,\"cover_this\":%.3f,"
				"\"cover_other\":%.3f,\"title\":", e->simhash_distance, e->jaccard,
				e->cover_this, e->cover_other);
	if (!ret)
		ret = e->title ? jsonw_str(o, e->title) : sbuf_addstr(o, "null");
	if (!ret)
		ret = sbuf_addf(o, ",\"language\":\"%s\"}\n", *e->lang ? e->lang : "unknown");
	return ret;
}

int cli_similar(int argc, char **argv)
{
	struct q_opts o;
	struct q_ctx c;
	struct idx_file f = { 0 };
	struct simlist *l = NULL;
	struct sbuf out;
	struct stat st;
	char *rel = NULL;
	size_t i;
	int status, ret;

	status = q_parse("similar", similar_usage, argc, argv, &o);
	if (status >= 0)
		return status;
	if (!o.path)
		return cliopt_usage("similar", "which book? a FILE is needed");
	if (stat(o.path, &st) < 0 || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "simbook similar: %s: %s\n", o.path,
			errno && access(o.path, F_OK) < 0 ? strerror(errno) : "not a regular file");
		return 2;
	}
	if (q_open(&c, "similar", &o))
		return 2;
	sbuf_init(&out);
	status = 2;
	ret = libroot_rel(&c.lr, o.path, &rel);
	if (ret) {
		fprintf(stderr, "simbook similar: %s: %s\n", o.path,
			ret == -EXDEV ? "not inside the library" : strerror(-ret));
		goto out;
	}
	ret = idx_get(c.ix, rel, &f);
	if (ret) {
		fprintf(stderr, "simbook similar: %s: %s\n", o.path, ret == -ENOENT ?
			"not in the index (run 'simbook index' on the library)" : strerror(-ret));
		goto out;
	}
	if (!f.has_fp) {
		fprintf(stderr, "simbook similar: %s: %s%s\n", o.path,
			f.state == IDX_NOT_BOOK ? "not a book" :
			f.state == IDX_FAILED ? "could not be indexed: " : "not indexed yet",
			f.state == IDX_FAILED && f.error ? f.error : "");
		goto out;
	}
	if ((uint64_t)st.st_size != f.st.size ||
	    (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec != f.st.mtime_ns)
		fprintf(stderr, "simbook similar: warning: %s changed since it was indexed; the "
			"answer is for the indexed version\n", o.path);
	ret = simlist_get(c.ix, c.cache, f.id, q_skip, &c, &l);
	if (ret) {
		fprintf(stderr, "simbook similar: %s: %s\n", o.path, strerror(-ret));
		goto out;
	}
	if (o.fmt == Q_TSV)
		ret = simlist_tsv(l, &out);
	for (i = 0; i < l->n && !ret && o.fmt != Q_TSV; i++) {
		ret = similar_entry(&out, &c, l, i, rel, o.fmt);
		if (!ret && out.len > 65536)
			ret = q_flush(&out);
	}
	if (!ret)
		ret = q_flush(&out);
	if (!ret && fflush(stdout) != 0)
		ret = -EIO;
	if (ret) {
		fprintf(stderr, "simbook similar: %s\n", strerror(-ret));
		goto out;
	}
	if (!l->n && o.fmt == Q_TEXT)
		fprintf(stderr, "simbook similar: no book similar to %s\n", o.path);
	status = l->n ? 0 : 1;
out:
	simlist_free(l);
	idx_file_release(&f);
	free(rel);
	sbuf_release(&out);
	q_close(&c);
	return status;
}

/* ---- clusters and duplicates ---- */

/* 1 when path is rel or lies below it ("" holds everything). */
static int in_scope(const char *path, const char *rel)
{
	size_t n = strlen(rel);

	return !n || (!strncmp(path, rel, n) && (path[n] == '\0' || path[n] == '/'));
}

/* groups_resolve() leaves out the members gone from the library. */
static int q_member_skip(void *arg, const struct idx_file *f)
{
	return !f->has_fp || q_skip(arg, f->path);
}

/* Keeps the groups of s with a member in scope, in their order. */
static void groups_scope(struct groups_set *s, const char *scope)
{
	size_t i, j, n = 0;
	int hit;

	for (i = 0; i < s->n; i++) {
		for (j = 0, hit = 0; j < s->g[i].n && !hit; j++)
			hit = in_scope(s->g[i].m[j].path, scope);
		if (hit) {
			s->g[n++] = s->g[i];
			continue;
		}
		for (j = 0; j < s->g[i].n; j++) {
			free(s->g[i].m[j].path);
			free(s->g[i].m[j].title);
		}
		free(s->g[i].m);
	}
	s->n = n;
}

/* Member id's relation to the group's member rep, as its similar
 * list shows it (judge_relation()), with the score and the mtime stored
 * for id (ns).  0 or -errno. */
static int member_relation(struct q_ctx *c, uint64_t rep, uint64_t id, enum relate_class *cls,
			   unsigned *score, int64_t *mtime_ns)
{
	struct idx_file fa = { 0 }, fb = { 0 };
	struct book *ba = NULL;
	struct judge_pair r;
	int ret;

	*cls = RELATE_UNRELATED;
	*score = 0;
	ret = idx_get_id(c->ix, id, &fb);
	*mtime_ns = ret ? 0 : fb.st.mtime_ns;
	if (!ret && rep != id)
		ret = idx_get_id(c->ix, rep, &fa);
	if (!ret && rep != id && (!fa.has_fp || !fb.has_fp))
		ret = -ENOENT;
	if (!ret && rep != id)
		ret = judge_compare(c->ix, c->cache, &fa, &ba, &fb, &r);
	if (!ret && rep != id) {
		*cls = rep == r.a ? r.cls : judge_mirror(r.cls);
		*score = r.score;
	}
	book_free(ba);
	idx_file_release(&fa);
	idx_file_release(&fb);
	return ret;
}

static int group_out(struct sbuf *o, struct q_ctx *c, const char *kind, size_t gi,
		     const struct groups_group *gr, enum q_fmt fmt)
{
	enum relate_class cls = RELATE_UNRELATED;
	char *title = NULL, hex[33];
	unsigned score;
	int64_t mt;
	size_t j, ref = 0;
	int ret, d;

	/* the relations are given to the member whose path comes first, as
	 * duplicates/ names them: not to the one indexed first */
	for (j = 1; j < gr->n; j++)
		if (strcmp(gr->m[j].path, gr->m[ref].path) < 0)
			ref = j;
	ret = groups_title(c->ix, gr, &title);
	if (ret)
		return ret;
	if (fmt == Q_TEXT)
		ret = sbuf_addf(o, "%s%s (%zu books)\n", gi ? "\n" : "", title, gr->n);
	else if (fmt == Q_JSON) {
		ret = sbuf_addf(o, "{\"kind\":\"%s\",\"group\":%zu,\"title\":", kind, gi + 1);
		if (!ret)
			ret = jsonw_str(o, title);
		if (!ret)
			ret = sbuf_addf(o, ",\"count\":%zu,\"members\":[", gr->n);
	}
	for (j = 0; j < gr->n && !ret; j++) {
		const struct groups_member *m = &gr->m[j];

		ret = member_relation(c, gr->m[ref].id, m->id, &cls, &score, &mt);
		if (ret)
			break;
		d = popcount128(gr->m[ref].simhash, m->simhash);
		hex128(m->simhash, hex);
		if (fmt == Q_TEXT) {
			ret = sbuf_addf(o, "  %s", m->path);
			if (!ret && j != ref)
				ret = sbuf_addf(o, "  (%s, %u%%)", simlist_label(cls), score);
			if (!ret)
				ret = sbuf_addch(o, '\n');
		} else if (fmt == Q_TSV) {
			ret = sbuf_addf(o, "%zu\t%zu\t", gi + 1, gr->n);
			if (!ret)
				ret = simlist_escape(o, title);
			if (!ret)
				ret = j != ref ? sbuf_addf(o, "\t%s\t%u", relate_class_name(cls), score)
					: sbuf_addstr(o, "\t-\t-");
			if (!ret)
				ret = sbuf_addf(o, "\t%d\t%llu\t%lld\t%016llx\t%s\t", d,
						(unsigned long long)m->size,
						(long long)(mt / 1000000000),
						(unsigned long long)m->id, hex);
			if (!ret)
				ret = simlist_escape(o, m->path);
			if (!ret)
				ret = sbuf_addch(o, '\n');
		} else {
			ret = sbuf_addstr(o, j ? ",{" : "{");
			if (!ret)
				ret = json_paths(o, c, m->path);
			/* the member's own metadata.opf name, as its entry is named */
			if (!ret)
				ret = sbuf_addstr(o, ",\"title\":");
			if (!ret)
				ret = m->title ? jsonw_str(o, m->title) : sbuf_addstr(o, "null");
			if (!ret)
				ret = sbuf_addf(o, ",\"id\":\"%016llx\",\"simhash\":\"%s\",\"size\":%llu,"
						"\"mtime\":%lld,", (unsigned long long)m->id, hex,
						(unsigned long long)m->size,
						(long long)(mt / 1000000000));
			if (!ret)
				ret = j != ref ? sbuf_addf(o, "\"relation\":\"%s\",\"label\":\"%s\","
						    "\"score\":%u,", relate_class_name(cls),
						    simlist_label(cls), score)
					: sbuf_addstr(o, "\"relation\":null,\"label\":null,"
						      "\"score\":null,");
			if (!ret)
				ret = sbuf_addf(o, "\"simhash_distance\":%d}", d);
		}
	}
	if (!ret && fmt == Q_JSON)
		ret = sbuf_addstr(o, "]}\n");
	free(title);
	return ret;
}

static int groups_cmd(int dup, int argc, char **argv)
{
	const char *cmd = dup ? "duplicates" : "clusters";
	struct groups_set gs = { 0, NULL };
	struct q_opts o;
	struct q_ctx c;
	struct sbuf out;
	char *scope = NULL;
	size_t i;
	int status, ret;

	status = q_parse(cmd, groups_usage, argc, argv, &o);
	if (status >= 0)
		return status;
	if (!o.path)
		o.path = ".";
	if (access(o.path, F_OK) < 0) {
		fprintf(stderr, "simbook %s: %s: %s\n", cmd, o.path, strerror(errno));
		return 2;
	}
	if (q_open(&c, cmd, &o))
		return 2;
	sbuf_init(&out);
	status = 2;
	ret = libroot_rel(&c.lr, o.path, &scope);
	if (ret) {
		fprintf(stderr, "simbook %s: %s: %s\n", cmd, o.path,
			ret == -EXDEV ? "not inside the library" : strerror(-ret));
		goto out;
	}
	ret = groups_resolve(c.ix, dup ? GROUPS_TEXT : GROUPS_CLUSTERS, q_member_skip, &c, &gs);
	if (!ret)
		groups_scope(&gs, scope);
	if (!ret && o.fmt == Q_TSV)
		ret = sbuf_addstr(&out, "group\tcount\ttitle\trelation\tscore\tsimhash_distance\t"
				  "size\tmtime\tid\tsimhash\tpath\n");
	for (i = 0; i < gs.n && !ret; i++) {
		ret = group_out(&out, &c, cmd, i, &gs.g[i], o.fmt);
		if (!ret && out.len > 65536)
			ret = q_flush(&out);
	}
	if (!ret)
		ret = q_flush(&out);
	if (!ret && fflush(stdout) != 0)
		ret = -EIO;
	if (ret) {
		fprintf(stderr, "simbook %s: %s\n", cmd, strerror(-ret));
		goto out;
	}
	if (!gs.n && o.fmt == Q_TEXT)
		fprintf(stderr, "simbook %s: no groups\n", cmd);
	status = gs.n ? 0 : 1;
out:
	groups_set_release(&gs);
	free(scope);
	sbuf_release(&out);
	q_close(&c);
	return status;
}

int cli_clusters(int argc, char **argv)
{
	return groups_cmd(0, argc, argv);
}

int cli_duplicates(int argc, char **argv)
{
	return groups_cmd(1, argc, argv);
}
