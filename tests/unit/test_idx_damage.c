/* test_idx_damage.c - damaged index files never crash or hang the index.
 *
 * LMDB verifies no page: a truncated, overwritten or bit-flipped data file
 * can make its calls read outside the map or loop.  Each case below damages
 * a copy of a small real index deterministically (truncations, zeroed page
 * headers, flipped bytes from a fixed seed, garbage, an empty file, another
 * program's tables, the meta pages and the schema record, a schema from the
 * future), puts it in a fresh index
 * folder as data.mdb or as the set-aside data.mdb.prev of a rebuild, and
 * opens it in a child process under a time limit, then reads every table
 * through the API and writes, as a mount's scan and views would.  Asserted:
 * no signal, no hang, the open either works (the index rebuilt when it had
 * to be) or is refused with the error the caller explains, a damaged file
 * is kept aside under the name idx.h gives instead of deleted, and the next
 * open works without rebuilding again.
 */
#include <errno.h>
#include <lmdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "groups.h"
#include "idx_test.h"
#include "idxcheck.h"

#define NBOOKS 80
#define CHILD_SECS 30

static uint8_t *pristine;
static size_t pristine_len;
static uint64_t rng = 0x5eed5eed12345678ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int write_file(const char *path, const void *p, size_t len)
{
	FILE *f = fopen(path, "wb");
	int ok = f && fwrite(p, 1, len, f) == len;

	if (f && fclose(f))
		ok = 0;
	return ok ? 0 : -1;
}

static int read_file(const char *path, uint8_t **p, size_t *len)
{
	FILE *f = fopen(path, "rb");
	long n;

	*p = NULL;
	if (!f)
		return -1;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return -1;
	}
	*p = malloc((size_t)n + 1);
	*len = (size_t)n;
	if (!*p || fread(*p, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		free(*p);
		*p = NULL;
		return -1;
	}
	fclose(f);
	return 0;
}

static int exists(const char *dir, const char *name)
{
	char p[PATH_MAX + 32];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return access(p, F_OK) == 0;
}

/* A small index with every table in use: books with records (some large
 * enough for overflow pages), pruning keys, marks, relations and links. */
static int build_pristine(const char *dir)
{
	struct idx *ix = NULL;
	static uint64_t ids[NBOOKS];
	char path[64], rec[9000], p[PATH_MAX];
	const char *pp = path;
	uint64_t mh[16];
	uint32_t uq[40];
	struct idx_rel rels[40];
	struct idx_judgement jd[40];
	struct idx_file f;
	int i, j, ret;

	ret = idx_open(&ix, dir, NULL);
	for (i = 0; i < NBOOKS && ret == 0; i++) {
		struct idx_stat st = { (uint64_t)i * 100, i, i, (uint64_t)i + 1000, 1 };
		struct idx_fp fp;

		snprintf(path, sizeof(path), "dir%d/book %03d.txt", i % 7, i);
		ret = idx_mark_queued(ix, &pp, &st, 1, &ids[i]);
		memset(&fp, 0, sizeof(fp));
		for (j = 0; j < IDX_SH_BYTES; j++) {
			fp.simhash[j] = (uint8_t)rnd();
			fp.text_hash[j] = (uint8_t)(i % 50 == 0 ? 7 : rnd());
		}
		for (j = 0; j < 16; j++)
			mh[j] = j % 3 ? rnd() : (uint64_t)(i % 5);
		for (j = 0; j < 40; j++)
			uq[j] = (uint32_t)(j * 97 + i % 11) | (j % 4 ? 0 : IDX_UQ_HI);
		/* ascending and unique: the keys are built in order per j */
		memset(rec, 'a' + i % 26, sizeof(rec));
		fp.mh_bands = mh;
		fp.n_mh_bands = 16;
		fp.rec_version = 1;
		fp.rec = rec;
		fp.rec_len = i % 10 == 0 ? sizeof(rec) : 300;
		fp.uq_keys = uq;
		fp.n_uq_keys = 0;
		if (ret == 0)
			ret = idx_put(ix, ids[i], &st, &fp);
	}
	for (i = 0; i + 1 < NBOOKS && i < 40 && ret == 0; i++) {
		char a[64], b[64];

		snprintf(a, sizeof(a), "dir%d/book %03d.txt", i % 7, i);
		snprintf(b, sizeof(b), "dir%d/book %03d.txt", (i + 1) % 7, i + 1);
		ret = idx_exempt_set(ix, a, b, 1);
	}
	for (i = 0; i < 40 && ret == 0; i++) {
		memset(&rels[i], 0, sizeof(rels[i]));
		rels[i].id = ids[i + 40];
		rels[i].cls_this = rels[i].cls_other = 2;
		rels[i].score = 90;
		rels[i].dist = 3;
		rels[i].link = 1;
		rels[i].jaccard = 0.9;
		rels[i].cover_this = rels[i].cover_other = 0.95;
		jd[i] = (struct idx_judgement){ ids[i], 0, &rels[i], 1 };
		ret = idx_get_id(ix, ids[i], &f);
		jd[i].tag = ret ? 0 : idx_fp_tag(&f);
		idx_file_release(&f);
		if (ret == 0)
			ret = idx_get_id(ix, ids[i + 40], &f);
		rels[i].tag = ret ? 0 : idx_fp_tag(&f);
		idx_file_release(&f);
	}
	if (ret == 0)
		ret = idx_rels_set(ix, jd, 40) == 40 ? 0 : -EIO;
	if (ret)
		fprintf(stderr, "building the index: %s (book %d)\n", strerror(-ret), i);
	idx_close(ix);
	snprintf(p, sizeof(p), "%s/data.mdb", dir);
	if (ret == 0)
		ret = read_file(p, &pristine, &pristine_len);
	return ret;
}

