/* Unit tests for S1 simhash-128 (simhash.h) and the text hash. */
#include <errno.h>

#include "check.h"
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "fptest.h"
#include "simhash.h"
#include "texthash.h"

static void hex_of(const char *text, char out[33])
{
	struct simhash_value v;

	if (simhash_compute(text, strlen(text), &v) < 0) {
		strcpy(out, "error");
		return;
	}
	simhash_hex(&v, out);
}

/* Golden vectors: these bits are stored in records and shared as book
 * identifiers.  A change here needs a new FPREC_VERSION (fprec.h). */
static void test_golden(void)
{
	char hex[33];
	struct sbuf sb;

	hex_of("", hex);
	CHECK_EQ_STR(hex, "00000000000000000000000000000000");
	hex_of("a", hex);
	CHECK_EQ_STR(hex, "daefff27e091a764b0476e8f4092f1ef");
	hex_of("abc", hex);
	CHECK_EQ_STR(hex, "806b783dc7a7a27f10b53a529f6edf05");
	hex_of("the quick brown fox jumps over the lazy dog", hex);
	CHECK_EQ_STR(hex, "dd6a6dd933fd7024ec5ebc7ef83b3b37");
	hex_of("\xd0\xb2\xd0\xbe\xd0\xb9\xd0\xbd\xd0\xb0 \xd0\xb8 \xd0\xbc\xd0\xb8\xd1\x80 \xe6\x88\x98 \xe4\xba\x89", hex);
	CHECK_EQ_STR(hex, "c4224caa08a0c1de94dd50cc501cd187");
	sbuf_init(&sb);
	fpt_text(&sb, 1, 20000, 5000);
	hex_of(sb.buf, hex);
	CHECK_EQ_STR(hex, "55f09a9ca5ed9d0cd069cc2ff7e1bace");
	sbuf_release(&sb);
}

/* The definition of simhash.h computed the slow, obvious way: one counter
 * update per bit per feature. */
static void reference(const char *t, size_t len, struct simhash_value *out)
{
	size_t *cs = malloc((len + 1) * sizeof(*cs)), *ce = malloc((len + 1) * sizeof(*ce)), n = 0, i, s, e;
	long long ctr[128] = { 0 };
	unsigned j;

	for (i = 0; i < len; ) {	/* character boundaries */
		unsigned char c = (unsigned char)t[i];
		size_t want = c < 0x80 ? 1 : c >= 0xf0 && c < 0xf8 ? 4 : c >= 0xe0 && c < 0xf0 ? 3 :
			      c >= 0xc0 && c < 0xe0 ? 2 : 1;

		cs[n] = i++;
		while (i < len && i - cs[n] < want && ((unsigned char)t[i] & 0xc0) == 0x80)
			i++;
		ce[n++] = i;
	}
	for (i = 0; n && (i + 4 <= n || i == 0); i++) {
		XXH128_hash_t h;

		s = cs[i];
		e = n < 4 ? ce[n - 1] : ce[i + 3];
		h = XXH3_128bits_withSeed(t + s, e - s, SIMHASH_SEED);
		for (j = 0; j < 64; j++) {
			ctr[j] += (h.low64 >> j) & 1 ? 1 : -1;
			ctr[64 + j] += (h.high64 >> j) & 1 ? 1 : -1;
		}
		if (n < 4)
			break;
	}
	out->hi = out->lo = 0;
	for (j = 0; j < 64; j++) {
		out->lo |= (uint64_t)(ctr[j] > 0) << j;
		out->hi |= (uint64_t)(ctr[64 + j] > 0) << j;
	}
	free(cs);
	free(ce);
}

