/* test_fpline.c - the record line of bulk fingerprinting (fpline.h) and the
 * base64 under it: round trips, the exact bytes of a line, and refusal of
 * every kind of bad line. */
#include <stdint.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "base64.h"
#include "check.h"
#include "fpline.h"

static uint64_t bands[3] = { 1, 0x0123456789abcdefull, UINT64_MAX };
static uint32_t keys[4] = { 0, 7, 0x80000000u, UINT32_MAX };
static uint8_t rec[5] = { 'S', 'B', 'B', 'R', 0 };

static void sample(struct fpline *r)
{
	int i;

	memset(r, 0, sizeof(*r));
	r->path = (char *)"books/a b\tc.txt";
	r->size = 1234;
	r->mtime_ns = -5;
	r->rec_version = 65537;
	for (i = 0; i < 16; i++) {
		r->simhash[i] = (uint8_t)(i * 17);
		r->text_hash[i] = (uint8_t)(255 - i);
	}
	r->bands = bands;
	r->n_bands = 3;
	r->keys = keys;
	r->n_keys = 4;
	r->rec = rec;
	r->rec_len = sizeof(rec);
}

static void test_base64(void)
{
	static const char *const want[] = { "", "YQ==", "YWI=", "YWJj", "YWJjZA==" };
	unsigned char out[8];
	struct sbuf o;
	size_t len, n;

	for (n = 0; n < 5; n++) {
		sbuf_init(&o);
		REQUIRE(base64_encode("abcd", n, &o) == 0);
		CHECK_EQ_STR(o.buf, want[n]);
		CHECK(base64_decode(o.buf, o.len, out, &len) == 0 && len == n &&
		      !memcmp(out, "abcd", n));
		sbuf_release(&o);
	}
	/* non-canonical: stray bits under the padding, padding inside, bad
	 * symbols, a cut group */
	CHECK(base64_decode("YR==", 4, out, &len) == -EINVAL);
	CHECK(base64_decode("YWI=", 4, out, &len) == 0 && len == 2);
	CHECK(base64_decode("YWJ=", 4, out, &len) == -EINVAL);
	CHECK(base64_decode("YWK=", 4, out, &len) == -EINVAL);
	CHECK(base64_decode("Y=Jj", 4, out, &len) == -EINVAL);
	CHECK(base64_decode("YW=j", 4, out, &len) == -EINVAL);
	CHECK(base64_decode("YQ==YQ==", 8, out, &len) == -EINVAL);
	CHECK(base64_decode("YW-j", 4, out, &len) == -EINVAL);
	CHECK(base64_decode("YWJ", 3, out, &len) == -EINVAL);
}

static void test_roundtrip(void)
{
	struct fpline r, d;
	struct sbuf o, again;
	int tabs = 0;
	size_t i;

	sample(&r);
	sbuf_init(&o);
	sbuf_init(&again);
	REQUIRE(fpline_encode(&r, &o) == 0);
	CHECK(o.len < FPLINE_LINE_MAX);
	CHECK(!strncmp(o.buf, "SBFP/1\tYm9va3MvYSBiCWMudHh0\t1234\t-5\t65537\t"
		       "00112233445566778899aabbccddeeff\tfffefdfcfbfaf9f8f7f6f5f4f3f2f1f0\t",
		       strlen("SBFP/1\tYm9va3MvYSBiCWMudHh0\t1234\t-5\t65537\t") + 66));
	for (i = 0; i < o.len; i++)
		tabs += o.buf[i] == '\t';
	CHECK_EQ_INT(tabs, FPLINE_FIELDS - 1);
	CHECK(o.buf[o.len - 1] == '\n' && !memchr(o.buf, '\n', o.len - 1));
	REQUIRE(fpline_decode(o.buf, o.len, &d) == 0);
	CHECK_EQ_STR(d.path, r.path);
	CHECK(d.size == 1234 && d.mtime_ns == -5 && d.rec_version == 65537);
	CHECK(!memcmp(d.simhash, r.simhash, 16) && !memcmp(d.text_hash, r.text_hash, 16));
	CHECK(d.n_bands == 3 && !memcmp(d.bands, bands, sizeof(bands)));
	CHECK(d.n_keys == 4 && !memcmp(d.keys, keys, sizeof(keys)));
	CHECK(d.rec_len == 5 && !memcmp(d.rec, rec, 5));
	/* without its '\n' too, and it encodes back to the same bytes */
	fpline_release(&d);
	REQUIRE(fpline_decode(o.buf, o.len - 1, &d) == 0);
	REQUIRE(fpline_encode(&d, &again) == 0);
	CHECK(again.len == o.len && !memcmp(again.buf, o.buf, o.len));
	fpline_release(&d);
	/* no bands, no keys: empty fields */
	r.n_bands = r.n_keys = 0;
	r.mtime_ns = INT64_MIN;
	sbuf_setlen(&o, 0);
	REQUIRE(fpline_encode(&r, &o) == 0);
	REQUIRE(fpline_decode(o.buf, o.len, &d) == 0);
	CHECK(!d.bands && !d.keys && d.mtime_ns == INT64_MIN);
	fpline_release(&d);
	fpline_release(&d);	/* a zeroed one is fine */
	sbuf_release(&o);
	sbuf_release(&again);
}

