/* test_uqkeys.c - the pruning keys as a candidate source: the unique-word
 * sample (dupniq_keys) and the shingle anchors (fp.h), the index's key tables (kept on put, replace,
 * rename, unlink, drop; frequent keys skipped; counts checked against brute
 * force) and the candidates of the similar views against a brute-force
 * comparison of every pair of a small corpus with a short story inside a
 * large book. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "book.h"
#include "bookrec.h"
#include "check.h"
#include "dupniq.h"
#include "fp.h"
#include "idx_test.h"
#include "mutate.h"
#include "judge.h"
#include "simlist.h"

static int has_u32(const uint32_t *v, uint32_t n, uint32_t x)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

/* The sample: sorted, unique, about 1 in DUPNIQ_KEY_SAMPLE, capped, and a
 * slice of a book keeps most of its keys inside the whole book's. */
static void test_keys_sample(void)
{
	struct sbuf whole, part;
	struct dupniq_seq sw, sp;
	uint32_t *kw = NULL, *kp = NULL, *kc = NULL, nw = 0, np = 0, nc = 0, i, in = 0;

	sbuf_init(&whole);
	sbuf_init(&part);
	dupniq_seq_init(&sw);
	dupniq_seq_init(&sp);
	REQUIRE(mut_synth(3, 11, 60000, &whole) == 0);
	REQUIRE(mut_slice(whole.buf, whole.len, 0.40, 0.43, &part) == 0);
	REQUIRE(dupniq_compute(whole.buf, whole.len, &sw) == 0);
	REQUIRE(dupniq_compute(part.buf, part.len, &sp) == 0);
	REQUIRE(dupniq_keys(&sw, DUPNIQ_KEYS_MAX, &kw, &nw) == 0);
	REQUIRE(dupniq_keys(&sp, DUPNIQ_KEYS_MAX, &kp, &np) == 0);
	CHECK(nw > sw.n / DUPNIQ_KEY_SAMPLE / 2 && nw < sw.n / DUPNIQ_KEY_SAMPLE * 2);
	for (i = 1; i < nw; i++)
		CHECK(kw[i - 1] < kw[i]);
	for (i = 0; i < np; i++)
		in += (uint32_t)has_u32(kw, nw, kp[i]);
	/* many words unique in the slice occur again elsewhere in the whole
	 * (57% of the slice's keys stay keys of the whole here): enough */
	CHECK(np > 20);
	CHECK(in * 5 >= np * 2);
	/* the cap keeps the smallest keys */
	REQUIRE(dupniq_keys(&sw, 16, &kc, &nc) == 0);
	CHECK_EQ_INT(nc, 16);
	CHECK(!memcmp(kc, kw, 16 * sizeof(*kc)));
	free(kc);
	/* no words, no keys */
	dupniq_seq_release(&sp);
	REQUIRE(dupniq_keys(&sp, DUPNIQ_KEYS_MAX, &kc, &nc) == 0);
	CHECK(nc == 0 && kc == NULL);
	free(kw);
	free(kp);
	dupniq_seq_release(&sw);
	sbuf_release(&whole);
	sbuf_release(&part);
}

/* Shingle anchors: about 1 in 2^FP_ANCHOR_BITS shingles, sorted, unique;
 * the same whether the text comes in one piece or many; every anchor of a
 * slice is an anchor of the whole (the slice's shingles are the whole's,
 * and the whole has fewer than FP_ANCHORS_MAX anchors here). */
static void test_anchors(void)
{
	struct fp_book whole, part, streamed;
	struct sbuf t, s;
	struct fp *f = fp_new();
	size_t off, i;
	uint32_t in = 0;

	REQUIRE(f);
	sbuf_init(&t);
	sbuf_init(&s);
	fp_book_init(&whole);
	fp_book_init(&part);
	fp_book_init(&streamed);
	REQUIRE(mut_synth(5, 21, 50000, &t) == 0);
	REQUIRE(mut_slice(t.buf, t.len, 0.31, 0.33, &s) == 0);
	REQUIRE(fp_compute_text(t.buf, t.len, &whole) == 0);
	REQUIRE(fp_compute_text(s.buf, s.len, &part) == 0);
	CHECK(whole.nanchors > 50000 / 2 / (1u << FP_ANCHOR_BITS));
	CHECK(whole.nanchors < 50000 * 2 / (1u << FP_ANCHOR_BITS));
	CHECK(whole.nanchors < FP_ANCHORS_MAX);
	for (i = 1; i < whole.nanchors; i++)
		CHECK(whole.anchors[i - 1] < whole.anchors[i]);
	for (off = 0; off < t.len; off += 777)
		REQUIRE(fp_update(f, t.buf + off, t.len - off < 777 ? t.len - off : 777) == 0);
	REQUIRE(fp_final(f, &streamed) == 0);
	CHECK_EQ_INT(streamed.nanchors, whole.nanchors);
	CHECK(!memcmp(streamed.anchors, whole.anchors, whole.nanchors * sizeof(uint32_t)));
	REQUIRE(part.nanchors > 5);
	for (i = 0; i < part.nanchors; i++)
		in += (uint32_t)has_u32(whole.anchors, whole.nanchors, part.anchors[i]);
	CHECK_EQ_INT(in, part.nanchors);
	fp_book_release(&whole);
	fp_book_release(&part);
	fp_book_release(&streamed);
	fp_free(f);
	sbuf_release(&t);
	sbuf_release(&s);
}

