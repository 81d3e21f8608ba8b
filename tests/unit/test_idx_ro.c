/* Unit tests for idx_opts.readonly: the queries' open of an index another
 * process writes, which must change nothing and see the writer's commits. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "idx_test.h"

static const struct idx_opts ro = { .readonly = 1 };

/* Adds path with a fingerprint; its id, 0 on failure. */
static uint64_t add_book(struct idx *ix, const char *path, uint8_t seed)
{
	struct idx_stat st = { 100, 5, 5, 7, 42 };
	struct idx_fp fp;
	uint64_t id = 0;

	if (idx_mark_queued(ix, &path, &st, 1, &id))
		return 0;
	memset(&fp, 0, sizeof(fp));
	memset(fp.simhash, seed, 16);
	memset(fp.text_hash, seed, 16);
	fp.rec_version = 3;
	return idx_put(ix, id, &st, &fp) ? 0 : id;
}

/* The data file's size and mtime, to see that a reader changed nothing. */
static int data_stat(const char *dir, struct stat *st)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/data.mdb", dir);
	return stat(p, st);
}

static void test_missing(void)
{
	const char *dir = check_tmpdir();
	struct idx *ix = NULL;
	char p[512];

	REQUIRE(dir);
	snprintf(p, sizeof(p), "%s/none", dir);
	CHECK_EQ_INT(idx_open(&ix, p, &ro), -ENOENT);
	CHECK(access(p, F_OK) < 0);	/* nothing created */
	CHECK_EQ_INT(idx_open(&ix, dir, &ro), -ENOENT);
	snprintf(p, sizeof(p), "%s/data.mdb", dir);
	CHECK(access(p, F_OK) < 0);
}

static void test_reader_beside_writer(void)
{
	const char *dir = check_tmpdir();
	struct idx *w = NULL, *r = NULL;
	struct idx_file f = { 0 };
	struct stat before, after;
	uint64_t a, b;

	REQUIRE(dir);
	REQUIRE(idx_open(&w, dir, NULL) == 0);
	a = add_book(w, "x/a.txt", 1);
	REQUIRE(a);
	REQUIRE(idx_sync(w) == 0);
	REQUIRE(idx_open(&r, dir, &ro) == 0);
	REQUIRE(idx_get(r, "x/a.txt", &f) == 0);
	CHECK_EQ_INT(f.id, a);
	CHECK(f.has_fp);
	idx_file_release(&f);
	CHECK_EQ_INT(idx_max_d(r), idx_max_d(w));
	/* the writer goes on; the reader's next read sees its commit */
	b = add_book(w, "y/b.txt", 2);
	REQUIRE(b);
	REQUIRE(idx_get(r, "y/b.txt", &f) == 0);
	CHECK_EQ_INT(f.id, b);
	idx_file_release(&f);
	REQUIRE(idx_sync(w) == 0);
	REQUIRE(data_stat(dir, &before) == 0);
	idx_close(r);
	REQUIRE(data_stat(dir, &after) == 0);
	CHECK_EQ_INT(after.st_size, before.st_size);
	CHECK_EQ_INT(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
	idx_close(w);
}

static void test_schema_left_alone(void)
{
	const char *dir = check_tmpdir();
	uint8_t old[4] = { 0, 0, 0, 4 }, newer[4] = { 0, 0, 0, 99 };
	struct idx *ix = NULL;
	struct idx_file f = { 0 };

	REQUIRE(dir);
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	REQUIRE(add_book(ix, "a.txt", 3));
	REQUIRE(idx_debug_raw_put(ix, "meta", "schema", 6, old, 4) == 0);
	idx_close(ix);
	/* an older version's index: the reader leaves the upgrade to a writer */
	CHECK_EQ_INT(idx_open(&ix, dir, &ro), -ESTALE);
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	CHECK_EQ_INT(idx_rebuilt(ix), 0);	/* upgraded in place, not rebuilt */
	REQUIRE(idx_get(ix, "a.txt", &f) == 0);
	idx_file_release(&f);
	REQUIRE(idx_debug_raw_put(ix, "meta", "schema", 6, newer, 4) == 0);
	idx_close(ix);
	CHECK_EQ_INT(idx_open(&ix, dir, &ro), -EPROTONOSUPPORT);
}

int main(void)
{
	RUN(test_missing);
	RUN(test_reader_beside_writer);
	RUN(test_schema_left_alone);
	return CHECK_DONE();
}
