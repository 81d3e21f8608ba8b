/* sbuf.c - growable byte buffer (see sbuf.h). */
#include "sbuf.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char sbuf_empty[1];

void sbuf_init(struct sbuf *sb)
{
	sb->buf = sbuf_empty;
	sb->len = 0;
	sb->cap = 0;
}

void sbuf_release(struct sbuf *sb)
{
	if (sb->cap)
		free(sb->buf);
	sbuf_init(sb);
}

int sbuf_grow(struct sbuf *sb, size_t extra)
{
	size_t need, cap;
	char *p;

	if (extra > SIZE_MAX - 1 - sb->len)
		return -ENOMEM;
	need = sb->len + extra + 1;
	if (need <= sb->cap)
		return 0;
	cap = sb->cap ? sb->cap : 64;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	p = realloc(sb->cap ? sb->buf : NULL, cap);
	if (!p)
		return -ENOMEM;
	if (!sb->cap)
		p[0] = '\0';
	sb->buf = p;
	sb->cap = cap;
	return 0;
}

int sbuf_add(struct sbuf *sb, const void *data, size_t len)
{
	int ret = sbuf_grow(sb, len);

	if (ret)
		return ret;
	if (len)
		memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
	return 0;
}

int sbuf_addstr(struct sbuf *sb, const char *s)
{
	return sbuf_add(sb, s, strlen(s));
}

int sbuf_addch(struct sbuf *sb, char c)
{
	return sbuf_add(sb, &c, 1);
}

int sbuf_vaddf(struct sbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n, ret;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return -EINVAL;
	ret = sbuf_grow(sb, (size_t)n);
	if (ret)
		return ret;
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
	return 0;
}

int sbuf_addf(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = sbuf_vaddf(sb, fmt, ap);
	va_end(ap);
	return ret;
}

void sbuf_setlen(struct sbuf *sb, size_t len)
{
	if (len > sb->len || !sb->cap)
		return;
	sb->len = len;
	sb->buf[len] = '\0';
}

char *sbuf_detach(struct sbuf *sb, size_t *len)
{
	char *p;

	if (len)
		*len = sb->len;
	if (!sb->cap)
		return calloc(1, 1);
	p = sb->buf;
	sbuf_init(sb);
	return p;
}
