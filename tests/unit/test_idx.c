/* Unit tests for idx: persistence, rename, unlink, band completeness, exemptions,
 * schema rebuild, hostile values, map growth, concurrent readers. */
#include <errno.h>
#include <fcntl.h>
#include <lmdb.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "band.h"
#include "check.h"
#include "simgen.h"
#include "idx_test.h"

static uint64_t rng_state = 42;

static struct idx_stat stat_of(uint64_t n)
{
	struct idx_stat st = { 1000 + n, (int64_t)n * 1000000007, (int64_t)n * 3, n + 7, 42 };

	return st;
}

/* Adds path with a fingerprint; returns its id (0 on failure). */
static uint64_t add_book(struct idx *ix, const char *path, const uint8_t sh[16],
			 const uint8_t th[16],
			 const uint64_t *mh, uint32_t nmh, const char *rec)
{
	struct idx_stat st = stat_of(strlen(path));
	struct idx_fp fp;
	uint64_t id = 0;

	if (idx_mark_queued(ix, &path, &st, 1, &id))
		return 0;
	memset(&fp, 0, sizeof(fp));
	memcpy(fp.simhash, sh, 16);
	memcpy(fp.text_hash, th, 16);
	fp.mh_bands = mh;
	fp.n_mh_bands = nmh;
	fp.rec_version = 3;
	fp.rec = rec;
	fp.rec_len = rec ? strlen(rec) : 0;
	if (idx_put(ix, id, &st, &fp))
		return 0;
	return id;
}

static void test_basic_persist(void)
{
	const char *dir = check_tmpdir();
	uint8_t sh[16], th[16];
	uint64_t mh[4] = { 1, 2, 3, 4 }, id, id2, *bands = NULL;
	struct idx *ix = NULL;
	struct idx_file f;
	struct idx_counts c;
	uint32_t ver = 0, nb = 0;
	void *rec = NULL;
	size_t len = 0;

	REQUIRE(dir);
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	CHECK_EQ_INT(idx_rebuilt(ix), 0);
	CHECK_EQ_INT(idx_max_d(ix), 7);
	simgen_sh(&rng_state, sh);
	simgen_sh(&rng_state, th);
	id = add_book(ix, "a/b/book.epub", sh, th, mh, 4, "record-bytes");
	REQUIRE(id != 0);
	id2 = add_book(ix, "c.txt", sh, th, NULL, 0, NULL);
	REQUIRE(id2 != 0 && id2 != id);
	idx_close(ix);
	ix = NULL;

	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	CHECK_EQ_INT(idx_rebuilt(ix), 0);
	REQUIRE(idx_get(ix, "a/b/book.epub", &f) == 0);
	CHECK_EQ_INT(f.id, id);
	CHECK_EQ_INT(f.state, IDX_INDEXED);
	CHECK_EQ_STR(f.path, "a/b/book.epub");
	CHECK(f.error == NULL);
	CHECK(f.has_fp);
	CHECK(memcmp(f.simhash, sh, 16) == 0);
	CHECK(memcmp(f.text_hash, th, 16) == 0);
	CHECK_EQ_INT(f.rec_version, 3);
	CHECK_EQ_INT(f.n_mh_bands, 4);
	CHECK_EQ_INT(f.st.size, stat_of(13).size);
	CHECK_EQ_INT(f.st.mtime_ns, stat_of(13).mtime_ns);
	idx_file_release(&f);
	REQUIRE(idx_get_id(ix, id2, &f) == 0);
	CHECK_EQ_STR(f.path, "c.txt");
	idx_file_release(&f);
	CHECK_EQ_INT(idx_get(ix, "nope", &f), -ENOENT);
	CHECK_EQ_INT(idx_get_id(ix, 999, &f), -ENOENT);
	CHECK_EQ_INT(idx_get(ix, "/abs", &f), -EINVAL);
	CHECK_EQ_INT(idx_get(ix, "a/../b", &f), -EINVAL);
	CHECK_EQ_INT(idx_get(ix, "a//b", &f), -EINVAL);
	CHECK_EQ_INT(idx_get(ix, "a/", &f), -EINVAL);
	REQUIRE(idx_record(ix, id, &ver, &rec, &len) == 0);
	CHECK_EQ_INT(ver, 3);
	CHECK_EQ_INT(len, 12);
	CHECK(memcmp(rec, "record-bytes", 12) == 0);
	free(rec);
	REQUIRE(idx_mh_bands(ix, id, &bands, &nb) == 0);
	CHECK_EQ_INT(nb, 4);
	CHECK(bands[3] == 4);
	free(bands);
	{	/* the generation moves with writes only */
		uint64_t g0 = idx_generation(ix), g1;

		REQUIRE(idx_get(ix, "c.txt", &f) == 0);
		idx_file_release(&f);
		CHECK(idx_generation(ix) == g0);
		REQUIRE(idx_exempt_set(ix, "c.txt", "a/b/book.epub", 1) == 0);
		g1 = idx_generation(ix);
		CHECK(g1 > g0);
		CHECK_EQ_INT(idx_sync(ix), 0);
	}
	REQUIRE(idx_counts(ix, &c) == 0);
	CHECK_EQ_INT(c.files, 2);
	CHECK_EQ_INT(c.books, 2);
	CHECK_EQ_INT(c.state[IDX_INDEXED], 2);
	CHECK_EQ_INT(c.state[IDX_QUEUED], 0);
	/* new ids keep growing after reopen */
	{
		const char *p = "new.txt";
		struct idx_stat st = stat_of(1);
		uint64_t nid = 0;

		REQUIRE(idx_mark_queued(ix, &p, &st, 1, &nid) == 0);
		CHECK(nid > id2);
	}
	idx_close(ix);
}

static int hit_has(const struct idx_hit *h, size_t n, uint64_t id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (h[i].id == id)
			return 1;
	return 0;
}

static void test_queries(void)
{
	const char *dir = check_tmpdir();
	uint8_t sh[5][16], th1[16], th2[16];
	uint64_t mh1[4] = { 10, 20, 30, 40 }, mh2[4] = { 10, 21, 30, 41 }, mh3[4] = { 11, 22, 33, 44 };
	uint64_t id[5], *ids = NULL;
	struct idx_hit *h = NULL;
	struct idx *ix = NULL;
	size_t n = 0;

	REQUIRE(dir);
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	simgen_sh(&rng_state, sh[0]);
	simgen_flip(&rng_state, sh[0], sh[1], 7);
	simgen_flip(&rng_state, sh[0], sh[2], 8);
	simgen_flip(&rng_state, sh[0], sh[3], 3);
	simgen_sh(&rng_state, sh[4]);
	simgen_sh(&rng_state, th1);
	simgen_sh(&rng_state, th2);
	id[0] = add_book(ix, "b0", sh[0], th1, mh1, 4, "r0");
	id[1] = add_book(ix, "b1", sh[1], th1, mh2, 4, "r1");
	id[2] = add_book(ix, "b2", sh[2], th2, mh3, 4, "r2");
	id[3] = add_book(ix, "b3", sh[3], th2, mh1, 4, "r3");
	id[4] = add_book(ix, "b4", sh[4], th2, mh3, 4, "r4");
	REQUIRE(id[4] != 0);
	REQUIRE(idx_near(ix, sh[0], 7, &h, &n) == 0);
	CHECK_EQ_INT(n, 3);
	if (n == 3) {
		CHECK(h[0].id == id[0] && h[0].dist == 0);
		CHECK(h[1].id == id[3] && h[1].dist == 3);
		CHECK(h[2].id == id[1] && h[2].dist == 7);
	}
	free(h);
	REQUIRE(idx_near(ix, sh[0], 2, &h, &n) == 0);
	CHECK_EQ_INT(n, 1);
	free(h);
	CHECK_EQ_INT(idx_near(ix, sh[0], 8, &h, &n), -EINVAL);
	REQUIRE(idx_mh_candidates(ix, mh1, 4, 1, &h, &n) == 0);
	CHECK_EQ_INT(n, 3);
	if (n == 3) {
		CHECK(h[0].id == id[0] && h[0].dist == 4);
		CHECK(h[1].id == id[3] && h[1].dist == 4);
		CHECK(h[2].id == id[1] && h[2].dist == 2);
	}
	free(h);
	REQUIRE(idx_mh_candidates(ix, mh1, 4, 3, &h, &n) == 0);
	CHECK_EQ_INT(n, 2);
	free(h);
	REQUIRE(idx_by_text_hash(ix, th2, &ids, &n) == 0);
	CHECK_EQ_INT(n, 3);
	if (n == 3)
		CHECK(ids[0] == id[2] && ids[1] == id[3] && ids[2] == id[4]);
	free(ids);
	{
		struct idx_groups g;

		REQUIRE(idx_text_groups(ix, &g) == 0);
		CHECK_EQ_INT(g.ngroups, 2);
		if (g.ngroups == 2) {
			CHECK_EQ_INT(g.start[1] - g.start[0], 3);
			CHECK_EQ_INT(g.start[2] - g.start[1], 2);
			CHECK(g.ids[0] == id[2]);
			CHECK(g.ids[3] == id[0] && g.ids[4] == id[1]);
		}
		idx_groups_release(&g);
		REQUIRE(idx_clusters(ix, 7, &g) == 0);
		CHECK_EQ_INT(g.ngroups, 1);
		if (g.ngroups == 1) {
			CHECK_EQ_INT(g.start[1], 3);
			CHECK(g.ids[0] == id[0] && g.ids[1] == id[1] && g.ids[2] == id[3]);
		}
		idx_groups_release(&g);
	}
	/* a re-put replaces the old band entries */
	{
		struct idx_stat st = stat_of(1);
		struct idx_fp fp;

		memset(&fp, 0, sizeof(fp));
		memcpy(fp.simhash, sh[4], 16);
		memcpy(fp.text_hash, th2, 16);
		REQUIRE(idx_put(ix, id[3], &st, &fp) == 0);
		REQUIRE(idx_near(ix, sh[0], 7, &h, &n) == 0);
		CHECK_EQ_INT(n, 2);
		CHECK(!hit_has(h, n, id[3]));
		free(h);
		REQUIRE(idx_mh_candidates(ix, mh1, 4, 1, &h, &n) == 0);
		CHECK_EQ_INT(n, 2);
		free(h);
		REQUIRE(idx_near(ix, sh[4], 0, &h, &n) == 0);
		CHECK_EQ_INT(n, 2);
		free(h);
	}
	idx_close(ix);
}

static void test_failed_and_counts(void)
{
	const char *dir = check_tmpdir();
	const char *paths[3] = { "x/1.txt", "x/2.bin", "x/3.epub" };
	struct idx_stat sts[3] = { stat_of(1), stat_of(2), stat_of(3) };
	uint64_t ids[3];
	struct idx *ix = NULL;
	struct idx_counts c;
	struct idx_file *errs = NULL, f;
	size_t n = 0;
	char longerr[3000];

	REQUIRE(dir);
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	REQUIRE(idx_mark_queued(ix, paths, sts, 3, ids) == 0);
	REQUIRE(idx_counts(ix, &c) == 0);
	CHECK_EQ_INT(c.state[IDX_QUEUED], 3);
	CHECK_EQ_INT(c.books, 0);
	memset(longerr, 'e', sizeof(longerr) - 1);
	longerr[sizeof(longerr) - 1] = '\0';
	REQUIRE(idx_put_failed(ix, ids[0], &sts[0], IDX_FAILED, "zip bomb refused") == 0);
	REQUIRE(idx_put_failed(ix, ids[1], &sts[1], IDX_NOT_BOOK, "binary") == 0);
	REQUIRE(idx_put_failed(ix, ids[2], &sts[2], IDX_FAILED, longerr) == 0);
	CHECK_EQ_INT(idx_put_failed(ix, ids[2], &sts[2], IDX_INDEXED, NULL), -EINVAL);
	CHECK_EQ_INT(idx_put_failed(ix, 12345, &sts[2], IDX_FAILED, "x"), -ENOENT);
	REQUIRE(idx_errors(ix, &errs, &n) == 0);
	CHECK_EQ_INT(n, 2);
	if (n == 2) {
		CHECK_EQ_STR(errs[0].path, "x/1.txt");
		CHECK_EQ_STR(errs[0].error, "zip bomb refused");
		CHECK_EQ_INT(strlen(errs[1].error), IDX_ERR_MAX);
	}
	idx_files_free(errs, n);
	REQUIRE(idx_counts(ix, &c) == 0);
	CHECK_EQ_INT(c.state[IDX_FAILED], 2);
	CHECK_EQ_INT(c.state[IDX_NOT_BOOK], 1);
	CHECK_EQ_INT(c.state[IDX_QUEUED], 0);
	CHECK_EQ_INT(c.files, 3);
	/* re-queueing clears the error */
	REQUIRE(idx_mark_queued(ix, paths, sts, 1, NULL) == 0);
	REQUIRE(idx_get(ix, paths[0], &f) == 0);
	CHECK_EQ_INT(f.state, IDX_QUEUED);
	CHECK(f.error == NULL);
	idx_file_release(&f);
	REQUIRE(idx_errors(ix, &errs, &n) == 0);
	CHECK_EQ_INT(n, 1);
	idx_files_free(errs, n);
	/* set_stat keeps the state */
	sts[1].size = 77;
	REQUIRE(idx_set_stat(ix, paths[1], &sts[1]) == 0);
	REQUIRE(idx_get(ix, paths[1], &f) == 0);
	CHECK_EQ_INT(f.st.size, 77);
	CHECK_EQ_INT(f.state, IDX_NOT_BOOK);
	idx_file_release(&f);
	CHECK_EQ_INT(idx_set_stat(ix, "nope", &sts[1]), -ENOENT);
	REQUIRE(idx_counts(ix, &c) == 0);
	CHECK_EQ_INT(c.state[IDX_FAILED], 1);
	CHECK_EQ_INT(c.state[IDX_QUEUED], 1);
	idx_close(ix);
}

/* idx_mark_stale(): what a scan marks after listing a folder of new books
 * leaves a book another process stored meanwhile (same stat, same record
 * version), and marks the rest as idx_mark_queued() does (t7209 saw 137
 * books read for 120 when three mounts scanned one library at once). */
static void test_mark_stale(void)
{
	const char *dir = check_tmpdir();
	const char *paths[3] = { "a.txt", "bb.txt", "new.txt" };
	struct idx_stat sts[3] = { stat_of(5), stat_of(6), stat_of(7) };
	static const uint8_t sh[16] = { 1 }, th[16] = { 2 };
	struct idx *ix = NULL;
	struct idx_counts c;
	struct idx_file f;
	size_t i;

	REQUIRE(dir);
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	/* stored (record version 3) with the stat the scan saw */
	REQUIRE(add_book(ix, paths[0], sh, th, NULL, 0, "r") != 0);
	REQUIRE(add_book(ix, paths[1], sh, th, NULL, 0, "r") != 0);
	sts[0] = stat_of(strlen(paths[0]));
	sts[1] = stat_of(strlen(paths[1]));
	sts[1].mtime_ns++;	/* changed since it was stored */
	REQUIRE(idx_mark_stale(ix, paths, sts, 3, 3) == 0);
	REQUIRE(idx_get(ix, paths[0], &f) == 0);
	CHECK_EQ_INT(f.state, IDX_INDEXED);
	idx_file_release(&f);
	for (i = 1; i < 3; i++) {
		REQUIRE(idx_get(ix, paths[i], &f) == 0);
		CHECK_EQ_INT(f.state, IDX_QUEUED);
		idx_file_release(&f);
	}
	REQUIRE(idx_counts(ix, &c) == 0);
	CHECK_EQ_INT(c.state[IDX_INDEXED], 1);
	CHECK_EQ_INT(c.state[IDX_QUEUED], 2);
	/* a record of another version is stale */
	REQUIRE(idx_mark_stale(ix, paths, sts, 1, 4) == 0);
	REQUIRE(idx_get(ix, paths[0], &f) == 0);
	CHECK_EQ_INT(f.state, IDX_QUEUED);
	idx_file_release(&f);
	CHECK_EQ_INT(idx_mark_stale(ix, (const char *[]){ "" }, sts, 1, 3), -EINVAL);
	idx_close(ix);
}

static void test_rename_unlink(void)
{
	const char *dir = check_tmpdir();
	uint8_t sh[16], th[16];
	uint64_t a, b, c, d, e;
	struct idx *ix = NULL;
	struct idx_entry *ents = NULL;
	struct idx_counts cnt;
	struct idx_file f;
	struct idx_hit *h = NULL;
	size_t n = 0;

	REQUIRE(dir);
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	simgen_sh(&rng_state, sh);
	simgen_sh(&rng_state, th);
	a = add_book(ix, "d1/a.txt", sh, th, NULL, 0, "A");
	b = add_book(ix, "d1/sub/b.txt", sh, th, NULL, 0, "B");
	c = add_book(ix, "d1x/c.txt", sh, th, NULL, 0, "C");	/* not under d1/ */
	d = add_book(ix, "d2/d.txt", sh, th, NULL, 0, "D");
	e = add_book(ix, "e.txt", sh, th, NULL, 0, "E");
	REQUIRE(e != 0);
	REQUIRE(idx_exempt_set(ix, "d1/a.txt", "e.txt", 1) == 0);
	/* plain file rename keeps id, fingerprint and exemption */
	CHECK_EQ_INT(idx_rename(ix, "e.txt", "f.txt", 0), 1);
	REQUIRE(idx_get(ix, "f.txt", &f) == 0);
	CHECK_EQ_INT(f.id, e);
	CHECK(f.has_fp);
	idx_file_release(&f);
	CHECK_EQ_INT(idx_get(ix, "e.txt", &f), -ENOENT);
	CHECK_EQ_INT(idx_exempt_has(ix, a, e), 1);
	/* directory rename moves the subtree, not the d1x sibling */
	CHECK_EQ_INT(idx_rename(ix, "d1", "n/d1", 0), 2);
	REQUIRE(idx_get(ix, "n/d1/sub/b.txt", &f) == 0);
	CHECK_EQ_INT(f.id, b);
	idx_file_release(&f);
	REQUIRE(idx_get(ix, "d1x/c.txt", &f) == 0);
	CHECK_EQ_INT(f.id, c);
	idx_file_release(&f);
	REQUIRE(idx_get_id(ix, a, &f) == 0);
	CHECK_EQ_STR(f.path, "n/d1/a.txt");
	idx_file_release(&f);
	CHECK_EQ_INT(idx_rename(ix, "n", "n/x", 0), -EINVAL);
	CHECK_EQ_INT(idx_rename(ix, "n/d1", "n", 0), -EINVAL);
	CHECK_EQ_INT(idx_rename(ix, "f.txt", "f.txt", 0), 0);
	CHECK_EQ_INT(idx_rename(ix, "unknown", "other", 0), 0);
	/* exchange two directories */
	CHECK_EQ_INT(idx_rename(ix, "n/d1", "d2", IDX_RENAME_EXCHANGE), 2);
	REQUIRE(idx_get(ix, "d2/sub/b.txt", &f) == 0);
	CHECK_EQ_INT(f.id, b);
	idx_file_release(&f);
	REQUIRE(idx_get(ix, "n/d1/d.txt", &f) == 0);
	CHECK_EQ_INT(f.id, d);
	idx_file_release(&f);
	/* rename over an existing file replaces it */
	CHECK_EQ_INT(idx_rename(ix, "f.txt", "d1x/c.txt", 0), 1);
	CHECK_EQ_INT(idx_get_id(ix, c, &f), -ENOENT);
	REQUIRE(idx_counts(ix, &cnt) == 0);
	CHECK_EQ_INT(cnt.files, 4);
	CHECK_EQ_INT(cnt.books, 4);
	/* listing: files and subdirectories, in name order */
	REQUIRE(idx_list(ix, "", 0, &ents, &n) == 0);
	CHECK_EQ_INT(n, 3);
	if (n == 3) {
		CHECK_EQ_STR(ents[0].name, "d1x");
		CHECK(ents[0].is_dir);
		CHECK_EQ_STR(ents[1].name, "d2");
		CHECK_EQ_STR(ents[2].name, "n");
	}
	idx_entries_free(ents, n);
	REQUIRE(idx_list(ix, "d2", 0, &ents, &n) == 0);
	CHECK_EQ_INT(n, 2);
	if (n == 2) {
		CHECK_EQ_STR(ents[0].name, "a.txt");
		CHECK(!ents[0].is_dir);
		CHECK_EQ_INT(ents[0].file.id, a);
		CHECK(ents[0].file.has_fp);
		CHECK_EQ_STR(ents[1].name, "sub");
		CHECK(ents[1].is_dir);
	}
	idx_entries_free(ents, n);
	REQUIRE(idx_list(ix, "", IDX_LIST_RECURSIVE, &ents, &n) == 0);
	CHECK_EQ_INT(n, 4);
	if (n == 4)
		CHECK_EQ_STR(ents[0].name, "d1x/c.txt");
	idx_entries_free(ents, n);
	/* unlink a directory: its files, fingerprints and exemptions go */
	CHECK_EQ_INT(idx_unlink(ix, "d2"), 2);
	CHECK_EQ_INT(idx_exempt_has(ix, a, e), 0);
	REQUIRE(idx_near(ix, sh, 0, &h, &n) == 0);
	CHECK_EQ_INT(n, 2);
	CHECK(!hit_has(h, n, a) && !hit_has(h, n, b));
	free(h);
	CHECK_EQ_INT(idx_unlink(ix, "d1x/c.txt"), 1);
	CHECK_EQ_INT(idx_unlink(ix, "d1x/c.txt"), 0);
	{	/* drop by id, wherever the file is now */
		uint64_t g = add_book(ix, "g/h.txt", sh, th, NULL, 0, "G");

		REQUIRE(g);
		CHECK_EQ_INT(idx_rename(ix, "g", "k", 0), 1);
		CHECK_EQ_INT(idx_drop(ix, g), 0);
		CHECK_EQ_INT(idx_get(ix, "k/h.txt", &f), -ENOENT);
		CHECK_EQ_INT(idx_drop(ix, g), -ENOENT);
	}
	REQUIRE(idx_counts(ix, &cnt) == 0);
	CHECK_EQ_INT(cnt.files, 1);
	CHECK_EQ_INT(cnt.books, 1);
	{
		struct idx_groups g;

		REQUIRE(idx_text_groups(ix, &g) == 0);
		CHECK_EQ_INT(g.ngroups, 0);
		idx_groups_release(&g);
	}
	idx_close(ix);
}

