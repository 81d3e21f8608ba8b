/* test_indexer.c - fingerprint on write without a mount: the indexer over a
 * temporary SRC, the stored record, similar lists, renames reported twice,
 * unlinks, exemptions, clusters. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "book.h"
#include "bookrec.h"
#include "ijournal.h"
#include "ixtest.h"
#include "groups.h"
#include "judge.h"
#include "simlist.h"

/* n pseudo-random words from seed (a fixed vocabulary of syllables). */
static char *gen_text(unsigned n, uint32_t seed, unsigned change_every)
{
	static const char *const syl[] = { "ka", "lo", "mi", "ra", "te", "su", "no", "vi",
					   "da", "pe", "zu", "ri", "fen", "tor", "bal", "quin" };
	char *t = malloc((size_t)n * 12 + 64), *p = t;
	uint32_t x = seed, y = 99;
	unsigned i, k, len;

	p += sprintf(p, "Title line\n\n");
	for (i = 0; i < n; i++) {
		uint32_t *r = change_every && i % change_every == 7 ? &y : &x;

		*r = *r * 1103515245u + 12345u;
		len = 1 + (*r >> 16) % 3;
		for (k = 0; k < len; k++) {
			*r = *r * 1103515245u + 12345u;
			p += sprintf(p, "%s", syl[(*r >> 16) % 16]);
		}
		*p++ = i % 100 == 99 ? '\n' : ' ';
	}
	*p++ = '\n';
	*p = '\0';
	return t;
}

/* 1 when the list of path holds other. */
static int lists(struct indexer *ixr, struct judge_cache *c, const char *path, const char *other)
{
	struct simlist *l = NULL;
	size_t i;
	int found = 0;

	if (simlist_compute(indexer_idx(ixr), c, ixtest_id_of(ixr, path), NULL, NULL, &l))
		return -1;
	for (i = 0; i < l->n; i++)
		found |= !strcmp(l->v[i].path, other);
	simlist_free(l);
	return found;
}

