/* Unit tests for S4 robust simhash (rsimhash.h). */
#include "check.h"
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "fptest.h"
#include "rsimhash.h"

static const uint32_t salt[16] = {
	0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344,
	0xa4093822, 0x299f31d0, 0x082efa98, 0xec4e6c89,
	0x452821e6, 0x38d01377, 0xbe5466cf, 0x34e90c6c,
	0xc0ac29b7, 0xc97c50dd, 0x3f84d5b5, 0xb5470917,
};

static uint32_t fmix32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x85ebca6bu;
	x ^= x >> 13;
	x *= 0xc2b2ae35u;
	x ^= x >> 16;
	return x;
}

static void add_feature(long long *ctr, const char *p, size_t len)
{
	XXH128_hash_t h = XXH3_128bits_withSeed(p, len, RSIMHASH_SEED);
	uint32_t q[4] = { (uint32_t)h.low64, (uint32_t)(h.low64 >> 32),
			  (uint32_t)h.high64, (uint32_t)(h.high64 >> 32) };
	unsigned k, b;

	for (k = 0; k < 16; k++) {
		uint32_t x = fmix32(q[k % 4] ^ salt[k]);

		for (b = 0; b < 32; b++)
			ctr[32 * k + b] += (x >> b) & 1 ? 1 : -1;
	}
}

/* rsimhash.h's definition, the slow way. */
static void reference(const char *t, size_t len, struct rsimhash_value *out)
{
	size_t *cs = malloc((len + 1) * sizeof(*cs)), *ce = malloc((len + 1) * sizeof(*ce)), n = 0, i;
	long long ctr[512] = { 0 };
	unsigned p, k, used[512] = { 0 };

	for (i = 0; i < len; ) {
		unsigned char c = (unsigned char)t[i];
		size_t want = c < 0x80 ? 1 : c >= 0xf0 && c < 0xf8 ? 4 : c >= 0xe0 && c < 0xf0 ? 3 :
			      c >= 0xc0 && c < 0xe0 ? 2 : 1;

		cs[n] = i++;
		while (i < len && i - cs[n] < want && ((unsigned char)t[i] & 0xc0) == 0x80)
			i++;
		ce[n++] = i;
	}
	if (n > 0 && n < 12)
		add_feature(ctr, t, ce[n - 1]);
	for (i = 0; n >= 12 && i + 12 <= n; i++)
		if (i == 0 || (ce[i - 1] - cs[i - 1] == 1 && t[cs[i - 1]] == ' '))
			add_feature(ctr, t + cs[i], ce[i + 11] - cs[i]);
	memset(out, 0, sizeof(*out));
	for (p = 0; p < 512; p++)
		if (ctr[p] > 0)
			out->sign[p / 64] |= UINT64_C(1) << (p % 64);
	for (k = 0; k < 128; k++) {	/* strongest first, lower position on ties */
		long long best = -1;
		unsigned at = 0;

		for (p = 0; p < 512; p++) {
			long long m = ctr[p] < 0 ? -ctr[p] : ctr[p];

			if (!used[p] && m > best) {
				best = m;
				at = p;
			}
		}
		used[at] = 1;
		out->mask[at / 64] |= UINT64_C(1) << (at % 64);
	}
	free(cs);
	free(ce);
}

static int same(const struct rsimhash_value *a, const struct rsimhash_value *b)
{
	return !memcmp(a, b, sizeof(*a));
}

static unsigned popcount_mask(const struct rsimhash_value *v)
{
	unsigned i, n = 0;

	for (i = 0; i < 8; i++)
		n += (unsigned)__builtin_popcountll(v->mask[i]);
	return n;
}

static void test_reference(void)
{
	static const char *const texts[] = {
		"", "x", "short text", "exactly twelv", "hello wonderful world of words",
		"ab\x80\x80 c\xe6\x88 d\xff\xfe e\xf0\x9f\x98 more words here to pass twelve",
	};
	struct rsimhash_value fast, slow;
	struct sbuf sb;
	unsigned i;

	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		REQUIRE(rsimhash_compute(texts[i], strlen(texts[i]), &fast) == 0);
		reference(texts[i], strlen(texts[i]), &slow);
		CHECK(same(&fast, &slow));
	}
	sbuf_init(&sb);
	for (i = 0; i < 10; i++) {
		sbuf_setlen(&sb, 0);
		fpt_text(&sb, 200 + i, 10 + i * 70, 100);
		if (sb.len > 4000)
			sbuf_setlen(&sb, 4000);
		REQUIRE(rsimhash_compute(sb.buf, sb.len, &fast) == 0);
		reference(sb.buf, sb.len, &slow);
		CHECK(same(&fast, &slow));
		CHECK_EQ_INT(popcount_mask(&fast), 128);
	}
	/* past the counter's first flush (4,095 blocks of 16 features; one
	 * feature per word) */
	sbuf_setlen(&sb, 0);
	fpt_text(&sb, 98, 70000, 20000);
	REQUIRE(rsimhash_compute(sb.buf, sb.len, &fast) == 0);
	reference(sb.buf, sb.len, &slow);
	CHECK(same(&fast, &slow));
	sbuf_release(&sb);
}

