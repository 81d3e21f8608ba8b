/* Unit tests for fsacc: the kernel's search rule per caller (owner, group,
 * supplementary groups, others, root), a process's groups from /proc, and
 * whole paths of a real folder tree, cached and re-read. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "fsacc.h"

#define U 1000
#define G 100

static void test_rule(void)
{
	struct fsacc_who w = { U, G, 0 }, root = { 0, 0, 0 };
	gid_t in[] = { 7, 50 }, out[] = { 7 };

	/* the owner class alone decides for the owner, even against others */
	CHECK_EQ_INT(fsacc_may_search(&w, NULL, 0, 0100, U, 1), 1);
	CHECK_EQ_INT(fsacc_may_search(&w, NULL, 0, 0011, U, 1), 0);
	/* the primary group */
	CHECK_EQ_INT(fsacc_may_search(&w, NULL, 0, 0010, 1, G), 1);
	CHECK_EQ_INT(fsacc_may_search(&w, NULL, 0, 0101, 1, G), 0);
	/* others, when group and other bits agree: no groups needed */
	CHECK_EQ_INT(fsacc_may_search(&w, NULL, -1, 0711, 1, 50), 1);
	CHECK_EQ_INT(fsacc_may_search(&w, NULL, -1, 0700, 1, 50), 0);
	/* they differ: membership decides, unknown until read */
	CHECK_EQ_INT(fsacc_may_search(&w, NULL, -1, 0710, 1, 50), -1);
	CHECK_EQ_INT(fsacc_may_search(&w, in, 2, 0710, 1, 50), 1);
	CHECK_EQ_INT(fsacc_may_search(&w, out, 1, 0710, 1, 50), 0);
	CHECK_EQ_INT(fsacc_may_search(&w, in, 2, 0701, 1, 50), 0);
	CHECK_EQ_INT(fsacc_may_search(&w, out, 1, 0701, 1, 50), 1);
	/* root searches anything */
	CHECK_EQ_INT(fsacc_may_search(&root, NULL, -1, 0000, 1, 1), 1);
}

static void test_proc_groups(void)
{
	gid_t mine[256], seen[256];
	int n = getgroups(256, mine), m = fsacc_proc_groups(getpid(), seen, 256), i, j, found;

	REQUIRE(n >= 0);
	CHECK_EQ_INT(m, n);
	for (i = 0; i < n && i < m; i++) {
		for (found = 0, j = 0; j < m; j++)
			found |= seen[j] == mine[i];
		CHECK(found);
	}
	CHECK(fsacc_proc_groups(0x7ffffff0, seen, 256) < 0);
}

/* pub/ 0755 with pub/in/ 0755, priv/ 0700, grp/ 0750 of group G, deep/
 * 20 levels: who is uid U (not the owner: the test's own uid is not U). */
static int make_tree(const char *dir)
{
	char p[PATH_MAX];
	int i, fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 || fchmod(fd, 0755) || mkdirat(fd, "pub", 0755) || mkdirat(fd, "pub/in", 0755) ||
	    mkdirat(fd, "priv", 0700) || mkdirat(fd, "grp", 0750) || mkdirat(fd, "deep", 0755))
		return -1;
	if (fchmodat(fd, "pub", 0755, 0) || fchmodat(fd, "pub/in", 0755, 0) ||
	    fchmodat(fd, "grp", 0750, 0) || fchownat(fd, "grp", (uid_t)-1, G, 0))
		return -1;
	strcpy(p, "deep");
	for (i = 0; i < 20; i++) {
		strcat(p, "/d");
		if (mkdirat(fd, p, 0755) || fchmodat(fd, p, 0755, 0))
			return -1;
	}
	return fd;
}