static void test_pipeline(void)
{
	struct indexer_opts o = { 0 };
	struct indexer *ixr = NULL;
	struct judge_cache *c = judge_cache_new(0);
	struct indexer_status st;
	struct idx_groups g = { 0 };
	char *base = gen_text(6000, 1, 0), *near = gen_text(6000, 1, 60);
	char *other = gen_text(5000, 2, 0), *vol = strdup(base), from[PATH_MAX + 32], to[PATH_MAX + 32];
	int fd;

	REQUIRE(ixtest_dirs() == 0);
	vol[strlen(vol) / 3] = '\0';
	ixtest_put("base.txt", base);
	ixtest_put("near.txt", near);
	ixtest_put("other.txt", other);
	ixtest_put("vol1.txt", vol);
	ixtest_put("pic.bin", "\x01\x02\x03\x00\xff binary");
	o.index_dir = ixdir;
	o.threads = 2;
	o.no_watch = 1;
	REQUIRE(indexer_new(&ixr, (fd = open(src, O_RDONLY | O_DIRECTORY)), &o) == 0);
	REQUIRE(indexer_start(ixr) == 0);
	REQUIRE(indexer_wait_idle(ixr, 60000) == 0);
	indexer_status(ixr, &st);
	CHECK_EQ_INT(st.books, 4);
	CHECK_EQ_INT(st.not_books, 1);
	CHECK_EQ_INT(st.scanning, 0);

	CHECK_EQ_INT(lists(ixr, c, "base.txt", "near.txt"), 1);
	CHECK_EQ_INT(lists(ixr, c, "base.txt", "vol1.txt"), 1);
	CHECK_EQ_INT(lists(ixr, c, "vol1.txt", "base.txt"), 1);
	CHECK_EQ_INT(lists(ixr, c, "base.txt", "other.txt"), 0);
	CHECK_EQ_INT(lists(ixr, c, "other.txt", "base.txt"), 0);

	/* clusters: base and near, verified; not the volume (containment) */
	REQUIRE(groups_clusters(indexer_idx(ixr), &g) == 0);
	CHECK_EQ_INT(g.ngroups, 1);
	if (g.ngroups == 1) {
		CHECK_EQ_INT(g.start[1] - g.start[0], 2);
		CHECK(g.ids[0] == ixtest_id_of(ixr, "base.txt") || g.ids[1] == ixtest_id_of(ixr, "base.txt"));
	}
	idx_groups_release(&g);

	/* a rename keeps the id; reported twice (hook and watch), it still
	 * does not drop the file */
	uint64_t nid = ixtest_id_of(ixr, "near.txt");
	snprintf(from, sizeof(from), "%s/near.txt", src);
	snprintf(to, sizeof(to), "%s/moved.txt", src);
	REQUIRE(rename(from, to) == 0);
	indexer_renamed(ixr, "near.txt", "moved.txt", 0);
	indexer_renamed(ixr, "near.txt", "moved.txt", 0);
	REQUIRE(indexer_wait_idle(ixr, 30000) == 0);
	CHECK_EQ_INT(ixtest_id_of(ixr, "moved.txt"), nid);
	CHECK_EQ_INT(lists(ixr, c, "base.txt", "moved.txt"), 1);

	/* exemption, kept across the rename */
	REQUIRE(idx_exempt_set(indexer_idx(ixr), "base.txt", "moved.txt", 1) == 0);
	CHECK_EQ_INT(lists(ixr, c, "base.txt", "moved.txt"), 0);
	CHECK_EQ_INT(lists(ixr, c, "moved.txt", "base.txt"), 0);

	/* overwrite: the written file is fingerprinted again */
	ixtest_put("other.txt", base);
	indexer_written(ixr, "other.txt");
	REQUIRE(indexer_wait_idle(ixr, 30000) == 0);
	CHECK_EQ_INT(lists(ixr, c, "base.txt", "other.txt"), 1);

	/* same text: a duplicates/ group, split by an exemption */
	REQUIRE(groups_text(indexer_idx(ixr), &g) == 0);
	CHECK_EQ_INT(g.ngroups, 1);
	idx_groups_release(&g);
	REQUIRE(idx_exempt_set(indexer_idx(ixr), "base.txt", "other.txt", 1) == 0);
	REQUIRE(groups_text(indexer_idx(ixr), &g) == 0);
	CHECK_EQ_INT(g.ngroups, 0);
	idx_groups_release(&g);
	REQUIRE(idx_exempt_set(indexer_idx(ixr), "base.txt", "other.txt", 0) == 0);

	/* unlink */
	snprintf(from, sizeof(from), "%s/vol1.txt", src);
	REQUIRE(unlink(from) == 0);
	indexer_unlinked(ixr, "vol1.txt");
	REQUIRE(indexer_wait_idle(ixr, 30000) == 0);
	CHECK_EQ_INT(ixtest_id_of(ixr, "vol1.txt"), 0);
	CHECK_EQ_INT(lists(ixr, c, "base.txt", "vol1.txt"), 0);

	/* a file renamed into place from a name that was not a book */
	ixtest_put(".tmp.part", near);
	indexer_written(ixr, ".tmp.part");
	REQUIRE(indexer_wait_idle(ixr, 30000) == 0);
	snprintf(from, sizeof(from), "%s/.tmp.part", src);
	snprintf(to, sizeof(to), "%s/landed.txt", src);
	REQUIRE(rename(from, to) == 0);
	indexer_renamed(ixr, ".tmp.part", "landed.txt", 0);
	REQUIRE(indexer_wait_idle(ixr, 30000) == 0);
	CHECK(ixtest_id_of(ixr, "landed.txt") != 0);
	CHECK_EQ_INT(lists(ixr, c, "base.txt", "landed.txt"), 1);

	indexer_free(ixr);
	close(fd);
	judge_cache_free(c);
	free(base);
	free(near);
	free(other);
	free(vol);
}

static void do_rename(const char *a, const char *b)
{
	char from[PATH_MAX + 32], to[PATH_MAX + 32];

	snprintf(from, sizeof(from), "%s/%s", src, a);
	snprintf(to, sizeof(to), "%s/%s", src, b);
	REQUIRE(rename(from, to) == 0);
}

static void do_unlink(const char *a)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/%s", src, a);
	REQUIRE(unlink(path) == 0);
}

/* Unlinks and renames reach the index through the writer thread, after
 * writes queued for the workers: whatever runs first, the index ends as the
 * disk is. */
