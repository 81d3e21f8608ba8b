/* Unit tests for fspath: short and over-long path resolution, parents,
 * /proc forms and top-level name matching. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "fspath.h"

static int rootfd = -1;

static void test_short(void)
{
	struct fspath fp = FSPATH_INIT;
	struct stat st;

	REQUIRE(fspath_resolve(&fp, rootfd, "/") == 0);
	CHECK_EQ_STR(fp.name, ".");
	CHECK(fp.dirfd == rootfd && !fp.owned);
	CHECK(fstatat(fp.dirfd, fp.name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode));
	fspath_release(&fp);
	REQUIRE(fspath_resolve(&fp, rootfd, "/a") == 0);
	CHECK_EQ_STR(fp.name, "a");
	CHECK(fp.dirfd == rootfd && !fp.owned);
	fspath_release(&fp);
	CHECK(fp.dirfd == -1);
	CHECK_EQ_INT(fspath_resolve(&fp, rootfd, "/a/b"), -ENOENT);
	REQUIRE(mkdirat(rootfd, "a", 0755) == 0);
	REQUIRE(fspath_resolve(&fp, rootfd, "/a/b") == 0);
	CHECK_EQ_STR(fp.name, "b");
	CHECK(fp.owned && fp.dirfd != rootfd);
	fspath_release(&fp);
}

/* Builds dirs of 200-byte names under rootfd, depth levels deep, and
 * returns the FUSE path "/c/c/.../leaf" (malloc'd). */
static char *make_deep(int depth)
{
	char comp[201], *path;
	size_t len = 0;
	int fd = dup(rootfd), nfd, i;

	memset(comp, 'c', 200);
	comp[200] = '\0';
	path = malloc((size_t)depth * 201 + 16);
	if (!path || fd < 0)
		return NULL;
	for (i = 0; i < depth; i++) {
		if (mkdirat(fd, comp, 0755) < 0 && errno != EEXIST)
			return NULL;
		nfd = openat(fd, comp, O_PATH | O_DIRECTORY);
		close(fd);
		if (nfd < 0)
			return NULL;
		fd = nfd;
		path[len++] = '/';
		memcpy(path + len, comp, 200);
		len += 200;
	}
	nfd = openat(fd, "leaf", O_CREAT | O_WRONLY, 0644);
	if (nfd >= 0)
		close(nfd);
	close(fd);
	memcpy(path + len, "/leaf", 6);
	return path;
}

static void test_long(void)
{
	struct fspath fp = FSPATH_INIT;
	struct stat st;
	char *path = make_deep(30);
	long fds_before, fds_after;

	REQUIRE(path && strlen(path) > PATH_MAX);
	fds_before = (long)dup(0);
	close((int)fds_before);
	REQUIRE(fspath_resolve(&fp, rootfd, path) == 0);
	CHECK(fp.owned && fp.dirfd != rootfd);
	CHECK_EQ_STR(fp.name, "leaf");
	CHECK(fstatat(fp.dirfd, fp.name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode));
	CHECK(fspath_parent_stat(&fp, &st) == 0 && S_ISDIR(st.st_mode));
	fspath_release(&fp);
	fds_after = (long)dup(0);
	close((int)fds_after);
	CHECK_EQ_INT(fds_after, fds_before);	/* nothing leaked */

	/* A missing middle component gives the walk's errno. */
	path[250] = 'X';
	CHECK_EQ_INT(fspath_resolve(&fp, rootfd, path), -ENOENT);
	free(path);
}

static void test_proc(void)
{
	struct fspath fp = FSPATH_INIT;
	char proc[PATH_MAX];
	struct stat st;
	char big[600] = "/x/";

	REQUIRE(mkdirat(rootfd, "x", 0755) == 0 || errno == EEXIST);
	REQUIRE(mkdirat(rootfd, "x/y", 0755) == 0 || errno == EEXIST);
	REQUIRE(fspath_resolve(&fp, rootfd, "/x/y/z") == 0);
	CHECK(fp.owned);
	CHECK_EQ_STR(fp.name, "z");
	CHECK(fspath_proc(&fp, proc, sizeof(proc)) == 0);
	CHECK(strncmp(proc, "/proc/self/fd/", 14) == 0);
	CHECK(strcmp(proc + strlen(proc) - 2, "/z") == 0);
	fspath_release(&fp);
	REQUIRE(fspath_resolve(&fp, rootfd, "/x/y") == 0);
	REQUIRE(fspath_proc(&fp, proc, sizeof(proc)) == 0);
	CHECK(lstat(proc, &st) == 0 && S_ISDIR(st.st_mode));
	CHECK(fspath_proc(&fp, proc, 10) == -ENAMETOOLONG);
	CHECK(fspath_parent_stat(&fp, &st) == 0 && S_ISDIR(st.st_mode));
	fspath_release(&fp);
	/* No component may exceed NAME_MAX. */
	memset(big + 3, 'n', 300);
	CHECK_EQ_INT(fspath_resolve(&fp, rootfd, big), -ENAMETOOLONG);
	CHECK_EQ_INT(fspath_resolve(&fp, rootfd, big + 2), -ENAMETOOLONG);
}