/* Everything a mount does with an index: every read, then writes. */
static void exercise(struct idx *ix)
{
	struct idx_entry *ents = NULL;
	struct idx_file f, *errs;
	struct idx_hit *h;
	struct idx_uq_hit *uh;
	struct idx_uq_stats us;
	struct idx_pair *pairs;
	struct idx_groups g;
	struct idx_counts c;
	struct idx_stat st = { 1, 2, 3, 4, 5 };
	const char *np = "new/book.txt";
	uint64_t *ids, *bands, nid;
	uint32_t nb, ver;
	size_t n = 0, i, m;
	void *rec;

	idx_counts(ix, &c);
	if (idx_list(ix, "", IDX_LIST_RECURSIVE, &ents, &n))
		n = 0;
	for (i = 0; i < n; i++) {
		uint64_t id = ents[i].file.id;

		if (idx_get(ix, ents[i].name, &f) == 0)
			idx_file_release(&f);
		if (idx_get_id(ix, id, &f) == 0) {
			if (f.has_fp && idx_near(ix, f.simhash, 7, &h, &m) == 0)
				free(h);
			if (f.has_fp && idx_by_text_hash(ix, f.text_hash, &ids, &m) == 0)
				free(ids);
			idx_file_release(&f);
		}
		if (idx_record(ix, id, &ver, &rec, &m) == 0)
			free(rec);
		if (idx_mh_bands(ix, id, &bands, &nb) == 0) {
			if (idx_mh_candidates(ix, bands, nb, 1, &h, &m) == 0)
				free(h);
			free(bands);
		}
		if (idx_uq_candidates(ix, id, 1000, 1, &uh, &m, &us) == 0)
			free(uh);
		if (idx_exempt_ids(ix, id, &ids, &m) == 0)
			free(ids);
		if (idx_links_of(ix, id, &ids, &m) == 0)
			free(ids);
	}
	if (idx_near_pairs(ix, 7, &pairs, &m) == 0)
		free(pairs);
	if (idx_exemptions(ix, &pairs, &m) == 0)
		free(pairs);
	if (idx_clusters(ix, 7, &g) == 0)
		idx_groups_release(&g);
	if (idx_link_groups(ix, &g) == 0)
		idx_groups_release(&g);
	if (groups_clusters(ix, &g) == 0)	/* the link graph and its clustering */
		idx_groups_release(&g);
	if (idx_text_groups(ix, &g) == 0)
		idx_groups_release(&g);
	if (idx_errors(ix, &errs, &m) == 0)
		idx_files_free(errs, m);
	idx_mark_queued(ix, &np, &st, 1, &nid);
	idx_rename(ix, "dir1", "moved", 0);
	for (i = 0; i < n && i < 20; i++)
		idx_unlink(ix, ents[i].name);
	idx_entries_free(ents, n);
}