/* Puts path with the given keys (and a distinct simhash) into ix. */
static uint64_t put_keys(struct idx *ix, const char *path, const uint32_t *keys, uint32_t n)
{
	struct idx_stat st = { 100, 1, 1, 1, 1 };
	struct idx_fp fp;
	uint64_t id = 0;
	size_t i;

	if (idx_mark_queued(ix, &path, &st, 1, &id))
		return 0;
	memset(&fp, 0, sizeof(fp));
	for (i = 0; path[i] && i < 16; i++)
		fp.simhash[i] = (uint8_t)path[i];
	fp.rec_version = 1;
	fp.rec = "r";
	fp.rec_len = 1;
	fp.uq_keys = keys;
	fp.n_uq_keys = n;
	return idx_put(ix, id, &st, &fp) ? 0 : id;
}

static uint32_t shared_of(const struct idx_uq_hit *h, size_t n, uint64_t id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (h[i].id == id)
			return h[i].shared;
	return 0;
}

#define NB 40
#define NK 64

/* Random key sets drawn from a small universe: the counts of shared keys
 * the index returns are the brute-force intersections, frequent keys
 * left out; rename keeps the keys, re-put replaces them, unlink and drop
 * remove them. */
static void test_index_tables(void)
{
	static uint32_t keys[NB][NK];
	const char *dir;
	struct idx_uq_hit *h = NULL;
	struct idx_uq_stats st;
	struct idx *ix = NULL;
	uint64_t ids[NB], x = 7;
	uint32_t i, j, a, b, n, bf, cnt[1024] = { 0 }, nstop, nfill[NB];
	char path[32];
	size_t nh = 0;
	const uint32_t common = 5, max_post = 25;

	dir = check_tmpdir();
	REQUIRE(dir);
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	for (a = 0; a < NB; a++) {
		/* sorted unique keys from 0..1023 (NK - 1 drawn, steps of
		 * 1..32 modulo 1024), plus the "stop word" 5 in every book,
		 * padded with keys of this book alone (top bit set, so the
		 * second kind of key is counted too) */
		for (i = 0, j = 0; j < NK - 1; j++) {
			x = x * 6364136223846793005u + 1442695040888963407u;
			i += 1 + (uint32_t)(x >> 59);
			keys[a][j] = i % 1024;
		}
		keys[a][NK - 1] = common;
		for (j = 1; j < NK; j++)	/* insertion sort (small) */
			for (i = j; i > 0 && keys[a][i - 1] > keys[a][i]; i--) {
				uint32_t t = keys[a][i];

				keys[a][i] = keys[a][i - 1];
				keys[a][i - 1] = t;
			}
		for (j = 1, n = 1; j < NK; j++)
			if (keys[a][j] != keys[a][n - 1])
				keys[a][n++] = keys[a][j];
		nfill[a] = NK - n;
		while (n < NK) {
			keys[a][n] = IDX_UQ_HI + a * NK + n;
			n++;
		}
		for (j = 0; j < NK; j++)
			if (keys[a][j] < 1024)
				cnt[keys[a][j]]++;
		snprintf(path, sizeof(path), "b%02u.txt", a);
		ids[a] = put_keys(ix, path, keys[a], NK);
		REQUIRE(ids[a] != 0);
	}
	for (a = 0; a < NB; a += 7) {
		REQUIRE(idx_uq_candidates(ix, ids[a], max_post, 1, &h, &nh, &st) == 0);
		for (j = 0, nstop = 0; j < NK; j++)
			nstop += keys[a][j] < 1024 && cnt[keys[a][j]] > max_post;
		CHECK_EQ_INT(st.keys, NK);
		CHECK_EQ_INT(st.stopped, nstop);
		CHECK(nstop >= 1);	/* the common key at least */
		for (b = 0; b < NB; b++) {
			if (b == a)
				continue;
			for (i = 0, bf = 0; i < NK; i++)
				bf += keys[a][i] < 1024 && cnt[keys[a][i]] <= max_post &&
				      has_u32(keys[b], NK, keys[a][i]);
			CHECK_EQ_INT(shared_of(h, nh, ids[b]), bf);
		}
		CHECK_EQ_INT(shared_of(h, nh, ids[a]), 0);
		CHECK_EQ_INT(st.keys_hi, nfill[a]);
		for (i = 0; i < nh; i++) {
			CHECK_EQ_INT(h[i].nkeys, NK);
			CHECK_EQ_INT(h[i].shared_hi, 0);	/* the padding is each book's own */
			for (b = 0; b < NB && ids[b] != h[i].id; b++)
				;
			REQUIRE(b < NB);
			CHECK_EQ_INT(h[i].nkeys_hi, nfill[b]);
			CHECK(i == 0 || h[i - 1].shared >= h[i].shared);
		}
		free(h);
		h = NULL;
	}
	/* b01 and b02 get b00's keys: they share all of them (the common key
	 * is frequent: skipped) */
	REQUIRE(idx_rename(ix, "b01.txt", "moved/b01.txt", 0) == 1);
	CHECK(put_keys(ix, "moved/b01.txt", keys[0], NK) == ids[1]);
	CHECK(put_keys(ix, "b02.txt", keys[0], NK) == ids[2]);
	REQUIRE(idx_uq_candidates(ix, ids[0], max_post, NK - 1, &h, &nh, &st) == 0);
	CHECK_EQ_INT(nh, 2);
	CHECK_EQ_INT(shared_of(h, nh, ids[1]), NK - st.stopped);
	CHECK_EQ_INT(h[0].shared_hi, nfill[0]);
	CHECK_EQ_INT(shared_of(h, nh, ids[2]), NK - st.stopped);
	free(h);
	CHECK(idx_unlink(ix, "moved") == 1);
	CHECK(idx_drop(ix, ids[2]) == 0);
	REQUIRE(idx_uq_candidates(ix, ids[0], max_post, NK - 1, &h, &nh, &st) == 0);
	CHECK_EQ_INT(nh, 0);
	free(h);
	/* a removed book has no keys left; bad arguments */
	REQUIRE(idx_uq_candidates(ix, ids[1], max_post, 1, &h, &nh, &st) == 0);
	CHECK(nh == 0 && st.keys == 0);
	CHECK_EQ_INT(idx_uq_candidates(ix, ids[0], 0, 1, &h, &nh, &st), -EINVAL);
	/* hostile: a posting of an id that is no book is reported as the
	 * postings say (the views look every hit up); one with counts no
	 * book can have, and a key of the wrong length, are never hits */
	{
		uint8_t k[4], bad[5] = { 1, 2, 3, 4, 5 };
		uint8_t stale[12] = { 0, 0, 0, 0, 0, 0x0f, 0x42, 0x3f, 0, 5, 0, 1 };
		uint8_t odd[12] = { 0, 0, 0, 0, 0, 0x0f, 0x42, 0x40, 0, 3, 0, 4 };
		size_t before;

		REQUIRE(idx_uq_candidates(ix, ids[3], max_post, 1, &h, &nh, &st) == 0);
		before = nh;
		free(h);
		k[0] = (uint8_t)(keys[3][0] >> 24);
		k[1] = (uint8_t)(keys[3][0] >> 16);
		k[2] = (uint8_t)(keys[3][0] >> 8);
		k[3] = (uint8_t)keys[3][0];
		REQUIRE(idx_debug_raw_put(ix, "uqkey", k, 4, stale, 12) == 0);
		REQUIRE(idx_debug_raw_put(ix, "uqkey", k, 4, odd, 12) == 0);
		REQUIRE(idx_debug_raw_put(ix, "uqkey", bad, 5, stale, 12) == 0);
		REQUIRE(idx_uq_candidates(ix, ids[3], max_post, 1, &h, &nh, &st) == 0);
		CHECK_EQ_INT(nh, before + 1);
		CHECK_EQ_INT(shared_of(h, nh, 0x0f423f), 1);
		CHECK_EQ_INT(shared_of(h, nh, 0x0f4240), 0);
		for (i = 0; i < nh; i++) {
			for (b = 0; b < NB && ids[b] != h[i].id; b++)
				;
			CHECK(b < NB || (h[i].id == 0x0f423f && h[i].nkeys == 5 && h[i].nkeys_hi == 1));
		}
		free(h);
	}
	idx_close(ix);
	/* the tables survive a reopen; a count check on one book */
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	CHECK(!idx_rebuilt(ix));
	REQUIRE(idx_uq_candidates(ix, ids[3], max_post, 1, &h, &nh, &st) == 0);
	CHECK_EQ_INT(st.keys, NK);
	free(h);
	/* a schema 3 index (postings without the counts) is upgraded in place:
	 * the postings are rewritten from each book's keys (the planted ones
	 * go), everything else kept */
	{
		uint8_t v3[4] = { 0, 0, 0, 3 };
		struct idx_uq_hit *h2 = NULL;
		size_t nh2 = 0;

		REQUIRE(idx_exempt_set(ix, "b03.txt", "b04.txt", 1) == 0);
		REQUIRE(idx_debug_raw_put(ix, "meta", "schema", 6, v3, 4) == 0);
		idx_close(ix);
		REQUIRE(idx_open(&ix, dir, NULL) == 0);
		CHECK(!idx_rebuilt(ix));
		CHECK(idx_exempt_has(ix, ids[3], ids[4]) == 1);
		REQUIRE(idx_uq_candidates(ix, ids[3], max_post, 1, &h, &nh, &st) == 0);
		CHECK_EQ_INT(shared_of(h, nh, 0x0f423f), 0);
		for (b = 0; b < NB; b++) {
			if (b == 3 || b == 1 || b == 2)
				continue;
			for (i = 0, bf = 0; i < NK; i++)
				bf += keys[3][i] < 1024 && cnt[keys[3][i]] <= max_post &&
				      has_u32(keys[b], NK, keys[3][i]);
			CHECK_EQ_INT(shared_of(h, nh, ids[b]), bf);
		}
		for (i = 0; i < nh; i++) {
			CHECK_EQ_INT(h[i].nkeys, NK);
			for (b = 0; b < NB && ids[b] != h[i].id; b++)
				;
			REQUIRE(b < NB);
			CHECK_EQ_INT(h[i].nkeys_hi, nfill[b]);
		}
		/* a second open finds schema 4: nothing to do, same hits */
		idx_close(ix);
		REQUIRE(idx_open(&ix, dir, NULL) == 0);
		CHECK(!idx_rebuilt(ix));
		REQUIRE(idx_uq_candidates(ix, ids[3], max_post, 1, &h2, &nh2, &st) == 0);
		CHECK_EQ_INT(nh2, nh);
		CHECK(nh2 == nh && memcmp(h, h2, nh * sizeof(*h)) == 0);
		free(h);
		free(h2);
	}
	idx_close(ix);
}

