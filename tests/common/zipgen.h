/* zipgen.h - zip archives built in memory for the extraction tests and the
 * fuzz targets (EPUB, DOCX, ODT, FB2 in zip), with libzip.  "mimetype" is
 * stored uncompressed as EPUB and ODT require; every entry is dated
 * 2020-01-01 so the bytes do not depend on the clock. */
#ifndef SIMBOOK_TEST_ZIPGEN_H
#define SIMBOOK_TEST_ZIPGEN_H

#include <stdio.h>
#include <string.h>
#include <zip.h>

#include "sbuf.h"

struct zipgen_entry {
	const char *name;
	const void *data;	/* len bytes, not copied: kept until the call returns */
	size_t len;
};

/* Replaces out's content with a zip of the n entries, in order.  0 or -1. */
static inline int zipgen_build(struct sbuf *out, const struct zipgen_entry *e, size_t n)
{
	zip_source_t *src = zip_source_buffer_create(NULL, 0, 0, NULL);
	zip_t *za = NULL;
	zip_int64_t sz;
	int ret = -1, opened = 0;
	size_t i;

	if (!src)
		return -1;
	zip_source_keep(src);
	za = zip_open_from_source(src, ZIP_TRUNCATE, NULL);
	if (!za)
		goto out;
	for (i = 0; i < n; i++) {
		zip_source_t *s = zip_source_buffer(za, e[i].data, e[i].len, 0);
		zip_int64_t idx = s ? zip_file_add(za, e[i].name, s, 0) : -1;

		if (idx < 0) {
			zip_source_free(s);
			goto out;
		}
		zip_file_set_mtime(za, (zip_uint64_t)idx, 1577836800, 0);
		if (!strcmp(e[i].name, "mimetype"))
			zip_set_file_compression(za, (zip_uint64_t)idx, ZIP_CM_STORE, 0);
	}
	if (zip_close(za))
		goto out;
	za = NULL;
	if (zip_source_open(src))
		goto out;
	opened = 1;
	zip_source_seek(src, 0, SEEK_END);
	sz = zip_source_tell(src);
	zip_source_seek(src, 0, SEEK_SET);
	sbuf_setlen(out, 0);
	if (sz < 0 || sbuf_grow(out, (size_t)sz) ||
	    zip_source_read(src, out->buf, (zip_uint64_t)sz) != sz)
		goto out;
	out->len = (size_t)sz;
	out->buf[out->len] = '\0';
	ret = 0;
out:
	if (za)
		zip_discard(za);
	if (opened)
		zip_source_close(src);
	zip_source_free(src);
	return ret;
}

/* The same from n (name, NUL-terminated content) pairs: kv[2i], kv[2i+1]. */
static inline int zipgen_strs(struct sbuf *out, const char *const *kv, size_t n)
{
	struct zipgen_entry e[64];
	size_t i;

	if (n > sizeof(e) / sizeof(e[0]))
		return -1;
	for (i = 0; i < n; i++)
		e[i] = (struct zipgen_entry){ kv[2 * i], kv[2 * i + 1], strlen(kv[2 * i + 1]) };
	return zipgen_build(out, e, n);
}

#endif
