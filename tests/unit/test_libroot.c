/* test_libroot.c - where the library and the index are: the mount's
 * placement rules for `simbook index`, the walk up for the queries,
 * relative paths. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "libroot.h"

static char top[PATH_MAX / 2];

static const char *p(const char *rel)
{
	static char buf[4][PATH_MAX];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%.*s/%.*s", PATH_MAX / 2 - 1, top, PATH_MAX / 2 - 2, rel);
	return buf[k];
}

static void touch(const char *path)
{
	FILE *f = fopen(path, "w");

	if (f)
		fclose(f);
}

static void test_place(void)
{
	struct libroot lr;

	REQUIRE(libroot_place(&lr, p("lib"), NULL) == 0);
	CHECK_EQ_STR(lr.root, p("lib"));
	CHECK_EQ_STR(lr.index, p("lib/" LIBROOT_INDEX_NAME));
	CHECK_EQ_STR(lr.hidden, LIBROOT_INDEX_NAME);
	CHECK(libroot_in_index(&lr, LIBROOT_INDEX_NAME "/data.mdb"));
	CHECK(libroot_in_index(&lr, LIBROOT_INDEX_NAME));
	CHECK(!libroot_in_index(&lr, LIBROOT_INDEX_NAME "x/a.txt"));
	CHECK(!libroot_in_index(&lr, "a/" LIBROOT_INDEX_NAME));
	libroot_release(&lr);

	REQUIRE(libroot_place(&lr, p("lib"), p("ext-index")) == 0);
	CHECK_EQ_STR(lr.index, p("ext-index"));
	CHECK(lr.hidden == NULL);
	CHECK(!libroot_in_index(&lr, "ext-index"));
	libroot_release(&lr);

	REQUIRE(libroot_place(&lr, p("lib"), p("lib/.other")) == 0);
	CHECK_EQ_STR(lr.hidden, ".other");
	libroot_release(&lr);

	CHECK_EQ_INT(libroot_place(&lr, p("lib"), p("lib")), -EINVAL);
	CHECK_EQ_INT(libroot_place(&lr, p("lib"), p("lib/a/deeper")), -EINVAL);
	CHECK(lr.root == NULL && lr.index == NULL);
	CHECK_EQ_INT(libroot_place(&lr, p("missing"), NULL), -ENOENT);
	CHECK_EQ_INT(libroot_place(&lr, p("lib/a/book.txt"), NULL), -ENOTDIR);
}

/* Planning creates nothing, whatever it answers; libroot_create() then
 * makes the folder planned and says so. */
static void test_plan(void)
{
	struct libroot lr;
	struct stat st;

	mkdir(p("plib"), 0755);
	REQUIRE(libroot_plan(&lr, p("plib"), NULL) == 0);
	CHECK_EQ_STR(lr.index, p("plib/" LIBROOT_INDEX_NAME));
	CHECK_EQ_STR(lr.hidden, LIBROOT_INDEX_NAME);
	CHECK(stat(p("plib/" LIBROOT_INDEX_NAME), &st) < 0 && errno == ENOENT);
	REQUIRE(libroot_create(&lr) == 0);
	CHECK(lr.created);
	CHECK(stat(p("plib/" LIBROOT_INDEX_NAME), &st) == 0 && S_ISDIR(st.st_mode));
	libroot_release(&lr);
	REQUIRE(libroot_plan(&lr, p("plib"), NULL) == 0);
	CHECK(libroot_create(&lr) == 0 && !lr.created);
	libroot_release(&lr);

	/* a missing index folder resolved through its parent, trailing '/' */
	REQUIRE(libroot_plan(&lr, p("plib"), p("plib/../pidx/")) == 0);
	CHECK_EQ_STR(lr.index, p("pidx"));
	CHECK(lr.hidden == NULL);
	CHECK(stat(p("pidx"), &st) < 0);
	libroot_release(&lr);

	/* refused placements leave nothing (place used to make "deeper") */
	mkdir(p("plib/a"), 0755);
	CHECK_EQ_INT(libroot_place(&lr, p("plib"), p("plib/a/deeper")), -EINVAL);
	CHECK(stat(p("plib/a/deeper"), &st) < 0);
	CHECK_EQ_INT(libroot_plan(&lr, p("plib"), p("nowhere/idx")), -ENOENT);
	touch(p("plib/file"));
	CHECK_EQ_INT(libroot_place(&lr, p("plib"), p("plib/file")), -ENOTDIR);
}

/* Accepts exactly the folder "lib". */
static int probe_lib(void *arg, const char *dir)
{
	(void)arg;
	return !strcmp(dir, p("lib"));
}

