/* xmltext.h - the text side of the XML book readers (FB2, DOCX, ODT): a
 * libxml2 SAX parse with the safe options, and the writer that appends
 * their text to the extracted document with paragraph breaks, collapsed
 * white space, chunk starts and the depth, size and time limits.  Private
 * to the extraction modules of src/core, like extract_i.h.
 */
#ifndef XMLTEXT_H
#define XMLTEXT_H

#include <stddef.h>

#include "extract_i.h"
#include "zipread.h"

struct _xmlSAXHandler;

enum xt_brk { XT_NONE, XT_SPACE, XT_LINE, XT_PARA };

/* Text being written into ctx->doc (text and chunk_off); lives on the
 * reader's stack, owns nothing. */
struct xt_text {
	struct ex_ctx *ctx;
	enum xt_brk pending;	/* separator owed before the next text */
	int chunk_pending;	/* the next text starts a chunk */
	size_t chunk_cap;	/* capacity of ctx->doc->chunk_off */
	unsigned depth;		/* open elements, kept by xt_enter/xt_leave */
	unsigned calls;
	int error;		/* first error; the parse stops */
	int done;		/* the reader stopped the parse: all it needs */
	void *pctx;		/* the running xmlParserCtxt */
};

void xt_init(struct xt_text *t, struct ex_ctx *ctx);

/* Owes separator b (the strongest owed wins) before the next text; nothing
 * is written before the first text. */
void xt_break(struct xt_text *t, enum xt_brk b);

/* The next text starts a new chunk (after a paragraph break). */
void xt_chunk(struct xt_text *t);

/* Appends s[0..n) of UTF-8 text, white space runs collapsed into the owed
 * separator.  0, or an error (-EFBIG for max_text_bytes, -ETIMEDOUT,
 * -ENOMEM) with the reason set and the parse stopped. */
int xt_add(struct xt_text *t, const char *s, size_t n);

/* An element opens / closes: the depth limit (max_depth, -EFBIG) and the
 * time limit are checked here.  0 or the error, parse stopped. */
int xt_enter(struct xt_text *t);
void xt_leave(struct xt_text *t);

/* Stops the parse with err (the reason set by the caller, or here from
 * strerror). */
void xt_stop(struct xt_text *t, int err);
/* Stops the parse without error: the rest of the document is not needed. */
void xt_done(struct xt_text *t);

/* Parses data[0..len) with libxml2's SAX2 parser and the callbacks of sax
 * (their user data is ud; error callbacks are replaced by silent ones):
 * the declared encoding is honoured, no DTD, no external entity, no
 * network, no entity substitution; a document declaring entities is
 * refused.  what names the document in reasons ("word/document.xml").
 * Returns 0; t->error when a callback stopped it; -EBADMSG "malformed XML"
 * with libxml2's line and message when not well-formed before the reader
 * called xt_done(). */
int xt_parse(struct xt_text *t, const char *data, size_t len, struct _xmlSAXHandler *sax,
	     void *ud, const char *what);

/* The body document of a zipped format (DOCX's word/document.xml, ODT's
 * content.xml): entry name of z read (within max_entry_bytes), a chunk
 * started, then xt_parse() with the element and text callbacks (user data
 * ud).  A missing entry is -EBADMSG "no NAME in the KIND". */
int xt_parse_entry(struct xt_text *t, struct zipread *z, const char *name, const char *kind,
		   void (*start)(void *, const unsigned char *, const unsigned char *,
				 const unsigned char *, int, const unsigned char **, int, int,
				 const unsigned char **),
		   void (*end)(void *, const unsigned char *, const unsigned char *,
			       const unsigned char *),
		   void (*text)(void *, const unsigned char *, int), void *ud);

/* The metadata document entry of z (DOCX's docProps/core.xml, ODT's
 * meta.xml): on(ud, name, text) for each element child of its root (of the
 * root's first child element named in, when in is not NULL) whose local
 * name is one of names (NULL-terminated), in document order.  0 when the
 * entry is missing or not XML; else on()'s first non-zero return, -ENOMEM,
 * or zipread_xml()'s error. */
int xt_meta_each(struct zipread *z, const char *entry, const char *in,
		 const char *const *names, int (*on)(void *ud, const char *name, const char *v),
		 void *ud);

/* Local-name helpers for the SAX2 attribute array (localname, prefix, URI,
 * value, end): a copy of the value of attribute name (any namespace) into
 * buf (NUL-terminated, cut at bufsz - 1), returning 1, or 0 if absent. */
int xt_attr(const unsigned char **atts, int natts, const char *name, char *buf, size_t bufsz);

#endif