static void test_ordering(void)
{
	struct indexer_opts o = { 0 };
	struct indexer *ixr = NULL;
	struct idx_file f = { 0 };
	char *t1 = gen_text(3000, 11, 0), *t2 = gen_text(3000, 12, 0), *t3 = gen_text(3000, 13, 0);
	uint64_t id;
	char name[32];
	int fd, i, round;

	REQUIRE(ixtest_dirs() == 0);
	o.index_dir = ixdir;
	o.threads = 2;
	o.no_watch = 1;
	REQUIRE(indexer_new(&ixr, (fd = open(src, O_RDONLY | O_DIRECTORY)), &o) == 0);
	REQUIRE(indexer_start(ixr) == 0);
	for (round = 0; round < 20; round++) {
		/* a write, a rename, an unlink of one path, reported at once */
		ixtest_put("a.txt", t1);
		indexer_written(ixr, "a.txt");
		do_rename("a.txt", "b.txt");
		indexer_renamed(ixr, "a.txt", "b.txt", 0);
		do_unlink("b.txt");
		indexer_unlinked(ixr, "b.txt");
		/* a chain of renames of a written file */
		ixtest_put("c.txt", t2);
		indexer_written(ixr, "c.txt");
		do_rename("c.txt", "d.txt");
		indexer_renamed(ixr, "c.txt", "d.txt", 0);
		do_rename("d.txt", "e.txt");
		indexer_renamed(ixr, "d.txt", "e.txt", 0);
		REQUIRE(indexer_wait_idle(ixr, 30000) == 0);
		CHECK_EQ_INT(idx_get(indexer_idx(ixr), "a.txt", &f), -ENOENT);
		CHECK_EQ_INT(idx_get(indexer_idx(ixr), "b.txt", &f), -ENOENT);
		CHECK_EQ_INT(idx_get(indexer_idx(ixr), "c.txt", &f), -ENOENT);
		CHECK_EQ_INT(idx_get(indexer_idx(ixr), "d.txt", &f), -ENOENT);
		CHECK(ixtest_id_of(ixr, "e.txt") != 0);
		/* an indexed file overwritten and renamed before its worker
		 * runs: the new name gets the new content's fingerprint */
		id = ixtest_id_of(ixr, "e.txt");
		ixtest_put("e.txt", t3);
		indexer_written(ixr, "e.txt");
		do_rename("e.txt", "g.txt");
		/* reported late (as the watch does): the worker may find
		 * e.txt gone while its entry still stands for the book */
		usleep(20000);
		indexer_renamed(ixr, "e.txt", "g.txt", 0);
		REQUIRE(indexer_wait_idle(ixr, 30000) == 0);
		CHECK_EQ_INT(idx_get(indexer_idx(ixr), "e.txt", &f), -ENOENT);
		REQUIRE(idx_get(indexer_idx(ixr), "g.txt", &f) == 0);
		CHECK_EQ_INT(f.state, IDX_INDEXED);
		CHECK_EQ_INT(f.id, id);
		idx_file_release(&f);
		{
			struct book *b = NULL;
			uint8_t sh[IDX_SH_BYTES];

			REQUIRE(book_load_buffer(t3, strlen(t3), "g.txt", NULL, &b, NULL) == 0);
			for (i = 0; i < 8; i++) {
				sh[i] = (uint8_t)(b->fp.sim.hi >> (56 - 8 * i));
				sh[8 + i] = (uint8_t)(b->fp.sim.lo >> (56 - 8 * i));
			}
			REQUIRE(idx_get(indexer_idx(ixr), "g.txt", &f) == 0);
			CHECK(memcmp(f.simhash, sh, IDX_SH_BYTES) == 0);
			idx_file_release(&f);
			book_free(b);
		}
		do_unlink("g.txt");
		indexer_unlinked(ixr, "g.txt");
	}
	/* a burst of unlinks, applied in few transactions */
	for (i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "m%03d.txt", i);
		ixtest_put(name, i % 2 ? t1 : t2);
		indexer_written(ixr, name);
	}
	REQUIRE(indexer_wait_idle(ixr, 60000) == 0);
	for (i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "m%03d.txt", i);
		do_unlink(name);
		indexer_unlinked(ixr, name);
	}
	REQUIRE(indexer_wait_idle(ixr, 30000) == 0);
	{
		struct indexer_status st;

		indexer_status(ixr, &st);
		CHECK_EQ_INT(st.files, 0);
		CHECK_EQ_INT(st.queued, 0);
	}
	indexer_free(ixr);
	close(fd);
	free(t1);
	free(t2);
	free(t3);
}

