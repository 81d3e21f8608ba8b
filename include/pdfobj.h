/* pdfobj.h - the object layer of a PDF held in memory, for pdfscan.c's fast
 * text reader: tokens, the classic cross-reference table, dictionary look-up
 * and stream data (none or FlateDecode).  Strict: anything else (xref
 * streams, object streams, other filters, encryption, a damaged table)
 * is -ENOTSUP, and the caller reads the file with poppler instead.
 * Values are not copied: a struct pdfval points into the file (or into a
 * content stream for the lexer), which must outlive it.
 */
#ifndef PDFOBJ_H
#define PDFOBJ_H

#include <stddef.h>
#include <stdint.h>

enum pdftok_kind {
	PDFTOK_END,		/* end of the buffer */
	PDFTOK_NUM,
	PDFTOK_NAME,		/* s, n: the name without "/" (escapes kept) */
	PDFTOK_STR,		/* s, n: the bytes inside (...), escapes kept */
	PDFTOK_HEX,		/* s, n: the digits inside <...> */
	PDFTOK_ARRAY,		/* "[" */
	PDFTOK_ARRAY_END,	/* "]" */
	PDFTOK_DICT,		/* "<<" */
	PDFTOK_DICT_END,	/* ">>" */
	PDFTOK_WORD,		/* s, n: a keyword or operator (true, R, Tj, ...) */
	PDFTOK_BAD,		/* a byte no token starts with, or a runaway string */
};

struct pdftok {
	enum pdftok_kind kind;
	const char *s;
	size_t n;
	double num;
};

/* The next token of b[0..len) from *pos; *pos moves past it. */
void pdftok_next(const char *b, size_t len, size_t *pos, struct pdftok *t);

/* Skips one value starting with token t (already read) of b[0..len):
 * nested arrays and dictionaries up to a depth of 32.  0 or -ENOTSUP. */
int pdftok_skip(const char *b, size_t len, size_t *pos, const struct pdftok *t);

/* 1 when the token is the keyword w. */
int pdftok_is(const struct pdftok *t, const char *w);

/* The bytes of a hex string (pairs of digits, an odd last digit padded
 * with 0) into out[0..max), their count in *n; -ENOTSUP on a bad digit
 * or more than max bytes. */
int pdftok_hex(const struct pdftok *t, unsigned char *out, size_t max, size_t *n);

struct pdfobj;		/* an open document; opaque */

/* A value of the file: kind (never PDFTOK_WORD R: references are
 * followed), and for a dictionary or an array the offset just past its
 * opening token, for an indirect object's value the object number. */
struct pdfval {
	struct pdftok t;
	size_t pos;		/* arrays and dictionaries: inside, after "[" / "<<" */
	uint32_t obj;		/* the indirect object it came from, 0 if direct */
};

/* Reads the cross-reference table(s) and trailer of data[0..len) (not
 * copied; must outlive the handle), at most max_objs objects.  0, -ENOMEM
 * or -ENOTSUP (also for an encrypted file). */
int pdfobj_open(const char *data, size_t len, uint32_t max_objs, struct pdfobj **out);
void pdfobj_close(struct pdfobj *d);	/* NULL is fine */

/* The trailer dictionary. */
void pdfobj_trailer(const struct pdfobj *d, struct pdfval *v);

/* The value of key (without "/") of dictionary dict, references followed:
 * 0, -ENOENT when absent (or null), -ENOTSUP when malformed. */
int pdfobj_get(const struct pdfobj *d, const struct pdfval *dict, const char *key,
	       struct pdfval *v);

/* The next element of an array whose position is *pos (start with the
 * array's pos), references followed: 0, -ENOENT at its end, -ENOTSUP. */
int pdfobj_next(const struct pdfobj *d, size_t *pos, struct pdfval *v);

/* The data of stream dict (an indirect object's dictionary), decoded into
 * a new buffer *out (owned by the caller, free()) of *n bytes; at most max
 * bytes, else -EFBIG.  0, -ENOMEM, -EFBIG or -ENOTSUP (other filters,
 * damage). */
int pdfobj_stream(const struct pdfobj *d, const struct pdfval *dict, size_t max,
		  unsigned char **out, size_t *n);

#endif
