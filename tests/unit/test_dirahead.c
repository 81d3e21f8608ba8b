/* Unit tests for dirahead: a directory listed through the helper gives every
 * entry once, in stream order, with the attributes lstat gives; offsets
 * resume where a piece stopped; attributes fetched ahead of a change are
 * fetched again; a directory freed while the helper reads it is safe. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "dirahead.h"

#define NFILES 1500

static int dfd = -1;
static _Atomic uint64_t gen;

static DIR *open_dir(void)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	return fd < 0 ? NULL : fdopendir(fd);
}

/* Lets the helper run ahead for up to 20 ms (it may finish sooner). */
static void let_helper_run(void)
{
	const struct timespec ms = { 0, 1000 * 1000 };
	int i;

	for (i = 0; i < 20; i++)
		nanosleep(&ms, NULL);
}

/* Lists d from its position to the end, taking at most max entries (0: no
 * limit) and asking the helper for ahead entries after each piece of 100.
 * Checks every entry against lstat; marks seen[i] for "f<i>".  Returns the
 * number taken, -1 on a failed check. */
static int list(struct dirahead_dir *d, unsigned max, unsigned ahead, unsigned char *seen)
{
	struct dirahead_entry e;
	struct stat st;
	unsigned n = 0;
	int ret;

	while ((!max || n < max) && (ret = dirahead_peek(d, true, &e)) == 1) {
		if (strcmp(e.name, ".") && strcmp(e.name, "..")) {
			long i = strtol(e.name + 1, NULL, 10);

			if (e.name[0] != 'f' || i < 0 || i >= NFILES || e.st_err != 0 ||
			    fstatat(dfd, e.name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
			    st.st_ino != e.st.st_ino || st.st_mode != e.st.st_mode ||
			    st.st_size != e.st.st_size || e.ino != st.st_ino)
				return -1;
			seen[i]++;
		}
		dirahead_take(d);
		if (++n % 100 == 0)
			dirahead_ahead(d, ahead);
	}
	return (int)n;
}

static void test_whole(void)
{
	static unsigned char seen[NFILES];
	struct dirahead_dir *d = NULL;
	struct dirahead *dra = NULL;
	int i, n;

	REQUIRE(dirahead_new(&dra, &gen) == 0);
	REQUIRE(dirahead_dir_new(dra, open_dir(), &d) == 0);
	dirahead_ahead(d, 500);
	let_helper_run();
	n = list(d, 0, 300, seen);
	CHECK_EQ_INT(n, NFILES + 2);
	for (i = 0; i < NFILES; i++)
		CHECK_EQ_INT(seen[i], 1);
	dirahead_dir_free(d);
	dirahead_free(dra);
}

/* Pieces at telldir() offsets: an offset where the last piece stopped keeps
 * what was read ahead; 0 starts again; any earlier offset resumes there. */
static void test_pieces(void)
{
	static unsigned char seen[NFILES];
	struct dirahead_dir *d = NULL;
	struct dirahead *dra = NULL;
	struct dirahead_entry e;
	long mid;
	int i, n;

	REQUIRE(dirahead_new(&dra, &gen) == 0);
	REQUIRE(dirahead_dir_new(dra, open_dir(), &d) == 0);
	/* Half, with the helper ahead, then the rest from where it stopped. */
	dirahead_seek(d, 0);
	n = list(d, 1000, 200, seen);
	REQUIRE(n == 1000);
	REQUIRE(dirahead_peek(d, false, &e) == 1);
	mid = e.next;
	dirahead_ahead(d, 700);
	let_helper_run();
	dirahead_seek(d, mid);
	n = list(d, 0, 200, seen);
	/* mid is the offset after the entry peeked but not taken: the seek
	 * skips that one, like any entry before the offset asked for. */
	CHECK_EQ_INT(n, NFILES + 2 - 1000 - 1);
	/* From the start again, everything once more. */
	memset(seen, 0, sizeof(seen));
	dirahead_ahead(d, 100);
	dirahead_seek(d, 0);
	n = list(d, 0, 1000, seen);
	CHECK_EQ_INT(n, NFILES + 2);
	for (i = 0; i < NFILES; i++)
		CHECK_EQ_INT(seen[i], 1);
	CHECK_EQ_INT(dirahead_peek(d, true, &e), 0);
	dirahead_dir_free(d);
	dirahead_free(dra);
}

/* Attributes fetched ahead, then a change and a generation bump: the entry
 * taken afterwards has the new attributes. */
static void test_generation(void)
{
	struct dirahead_dir *d = NULL;
	struct dirahead *dra = NULL;
	struct dirahead_entry e;
	int ret, found = 0;

	REQUIRE(dirahead_new(&dra, &gen) == 0);
	REQUIRE(dirahead_dir_new(dra, open_dir(), &d) == 0);
	dirahead_ahead(d, DRA_MAX_AHEAD);
	let_helper_run();
	/* Whatever the helper read, every file changes now. */
	REQUIRE(fchmodat(dfd, "f7", 0600, 0) == 0);
	REQUIRE(fchmodat(dfd, "f1499", 0600, 0) == 0);
	atomic_fetch_add(&gen, 1);
	while ((ret = dirahead_peek(d, true, &e)) == 1) {
		if (!strcmp(e.name, "f7") || !strcmp(e.name, "f1499")) {
			CHECK_EQ_INT(e.st_err, 0);
			CHECK_EQ_INT(e.st.st_mode & 07777, 0600);
			found++;
		}
		dirahead_take(d);
	}
	CHECK_EQ_INT(ret, 0);
	CHECK_EQ_INT(found, 2);
	/* A name gone since it was read: its attributes fail, the entry stays. */
	dirahead_seek(d, 0);
	dirahead_ahead(d, DRA_MAX_AHEAD);
	let_helper_run();
	REQUIRE(renameat(dfd, "f9", dfd, "g9") == 0);
	atomic_fetch_add(&gen, 1);
	found = 0;
	while ((ret = dirahead_peek(d, true, &e)) == 1) {
		if (!strcmp(e.name, "f9")) {
			CHECK_EQ_INT(e.st_err, -ENOENT);
			found++;
		}
		dirahead_take(d);
	}
	CHECK_EQ_INT(found, 1);
	REQUIRE(renameat(dfd, "g9", dfd, "f9") == 0);
	REQUIRE(fchmodat(dfd, "f7", 0644, 0) == 0);
	REQUIRE(fchmodat(dfd, "f1499", 0644, 0) == 0);
	dirahead_dir_free(d);
	dirahead_free(dra);
}

/* Directories freed while the helper is busy with them, and a dra freed
 * with jobs queued for directories already gone. */
static void test_free_busy(void)
{
	struct dirahead_dir *d[4] = { 0 };
	struct dirahead *dra = NULL;
	int round, i;

	REQUIRE(dirahead_new(&dra, &gen) == 0);
	for (round = 0; round < 20; round++) {
		for (i = 0; i < 4; i++) {
			REQUIRE(dirahead_dir_new(dra, open_dir(), &d[i]) == 0);
			dirahead_ahead(d[i], DRA_MAX_AHEAD);
		}
		for (i = 3; i >= 0; i--)
			dirahead_dir_free(d[i]);
	}
	dirahead_free(dra);
	/* Never started: nothing to join. */
	REQUIRE(dirahead_new(&dra, &gen) == 0);
	dirahead_free(dra);
}

int main(void)
{
	const char *dir = check_tmpdir();	/* the listed folder */
	char name[32];
	int i, fd;

	if (!dir)
		return 1;
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	if (dfd < 0)
		return 1;
	for (i = 0; i < NFILES; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0 || write(fd, name, (size_t)(i % 17)) < 0 || close(fd) < 0)
			return 1;
	}
	RUN(test_whole);
	RUN(test_pieces);
	RUN(test_generation);
	RUN(test_free_busy);
	close(dfd);	/* the folder goes at exit, with the files */
	return CHECK_DONE();
}