static void test_encode_bounds(void)
{
	uint32_t down[2] = { 5, 5 };
	struct fpline r;
	struct sbuf o;

	sbuf_init(&o);
	sample(&r);
	r.path = (char *)"";
	CHECK(fpline_encode(&r, &o) == -EINVAL);
	sample(&r);
	r.keys = down;
	r.n_keys = 2;
	CHECK(fpline_encode(&r, &o) == -EINVAL);
	sample(&r);
	r.rec_len = 0;
	CHECK(fpline_encode(&r, &o) == -EINVAL);
	sample(&r);
	r.n_bands = FPLINE_BANDS_MAX + 1;
	CHECK(fpline_encode(&r, &o) == -EINVAL);
	CHECK(o.len == 0);
	sbuf_release(&o);
}

/* The line of sample() with field k replaced by val, checksum fixed. */
static void with_field(int k, const char *val, struct sbuf *out)
{
	struct fpline r;
	struct sbuf o;
	const char *p, *e;
	int i;

	sample(&r);
	sbuf_init(&o);
	sbuf_setlen(out, 0);
	if (fpline_encode(&r, &o))
		abort();
	for (p = o.buf, i = 0; i < k; i++)
		p = strchr(p, '\t') + 1;
	e = strpbrk(p, "\t\n");
	sbuf_add(out, o.buf, (size_t)(p - o.buf));
	sbuf_addstr(out, val);
	/* up to the checksum field, then a fresh checksum */
	if (k < FPLINE_FIELDS - 1) {
		sbuf_add(out, e, (size_t)(strrchr(o.buf, '\t') - e));
		sbuf_addf(out, "\t%08x\n", (unsigned)XXH32(out->buf, out->len, 0));
	}
	sbuf_release(&o);
}

static void test_decode_refuses(void)
{
	static const struct { int k; const char *val; } bad[] = {
		{ 0, "SBFP/01" }, { 0, "SBFX/1" }, { 1, "" }, { 1, "AA==" },	/* NUL path */
		{ 1, "YQ" }, { 2, "-1" }, { 2, "01" }, { 2, "18446744073709551616" },
		{ 2, "" }, { 3, "-0" }, { 3, "9223372036854775808" }, { 3, "+5" },
		{ 4, "4294967296" }, { 5, "00112233445566778899AABBCCDDEEFF" },
		{ 5, "0011" }, { 6, "g0112233445566778899aabbccddeeff" },
		{ 7, "AAAA" },		/* 3 bytes: not whole bands */
		{ 8, "AAAAAQAAAAA=" },	/* keys 1, 0: not ascending */
		{ 8, "AAAAAQAAAAE=" },	/* 1, 1: not unique */
		{ 9, "" }, { 9, "!!!!" },
	};
	struct fpline d;
	struct sbuf l;
	size_t i;

	sbuf_init(&l);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		with_field(bad[i].k, bad[i].val, &l);
		if (fpline_decode(l.buf, l.len, &d) != -EINVAL)
			fprintf(stderr, "  accepted field %d = '%s'\n", bad[i].k, bad[i].val);
		CHECK(fpline_decode(l.buf, l.len, &d) == -EINVAL);
		CHECK(!d.path && !d.rec);
	}
	/* a good line made bad: checksum, one byte changed, cut, extra field,
	 * CR, empty */
	with_field(10, "00000000", &l);
	CHECK(fpline_decode(l.buf, l.len, &d) == -EINVAL);
	with_field(2, "1235", &l);
	REQUIRE(fpline_decode(l.buf, l.len, &d) == 0);
	fpline_release(&d);
	l.buf[strlen("SBFP/1\tYm9va3MvYSBiCWMudHh0\t123")] = '6';
	CHECK(fpline_decode(l.buf, l.len, &d) == -EINVAL);
	with_field(2, "1235", &l);
	CHECK(fpline_decode(l.buf, l.len - 10, &d) == -EINVAL);
	CHECK(fpline_decode(l.buf, 0, &d) == -EINVAL);
	with_field(9, "AAAA\tAAAA", &l);
	CHECK(fpline_decode(l.buf, l.len, &d) == -EINVAL);
	with_field(9, "AAAA\r", &l);
	CHECK(fpline_decode(l.buf, l.len, &d) == -EINVAL);
	/* another version of the line format: -EPROTO, and which one */
	with_field(0, "SBFP/2", &l);
	CHECK(fpline_decode(l.buf, l.len, &d) == -EPROTO);
	CHECK_EQ_INT(fpline_version(l.buf, l.len), 2);
	CHECK_EQ_INT(fpline_version("SBFP/", 5), -1);
	CHECK_EQ_INT(fpline_version("hello", 5), -1);
	sbuf_release(&l);
}

int main(void)
{
	RUN(test_base64);
	RUN(test_roundtrip);
	RUN(test_encode_bounds);
	RUN(test_decode_refuses);
	return CHECK_DONE();
}
