/* palmdoc.c - PalmDOC LZ77 decoding.
 *
 * Each input byte is one code: 0x00 and 0x09-0x7F stand for themselves;
 * 0x01-0x08 are followed by that many literal bytes; 0xC0-0xFF are a space
 * and the byte XOR 0x80; 0x80-0xBF start a two-byte back reference, 11
 * bits of distance and 3 bits of length - 3.  libmobi decodes the same
 * format through a checked buffer call per output byte (a third of a MOBI
 * book's extraction time); this is the same decoding as one loop.
 */
#include "palmdoc.h"

#include <string.h>

long palmdoc_lz77(unsigned char *out, size_t cap, const unsigned char *in, size_t n)
{
	size_t i = 0, o = 0, d, l;

	while (i < n) {
		unsigned c = in[i++];

		if (c >= 0xC0) {
			if (cap - o < 2)
				return -1;
			out[o++] = ' ';
			out[o++] = (unsigned char)(c ^ 0x80);
		} else if (c >= 0x80) {
			if (i == n)
				return -1;
			d = ((c << 8 | in[i]) >> 3) & 0x7FF;
			l = (in[i++] & 7u) + 3;
			/* distance 0 would copy a byte not written yet */
			if (!d || d > o || cap - o < l)
				return -1;
			for (; l; l--, o++)	/* overlapping: byte by byte */
				out[o] = out[o - d];
		} else if (c >= 1 && c <= 8) {
			if (n - i < c || cap - o < c)
				return -1;
			memcpy(out + o, in + i, c);
			o += c;
			i += c;
		} else {
			if (o == cap)
				return -1;
			out[o++] = (unsigned char)c;
		}
	}
	return (long)o;
}