enum { OPENED = 0, REFUSED = 3, FAILED = 4 };

/* Opens dir in a child (and exercises it): OPENED, REFUSED (a newer
 * schema), FAILED (another error), or -1 after a signal or a hang, which
 * are reported.  *how gets idx_rebuilt() through the exit code. */
static int open_in_child(const char *dir, const char *what, int *how)
{
	pid_t pid = fork();
	int status = 0;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		struct idx *ix = NULL;
		int ret;

		alarm(CHILD_SECS);
		ret = idx_open(&ix, dir, NULL);
		if (ret) {
			fprintf(stderr, "  %s: idx_open: %s\n", what, idx_strerror(ret));
			_exit(ret == -EPROTONOSUPPORT ? REFUSED : FAILED);
		}
		ret = idx_rebuilt(ix);
		exercise(ix);
		idx_close(ix);
		_exit(OPENED + 8 * (ret + 1));
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "  %s: the child died of signal %d%s\n", what, WTERMSIG(status),
			WTERMSIG(status) == SIGALRM ? " (a hang)" : "");
		return -1;
	}
	status = WEXITSTATUS(status);
	if (status >= 8) {
		*how = status / 8 - 1;
		return OPENED;
	}
	if (status != REFUSED && status != FAILED)
		fprintf(stderr, "  %s: the child exited %d\n", what, status);
	return status == REFUSED || status == FAILED ? status : -1;
}

/* 1 when a whole walk finds the file damaged (written as data.mdb in a
 * scratch folder of base, numbered n). */
static int walk_damaged(const char *base, int n, const uint8_t *p, size_t len)
{
	char dir[PATH_MAX], path[PATH_MAX + 32];

	snprintf(dir, sizeof(dir), "%s/w%d", base, n);
	snprintf(path, sizeof(path), "%s/data.mdb", dir);
	if (mkdir(dir, 0700) || write_file(path, p, len))
		return -1;
	return idxcheck_walk(dir, NULL) == IDXCHECK_DAMAGED;
}

/* One damaged file as data.mdb (prev = 0) or data.mdb.prev (prev = 1):
 * the first open works (rebuilding or not), a damaged file is never
 * simply deleted, and the second open works without a rebuild.  expect:
 * what idx_rebuilt() must say after the first open (-1: anything). */
static void one_case(const char *base, int n, const char *what, const uint8_t *p, size_t len,
		     int prev, int expect)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], label[200];
	int how = -1, how2 = -1, r;

	snprintf(dir, sizeof(dir), "%s/c%d", base, n);
	snprintf(label, sizeof(label), "%s%s", what, prev ? " (as data.mdb.prev)" : "");
	if (mkdir(dir, 0700)) {
		CHECK(0);
		return;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, prev ? "data.mdb.prev" : "data.mdb");
	if (write_file(path, p, len)) {
		CHECK(0);
		return;
	}
	r = open_in_child(dir, label, &how);
	CHECK_EQ_INT(r, OPENED);
	if (r != OPENED)
		return;
	/* nothing found at all, kept, or lost with the file kept aside */
	CHECK(!exists(dir, "data.mdb.prev"));
	if (expect >= 0 && how != expect) {
		fprintf(stderr, "  %s: rebuilt %d, not %d\n", label, how, expect);
		CHECK(0);
	}
	if (how == IDX_REBUILT_LOST && !exists(dir, IDX_DAMAGED_NAME)) {
		fprintf(stderr, "  %s: lost, and not kept as " IDX_DAMAGED_NAME "\n", label);
		CHECK(0);
	}
	r = open_in_child(dir, label, &how2);
	CHECK_EQ_INT(r, OPENED);
	if (r == OPENED && how2 != IDX_REBUILT_NOT) {
		fprintf(stderr, "  %s: rebuilt again at the second open (%d)\n", label, how2);
		CHECK(0);
	}
}

