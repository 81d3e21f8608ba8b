/* Unit tests for the one-pass aggregate (fp.h) and the record format
 * (fprec.h). */
#include <errno.h>
#include <math.h>

#include "check.h"
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "fp.h"
#include "fpcore_i.h"
#include "fprec.h"
#include "fptest.h"

static int books_equal(const struct fp_book *a, const struct fp_book *b)
{
	return a->nbytes == b->nbytes && a->nwords == b->nwords && a->nchunks == b->nchunks &&
	       a->size_class == b->size_class && !memcmp(&a->text, &b->text, sizeof(a->text)) &&
	       !memcmp(&a->sim, &b->sim, sizeof(a->sim)) &&
	       !memcmp(&a->rsim, &b->rsim, sizeof(a->rsim)) &&
	       !memcmp(&a->mlsh, &b->mlsh, sizeof(a->mlsh)) &&
	       !memcmp(&a->mh, &b->mh, sizeof(a->mh)) &&
	       a->dq.n == b->dq.n && a->dq.nwords == b->dq.nwords &&
	       (!a->dq.n || (!memcmp(a->dq.hash, b->dq.hash, a->dq.n * 4) &&
			     !memcmp(a->dq.pos, b->dq.pos, a->dq.n * 4))) &&
	       a->ck.nwords == b->ck.nwords && a->ck.spine.n == b->ck.spine.n &&
	       a->ck.win.n == b->ck.win.n &&
	       (!a->ck.spine.n || !memcmp(a->ck.spine.c, b->ck.spine.c,
					  a->ck.spine.n * sizeof(*a->ck.spine.c))) &&
	       (!a->ck.win.n || !memcmp(a->ck.win.c, b->ck.win.c,
					a->ck.win.n * sizeof(*a->ck.win.c)));
}

/* A norm_doc over text with chunks starting at the given word indices. */
static void make_doc(struct norm_doc *d, char *text, uint32_t *chunks, size_t n)
{
	memset(d, 0, sizeof(*d));
	d->text = text;
	d->len = strlen(text);
	d->chunk_word = chunks;
	d->nchunks = n;
}

static void test_families_match(void)
{
	static uint32_t chunks[] = { 0, 1000, 1001, 3500 };
	struct fp_book b;
	struct simhash_value sv;
	struct rsimhash_value rv;
	struct mlsimhash_value mv;
	struct minhash_sig ms;
	struct dupniq_seq dq;
	struct texthash_value tv;
	struct norm_doc doc;
	struct sbuf sb;

	sbuf_init(&sb);
	fpt_text(&sb, 51, 6000, 3000);
	make_doc(&doc, sb.buf, chunks, 4);
	fp_book_init(&b);
	dupniq_seq_init(&dq);
	REQUIRE(fp_compute(&doc, &b) == 0);
	REQUIRE(simhash_compute(sb.buf, sb.len, &sv) == 0);
	REQUIRE(rsimhash_compute(sb.buf, sb.len, &rv) == 0);
	REQUIRE(mlsimhash_compute(sb.buf, sb.len, &mv) == 0);
	REQUIRE(minhash_compute(MINHASH_OPH, sb.buf, sb.len, &ms) == 0);
	REQUIRE(dupniq_compute(sb.buf, sb.len, &dq) == 0);
	texthash_compute(sb.buf, sb.len, &tv);
	CHECK(!memcmp(&b.sim, &sv, sizeof(sv)));
	CHECK(!memcmp(&b.rsim, &rv, sizeof(rv)));
	CHECK(!memcmp(&b.mlsh, &mv, sizeof(mv)));
	CHECK(!memcmp(&b.mh, &ms, sizeof(ms)));
	CHECK(!memcmp(&b.text, &tv, sizeof(tv)));
	CHECK(b.dq.n == dq.n && !memcmp(b.dq.pos, dq.pos, dq.n * 4));
	CHECK_EQ_INT(b.nwords, 6000);
	CHECK_EQ_INT(b.nchunks, 4);
	CHECK_EQ_INT(b.nbytes, sb.len);
	CHECK_EQ_INT(b.size_class, simhash_size_class(sb.len));
	REQUIRE(b.ck.spine.n == 4);
	CHECK_EQ_INT(b.ck.spine.c[1].first, 1000);
	CHECK_EQ_INT(b.ck.spine.c[2].nwords, 2499);
	CHECK_EQ_INT(b.ck.win.n, 3);
	fp_book_release(&b);
	dupniq_seq_release(&dq);
	sbuf_release(&sb);
}

