/* hex.h - one hexadecimal digit's value (ids, %XX escapes in EPUB hrefs). */
#ifndef SIMBOOK_HEX_H
#define SIMBOOK_HEX_H

/* The value 0-15 of the hex digit c (either case), or -1. */
static inline int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif
