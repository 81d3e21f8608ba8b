/* bookfile.h - reading a book's file and the calibre metadata.opf beside
 * it, as every writer of the index does (the indexer's workers and the
 * record mapper of `simbook fingerprint --records`), so that both store
 * the same record for the same file.
 *
 * Ownership: buffers and strings returned are malloc'd and the caller's.
 * Errors: -errno. */
#ifndef BOOKFILE_H
#define BOOKFILE_H

#include <stddef.h>
#include <stdint.h>

#include "book.h"

/* A calibre metadata.opf is a few KiB; a larger one is not read. */
#define BOOKFILE_OPF_MAX (1u << 20)

/* Reads fd from offset 0 into *buf (*len bytes), at most max + 1 bytes, so
 * that *len > max tells a file over the limit.  hint: the size the file
 * had (the buffer starts there, so an unchanged file is read without a
 * copy).  0, -ENOMEM or the read's -errno. */
int bookfile_read(int fd, uint64_t max, uint64_t hint, char **buf, size_t *len);

/* The title and first author (*author NULL when none) of the metadata.opf
 * in the folder of path (a file's path, relative to dirfd or absolute; its
 * last component is dropped).  1 when found, 0 when there is no readable
 * metadata.opf with a title there, -ENOMEM. */
int bookfile_opf(int dirfd, const char *path, char **title, char **author);

/* A book in a calibre book folder takes the title and first author of the
 * metadata.opf beside it (b->opf_title, b->opf_author): what the user typed
 * in calibre, where the file's own (a PDF's Info title, a converted file's
 * name) is often a file name.  Any failure keeps the book's own only. */
void bookfile_calibre(int dirfd, const char *path, struct book *b);

#endif