/* idx_apply(): ops in order in one transaction, bad ones refused alone;
 * IDX_RENAME_KNOWN leaves to alone when from is unknown. */
static void test_apply(void)
{
	struct idx *ix = NULL;
	struct idx_file f = { 0 };
	struct idx_counts cnt;
	uint8_t sh[16], th[16];
	uint64_t mh[4] = { 1, 2, 3, 4 }, a, b, c;
	struct idx_op ops[7];

	const char *dir = check_tmpdir();

	REQUIRE(dir);
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	simgen_sh(&rng_state, sh);
	simgen_sh(&rng_state, th);
	a = add_book(ix, "a.txt", sh, th, mh, 4, "ra");
	simgen_sh(&rng_state, sh);
	b = add_book(ix, "d/b.txt", sh, th, mh, 4, "rb");
	simgen_sh(&rng_state, sh);
	c = add_book(ix, "c.txt", sh, th, mh, 4, "rc");
	REQUIRE(a && b && c);
	memset(ops, 0, sizeof(ops));
	/* a -> x -> y, then y unlinked: nothing is left of a */
	ops[0] = (struct idx_op){ .kind = IDX_OP_RENAME, .path = "a.txt", .to = "x.txt",
				  .flags = IDX_RENAME_KNOWN };
	ops[1] = (struct idx_op){ .kind = IDX_OP_RENAME, .path = "x.txt", .to = "y.txt",
				  .flags = IDX_RENAME_KNOWN };
	ops[2] = (struct idx_op){ .kind = IDX_OP_UNLINK, .path = "y.txt" };
	/* refused alone */
	ops[3] = (struct idx_op){ .kind = IDX_OP_RENAME, .path = "d", .to = "d/e" };
	/* unknown from: c.txt stays */
	ops[4] = (struct idx_op){ .kind = IDX_OP_RENAME, .path = "gone.txt", .to = "c.txt",
				  .flags = IDX_RENAME_KNOWN };
	/* a folder moves */
	ops[5] = (struct idx_op){ .kind = IDX_OP_RENAME, .path = "d", .to = "e" };
	ops[6] = (struct idx_op){ .kind = IDX_OP_UNLINK, .path = "/bad" };
	CHECK_EQ_INT(idx_apply(ix, ops, 7), 0);
	CHECK_EQ_INT(ops[0].result, 1);
	CHECK_EQ_INT(ops[1].result, 1);
	CHECK_EQ_INT(ops[2].result, 1);
	CHECK_EQ_INT(ops[3].result, -EINVAL);
	CHECK_EQ_INT(ops[4].result, 0);
	CHECK_EQ_INT(ops[5].result, 1);
	CHECK_EQ_INT(ops[6].result, -EINVAL);
	CHECK_EQ_INT(idx_get_id(ix, a, &f), -ENOENT);
	REQUIRE(idx_get(ix, "c.txt", &f) == 0);
	CHECK_EQ_INT(f.id, c);
	idx_file_release(&f);
	REQUIRE(idx_get(ix, "e/b.txt", &f) == 0);
	CHECK_EQ_INT(f.id, b);
	idx_file_release(&f);
	REQUIRE(idx_counts(ix, &cnt) == 0);
	CHECK_EQ_INT(cnt.files, 2);
	CHECK_EQ_INT(cnt.books, 2);
	/* the same guard through idx_rename(); without it, to is replaced */
	CHECK_EQ_INT(idx_rename(ix, "gone.txt", "c.txt", IDX_RENAME_KNOWN), 0);
	CHECK_EQ_INT(idx_get(ix, "c.txt", &f), 0);
	idx_file_release(&f);
	CHECK_EQ_INT(idx_rename(ix, "gone.txt", "c.txt", 0), 0);
	CHECK_EQ_INT(idx_get(ix, "c.txt", &f), -ENOENT);
	CHECK_EQ_INT(idx_rename(ix, "e", "f", 4), -EINVAL);
	CHECK_EQ_INT(idx_apply(ix, ops, 0), 0);
	idx_close(ix);
}