/* What the open must say of a damaged copy: a file a walk finds damaged,
 * wherever the damage landed, is rebuilt as unreadable and kept aside
 * (never taken for another version); one it finds sound may open as it
 * is, or be rebuilt when the damage hit a stored value. */
static int damage_expect(const char *base, int n, const uint8_t *p, size_t len)
{
	int r = walk_damaged(base, n, p, len);

	CHECK(r >= 0);
	return r == 1 ? IDX_REBUILT_LOST : -1;
}

static void run_cases(int prev)
{
	const char *base = check_tmpdir();
	size_t psz = 4096, npages, i, cut;
	uint8_t *b;
	int n = 0, k, e;

	REQUIRE(base && pristine);
	b = malloc(pristine_len + 65536);
	REQUIRE(b);
	npages = pristine_len / psz;
	/* the untouched file: opens as it is */
	one_case(base, n++, "pristine", pristine, pristine_len, prev,
		 prev ? IDX_REBUILT_KEPT : IDX_REBUILT_NOT);
	one_case(base, n++, "empty file", pristine, 0, prev, IDX_REBUILT_LOST);
	for (i = 0; i < 65536; i++)
		b[i] = (uint8_t)rnd();
	one_case(base, n++, "64 KiB of garbage", b, 65536, prev, IDX_REBUILT_LOST);
	/* truncated: inside the meta pages, at page bounds, mid-page, by one */
	{
		size_t cuts[] = { 100, psz, 2 * psz, 3 * psz, pristine_len / 2,
				  pristine_len / 2 + 1234, pristine_len - psz, pristine_len - 1 };

		for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
			char w[64];

			cut = cuts[i];
			snprintf(w, sizeof(w), "truncated to %zu bytes", cut);
			e = damage_expect(base, n, pristine, cut);
			one_case(base, n++, w, pristine, cut, prev, e);
		}
	}
	/* every page (the meta pages too), one of three kinds of damage each:
	 * its header zeroed, bits of its header flipped, its node pointers
	 * overwritten */
	for (i = 0; i < npages; i++) {
		char w[80];

		memcpy(b, pristine, pristine_len);
		if (i % 3 == 0) {
			memset(b + i * psz, 0, 16);
			snprintf(w, sizeof(w), "page %zu header zeroed", i);
		} else if (i % 3 == 1) {
			for (k = 0; k < 16; k++)
				b[i * psz + (rnd() % 24)] ^= (uint8_t)(1u << (rnd() % 8));
			snprintf(w, sizeof(w), "page %zu header flipped", i);
		} else {
			for (k = 16; k < 64; k++)
				b[i * psz + k] = (uint8_t)rnd();
			snprintf(w, sizeof(w), "page %zu node pointers overwritten", i);
		}
		e = damage_expect(base, n, b, pristine_len);
		one_case(base, n++, w, b, pristine_len, prev, e);
	}
	/* bytes flipped at random offsets, fixed seed */
	for (i = 0; i < 24; i++) {
		char w[64];

		memcpy(b, pristine, pristine_len);
		for (k = 0; k < 1 + (int)(i % 8); k++)
			b[rnd() % pristine_len] ^= (uint8_t)(1u << (rnd() % 8));
		snprintf(w, sizeof(w), "random flips, round %zu", i);
		e = damage_expect(base, n, b, pristine_len);
		one_case(base, n++, w, b, pristine_len, prev, e);
	}
	printf("# %d damaged files as %s\n", n, prev ? "data.mdb.prev" : "data.mdb");
	free(b);
}

static void test_damaged_data(void)
{
	run_cases(0);
}

static void test_damaged_prev(void)
{
	run_cases(1);
}

/* The pages and the record the schema check reads, damaged: LMDB's meta
 * pages (either or both zeroed), every page holding the schema record
 * (its header zeroed), the record's value zeroed or past any version's
 * number.  Each is damage, as data.mdb or data.mdb.prev: rebuilt as
 * unreadable and kept aside, never read as another version. */
