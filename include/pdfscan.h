/* pdfscan.h - a fast reader of a PDF's text layer for the common case: the
 * pages' content streams interpreted directly (text state, Tj/TJ/'/",
 * positioning) for fonts whose codes map to Unicode through a ToUnicode
 * CMap (Type0, Identity-H), lines and word spaces laid out by the rules
 * poppler's text layer applies to a single column of horizontal text.
 *
 * Strict: a document outside that case (fonts of other kinds, anything in
 * the file pdfobj.h does not read) is -ENOTSUP from pdfscan_open(); a page
 * outside it (rotated or mirrored text, text going up the page or back
 * along a line, wide gaps in a line (columns), superscripts, letter-spaced
 * lines, Form XObjects, inline images, marked content with other
 * ActualText, annotations other than links) is -ENOTSUP from
 * pdfscan_page(), and pdf.c reads that page with poppler.
 */
#ifndef PDFSCAN_H
#define PDFSCAN_H

#include <stddef.h>
#include <stdint.h>

#include "extract_i.h"
#include "pdftext.h"

struct pdfscan;		/* an open document; opaque */

/* Opens data[0..len) (not copied: must outlive the handle), a document of
 * npages pages (poppler's count, checked).  0, -ENOTSUP or -ENOMEM. */
int pdfscan_open(struct ex_ctx *ctx, const void *data, size_t len, uint32_t npages,
		 struct pdfscan **out);
void pdfscan_close(struct pdfscan *sc);	/* NULL is fine */

/* Adds page i to pt as poppler's page text and character boxes would be
 * added.  0; -ENOTSUP (pt unchanged); -ENOMEM; or a failure with its
 * reason set in ctx (text longer than the limit). */
int pdfscan_page(struct pdfscan *sc, uint32_t i, struct pdftext *pt);

#endif
