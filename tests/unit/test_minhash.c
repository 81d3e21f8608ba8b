/* Unit tests for min-hash (minhash.h) and the multi-lexicon simhash
 * (mlsimhash.h): both read word shingles. */
#include <errno.h>
#include <math.h>

#include "check.h"
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "fptest.h"
#include "minhash.h"
#include "mlsimhash.h"
#include "wordhash.h"

static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= UINT64_C(0xbf58476d1ce4e5b9);
	x ^= x >> 27;
	x *= UINT64_C(0x94d049bb133111eb);
	x ^= x >> 31;
	return x;
}

/* Word hashes of a text split on single spaces, the obvious way. */
static size_t words_of(const char *t, size_t len, uint64_t *w, size_t max)
{
	size_t i = 0, n = 0, s;

	while (i < len && n < max) {
		while (i < len && t[i] == ' ')
			i++;
		s = i;
		while (i < len && t[i] != ' ')
			i++;
		if (i > s)
			w[n++] = XXH3_64bits_withSeed(t + s, i - s, WORDHASH_SEED);
	}
	return n;
}

static uint64_t shingle_of(const uint64_t *w, unsigned n)
{
	uint8_t b[40];
	unsigned i, k;

	for (i = 0; i < n; i++)
		for (k = 0; k < 8; k++)
			b[8 * i + k] = (uint8_t)(w[i] >> (8 * k));
	return XXH3_64bits_withSeed(b, 8 * n, MINHASH_SEED);
}

/* minhash.h's definitions, the slow way. */
static void reference(enum minhash_scheme scheme, const char *t, size_t len, struct minhash_sig *out)
{
	static uint64_t w[20000];
	size_t n = words_of(t, len, w, 20000), i, ns;
	uint64_t orig[MINHASH_K];
	unsigned k, j, tries;

	for (k = 0; k < MINHASH_K; k++)
		out->v[k] = MINHASH_EMPTY;
	ns = n >= 5 ? n - 4 : n > 0;
	out->nshingles = ns;
	for (i = 0; i < ns; i++) {
		uint64_t h = shingle_of(w + i, n >= 5 ? 5 : (unsigned)n);

		for (k = 0; k < MINHASH_K; k++) {
			uint64_t v;

			if (scheme == MINHASH_OPH) {
				if (h >> 57 != k)
					continue;
				v = h & ((UINT64_C(1) << 57) - 1);
			} else {
				v = mix(h ^ mix(MINHASH_SEED + k + 1));
			}
			if (v < out->v[k])
				out->v[k] = v;
		}
	}
	if (scheme != MINHASH_OPH || !ns)
		return;
	memcpy(orig, out->v, sizeof(orig));
	for (k = 0; k < MINHASH_K; k++) {
		if (orig[k] != MINHASH_EMPTY)
			continue;
		for (tries = 1; tries <= 4096; tries++) {
			j = (unsigned)(mix(((uint64_t)k << 32 | tries) ^ MINHASH_SEED) % MINHASH_K);
			if (orig[j] != MINHASH_EMPTY)
				break;
		}
		REQUIRE(tries <= 4096);	/* the fallback is for hostile cases only */
		out->v[k] = orig[j];
	}
}

static int same(const struct minhash_sig *a, const struct minhash_sig *b)
{
	return !memcmp(a->v, b->v, sizeof(a->v)) && a->nshingles == b->nshingles;
}

static void test_reference(void)
{
	static const char *const texts[] = {
		"", "one", "one two", "one two three four", "one two three four five",
		"one two three four five six seven",
	};
	struct minhash_sig fast, slow;
	struct sbuf sb;
	unsigned i, s;

	for (s = 0; s < 2; s++) {
		enum minhash_scheme sc = s ? MINHASH_CLASSIC : MINHASH_OPH;

		for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
			REQUIRE(minhash_compute(sc, texts[i], strlen(texts[i]), &fast) == 0);
			reference(sc, texts[i], strlen(texts[i]), &slow);
			CHECK(same(&fast, &slow));
		}
		sbuf_init(&sb);
		for (i = 0; i < 6; i++) {
			sbuf_setlen(&sb, 0);
			fpt_text(&sb, 300 + i, 3 + i * i * 150, 400);
			REQUIRE(minhash_compute(sc, sb.buf, sb.len, &fast) == 0);
			reference(sc, sb.buf, sb.len, &slow);
			CHECK(same(&fast, &slow));
		}
		sbuf_release(&sb);
	}
	REQUIRE(minhash_compute(MINHASH_OPH, "", 0, &fast) == 0);
	CHECK_EQ_INT(minhash_bsim(&fast, &fast), 0);
	CHECK_EQ_INT(fast.v[0], MINHASH_EMPTY);
}