static void test_reference(void)
{
	static const char *const texts[] = {
		"", "x", "ab", "abc", "abcd", "abcde", "\xc3\xa9t\xc3\xa9", "ab\x80\x80 c\xe6\x88 d\xff\xfe e\xf0\x9f\x98",
	};
	struct simhash_value fast, slow;
	struct sbuf sb;
	unsigned i;

	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		REQUIRE(simhash_compute(texts[i], strlen(texts[i]), &fast) == 0);
		reference(texts[i], strlen(texts[i]), &slow);
		CHECK(fast.hi == slow.hi && fast.lo == slow.lo);
	}
	sbuf_init(&sb);
	for (i = 0; i < 12; i++) {
		/* sizes around the counter's 16-input blocks and beyond */
		sbuf_setlen(&sb, 0);
		fpt_text(&sb, 100 + i, 1 + i * 61, 50 + i * 10);
		if (sb.len > 4000)
			sbuf_setlen(&sb, 4000);
		REQUIRE(simhash_compute(sb.buf, sb.len, &fast) == 0);
		reference(sb.buf, sb.len, &slow);
		CHECK(fast.hi == slow.hi && fast.lo == slow.lo);
	}
	/* past the counter's first flush (4,095 blocks of 32 features) */
	sbuf_setlen(&sb, 0);
	fpt_text(&sb, 99, 80000, 20000);
	REQUIRE(sb.len > 4095 * 32);
	REQUIRE(simhash_compute(sb.buf, sb.len, &fast) == 0);
	reference(sb.buf, sb.len, &slow);
	CHECK(fast.hi == slow.hi && fast.lo == slow.lo);
	sbuf_release(&sb);
}

static void test_streaming(void)
{
	struct simhash *sh = simhash_new();
	struct simhash_value one, part;
	struct sbuf sb;
	uint64_t seed, nf1, nf2;
	size_t i;

	REQUIRE(sh);
	sbuf_init(&sb);
	fpt_text(&sb, 7, 3000, 800);
	simhash_update(sh, sb.buf, sb.len);
	simhash_final(sh, &one, &nf1);
	/* every character is a feature start except the last three */
	CHECK(nf1 > 0);
	for (seed = 1; seed <= 40; seed++) {
		FPT_FEED_SPLIT(seed, sb.buf, sb.len, simhash_update, sh);
		simhash_final(sh, &part, &nf2);
		CHECK(part.hi == one.hi && part.lo == one.lo);
		CHECK_EQ_INT(nf2, nf1);
	}
	/* byte by byte: every cut inside every multi-byte character */
	for (i = 0; i < sb.len; i++)
		simhash_update(sh, sb.buf + i, 1);
	simhash_final(sh, &part, NULL);
	CHECK(part.hi == one.hi && part.lo == one.lo);
	simhash_free(sh);
	sbuf_release(&sb);
}

static void test_short_and_invalid(void)
{
	struct simhash *sh = simhash_new();
	struct simhash_value a, b;
	uint64_t nf;
	/* stray continuation bytes, a truncated sequence, invalid leads */
	static const char bad[] = "ab\x80\x80 c\xe6\x88 d\xff\xfe e\xf0\x9f\x98";
	size_t i;

	REQUIRE(sh);
	simhash_update(sh, "ab", 2);
	simhash_final(sh, &a, &nf);
	CHECK_EQ_INT(nf, 1);	/* shorter than 4 characters: one feature */
	simhash_update(sh, "abcd", 4);
	simhash_final(sh, &a, &nf);
	CHECK_EQ_INT(nf, 1);
	simhash_update(sh, "\xc3\xa9t\xc3\xa9s", 7);	/* 5 code points */
	simhash_final(sh, &a, &nf);
	CHECK_EQ_INT(nf, 2);
	simhash_update(sh, bad, sizeof(bad) - 1);
	simhash_final(sh, &a, NULL);
	for (i = 0; i < sizeof(bad) - 1; i++)
		simhash_update(sh, bad + i, 1);
	simhash_final(sh, &b, NULL);
	CHECK(a.hi == b.hi && a.lo == b.lo);
	simhash_free(sh);
}

