/* test_ijournal.c - the outage journal: records handed back in order and
 * forgotten, kept across a reopen, bounded (a rescan then), a damaged or
 * torn file read without a crash. */
#include "check.h"
#include "ijournal.h"

#include <stdint.h>
#include <sys/stat.h>

struct seen {
	char text[4096];
	int calls;
};

static void collect(void *arg, enum ijr_op op, const char *a, const char *b)
{
	struct seen *s = arg;
	size_t n = strlen(s->text);

	snprintf(s->text + n, sizeof(s->text) - n, "%c:%s%s%s;", (char)op, a ? a : "",
		 b ? ">" : "", b ? b : "");
	s->calls++;
}

static void jpath(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/state/sub/%s", check_tmpdir(), name);
}

static void test_order_and_empty(void)
{
	struct ijr *j = NULL;
	struct seen s = { "", 0 };
	char p[PATH_MAX];
	int rescan = 1;

	jpath(p, sizeof(p), "a.journal");
	REQUIRE(ijr_open(p, 0, &j) == 0);
	CHECK_EQ_INT(ijr_count(j, &rescan), 0);
	CHECK_EQ_INT(rescan, 0);
	CHECK_EQ_INT(ijr_add(j, IJR_WRITE, "a/b.epub", NULL), 0);
	CHECK_EQ_INT(ijr_add(j, IJR_RENAME, "a/b.epub", "c d.epub"), 0);
	CHECK_EQ_INT(ijr_add(j, IJR_UNLINK, "x.txt", NULL), 0);
	CHECK_EQ_INT(ijr_add(j, IJR_LINK, "c d.epub", "e.epub"), 0);
	CHECK_EQ_INT(ijr_add(j, IJR_EXCHANGE, "p", "q"), 0);
	/* shapes the journal refuses */
	CHECK_EQ_INT(ijr_add(j, IJR_RENAME, "a", NULL), -EINVAL);
	CHECK_EQ_INT(ijr_add(j, IJR_WRITE, "", NULL), -EINVAL);
	CHECK_EQ_INT(ijr_add(j, IJR_RESCAN, "a", NULL), -EINVAL);
	CHECK_EQ_INT(ijr_count(j, NULL), 5);
	/* kept across a close (a daemon restarted while the server is down) */
	ijr_free(j);
	REQUIRE(ijr_open(p, 0, &j) == 0);
	CHECK_EQ_INT(ijr_count(j, &rescan), 5);
	CHECK_EQ_INT(rescan, 0);
	CHECK_EQ_INT(ijr_replay(j, collect, &s), 5);
	CHECK_EQ_STR(s.text, "W:a/b.epub;R:a/b.epub>c d.epub;U:x.txt;L:c d.epub>e.epub;X:p>q;");
	CHECK_EQ_INT(ijr_count(j, NULL), 0);
	/* emptied on disk too */
	ijr_free(j);
	REQUIRE(ijr_open(p, 0, &j) == 0);
	CHECK_EQ_INT(ijr_count(j, NULL), 0);
	s.text[0] = 0;
	CHECK_EQ_INT(ijr_replay(j, collect, &s), 0);
	CHECK_EQ_STR(s.text, "");
	/* usable after a replay */
	CHECK_EQ_INT(ijr_add(j, IJR_WRITE, "later", NULL), 0);
	CHECK_EQ_INT(ijr_replay(j, collect, &s), 1);
	CHECK_EQ_STR(s.text, "W:later;");
	ijr_free(j);
}

