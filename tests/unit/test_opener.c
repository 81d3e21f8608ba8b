/* test_opener.c - the index opened in the background: the states and
 * progress of an upgrade and of a rebuild, changes made to SRC during the
 * open found afterwards, an open stopped half-way redone at the next one,
 * an open that fails. */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "idxcheck.h"
#include "ixtest.h"
#include "opener.h"

#define NBOOKS 12

/* A book of n words, different for each seed (syllables of a fixed
 * vocabulary, so the books share their frequent words). */
static char *book_text(unsigned n, uint32_t seed)
{
	static const char *const syl[] = { "ka", "lo", "mi", "ra", "te", "su", "no", "vi",
					   "da", "pe", "zu", "ri", "fen", "tor", "bal", "quin" };
	char *t = malloc((size_t)n * 12 + 64), *p = t;
	uint32_t x = seed * 2654435761u + 1;
	unsigned i, k, len;

	p += sprintf(p, "Book %u\n\n", seed);
	for (i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		len = 1 + (x >> 16) % 3;
		for (k = 0; k < len; k++) {
			x = x * 1103515245u + 12345u;
			p += sprintf(p, "%s", syl[(x >> 16) % 16]);
		}
		*p++ = i % 100 == 99 ? '\n' : ' ';
	}
	*p++ = '\n';
	*p = '\0';
	return t;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_ms(long ms)
{
	nanosleep(&(struct timespec){ ms / 1000, (ms % 1000) * 1000000L }, NULL);
}

/* Writes NBOOKS books, indexes them, marks b0/b1 "not a duplicate" and
 * sets the stored schema to schema (3: an upgrade in place; 2: a
 * rebuild); *id3 (may be NULL) gets b3's id.  Returns 0 or -1. */
static int make_library(uint32_t schema, int fd, uint64_t *id3)
{
	struct indexer_opts o = { 0 };
	struct indexer *ixr = NULL;
	uint8_t b[4] = { 0, 0, 0, (uint8_t)schema };
	char name[32];
	unsigned i;
	int ret = -1;

	for (i = 0; i < NBOOKS; i++) {
		char *t = book_text(3000, i + 1);

		snprintf(name, sizeof(name), "b%u.txt", i);
		ixtest_put(name, t);
		free(t);
	}
	o.index_dir = ixdir;
	o.threads = 2;
	o.no_watch = 1;
	if (indexer_new(&ixr, fd, &o) || indexer_start(ixr) || indexer_wait_idle(ixr, 60000))
		goto out;
	if (idx_exempt_set(indexer_idx(ixr), "b0.txt", "b1.txt", 1))
		goto out;
	if (id3 && !(*id3 = ixtest_id_of(ixr, "b3.txt")))
		goto out;
	ret = idx_debug_raw_put(indexer_idx(ixr), "meta", "schema", 6, b, 4) ? -1 : 0;
out:
	indexer_free(ixr);
	return ret;
}

/* What the opened callback saw. */
struct seen {
	atomic_int calls;
	atomic_int err;
	atomic_int had_ixr;
};

static void on_opened(void *arg, struct indexer *ixr, int err)
{
	struct seen *s = arg;

	atomic_store(&s->err, err);
	atomic_store(&s->had_ixr, ixr != NULL);
	atomic_fetch_add(&s->calls, 1);
}

static void opts_for(struct opener_opts *oo, struct seen *s, unsigned delay_ms)
{
	memset(oo, 0, sizeof(*oo));
	oo->io.index_dir = ixdir;
	oo->io.threads = 2;
	oo->io.no_watch = 1;
	oo->opened = on_opened;
	oo->arg = s;
	oo->test_delay_ms = delay_ms;
}

/* Polls op until its state is want (or OPEN/FAILED when want is neither),
 * at most timeout_s; the last info in *info.  1 when reached. */
static int wait_state(struct opener *op, enum opener_state want, double timeout_s,
		      struct opener_info *info)
{
	double end = now_s() + timeout_s;

	do {
		opener_info(op, info);
		if (info->state == want)
			return 1;
		sleep_ms(1);
	} while (now_s() < end);
	return 0;
}

static uint64_t id_of(struct idx *ix, const char *path)
{
	struct idx_file f = { 0 };
	uint64_t id = 0;

	if (idx_get(ix, path, &f) == 0)
		id = f.id;
	idx_file_release(&f);
	return id;
}

/* An upgrade in place: observed as such while the indexer is not
 * published; changes made meanwhile (a new book, a rename, an unlink) are
 * in the index once it is idle; the rename keeps the book's id. */
static void test_upgrade_in_background(void)
{
	struct opener_opts oo;
	struct opener *op = NULL;
	struct opener_info info;
	struct indexer *ixr;
	struct indexer_status st;
	struct seen s = { 0 };
	uint64_t id3;
	char from[PATH_MAX + 32], to[PATH_MAX + 32], *t;
	int fd;

	REQUIRE(ixtest_dirs() == 0);
	REQUIRE((fd = open(src, O_RDONLY | O_DIRECTORY)) >= 0);
	REQUIRE(make_library(3, fd, &id3) == 0);
	opts_for(&oo, &s, 20);
	REQUIRE(opener_new(&op, fd, &oo) == 0);
	opener_info(op, &info);
	CHECK_EQ_INT(info.state, OPENER_OPENING);
	CHECK(opener_indexer(op) == NULL);
	REQUIRE(opener_start(op) == 0);
	CHECK_EQ_INT(opener_start(op), -EBUSY);
	REQUIRE(wait_state(op, OPENER_UPGRADING, 10, &info));
	CHECK(opener_indexer(op) == NULL);
	CHECK_EQ_STR(opener_state_name(info.state), "upgrading");
	/* changes while the index is not open: no one is told */
	t = book_text(2500, 99);
	ixtest_put("late.txt", t);
	free(t);
	snprintf(from, sizeof(from), "%s/b3.txt", src);
	snprintf(to, sizeof(to), "%s/moved.txt", src);
	CHECK(rename(from, to) == 0);
	snprintf(from, sizeof(from), "%s/b4.txt", src);
	CHECK(unlink(from) == 0);
	REQUIRE(wait_state(op, OPENER_OPEN, 30, &info));
	CHECK(info.total > 0);
	CHECK_EQ_INT(info.done, info.total);
	CHECK(info.seconds > 0.0);
	CHECK_EQ_INT(atomic_load(&s.calls), 1);
	CHECK_EQ_INT(atomic_load(&s.err), 0);
	CHECK_EQ_INT(atomic_load(&s.had_ixr), 1);
	REQUIRE((ixr = opener_indexer(op)) != NULL);
	CHECK_EQ_INT(idx_rebuilt(indexer_idx(ixr)), IDX_REBUILT_NOT);
	REQUIRE(indexer_wait_idle(ixr, 60000) == 0);
	indexer_status(ixr, &st);
	CHECK_EQ_INT(st.books, NBOOKS);	/* one gone, one new */
	CHECK(ixtest_id_of(ixr, "late.txt") != 0);
	CHECK(ixtest_id_of(ixr, "moved.txt") != 0);
	CHECK_EQ_INT(id_of(indexer_idx(ixr), "b3.txt"), 0);
	CHECK_EQ_INT(id_of(indexer_idx(ixr), "b4.txt"), 0);
	CHECK_EQ_INT(st.scan_renamed, 1);
	CHECK_EQ_INT(id_of(indexer_idx(ixr), "moved.txt"), id3);
	/* the mark survived the upgrade */
	CHECK_EQ_INT(idx_exempt_has(indexer_idx(ixr), id_of(indexer_idx(ixr), "b0.txt"),
				    id_of(indexer_idx(ixr), "b1.txt")), 1);
	opener_free(op);
	close(fd);
}

/* What a plain idx_open() reports. */
struct phases {
	int upgrade, rebuild;
};

static int count_phase(void *arg, enum idx_open_phase phase, uint64_t done, uint64_t total)
{
	struct phases *p = arg;

	(void)done;
	(void)total;
	p->upgrade += phase == IDX_OPEN_UPGRADE;
	p->rebuild += phase == IDX_OPEN_REBUILD;
	return 0;
}

/* opener_free() during an upgrade returns at once; the upgrade's
 * transaction is dropped, so the next open upgrades again, and nothing
 * was lost. */
static void test_stop_upgrade(void)
{
	struct opener_opts oo;
	struct opener *op = NULL;
	struct opener_info info;
	struct idx_opts xo = { 0 };
	struct phases ph = { 0 };
	struct idx_counts c;
	struct idx *ix = NULL;
	struct seen s = { 0 };
	double t0;
	int fd;

	REQUIRE(ixtest_dirs() == 0);
	REQUIRE((fd = open(src, O_RDONLY | O_DIRECTORY)) >= 0);
	REQUIRE(make_library(3, fd, NULL) == 0);
	opts_for(&oo, &s, 300);
	REQUIRE(opener_new(&op, fd, &oo) == 0);
	REQUIRE(opener_start(op) == 0);
	REQUIRE(wait_state(op, OPENER_UPGRADING, 10, &info));
	t0 = now_s();
	opener_free(op);
	CHECK(now_s() - t0 < 2.0);
	CHECK_EQ_INT(atomic_load(&s.err), -ECANCELED);
	CHECK_EQ_INT(atomic_load(&s.had_ixr), 0);

	xo.progress = count_phase;
	xo.progress_arg = &ph;
	REQUIRE(idx_open(&ix, ixdir, &xo) == 0);
	CHECK(ph.upgrade > 0);
	CHECK_EQ_INT(ph.rebuild, 0);
	CHECK_EQ_INT(idx_rebuilt(ix), IDX_REBUILT_NOT);
	REQUIRE(idx_counts(ix, &c) == 0);
	CHECK_EQ_INT(c.books, NBOOKS);
	CHECK_EQ_INT(idx_exempt_has(ix, id_of(ix, "b0.txt"), id_of(ix, "b1.txt")), 1);
	idx_close(ix);
	/* upgraded now: nothing more to do */
	ph.upgrade = 0;
	REQUIRE(idx_open(&ix, ixdir, &xo) == 0);
	CHECK_EQ_INT(ph.upgrade, 0);
	idx_close(ix);
	close(fd);
}

/* A rebuild (another schema) shows as such, with its progress; stopped
 * half-way, the next open rebuilds again and keeps the ids and marks. */
static void test_stop_rebuild(void)
{
	struct opener_opts oo;
	struct opener *op = NULL;
	struct opener_info info;
	struct idx_opts xo = { 0 };
	struct phases ph = { 0 };
	struct idx *ix = NULL;
	struct seen s = { 0 };
	char prev[PATH_MAX + 32];
	uint64_t files = 0, pairs = 0;
	int fd;

	REQUIRE(ixtest_dirs() == 0);
	REQUIRE((fd = open(src, O_RDONLY | O_DIRECTORY)) >= 0);
	REQUIRE(make_library(2, fd, NULL) == 0);
	opts_for(&oo, &s, 100);
	REQUIRE(opener_new(&op, fd, &oo) == 0);
	REQUIRE(opener_start(op) == 0);
	REQUIRE(wait_state(op, OPENER_REBUILDING, 10, &info));
	/* into the copy of the old rows */
	while (info.state == OPENER_REBUILDING && info.done < 2)
		opener_info(op, &info);
	CHECK_EQ_STR(opener_state_name(info.state), "rebuilding");
	CHECK(info.total >= NBOOKS);
	opener_free(op);
	CHECK_EQ_INT(atomic_load(&s.err), -ECANCELED);
	snprintf(prev, sizeof(prev), "%s/data.mdb.prev", ixdir);
	CHECK(access(prev, F_OK) == 0);

	xo.progress = count_phase;
	xo.progress_arg = &ph;
	REQUIRE(idx_open(&ix, ixdir, &xo) == 0);
	CHECK(ph.rebuild > NBOOKS);
	CHECK_EQ_INT(idx_rebuilt(ix), IDX_REBUILT_KEPT);
	idx_rebuild_kept(ix, &files, &pairs);
	CHECK_EQ_INT(files, NBOOKS);
	CHECK_EQ_INT(pairs, 1);
	CHECK_EQ_INT(idx_exempt_has(ix, id_of(ix, "b0.txt"), id_of(ix, "b1.txt")), 1);
	CHECK(access(prev, F_OK) != 0);
	idx_close(ix);
	close(fd);
}

/* An index that cannot be opened: OPENER_FAILED with the error; the
 * callback was told. */
static void test_open_fails(void)
{
	struct opener_opts oo;
	struct opener *op = NULL;
	struct opener_info info;
	struct seen s = { 0 };
	int fd;

	REQUIRE(ixtest_dirs() == 0);
	REQUIRE((fd = open(src, O_RDONLY | O_DIRECTORY)) >= 0);
	ixtest_put("not-a-dir", "a file where the index folder should be");
	if (snprintf(ixdir, sizeof(ixdir), "%.*s/not-a-dir", (int)(sizeof(ixdir) - 16), src) < 0)
		REQUIRE(0);
	opts_for(&oo, &s, 0);
	REQUIRE(opener_new(&op, fd, &oo) == 0);
	REQUIRE(opener_start(op) == 0);
	REQUIRE(wait_state(op, OPENER_FAILED, 10, &info));
	CHECK(info.error < 0 && info.error != -ECANCELED);
	CHECK_EQ_STR(opener_state_name(info.state), "failed");
	CHECK(opener_indexer(op) == NULL);
	CHECK_EQ_INT(atomic_load(&s.calls), 1);
	CHECK_EQ_INT(atomic_load(&s.err), info.error);
	opener_free(op);
	/* never started */
	REQUIRE(opener_new(&op, fd, &oo) == 0);
	opener_free(op);
	opener_free(NULL);
	close(fd);
}

/* An index file whose check could not finish (every reader held up:
 * -ETIMEDOUT, no verdict) is no failed open: the opener says unavailable,
 * tries again and opens it as it was, its marks kept and nothing set
 * aside; the mount would otherwise go without views until remounted. */
static void test_check_held_up(void)
{
	struct indexer_opts o = { 0 };
	struct indexer *ixr = NULL;
	struct opener_opts oo;
	struct opener *op = NULL;
	struct opener_info info;
	struct seen s = { 0 };
	struct idx_pair *pairs = NULL;
	char aside[PATH_MAX + 32];
	size_t n = 0;
	int fd;

	REQUIRE(ixtest_dirs() == 0);
	REQUIRE((fd = open(src, O_RDONLY | O_DIRECTORY)) >= 0);
	ixtest_put("a.txt", "A small book of a few words, kept in the index.\n");
	ixtest_put("b.txt", "Another small book, of other words, kept beside it.\n");
	o.index_dir = ixdir;
	o.threads = 1;
	o.no_watch = 1;
	REQUIRE(indexer_new(&ixr, fd, &o) == 0);
	REQUIRE(indexer_start(ixr) == 0 && indexer_wait_idle(ixr, 60000) == 0);
	REQUIRE(idx_exempt_set(indexer_idx(ixr), "a.txt", "b.txt", 1) == 0);
	indexer_free(ixr);
	/* walked at the next open, as after a crash */
	snprintf(aside, sizeof(aside), "%s/%s", ixdir, IDXCHECK_STAMP_NAME);
	REQUIRE(unlink(aside) == 0);

	idxcheck_test_stall(3, 300);
	opts_for(&oo, &s, 0);
	REQUIRE(opener_new(&op, fd, &oo) == 0);
	REQUIRE(opener_start(op) == 0);
	CHECK(wait_state(op, OPENER_UNAVAILABLE, 60, &info));
	CHECK_EQ_INT(info.error, -ETIMEDOUT);
	CHECK_EQ_STR(opener_state_name(info.state), "unavailable");
	CHECK(wait_state(op, OPENER_OPEN, 60, &info));
	CHECK(opener_indexer(op) != NULL);
	CHECK_EQ_INT(atomic_load(&s.calls), 1);
	CHECK_EQ_INT(atomic_load(&s.err), 0);
	if (opener_indexer(op)) {
		CHECK_EQ_INT(idx_rebuilt(indexer_idx(opener_indexer(op))), IDX_REBUILT_NOT);
		CHECK_EQ_INT(idx_exemptions(indexer_idx(opener_indexer(op)), &pairs, &n), 0);
		CHECK_EQ_INT((int)n, 1);
		free(pairs);
	}
	snprintf(aside, sizeof(aside), "%s/%s", ixdir, IDX_DAMAGED_NAME);
	CHECK(access(aside, F_OK) != 0);
	idxcheck_test_stall(0, 0);
	opener_free(op);
	close(fd);
}

int main(void)
{
	RUN(test_upgrade_in_background);
	RUN(test_stop_upgrade);
	RUN(test_stop_rebuild);
	RUN(test_open_fails);
	RUN(test_check_held_up);
	return check_failed_total ? 1 : check_skipped == check_run ? 77 : 0;
}
