/* view_meta.c - .simbookfs/: the status, errors, not-duplicates and
 * skipped files and the control file's commands. */
#include "views_i.h"
#include "jsonw.h"
#include "skipped.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A shared index's server out of reach: at the open (the opener tries
 * again) or since (idx_health()). */
struct meta_down {
	int down;
	char why[256];
	int64_t since;
};

static void meta_down_get(struct views *v, const struct opener_info *oi, struct meta_down *d)
{
	d->down = 0;
	if (oi->state == OPENER_UNAVAILABLE) {
		d->down = 1;
		snprintf(d->why, sizeof(d->why), "%s", idx_strerror(oi->error));
		d->since = oi->since;
	} else if (v->ix) {
		d->down = idx_health(v->ix, d->why, sizeof(d->why), &d->since);
	}
}

/* ,"reason":..,"since":"UTC time","since_epoch":N of an outage, and the
 * outage journal when there is one. */
static int meta_outage(struct views *v, const struct meta_down *d, struct sbuf *out)
{
	struct ijr *jr = v->jr;
	char when[32] = "";
	time_t t = (time_t)d->since;
	struct tm tm;
	size_t n;
	int ret = 0, rescan = 0;

	if (d->down) {
		if (gmtime_r(&t, &tm))
			strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
		ret = sbuf_addstr(out, ",\"reason\":");
		if (!ret)
			ret = jsonw_str(out, d->why);
		if (!ret)
			ret = sbuf_addf(out, ",\"since\":\"%s\",\"since_epoch\":%lld", when,
					(long long)d->since);
	}
	if (!ret && jr) {
		n = ijr_count(jr, &rescan);
		ret = sbuf_addstr(out, ",\"journal\":{\"path\":");
		if (!ret)
			ret = jsonw_str(out, ijr_path(jr));
		if (!ret)
			ret = sbuf_addf(out, ",\"entries\":%zu,\"rescan\":%s}", n,
					rescan ? "true" : "false");
	}
	return ret;
}

/* The "index" member of the status: how the open went or how far it is. */
static int meta_open(struct views *v, const struct opener_info *oi,
		     const struct meta_down *d, struct sbuf *out)
{
	int ret;

	ret = sbuf_addf(out, "\"index\":{\"state\":\"%s\",\"done\":%llu,\"total\":%llu,"
			"\"seconds\":%.3f", d->down ? "unavailable" : opener_state_name(oi->state),
			(unsigned long long)oi->done, (unsigned long long)oi->total, oi->seconds);
	if (!ret && oi->state == OPENER_FAILED)
		ret = sbuf_addf(out, ",\"error\":\"%s\"", idx_strerror(oi->error));
	if (!ret)
		ret = meta_outage(v, d, out);
	return ret ? ret : sbuf_addstr(out, "}");
}

/* The "library" member: where the library and its index are.  An index
 * inside SRC is hidden by the mount, and covered when the mount is over
 * SRC: the reader path reaches it through this process's descriptor of
 * SRC (the owner of the daemon, and root, may follow it). */
static int meta_library(struct views *v, struct sbuf *out)
{
	struct sbuf reader;
	int ret;

	if (!v->src || !v->index)
		return 0;
	sbuf_init(&reader);
	ret = v->hidden ? sbuf_addf(&reader, "/proc/%ld/fd/%d/%s", (long)getpid(), v->rootfd,
				    v->hidden) : sbuf_addstr(&reader, v->index);
	if (!ret)
		ret = sbuf_addstr(out, ",\"library\":{\"src\":");
	if (!ret)
		ret = jsonw_str(out, v->src);
	if (!ret)
		ret = sbuf_addstr(out, ",\"index\":");
	if (!ret)
		ret = jsonw_str(out, v->index);
	if (!ret)
		ret = sbuf_addstr(out, ",\"reader\":");
	if (!ret)
		ret = jsonw_strn(out, reader.buf, reader.len);
	if (!ret)
		ret = sbuf_addf(out, ",\"pid\":%ld}", (long)getpid());
	sbuf_release(&reader);
	return ret;
}

/* While the index is not open: its state, the counts zero. */
static int meta_status_closed(struct views *v, struct sbuf *out)
{
	struct opener_info oi = { .state = OPENER_OPENING };
	struct meta_down d;
	int ret;

	if (v->op)
		opener_info(v->op, &oi);
	meta_down_get(v, &oi, &d);
	ret = sbuf_addf(out, "{\"state\":\"%s\",\"books\":0,\"files\":0,\"queued\":0,"
			"\"failed\":0,\"not_books\":0,\"skipped\":{},\"indexed_since_mount\":0,",
			d.down ? "unavailable" : opener_state_name(oi.state));
	if (!ret)
		ret = meta_open(v, &oi, &d, out);
	if (!ret)
		ret = meta_library(v, out);
	return ret ? ret : sbuf_addstr(out, "}\n");
}