/* ---- the views' candidates against brute force ---- */

#define NBOOKS 9

static int load(const struct sbuf *t, const char *name, struct book **b)
{
	return book_load_buffer(t->buf, t->len, name, NULL, b, NULL);
}

/* A small library: three unrelated books (two of one author), a large book
 * and an anthology holding a 2,000-word story (3%) inside it, the story
 * alone, its 2% OCR copy, a 5% OCR copy of a book and the leading 30% of
 * another.  Every pair book_compare() calls related must be among the
 * candidates of both books, and the views must list exactly those pairs,
 * with the same class. */
static void test_views_vs_brute(void)
{
	struct book *bk[NBOOKS] = { NULL };
	const char *dir;
	struct sbuf t[NBOOKS], big, tmp;
	struct mut_rng r;
	struct judge_cache *cache = NULL;
	struct idx *ix = NULL;
	uint64_t ids[NBOOKS], *cand = NULL, *old = NULL;
	size_t nc = 0, no = 0, i, j, k, n;
	struct book_cmp cmp;
	struct simlist *l = NULL;
	char path[32];
	int related, listed, story_new = 0;
	const char *parts[3];
	size_t lens[3];

	for (i = 0; i < NBOOKS; i++)
		sbuf_init(&t[i]);
	sbuf_init(&big);
	sbuf_init(&tmp);
	mut_rng_seed(&r, 99);
	REQUIRE(mut_synth(1, 1, 12000, &t[0]) == 0);
	REQUIRE(mut_synth(1, 2, 12000, &t[1]) == 0);
	REQUIRE(mut_synth(2, 3, 15000, &t[2]) == 0);
	REQUIRE(mut_synth(3, 4, 70000, &big) == 0);
	REQUIRE(mut_synth(4, 5, 2000, &t[3]) == 0);	/* the story */
	/* the anthology: the large book split in two around the story */
	parts[0] = big.buf;
	lens[0] = big.len / 2;
	while (lens[0] < big.len && big.buf[lens[0]] != ' ')
		lens[0]++;
	parts[1] = t[3].buf;
	lens[1] = t[3].len;
	parts[2] = big.buf + lens[0];
	lens[2] = big.len - lens[0];
	REQUIRE(mut_join(parts, lens, 3, &t[4]) == 0);
	REQUIRE(mut_ocr(&r, t[3].buf, t[3].len, 0.02, &t[5], NULL) == 0);
	REQUIRE(mut_ocr(&r, t[0].buf, t[0].len, 0.05, &t[6], NULL) == 0);
	REQUIRE(mut_slice(t[2].buf, t[2].len, 0.0, 0.3, &t[7]) == 0);
	REQUIRE(sbuf_add(&t[8], big.buf, big.len) == 0);	/* the large book alone */
	for (i = 0; i < NBOOKS; i++) {
		snprintf(path, sizeof(path), "b%zu.txt", i);
		REQUIRE(load(&t[i], path, &bk[i]) == 0);
	}
	dir = check_tmpdir();
	REQUIRE(dir);
	REQUIRE(idx_open(&ix, dir, NULL) == 0);
	cache = judge_cache_new(0);
	REQUIRE(cache);
	for (i = 0; i < NBOOKS; i++) {
		struct bookrec_fp rf;
		struct idx_stat st = { 0, 0, 0, 0, 0 };
		const char *p = path;

		snprintf(path, sizeof(path), "b%zu.txt", i);
		REQUIRE(idx_mark_queued(ix, &p, &st, 1, &ids[i]) == 0);
		REQUIRE(bookrec_fp_make(bk[i], &rf) == 0);
		CHECK(rf.fp.n_uq_keys > 0);
		REQUIRE(idx_put(ix, ids[i], &st, &rf.fp) == 0);
		bookrec_fp_release(&rf);
	}
	for (i = 0; i < NBOOKS; i++) {
		REQUIRE(judge_candidates(ix, ids[i], JUDGE_SRC_ALL, &cand, &nc) == 0);
		REQUIRE(judge_candidates(ix, ids[i], JUDGE_SRC_ALL & ~JUDGE_SRC_UNIQUE, &old,
					   &no) == 0);
		REQUIRE(simlist_compute(ix, cache, ids[i], NULL, NULL, &l) == 0);
		for (j = 0, n = 0; j < NBOOKS; j++) {
			int in_cand = 0, in_old = 0;

			if (j == i)
				continue;
			REQUIRE(book_compare(bk[i], bk[j], NULL, &cmp) == 0);
			related = cmp.rel.cls != RELATE_UNRELATED;
			for (k = 0; k < nc; k++)
				in_cand |= cand[k] == ids[j];
			for (k = 0; k < no; k++)
				in_old |= old[k] == ids[j];
			for (k = 0, listed = 0; k < l->n; k++)
				if (l->v[k].id == ids[j]) {
					listed = 1;
					CHECK_EQ_INT(l->v[k].cls, cmp.rel.cls);
				}
			if (related && !in_cand)
				fprintf(stderr, "  b%zu - b%zu related (%s), no candidate\n", i, j,
					relate_class_name(cmp.rel.cls));
			CHECK(!related || in_cand);
			CHECK_EQ_INT(listed, related);
			n += (size_t)related;
			/* the story inside the large anthology: found by the
			 * pruning keys (a whole-book sketch of the anthology
			 * holds 3% of the story's shingles) */
			if ((i == 3 || i == 5) && j == 4) {
				CHECK(related && in_cand);
				story_new += !in_old;
			}
		}
		CHECK_EQ_INT(l->n, n);
		simlist_free(l);
		l = NULL;
		free(cand);
		free(old);
		cand = old = NULL;
	}
	/* the gap this source closes, on this library */
	CHECK(story_new >= 1);
	judge_cache_free(cache);
	idx_close(ix);
	for (i = 0; i < NBOOKS; i++) {
		book_free(bk[i]);
		sbuf_release(&t[i]);
	}
	sbuf_release(&big);
	sbuf_release(&tmp);
}

int main(void)
{
	RUN(test_keys_sample);
	RUN(test_anchors);
	RUN(test_index_tables);
	RUN(test_views_vs_brute);
	return CHECK_DONE();
}