static void test_long_paths(void)
{
	const char *dir = check_tmpdir();
	char p1[1200], p2[1200], p3[1200], dirp[700];
	uint8_t sh[16], th[16];
	struct idx *ix = NULL;
	struct idx_entry *ents = NULL;
	struct idx_file f;
	uint64_t a, b;
	size_t n = 0;

	REQUIRE(dir);
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	memset(dirp, 'd', 600);
	dirp[200] = '/';
	dirp[600] = '\0';
	snprintf(p1, sizeof(p1), "%s/%0400d.txt", dirp, 1);
	snprintf(p2, sizeof(p2), "%s/%0400d.txt", dirp, 2);
	simgen_sh(&rng_state, sh);
	simgen_sh(&rng_state, th);
	a = add_book(ix, p1, sh, th, NULL, 0, NULL);
	b = add_book(ix, p2, sh, th, NULL, 0, NULL);
	REQUIRE(a && b && a != b);
	REQUIRE(idx_get(ix, p2, &f) == 0);
	CHECK_EQ_INT(f.id, b);
	idx_file_release(&f);
	REQUIRE(idx_list(ix, dirp, 0, &ents, &n) == 0);
	CHECK_EQ_INT(n, 2);
	idx_entries_free(ents, n);
	REQUIRE(idx_list(ix, "", 0, &ents, &n) == 0);
	CHECK_EQ_INT(n, 1);
	if (n == 1)
		CHECK(ents[0].is_dir && strlen(ents[0].name) == 200);
	idx_entries_free(ents, n);
	snprintf(p3, sizeof(p3), "%s/%0400d.txt", dirp, 3);
	CHECK_EQ_INT(idx_rename(ix, p1, p3, 0), 1);
	REQUIRE(idx_get(ix, p3, &f) == 0);
	CHECK_EQ_INT(f.id, a);
	idx_file_release(&f);
	{
		char big[IDX_PATH_MAX + 2];
		const char *bp = big;
		struct idx_stat st = stat_of(1);

		memset(big, 'x', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		CHECK_EQ_INT(idx_mark_queued(ix, &bp, &st, 1, NULL), -ENAMETOOLONG);
	}
	CHECK_EQ_INT(idx_unlink(ix, dirp), 2);
	idx_close(ix);
}

/* Every pair within d through the index equals brute force. */
static void test_bands_complete(void)
{
	const char *dir = check_tmpdir();
	enum { N = 1500 };
	static uint8_t sh[N][16];
	static uint64_t ids[N];
	uint8_t th[16] = { 0 };
	struct idx_pair *pairs = NULL;
	struct idx_hit *h = NULL;
	struct idx *ix = NULL;
	size_t np = 0, nwant = 0, i, j, nh = 0, bad = 0;
	char path[32];
	struct idx_opts o = { .max_d = 7 };

	REQUIRE(dir);
	REQUIRE(idx_open(&ix, dir, &o) == 0);
	for (i = 0; i < N; i++) {
		if (i % 4)
			simgen_flip(&rng_state, sh[i - 1], sh[i], (uint32_t)(simgen_next(&rng_state) % 10));
		else
			simgen_sh(&rng_state, sh[i]);
		snprintf(path, sizeof(path), "p/%zu.txt", i);
		ids[i] = add_book(ix, path, sh[i], th, NULL, 0, NULL);
		REQUIRE(ids[i]);
	}
	REQUIRE(idx_near_pairs(ix, 7, &pairs, &np) == 0);
	for (i = 0; i < N; i++)
		for (j = i + 1; j < N; j++)
			if (band_distance(sh[i], sh[j]) <= 7) {
				size_t k;
				int found = 0;

				nwant++;
				for (k = 0; k < np && !found; k++)
					found = pairs[k].a == ids[i] && pairs[k].b == ids[j] &&
						pairs[k].dist == band_distance(sh[i], sh[j]);
				bad += !found;
			}
	CHECK(nwant > N / 4);
	CHECK_EQ_INT(np, nwant);
	CHECK_EQ_INT(bad, 0);
	free(pairs);
	/* single queries too, on a sample */
	for (i = 0; i < N; i += 37) {
		size_t want = 0;

		REQUIRE(idx_near(ix, sh[i], 7, &h, &nh) == 0);
		for (j = 0; j < N; j++)
			if (band_distance(sh[i], sh[j]) <= 7) {
				want++;
				bad += !hit_has(h, nh, ids[j]);
			}
		CHECK_EQ_INT(nh, want);
		free(h);
	}
	CHECK_EQ_INT(bad, 0);
	idx_close(ix);
	/* a wider threshold rebuilds the band table from the stored books */
	o.max_d = 10;
	REQUIRE(idx_open(&ix, dir, &o) == 0);
	CHECK_EQ_INT(idx_rebuilt(ix), 0);
	REQUIRE(idx_near_pairs(ix, 10, &pairs, &np) == 0);
	nwant = 0;
	for (i = 0; i < N; i++)
		for (j = i + 1; j < N; j++)
			nwant += band_distance(sh[i], sh[j]) <= 10;
	CHECK_EQ_INT(np, nwant);
	free(pairs);
	idx_close(ix);
}

static void test_exemptions(void)
{
	const char *dir = check_tmpdir();
	uint8_t sh[3][16], th[16] = { 0 };
	uint64_t a, b, c, *ids = NULL;
	struct idx *ix = NULL;
	struct idx_groups g;
	size_t n = 0;

	REQUIRE(dir);
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	simgen_sh(&rng_state, sh[0]);
	simgen_flip(&rng_state, sh[0], sh[1], 2);
	simgen_flip(&rng_state, sh[0], sh[2], 20);
	a = add_book(ix, "a", sh[0], th, NULL, 0, NULL);
	b = add_book(ix, "b", sh[1], th, NULL, 0, NULL);
	c = add_book(ix, "c", sh[2], th, NULL, 0, NULL);
	REQUIRE(c);
	REQUIRE(idx_clusters(ix, 7, &g) == 0);
	CHECK_EQ_INT(g.ngroups, 1);
	idx_groups_release(&g);
	CHECK_EQ_INT(idx_exempt_set(ix, "a", "a", 1), -EINVAL);
	CHECK_EQ_INT(idx_exempt_set(ix, "a", "zz", 1), -ENOENT);
	REQUIRE(idx_exempt_set(ix, "b", "a", 1) == 0);
	REQUIRE(idx_exempt_set(ix, "a", "c", 1) == 0);
	idx_close(ix);
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	CHECK_EQ_INT(idx_exempt_has(ix, a, b), 1);
	CHECK_EQ_INT(idx_exempt_has(ix, b, a), 1);
	CHECK_EQ_INT(idx_exempt_has(ix, b, c), 0);
	REQUIRE(idx_exempt_ids(ix, a, &ids, &n) == 0);
	CHECK_EQ_INT(n, 2);
	if (n == 2)
		CHECK(ids[0] == b && ids[1] == c);
	free(ids);
	REQUIRE(idx_clusters(ix, 7, &g) == 0);
	CHECK_EQ_INT(g.ngroups, 0);
	idx_groups_release(&g);
	REQUIRE(idx_exempt_set(ix, "a", "b", 0) == 0);
	CHECK_EQ_INT(idx_exempt_has(ix, a, b), 0);
	REQUIRE(idx_clusters(ix, 7, &g) == 0);
	CHECK_EQ_INT(g.ngroups, 1);
	idx_groups_release(&g);
	idx_close(ix);
}

/* Stores schema number v in the closed index at dir, with LMDB itself
 * (idx_open() refuses an index from a newer version). */
static int set_raw_schema(const char *dir, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };
	char name[] = "meta", key[] = "schema";
	MDB_val k = { 6, key }, val = { 4, b };
	MDB_env *env = NULL;
	MDB_txn *txn = NULL;
	MDB_dbi dbi;
	int rc = mdb_env_create(&env);

	if (rc == 0)
		rc = mdb_env_set_maxdbs(env, 32);
	if (rc == 0)
		rc = mdb_env_open(env, dir, 0, 0600);
	if (rc == 0)
		rc = mdb_txn_begin(env, NULL, 0, &txn);
	if (rc == 0)
		rc = mdb_dbi_open(txn, name, 0, &dbi);
	if (rc == 0)
		rc = mdb_put(txn, dbi, &k, &val, 0);
	if (rc == 0) {
		rc = mdb_txn_commit(txn);
		txn = NULL;
	}
	if (txn)
		mdb_txn_abort(txn);
	mdb_env_close(env);
	return rc;
}

static void test_schema_rebuild(void)
{
	const char *dir = check_tmpdir();
	uint8_t sh[16], th[16], bad[4] = { 0, 0, 0, 99 };
	struct idx *ix = NULL;
	struct idx_counts c;
	char p[512];
	int fd;

	REQUIRE(dir);
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	simgen_sh(&rng_state, sh);
	simgen_sh(&rng_state, th);
	REQUIRE(add_book(ix, "a", sh, th, NULL, 0, NULL));
	REQUIRE(idx_debug_raw_put(ix, "meta", "schema", 6, bad, 4) == 0);
	idx_close(ix);
	/* a newer version's schema: refused, never rebuilt over */
	CHECK_EQ_INT(idx_open(&ix, dir, NULL), -EPROTONOSUPPORT);
	/* a number no version will reach: damage, rebuilt empty, the file
	 * kept aside (nothing in a damaged file is trusted) */
	REQUIRE(set_raw_schema(dir, 0x7fffff00u) == 0);
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	CHECK_EQ_INT(idx_rebuilt(ix), IDX_REBUILT_LOST);
	snprintf(p, sizeof(p), "%s/" IDX_DAMAGED_NAME, dir);
	CHECK(access(p, F_OK) == 0);
	REQUIRE(idx_counts(ix, &c) == 0);
	CHECK_EQ_INT(c.files, 0);
	CHECK_EQ_INT(c.books, 0);
	REQUIRE(add_book(ix, "a", sh, th, NULL, 0, NULL));
	idx_close(ix);
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	CHECK_EQ_INT(idx_rebuilt(ix), 0);
	REQUIRE(idx_counts(ix, &c) == 0);
	CHECK_EQ_INT(c.files, 1);
	CHECK_EQ_INT(c.books, 1);
	/* schema 1 (before the clusters table) is rebuilt too */
	bad[3] = 1;	/* 0, 0, 0, 1 */
	REQUIRE(idx_debug_raw_put(ix, "meta", "schema", 6, bad, 4) == 0);
	idx_close(ix);
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	CHECK_EQ_INT(idx_rebuilt(ix), IDX_REBUILT_KEPT);
	REQUIRE(idx_counts(ix, &c) == 0);
	CHECK_EQ_INT(c.books, 0);
	idx_close(ix);
	/* a data file that is not LMDB at all */
	snprintf(p, sizeof(p), "%s/data.mdb", dir);
	fd = open(p, O_WRONLY | O_TRUNC);
	REQUIRE(fd >= 0);
	CHECK(write(fd, "this is not an lmdb file, just text....", 39) == 39);
	close(fd);
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	CHECK_EQ_INT(idx_rebuilt(ix), IDX_REBUILT_LOST);
	REQUIRE(idx_counts(ix, &c) == 0);
	CHECK_EQ_INT(c.files, 0);
	idx_close(ix);
}

/* A schema 4 index (no rel table rows) is upgraded in place: nothing is
 * lost, every book is unjudged until judged, and the next open finds
 * schema 5. */
static void test_schema4_upgrade(void)
{
	const char *dir = check_tmpdir();
	uint8_t sh[16], th[16], v4[4] = { 0, 0, 0, 4 };
	uint64_t a, b, un[4];
	struct idx_file f = { 0 };
	struct idx_rel *r = NULL;
	struct idx *ix = NULL;
	struct idx_counts c;
	size_t n = 0;

	REQUIRE(dir);
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	/* a new index owes no catch-up */
	CHECK_EQ_INT(idx_catchup_get(ix, &a), 0);
	simgen_sh(&rng_state, sh);
	simgen_sh(&rng_state, th);
	a = add_book(ix, "a", sh, th, NULL, 0, NULL);
	th[0] ^= 1;
	b = add_book(ix, "b", sh, th, NULL, 0, NULL);
	REQUIRE(a && b);
	REQUIRE(idx_exempt_set(ix, "a", "b", 1) == 0);
	REQUIRE(idx_debug_raw_put(ix, "meta", "schema", 6, v4, 4) == 0);
	idx_close(ix);
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	CHECK_EQ_INT(idx_rebuilt(ix), IDX_REBUILT_NOT);
	REQUIRE(idx_counts(ix, &c) == 0);
	CHECK_EQ_INT(c.books, 2);
	CHECK_EQ_INT(idx_exempt_has(ix, a, b), 1);
	CHECK_EQ_INT(idx_catchup_get(ix, un), 1);
	CHECK_EQ_INT(un[0], 0);
	REQUIRE(idx_catchup_set(ix, b, 0) == 0);
	CHECK_EQ_INT(idx_catchup_get(ix, un), 1);
	CHECK_EQ_INT(un[0], b);
	REQUIRE(idx_unjudged(ix, 0, un, 4, &n) == 0);
	CHECK(n == 2 && un[0] == a && un[1] == b);
	REQUIRE(idx_get_id(ix, a, &f) == 0);
	CHECK_EQ_INT(idx_rels_get(ix, a, idx_fp_tag(&f), &r, &n), 0);
	REQUIRE(idx_rels_set(ix, &(struct idx_judgement){ a, idx_fp_tag(&f), NULL, 0 }, 1) == 0);
	idx_file_release(&f);
	idx_close(ix);
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	CHECK_EQ_INT(idx_rebuilt(ix), IDX_REBUILT_NOT);
	REQUIRE(idx_unjudged(ix, 0, un, 4, &n) == 0);
	CHECK(n == 1 && un[0] == b);
	REQUIRE(idx_catchup_set(ix, 0, 1) == 0);
	CHECK_EQ_INT(idx_catchup_get(ix, un), 0);
	idx_close(ix);
}

