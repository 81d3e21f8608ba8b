/* test_jsonw.c - JSON string escaping: control characters, quotes, valid
 * UTF-8 kept, every invalid byte as \udcXX, and a round trip of random byte
 * strings through a decoder written here from the rules in jsonw.h. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "jsonw.h"

static char *esc(const char *s, size_t n)
{
	static struct sbuf sb;

	sbuf_release(&sb);
	sbuf_init(&sb);
	if (jsonw_strn(&sb, s, n))
		return NULL;
	return sb.buf;
}

static void test_plain(void)
{
	CHECK_EQ_STR(esc("", 0), "\"\"");
	CHECK_EQ_STR(esc("abc/def.txt", 11), "\"abc/def.txt\"");
	CHECK_EQ_STR(esc("a\"b\\c", 5), "\"a\\\"b\\\\c\"");
	CHECK_EQ_STR(esc("\t\n\r\b\f", 5), "\"\\t\\n\\r\\b\\f\"");
	CHECK_EQ_STR(esc("\x01\x1f\x7f", 3), "\"\\u0001\\u001f\x7f\"");
	CHECK_EQ_STR(esc("a\0b", 3), "\"a\\u0000b\"");
}

static void test_null(void)
{
	struct sbuf sb;

	sbuf_init(&sb);
	CHECK(jsonw_str(&sb, NULL) == 0);
	CHECK_EQ_STR(sb.buf, "null");
	sbuf_release(&sb);
}

static void test_utf8(void)
{
	/* é, €, 😀 kept as they are */
	CHECK_EQ_STR(esc("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9), "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
	/* line and paragraph separators escaped */
	CHECK_EQ_STR(esc("\xe2\x80\xa8\xe2\x80\xa9", 6), "\"\\u2028\\u2029\"");
	/* invalid: latin-1 byte, stray continuation, overlong, surrogate,
	 * past U+10FFFF, cut sequence */
	CHECK_EQ_STR(esc("caf\xe9", 4), "\"caf\\udce9\"");
	CHECK_EQ_STR(esc("\x80", 1), "\"\\udc80\"");
	CHECK_EQ_STR(esc("\xc0\xaf", 2), "\"\\udcc0\\udcaf\"");
	CHECK_EQ_STR(esc("\xed\xa0\x80", 3), "\"\\udced\\udca0\\udc80\"");
	CHECK_EQ_STR(esc("\xf4\x90\x80\x80", 4), "\"\\udcf4\\udc90\\udc80\\udc80\"");
	CHECK_EQ_STR(esc("\xe2\x82", 2), "\"\\udce2\\udc82\"");
	CHECK_EQ_STR(esc("\xe2\x82x", 3), "\"\\udce2\\udc82x\"");
	CHECK_EQ_INT(jsonw_utf8_len((const unsigned char *)"\xf0\x90\x80\x80", 4), 4);
	CHECK_EQ_INT(jsonw_utf8_len((const unsigned char *)"\xf0\x8f\xbf\xbf", 4), 0);
	CHECK_EQ_INT(jsonw_utf8_len((const unsigned char *)"\xe0\x9f\xbf", 3), 0);
	CHECK_EQ_INT(jsonw_utf8_len((const unsigned char *)"\xef\xbf\xbf", 3), 3);
	CHECK_EQ_INT(jsonw_utf8_len((const unsigned char *)"\xf5\x80\x80\x80", 4), 0);
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Decodes a literal written by jsonw_strn back to bytes (surrogateescape):
 * returns the length, or -1 on anything jsonw must never write. */
static long decode(const char *s, unsigned char *out)
{
	long n = 0;
	size_t i = 1;

	if (s[0] != '"')
		return -1;
	while (s[i] && s[i] != '"') {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20)
			return -1;	/* raw control character */
		if (c != '\\') {
			size_t k = jsonw_utf8_len((const unsigned char *)s + i, strlen(s + i));

			if (!k)
				return -1;	/* output not valid UTF-8 */
			memcpy(out + n, s + i, k);
			n += (long)k;
			i += k;
			continue;
		}
		c = (unsigned char)s[++i];
		switch (c) {
		case '"': case '\\': case '/': out[n++] = c; i++; continue;
		case 'n': out[n++] = '\n'; i++; continue;
		case 't': out[n++] = '\t'; i++; continue;
		case 'r': out[n++] = '\r'; i++; continue;
		case 'b': out[n++] = '\b'; i++; continue;
		case 'f': out[n++] = '\f'; i++; continue;
		case 'u': break;
		default: return -1;
		}
		{
			int v = 0, j, h;

			for (j = 1; j <= 4; j++) {
				h = hexval(s[i + j]);
				if (h < 0)
					return -1;
				v = v << 4 | h;
			}
			i += 5;
			if (v >= 0xdc80 && v <= 0xdcff)
				out[n++] = (unsigned char)(v & 0xff);
			else if (v < 0x20)
				out[n++] = (unsigned char)v;
			else if (v == 0x2028 || v == 0x2029) {
				out[n++] = 0xe2;
				out[n++] = 0x80;
				out[n++] = (unsigned char)(0x80 | (v & 0x3f));
			} else
				return -1;
		}
	}
	if (s[i] != '"' || s[i + 1])
		return -1;
	return n;
}

static void test_round_trip(void)
{
	unsigned char in[64], back[64 * 4];
	uint64_t x = 0x9e3779b97f4a7c15u;
	int round, i, bad = 0;

	for (round = 0; round < 20000; round++) {
		size_t n = (size_t)(round % 48);
		char *lit;
		long m;

		for (i = 0; i < (int)n; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* bias towards the interesting bytes */
			in[i] = (unsigned char)(round & 1 ? x : (x & 3) == 0 ? 0xe2 : (x & 3) == 1 ? 0x80 + (x >> 8) % 64 : x >> 16);
		}
		lit = esc((const char *)in, n);
		if (!lit) {
			bad++;
			continue;
		}
		m = decode(lit, back);
		if (m != (long)n || memcmp(in, back, n))
			bad++;
	}
	CHECK_EQ_INT(bad, 0);
}

int main(void)
{
	RUN(test_plain);
	RUN(test_null);
	RUN(test_utf8);
	RUN(test_round_trip);
	return CHECK_DONE();
}
