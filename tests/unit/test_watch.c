/* Unit tests for watch: inotify events become file/gone/renamed/rescan calls. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "idx.h"
#include "queue.h"
#include "scan.h"
#include "watch.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char log_buf[8192];

static void on_event(void *arg, enum watch_what what, const char *path, const char *path2)
{
	static const char *const names[] = { "?", "file", "gone", "renamed", "rescan" };
	size_t len;

	(void)arg;
	pthread_mutex_lock(&lock);
	len = strlen(log_buf);
	snprintf(log_buf + len, sizeof(log_buf) - len, "%s %s%s%s\n", names[what], path,
		 path2 ? " -> " : "", path2 ? path2 : "");
	pthread_mutex_unlock(&lock);
}

/* Waits up to 3 s for line to appear in the log. */
static int saw(const char *line)
{
	int i, found = 0;

	for (i = 0; i < 300 && !found; i++) {
		pthread_mutex_lock(&lock);
		found = strstr(log_buf, line) != NULL;
		pthread_mutex_unlock(&lock);
		if (!found)
			usleep(10000);
	}
	if (!found)
		fprintf(stderr, "  missing \"%s\" in:\n%s", line, log_buf);
	return found;
}

static int write_file(int dfd, const char *rel)
{
	int fd = openat(dfd, rel, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		return -errno;
	if (write(fd, "text", 4) != 4) {
		close(fd);
		return -EIO;
	}
	return close(fd) ? -errno : 0;
}

static void test_events(void)
{
	const char *top = check_tmpdir();
	char src[PATH_MAX], out[PATH_MAX], skip[PATH_MAX + 8], cmd[PATH_MAX + 16];
	struct watch_opts o;
	struct watch_stats st;
	struct watch *w = NULL;
	int fd;

	REQUIRE(top);
	snprintf(src, sizeof(src), "%s/src", top);
	snprintf(out, sizeof(out), "%s/outside", top);
	snprintf(skip, sizeof(skip), "%s/.index", src);
	REQUIRE(mkdir(src, 0755) == 0 && mkdir(out, 0755) == 0 && mkdir(skip, 0755) == 0);
	fd = open(src, O_RDONLY | O_DIRECTORY);
	REQUIRE(fd >= 0);
	REQUIRE(mkdirat(fd, "a", 0755) == 0 && mkdirat(fd, "a/b", 0755) == 0);
	memset(&o, 0, sizeof(o));
	o.src_fd = fd;
	o.skip_dir = skip;
	o.fn = on_event;
	REQUIRE(watch_new(&w, &o) == 0);
	watch_stats(w, &st);
	CHECK_EQ_INT(st.watches, 3);	/* src, a, a/b; not .index */
	if (st.watches != 3)
		goto out;
	CHECK_EQ_INT(st.incomplete, 0);

	CHECK(write_file(fd, "a/b/one.txt") == 0);
	CHECK(saw("file a/b/one.txt\n"));
	CHECK(write_file(fd, ".index/data.mdb") == 0);
	CHECK(renameat(fd, "a/b/one.txt", fd, "a/two.txt") == 0);
	CHECK(saw("renamed a/b/one.txt -> a/two.txt\n"));
	CHECK(renameat(fd, "a", fd, "c") == 0);
	CHECK(saw("renamed a -> c\n"));
	CHECK(write_file(fd, "c/b/three.txt") == 0);	/* the moved watch knows its new path */
	CHECK(saw("file c/b/three.txt\n"));
	CHECK(unlinkat(fd, "c/two.txt", 0) == 0);
	CHECK(saw("gone c/two.txt\n"));
	CHECK(mkdirat(fd, "new", 0755) == 0);
	CHECK(saw("rescan new\n"));
	CHECK(write_file(fd, "new/four.txt") == 0);
	CHECK(saw("file new/four.txt\n"));
	/* a directory moved out of SRC is gone, and no longer watched */
	snprintf(cmd, sizeof(cmd), "%s/c", out);
	CHECK(renameat(fd, "c", AT_FDCWD, cmd) == 0);
	CHECK(saw("gone c\n"));
	{
		int ofd = open(out, O_RDONLY | O_DIRECTORY);

		CHECK(ofd >= 0 && write_file(ofd, "c/b/five.txt") == 0);
		close(ofd);
	}
	/* a file moved in from outside is a new file */
	snprintf(cmd, sizeof(cmd), "%s/six.txt", out);
	CHECK(write_file(AT_FDCWD, cmd) == 0);
	CHECK(renameat(AT_FDCWD, cmd, fd, "six.txt") == 0);
	CHECK(saw("file six.txt\n"));
	CHECK(write_file(fd, "seven.txt") == 0);
	CHECK(saw("file seven.txt\n"));
	CHECK(strstr(log_buf, "five") == NULL);
	CHECK(strstr(log_buf, ".index") == NULL);
	watch_stats(w, &st);
	CHECK_EQ_INT(st.watches, 2);	/* src, new */
	CHECK(st.events >= 9);
out:
	watch_free(w);
	close(fd);
}

/* The wiring docs/INDEX.md describes: watch events drive the index. */
struct follow {
	int src_fd;
	struct idx *ix;
	struct queue *q;
	struct scan *scan;
};

static int stat_of(int dfd, const char *path, struct idx_stat *ist)
{
	struct stat st;

	if (fstatat(dfd, path, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
		return -ENOENT;
	ist->size = (uint64_t)st.st_size;
	ist->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	ist->ctime_ns = (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec;
	ist->ino = st.st_ino;
	ist->dev = st.st_dev;
	return 0;
}

static int follow_work(void *arg, const char *path)
{
	struct follow *fl = arg;
	struct idx_stat ist;
	struct idx_file f;
	struct idx_fp fp;
	uint64_t id;
	int ret;

	if (stat_of(fl->src_fd, path, &ist))
		return -ENOENT;
	ret = idx_get(fl->ix, path, &f);
	if (ret == -ENOENT)
		ret = idx_mark_queued(fl->ix, &path, &ist, 1, &id);
	else if (ret == 0)
		id = f.id;
	idx_file_release(&f);
	if (ret)
		return ret;
	memset(&fp, 0, sizeof(fp));
	fp.simhash[0] = (uint8_t)ist.size;
	return idx_put(fl->ix, id, &ist, &fp);
}

static void follow_event(void *arg, enum watch_what what, const char *path, const char *path2)
{
	struct follow *fl = arg;

	on_event(NULL, what, path, path2);
	switch (what) {
	case WATCH_FILE:
		queue_push(fl->q, path, QUEUE_LOW);
		break;
	case WATCH_GONE:
		idx_unlink(fl->ix, path);
		break;
	case WATCH_RENAMED:
		idx_rename(fl->ix, path, path2, 0);
		break;
	case WATCH_RESCAN:
		scan_request(fl->scan);
		break;
	}
}

static int wait_state(struct idx *ix, const char *path, int want_present)
{
	struct idx_file f;
	int i, rc = -1;

	for (i = 0; i < 300; i++) {
		rc = idx_get(ix, path, &f);
		idx_file_release(&f);
		if ((rc == 0) == want_present && (rc == 0 ? f.state == IDX_INDEXED : 1))
			return 1;
		usleep(10000);
	}
	fprintf(stderr, "  %s: %s expected (%d)\n", path, want_present ? "present" : "absent", rc);
	return 0;
}

static void test_index_follows(void)
{
	const char *src = check_tmpdir();
	char idxdir[PATH_MAX + 8];
	struct queue_opts qo;
	struct watch_opts o;
	struct follow fl;
	struct watch *w = NULL;
	struct idx_file f;
	uint64_t id;

	REQUIRE(src);
	snprintf(idxdir, sizeof(idxdir), "%s/.index", src);
	fl.src_fd = open(src, O_RDONLY | O_DIRECTORY);
	REQUIRE(fl.src_fd >= 0);
	REQUIRE(idx_open(&fl.ix, idxdir, NULL) == 0);
	memset(&qo, 0, sizeof(qo));
	qo.threads = 1;
	qo.fn = follow_work;
	qo.arg = &fl;
	REQUIRE(queue_new(&fl.q, &qo) == 0);
	{
		struct scan_opts so;

		memset(&so, 0, sizeof(so));
		so.src_fd = fl.src_fd;
		so.ix = fl.ix;
		so.q = fl.q;
		so.skip_dir = idxdir;
		REQUIRE(scan_new(&fl.scan, &so) == 0);
	}
	memset(&o, 0, sizeof(o));
	o.src_fd = fl.src_fd;
	o.skip_dir = idxdir;
	o.fn = follow_event;
	o.arg = &fl;
	REQUIRE(watch_new(&w, &o) == 0);
	REQUIRE(mkdirat(fl.src_fd, "shelf", 0755) == 0);
	CHECK(write_file(fl.src_fd, "shelf/book.txt") == 0);
	CHECK(wait_state(fl.ix, "shelf/book.txt", 1));
	REQUIRE(idx_get(fl.ix, "shelf/book.txt", &f) == 0);
	id = f.id;
	idx_file_release(&f);
	CHECK(renameat(fl.src_fd, "shelf", fl.src_fd, "case") == 0);
	CHECK(wait_state(fl.ix, "case/book.txt", 1));
	CHECK(wait_state(fl.ix, "shelf/book.txt", 0));
	if (idx_get(fl.ix, "case/book.txt", &f) == 0) {
		CHECK_EQ_INT(f.id, id);	/* renamed behind the back: same book */
		idx_file_release(&f);
	}
	CHECK(unlinkat(fl.src_fd, "case/book.txt", 0) == 0);
	CHECK(wait_state(fl.ix, "case/book.txt", 0));
	watch_free(w);
	scan_free(fl.scan);
	queue_free(fl.q);
	idx_close(fl.ix);
	close(fl.src_fd);
}

/* Blocks the watch thread so the kernel queue overflows. */
static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;

static void gated_event(void *arg, enum watch_what what, const char *path, const char *path2)
{
	pthread_mutex_lock(&gate);
	pthread_mutex_unlock(&gate);
	if (strncmp(path, "f0", 2) != 0)	/* keep the log short */
		on_event(arg, what, path, path2);
}

static void test_overflow(void)
{
	const char *src;
	char name[32];
	struct watch_opts o;
	struct watch_stats st;
	struct watch *w = NULL;
	long limit = 16384;
	FILE *f;
	int fd, i, n;

	f = fopen("/proc/sys/fs/inotify/max_queued_events", "r");
	if (f) {
		if (fscanf(f, "%ld", &limit) != 1)
			limit = 16384;
		fclose(f);
	}
	if (limit > 40000)
		SKIP("max_queued_events too large to overflow quickly");
	src = check_tmpdir();
	REQUIRE(src);
	fd = open(src, O_RDONLY | O_DIRECTORY);
	REQUIRE(fd >= 0);
	log_buf[0] = '\0';
	memset(&o, 0, sizeof(o));
	o.src_fd = fd;
	o.fn = gated_event;
	REQUIRE(watch_new(&w, &o) == 0);
	pthread_mutex_lock(&gate);
	/* each empty file gives two events (create, close after write) */
	n = (int)(limit / 2 + 1000);
	for (i = 0; i < n; i++) {
		int ffd;

		snprintf(name, sizeof(name), "f%06d", i);
		ffd = openat(fd, name, O_WRONLY | O_CREAT, 0644);
		if (ffd < 0)
			break;
		close(ffd);
	}
	CHECK(mkdirat(fd, "late", 0755) == 0);	/* its event is lost in the overflow */
	pthread_mutex_unlock(&gate);
	CHECK(saw("rescan \n"));
	watch_stats(w, &st);
	CHECK(st.overflows >= 1);
	CHECK(write_file(fd, "late/x.txt") == 0);	/* watched again after the overflow */
	CHECK(saw("file late/x.txt\n"));
	watch_free(w);
	close(fd);
}

int main(void)
{
	RUN(test_events);
	RUN(test_overflow);
	RUN(test_index_follows);
	return CHECK_DONE();
}