static void test_bounded(void)
{
	struct ijr *j = NULL;
	struct seen s = { "", 0 };
	char p[PATH_MAX], name[32], big[IJR_PATH_MAX + 2];
	struct stat st;
	int rescan = 0, i;

	jpath(p, sizeof(p), "b.journal");
	REQUIRE(ijr_open(p, 3, &j) == 0);
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "book%d", i);
		CHECK_EQ_INT(ijr_add(j, IJR_WRITE, name, NULL), 0);
	}
	CHECK_EQ_INT(ijr_count(j, &rescan), 3);
	CHECK_EQ_INT(rescan, 0);
	/* the fourth: the paths give way to one rescan, the file shrinks */
	CHECK_EQ_INT(ijr_add(j, IJR_WRITE, "book3", NULL), 0);
	CHECK_EQ_INT(ijr_count(j, &rescan), 0);
	CHECK_EQ_INT(rescan, 1);
	CHECK_EQ_INT(ijr_add(j, IJR_UNLINK, "book4", NULL), 0);
	CHECK_EQ_INT(ijr_count(j, NULL), 0);
	REQUIRE(stat(p, &st) == 0);
	CHECK(st.st_size < 32);
	ijr_free(j);
	REQUIRE(ijr_open(p, 3, &j) == 0);
	CHECK_EQ_INT(ijr_count(j, &rescan), 0);
	CHECK_EQ_INT(rescan, 1);
	CHECK_EQ_INT(ijr_replay(j, collect, &s), 1);
	CHECK_EQ_STR(s.text, "S:;");
	CHECK_EQ_INT(ijr_count(j, &rescan), 0);
	CHECK_EQ_INT(rescan, 0);
	/* asked for: the records give way */
	CHECK_EQ_INT(ijr_add(j, IJR_WRITE, "w", NULL), 0);
	CHECK_EQ_INT(ijr_add(j, IJR_RESCAN, NULL, NULL), 0);
	CHECK_EQ_INT(ijr_count(j, &rescan), 0);
	CHECK_EQ_INT(rescan, 1);
	s.text[0] = 0;
	CHECK_EQ_INT(ijr_replay(j, collect, &s), 1);
	CHECK_EQ_STR(s.text, "S:;");
	/* a path too long to record: a rescan */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	CHECK_EQ_INT(ijr_add(j, IJR_WRITE, big, NULL), 0);
	ijr_count(j, &rescan);
	CHECK_EQ_INT(rescan, 1);
	ijr_free(j);
}

static void write_file(const char *p, const void *buf, size_t len)
{
	int fd = open(p, O_WRONLY | O_TRUNC | O_CREAT, 0600);

	if (fd < 0 || write(fd, buf, len) != (ssize_t)len)
		abort();
	close(fd);
}

static size_t read_file(const char *p, char *buf, size_t n)
{
	int fd = open(p, O_RDONLY);
	ssize_t r = fd < 0 ? -1 : read(fd, buf, n);

	if (fd >= 0)
		close(fd);
	return r < 0 ? 0 : (size_t)r;
}

static void test_damaged(void)
{
	struct ijr *j = NULL;
	struct seen s = { "", 0 };
	char p[PATH_MAX], buf[512];
	size_t len, cut;
	int rescan = 0;

	jpath(p, sizeof(p), "c.journal");
	REQUIRE(ijr_open(p, 0, &j) == 0);
	CHECK_EQ_INT(ijr_add(j, IJR_WRITE, "one", NULL), 0);
	CHECK_EQ_INT(ijr_add(j, IJR_WRITE, "two", NULL), 0);
	ijr_free(j);
	len = read_file(p, buf, sizeof(buf));
	REQUIRE(len > IJR_MAGIC_LEN);
	/* torn anywhere inside the second record: the first is kept, a
	 * rescan owed for the rest */
	for (cut = len - 1; cut > len - 12; cut--) {
		write_file(p, buf, cut);
		REQUIRE(ijr_open(p, 0, &j) == 0);
		CHECK_EQ_INT(ijr_count(j, &rescan), 1);
		CHECK_EQ_INT(rescan, 1);
		s.text[0] = 0;
		CHECK_EQ_INT(ijr_replay(j, collect, &s), 2);
		CHECK_EQ_STR(s.text, "W:one;S:;");
		ijr_free(j);
	}
	/* a flipped byte in the first record: nothing readable */
	buf[IJR_MAGIC_LEN + 6] ^= 0x20;
	write_file(p, buf, len);
	REQUIRE(ijr_open(p, 0, &j) == 0);
	CHECK_EQ_INT(ijr_count(j, &rescan), 0);
	CHECK_EQ_INT(rescan, 1);
	ijr_free(j);
	/* not a journal at all */
	write_file(p, "hello world, not a journal", 26);
	REQUIRE(ijr_open(p, 0, &j) == 0);
	CHECK_EQ_INT(ijr_count(j, &rescan), 0);
	CHECK_EQ_INT(rescan, 1);
	s.text[0] = 0;
	CHECK_EQ_INT(ijr_replay(j, collect, &s), 1);
	CHECK_EQ_STR(s.text, "S:;");
	ijr_free(j);
}