static void test_streaming(void)
{
	struct minhash *mh[2] = { minhash_new(MINHASH_OPH), minhash_new(MINHASH_CLASSIC) };
	struct minhash_sig one, part;
	struct sbuf sb;
	uint64_t seed;
	unsigned s;

	REQUIRE(mh[0] && mh[1]);
	sbuf_init(&sb);
	fpt_text(&sb, 9, 4000, 900);
	for (s = 0; s < 2; s++) {
		REQUIRE(minhash_update(mh[s], sb.buf, sb.len) == 0);
		minhash_final(mh[s], &one);
		for (seed = 1; seed <= 20; seed++) {
			FPT_FEED_SPLIT(seed, sb.buf, sb.len, minhash_update, mh[s]);
			minhash_final(mh[s], &part);
			CHECK(same(&one, &part));
		}
	}
	minhash_free(mh[0]);
	minhash_free(mh[1]);
	sbuf_release(&sb);
}

static uint64_t digest(const struct minhash_sig *s)
{
	return XXH3_64bits(s->v, sizeof(s->v)) ^ s->nshingles;
}

/* Golden vectors (stored bits: a change needs a new FPREC_VERSION). */
static void test_golden(void)
{
	struct minhash_sig s;
	struct mlsimhash_value m;
	struct sbuf sb;

	sbuf_init(&sb);
	fpt_text(&sb, 1, 20000, 5000);
	REQUIRE(minhash_compute(MINHASH_OPH, sb.buf, sb.len, &s) == 0);
	CHECK(digest(&s) == UINT64_C(0xafe4f40cefe74613));
	CHECK_EQ_INT(s.nshingles, 19996);
	REQUIRE(mlsimhash_compute(sb.buf, sb.len, &m) == 0);
	CHECK(m.fp[0] == UINT64_C(0x479164dca2d1ea07));
	CHECK(m.fp[4] == UINT64_C(0x16dde6bcab30af66));
	sbuf_release(&sb);
}

/* Exact Jaccard of the 5-shingle sets. */
static double exact(const char *a, size_t na, const char *b, size_t nb)
{
	static uint64_t wa[30000], wb[30000];
	size_t n1 = words_of(a, na, wa, 30000), n2 = words_of(b, nb, wb, 30000), i, j;
	size_t inter = 0, u1 = 0, u2 = 0;
	uint64_t *s1 = malloc(n1 * 8), *s2 = malloc(n2 * 8);

	for (i = 0; i + 5 <= n1; i++)
		s1[u1++] = shingle_of(wa + i, 5);
	for (i = 0; i + 5 <= n2; i++)
		s2[u2++] = shingle_of(wb + i, 5);
	/* quadratic but small: dedup and intersect by sorting would be longer */
	for (i = 0; i < u1; i++) {
		int dup = 0, hit = 0;

		for (j = 0; j < i && !dup; j++)
			dup = s1[j] == s1[i];
		if (dup)
			continue;
		for (j = 0; j < u2 && !hit; j++)
			hit = s2[j] == s1[i];
		inter += hit;
	}
	{
		size_t d1 = 0, d2 = 0;

		for (i = 0; i < u1; i++) {
			int dup = 0;

			for (j = 0; j < i && !dup; j++)
				dup = s1[j] == s1[i];
			d1 += !dup;
		}
		for (i = 0; i < u2; i++) {
			int dup = 0;

			for (j = 0; j < i && !dup; j++)
				dup = s2[j] == s2[i];
			d2 += !dup;
		}
		free(s1);
		free(s2);
		return (double)inter / (double)(d1 + d2 - inter);
	}
}

static void test_estimates(void)
{
	static const size_t keep[] = { 2800, 2000, 1000, 300 };
	struct sbuf a, b, d;
	unsigned i;

	sbuf_init(&a);
	sbuf_init(&b);
	sbuf_init(&d);
	fpt_text(&a, 11, 3000, 20000);
	fpt_text(&b, 12, 3000, 20000);
	for (i = 0; i < 4; i++) {
		struct minhash_sig sa, sd, ca, cd;
		const char *cut = a.buf;
		size_t w = 0;
		double ex;

		/* d = a's first keep[i] words, then b's words */
		while (w < keep[i] && (cut = strchr(cut, ' ')))
			cut++, w++;
		sbuf_setlen(&d, 0);
		sbuf_add(&d, a.buf, (size_t)(cut - a.buf));
		sbuf_addstr(&d, b.buf);
		ex = exact(a.buf, a.len, d.buf, d.len);
		REQUIRE(minhash_compute(MINHASH_OPH, a.buf, a.len, &sa) == 0);
		REQUIRE(minhash_compute(MINHASH_OPH, d.buf, d.len, &sd) == 0);
		REQUIRE(minhash_compute(MINHASH_CLASSIC, a.buf, a.len, &ca) == 0);
		REQUIRE(minhash_compute(MINHASH_CLASSIC, d.buf, d.len, &cd) == 0);
		/* 128 values: standard error <= 0.045; allow 3 sigma */
		CHECK(fabs(minhash_jaccard(&sa, &sd) - ex) < 0.14);
		CHECK(fabs(minhash_jaccard(&ca, &cd) - ex) < 0.14);
		CHECK_EQ_INT(minhash_bsim(&sa, &sa), MINHASH_K);
	}
	sbuf_release(&a);
	sbuf_release(&b);
	sbuf_release(&d);
}