static void test_bookrec(void)
{
	char *text = gen_text(3000, 5, 0);
	struct book *b = NULL, *d = NULL;
	struct book_cmp cmp;
	struct sbuf rec;
	char *title = NULL;
	size_t cut;

	REQUIRE(book_load_buffer(text, strlen(text), "t.txt", NULL, &b, NULL) == 0);
	free(b->title);
	b->title = strdup("A Title");
	sbuf_init(&rec);
	REQUIRE(bookrec_encode(b, &rec) == 0);
	REQUIRE(bookrec_decode(rec.buf, rec.len, &d) == 0);
	CHECK_EQ_STR(d->title, "A Title");
	CHECK(d->author == NULL);
	CHECK(d->file_hash_hi == b->file_hash_hi && d->file_hash_lo == b->file_hash_lo);
	CHECK(d->fp.sim.hi == b->fp.sim.hi && d->fp.sim.lo == b->fp.sim.lo);
	REQUIRE(book_compare(b, d, NULL, &cmp) == 0);
	CHECK_EQ_INT(cmp.rel.cls, RELATE_IDENTICAL_FILE);
	CHECK_EQ_INT(bookrec_title(rec.buf, rec.len, &title), 0);
	CHECK_EQ_STR(title, "A Title");
	free(title);
	/* hostile: every truncation fails cleanly */
	for (cut = 0; cut < rec.len; cut += cut < 64 ? 1 : 997) {
		struct book *x = NULL;
		int r = bookrec_decode(rec.buf, cut, &x);

		CHECK(r == -EBADMSG || r == -ENOTSUP);
		CHECK(x == NULL);
	}
	rec.buf[4] = 9;
	{
		struct book *x = NULL;

		CHECK_EQ_INT(bookrec_decode(rec.buf, rec.len, &x), -ENOTSUP);
		CHECK(x == NULL);
	}
	sbuf_release(&rec);
	book_free(b);
	book_free(d);
	free(text);
}

/* A calibre metadata.opf's title and author, kept apart from the file's
 * own, name the book; re-titling changes them and nothing else. */