static void test_parse(void)
{
	static const uint8_t nul_path[] = "SBJRNL1\nW\0\0\x02\0\0a\0\0\0\0";
	int damaged = 0;

	CHECK_EQ_INT(ijr_parse("", 0, NULL, NULL, &damaged), 0);
	CHECK_EQ_INT(damaged, 1);
	CHECK_EQ_INT(ijr_parse(IJR_MAGIC, IJR_MAGIC_LEN, NULL, NULL, &damaged), IJR_MAGIC_LEN);
	CHECK_EQ_INT(damaged, 0);
	/* a record whose checksum is wrong is not read */
	CHECK_EQ_INT(ijr_parse(nul_path, sizeof(nul_path) - 1, NULL, NULL, &damaged),
		     IJR_MAGIC_LEN);
	CHECK_EQ_INT(damaged, 1);
}

static void test_place(void)
{
	char a[PATH_MAX], b[PATH_MAX];

	CHECK_EQ_INT(ijr_place("/st", "redis://h:1/lib", "/books", a, sizeof(a)), 0);
	CHECK(strncmp(a, "/st/lib-", 8) == 0 && strlen(a) == 8 + 16 + 8);
	CHECK(strcmp(a + strlen(a) - 8, ".journal") == 0);
	/* another library, or another index of it: another file */
	CHECK_EQ_INT(ijr_place("/st", "redis://h:1/lib", "/books2", b, sizeof(b)), 0);
	CHECK(strcmp(a, b) != 0);
	CHECK_EQ_INT(ijr_place("/st", "redis://h:2/lib", "/books", b, sizeof(b)), 0);
	CHECK(strcmp(a, b) != 0);
	/* the same: the same file (a restarted daemon finds it) */
	CHECK_EQ_INT(ijr_place("/st", "redis://h:1/lib", "/books", b, sizeof(b)), 0);
	CHECK_EQ_STR(a, b);
	CHECK_EQ_INT(ijr_place("/st", "redis://h:1", "/books", b, sizeof(b)), 0);
	CHECK(strncmp(b, "/st/simbook-", 12) == 0);
	CHECK_EQ_INT(ijr_place("/st", "redis://h:1/lib", "/books", b, 20), -ENAMETOOLONG);
	CHECK(ijr_place("/st", "redis://", "/books", b, sizeof(b)) < 0);
	/* the defaults */
	setenv("XDG_STATE_HOME", "/xdg", 1);
	setenv("HOME", "/home/u", 1);
	CHECK_EQ_INT(ijr_place(NULL, "redis://h:1/lib", "/books", b, sizeof(b)), 0);
	CHECK(strncmp(b, "/xdg/simbookfs/lib-", 19) == 0);
	setenv("XDG_STATE_HOME", "relative", 1);
	CHECK_EQ_INT(ijr_place(NULL, "redis://h:1/lib", "/books", b, sizeof(b)), 0);
	CHECK(strncmp(b, "/home/u/.local/state/simbookfs/lib-", 35) == 0);
	unsetenv("XDG_STATE_HOME");
	unsetenv("HOME");
	CHECK_EQ_INT(ijr_place(NULL, "redis://h:1/lib", "/books", b, sizeof(b)), -EINVAL);
}

int main(void)
{
	RUN(test_order_and_empty);
	RUN(test_bounded);
	RUN(test_damaged);
	RUN(test_parse);
	RUN(test_place);
	return CHECK_DONE();
}