#define META_SKIPPED_AGE_NS 1000000000u

static int meta_status_open(struct views *v, struct sbuf *out)
{
	static const char *const rebuilt[] = { "no", "kept", "lost" };
	struct opener_info oi = { .state = OPENER_OPEN };
	struct meta_down d = { 0 };
	struct indexer_status st;
	struct skipped sk;
	uint64_t kept_files, kept_marks;
	int how, ret;

	/* open, but the scan or the watch could not start */
	if (v->op)
		opener_info(v->op, &oi);
	how = idx_rebuilt(v->ix);
	indexer_status(v->ixr, &st);
	idx_rebuild_kept(v->ix, &kept_files, &kept_marks);
	ret = sbuf_addf(out,
			"{\"state\":\"%s\",\"books\":%llu,\"files\":%llu,\"queued\":%llu,"
			"\"failed\":%llu,\"not_books\":%llu,\"indexed_since_mount\":%llu,"
			"\"generation\":%llu,\"scan\":{\"running\":%s,\"runs\":%llu,"
			"\"files_seen\":%llu,\"files_queued\":%llu,\"removed\":%llu,"
			"\"renamed\":%llu,\"seconds\":%.3f},\"watch\":\"%s\",\"judging\":%s,"
			"\"rebuilt\":{\"how\":\"%s\",\"kept_files\":%llu,\"kept_marks\":%llu},",
			oi.state == OPENER_FAILED ? "failed" : st.scanning ? "scanning" : "idle",
			(unsigned long long)st.books,
			(unsigned long long)st.files, (unsigned long long)st.queued,
			(unsigned long long)st.failed, (unsigned long long)st.not_books,
			(unsigned long long)st.indexed, (unsigned long long)st.generation,
			st.scan_running ? "true" : "false", (unsigned long long)st.scan_runs,
			(unsigned long long)st.scan_files, (unsigned long long)st.scan_queued,
			(unsigned long long)st.scan_removed, (unsigned long long)st.scan_renamed,
			st.scan_seconds,
			!st.watching ? "off" : st.watch_incomplete ? "incomplete" : "on",
			st.judging ? "true" : "false",
			how >= 0 && how <= 2 ? rebuilt[how] : "no", (unsigned long long)kept_files,
			(unsigned long long)kept_marks);
	/* the skipped files by kind: a walk of the file entries when the
	 * index changed since the last one (at most one a second while it
	 * is busy), so reading status again costs no walk */
	if (!ret)
		ret = skipped_cache_count(v->skipped, v->ix, !st.scanning, META_SKIPPED_AGE_NS, &sk);
	if (!ret) {
		ret = sbuf_addstr(out, "\"skipped\":");
		if (!ret)
			ret = skipped_json(&sk, out);
		if (!ret)
			ret = sbuf_addch(out, ',');
		skipped_release(&sk);
	}
	if (!ret)
		ret = meta_open(v, &oi, &d, out);
	if (!ret)
		ret = meta_library(v, out);
	return ret ? ret : sbuf_addstr(out, "}\n");
}

static int meta_status(struct views *v, struct sbuf *out)
{
	size_t len = out->len;
	int ret = views_open(v) ? meta_status_open(v, out) : meta_status_closed(v, out);

	/* the index's server went away while the status was being made:
	 * what it says now, not the error */
	if (ret < 0 && v->ix && idx_health(v->ix, NULL, 0, NULL)) {
		sbuf_setlen(out, len);
		ret = meta_status_closed(v, out);
	}
	return ret;
}

/* One line per file that could not be indexed: path TAB reason. */
static int meta_errors(struct views *v, struct sbuf *out)
{
	struct idx_file *f = NULL;
	size_t n = 0, i;
	int ret = views_open(v) ? idx_errors(v->ix, &f, &n) : 0;

	for (i = 0; i < n && !ret; i++) {
		ret = simlist_escape(out, f[i].path);
		if (!ret)
			ret = sbuf_addch(out, '\t');
		if (!ret)
			ret = simlist_escape(out, f[i].error ? f[i].error : "unknown error");
		if (!ret)
			ret = sbuf_addch(out, '\n');
	}
	idx_files_free(f, n);
	return ret;
}

/* The files of .simbookfs/, in listing order; a file's index is its
 * slot in meta_stamp. */
