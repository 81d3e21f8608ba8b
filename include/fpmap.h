/* fpmap.h - one file to one record line for `simbook fingerprint
 * --records` (the mapper of bulk fingerprinting, docs/BULK.md).
 *
 * A file is read, judged a book or not, and fingerprinted exactly as the
 * indexer's workers do it (the same sniffing, size limits, extraction
 * limits, calibre metadata.opf next to the book), so an imported record is
 * the one `simbook index` would have stored.  Files under hidden folders
 * are the importer's to leave out: only it knows where the library starts.
 */
#ifndef FPMAP_H
#define FPMAP_H

#include "sbuf.h"

struct fpmap_opts {
	int extensionless;	/* plain text without an extension is a book
				 * (simbook index --extensionless) */
};

/* Appends the record line of the file at path (fpline.h, '\n' included)
 * to line.  0; or a one-line reason naming path in err (nothing appended
 * to line) and EXTRACT_NOTBOOK (not a book, a skipped kind, a symbolic
 * link) or a negative errno (cannot be read or fingerprinted). */
int fpmap_file(const char *path, const struct fpmap_opts *o, struct sbuf *line,
	       struct sbuf *err);

#endif
