/* Unit tests for watch: inotify events become file/gone/renamed/rescan calls. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
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
	char top[64] = "/tmp/test_watch.XXXXXX", src[128], out[128], skip[160], cmd[200];
	struct watch_opts o;
	struct watch_stats st;
	struct watch *w = NULL;
	int fd;

	REQUIRE(mkdtemp(top));
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
	if (st.watches != 3) {
		watch_free(w);
		close(fd);
		return;
	}
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
	watch_free(w);
	close(fd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	CHECK(system(cmd) == 0);
}

int main(void)
{
	RUN(test_events);
	return CHECK_DONE();
}