static void test_streaming(void)
{
	static uint32_t chunks[] = { 0, 700, 2000 };
	struct fp *f = fp_new();
	struct fp_book one, part;
	struct norm_doc doc;
	struct sbuf sb;
	uint64_t seed;
	const char *c1, *c2;
	size_t i;

	REQUIRE(f);
	sbuf_init(&sb);
	fpt_text(&sb, 52, 3000, 2000);
	make_doc(&doc, sb.buf, chunks, 3);
	fp_book_init(&one);
	fp_book_init(&part);
	REQUIRE(fp_compute(&doc, &one) == 0);
	/* the same chunks through fp_break, pieces split anywhere inside */
	c1 = sb.buf;
	for (i = 0; i < 700; i++)
		c1 = strchr(c1, ' ') + 1;
	c2 = c1;
	for (; i < 2000; i++)
		c2 = strchr(c2, ' ') + 1;
	for (seed = 1; seed <= 8; seed++) {
		fp_break(f);
		FPT_FEED_SPLIT(seed, sb.buf, (size_t)(c1 - sb.buf), fp_update, f);
		fp_break(f);
		FPT_FEED_SPLIT(seed + 100, c1, (size_t)(c2 - c1), fp_update, f);
		fp_break(f);
		FPT_FEED_SPLIT(seed + 200, c2, sb.len - (size_t)(c2 - sb.buf), fp_update, f);
		REQUIRE(fp_final(f, &part) == 0);
		CHECK(books_equal(&one, &part));
	}
	fp_free(f);
	fp_book_release(&one);
	fp_book_release(&part);
	sbuf_release(&sb);
}

static void test_compare(void)
{
	struct fp_book a, m, o, c;
	struct fp_scores s;
	struct sbuf sa, sm, so;

	sbuf_init(&sa);
	sbuf_init(&sm);
	sbuf_init(&so);
	fp_book_init(&a);
	fp_book_init(&m);
	fp_book_init(&o);
	fp_book_init(&c);
	fpt_text(&sa, 53, 30000, 30000);
	fpt_mutate(&sm, sa.buf, sa.len, 3, 5);
	fpt_text(&so, 54, 30000, 30000);
	REQUIRE(fp_compute_text(sa.buf, sa.len, &a) == 0);
	REQUIRE(fp_compute_text(sm.buf, sm.len, &m) == 0);
	REQUIRE(fp_compute_text(so.buf, so.len, &o) == 0);

	REQUIRE(fp_compare(&a, &a, &s) == 0);
	CHECK(s.same_text);
	CHECK(s.simhash_distance == 0 && s.rsim_distance == 0 && s.mlsimhash_distance == 0);
	CHECK(s.jaccard == 1 && s.minhash_bsim == MINHASH_K);
	CHECK(fabs(s.dupniq.cs - 1) < 1e-12 && fabs(s.dupniq.its - 1) < 1e-12);
	CHECK(fabs(s.win_fit.slope - 1) < 1e-9 && s.win_fit.a_matched == 1);
	CHECK_EQ_INT(s.spine_fit.pairs, 0);	/* one spine chunk each */

	REQUIRE(fp_compare(&a, &m, &s) == 0);
	CHECK(!s.same_text);
	CHECK(s.simhash_distance <= 10);
	CHECK(s.jaccard > 0.5);
	CHECK(s.dupniq.cs > 0.7);
	CHECK(s.win_fit.a_matched > 0.9);
	CHECK_EQ_INT(s.a_nwords, 30000);

	REQUIRE(fp_compare(&a, &o, &s) == 0);
	CHECK(s.jaccard < 0.05);
	CHECK(s.dupniq.cs < 0.2);
	CHECK(s.win_fit.a_matched < 0.2);

	/* the empty text: defined, compares without trouble */
	REQUIRE(fp_compute_text("", 0, &c) == 0);
	CHECK(c.nwords == 0 && c.dq.n == 0 && c.ck.win.n == 0);
	REQUIRE(fp_compare(&a, &c, &s) == 0);
	CHECK(s.jaccard == 0 && s.dupniq.lcs == 0);
	fp_book_release(&a);
	fp_book_release(&m);
	fp_book_release(&o);
	fp_book_release(&c);
	sbuf_release(&sa);
	sbuf_release(&sm);
	sbuf_release(&so);
}