static void test_schema_damage(void)
{
	/* the meta table's leaf node: data size 4, flags 0, key size 6 */
	static const uint8_t node[] = { 4, 0, 0, 0, 0, 0, 6, 0, 's', 'c', 'h', 'e', 'm', 'a' };
	const char *base = check_tmpdir();
	size_t psz = 4096, recs[16], nrec = 0, i, j;
	uint8_t *b;
	int n = 0, prev;

	REQUIRE(base && pristine);
	for (i = 0; i + sizeof(node) + 4 <= pristine_len && nrec < 16; i++)
		if (memcmp(pristine + i, node, sizeof(node)) == 0)
			recs[nrec++] = i + sizeof(node);
	REQUIRE(nrec > 0);
	b = malloc(pristine_len);
	REQUIRE(b);
	for (prev = 0; prev < 2; prev++) {
		for (i = 0; i < 3; i++) {
			static const char *const what[] = { "meta page 0 zeroed",
				"meta page 1 zeroed", "both meta pages zeroed" };

			memcpy(b, pristine, pristine_len);
			if (i != 1)
				memset(b, 0, 16);
			if (i != 0)
				memset(b + psz, 0, 16);
			one_case(base, n++, what[i], b, pristine_len, prev, IDX_REBUILT_LOST);
		}
		memcpy(b, pristine, pristine_len);
		for (j = 0; j < nrec; j++)
			memset(b + recs[j] / psz * psz, 0, 16);
		one_case(base, n++, "the schema record's page zeroed", b, pristine_len, prev,
			 IDX_REBUILT_LOST);
		for (i = 0; i < 2; i++) {
			memcpy(b, pristine, pristine_len);
			for (j = 0; j < nrec; j++)
				memset(b + recs[j], i ? 0xff : 0, 4);
			one_case(base, n++, i ? "schema number past any version's" :
				 "schema number zeroed", b, pristine_len, prev, IDX_REBUILT_LOST);
		}
	}
	printf("# %zu schema records in the file\n", nrec);
	free(b);
}

/* An index from an older schema, sound: rebuilt as another version, its
 * files' ids and marks kept, nothing kept aside. */
static void test_old_schema(void)
{
	const char *dir = check_tmpdir();
	uint8_t s[4] = { 0, 0, 0, 2 };
	char p[PATH_MAX + 16];
	struct idx *ix = NULL;
	uint64_t files = 0, pairs = 0;

	REQUIRE(dir && pristine);
	snprintf(p, sizeof(p), "%s/data.mdb", dir);
	REQUIRE(write_file(p, pristine, pristine_len) == 0);
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	REQUIRE(idx_debug_raw_put(ix, "meta", "schema", 6, s, 4) == 0);
	idx_close(ix);
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	CHECK_EQ_INT(idx_rebuilt(ix), IDX_REBUILT_KEPT);
	idx_rebuild_kept(ix, &files, &pairs);
	CHECK_EQ_INT(files, NBOOKS);
	CHECK_EQ_INT(pairs, 40);
	idx_close(ix);
	CHECK(!exists(dir, IDX_DAMAGED_NAME));
	CHECK(!exists(dir, "data.mdb.prev"));
}

/* A schema from the future: refused with a clear error, the file as it
 * was (rebuilding would destroy a newer version's index). */
