/* test_idxlock.c - the one-writer lock on an index folder: exclusion
 * between open files (two takers in one process conflict like two
 * processes), the holder's record, its survival across fork(), release at
 * exit (even SIGKILL), and removal. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "idxlock.h"

static char dir[PATH_MAX / 2];

static void test_exclusive(void)
{
	struct idxlock *a = NULL, *b = NULL;
	struct idxlock_holder h;
	char why[2 * PATH_MAX + 128], want[128];

	REQUIRE(idxlock_take(&a, dir, IDXLOCK_PROG_DAEMON, "/books", "/mnt/books", NULL) == 0);
	CHECK_EQ_INT(idxlock_take(&b, dir, IDXLOCK_PROG_INDEX, "/books", NULL, &h), -EBUSY);
	CHECK(b == NULL);
	CHECK_EQ_INT(h.pid, getpid());
	CHECK_EQ_STR(h.prog, IDXLOCK_PROG_DAEMON);
	CHECK_EQ_STR(h.src, "/books");
	CHECK_EQ_STR(h.mnt, "/mnt/books");
	idxlock_describe(&h, why, sizeof(why));
	snprintf(want, sizeof(want), "/books is already served by simbookfs (pid %ld) at "
		 "/mnt/books", (long)getpid());
	CHECK_EQ_STR(why, want);
	/* a refused taker leaves the holder's record alone */
	CHECK_EQ_INT(idxlock_take(&b, dir, IDXLOCK_PROG_INDEX, "/other", NULL, &h), -EBUSY);
	CHECK_EQ_STR(h.src, "/books");
	idxlock_free(a, 0);

	REQUIRE(idxlock_take(&b, dir, IDXLOCK_PROG_INDEX, "/books", NULL, NULL) == 0);
	CHECK_EQ_INT(idxlock_take(&a, dir, IDXLOCK_PROG_DAEMON, "/books", "/m", &h), -EBUSY);
	CHECK_EQ_STR(h.prog, IDXLOCK_PROG_INDEX);
	CHECK_EQ_STR(h.mnt, "");
	idxlock_describe(&h, why, sizeof(why));
	snprintf(want, sizeof(want), "/books is already being indexed by simbook index (pid %ld)",
		 (long)getpid());
	CHECK_EQ_STR(why, want);
	idxlock_free(b, 0);
	idxlock_free(NULL, 0);
}

/* A newline in a path cannot cut the record short. */
static void test_record(void)
{
	struct idxlock *a = NULL, *b = NULL;
	struct idxlock_holder h;

	REQUIRE(idxlock_take(&a, dir, IDXLOCK_PROG_DAEMON, "/bo\noks", "/m\nnt", NULL) == 0);
	CHECK_EQ_INT(idxlock_take(&b, dir, IDXLOCK_PROG_DAEMON, "/x", "/y", &h), -EBUSY);
	CHECK_EQ_STR(h.src, "/bo?oks");
	CHECK_EQ_STR(h.mnt, "/m?nt");
	idxlock_free(a, 0);
	CHECK_EQ_INT(idxlock_take(&b, "/nonexistent/dir", IDXLOCK_PROG_DAEMON, "/x", "/y", &h),
		     -ENOENT);
}

/* The daemon's order: a process locks and forks, and exits (as
 * fuse_daemonize()'s parent does, without freeing anything); the child
 * refreshes the record and keeps the lock, which goes when it is killed. */
static void test_fork(void)
{
	struct idxlock *a = NULL, *b = NULL;
	struct idxlock_holder h;
	int pfd[2], status, i, ret = -EBUSY;
	pid_t pid = 0, first;

	REQUIRE(pipe(pfd) == 0);
	first = fork();
	REQUIRE(first >= 0);
	if (first == 0) {
		close(pfd[0]);
		if (idxlock_take(&a, dir, IDXLOCK_PROG_DAEMON, "/books", "/m", NULL))
			_exit(1);
		pid = fork();
		if (pid != 0)
			_exit(pid < 0);
		pid = getpid();
		idxlock_refresh(a);
		if (write(pfd[1], &pid, sizeof(pid)) != sizeof(pid))
			_exit(1);
		for (;;)
			pause();
	}
	close(pfd[1]);
	waitpid(first, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(read(pfd[0], &pid, sizeof(pid)) == sizeof(pid));
	close(pfd[0]);
	REQUIRE(pid > 0);
	CHECK_EQ_INT(idxlock_take(&b, dir, IDXLOCK_PROG_INDEX, "/books", NULL, &h), -EBUSY);
	CHECK_EQ_INT(h.pid, pid);
	kill(pid, SIGKILL);
	/* not our child: wait until it is gone */
	for (i = 0; i < 500 && kill(pid, 0) == 0; i++)
		usleep(10000);
	/* the kernel dropped it with the process: nothing stale */
	for (i = 0; i < 50 && ret == -EBUSY; i++) {
		ret = idxlock_take(&b, dir, IDXLOCK_PROG_INDEX, "/books", NULL, &h);
		if (ret == -EBUSY)
			usleep(10000);
	}
	CHECK_EQ_INT(ret, 0);
	idxlock_free(b, 0);
}

/* Removal takes the file away; a later taker makes a new one. */
static void test_remove(void)
{
	struct idxlock *a = NULL;
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, IDXLOCK_NAME);
	REQUIRE(idxlock_take(&a, dir, IDXLOCK_PROG_DAEMON, "/books", "/m", NULL) == 0);
	CHECK(stat(path, &st) == 0 && st.st_size > 0);
	idxlock_free(a, 1);
	CHECK(stat(path, &st) < 0 && errno == ENOENT);
	REQUIRE(idxlock_take(&a, dir, IDXLOCK_PROG_DAEMON, "/books", "/m", NULL) == 0);
	idxlock_free(a, 0);
	/* released normally, the record is emptied */
	CHECK(stat(path, &st) == 0 && st.st_size == 0);
}

/* A lock file the taker cannot write still excludes (root writes it
 * anyway: then the case is moot). */
static void test_readonly(void)
{
	struct idxlock *a = NULL, *b = NULL;
	struct idxlock_holder h;
	char path[PATH_MAX];

	if (geteuid() == 0)
		SKIP("root writes read-only files");
	snprintf(path, sizeof(path), "%s/%s", dir, IDXLOCK_NAME);
	REQUIRE(idxlock_take(&a, dir, IDXLOCK_PROG_DAEMON, "/books", "/m", NULL) == 0);
	REQUIRE(chmod(path, 0400) == 0);
	CHECK_EQ_INT(idxlock_take(&b, dir, IDXLOCK_PROG_INDEX, "/books", NULL, &h), -EBUSY);
	CHECK_EQ_INT(h.pid, getpid());
	idxlock_free(a, 0);
	REQUIRE(idxlock_take(&b, dir, IDXLOCK_PROG_INDEX, "/books", NULL, NULL) == 0);
	idxlock_free(b, 0);
	chmod(path, 0600);
}

int main(void)
{
	const char *tmp = check_tmpdir();

	if (!tmp)
		return 1;
	snprintf(dir, sizeof(dir), "%s", tmp);
	RUN(test_exclusive);
	RUN(test_record);
	RUN(test_fork);
	RUN(test_remove);
	RUN(test_readonly);
	return CHECK_DONE();
}