static void record_of(uint64_t seed, size_t nwords, uint64_t vocab, struct fp_book *b, struct sbuf *rec)
{
	struct sbuf sb;

	sbuf_init(&sb);
	fpt_text(&sb, seed, nwords, vocab);
	if (fp_compute_text(sb.buf, sb.len, b) == 0)
		fprec_encode(b, rec);
	sbuf_release(&sb);
}

static void test_record_roundtrip(void)
{
	static uint32_t chunks[] = { 0, 10, 2500 };
	struct fp_book b, d;
	struct sbuf rec, again, sb;
	struct simhash_value id;
	struct norm_doc doc;

	sbuf_init(&rec);
	sbuf_init(&again);
	sbuf_init(&sb);
	fp_book_init(&b);
	fp_book_init(&d);
	fpt_text(&sb, 55, 5000, 4000);
	make_doc(&doc, sb.buf, chunks, 3);
	REQUIRE(fp_compute(&doc, &b) == 0);
	REQUIRE(fprec_encode(&b, &rec) == 0);
	REQUIRE(fprec_decode(rec.buf, rec.len, &d) == 0);
	CHECK(books_equal(&b, &d));
	REQUIRE(fprec_encode(&d, &again) == 0);
	CHECK(again.len == rec.len && !memcmp(again.buf, rec.buf, rec.len));
	REQUIRE(fprec_peek_id(rec.buf, rec.len, &id) == 0);
	CHECK(id.hi == b.sim.hi && id.lo == b.sim.lo);
	CHECK(!memcmp(rec.buf, FPREC_MAGIC, 4));
	/* the empty text too */
	fp_book_release(&b);
	sbuf_setlen(&rec, 0);
	sbuf_setlen(&again, 0);
	REQUIRE(fp_compute_text("", 0, &b) == 0);
	REQUIRE(fprec_encode(&b, &rec) == 0);
	REQUIRE(fprec_decode(rec.buf, rec.len, &d) == 0);
	CHECK(books_equal(&b, &d));
	REQUIRE(fprec_encode(&d, &again) == 0);
	CHECK(again.len == rec.len && !memcmp(again.buf, rec.buf, rec.len));
	fp_book_release(&b);
	fp_book_release(&d);
	sbuf_release(&rec);
	sbuf_release(&again);
	sbuf_release(&sb);
}

/* Golden: the whole record of a fixed text.  Any change to any stored bit
 * of any family, or to the layout, changes it: bump FPREC_VERSION then. */
static void test_record_golden(void)
{
	struct fp_book b;
	struct sbuf rec;

	sbuf_init(&rec);
	fp_book_init(&b);
	record_of(1, 20000, 5000, &b, &rec);
	CHECK_EQ_INT(rec.len, 5553);
	CHECK(XXH3_64bits(rec.buf, rec.len) == UINT64_C(0xa9dcb24ca0ae8be2));
	fp_book_release(&b);
	sbuf_release(&rec);
}

static void test_record_size(void)
{
	struct fp_book b;
	struct sbuf rec, sb;

	sbuf_init(&rec);
	sbuf_init(&sb);
	fp_book_init(&b);
	/* ~500 KB of text with a large vocabulary: many words occur once */
	fpt_text(&sb, 56, 90000, 60000);
	CHECK(sb.len > 450000);
	REQUIRE(fp_compute_text(sb.buf, sb.len, &b) == 0);
	REQUIRE(fprec_encode(&b, &rec) == 0);
	fprintf(stderr, "  %zu bytes of text, %u unique words: record %zu bytes\n",
		sb.len, b.dq.n, rec.len);
	CHECK(rec.len <= 65536);
	fp_book_release(&b);
	sbuf_release(&rec);
	sbuf_release(&sb);
}

/* Rewrites the checksum so that structural checks are reached. */
static void reseal(struct sbuf *rec)
{
	uint32_t h = XXH32(rec->buf, rec->len - 4, 0);
	uint8_t *p = (uint8_t *)rec->buf + rec->len - 4;

	p[0] = (uint8_t)(h >> 24);
	p[1] = (uint8_t)(h >> 16);
	p[2] = (uint8_t)(h >> 8);
	p[3] = (uint8_t)h;
}