/* A schema 5 index holds relations and cluster links of the relation rule
 * before other-translation: the upgrade drops both, keeps every book and
 * mark, and owes every book a judgement. */
static void test_schema5_upgrade(void)
{
	const char *dir = check_tmpdir();
	uint8_t sh[16], th[16], v5[4] = { 0, 0, 0, 5 };
	uint64_t a, b, un[4];
	struct idx_file fa = { 0 }, fb = { 0 };
	struct idx_rel rel, *r = NULL;
	struct idx_groups g;
	struct idx *ix = NULL;
	struct idx_counts c;
	size_t n = 0;

	REQUIRE(dir);
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	simgen_sh(&rng_state, sh);
	simgen_sh(&rng_state, th);
	a = add_book(ix, "a", sh, th, NULL, 0, NULL);
	th[0] ^= 1;
	b = add_book(ix, "b", sh, th, NULL, 0, NULL);
	REQUIRE(a && b);
	REQUIRE(idx_get_id(ix, a, &fa) == 0 && idx_get_id(ix, b, &fb) == 0);
	memset(&rel, 0, sizeof(rel));
	rel.id = b;
	rel.tag = idx_fp_tag(&fb);
	rel.cls_this = rel.cls_other = 3;
	rel.score = 90;
	rel.link = 1;
	REQUIRE(idx_rels_set(ix, &(struct idx_judgement){ a, idx_fp_tag(&fa), &rel, 1 }, 1) >= 0);
	REQUIRE(idx_link_groups(ix, &g) == 0);
	CHECK_EQ_INT(g.ngroups, 1);
	idx_groups_release(&g);
	CHECK_EQ_INT(idx_rels_get(ix, a, idx_fp_tag(&fa), &r, &n), 1);
	CHECK_EQ_INT(n, 1);
	free(r);
	r = NULL;
	REQUIRE(idx_debug_raw_put(ix, "meta", "schema", 6, v5, 4) == 0);
	idx_close(ix);
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	CHECK_EQ_INT(idx_rebuilt(ix), IDX_REBUILT_NOT);
	REQUIRE(idx_counts(ix, &c) == 0);
	CHECK_EQ_INT(c.books, 2);
	CHECK_EQ_INT(idx_rels_get(ix, a, idx_fp_tag(&fa), &r, &n), 0);
	CHECK_EQ_INT(n, 0);
	free(r);
	REQUIRE(idx_link_groups(ix, &g) == 0);
	CHECK_EQ_INT(g.ngroups, 0);
	idx_groups_release(&g);
	CHECK_EQ_INT(idx_catchup_get(ix, un), 1);
	CHECK_EQ_INT(un[0], 0);
	REQUIRE(idx_unjudged(ix, 0, un, 4, &n) == 0);
	CHECK(n == 2 && un[0] == a && un[1] == b);
	idx_file_release(&fa);
	idx_file_release(&fb);
	idx_close(ix);
	/* and the next open finds the current schema: no second upgrade */
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	CHECK_EQ_INT(idx_rebuilt(ix), IDX_REBUILT_NOT);
	idx_close(ix);
}

static void put_be64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static int file_exists(const char *dir, const char *name)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return access(p, F_OK) == 0;
}

/* Forces another schema (or leaves the old data file set aside, as a
 * rebuild stopped midway does), reopens and checks the entries, ids and
 * "not a duplicate" pairs come through; the books, put again under their
 * old ids, are exempt again. */