static void test_bookrec_opf(void)
{
	char *text = gen_text(2000, 7, 0);
	struct book *b = NULL, *d = NULL;
	struct sbuf rec, re, back;
	char *s = NULL;
	size_t cut, tail;

	REQUIRE(book_load_buffer(text, strlen(text), "t.txt", NULL, &b, NULL) == 0);
	b->title = strdup("Own Title");
	b->opf_title = strdup("Curated Title");
	b->opf_author = strdup("Ann Author");
	sbuf_init(&rec);
	sbuf_init(&re);
	sbuf_init(&back);
	REQUIRE(bookrec_encode(b, &rec) == 0);
	REQUIRE(bookrec_decode(rec.buf, rec.len, &d) == 0);
	CHECK_EQ_STR(d->title, "Own Title");
	CHECK_EQ_STR(d->opf_title, "Curated Title");
	CHECK_EQ_STR(d->opf_author, "Ann Author");
	book_free(d);
	d = NULL;
	CHECK_EQ_INT(bookrec_title(rec.buf, rec.len, &s), 0);
	CHECK_EQ_STR(s, "Curated Title");	/* the metadata.opf's wins */
	free(s);
	CHECK_EQ_INT(bookrec_opf_name(rec.buf, rec.len, &s), 0);
	CHECK_EQ_STR(s, "Curated Title - Ann Author");
	free(s);
	/* removed: the file's own title again, no name */
	REQUIRE(bookrec_retitle(rec.buf, rec.len, NULL, NULL, &re) == 0);
	CHECK_EQ_INT(bookrec_title(re.buf, re.len, &s), 0);
	CHECK_EQ_STR(s, "Own Title");
	free(s);
	CHECK_EQ_INT(bookrec_opf_name(re.buf, re.len, &s), 0);
	CHECK(s == NULL);
	/* fingerprints untouched: the same comparison */
	REQUIRE(bookrec_decode(re.buf, re.len, &d) == 0);
	CHECK(d->opf_title == NULL && d->opf_author == NULL);
	CHECK(d->fp.sim.hi == b->fp.sim.hi && d->fp.text.lo == b->fp.text.lo);
	book_free(d);
	d = NULL;
	tail = rec.len - (BOOKREC_HEAD_LEN + 9 + 13 + 10);
	CHECK_EQ_INT(re.len, BOOKREC_HEAD_LEN + 9 + tail);
	CHECK(!memcmp(re.buf + re.len - tail, rec.buf + rec.len - tail, tail));
	/* a title without an author; and back to the first record exactly */
	sbuf_setlen(&re, 0);
	REQUIRE(bookrec_retitle(rec.buf, rec.len, "Only", "", &re) == 0);
	CHECK_EQ_INT(bookrec_opf_name(re.buf, re.len, &s), 0);
	CHECK_EQ_STR(s, "Only");
	free(s);
	REQUIRE(bookrec_retitle(re.buf, re.len, "Curated Title", "Ann Author", &back) == 0);
	CHECK(back.len == rec.len && !memcmp(back.buf, rec.buf, rec.len));
	/* hostile: truncated or with a metadata length past the end */
	for (cut = 0; cut < BOOKREC_HEAD_LEN + 40; cut++) {
		sbuf_setlen(&re, 0);
		CHECK(bookrec_retitle(rec.buf, cut, "x", "y", &re) < 0 || cut >= BOOKREC_HEAD_LEN + 32);
		CHECK(bookrec_opf_name(rec.buf, cut, &s) < 0 || cut >= BOOKREC_HEAD_LEN + 32);
		free(s);
		s = NULL;
	}
	rec.buf[35] = (char)0xff;	/* metadata.opf title length 255 */
	CHECK_EQ_INT(bookrec_opf_name(rec.buf, BOOKREC_HEAD_LEN + 40, &s), -EBADMSG);
	rec.buf[34] = 0x7f;		/* over BOOKREC_META_MAX */
	CHECK_EQ_INT(bookrec_opf_name(rec.buf, rec.len, &s), -EBADMSG);
	CHECK(s == NULL);
	sbuf_release(&rec);
	sbuf_release(&re);
	sbuf_release(&back);
	book_free(b);
	free(text);
}

/* A journal that owes a rescan (an outage's, replayed at the start)
 * starts a scan before the start scan: the start is no failure, and the
 * books are indexed. */
static void test_start_after_rescan(void)
{
	struct indexer_opts o = { 0 };
	struct indexer *ixr = NULL;
	struct ijr *jr = NULL;
	struct idx_file f = { 0 };
	char path[PATH_MAX + 32], name[32], *t;
	int fd, i;

	REQUIRE(ixtest_dirs() == 0);
	for (i = 0; i < 40; i++) {
		t = gen_text(2000, 100 + (unsigned)i, 0);
		snprintf(name, sizeof(name), "b%02d.txt", i);
		ixtest_put(name, t);
		free(t);
	}
	snprintf(path, sizeof(path), "%s.journal", ixdir);
	REQUIRE(ijr_open(path, 100, &jr) == 0);
	REQUIRE(ijr_add(jr, IJR_RESCAN, NULL, NULL) == 0);
	o.index_dir = ixdir;
	o.threads = 2;
	o.no_watch = 1;
	o.journal = jr;
	REQUIRE((fd = open(src, O_RDONLY | O_DIRECTORY)) >= 0);
	REQUIRE(indexer_new(&ixr, fd, &o) == 0);
	CHECK_EQ_INT(indexer_start(ixr), 0);
	CHECK_EQ_INT(indexer_wait_idle(ixr, 60000), 0);
	CHECK_EQ_INT(idx_get(indexer_idx(ixr), "b39.txt", &f), 0);
	idx_file_release(&f);
	CHECK_EQ_INT((int)ijr_count(jr, NULL), 0);
	indexer_free(ixr);
	ijr_free(jr);
	close(fd);
}

int main(void)
{
	RUN(test_bookrec);
	RUN(test_bookrec_opf);
	RUN(test_pipeline);
	RUN(test_ordering);
	RUN(test_start_after_rescan);
	return CHECK_DONE();
}