static void test_bands(void)
{
	struct minhash_sig s, t;
	uint64_t k1[32], k2[32];
	struct sbuf sb;
	unsigned i;

	sbuf_init(&sb);
	fpt_text(&sb, 13, 2000, 900);
	REQUIRE(minhash_compute(MINHASH_OPH, sb.buf, sb.len, &s) == 0);
	CHECK_EQ_INT(minhash_bands(&s, 0, 4, k1), -EINVAL);
	CHECK_EQ_INT(minhash_bands(&s, 4, 0, k1), -EINVAL);
	CHECK_EQ_INT(minhash_bands(&s, 33, 4, k1), -EINVAL);
	CHECK_EQ_INT(minhash_bands(&s, 1, 129, k1), -EINVAL);
	CHECK_EQ_INT(minhash_bands(&s, 32, 4, k1), 0);
	t = s;
	CHECK_EQ_INT(minhash_bands(&t, 32, 4, k2), 0);
	CHECK(!memcmp(k1, k2, sizeof(k1)));
	t.v[5] ^= 1;	/* band 1 (values 4..7) changes, the others do not */
	CHECK_EQ_INT(minhash_bands(&t, 32, 4, k2), 0);
	for (i = 0; i < 32; i++)
		CHECK((k1[i] == k2[i]) == (i != 1));
	/* equal rows in different bands give different keys */
	for (i = 0; i < MINHASH_K; i++)
		t.v[i] = 7;
	CHECK_EQ_INT(minhash_bands(&t, 2, 4, k2), 0);
	CHECK(k2[0] != k2[1]);
	sbuf_release(&sb);
}

static void test_mlsh(void)
{
	struct mlsh *ml = mlsimhash_new();
	struct mlsimhash_value one, part, m, o, e;
	struct sbuf sa, sm, so;
	uint64_t seed;
	unsigned which = 99;

	REQUIRE(ml);
	sbuf_init(&sa);
	sbuf_init(&sm);
	sbuf_init(&so);
	fpt_text(&sa, 21, 30000, 8000);
	REQUIRE(mlsimhash_update(ml, sa.buf, sa.len) == 0);
	mlsimhash_final(ml, &one);
	for (seed = 1; seed <= 20; seed++) {
		FPT_FEED_SPLIT(seed, sa.buf, sa.len, mlsimhash_update, ml);
		mlsimhash_final(ml, &part);
		CHECK(!memcmp(&one, &part, sizeof(one)));
	}
	fpt_mutate(&sm, sa.buf, sa.len, 7, 10);
	fpt_text(&so, 22, 30000, 8000);
	REQUIRE(mlsimhash_compute(sm.buf, sm.len, &m) == 0);
	REQUIRE(mlsimhash_compute(so.buf, so.len, &o) == 0);
	CHECK_EQ_INT(mlsimhash_distance(&one, &one, &which), 0);
	CHECK_EQ_INT(which, 0);
	CHECK(mlsimhash_distance(&one, &m, NULL) < mlsimhash_distance(&one, &o, NULL));
	CHECK(mlsimhash_distance(&one, &o, NULL) >= 10);
	/* the lexicons differ from one another */
	CHECK(one.fp[0] != one.fp[1] && one.fp[1] != one.fp[2]);
	REQUIRE(mlsimhash_compute("", 0, &e) == 0);
	CHECK(e.fp[0] == 0 && e.fp[4] == 0);
	REQUIRE(mlsimhash_compute("solo", 4, &e) == 0);	/* one word: one feature */
	part = e;
	REQUIRE(mlsimhash_compute("solo", 4, &e) == 0);
	CHECK(!memcmp(&part, &e, sizeof(e)));
	mlsimhash_free(ml);
	sbuf_release(&sa);
	sbuf_release(&sm);
	sbuf_release(&so);
}

int main(void)
{
	RUN(test_reference);
	RUN(test_streaming);
	RUN(test_golden);
	RUN(test_estimates);
	RUN(test_bands);
	RUN(test_mlsh);
	return CHECK_DONE();
}