static uint64_t digest(const struct rsimhash_value *v)
{
	uint8_t b[128];
	unsigned i, k;

	for (i = 0; i < 8; i++)
		for (k = 0; k < 8; k++) {
			b[8 * i + k] = (uint8_t)(v->mask[i] >> (56 - 8 * k));
			b[64 + 8 * i + k] = (uint8_t)(v->sign[i] >> (56 - 8 * k));
		}
	return XXH3_64bits(b, sizeof(b));
}

/* Golden vectors (stored bits: a change needs a new FPREC_VERSION). */
static void test_golden(void)
{
	struct rsimhash_value v;
	struct sbuf sb;

	REQUIRE(rsimhash_compute("the quick brown fox jumps over the lazy dog", 43, &v) == 0);
	CHECK(digest(&v) == UINT64_C(0x830edf6d81ca490a));
	sbuf_init(&sb);
	fpt_text(&sb, 1, 20000, 5000);
	REQUIRE(rsimhash_compute(sb.buf, sb.len, &v) == 0);
	CHECK(digest(&v) == UINT64_C(0xcaf4939990e6c618));
	sbuf_release(&sb);
}

static void test_streaming(void)
{
	struct rsimhash *rs = rsimhash_new();
	struct rsimhash_value one, part;
	struct sbuf sb;
	uint64_t seed;
	size_t i;

	REQUIRE(rs);
	sbuf_init(&sb);
	fpt_text(&sb, 8, 3000, 800);
	rsimhash_update(rs, sb.buf, sb.len);
	rsimhash_final(rs, &one);
	for (seed = 1; seed <= 30; seed++) {
		FPT_FEED_SPLIT(seed, sb.buf, sb.len, rsimhash_update, rs);
		rsimhash_final(rs, &part);
		CHECK(same(&one, &part));
	}
	for (i = 0; i < sb.len; i++)
		rsimhash_update(rs, sb.buf + i, 1);
	rsimhash_final(rs, &part);
	CHECK(same(&one, &part));
	rsimhash_free(rs);
	sbuf_release(&sb);
}

static void test_distances(void)
{
	struct rsimhash_value a, m, o;
	struct sbuf sa, sm, so;
	unsigned ab, ba;

	sbuf_init(&sa);
	sbuf_init(&sm);
	sbuf_init(&so);
	fpt_text(&sa, 3, 40000, 8000);
	fpt_mutate(&sm, sa.buf, sa.len, 5, 10);	/* 1% */
	fpt_text(&so, 4, 40000, 8000);
	REQUIRE(rsimhash_compute(sa.buf, sa.len, &a) == 0);
	REQUIRE(rsimhash_compute(sm.buf, sm.len, &m) == 0);
	REQUIRE(rsimhash_compute(so.buf, so.len, &o) == 0);
	CHECK_EQ_INT(rsimhash_distance(&a, &a), 0);
	ab = rsimhash_distance_asym(&a, &m);
	ba = rsimhash_distance_asym(&m, &a);
	CHECK_EQ_INT(rsimhash_distance(&a, &m), ab > ba ? ab : ba);
	CHECK(rsimhash_distance(&a, &m) <= 20);
	/* unrelated: about half of the 128 strong positions differ */
	CHECK(rsimhash_distance(&a, &o) >= 40);
	/* only the main hash's positions are read */
	m = a;
	m.sign[0] ^= ~a.mask[0];
	CHECK_EQ_INT(rsimhash_distance_asym(&a, &m), 0);
	sbuf_release(&sa);
	sbuf_release(&sm);
	sbuf_release(&so);
}

int main(void)
{
	RUN(test_reference);
	RUN(test_golden);
	RUN(test_streaming);
	RUN(test_distances);
	return CHECK_DONE();
}
