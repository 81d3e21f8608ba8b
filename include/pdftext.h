/* pdftext.h - from the text layer of a PDF, page by page (lines in reading
 * order with the box of each character), to the text of the book: running
 * headers and footers and page numbers removed, words hyphenated at a line
 * end joined, the lines of a paragraph joined, pages grouped into chunks.
 * Pure: no PDF parsing here (pdf.c feeds it from poppler), so the rules can
 * be tested on their own.
 *
 * Rules (all per document, in this order):
 *  - Running lines: the first two and the last two lines of every page are
 *    candidates when shorter than PDFTEXT_MAX_RUNNING bytes.  A candidate's
 *    key is the line lower-cased with every run of digits replaced by "#"
 *    ("12  The War of the Worlds" and "13 The War of the Worlds" share a
 *    key); a key is running at the top (or bottom) when it is a candidate
 *    there on at least 3 pages, two of them at most 2 pages apart (headers
 *    alternate between even and odd pages; a chapter heading that starts
 *    several pages does not recur that closely).  A page number is a
 *    candidate line holding only an arabic number (at most 5 digits) or a
 *    canonical roman numeral, optionally wrapped in "-", "[", "]", "(", ")"
 *    or dashes.  From each end of a page, the outermost candidate is dropped
 *    when it is running or a page number, and the next one only if the
 *    outermost was.
 *  - Paragraphs: a line ends its paragraph when the next line starts more
 *    than 1.5 line pitches lower, or is indented (starts 2% of the text width
 *    or half a line height right of it), or when the line itself stops short
 *    of the right margin: by more than a quarter of the width, or by more
 *    than 8% when it ends a sentence (. ! ? : or a closing quote after one).
 *    Without boxes: when it ends a sentence and is under 80% of the page's
 *    longest line in characters, or under half of it.  A paragraph may run
 *    on across a page break.
 *  - Hyphenation: a line ending in a letter and "-" (or U+2010), joined to a
 *    next line of the same paragraph starting with a lower-case letter,
 *    loses the hyphen ("some-" "thing" -> "something") unless the document
 *    writes that compound with its hyphen inside a line elsewhere
 *    ("navy-" "crowded" stays "navy-crowded" when "navy-crowded" occurs);
 *    before any other letter the hyphen stays and no space is added
 *    ("Anglo-" "Saxon" -> "Anglo-Saxon").  A soft hyphen (U+00AD) at a line
 *    end is always removed.  A dash ("--", U+2013, U+2014) ending a line or
 *    starting the next joins them without a space, as it was written.
 *  - Chunks: a new chunk starts at the first paragraph that starts on a new
 *    page once the current chunk holds chunk_bytes of text.
 */
#ifndef PDFTEXT_H
#define PDFTEXT_H

#include <stddef.h>
#include <stdint.h>

#include "sbuf.h"

#define PDFTEXT_MAX_RUNNING 120	/* longest header/footer line, bytes */

/* The box of one character on its page, in points, y growing downwards. */
struct pdftext_box {
	double x1, y1, x2, y2;
};

struct pdftext_line {
	size_t off, len;	/* in raw: trimmed, without the line end */
	uint32_t page;
	int geom;		/* the box below is known */
	double x1, y1, x2, y2;	/* left, top, right, bottom */
	size_t nchars;		/* code points */
	int drop;		/* running header/footer or page number */
};

/* The pages added so far; embedded by its owner. */
struct pdftext {
	struct sbuf raw;		/* the bytes of every line, owned */
	struct pdftext_line *lines;	/* in reading order, owned */
	size_t nlines, cap;
	size_t *page_first;		/* index of each page's first line, owned;
					 * npages + 1 entries once a page is added */
	size_t pcap;
	uint32_t npages;
};

void pdftext_init(struct pdftext *pt);	/* empty, allocates nothing */
void pdftext_release(struct pdftext *pt);	/* frees all, leaves it empty */

/* Adds the next page: text (valid UTF-8, len bytes, lines separated by "\n")
 * and boxes, one per code point of text (line ends included) as poppler's
 * text layout gives them; boxes NULL, or nboxes not the number of code
 * points, means no positions for this page.  Control characters become
 * spaces; blank lines are dropped.  0 or -ENOMEM. */
int pdftext_add_page(struct pdftext *pt, const char *text, size_t len,
		     const struct pdftext_box *boxes, size_t nboxes);

/* Applies the rules above to the pages added and appends the text to out
 * (paragraphs separated by "\n\n"), and sets *chunk_off to a new array
 * (owned by the caller) of the byte offset in out of each chunk's start,
 * *nchunks entries (none when there is no text).  On error out is left as
 * it was.  Marks the dropped lines in pt.  0 or -ENOMEM. */
int pdftext_finish(struct pdftext *pt, size_t chunk_bytes, struct sbuf *out,
		   size_t **chunk_off, size_t *nchunks);

#endif
