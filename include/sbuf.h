/* sbuf.h - growable byte buffer for text, names and encoded records.
 *
 * A struct sbuf is embedded by its owner: sbuf_init() makes an empty buffer
 * that allocates nothing; sbuf_release() frees the storage and leaves an
 * empty buffer again.  buf is always NUL-terminated (len excludes the NUL),
 * so it can be passed as a C string when it holds text.  Functions that can
 * allocate return 0 or -ENOMEM and leave the buffer unchanged on failure.
 */
#ifndef SBUF_H
#define SBUF_H

#include <stdarg.h>
#include <stddef.h>

struct sbuf {
	char *buf;	/* never NULL: points at a shared "" until first growth */
	size_t len;
	size_t cap;	/* 0 while buf is the shared empty string */
};

void sbuf_init(struct sbuf *sb);
void sbuf_release(struct sbuf *sb);
/* Makes room for at least extra more bytes (plus the NUL). */
int sbuf_grow(struct sbuf *sb, size_t extra);
int sbuf_add(struct sbuf *sb, const void *data, size_t len);
int sbuf_addstr(struct sbuf *sb, const char *s);
int sbuf_addch(struct sbuf *sb, char c);
int sbuf_addf(struct sbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int sbuf_vaddf(struct sbuf *sb, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Shortens to len bytes (len <= sb->len); keeps the storage. */
void sbuf_setlen(struct sbuf *sb, size_t len);
/* Hands the storage to the caller (free() it) and leaves sb empty.  Returns
 * a malloc'd empty string for an empty buffer, NULL only on -ENOMEM. */
char *sbuf_detach(struct sbuf *sb, size_t *len);

#endif
