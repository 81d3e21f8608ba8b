/* Unit tests for scan: first scan, no-change rescan, changes, offline renames,
 * skipped entries, record versions, background runs. */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "idx.h"
#include "queue.h"
#include "scan.h"

static char src[PATH_MAX], idxdir[PATH_MAX + 8];
static int src_fd = -1;
static struct idx *ix;
static atomic_uint work_calls;
static uint32_t put_version = 3;

static int write_file(const char *rel, const char *text)
{
	int fd = openat(src_fd, rel, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -EIO;
}

/* What the real worker will do, minus extraction: stat, fingerprint, put. */
static int fake_work(void *arg, const char *path)
{
	struct idx_file f;
	struct idx_stat ist;
	struct idx_fp fp;
	struct stat st;
	int ret;

	(void)arg;
	work_calls++;
	ret = idx_get(ix, path, &f);
	if (ret)
		return ret;
	if (fstatat(src_fd, path, &st, AT_SYMLINK_NOFOLLOW)) {
		idx_file_release(&f);
		return -errno;
	}
	ist.size = (uint64_t)st.st_size;
	ist.mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	ist.ctime_ns = (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec;
	ist.ino = st.st_ino;
	ist.dev = st.st_dev;
	memset(&fp, 0, sizeof(fp));
	memcpy(fp.simhash, &f.id, sizeof(f.id));
	fp.rec_version = put_version;
	ret = idx_put(ix, f.id, &ist, &fp);
	idx_file_release(&f);
	return ret;
}

static int setup(void)
{
	const char *dir = check_tmpdir();
	char p[64];
	int d, i;

	if (!dir)
		return -EIO;
	snprintf(src, sizeof(src), "%s", dir);
	src_fd = open(src, O_RDONLY | O_DIRECTORY);
	if (src_fd < 0)
		return -errno;
	snprintf(idxdir, sizeof(idxdir), "%s/.index", src);
	/* 30 directories (some nested) of 100 files */
	for (d = 0; d < 30; d++) {
		if (d < 10)
			snprintf(p, sizeof(p), "d%02d", d);
		else
			snprintf(p, sizeof(p), "d%02d/n%02d", d % 10, d);
		if (mkdirat(src_fd, p, 0755))
			return -errno;
		for (i = 0; i < 100; i++) {
			char f[96];

			snprintf(f, sizeof(f), "%s/book%03d.txt", p, i);
			if (write_file(f, f))
				return -EIO;
		}
	}
	if (symlinkat("d00/book000.txt", src_fd, "link.txt") || mkfifoat(src_fd, "fifo.txt", 0644))
		return -errno;
	if (symlinkat("d01", src_fd, "dirlink"))
		return -errno;
	return idx_open(&ix, idxdir, NULL);
}

static void teardown(void)
{
	idx_close(ix);
	ix = NULL;
	if (src_fd >= 0)
		close(src_fd);
	src_fd = -1;
}

static int scan_once(struct queue *q, uint32_t rec_version, struct scan_progress *pr)
{
	struct scan_opts o = { src_fd, NULL, ix, q, idxdir, rec_version, 0, 0 };
	struct scan *s = NULL;
	int ret = scan_new(&s, &o);

	if (ret)
		return ret;
	ret = scan_run(s);
	scan_progress(s, pr);
	scan_free(s);
	if (ret == 0 && q)
		ret = queue_wait_idle(q, 60000);
	return ret;
}

static void test_scan_cycle(void)
{
	struct queue_opts qo = { 2, 0, fake_work, NULL };
	struct scan_progress pr;
	struct idx_counts c;
	struct idx_file f;
	struct queue *q = NULL;
	uint64_t moved_id, dir_id, edited_id;
	int i;

	REQUIRE(setup() == 0);
	REQUIRE(queue_new(&q, &qo) == 0);

	/* first scan: everything is new */
	REQUIRE(scan_once(q, 0, &pr) == 0);
	CHECK_EQ_INT(pr.files, 3000);
	CHECK_EQ_INT(pr.queued, 3000);
	CHECK_EQ_INT(pr.dirs, 31);
	CHECK_EQ_INT(pr.errors, 0);
	CHECK_EQ_INT(pr.running, 0);
	REQUIRE(idx_counts(ix, &c) == 0);
	CHECK_EQ_INT(c.files, 3000);
	CHECK_EQ_INT(c.books, 3000);
	CHECK_EQ_INT(c.state[IDX_QUEUED], 0);
	CHECK_EQ_INT(idx_get(ix, "link.txt", &f), -ENOENT);
	CHECK_EQ_INT(idx_get(ix, "fifo.txt", &f), -ENOENT);
	CHECK_EQ_INT(idx_get(ix, "dirlink/book000.txt", &f), -ENOENT);

	/* no change: nothing queued */
	work_calls = 0;
	REQUIRE(scan_once(q, 0, &pr) == 0);
	CHECK_EQ_INT(pr.unchanged, 3000);
	CHECK_EQ_INT(pr.queued, 0);
	CHECK_EQ_INT(pr.removed, 0);
	CHECK_EQ_INT(work_calls, 0);

	/* changes behind the index's back */
	REQUIRE(idx_get(ix, "d02/book005.txt", &f) == 0);
	moved_id = f.id;
	idx_file_release(&f);
	REQUIRE(idx_get(ix, "d03/n13/book007.txt", &f) == 0);
	dir_id = f.id;
	idx_file_release(&f);
	REQUIRE(idx_get(ix, "d04/book000.txt", &f) == 0);
	edited_id = f.id;
	idx_file_release(&f);
	for (i = 0; i < 10; i++) {	/* edited: size changes */
		char p[64];

		snprintf(p, sizeof(p), "d04/book%03d.txt", i);
		CHECK(write_file(p, "a longer text than before, so the size changes") == 0);
	}
	for (i = 0; i < 5; i++) {	/* deleted */
		char p[64];

		snprintf(p, sizeof(p), "d05/book%03d.txt", i);
		CHECK(unlinkat(src_fd, p, 0) == 0);
	}
	for (i = 0; i < 7; i++) {	/* added */
		char p[64];

		snprintf(p, sizeof(p), "d06/new%03d.txt", i);
		CHECK(write_file(p, p) == 0);
	}
	CHECK(renameat(src_fd, "d02/book005.txt", src_fd, "d07/moved.txt") == 0);
	CHECK(renameat(src_fd, "d03/n13", src_fd, "d08/n13-renamed") == 0);
	{	/* touched: only the times change */
		struct timespec ts[2] = { { 1000, 0 }, { 1000, 0 } };

		CHECK(utimensat(src_fd, "d09/book050.txt", ts, 0) == 0);
	}
	work_calls = 0;
	REQUIRE(scan_once(q, 0, &pr) == 0);
	CHECK_EQ_INT(pr.files, 3000 - 5 + 7);
	CHECK_EQ_INT(pr.renamed, 101);
	CHECK_EQ_INT(pr.removed, 5);
	CHECK_EQ_INT(pr.queued, 10 + 7 + 101 + 1);
	CHECK_EQ_INT(pr.unchanged, 3000 - 5 - 10 - 101 - 1);
	REQUIRE(idx_get(ix, "d07/moved.txt", &f) == 0);
	CHECK_EQ_INT(f.id, moved_id);
	CHECK_EQ_INT(f.state, IDX_INDEXED);
	idx_file_release(&f);
	REQUIRE(idx_get(ix, "d08/n13-renamed/book007.txt", &f) == 0);
	CHECK_EQ_INT(f.id, dir_id);
	idx_file_release(&f);
	REQUIRE(idx_get(ix, "d04/book000.txt", &f) == 0);
	CHECK_EQ_INT(f.id, edited_id);	/* edited in place: same id, new fingerprint */
	CHECK_EQ_INT(f.st.size, strlen("a longer text than before, so the size changes"));
	idx_file_release(&f);
	CHECK_EQ_INT(idx_get(ix, "d02/book005.txt", &f), -ENOENT);
	CHECK_EQ_INT(idx_get(ix, "d05/book000.txt", &f), -ENOENT);
	REQUIRE(idx_counts(ix, &c) == 0);
	CHECK_EQ_INT(c.files, 3002);
	CHECK_EQ_INT(c.books, 3002);
	CHECK_EQ_INT(c.state[IDX_QUEUED], 0);

	/* and stable again */
	REQUIRE(scan_once(q, 0, &pr) == 0);
	CHECK_EQ_INT(pr.queued, 0);
	CHECK_EQ_INT(pr.unchanged, 3002);

	/* a new record version re-queues every book */
	put_version = 4;
	REQUIRE(scan_once(q, 4, &pr) == 0);
	CHECK_EQ_INT(pr.queued, 3002);
	REQUIRE(scan_once(q, 4, &pr) == 0);
	CHECK_EQ_INT(pr.queued, 0);

	/* a whole directory removed */
	{
		char cmd[PATH_MAX + 32];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s/d01'", src);
		CHECK(system(cmd) == 0);
	}
	REQUIRE(scan_once(q, 4, &pr) == 0);
	CHECK_EQ_INT(pr.removed, 300);	/* with d01/n11 and d01/n21 */
	REQUIRE(idx_counts(ix, &c) == 0);
	CHECK_EQ_INT(c.files, 2702);
	queue_free(q);
	teardown();
}

/* Without a queue files are only marked; interrupted work is redone. */
static void test_mark_only_and_background(void)
{
	struct scan_opts o;
	struct scan_progress pr;
	struct idx_counts c;
	struct scan *s = NULL;

	REQUIRE(setup() == 0);
	memset(&o, 0, sizeof(o));
	o.src_fd = -1;
	o.src = src;
	o.ix = ix;
	o.skip_dir = idxdir;
	REQUIRE(scan_new(&s, &o) == 0);
	REQUIRE(scan_start(s) == 0);
	CHECK(scan_start(s) == -EBUSY || scan_wait(s) == 0);
	CHECK_EQ_INT(scan_wait(s), 0);
	scan_progress(s, &pr);
	CHECK_EQ_INT(pr.running, 0);
	CHECK(pr.runs >= 1);
	REQUIRE(idx_counts(ix, &c) == 0);
	CHECK_EQ_INT(c.state[IDX_QUEUED], 3000);
	/* still queued: a rescan queues them again */
	REQUIRE(scan_run(s) == 0);
	scan_progress(s, &pr);
	CHECK_EQ_INT(pr.queued, 3000);
	/* a request while a scan runs makes it run once more */
	{
		uint64_t runs0;

		scan_progress(s, &pr);
		runs0 = pr.runs;
		REQUIRE(scan_start(s) == 0);
		CHECK_EQ_INT(scan_request(s), 0);
		CHECK_EQ_INT(scan_request(s), 0);
		CHECK_EQ_INT(scan_wait(s), 0);
		scan_progress(s, &pr);
		CHECK(pr.runs == runs0 + 2 || pr.runs == runs0 + 3);
		CHECK_EQ_INT(pr.running, 0);
		CHECK_EQ_INT(scan_request(s), 0);	/* idle: starts one */
		CHECK_EQ_INT(scan_wait(s), 0);
	}
	/* cancel stops early */
	REQUIRE(scan_start(s) == 0);
	scan_cancel(s);
	{
		int r = scan_wait(s);

		CHECK(r == 0 || r == -ECANCELED);
	}
	scan_free(s);
	o.src = "/nonexistent/dir";
	CHECK_EQ_INT(scan_new(&s, &o), -ENOENT);
	teardown();
}

int main(void)
{
	RUN(test_scan_cycle);
	RUN(test_mark_only_and_background);
	return CHECK_DONE();
}