static void test_record_hostile(void)
{
	struct fp_book b, d;
	struct sbuf rec, bad;
	size_t i;
	int ok = 1;

	sbuf_init(&rec);
	sbuf_init(&bad);
	fp_book_init(&b);
	fp_book_init(&d);
	record_of(57, 2500, 2000, &b, &rec);
	REQUIRE(rec.len > FPREC_HEAD_LEN);
	/* every truncation */
	for (i = 0; i < rec.len; i++)
		ok &= fprec_decode(rec.buf, i, &d) == -EBADMSG;
	CHECK(ok);
	/* a flipped bit anywhere: magic, version or checksum catch it */
	for (i = 0; i < rec.len; i++) {
		int r;

		sbuf_setlen(&bad, 0);
		sbuf_add(&bad, rec.buf, rec.len);
		bad.buf[i] ^= (char)(1 << (i % 8));
		r = fprec_decode(bad.buf, bad.len, &d);
		ok &= r == -EBADMSG || (i == 4 && r == -ENOTSUP);
	}
	CHECK(ok);
	/* another version */
	sbuf_setlen(&bad, 0);
	sbuf_add(&bad, rec.buf, rec.len);
	bad.buf[4] = FPREC_VERSION + 1;
	CHECK_EQ_INT(fprec_decode(bad.buf, bad.len, &d), -ENOTSUP);
	CHECK_EQ_INT(fprec_peek_id(bad.buf, bad.len, NULL), -ENOTSUP);
	/* structure broken behind a valid checksum */
	sbuf_setlen(&bad, 0);
	sbuf_add(&bad, rec.buf, rec.len);
	bad.buf[FPREC_HEAD_LEN] = (char)0xff;	/* DUPNIQ count: a 5-byte varint now */
	reseal(&bad);
	CHECK_EQ_INT(fprec_decode(bad.buf, bad.len, &d), -EBADMSG);
	sbuf_setlen(&bad, 0);
	sbuf_add(&bad, rec.buf, rec.len);
	bad.buf[20] ^= 0x40;	/* nwords no longer matches DUPNIQ's */
	reseal(&bad);
	CHECK_EQ_INT(fprec_decode(bad.buf, bad.len, &d), -EBADMSG);
	sbuf_setlen(&bad, 0);
	sbuf_add(&bad, rec.buf, rec.len);
	sbuf_add(&bad, "x", 1);	/* trailing garbage */
	CHECK_EQ_INT(fprec_decode(bad.buf, bad.len, &d), -EBADMSG);
	/* the decoder left d empty each time */
	CHECK(d.dq.n == 0 && d.ck.win.n == 0);
	/* an inconsistent book is refused by the encoder */
	if (b.dq.n >= 2) {
		uint32_t t = b.dq.pos[0];

		b.dq.pos[0] = b.dq.pos[1];
		sbuf_setlen(&bad, 0);
		CHECK_EQ_INT(fprec_encode(&b, &bad), -EINVAL);
		CHECK_EQ_INT(bad.len, 0);
		b.dq.pos[0] = t;
	}
	fp_book_release(&b);
	fp_book_release(&d);
	sbuf_release(&rec);
	sbuf_release(&bad);
}

/* The portable code (no AVX2) gives the same bits as the AVX2 code. */
static void test_portable(void)
{
	struct fp_book b;
	struct sbuf sb, r1, r2;

	sbuf_init(&sb);
	sbuf_init(&r1);
	sbuf_init(&r2);
	fp_book_init(&b);
	fpt_text(&sb, 58, 20000, 8000);
	REQUIRE(fp_compute_text(sb.buf, sb.len, &b) == 0);
	REQUIRE(fprec_encode(&b, &r1) == 0);
	fpc_portable = 1;
	REQUIRE(fp_compute_text(sb.buf, sb.len, &b) == 0);
	REQUIRE(fprec_encode(&b, &r2) == 0);
	{
		struct rsimhash_value a, c;

		REQUIRE(rsimhash_compute(sb.buf, sb.len, &a) == 0);
		fpc_portable = 0;
		REQUIRE(rsimhash_compute(sb.buf, sb.len, &c) == 0);
		CHECK(!memcmp(&a, &c, sizeof(a)));
	}
	fpc_portable = 0;
	CHECK(r1.len == r2.len && !memcmp(r1.buf, r2.buf, r1.len));
	fp_book_release(&b);
	sbuf_release(&sb);
	sbuf_release(&r1);
	sbuf_release(&r2);
}

int main(void)
{
	RUN(test_families_match);
	RUN(test_streaming);
	RUN(test_compare);
	RUN(test_record_roundtrip);
	RUN(test_record_golden);
	RUN(test_record_size);
	RUN(test_record_hostile);
	RUN(test_portable);
	return CHECK_DONE();
}
