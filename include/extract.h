/* extract.h - book files (plain text, HTML, EPUB 2/3, MOBI/AZW3, PDF, FB2,
 * DOCX, ODT, RTF) to UTF-8 text, chunk boundaries and metadata, safely.
 *
 * The extractor only reads: it never writes, never follows a path out of an
 * archive, loads nothing from the network or from other files (libxml2 is
 * configured without external entities, DTD loading or entity expansion
 * beyond the predefined/HTML set), and bounds every resource by a limit in
 * struct extract_limits.  Every refusal comes back as a negative errno plus a
 * one-line reason that names the file.
 *
 * All functions may be called from several threads at once (each call owns
 * its state; libxml2 is initialised once, and its external-entity loader is
 * replaced process-wide by one that refuses everything).
 *
 * Error codes (return values of extract_file / extract_buffer):
 *   0              extracted (doc->warnings may list what was skipped)
 *   EXTRACT_NOTBOOK (-EMEDIUMTYPE)  not a book: unknown or binary content,
 *                  empty file, not a regular file, a zip that is not an
 *                  EPUB; the indexer skips these quietly
 *   -EFBIG         a limit was exceeded (file size, uncompressed bytes,
 *                  compression ratio, entries, text length, nesting depth)
 *   -ETIMEDOUT     the time limit per file was exceeded
 *   -EBADMSG       corrupt: bad or truncated zip, CRC or size mismatch,
 *                  overlapping entries, no readable text in an EPUB, a
 *                  damaged PDF or one without a text layer (a scan)
 *   -EACCES        DRM or zip encryption on the content documents, a
 *                  password-protected PDF
 *   -ENOMEM, or the errno of open/read/stat (-ENOENT, -ELOOP, -EISDIR, ...)
 */
#ifndef EXTRACT_H
#define EXTRACT_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "norm.h"
#include "sbuf.h"

#define EXTRACT_NOTBOOK (-EMEDIUMTYPE)

enum extract_format {
	EXTRACT_FMT_UNKNOWN = 0,	/* not a book */
	EXTRACT_FMT_TXT,
	EXTRACT_FMT_HTML,
	EXTRACT_FMT_EPUB,
	/* Stored in the index (bookrec.h): append, never renumber. */
	EXTRACT_FMT_MOBI,	/* MOBI, AZW3/KF8, PRC/PDB */
	EXTRACT_FMT_PDF,
	EXTRACT_FMT_FB2,	/* FictionBook 2, also zipped (.fb2.zip) */
	EXTRACT_FMT_DOCX,
	EXTRACT_FMT_ODT,
	EXTRACT_FMT_RTF,
};

/* Every limit applies to one file.  Defaults (extract_limits_default()) are
 * in brackets; they keep any single file within about 1 s and 64 MB. */
struct extract_limits {
	uint64_t max_plain_bytes;	/* size of a .txt/.html file [32 MiB] */
	uint64_t max_archive_bytes;	/* size of an EPUB file [1 GiB]; only the
					 * entries needed are read */
	uint64_t max_unzipped_bytes;	/* total bytes inflated from one archive
					 * [64 MiB], whatever the entries declare */
	uint64_t max_entry_bytes;	/* one content document unpacked [16 MiB] */
	uint64_t max_meta_bytes;	/* container.xml, OPF, encryption.xml,
					 * each [4 MiB] */
	uint32_t max_entries;		/* entries in the central directory, pages
					 * of a PDF [10000] */
	uint32_t max_ratio;		/* uncompressed/compressed size of an entry,
					 * checked once it passes 1 MiB [100];
					 * text deflates 3-10x, zeros 1000x */
	uint32_t max_depth;		/* XML/HTML element nesting [256] */
	uint64_t max_text_bytes;	/* extracted UTF-8 text [32 MiB] */
	uint32_t max_millis;		/* CPU time of the extracting thread per
					 * file [5000] (CPU time: a busy machine
					 * or a nice worker must not fail books) */
	uint32_t millis_per_mib;	/* more time per MiB of the file [500],
					 * for big PDFs (poppler reads ~3-5 MB/s);
					 * in all at most 12 x max_millis */
};

/* A list of owned NUL-terminated strings. */
struct extract_strv {
	char **v;
	size_t n;
};