static void test_paths(void)
{
	const char *dir = check_tmpdir();
	struct fsacc_who w = { U, 4242, 0 }, wg = { U, G, 0 }, root = { 0, 0, 0 };
	struct fsacc *a = NULL;
	char deep[PATH_MAX];
	int fd, i;

	if (getuid() == U)
		SKIP("runs as the test's uid");
	if (getuid() != 0)
		SKIP("needs root (chown of a folder to a group)");
	fd = make_tree(dir);
	REQUIRE(fd >= 0);
	REQUIRE(fsacc_new(&a, fd, 3600LL * 1000000000) == 0);
	CHECK_EQ_INT(fsacc_reach(a, &w, "top.txt"), 1);
	CHECK_EQ_INT(fsacc_reach(a, &w, "pub/a.txt"), 1);
	CHECK_EQ_INT(fsacc_reach(a, &w, "pub/in/a.txt"), 1);
	CHECK_EQ_INT(fsacc_public(a, "pub/in/a.txt"), 1);
	CHECK_EQ_INT(fsacc_reach(a, &w, "priv/s.txt"), 0);
	CHECK_EQ_INT(fsacc_public(a, "priv/s.txt"), 0);
	CHECK_EQ_INT(fsacc_reach(a, &root, "priv/s.txt"), 1);
	CHECK_EQ_INT(fsacc_reach(a, &w, "grp/s.txt"), 0);
	CHECK_EQ_INT(fsacc_reach(a, &wg, "grp/s.txt"), 1);
	CHECK_EQ_INT(fsacc_reach(a, &w, "missing/s.txt"), 0);
	CHECK_EQ_INT(fsacc_reach(a, &root, "missing/s.txt"), 0);
	/* deeper than the cache holds */
	strcpy(deep, "deep");
	for (i = 0; i < 20; i++)
		strcat(deep, "/d");
	strcat(deep, "/b.txt");
	CHECK_EQ_INT(fsacc_reach(a, &w, deep), 1);
	CHECK_EQ_INT(fsacc_public(a, deep), 1);
	REQUIRE(fchmodat(fd, "deep/d/d/d", 0700, 0) == 0);
	CHECK_EQ_INT(fsacc_reach(a, &w, deep), 0);
	CHECK_EQ_INT(fsacc_public(a, deep), 0);
	CHECK_EQ_INT(fsacc_reach(a, &root, deep), 1);

	/* cached for an hour: a change shows after fsacc_recheck() */
	CHECK_EQ_INT(fsacc_recheck(a), 0);
	REQUIRE(fchmodat(fd, "priv", 0711, 0) == 0);
	REQUIRE(fchmodat(fd, "pub/in", 0700, 0) == 0);
	CHECK_EQ_INT(fsacc_reach(a, &w, "priv/s.txt"), 0);
	CHECK_EQ_INT(fsacc_recheck(a), 1);
	CHECK_EQ_INT(fsacc_recheck(a), 0);
	CHECK_EQ_INT(fsacc_reach(a, &w, "priv/s.txt"), 1);
	CHECK_EQ_INT(fsacc_reach(a, &w, "pub/in/a.txt"), 0);
	CHECK_EQ_INT(fsacc_reach(a, &w, "pub/a.txt"), 1);
	/* a folder that goes away */
	REQUIRE(unlinkat(fd, "pub/in", AT_REMOVEDIR) == 0);
	CHECK_EQ_INT(fsacc_recheck(a), 1);
	CHECK_EQ_INT(fsacc_reach(a, &root, "pub/in/a.txt"), 0);
	fsacc_free(a);

	/* no time to live: every answer reads the folders again, and a
	 * change found so is still reported */
	REQUIRE(fsacc_new(&a, fd, 0) == 0);
	CHECK_EQ_INT(fsacc_reach(a, &w, "priv/s.txt"), 1);
	REQUIRE(fchmodat(fd, "priv", 0700, 0) == 0);
	CHECK_EQ_INT(fsacc_reach(a, &w, "priv/s.txt"), 0);
	CHECK_EQ_INT(fsacc_recheck(a), 1);
	CHECK_EQ_INT(fsacc_recheck(a), 0);
	fsacc_free(a);
	close(fd);
}

/* A caller outside the folder's owner and group, in it through a
 * supplementary group of its process: this process, made a member. */
static void test_supplementary(void)
{
	const char *dir = check_tmpdir();
	struct fsacc_who w = { U, 4242, getpid() };
	gid_t groups[256];
	struct fsacc *a = NULL;
	int fd, n;

	if (getuid() != 0)
		SKIP("needs root");
	n = getgroups(256, groups);
	REQUIRE(n >= 0);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	REQUIRE(fd >= 0);
	REQUIRE(fchmod(fd, 0755) == 0);
	REQUIRE(mkdirat(fd, "g", 0700) == 0);
	REQUIRE(fchmodat(fd, "g", 0710, 0) == 0);
	REQUIRE(fchownat(fd, "g", 0, n ? groups[0] : 0, 0) == 0);
	REQUIRE(fsacc_new(&a, fd, 0) == 0);
	CHECK_EQ_INT(fsacc_reach(a, &w, "g/s.txt"), n > 0);
	w.pid = 0;	/* no process: its primary group only */
	CHECK_EQ_INT(fsacc_reach(a, &w, "g/s.txt"), 0);
	fsacc_free(a);
	close(fd);
}