static void test_similarity(void)
{
	struct simhash_value orig, near, far;
	struct sbuf a, m, o;

	sbuf_init(&a);
	sbuf_init(&m);
	sbuf_init(&o);
	fpt_text(&a, 3, 40000, 8000);
	fpt_mutate(&m, a.buf, a.len, 99, 20);	/* 2% of bytes damaged */
	fpt_text(&o, 4, 40000, 8000);
	REQUIRE(simhash_compute(a.buf, a.len, &orig) == 0);
	REQUIRE(simhash_compute(m.buf, m.len, &near) == 0);
	REQUIRE(simhash_compute(o.buf, o.len, &far) == 0);
	CHECK_EQ_INT(simhash_distance(&orig, &orig), 0);
	CHECK(simhash_distance(&orig, &near) <= 12);
	CHECK(simhash_distance(&orig, &far) > simhash_distance(&orig, &near));
	CHECK_EQ_INT(simhash_distance(&orig, &near), simhash_distance(&near, &orig));
	sbuf_release(&a);
	sbuf_release(&m);
	sbuf_release(&o);
}

static void test_hex(void)
{
	struct simhash_value v = { UINT64_C(0x0123456789abcdef), UINT64_C(0xfedcba9876543210) }, w;
	char hex[33];

	simhash_hex(&v, hex);
	CHECK_EQ_STR(hex, "0123456789abcdeffedcba9876543210");
	CHECK_EQ_INT(simhash_parse_hex("0123456789ABCDEFfedcba9876543210", &w), 0);
	CHECK(w.hi == v.hi && w.lo == v.lo);
	CHECK_EQ_INT(simhash_parse_hex("0123456789abcdeffedcba987654321", &w), -EINVAL);
	CHECK_EQ_INT(simhash_parse_hex("0123456789abcdeffedcba98765432100", &w), -EINVAL);
	CHECK_EQ_INT(simhash_parse_hex("0123456789abcdeffedcba987654321g", &w), -EINVAL);
	CHECK_EQ_INT(simhash_distance(&v, &w), 0);
	w.lo ^= 5;
	CHECK_EQ_INT(simhash_distance(&v, &w), 2);
}

static void test_size_class(void)
{
	uint64_t n;
	unsigned prev = 0;

	CHECK_EQ_INT(simhash_size_class(0), 0);
	CHECK_EQ_INT(simhash_size_class(1), 4);		/* log2(2) = 1 */
	CHECK_EQ_INT(simhash_size_class(1023), 40);	/* log2(1024) = 10 */
	CHECK_EQ_INT(simhash_size_class(1022), 39);
	CHECK_EQ_INT(simhash_size_class(UINT64_MAX - 1), 255);
	/* floor(4 log2(n + 1)): 2^(k/4) <= n + 1 < 2^((k+1)/4) */
	for (n = 0; n < 100000; n = n * 11 / 10 + 1) {
		unsigned c = simhash_size_class(n);
		double lo = 1, x = (double)n + 1;
		unsigned k;

		for (k = 0; k < c; k++)
			lo *= 1.189207115002721;	/* 2^(1/4) */
		CHECK(lo <= x * (1 + 1e-12) && x < lo * 1.189207115002721 * (1 + 1e-12));
		CHECK(c >= prev);
		prev = c;
	}
}

static void test_texthash(void)
{
	struct texthash *th = texthash_new();
	struct texthash_value one, part;
	struct sbuf sb;
	char hex[33];
	uint64_t seed;

	REQUIRE(th);
	texthash_compute("", 0, &one);
	texthash_hex(&one, hex);
	/* XXH3-128 of the empty input, seed 0 (xxHash's own test vector) */
	CHECK_EQ_STR(hex, "99aa06d3014798d86001c324468d497f");
	sbuf_init(&sb);
	fpt_text(&sb, 5, 5000, 1000);
	texthash_compute(sb.buf, sb.len, &one);
	for (seed = 1; seed <= 10; seed++) {
		texthash_reset(th);
		FPT_FEED_SPLIT(seed, sb.buf, sb.len, texthash_update, th);
		texthash_final(th, &part);
		CHECK(part.hi == one.hi && part.lo == one.lo);
	}
	texthash_free(th);
	sbuf_release(&sb);
}

int main(void)
{
	RUN(test_reference);
	RUN(test_golden);
	RUN(test_streaming);
	RUN(test_short_and_invalid);
	RUN(test_similarity);
	RUN(test_hex);
	RUN(test_size_class);
	RUN(test_texthash);
	return CHECK_DONE();
}