static void test_rebuild_keeps_marks(void)
{
	const char *dir = check_tmpdir();
	char longp[700], to[512];
	const char *paths[5] = { "a", "b", "c", longp, "x" };
	/* schema 2: a real older version, and one no in-place upgrade handles */
	uint8_t sh[5][16], th[16] = { 0 }, old[4] = { 0, 0, 0, 2 };
	uint8_t junk[16] = { 0 }, fresh_sh[16];
	uint64_t id[5], files = 0, pairs = 0, *ids = NULL, nid;
	struct idx *ix = NULL;
	struct idx_counts c;
	struct idx_file f;
	size_t n = 0, i, round;
	char cmd[1200];

	REQUIRE(dir);
	memset(longp, 'l', 600);
	longp[300] = '/';
	longp[600] = '\0';
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	simgen_sh(&rng_state, sh[0]);
	simgen_flip(&rng_state, sh[0], sh[1], 2);
	simgen_flip(&rng_state, sh[0], sh[2], 3);
	simgen_flip(&rng_state, sh[0], sh[3], 4);
	simgen_sh(&rng_state, sh[4]);
	for (i = 0; i < 5; i++)
		REQUIRE((id[i] = add_book(ix, paths[i], sh[i], th, NULL, 0, "r")) != 0);
	REQUIRE(idx_exempt_set(ix, "a", "b", 1) == 0);
	REQUIRE(idx_exempt_set(ix, longp, "a", 1) == 0);
	REQUIRE(idx_exempt_set(ix, "x", "c", 1) == 0);
	REQUIRE(idx_unlink(ix, "x") == 1);	/* its pair goes, its id is not reused */
	/* a damaged row and a pair with an unknown id are left behind */
	REQUIRE(idx_debug_raw_put(ix, "files", "zz", 2, "junk", 4) == 0);
	put_be64(junk, id[0]);
	put_be64(junk + 8, 999);
	REQUIRE(idx_debug_raw_put(ix, "exempt", junk, 16, NULL, 0) == 0);
	for (round = 0; round < 2; round++) {
		if (round == 0) {
			REQUIRE(idx_debug_raw_put(ix, "meta", "schema", 6, old, 4) == 0);
			idx_close(ix);
		} else {
			/* stopped after the old file was set aside: the
			 * data file beside it is the unfinished new one */
			REQUIRE(idx_debug_raw_put(ix, "meta", "schema", 6, old, 4) == 0);
			idx_close(ix);
			snprintf(cmd, sizeof(cmd), "cp '%s/data.mdb' '%s/old'", dir, dir);
			REQUIRE(system(cmd) == 0);
			REQUIRE(idx_open(&ix, dir, NULL) == 0);
			REQUIRE(add_book(ix, "stray", sh[4], th, NULL, 0, "r"));
			idx_close(ix);
			snprintf(cmd, sizeof(cmd), "mv '%s/old' '%s/data.mdb.prev'", dir, dir);
			REQUIRE(system(cmd) == 0);
		}
		REQUIRE(idx_open(&ix, dir, NULL) == 0);
		CHECK_EQ_INT(idx_rebuilt(ix), IDX_REBUILT_KEPT);
		CHECK(!file_exists(dir, "data.mdb.prev"));
		idx_rebuild_kept(ix, &files, &pairs);
		CHECK_EQ_INT(files, 4);
		CHECK_EQ_INT(pairs, 2);
		REQUIRE(idx_counts(ix, &c) == 0);
		CHECK_EQ_INT(c.files, 4);
		CHECK_EQ_INT(c.state[IDX_QUEUED], 4);
		CHECK_EQ_INT(c.books, 0);
		REQUIRE(idx_get(ix, longp, &f) == 0);
		CHECK(f.id == id[3] && f.state == IDX_QUEUED && !f.has_fp);
		CHECK(f.st.ino == stat_of(strlen(longp)).ino);	/* a lost rename is still found */
		idx_file_release(&f);
		CHECK_EQ_INT(idx_exempt_has(ix, id[0], id[1]), 1);
		CHECK_EQ_INT(idx_exempt_has(ix, id[3], id[0]), 1);
		CHECK_EQ_INT(idx_exempt_has(ix, id[0], id[2]), 0);
		/* the scan puts the books again: the same ids, the marks apply */
		for (i = 0; i < 4; i++)
			CHECK(add_book(ix, paths[i], sh[i], th, NULL, 0, "r") == id[i]);
		REQUIRE(idx_exempt_ids(ix, id[0], &ids, &n) == 0);
		CHECK_EQ_INT(n, 2);
		if (n == 2)
			CHECK(ids[0] == id[1] && ids[1] == id[3]);
		free(ids);
		ids = NULL;
		/* a new book takes an id no book ever had */
		simgen_sh(&rng_state, fresh_sh);
		nid = add_book(ix, round ? "new2" : "new", fresh_sh, th, NULL, 0, "r");
		CHECK(nid > id[4]);
		REQUIRE(idx_unlink(ix, round ? "new2" : "new") == 1);
	}
	REQUIRE(idx_exempt_set(ix, "a", "b", 0) == 0);
	CHECK_EQ_INT(idx_exempt_has(ix, id[0], id[1]), 0);
	idx_close(ix);
	/* an old file LMDB cannot read is rebuilt empty and says so */
	snprintf(to, sizeof(to), "%s/data.mdb.prev", dir);
	i = (size_t)open(to, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	REQUIRE((int)i >= 0);
	CHECK(write((int)i, "not an lmdb file at all, only some text", 39) == 39);
	close((int)i);
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	CHECK_EQ_INT(idx_rebuilt(ix), IDX_REBUILT_LOST);
	CHECK(!file_exists(dir, "data.mdb.prev"));
	idx_rebuild_kept(ix, &files, &pairs);
	CHECK_EQ_INT(files + pairs, 0);
	REQUIRE(idx_counts(ix, &c) == 0);
	CHECK_EQ_INT(c.files, 0);
	idx_close(ix);
}

/* Short, long and lying values planted in every table: no crash, clear errors. */
static void test_hostile_values(void)
{
	const char *dir = check_tmpdir();
	static const char *const dbs[] = { "files", "ids", "book", "rec", "shband", "mhband",
					   "text", "exempt", "fail", "uqkey", "uqbook", "clusters", "meta" };
	uint8_t sh[16], th[16], key[32], val[300];
	uint64_t id, mh[2] = { 5, 6 }, *ids = NULL, *bands = NULL;
	struct idx *ix = NULL;
	struct idx_entry *ents = NULL;
	struct idx_file f, *errs = NULL;
	struct idx_hit *h = NULL;
	struct idx_pair *pairs = NULL;
	struct idx_groups g;
	struct idx_counts c;
	uint32_t ver, nb;
	void *rec = NULL;
	size_t n, len, i, k;

	REQUIRE(dir);
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	simgen_sh(&rng_state, sh);
	memset(th, 0, sizeof(th));
	id = add_book(ix, "good", sh, th, mh, 2, "rec");
	REQUIRE(id);
	for (i = 0; i < sizeof(dbs) / sizeof(dbs[0]); i++) {
		for (k = 0; k < 40; k++) {
			size_t klen = 1 + simgen_next(&rng_state) % sizeof(key), vlen = simgen_next(&rng_state) % sizeof(val), j;

			for (j = 0; j < klen; j++)
				key[j] = (uint8_t)simgen_next(&rng_state);
			for (j = 0; j < vlen; j++)
				val[j] = (uint8_t)simgen_next(&rng_state);
			if (k % 4 == 0) {	/* keys that hit the real id's entries */
				memset(key, 0, 8);
				key[7] = (uint8_t)id;
				klen = 8 + k % 20;
			}
			if (k % 8 == 1 && strcmp(dbs[i], "shband") == 0) {
				key[0] = 0;	/* band 0, the one near pairs read */
			}
			REQUIRE(idx_debug_raw_put(ix, dbs[i], key, klen, val, vlen) == 0);
		}
	}
	/* a file record that claims a long path but is short */
	val[0] = 1;
	val[1] = IDX_INDEXED;
	val[2] = 0xff;
	val[3] = 0xff;
	REQUIRE(idx_debug_raw_put(ix, "files", "short", 5, val, 60) == 0);
	CHECK_EQ_INT(idx_debug_raw_put(ix, "nosuch", "k", 1, "v", 1), -EINVAL);
	/* every read copes */
	(void)idx_get(ix, "good", &f);
	idx_file_release(&f);
	CHECK_EQ_INT(idx_get(ix, "short", &f), -EIO);
	(void)idx_get_id(ix, id, &f);
	idx_file_release(&f);
	if (idx_record(ix, id, &ver, &rec, &len) == 0)
		free(rec);
	if (idx_mh_bands(ix, id, &bands, &nb) == 0)
		free(bands);
	if (idx_near(ix, sh, 7, &h, &n) == 0)
		free(h);
	if (idx_mh_candidates(ix, mh, 2, 1, &h, &n) == 0)
		free(h);
	if (idx_by_text_hash(ix, th, &ids, &n) == 0)
		free(ids);
	if (idx_near_pairs(ix, 7, &pairs, &n) == 0)
		free(pairs);
	if (idx_clusters(ix, 7, &g) == 0)
		idx_groups_release(&g);
	if (idx_text_groups(ix, &g) == 0)
		idx_groups_release(&g);
	if (idx_exempt_ids(ix, id, &ids, &n) == 0)
		free(ids);
	if (idx_links_of(ix, id, &ids, &n) == 0)
		free(ids);
	if (idx_link_groups(ix, &g) == 0)
		idx_groups_release(&g);
	(void)idx_exempt_has(ix, id, id + 1);
	if (idx_list(ix, "", IDX_LIST_RECURSIVE, &ents, &n) == 0)
		idx_entries_free(ents, n);
	if (idx_list(ix, "", 0, &ents, &n) == 0)
		idx_entries_free(ents, n);
	if (idx_errors(ix, &errs, &n) == 0)
		idx_files_free(errs, n);
	(void)idx_counts(ix, &c);
	/* and writes still work (or fail cleanly) on top of the garbage */
	{
		const char *p = "short";
		struct idx_stat st = stat_of(3);
		uint64_t nid = 0;

		CHECK_EQ_INT(idx_mark_queued(ix, &p, &st, 1, &nid), 0);
		REQUIRE(idx_get(ix, "short", &f) == 0);
		CHECK_EQ_INT(f.id, nid);
		idx_file_release(&f);
	}
	(void)idx_rename(ix, "good", "good2", 0);
	(void)idx_unlink(ix, "good2");
	(void)idx_unlink(ix, "short");
	idx_close(ix);
}

/* Starts tiny: many large records force the map to grow, with readers running. */
struct reader_arg {
	struct idx *ix;
	const uint8_t *sh;
	atomic_int *stop;
	int errors;
	long queries;
};

static void *reader(void *p)
{
	struct reader_arg *a = p;
	struct idx_hit *h;
	struct idx_file f;
	size_t n;

	while (!*a->stop) {
		if (idx_near(a->ix, a->sh, 7, &h, &n))
			a->errors++;
		else
			free(h);
		if (idx_get(a->ix, "g/0", &f) == 0)
			idx_file_release(&f);
		if (idx_generation(a->ix) == 0)
			a->errors++;
		a->queries++;
	}
	return NULL;
}

static void test_growth_concurrent(void)
{
	const char *dir = check_tmpdir();
	struct idx_opts o = { .map_size = 1 << 20, .sync_ms = 50 };
	struct reader_arg ra[2];
	atomic_int stop = 0;
	pthread_t th[2];
	uint8_t sh[16], th2[16] = { 0 };
	struct idx *ix = NULL;
	struct idx_counts c;
	char path[32], *blob;
	int i, fails = 0;

	REQUIRE(dir);
	REQUIRE(idx_open(&ix, dir, &o) == 0);
	CHECK_EQ_INT(idx_max_d(ix), 7);	/* zero means the default */
	blob = malloc(64 * 1024);
	REQUIRE(blob);
	memset(blob, 'r', 64 * 1024 - 1);
	blob[64 * 1024 - 1] = '\0';
	simgen_sh(&rng_state, sh);
	memset(ra, 0, sizeof(ra));
	for (i = 0; i < 2; i++) {
		ra[i].ix = ix;
		ra[i].sh = sh;
		ra[i].stop = &stop;
		REQUIRE(pthread_create(&th[i], NULL, reader, &ra[i]) == 0);
	}
	for (i = 0; i < 300; i++) {
		uint8_t s2[16];

		simgen_flip(&rng_state, sh, s2, (uint32_t)(i % 9));
		snprintf(path, sizeof(path), "g/%d", i);
		fails += add_book(ix, path, s2, th2, NULL, 0, blob) == 0;
	}
	stop = 1;
	for (i = 0; i < 2; i++) {
		pthread_join(th[i], NULL);
		CHECK_EQ_INT(ra[i].errors, 0);
		CHECK(ra[i].queries > 0);
	}
	CHECK_EQ_INT(fails, 0);
	REQUIRE(idx_counts(ix, &c) == 0);
	CHECK_EQ_INT(c.books, 300);
	free(blob);
	idx_close(ix);
}

/* idx_put_many(): the books of one call stored together, each as idx_put()
 * would; an unknown id among them stores none of them. */
static void test_put_many(void)
{
	const char *dir = check_tmpdir();
	const char *paths[3] = { "m0", "m1", "m2" };
	struct idx_stat st[3] = { stat_of(1), stat_of(2), stat_of(3) };
	uint64_t mh[2][4] = { { 1, 2, 3, 4 }, { 1, 2, 5, 6 } }, id[3], bad[2];
	struct idx_fp fp[3];
	struct idx_file f = { 0 };
	struct idx_hit *h = NULL;
	struct idx *ix = NULL;
	size_t n = 0, i;

	REQUIRE(dir);
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	REQUIRE(idx_mark_queued(ix, paths, st, 3, id) == 0);
	memset(fp, 0, sizeof(fp));
	for (i = 0; i < 3; i++) {
		simgen_sh(&rng_state, fp[i].simhash);
		simgen_sh(&rng_state, fp[i].text_hash);
		fp[i].mh_bands = mh[i & 1];
		fp[i].n_mh_bands = 4;
		fp[i].rec_version = 3;
		fp[i].rec = "rec";
		fp[i].rec_len = 3;
	}
	simgen_flip(&rng_state, fp[0].simhash, fp[1].simhash, 5);
	/* id[2] and an id that was never handed out: nothing stored */
	bad[0] = id[2];
	bad[1] = id[2] + 100;
	CHECK_EQ_INT(idx_put_many(ix, bad, st, fp, 2), -ENOENT);
	REQUIRE(idx_get_id(ix, id[2], &f) == 0);
	CHECK(!f.has_fp && f.state == IDX_QUEUED);
	idx_file_release(&f);
	fp[0].n_uq_keys = 1;	/* keys announced, none given */
	CHECK_EQ_INT(idx_put_many(ix, id, st, fp, 3), -EINVAL);
	fp[0].n_uq_keys = 0;
	REQUIRE(idx_put_many(ix, id, st, fp, 3) == 0);
	for (i = 0; i < 3; i++) {
		REQUIRE(idx_get_id(ix, id[i], &f) == 0);
		CHECK(f.has_fp && f.state == IDX_INDEXED);
		CHECK(memcmp(f.simhash, fp[i].simhash, 16) == 0);
		idx_file_release(&f);
	}
	REQUIRE(idx_near(ix, fp[0].simhash, 7, &h, &n) == 0);
	CHECK_EQ_INT(n, 2);
	if (n == 2)
		CHECK(h[0].id == id[0] && h[1].id == id[1] && h[1].dist == 5);
	free(h);
	REQUIRE(idx_mh_candidates(ix, mh[0], 4, 3, &h, &n) == 0);
	CHECK_EQ_INT(n, 2);	/* books 0 and 2: all four bands */
	free(h);
	idx_close(ix);
}

/* idx_apply() with books among the path changes: each as the single call,
 * in order; a put whose file went earlier in the batch, or a bad one, fails
 * alone. */
static void test_apply_puts(void)
{
	const char *dir = check_tmpdir();
	const char *paths[3] = { "p0", "p1", "p2" };
	struct idx_stat st[3] = { stat_of(1), stat_of(2), stat_of(3) };
	uint64_t mh[4] = { 1, 2, 3, 4 }, id[3];
	uint32_t keys[2] = { 7, 9 };
	struct idx_fp fp[2], bad;
	struct idx_op ops[6];
	struct idx_file f = { 0 };
	struct idx_uq_hit *uh = NULL;
	struct idx_uq_stats us;
	struct idx_hit *h = NULL;
	struct idx *ix = NULL;
	size_t n = 0, i;

	REQUIRE(dir);
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	REQUIRE(idx_mark_queued(ix, paths, st, 3, id) == 0);
	memset(fp, 0, sizeof(fp));
	for (i = 0; i < 2; i++) {
		simgen_sh(&rng_state, fp[i].simhash);
		simgen_sh(&rng_state, fp[i].text_hash);
		fp[i].mh_bands = mh;
		fp[i].n_mh_bands = 4;
		fp[i].rec_version = 3;
		fp[i].rec = "rec";
		fp[i].rec_len = 3;
		fp[i].uq_keys = keys;
		fp[i].n_uq_keys = 2;
	}
	bad = fp[0];
	bad.uq_keys = NULL;	/* keys announced, none given */
	memset(ops, 0, sizeof(ops));
	ops[0] = (struct idx_op){ .kind = IDX_OP_PUT, .id = id[0], .st = &st[0], .fp = &fp[0] };
	ops[1] = (struct idx_op){ .kind = IDX_OP_UNLINK, .path = "p1" };
	ops[2] = (struct idx_op){ .kind = IDX_OP_PUT, .id = id[1], .st = &st[1], .fp = &fp[1] };
	ops[3] = (struct idx_op){ .kind = IDX_OP_PUT, .id = id[2], .st = &st[2], .fp = &bad };
	ops[4] = (struct idx_op){ .kind = IDX_OP_PUT_FAILED, .id = id[2], .st = &st[2],
				  .state = IDX_NOT_BOOK, .error = "p2: not a book" };
	ops[5] = (struct idx_op){ .kind = IDX_OP_RENAME, .path = "p0", .to = "q0" };
	CHECK_EQ_INT(idx_apply(ix, ops, 6), 0);
	CHECK_EQ_INT(ops[0].result, 0);
	CHECK_EQ_INT(ops[1].result, 1);
	CHECK_EQ_INT(ops[2].result, -ENOENT);
	CHECK_EQ_INT(ops[3].result, -EINVAL);
	CHECK_EQ_INT(ops[4].result, 0);
	CHECK_EQ_INT(ops[5].result, 1);
	REQUIRE(idx_get(ix, "q0", &f) == 0);
	CHECK(f.id == id[0] && f.has_fp && f.state == IDX_INDEXED);
	CHECK(memcmp(f.simhash, fp[0].simhash, 16) == 0);
	idx_file_release(&f);
	CHECK_EQ_INT(idx_get_id(ix, id[1], &f), -ENOENT);
	REQUIRE(idx_get_id(ix, id[2], &f) == 0);
	CHECK(!f.has_fp && f.state == IDX_NOT_BOOK);
	CHECK(f.error && strcmp(f.error, "p2: not a book") == 0);
	idx_file_release(&f);
	REQUIRE(idx_near(ix, fp[0].simhash, 0, &h, &n) == 0);
	CHECK(n == 1 && h[0].id == id[0]);
	free(h);
	REQUIRE(idx_uq_candidates(ix, id[0], 1000, 1, &uh, &n, &us) == 0);
	CHECK_EQ_INT(n, 0);	/* the only other holder of the keys is gone */
	free(uh);
	idx_close(ix);
}

/* The ids of the hits, sorted, in out (room for max): their number. */
static size_t hit_ids(const struct idx_hit *h, size_t n, uint64_t *out, size_t max)
{
	size_t i, j, k = 0;

	for (i = 0; i < n && k < max; i++) {
		for (j = k; j > 0 && out[j - 1] > h[i].id; j--)
			out[j] = out[j - 1];
		out[j] = h[i].id;
		k++;
	}
	return k;
}

/* Which books of a group of copies the candidate queries name, and the
 * links, as representatives are removed, rewritten, renamed over and taken
 * over; then a schema 4 index (every copy with band entries, postings and
 * links) upgraded in place. */
static void test_copies(void)
{
	const char *dir = check_tmpdir();
	const char *paths[5] = { "c/a", "c/b", "c/c", "c/d", "z" };
	uint64_t mh[4] = { 5, 6, 7, 8 }, zmh[4] = { 5, 60, 70, 80 }, id[5], got[8], *v = NULL;
	uint32_t uq[3] = { 11, 22, IDX_UQ_HI | 33 };
	uint8_t sh[16], zsh[16], th[16], osh[16];
	struct idx_stat st = stat_of(1);
	struct idx_fp fp, zfp, ofp;
	struct idx_uq_hit *u = NULL;
	struct idx_uq_stats us;
	struct idx_hit *h = NULL;
	struct idx_file f = { 0 }, fz = { 0 };
	struct idx_groups g = { 0 };
	struct idx_rel rl = { 0 }, *rv = NULL;
	struct idx_judgement jd;
	struct idx *ix = NULL;
	size_t n = 0, i;

	REQUIRE(dir);
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	simgen_sh(&rng_state, sh);
	simgen_sh(&rng_state, th);
	simgen_flip(&rng_state, sh, zsh, 3);
	simgen_sh(&rng_state, osh);
	memset(&fp, 0, sizeof(fp));
	memcpy(fp.simhash, sh, 16);
	memcpy(fp.text_hash, th, 16);
	fp.mh_bands = mh;
	fp.n_mh_bands = 4;
	fp.rec_version = 3;
	fp.uq_keys = uq;
	fp.n_uq_keys = 3;
	zfp = fp;
	memcpy(zfp.simhash, zsh, 16);
	zfp.text_hash[0] ^= 1;
	zfp.mh_bands = zmh;
	ofp = fp;	/* another text */
	memcpy(ofp.simhash, osh, 16);
	ofp.text_hash[1] ^= 1;
	ofp.n_mh_bands = 0;
	ofp.n_uq_keys = 0;
	REQUIRE(idx_mark_queued(ix, paths, (struct idx_stat[5]){ st, st, st, st, st }, 5, id) == 0);
	for (i = 0; i < 4; i++)
		REQUIRE(idx_put(ix, id[i], &st, &fp) == 0);
	REQUIRE(idx_put(ix, id[4], &st, &zfp) == 0);

	/* one group of four; the queries name its first book, idx_near all */
	REQUIRE(idx_copies(ix, id[2], &v, &n) == 0);
	CHECK(n == 4 && v[0] == id[0] && v[3] == id[3]);
	free(v);
	REQUIRE(idx_copies(ix, id[4], &v, &n) == 0);
	CHECK(n == 1 && v[0] == id[4]);
	free(v);
	CHECK_EQ_INT(idx_copies(ix, 999, &v, &n), -ENOENT);
	REQUIRE(idx_get_id(ix, id[0], &f) == 0);
	CHECK(f.has_copies && !f.is_copy);
	idx_file_release(&f);
	REQUIRE(idx_get_id(ix, id[1], &f) == 0);
	CHECK(!f.has_copies && f.is_copy);
	idx_file_release(&f);
	REQUIRE(idx_near(ix, zsh, 7, &h, &n) == 0);
	CHECK_EQ_INT(n, 5);
	free(h);
	REQUIRE(idx_near_reps(ix, zsh, 7, &h, &n) == 0);
	CHECK(hit_ids(h, n, got, 8) == 2 && got[0] == id[0] && got[1] == id[4]);
	free(h);
	REQUIRE(idx_mh_candidates(ix, mh, 4, 1, &h, &n) == 0);
	CHECK(hit_ids(h, n, got, 8) == 2 && got[0] == id[0] && got[1] == id[4]);
	free(h);
	REQUIRE(idx_uq_candidates(ix, id[4], 100, 1, &u, &n, &us) == 0);
	CHECK(n == 1 && u[0].id == id[0] && u[0].shared == 3);
	free(u);
	REQUIRE(idx_uq_candidates(ix, id[2], 100, 1, &u, &n, &us) == 0);
	CHECK(n == 2 && us.keys == 3);	/* a copy's own keys still query */
	free(u);
	{
		struct idx_pair *pairs = NULL;

		REQUIRE(idx_near_pairs(ix, 7, &pairs, &n) == 0);
		CHECK_EQ_INT(n, 10);	/* every pair of the five books */
		free(pairs);
	}

	/* a link of the representative stands for the whole group */
	REQUIRE(idx_get_id(ix, id[0], &f) == 0);
	REQUIRE(idx_get_id(ix, id[4], &fz) == 0);
	/* z judged with no relation first (its mark), then a with z */
	jd = (struct idx_judgement){ id[4], idx_fp_tag(&fz), NULL, 0 };
	CHECK_EQ_INT(idx_rels_set(ix, &jd, 1), 0);
	rl = (struct idx_rel){ .id = id[4], .tag = idx_fp_tag(&fz), .cls_this = 2, .cls_other = 2,
			       .score = 80, .dist = 3, .link = 1, .jaccard = 0.5,
			       .cover_this = 0.25, .cover_other = 0.75 };
	jd = (struct idx_judgement){ id[0], idx_fp_tag(&f), &rl, 1 };
	CHECK_EQ_INT(idx_rels_set(ix, &jd, 1), 1);
	/* a copy is never judged: its judgement is refused */
	jd.id = id[2];
	CHECK_EQ_INT(idx_rels_set(ix, &jd, 1), 0);
	CHECK_EQ_INT(idx_rels_get(ix, id[2], idx_fp_tag(&f), &rv, &n), 0);
	idx_file_release(&f);
	REQUIRE(idx_link_groups(ix, &g) == 0);
	CHECK(g.ngroups == 1 && g.start[1] == 5);
	idx_groups_release(&g);
	/* an exemption removes its one pair: z still meets the other copies */
	REQUIRE(idx_exempt_set(ix, "c/a", "z", 1) == 0);
	REQUIRE(idx_link_groups(ix, &g) == 0);
	CHECK(g.ngroups == 1 && g.start[1] == 5);
	idx_groups_release(&g);
	REQUIRE(idx_exempt_set(ix, "c/b", "z", 1) == 0);
	REQUIRE(idx_exempt_set(ix, "c/c", "z", 1) == 0);
	REQUIRE(idx_exempt_set(ix, "c/d", "z", 1) == 0);
	REQUIRE(idx_link_groups(ix, &g) == 0);
	CHECK(g.ngroups == 1 && g.start[1] == 4);
	idx_groups_release(&g);
	for (i = 0; i < 4; i++)
		REQUIRE(idx_exempt_set(ix, paths[i], "z", 0) == 0);

	/* the representative unlinked: b takes over its band entries, postings
	 * and links */
	CHECK_EQ_INT(idx_unlink(ix, "c/a"), 1);
	REQUIRE(idx_near_reps(ix, zsh, 7, &h, &n) == 0);
	CHECK(hit_ids(h, n, got, 8) == 2 && got[0] == id[1] && got[1] == id[4]);
	free(h);
	REQUIRE(idx_mh_candidates(ix, mh, 4, 4, &h, &n) == 0);
	CHECK(n == 1 && h[0].id == id[1]);
	free(h);
	REQUIRE(idx_uq_candidates(ix, id[4], 100, 1, &u, &n, &us) == 0);
	CHECK(n == 1 && u[0].id == id[1]);
	free(u);
	REQUIRE(idx_links_of(ix, id[4], &v, &n) == 0);
	CHECK(n == 1 && v[0] == id[1]);
	free(v);
	REQUIRE(idx_get_id(ix, id[1], &f) == 0);
	CHECK(f.has_copies && !f.is_copy);
	/* its relations and judged mark too, both sides, values kept */
	CHECK_EQ_INT(idx_rels_get(ix, id[1], idx_fp_tag(&f), &rv, &n), 1);
	CHECK(n == 1 && rv[0].id == id[4] && rv[0].score == 80 && rv[0].cover_this == 0.25 &&
	      rv[0].cover_other == 0.75);
	free(rv);
	CHECK_EQ_INT(idx_rels_get(ix, id[0], idx_fp_tag(&f), &rv, &n), 0);
	CHECK_EQ_INT(idx_rels_get(ix, id[4], idx_fp_tag(&fz), &rv, &n), 1);
	CHECK(n == 1 && rv[0].id == id[1] && rv[0].cover_this == 0.75 && rv[0].cover_other == 0.25);
	free(rv);
	idx_file_release(&f);
	{
		uint64_t un[8];
		size_t nu = 9;

		/* nothing owes a judgement: b holds a's mark, c and d are copies
		 * (never judged, left out of a catch-up) */
		REQUIRE(idx_unjudged(ix, 0, un, 8, &nu) == 0);
		CHECK_EQ_INT(nu, 0);
	}
	/* z judged with a relation to c, a copy of another text (it became
	 * one while z was judged): stored under c's representative b */
	REQUIRE(idx_get_id(ix, id[2], &f) == 0);
	rl.id = id[2];
	rl.tag = idx_fp_tag(&f);
	rl.score = 70;
	idx_file_release(&f);
	jd = (struct idx_judgement){ id[4], idx_fp_tag(&fz), &rl, 1 };
	CHECK_EQ_INT(idx_rels_set(ix, &jd, 1), 1);
	CHECK_EQ_INT(idx_rels_get(ix, id[4], idx_fp_tag(&fz), &rv, &n), 1);
	CHECK(n == 1 && rv[0].id == id[1] && rv[0].score == 70);
	free(rv);

	/* b rewritten into another text: c takes over; b back as a copy
	 * (smaller id) takes over again, with the links */
	REQUIRE(idx_put(ix, id[1], &st, &ofp) == 0);
	REQUIRE(idx_links_of(ix, id[4], &v, &n) == 0);
	CHECK(n == 1 && v[0] == id[2]);
	free(v);
	REQUIRE(idx_put(ix, id[1], &st, &fp) == 0);
	REQUIRE(idx_links_of(ix, id[4], &v, &n) == 0);
	CHECK(n == 1 && v[0] == id[1]);
	free(v);
	REQUIRE(idx_get_id(ix, id[2], &f) == 0);
	CHECK(!f.has_copies && f.is_copy);
	CHECK_EQ_INT(idx_rels_get(ix, id[2], idx_fp_tag(&f), &rv, &n), 0);
	CHECK_EQ_INT(idx_rels_get(ix, id[1], idx_fp_tag(&f), &rv, &n), 1);
	CHECK(n == 1 && rv[0].id == id[4]);
	free(rv);
	idx_file_release(&f);
	/* the same fingerprint stored again keeps the links */
	REQUIRE(idx_put(ix, id[1], &st, &fp) == 0);
	REQUIRE(idx_links_of(ix, id[4], &v, &n) == 0);
	CHECK(n == 1 && v[0] == id[1]);
	free(v);

	/* d renamed over b: c takes over; d, with its id, stays a copy */
	REQUIRE(idx_rename(ix, "c/d", "c/b", 0) == 1);
	REQUIRE(idx_copies(ix, id[3], &v, &n) == 0);
	CHECK(n == 2 && v[0] == id[2] && v[1] == id[3]);
	free(v);
	REQUIRE(idx_links_of(ix, id[4], &v, &n) == 0);
	CHECK(n == 1 && v[0] == id[2]);
	free(v);
	/* the last copy goes: c is alone, flagged so */
	CHECK_EQ_INT(idx_unlink(ix, "c/b"), 1);
	REQUIRE(idx_get_id(ix, id[2], &f) == 0);
	CHECK(!f.has_copies && !f.is_copy);
	idx_file_release(&f);

	/* schema 4: a copy with book row version 1, band entries, postings and
	 * links of its own, upgraded in place on open */
	{
		const char *more[2] = { "c/e", "c/f" };
		uint8_t row[40 + 32], key[1 + 8 + 8], post[12], k4[4], lk[16];
		uint8_t v4[4] = { 0, 0, 0, 4 };
		struct band_layout bl;
		uint64_t mid[2];
		uint32_t b;

		REQUIRE(idx_mark_queued(ix, more, (struct idx_stat[2]){ st, st }, 2, mid) == 0);
		REQUIRE(idx_put(ix, mid[0], &st, &fp) == 0);
		REQUIRE(idx_put(ix, mid[1], &st, &fp) == 0);
		REQUIRE(band_layout_init(&bl, 7) == 0);
		for (i = 0; i < 2; i++) {
			uint64_t x = i ? mid[1] : id[2];

			memset(row, 0, sizeof(row));
			row[0] = 1;
			row[3] = 4;
			row[7] = 3;
			memcpy(row + 8, sh, 16);
			memcpy(row + 24, th, 16);
			for (b = 0; b < 4; b++)
				put_be64(row + 40 + 8 * b, mh[b]);
			put_be64(key, x);
			REQUIRE(idx_debug_raw_put(ix, "book", key, 8, row, sizeof(row)) == 0);
		}
		for (b = 0; b < bl.nbands; b++) {
			uint64_t bv = band_value(&bl, sh, b);
			int j;

			key[0] = (uint8_t)b;
			for (j = 0; j < bl.value_bytes; j++)
				key[1 + j] = (uint8_t)(bv >> (8 * (bl.value_bytes - 1 - j)));
			put_be64(key + 1 + bl.value_bytes, mid[1]);
			REQUIRE(idx_debug_raw_put(ix, "shband", key, 9u + bl.value_bytes, sh, 16) == 0);
		}
		put_be64(post, mid[1]);
		post[8] = 0, post[9] = 3, post[10] = 0, post[11] = 1;
		k4[0] = k4[1] = k4[2] = 0;
		k4[3] = 11;
		REQUIRE(idx_debug_raw_put(ix, "uqkey", k4, 4, post, 12) == 0);
		put_be64(lk, mid[1]);
		put_be64(lk + 8, id[4]);
		REQUIRE(idx_debug_raw_put(ix, "clusters", lk, 16, NULL, 0) == 0);
		put_be64(lk, id[4]);
		put_be64(lk + 8, mid[1]);
		REQUIRE(idx_debug_raw_put(ix, "clusters", lk, 16, NULL, 0) == 0);
		REQUIRE(idx_near_reps(ix, sh, 0, &h, &n) == 0);
		CHECK_EQ_INT(n, 2);	/* the planted band entries */
		free(h);
		REQUIRE(idx_debug_raw_put(ix, "meta", "schema", 6, v4, 4) == 0);
		idx_close(ix);
		REQUIRE(idx_open(&ix, dir, NULL) == 0);
		CHECK_EQ_INT(idx_rebuilt(ix), 0);
		REQUIRE(idx_near_reps(ix, sh, 0, &h, &n) == 0);
		CHECK(n == 1 && h[0].id == id[2]);
		free(h);
		REQUIRE(idx_near(ix, sh, 0, &h, &n) == 0);
		CHECK_EQ_INT(n, 3);
		free(h);
		REQUIRE(idx_uq_candidates(ix, id[4], 100, 1, &u, &n, &us) == 0);
		CHECK(n == 1 && u[0].id == id[2]);
		free(u);
		REQUIRE(idx_links_of(ix, id[4], &v, &n) == 0);
		CHECK(n == 1 && v[0] == id[2]);
		free(v);
		REQUIRE(idx_get_id(ix, id[2], &f) == 0);
		CHECK(f.has_copies && f.rec_version == 3 && f.n_mh_bands == 4);
		idx_file_release(&f);
		REQUIRE(idx_copies(ix, mid[1], &v, &n) == 0);
		CHECK(n == 3 && v[0] == id[2]);
		free(v);
	}
	idx_file_release(&fz);
	idx_close(ix);
}

int main(void)
{
	RUN(test_basic_persist);
	RUN(test_queries);
	RUN(test_failed_and_counts);
	RUN(test_mark_stale);
	RUN(test_rename_unlink);
	RUN(test_apply);
	RUN(test_apply_puts);
	RUN(test_long_paths);
	RUN(test_bands_complete);
	RUN(test_exemptions);
	RUN(test_schema_rebuild);
	RUN(test_schema4_upgrade);
	RUN(test_schema5_upgrade);
	RUN(test_rebuild_keeps_marks);
	RUN(test_hostile_values);
	RUN(test_growth_concurrent);
	RUN(test_put_many);
	RUN(test_copies);
	return CHECK_DONE();
}