/* A directory swapped for a symlink (here one
 * pointing out of the root) stops the walk instead of leading elsewhere. */
static void test_no_symlinks(void)
{
	struct fspath fp = FSPATH_INIT;
	struct stat st;
	int ret;

	REQUIRE(mkdirat(rootfd, "x", 0755) == 0 || errno == EEXIST);
	REQUIRE(mkdirat(rootfd, "x/y", 0755) == 0 || errno == EEXIST);
	REQUIRE(symlinkat("/etc", rootfd, "lnk") == 0 || errno == EEXIST);
	ret = fspath_resolve(&fp, rootfd, "/lnk/passwd");
	CHECK(ret == -ENOTDIR || ret == -ELOOP);
	REQUIRE(symlinkat("y", rootfd, "x/sl") == 0 || errno == EEXIST);
	ret = fspath_resolve(&fp, rootfd, "/x/sl/z/w");
	CHECK(ret == -ENOTDIR || ret == -ELOOP);
	CHECK_EQ_INT(fspath_resolve(&fp, rootfd, "/x/lnk2/z"), -ENOENT);
	REQUIRE(fspath_resolve(&fp, rootfd, "/x/y/z") == 0);
	CHECK(fp.owned);
	CHECK_EQ_STR(fp.name, "z");
	CHECK(fspath_parent_stat(&fp, &st) == 0 && S_ISDIR(st.st_mode));
	fspath_release(&fp);
	/* A single component needs no walk; the caller does not follow it. */
	REQUIRE(fspath_resolve(&fp, rootfd, "/lnk") == 0);
	CHECK(!fp.owned && fp.dirfd == rootfd);
	CHECK(fstatat(fp.dirfd, fp.name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode));
	fspath_release(&fp);
}

static void test_under(void)
{
	CHECK_EQ_STR(fspath_under("/similar", "similar", 7), "");
	CHECK_EQ_STR(fspath_under("/similar/a/b", "similar", 7), "/a/b");
	CHECK(fspath_under("/similarity", "similar", 7) == NULL);
	CHECK(fspath_under("/simil", "similar", 7) == NULL);
	CHECK(fspath_under("/x/similar", "similar", 7) == NULL);
	CHECK(fspath_under("/", "similar", 7) == NULL);
}

/* libfuse's name for an open file unlinked through the mount, exactly. */
static void test_fuse_hidden(void)
{
	CHECK(fspath_fuse_hidden(".fuse_hidden0000000a00000001"));
	CHECK(fspath_fuse_hidden("/a/b/.fuse_hidden000000ff0000abcd"));
	CHECK(fspath_fuse_hidden("a/.fuse_hiddenDEADBEEF00000001"));
	CHECK(!fspath_fuse_hidden("/.fuse_hidden0000000a00000001/book.txt"));
	CHECK(!fspath_fuse_hidden(".fuse_hidden0000000a0000000"));	/* 15 digits */
	CHECK(!fspath_fuse_hidden(".fuse_hidden0000000a000000012"));	/* 17 */
	CHECK(!fspath_fuse_hidden(".fuse_hidden0000000a0000000g"));
	CHECK(!fspath_fuse_hidden(".fuse_hidden"));
	CHECK(!fspath_fuse_hidden("fuse_hidden0000000a00000001"));
	CHECK(!fspath_fuse_hidden("x.fuse_hidden0000000a00000001"));
	CHECK(!fspath_fuse_hidden("book.txt"));
	CHECK(!fspath_fuse_hidden(""));
}

static void test_unescape_mountinfo(void)
{
	char a[] = "/mnt/my\\040books\\011x\\134y", b[] = "\\04 short\\9", c[] = "";

	fspath_unescape_mountinfo(a);
	CHECK_EQ_STR(a, "/mnt/my books\tx\\y");
	fspath_unescape_mountinfo(b);	/* not escapes: kept */
	CHECK_EQ_STR(b, "\\04 short\\9");
	fspath_unescape_mountinfo(c);
	CHECK_EQ_STR(c, "");
}

int main(void)
{
	const char *top = check_tmpdir();

	if (!top)
		return 1;
	rootfd = open(top, O_RDONLY | O_DIRECTORY);
	if (rootfd < 0)
		return 1;
	RUN(test_short);
	RUN(test_long);
	RUN(test_proc);
	RUN(test_no_symlinks);
	RUN(test_under);
	RUN(test_fuse_hidden);
	close(rootfd);
	RUN(test_unescape_mountinfo);
	return CHECK_DONE();
}
