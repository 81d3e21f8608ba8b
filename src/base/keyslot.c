/* keyslot.c - CRC16/XMODEM and the Redis Cluster hash-tag rule. */
#include <string.h>

#include "keyslot.h"

uint16_t keyslot_crc16(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	unsigned crc = 0;

	for (size_t i = 0; i < len; i++) {
		crc ^= (unsigned)p[i] << 8;
		for (int b = 0; b < 8; b++)
			crc = crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1;
	}
	return (uint16_t)crc;
}

unsigned keyslot_of(const void *key, size_t len)
{
	const char *k = key, *open, *close;

	open = len ? memchr(k, '{', len) : NULL;
	if (open) {
		size_t rest = len - (size_t)(open - k) - 1;

		close = rest ? memchr(open + 1, '}', rest) : NULL;
		/* "{}" is no tag: the whole key is hashed */
		if (close && close > open + 1)
			return keyslot_crc16(open + 1, (size_t)(close - open - 1)) &
			       (KEYSLOT_COUNT - 1);
	}
	return keyslot_crc16(k, len) & (KEYSLOT_COUNT - 1);
}