struct extract_doc {
	enum extract_format format;
	/* Valid UTF-8, NUL-terminated, "\n" line ends; paragraphs separated by
	 * "\n\n"; chunks separated by "\n\n".  Owned. */
	struct sbuf text;
	/* Byte offsets in text of each chunk's start, ascending, owned: one per
	 * EPUB content document that yielded text (or per (X)HTML entry in
	 * fallback order), one for an HTML file, one per MOBI/KF8 part, per run
	 * of PDF pages holding about 8 KiB of text, per FB2 top-level section,
	 * per DOCX/ODT level-1 heading, per RTF \page or \sect; none for plain
	 * text. */
	size_t *chunk_off;
	size_t nchunks;
	/* Metadata, each owned, NULL/empty when unknown, from what each format
	 * has (docs/EXTRACT.md lists them): EPUB's OPF, HTML's <title>, <meta
	 * name="author"> and <html lang>, plain text's Project Gutenberg header
	 * lines, MOBI's EXTH records, PDF's Info dictionary, FB2's
	 * <title-info>, DOCX's core and ODT's meta properties, RTF's \info. */
	char *title;
	struct extract_strv creators;
	char *language;
	struct extract_strv identifiers;
	char *isbn;		/* ISBN-13 or ISBN-10 digits (checksum-valid), if any */
	const char *charset;	/* static: source encoding of plain text/HTML
				 * ("UTF-8", "UTF-16LE", "WINDOWS-1252", ...) */
	/* One line each, e.g. "broken EPUB (no META-INF/container.xml): fell
	 * back to archive order", "skipped encrypted entry OEBPS/x.html". */
	struct extract_strv warnings;
};

/* Fills *lim with the defaults above. */
void extract_limits_default(struct extract_limits *lim);

/* Makes an empty doc (safe to release). */
void extract_doc_init(struct extract_doc *doc);
/* Frees everything doc owns and leaves it empty. */
void extract_doc_release(struct extract_doc *doc);

/* Extracts the book at path.  lim NULL means the defaults.  doc must be
 * empty (extract_doc_init); on error it is left empty.  On failure, when err
 * is not NULL, a one-line reason is appended, starting with path
 * ("PATH: not a book (binary content)").  The path is stat()ed first
 * (symlinks are followed; a loop gives -ELOOP): FIFOs, devices, sockets and
 * directories are refused as EXTRACT_NOTBOOK without being opened.  Only
 * the first 4 KiB are read before the format is known, so unknown and
 * binary files are skipped cheaply.  Returns 0 or a code above. */
int extract_file(const char *path, const struct extract_limits *lim,
		 struct extract_doc *doc, struct sbuf *err);

/* The same on a buffer in memory (tests, fuzzing, files already read).  name
 * is used for messages and as the extension hint; it may be NULL (content
 * only).  data is not kept after the call. */
int extract_buffer(const void *data, size_t len, const char *name,
		   const struct extract_limits *lim, struct extract_doc *doc,
		   struct sbuf *err);

/* Guesses the format from a prefix of the file (the first 4 KiB are enough)
 * and its name (NULL: content only), cheaply and without reading more:
 * EXTRACT_FMT_UNKNOWN means "not a book" (binary, or an extension that is
 * not a book's for text that is not markup).  A zip named .epub or holding
 * "mimetype" = application/epub+zip first is EXTRACT_FMT_EPUB; "%PDF-" at
 * the start (or in the first KiB of a file named .pdf) is EXTRACT_FMT_PDF. */
enum extract_format extract_sniff(const void *prefix, size_t len, const char *name);

/* The largest file of format fmt that lim lets through: max_plain_bytes
 * for plain text and HTML, max_archive_bytes for every other format (their
 * files hold images and containers beside the text). */
uint64_t extract_max_file_bytes(const struct extract_limits *lim, enum extract_format fmt);
/* "txt", "html", "epub", "mobi", "pdf", "fb2", "docx", "odt", "rtf" or
 * "unknown"; static. */
const char *extract_format_name(enum extract_format fmt);

/* The fingerprint input of an extracted book: norm_book() over doc->text
 * with doc's chunks.  out must be empty; see norm.h for ownership/errors. */
int extract_normalize(const struct extract_doc *doc, struct norm_doc *out);

#endif
