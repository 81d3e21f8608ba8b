/* test_dedupplan.c - simbook dedup's pure parts: the keep rules in order,
 * relative link targets, and group lines of `simbook duplicates --json`
 * read back (every byte of a name through jsonw and back). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dedupplan.h"
#include "jsonw.h"

static struct dd_member mk(const char *path, uint64_t size, int64_t mtime)
{
	struct dd_member m;

	memset(&m, 0, sizeof(m));
	m.path = (char *)path;
	m.abs = (char *)path;
	m.size = size;
	m.mtime_ns = mtime;
	return m;
}

/* The path kept by the rules among the members given. */
static const char *kept(const struct dd_rules *r, struct dd_member *m, size_t n)
{
	struct dd_group g = { n, m };

	dd_sort(r, &g);
	return m[0].path;
}

static void test_keep_rules(void)
{
	struct dd_rules r;
	struct dd_member m[3];

	memset(&r, 0, sizeof(r));
	CHECK(dd_rules_keep(&r, "oldest") == 0);
	m[0] = mk("/l/new.txt", 10, 300);
	m[1] = mk("/l/old.txt", 20, 100);
	m[2] = mk("/l/mid.txt", 30, 200);
	CHECK_EQ_STR(kept(&r, m, 3), "/l/old.txt");
	memset(&r, 0, sizeof(r));
	dd_rules_keep(&r, "newest");
	CHECK_EQ_STR(kept(&r, m, 3), "/l/new.txt");
	memset(&r, 0, sizeof(r));
	dd_rules_keep(&r, "largest");
	CHECK_EQ_STR(kept(&r, m, 3), "/l/mid.txt");
	memset(&r, 0, sizeof(r));
	dd_rules_keep(&r, "smallest");
	CHECK_EQ_STR(kept(&r, m, 3), "/l/new.txt");
	memset(&r, 0, sizeof(r));
	CHECK(dd_rules_keep(&r, "shortest-path") == 0);
	m[0] = mk("/l/a/b/x.txt", 1, 1);
	m[1] = mk("/l/a/longer-name.txt", 1, 1);
	m[2] = mk("/l/a/y.txt", 1, 1);
	CHECK_EQ_STR(kept(&r, m, 3), "/l/a/y.txt");
	CHECK(dd_rules_keep(&r, "biggest") == -EINVAL);
	CHECK(dd_rules_add(&r, DD_PREFER_PREFIX, "") == -EINVAL);
}

static void test_rules_in_order(void)
{
	struct dd_rules r;
	struct dd_member m[3];

	/* the first rule decides; the next only breaks its ties */
	memset(&r, 0, sizeof(r));
	dd_rules_add(&r, DD_PREFER_PREFIX, "/l/keep/");
	dd_rules_keep(&r, "newest");
	m[0] = mk("/l/keep/old.txt", 1, 100);
	m[1] = mk("/l/other/newest.txt", 1, 900);
	m[2] = mk("/l/keep/new.txt", 1, 200);
	CHECK_EQ_STR(kept(&r, m, 3), "/l/keep/new.txt");
	/* the path acted on counts too (a library served by a mount elsewhere) */
	memset(&r, 0, sizeof(r));
	dd_rules_add(&r, DD_PREFER_PREFIX, "/mnt/keep");
	m[0] = mk("/src/a.txt", 1, 1);
	m[1] = mk("/src/keep/b.txt", 1, 1);
	m[1].act = (char *)"/mnt/keep/b.txt";
	CHECK_EQ_STR(kept(&r, m, 2), "/src/keep/b.txt");
	/* a prefix matches whole components only */
	memset(&r, 0, sizeof(r));
	dd_rules_add(&r, DD_PREFER_PREFIX, "/l/kee");
	m[0] = mk("/l/keep/a.txt", 1, 1);
	m[1] = mk("/l/zz.txt", 1, 1);
	CHECK_EQ_STR(kept(&r, m, 2), "/l/zz.txt");
	/* formats by extension, in the order given, case-insensitive; unlisted last */
	memset(&r, 0, sizeof(r));
	dd_rules_add(&r, DD_PREFER_FORMAT, "epub,azw3,pdf,txt");
	m[0] = mk("/l/b.txt", 1, 1);
	m[1] = mk("/l/b.docx", 1, 1);
	m[2] = mk("/l/b.AZW3", 1, 1);
	CHECK_EQ_STR(kept(&r, m, 3), "/l/b.AZW3");
	CHECK_EQ_STR(m[1].path, "/l/b.txt");
	CHECK_EQ_STR(m[2].path, "/l/b.docx");
	/* a folder's dot is not an extension */
	m[0] = mk("/l/x.txt/noext", 1, 1);
	m[1] = mk("/l/y.pdf", 1, 1);
	CHECK_EQ_STR(kept(&r, m, 2), "/l/y.pdf");
	/* ties end by path, so the order never depends on the input order */
	memset(&r, 0, sizeof(r));
	dd_rules_keep(&r, "oldest");
	m[0] = mk("/l/b.txt", 1, 1);
	m[1] = mk("/l/a.txt", 1, 1);
	CHECK_EQ_STR(kept(&r, m, 2), "/l/a.txt");
	CHECK(dd_cmp(&r, &m[0], &m[1]) < 0 && dd_cmp(&r, &m[1], &m[0]) > 0);
}

