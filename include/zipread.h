/* zipread.h - reading a zip archive inside an extraction (EPUB, DOCX, ODT,
 * zipped FB2) within the limits of struct extract_limits.
 *
 * Every entry goes through zipread_entry(), which enforces the archive-wide
 * inflate budget (max_unzipped_bytes), the compression-ratio limit and the
 * time limit while inflating, whatever sizes the archive declares, so zip
 * bombs (one entry or many overlapping ones) stop at the budget.  Private
 * to the extraction modules of src/core, like extract_i.h.
 */
#ifndef ZIPREAD_H
#define ZIPREAD_H

#include <stddef.h>
#include <stdint.h>

#include "extract_i.h"
#include "sbuf.h"

struct zip;
struct _xmlDoc;

/* One open archive; owned by the caller's stack frame, released with
 * zipread_close(). */
struct zipread {
	struct ex_ctx *ctx;
	struct zip *za;		/* libzip handle, NULL when closed */
	uint64_t unzipped;	/* bytes inflated so far, against the budget */
	uint64_t archive_size;
	int64_t nentries;
};

/* Opens data[0..len) or, when data is NULL, the open file fd (duplicated,
 * so the caller keeps fd) of len bytes, with libzip's consistency checks
 * (an archive failing only those is opened again without them, with a
 * warning), then checks the central directory: entry count against
 * max_entries, overlapping entries.  Returns 0, -EBADMSG (not a valid zip,
 * overlap), -EFBIG, -ENOMEM, with the reason set. */
int zipread_open(struct zipread *z, struct ex_ctx *ctx, const void *data, size_t len, int fd);

/* Closes the archive (safe on a zeroed or closed struct). */
void zipread_close(struct zipread *z);

/* Index of the entry named name (exact, then ignoring case), or -1. */
int64_t zipread_locate(struct zipread *z, const char *name);

/* The name of entry idx (owned by the archive, valid until it is closed),
 * or NULL. */
const char *zipread_name(struct zipread *z, uint64_t idx);

/* Reads entry idx whole into out (replacing its contents, NUL-terminated),
 * within the budget and the ratio and time limits.  cap: a tighter size
 * limit for this entry (0: none).  Returns 0, -EFBIG, -EBADMSG (corrupt,
 * CRC, size mismatch), -EACCES (zip encryption), -ETIMEDOUT, -ENOMEM, with
 * the reason set. */
int zipread_entry(struct zipread *z, uint64_t idx, uint64_t cap, struct sbuf *out);

/* Parses the small XML entry path (a package or metadata file: at most
 * max_meta_bytes) into a tree *doc (free with xmlFreeDoc), with
 * XML_PARSE_NONET, without entity substitution or DTD loading, recovering
 * from errors.  Returns 0; -ENOENT when there is no such entry; -EINVAL,
 * with a warning, when it declares entities or is not XML; the errors of
 * zipread_entry() with the reason set. */
int zipread_xml(struct zipread *z, const char *path, struct _xmlDoc **doc);

#endif