/* Who gets through a guard folder may reach a path: root's and U's
 * closed folders, open and group-only ones; changes counted. */
static void test_covers(void)
{
	const char *dir = check_tmpdir();
	static const struct {
		const char *name;
		mode_t mode;
		uid_t uid;
	} f[] = {
		{ "open", 0755, 0 }, { "rootonly", 0700, 0 }, { "rootonly2", 0700, 0 },
		{ "u", 0700, U }, { "u2", 0711, U }, { "u_noexec", 0600, U }, { "grp", 0750, 0 },
		{ "g_only", 0710, 0 }, { "o_only", 0701, 0 },
	};
	struct fsacc *a = NULL;
	struct stat st;
	uint64_t n0;
	size_t i;
	int fd;

	if (getuid() != 0)
		SKIP("needs root (chown of a folder)");
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	REQUIRE(fd >= 0);
	REQUIRE(fchmod(fd, 0755) == 0);
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		REQUIRE(mkdirat(fd, f[i].name, 0700) == 0);
		REQUIRE(fchmodat(fd, f[i].name, f[i].mode, 0) == 0);
		REQUIRE(fchownat(fd, f[i].name, f[i].uid, 0, 0) == 0);
	}
	REQUIRE(fsacc_new(&a, fd, 3600LL * 1000000000) == 0);
	/* only root through rootonly/: it reaches everything */
	CHECK_EQ_INT(fsacc_covers(a, "rootonly", "rootonly2/b.txt"), 1);
	CHECK_EQ_INT(fsacc_covers(a, "rootonly", "u/b.txt"), 1);
	/* root and U through u/ (0700 and 0711 alike: others' bit set in
	 * 0711 lets them in, so u2/ is no guard) */
	CHECK_EQ_INT(fsacc_covers(a, "u", "u/b.txt"), 1);
	CHECK_EQ_INT(fsacc_covers(a, "u", "open/b.txt"), 1);
	CHECK_EQ_INT(fsacc_covers(a, "u", "rootonly/b.txt"), 0);
	CHECK_EQ_INT(fsacc_covers(a, "u", "grp/b.txt"), 0);
	CHECK_EQ_INT(fsacc_covers(a, "u", "g_only/b.txt"), 0);
	CHECK_EQ_INT(fsacc_covers(a, "u", "o_only/b.txt"), 0);
	CHECK_EQ_INT(fsacc_covers(a, "u", "u_noexec/b.txt"), 0);
	CHECK_EQ_INT(fsacc_covers(a, "u2", "u/b.txt"), 0);
	/* open or group-readable guards let unknown callers in */
	CHECK_EQ_INT(fsacc_covers(a, "open", "open/b.txt"), 0);
	CHECK_EQ_INT(fsacc_covers(a, "", "open/b.txt"), 0);
	CHECK_EQ_INT(fsacc_covers(a, "grp", "grp/b.txt"), 0);
	CHECK_EQ_INT(fsacc_covers(a, "missing", "open/b.txt"), 0);

	/* a change the cache does not hold yet: noted, read again, counted */
	n0 = fsacc_changes(a);
	REQUIRE(fchmodat(fd, "u", 0755, 0) == 0);
	CHECK_EQ_INT(fsacc_covers(a, "u", "rootonly/b.txt"), 0);
	CHECK_EQ_INT(fsacc_covers(a, "u", "open/b.txt"), 1);	/* cached: still closed */
	CHECK(fsacc_changes(a) == n0);
	REQUIRE(fstatat(fd, "u", &st, 0) == 0);
	fsacc_note(a, "u", &st);
	CHECK(fsacc_changes(a) == n0 + 1);
	CHECK_EQ_INT(fsacc_covers(a, "u", "open/b.txt"), 0);
	fsacc_note(a, "u", &st);	/* the same again: no change */
	CHECK(fsacc_changes(a) == n0 + 1);
	REQUIRE(fchmodat(fd, "open", 0700, 0) == 0);
	CHECK_EQ_INT(fsacc_recheck(a), 1);
	CHECK(fsacc_changes(a) == n0 + 2);
	fsacc_free(a);
	close(fd);
}

int main(void)
{
	RUN(test_rule);
	RUN(test_proc_groups);
	RUN(test_paths);
	RUN(test_supplementary);
	RUN(test_covers);
	return CHECK_DONE();
}