static void test_future_schema(void)
{
	const char *dir = check_tmpdir();
	struct idx *ix = NULL;
	uint8_t s[4] = { 0, 0, 0, IDX_SCHEMA_VERSION + 1 }, *before = NULL, *after = NULL;
	size_t lb = 0, la = 0;
	char p[PATH_MAX + 16];
	int how = -1;

	REQUIRE(dir);
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	REQUIRE(idx_exempt_set(ix, "a", "b", 1) == -ENOENT);
	REQUIRE(idx_debug_raw_put(ix, "meta", "schema", 6, s, 4) == 0);
	idx_close(ix);
	snprintf(p, sizeof(p), "%s/data.mdb", dir);
	REQUIRE(read_file(p, &before, &lb) == 0);
	CHECK_EQ_INT(open_in_child(dir, "future schema", &how), REFUSED);
	CHECK_EQ_INT(idx_open(&ix, dir, NULL), -EPROTONOSUPPORT);
	CHECK(ix == NULL);
	CHECK(strstr(idx_strerror(-EPROTONOSUPPORT), "newer") != NULL);
	CHECK(read_file(p, &after, &la) == 0);
	CHECK(after && la == lb && memcmp(before, after, la) == 0);
	CHECK(!exists(dir, "data.mdb.prev"));
	free(before);
	free(after);
}

/* A clean close stamps the file so the next open skips the walk; a change
 * in place after it (same size, a page header zeroed) is still found. */
static void test_stamp(void)
{
	const char *dir = check_tmpdir();
	char p[PATH_MAX + 32], zero[16] = { 0 };
	struct idx *ix = NULL;
	FILE *f;
	int how = -1;
	size_t i;

	REQUIRE(dir);
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	REQUIRE(idx_exempt_set(ix, "a", "b", 1) == -ENOENT);
	idx_close(ix);
	CHECK(exists(dir, IDXCHECK_STAMP_NAME));
	CHECK_EQ_INT(idxcheck_walk(dir, NULL), 0);
	CHECK(!exists(dir, IDXCHECK_STAMP_NAME));	/* consumed */
	snprintf(p, sizeof(p), "%s/data.mdb", dir);
	REQUIRE(write_file(p, pristine, pristine_len) == 0);
	/* a new file in its place: walked, sound */
	CHECK_EQ_INT(open_in_child(dir, "copied over", &how), OPENED);
	CHECK_EQ_INT(how, IDX_REBUILT_NOT);
	CHECK(exists(dir, IDXCHECK_STAMP_NAME));
	/* damaged in place after the stamp (the size kept): every page
	 * header past the meta pages zeroed */
	f = fopen(p, "r+b");
	REQUIRE(f);
	for (i = 2; fseek(f, (long)i * 4096, SEEK_SET) == 0 && fgetc(f) != EOF; i++) {
		CHECK(fseek(f, (long)i * 4096, SEEK_SET) == 0);
		CHECK(fwrite(zero, 1, sizeof(zero), f) == sizeof(zero));
	}
	fclose(f);
	CHECK_EQ_INT(idxcheck_walk(dir, NULL), IDXCHECK_DAMAGED);
	CHECK_EQ_INT(open_in_child(dir, "damaged after the stamp", &how), OPENED);
	CHECK_EQ_INT(how, IDX_REBUILT_LOST);
}

struct writer_arg {
	struct idx *ix;
	volatile int stop;
	int err;
};

static void *writer_main(void *p)
{
	struct writer_arg *a = p;
	char path[64], rec[3000];
	const char *pp = path;
	uint64_t id, mh[2] = { 1, 2 };
	struct idx_fp fp;
	int i;

	memset(rec, 'w', sizeof(rec));
	for (i = 0; !a->stop && i < 20000 && !a->err; i++) {
		struct idx_stat st = { (uint64_t)i, i, i, (uint64_t)i, 1 };

		snprintf(path, sizeof(path), "live/%05d.txt", i);
		memset(&fp, 0, sizeof(fp));
		fp.simhash[i % 16] = (uint8_t)i;
		fp.mh_bands = mh;
		fp.n_mh_bands = 2;
		fp.rec = rec;
		fp.rec_len = sizeof(rec);
		a->err = idx_mark_queued(a->ix, &pp, &st, 1, &id);
		if (!a->err)
			a->err = idx_put(a->ix, id, &st, &fp);
	}
	return NULL;
}

/* An index open in a process (here this one, its map growing from 1 MiB
 * meanwhile) is seen as in use: its walk is skipped, never takes it for
 * damaged, and asking does not disturb the writer (closing a descriptor of
 * lock.mdb in the writer's process would drop its LMDB locks). */