static const char *rel(const char *from, const char *to)
{
	static struct sbuf sb;

	sbuf_release(&sb);
	sbuf_init(&sb);
	if (dd_relpath(from, to, &sb) || sbuf_addch(&sb, '\0'))
		return NULL;
	return sb.buf;
}

static void test_relpath(void)
{
	CHECK_EQ_STR(rel("/l", "/l/a.txt"), "a.txt");
	CHECK_EQ_STR(rel("/l/sub", "/l/a.txt"), "../a.txt");
	CHECK_EQ_STR(rel("/l/x/y", "/l/a/b.txt"), "../../a/b.txt");
	CHECK_EQ_STR(rel("/l/ab", "/l/a/b.txt"), "../a/b.txt");
	CHECK_EQ_STR(rel("/l/a", "/l/ab/c.txt"), "../ab/c.txt");
	CHECK_EQ_STR(rel("/", "/a/b.txt"), "a/b.txt");
	CHECK_EQ_STR(rel("/x", "/a.txt"), "../a.txt");
	CHECK_EQ_STR(rel("/l/a", "/l/a/b/c.txt"), "b/c.txt");
}

static void test_json(void)
{
	static const char line[] =
		"{\"kind\":\"duplicates\",\"group\":1,\"title\":\"T \\\"q\\\"\",\"count\":2,"
		"\"members\":[{\"path\":\"a b.txt\",\"abs\":\"/l/a b.txt\",\"id\":\"01\","
		"\"size\":12,\"relation\":null,\"x\":{\"n\":[1,2.5e3,true,false]}},"
		"{\"path\":\"d/\\u00e9\\udcff\\ud83d\\ude00.epub\",\"abs\":\"/l/d/\\u00e9\\udcff"
		"\\ud83d\\ude00.epub\",\"size\":7,\"relation\":\"same-text\"}]}";
	struct dd_group g;

	REQUIRE(dd_json_group(line, strlen(line), &g) == 0);
	REQUIRE(g.n == 2);
	CHECK_EQ_STR(g.m[0].path, "a b.txt");
	CHECK_EQ_STR(g.m[0].abs, "/l/a b.txt");
	CHECK_EQ_INT(g.m[0].size, 12);
	CHECK_EQ_STR(g.m[1].path, "d/\xc3\xa9\xff\xf0\x9f\x98\x80.epub");
	CHECK_EQ_INT(g.m[1].size, 7);
	dd_group_release(&g);
	CHECK(g.n == 0 && g.m == NULL);
}

static void test_json_bad(void)
{
	static const char *const bad[] = {
		"", "{}", "[]", "{\"members\":[{\"path\":\"a\"}]}", "{\"members\":[{}]}",
		"{\"members\":[{\"abs\":\"/a\"}]", "{\"members\":[{\"abs\":\"/a\\q\"}]}",
		"{\"members\":[{\"abs\":\"/a\\ud800\"}]}", "{\"members\":[{\"abs\":\"/a}]}",
		"{\"members\":[{\"abs\":\"/a\"}]} x", "{\"kind\":\"x\"}",
		"{\"members\":[{\"abs\":\"/a\"}],\"members\":[]}", "not json",
	};
	struct dd_group g;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int ret = dd_json_group(bad[i], strlen(bad[i]), &g);

		if (ret != -EINVAL)
			fprintf(stderr, "  accepted: %s\n", bad[i]);
		CHECK(ret == -EINVAL);
		CHECK(g.n == 0 && g.m == NULL);
	}
	/* deep nesting is refused, not recursed into without end */
	{
		char deep[600];
		size_t n = 0;

		n += (size_t)sprintf(deep, "{\"x\":");
		while (n < 300)
			deep[n++] = '[';
		while (n < 590)
			deep[n++] = ']';
		deep[n] = '\0';
		CHECK(dd_json_group(deep, n, &g) == -EINVAL);
	}
}

/* Every byte string survives jsonw_str() and back, as the query writes it. */
static void test_json_round_trip(void)
{
	unsigned seed = 7;
	int t, bad = 0;

	for (t = 0; t < 2000; t++) {
		char name[40];
		size_t n = 1 + (size_t)(t % 30), i;
		struct sbuf line;
		struct dd_group g;

		for (i = 0; i < n; i++) {
			seed = seed * 1103515245 + 12345;
			name[i] = (char)(1 + (seed >> 16) % 255);
		}
		name[n] = '\0';
		sbuf_init(&line);
		if (sbuf_addstr(&line, "{\"members\":[{\"abs\":") || jsonw_str(&line, name) ||
		    sbuf_addstr(&line, ",\"path\":") || jsonw_str(&line, name) ||
		    sbuf_addstr(&line, "}]}")) {
			bad++;
			sbuf_release(&line);
			continue;
		}
		if (dd_json_group(line.buf, line.len, &g) || g.n != 1 || strcmp(g.m[0].abs, name) ||
		    strcmp(g.m[0].path, name))
			bad++;
		dd_group_release(&g);
		sbuf_release(&line);
	}
	CHECK_EQ_INT(bad, 0);
}

int main(void)
{
	RUN(test_keep_rules);
	RUN(test_rules_in_order);
	RUN(test_relpath);
	RUN(test_json);
	RUN(test_json_bad);
	RUN(test_json_round_trip);
	return CHECK_DONE();
}
