/* check.h - a tiny test harness for the unit tests.
 *
 * Each test program defines test functions and runs them with RUN(fn).
 * CHECK(cond) records a failure with file:line and carries on; REQUIRE(cond)
 * also returns from the current test.  The program prints one TAP-ish line per
 * test and exits non-zero if any check failed, 77 if every test skipped.
 * SKIP(reason) ends the current test as skipped.  check_tmpdir() gives a test
 * a scratch folder of its own (see below).
 */
#ifndef CHECK_H
#define CHECK_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static int check_failed_total, check_run, check_skipped, check_cur_failed, check_cur_skipped;

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "  FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
	check_cur_failed++; } } while (0)
#define REQUIRE(cond) do { if (!(cond)) { \
	fprintf(stderr, "  FAIL %s:%d: %s (required)\n", __FILE__, __LINE__, #cond); \
	check_cur_failed++; return; } } while (0)
#define CHECK_EQ_INT(a, b) do { long long check_a_ = (long long)(a), check_b_ = (long long)(b); \
	if (check_a_ != check_b_) { fprintf(stderr, "  FAIL %s:%d: %s == %s (%lld != %lld)\n", \
	__FILE__, __LINE__, #a, #b, check_a_, check_b_); check_cur_failed++; } } while (0)
#define CHECK_EQ_STR(a, b) do { const char *check_a_ = (a), *check_b_ = (b); \
	if (!check_a_ || !check_b_ || strcmp(check_a_, check_b_) != 0) { \
	fprintf(stderr, "  FAIL %s:%d: %s == %s (\"%s\" != \"%s\")\n", __FILE__, __LINE__, \
	#a, #b, check_a_ ? check_a_ : "(null)", check_b_ ? check_b_ : "(null)"); \
	check_cur_failed++; } } while (0)
#define SKIP(reason) do { fprintf(stderr, "  skip: %s\n", (reason)); \
	check_cur_skipped = 1; return; } while (0)

#define RUN(fn) do { int check_mark_ = check_tmp_n; \
	check_cur_failed = 0; check_cur_skipped = 0; fn(); check_run++; \
	if (check_tmp_drop(check_mark_) != 0) check_cur_failed++; \
	if (check_cur_skipped && !check_cur_failed) { check_skipped++; printf("ok - %s # SKIP\n", #fn); } \
	else if (check_cur_failed) { check_failed_total++; printf("not ok - %s\n", #fn); } \
	else { printf("ok - %s\n", #fn); } \
	fflush(stdout); } while (0)

/* Scratch folders.  Tests that run at the same time (two checkouts, two
 * engineers, CI next to a working copy) must never share a path, so every
 * folder a test writes in comes from here: mkdtemp() under $TMPDIR (/tmp
 * when unset), named after the program.  A folder made inside a RUN() test
 * is removed with everything in it when that test returns, whichever way
 * (REQUIRE included); one made outside a test (in main) when the program
 * exits.  Only the process that made a folder removes it, so a forked child
 * that calls exit() leaves its parent's folders alone. */
#define CHECK_TMP_MAX 16
static char check_tmp[CHECK_TMP_MAX][PATH_MAX];
static int check_tmp_n;
static pid_t check_tmp_pid;

/* Empties the folder open as dfd (closed here).  It descends by descriptor,
 * so a tree deeper than PATH_MAX (test_fspath makes one) goes too. */
static inline int check_tmp_empty(int dfd)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;
	int ret = 0;

	if (!d) {
		close(dfd);
		return -1;
	}
	while ((e = readdir(d))) {
		int sub;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) == 0 || errno == ENOENT)
			continue;
		sub = errno == EISDIR ? openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW) : -1;
		if (sub < 0 || check_tmp_empty(sub) != 0 || unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR) != 0) {
			fprintf(stderr, "  cannot remove %s: %s\n", e->d_name, strerror(errno));
			ret = -1;
		}
	}
	closedir(d);
	return ret;
}

/* Removes the folders made after the first mark ones; -1 if one could not
 * be removed whole. */
static inline int check_tmp_drop(int mark)
{
	int ret = 0;

	if (check_tmp_pid != getpid())
		return 0;
	while (check_tmp_n > mark) {
		const char *p = check_tmp[--check_tmp_n];
		int fd = open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);

		if (fd < 0 || check_tmp_empty(fd) != 0 || rmdir(p) != 0) {
			fprintf(stderr, "  cannot remove %s: %s\n", p, strerror(errno));
			ret = -1;
		}
	}
	return ret;
}

static inline void check_tmp_atexit(void)
{
	check_tmp_drop(0);
}

/* Returns the path of a new empty folder, owned by the harness and valid
 * until the folder is removed as above, or NULL (the reason printed). */
static inline const char *check_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char *p;

	if (!base || !*base)
		base = "/tmp";
	if (check_tmp_n == CHECK_TMP_MAX) {
		fprintf(stderr, "  check_tmpdir: more than %d folders at once\n", CHECK_TMP_MAX);
		return NULL;
	}
	if (!check_tmp_pid) {
		check_tmp_pid = getpid();
		atexit(check_tmp_atexit);
	}
	p = check_tmp[check_tmp_n];
	if (snprintf(p, PATH_MAX, "%s/simbook-%s.XXXXXX", base, program_invocation_short_name)
	    >= PATH_MAX) {
		fprintf(stderr, "  check_tmpdir: TMPDIR too long\n");
		return NULL;
	}
	if (!mkdtemp(p)) {
		fprintf(stderr, "  check_tmpdir: mkdtemp %s: %s\n", p, strerror(errno));
		return NULL;
	}
	check_tmp_n++;
	return p;
}

#define CHECK_DONE() (check_failed_total ? 1 : (check_run && check_skipped == check_run) ? 77 : 0)

#endif