static void test_live_writer(void)
{
	const char *dir = check_tmpdir();
	struct idx_opts o = { .map_size = (uint64_t)1 << 20 };
	struct writer_arg a = { NULL, 0, 0 };
	struct idx_counts c;
	pthread_t t;
	int i, r;

	REQUIRE(dir);
	REQUIRE(idx_open(&a.ix, dir, &o) == 0);
	REQUIRE(pthread_create(&t, NULL, writer_main, &a) == 0);
	CHECK_EQ_INT(idxcheck_in_use(dir), 1);
	/* until the map grew: more than 1 MiB of records */
	for (i = 0; i < 100000; i++) {
		r = idxcheck_walk(dir, NULL);
		CHECK_EQ_INT(r, 0);
		if (r || idx_counts(a.ix, &c) || c.books > 400)
			break;
	}
	a.stop = 1;
	pthread_join(t, NULL);
	CHECK_EQ_INT(a.err, 0);
	CHECK(idx_counts(a.ix, &c) == 0 && c.books > 400);
	printf("# %llu books written during the walks\n", (unsigned long long)c.books);
	idx_close(a.ix);
	CHECK_EQ_INT(idxcheck_in_use(dir), 0);
	CHECK_EQ_INT(idxcheck_walk(dir, NULL), 0);
}

/* A valid LMDB file of another program: rebuilt, the file kept aside. */
static void test_foreign_tables(void)
{
	const char *dir = check_tmpdir();
	MDB_env *env = NULL;
	MDB_txn *txn = NULL;
	MDB_dbi dbi;
	char kb[] = "hello", vb[] = "world";
	MDB_val k = { 5, kb }, v = { 5, vb };
	struct idx *ix = NULL;
	int how = -1;

	REQUIRE(dir);
	REQUIRE(mdb_env_create(&env) == 0);
	mdb_env_set_maxdbs(env, 4);
	REQUIRE(mdb_env_open(env, dir, 0, 0600) == 0);
	REQUIRE(mdb_txn_begin(env, NULL, 0, &txn) == 0);
	REQUIRE(mdb_dbi_open(txn, "users", MDB_CREATE, &dbi) == 0);
	REQUIRE(mdb_put(txn, dbi, &k, &v, 0) == 0);
	REQUIRE(mdb_dbi_open(txn, "files", MDB_CREATE, &dbi) == 0);
	REQUIRE(mdb_put(txn, dbi, &k, &v, 0) == 0);
	REQUIRE(mdb_txn_commit(txn) == 0);
	mdb_env_close(env);
	CHECK_EQ_INT(open_in_child(dir, "another program's tables", &how), OPENED);
	CHECK_EQ_INT(how, IDX_REBUILT_LOST);
	CHECK(exists(dir, IDX_DAMAGED_NAME));
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	CHECK_EQ_INT(idx_rebuilt(ix), IDX_REBUILT_NOT);
	idx_close(ix);
}

/* A reader child that cannot finish (idxcheck_test_stall(): it waits for
 * ever, as one holding a lock inherited at the fork would) is no evidence:
 * killed, it is replaced by another, the sound file opens (or is copied)
 * as it is and keeps its marks, and the note names the killed reader's
 * state.  When no
 * reader finishes, the answer is no verdict (-ETIMEDOUT), the file left
 * alone; a damaged file behind a stuck reader is still damage, with the
 * reason given. */