static void test_find(void)
{
	struct libroot lr;
	char *rel = NULL, *stray = NULL;

	/* walk up from a file and from a folder */
	REQUIRE(libroot_find(&lr, p("lib/a/book.txt"), NULL, NULL, NULL, NULL) == 0);
	CHECK_EQ_STR(lr.root, p("lib"));
	CHECK_EQ_STR(lr.index, p("lib/" LIBROOT_INDEX_NAME));
	REQUIRE(libroot_rel(&lr, p("lib/a/book.txt"), &rel) == 0);
	CHECK_EQ_STR(rel, "a/book.txt");
	free(rel);
	REQUIRE(libroot_rel(&lr, p("lib/a/../a/./book.txt"), &rel) == 0);
	CHECK_EQ_STR(rel, "a/book.txt");
	free(rel);
	REQUIRE(libroot_rel(&lr, p("lib"), &rel) == 0);
	CHECK_EQ_STR(rel, "");
	free(rel);
	/* a symbolic link to the book resolves to it */
	REQUIRE(libroot_rel(&lr, p("link.txt"), &rel) == 0);
	CHECK_EQ_STR(rel, "a/book.txt");
	free(rel);
	CHECK_EQ_INT(libroot_rel(&lr, p("outside.txt"), &rel), -EXDEV);
	libroot_release(&lr);

	REQUIRE(libroot_find(&lr, p("lib/a"), NULL, NULL, NULL, NULL) == 0);
	CHECK_EQ_STR(lr.root, p("lib"));
	libroot_release(&lr);

	/* no index above, unless a folder above the test's own holds one (a
	 * stray /tmp/.simbookfs-index left by a crashed daemon): the walk up
	 * is right to find that one */
	if (libroot_above(top, LIBROOT_INDEX_NAME "/", &stray) == 0) {
		fprintf(stderr, "  note: an index above the test's folder, in %s\n", stray);
		REQUIRE(libroot_find(&lr, p("outside.txt"), NULL, NULL, NULL, NULL) == 0);
		CHECK_EQ_STR(lr.root, stray);
		libroot_release(&lr);
		free(stray);
	} else {
		CHECK_EQ_INT(libroot_find(&lr, p("outside.txt"), NULL, NULL, NULL, NULL), -ENOENT);
	}
	CHECK_EQ_INT(libroot_find(&lr, p("lib/missing.txt"), NULL, NULL, NULL, NULL), -ENOENT);
	/* index given, no root: the nearest folder the probe accepts */
	REQUIRE(libroot_find(&lr, p("lib/a/book.txt"), p("lib/.other"), NULL, probe_lib, NULL) == 0);
	CHECK_EQ_STR(lr.root, p("lib"));
	CHECK_EQ_STR(lr.hidden, ".other");
	libroot_release(&lr);
	REQUIRE(libroot_find(&lr, p("lib/a/book.txt"), p("ext-index"), NULL, probe_lib, NULL) == 0);
	CHECK_EQ_STR(lr.root, p("lib"));
	CHECK(lr.hidden == NULL);
	libroot_release(&lr);
	CHECK_EQ_INT(libroot_find(&lr, p("lib/a/book.txt"), p("ext-index"), NULL, NULL, NULL), -ENOENT);
	CHECK_EQ_INT(libroot_find(&lr, p("outside.txt"), p("ext-index"), NULL, probe_lib, NULL), -ENOENT);
	/* index and root given */
	REQUIRE(libroot_find(&lr, p("lib/a/book.txt"), p("ext-index"), p("lib"), NULL, NULL) == 0);
	CHECK_EQ_STR(lr.root, p("lib"));
	libroot_release(&lr);
	CHECK_EQ_INT(libroot_find(&lr, p("outside.txt"), p("ext-index"), p("lib"), NULL, NULL), -EXDEV);
	CHECK_EQ_INT(libroot_find(&lr, p("lib/a/book.txt"), p("nothing-here"), p("lib"), NULL, NULL), -ENOENT);
	CHECK_EQ_INT(libroot_find(&lr, p("lib/a/book.txt"), p("outside.txt"), p("lib"), NULL, NULL), -ENOTDIR);
	CHECK(lr.root == NULL && lr.index == NULL);
}

/* The walk up that finds a mount's root (a file) or an index (a folder). */
static void test_above(void)
{
	char *dir = NULL;

	mkdir(p("mark"), 0755);
	touch(p("lib/mark"));
	touch(p("lib/a/status"));
	REQUIRE(libroot_above(p("lib/a/book.txt"), "status", &dir) == 0);
	CHECK_EQ_STR(dir, p("lib/a"));
	free(dir);
	/* A folder path starts at itself; a trailing '/' skips the file. */
	REQUIRE(libroot_above(p("lib"), "mark", &dir) == 0);
	CHECK_EQ_STR(dir, p("lib"));
	free(dir);
	REQUIRE(libroot_above(p("lib/a"), "mark/", &dir) == 0);
	CHECK_EQ_STR(dir, top);
	free(dir);
	dir = (char *)"x";
	CHECK_EQ_INT(libroot_above(p("lib/a/book.txt"), "no-such-name.simbook-test", &dir), -ENOENT);
	CHECK(dir == NULL);
	CHECK_EQ_INT(libroot_above(p("lib/nope.txt"), "status", &dir), -ENOENT);
	unlink(p("lib/a/status"));
	unlink(p("lib/mark"));
	rmdir(p("mark"));
}

int main(void)
{
	const char *tmp = check_tmpdir();
	char real[PATH_MAX];

	if (!tmp || !realpath(tmp, real) || strlen(real) >= sizeof(top))
		return 1;
	strcpy(top, real);
	mkdir(p("lib"), 0755);
	mkdir(p("lib/a"), 0755);
	touch(p("lib/a/book.txt"));
	touch(p("outside.txt"));
	mkdir(p("ext-index"), 0700);
	mkdir(p("lib/.other"), 0700);
	if (symlink("lib/a/book.txt", p("link.txt")) < 0)
		return 1;
	RUN(test_place);
	RUN(test_plan);
	RUN(test_find);
	RUN(test_above);
	return CHECK_DONE();
}