static const char *const meta_names[] = { "status", "errors", "not-duplicates", "skipped" };

/* The lines of in whose first npaths fields (escaped paths) the caller
 * may reach, appended to out: a book shows only to who could look it up. */
static int meta_visible(struct views *v, const struct sbuf *in, int npaths, struct sbuf *out)
{
	const char *line = in->buf, *end, *tab;
	char *field;
	int k, ok, ret = 0;

	for (; line && *line && !ret; line = end + 1) {
		end = strchr(line, '\n');
		if (!end)
			break;
		ok = 1;
		for (k = 0, tab = line - 1; k < npaths && ok; k++) {
			const char *start = tab + 1;

			tab = memchr(start, '\t', (size_t)(end - start));
			field = strndup(start, (size_t)((tab ? tab : end) - start));
			if (!field)
				return -ENOMEM;
			ok = !simlist_unescape(field) && views_reach(v, field);
			free(field);
			if (!tab)
				break;
		}
		if (ok)
			ret = sbuf_add(out, line, (size_t)(end - line) + 1);
	}
	return ret;
}

int meta_content(struct views *v, const char *rel, struct sbuf *out)
{
	struct sbuf all;
	int ret;

	if (!strcmp(rel, meta_names[0]))
		return meta_status(v, out);
	if (strcmp(rel, meta_names[1]) && strcmp(rel, meta_names[2]) && strcmp(rel, meta_names[3]))
		return -ENOENT;
	sbuf_init(&all);
	if (!strcmp(rel, meta_names[1]))
		ret = meta_errors(v, &all);
	else if (!strcmp(rel, meta_names[2]))
		ret = views_open(v) ? simlist_exemptions_tsv(v->ix, &all) : 0;
	else
		ret = views_open(v) ? skipped_tsv(v->ix, &all) : 0;
	/* the errors and skipped listings name one book per line, the
	 * not-duplicate marks two */
	if (!ret && all.len)
		ret = meta_visible(v, &all, !strcmp(rel, meta_names[2]) ? 2 : 1, out);
	sbuf_release(&all);
	return ret;
}

#define CONTROL_MAX 32768	/* longest command: two escaped IDX_PATH_MAX paths fit */

/* Applies the command in buf (size bytes, one line, the newline optional):
 * "not-duplicate TAB A TAB B" or "undo-not-duplicate TAB A TAB B", A and B
 * relative to the mount root, escaped as in not-duplicates.  0, -EINVAL
 * (not such a command, the same book twice), -ENOENT (a book the index
 * does not know), -EAGAIN (the index is not open yet), or -errno of the
 * index. */
int meta_control(struct views *v, const char *buf, size_t size)
{
	char *cmd = NULL, *a, *b;
	int ret = -EINVAL, on;

	if (size && buf[size - 1] == '\n')
		size--;
	if (!size || size > CONTROL_MAX || memchr(buf, '\n', size) || memchr(buf, '\0', size))
		return -EINVAL;
	cmd = strndup(buf, size);
	if (!cmd)
		return -ENOMEM;
	a = strchr(cmd, '\t');
	b = a ? strchr(a + 1, '\t') : NULL;
	if (!b || strchr(b + 1, '\t'))
		goto out;
	*a++ = '\0';
	*b++ = '\0';
	if (!strcmp(cmd, "not-duplicate"))
		on = 1;
	else if (!strcmp(cmd, "undo-not-duplicate"))
		on = 0;
	else
		goto out;
	ret = simlist_unescape(a);
	if (!ret)
		ret = simlist_unescape(b);
	if (!ret && !views_open(v))
		ret = -EAGAIN;
	/* only books the caller may reach (as if they did not exist) */
	if (!ret && (!views_reach(v, a) || !views_reach(v, b)))
		ret = -ENOENT;
	if (!ret)
		ret = idx_exempt_set(v->ix, a, b, on);
	if (!ret)
		views_changed(v);
out:
	free(cmd);
	return ret;
}

int meta_slot(const char *rel)
{
	int i;

	for (i = 0; i < (int)(sizeof(meta_names) / sizeof(meta_names[0])); i++)
		if (!strcmp(rel, meta_names[i]))
			return i;
	return -1;
}

void meta_list(void *buf, fuse_fill_dir_t filler)
{
	size_t i;

	/* not META_CONTROL: a backup or a search of the whole mount would
	 * fail to read it */
	for (i = 0; i < sizeof(meta_names) / sizeof(meta_names[0]); i++)
		filler(buf, meta_names[i], NULL, 0, 0);
}