static void test_stuck_reader(void)
{
	static const char *const meta[] = { "meta" };
	const char *dir = check_tmpdir();
	struct idxcheck_rows rows = { NULL, 0 };
	struct idxcheck_note note;
	struct idx_pair *pairs = NULL;
	struct idx *ix = NULL;
	char p[PATH_MAX + 32], zero[16] = { 0 };
	size_t m = 0, i;
	FILE *f;

	REQUIRE(dir);
	snprintf(p, sizeof(p), "%s/data.mdb", dir);
	REQUIRE(write_file(p, pristine, pristine_len) == 0);
	/* one stuck reader: the next one walks it */
	idxcheck_test_stall(1, 300);
	CHECK_EQ_INT(idxcheck_walk(dir, &note), 0);
	printf("# %s\n", note.text);
	CHECK(strstr(note.text, "reader 1 of 3 stopped making progress, killed (") != NULL);
	CHECK(strstr(note.text, "wchan ") != NULL);
	/* the copy of a file's rows (a rebuild's carry-over) says the same */
	idxcheck_test_stall(1, 300);
	strcpy(note.text, "stale");
	CHECK_EQ_INT(idxcheck_dump(p, meta, 1, &rows, &note), 0);
	CHECK(rows.len > 0);
	idxcheck_rows_release(&rows);
	CHECK(strstr(note.text, "reader 1 of 3 stopped making progress, killed (") != NULL);
	CHECK_EQ_INT(idxcheck_dump(p, meta, 1, &rows, &note), 0);
	CHECK_EQ_STR(note.text, "");
	idxcheck_rows_release(&rows);
	/* two, through idx_open(): opened as it was, the marks all there */
	idxcheck_test_stall(2, 300);
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	CHECK_EQ_INT(idx_rebuilt(ix), IDX_REBUILT_NOT);
	CHECK(strstr(idx_check_note(ix), "reader 2 of 3 stopped making progress") != NULL);
	CHECK(idx_exemptions(ix, &pairs, &m) == 0);
	CHECK_EQ_INT((int)m, 40);
	free(pairs);
	idx_close(ix);
	ix = NULL;
	CHECK(!exists(dir, IDX_DAMAGED_NAME));
	/* every reader stuck: no verdict, nothing set aside */
	REQUIRE(unlink(p) == 0 || errno == ENOENT);
	REQUIRE(write_file(p, pristine, pristine_len) == 0);
	idxcheck_test_stall(3, 300);
	CHECK_EQ_INT(idxcheck_walk(dir, &note), -ETIMEDOUT);
	CHECK(strstr(note.text, "reader 3 of 3") != NULL);
	idxcheck_test_stall(3, 300);
	CHECK_EQ_INT(idx_open(&ix, dir, NULL), -ETIMEDOUT);
	CHECK(!exists(dir, IDX_DAMAGED_NAME));
	CHECK(exists(dir, "data.mdb"));
	idxcheck_test_stall(0, 0);
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	CHECK_EQ_INT(idx_rebuilt(ix), IDX_REBUILT_NOT);
	CHECK(idx_exemptions(ix, &pairs, &m) == 0);
	CHECK_EQ_INT((int)m, 40);
	free(pairs);
	idx_close(ix);
	/* really damaged (every page header past the meta pages zeroed), the
	 * first reader stuck: damage, and why */
	REQUIRE(unlink(p) == 0);
	REQUIRE(write_file(p, pristine, pristine_len) == 0);
	f = fopen(p, "r+b");
	REQUIRE(f);
	for (i = 2; i * 4096 < pristine_len; i++) {
		CHECK(fseek(f, (long)(i * 4096), SEEK_SET) == 0);
		CHECK(fwrite(zero, 1, sizeof(zero), f) == sizeof(zero));
	}
	fclose(f);
	idxcheck_test_stall(1, 300);
	CHECK_EQ_INT(idxcheck_walk(dir, &note), IDXCHECK_DAMAGED);
	printf("# %s\n", note.text);
	CHECK(strstr(note.text, "reader 1 of 3 stopped making progress") != NULL);
	CHECK(strstr(note.text, "a check of its pages failed") != NULL ||
	      strstr(note.text, "LMDB refused it") != NULL);
	idxcheck_test_stall(0, 0);
}

int main(void)
{
	const char *d = check_tmpdir();

	if (!d || build_pristine(d)) {
		fprintf(stderr, "cannot build the index the cases damage\n");
		return 1;
	}
	RUN(test_damaged_data);
	RUN(test_damaged_prev);
	RUN(test_schema_damage);
	RUN(test_old_schema);
	RUN(test_future_schema);
	RUN(test_stamp);
	RUN(test_live_writer);
	RUN(test_foreign_tables);
	RUN(test_stuck_reader);
	free(pristine);
	return CHECK_DONE();
}
