/* filekind.h - what a file that is not a book is, named by its content:
 * "CBZ comic archive", "DjVu document", "JPEG image", "MP3 audio",
 * "SQLite database", ..., so the user learns which files were never
 * compared and why.
 *
 * A small table of signatures (the first bytes, a few fixed offsets) with
 * the extension as a tie-breaker where one container holds several kinds
 * (a zip may be a comic archive, a RAR a CBR).  Pure and thread-safe: no
 * state, nothing read beyond the prefix given.
 */
#ifndef FILEKIND_H
#define FILEKIND_H

#include <stddef.h>

/* The kind of the file whose first len bytes are prefix (4 KiB is plenty;
 * fewer give a coarser answer) and whose name is name (NULL: content only):
 * a static string such as "CBZ comic archive", or NULL when the content
 * matches no signature of the table. */
const char *filekind_name(const void *prefix, size_t len, const char *name);

#endif
