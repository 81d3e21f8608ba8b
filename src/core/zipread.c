/* zipread.c - zip archives for the extractors, within the extraction limits
 * (see zipread.h): libzip opens and inflates, this module counts every byte.
 */
#include "zipread.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <zip.h>

#define RATIO_FLOOR (1u << 20)	/* entries smaller than this skip the ratio test */

static int zip_errno(int zep)
{
	return zep == ZIP_ER_MEMORY ? -ENOMEM : -EBADMSG;
}

int zipread_entry(struct zipread *z, uint64_t idx, uint64_t cap, struct sbuf *out)
{
	struct ex_ctx *ctx = z->ctx;
	const struct extract_limits *lim = ctx->lim;
	zip_stat_t st;
	zip_file_t *zf = NULL;
	uint64_t budget = lim->max_unzipped_bytes - z->unzipped, got = 0;
	const char *name;
	int ret = 0;

	sbuf_setlen(out, 0);
	if (cap && cap < budget)
		budget = cap;
	zip_stat_init(&st);
	if (zip_stat_index(z->za, idx, 0, &st))
		return ex_fail(ctx, -EBADMSG, "entry %llu: %s", (unsigned long long)idx,
			       zip_strerror(z->za));
	name = (st.valid & ZIP_STAT_NAME) ? st.name : "?";
	if ((st.valid & ZIP_STAT_ENCRYPTION_METHOD) && st.encryption_method != ZIP_EM_NONE)
		return ex_fail(ctx, -EACCES, "entry %s is encrypted", name);
	if ((st.valid & ZIP_STAT_COMP_METHOD) &&
	    !zip_compression_method_supported(st.comp_method, 0))
		return ex_fail(ctx, -EBADMSG, "entry %s uses unsupported compression method %u",
			       name, (unsigned)st.comp_method);
	if (!(st.valid & ZIP_STAT_SIZE) || !(st.valid & ZIP_STAT_COMP_SIZE))
		return ex_fail(ctx, -EBADMSG, "entry %s has no size", name);
	if (st.size > budget)
		return ex_fail(ctx, -EFBIG, "entry %s declares %llu bytes, over the unpacking "
			       "limit of %llu", name, (unsigned long long)st.size,
			       (unsigned long long)budget);
	if (st.size > RATIO_FLOOR && st.size / (st.comp_size ? st.comp_size : 1) > lim->max_ratio)
		return ex_fail(ctx, -EFBIG, "entry %s: compression ratio over %u (zip bomb?)",
			       name, lim->max_ratio);
	zf = zip_fopen_index(z->za, idx, 0);
	if (!zf)
		return ex_fail(ctx, zip_errno(zip_error_code_zip(zip_get_error(z->za))),
			       "entry %s: %s", name, zip_strerror(z->za));
	for (;;) {
		zip_int64_t n;

		ret = sbuf_grow(out, 65536);
		if (ret) {
			ex_fail(ctx, ret, "out of memory");
			goto out;
		}
		n = zip_fread(zf, out->buf + out->len, 65536);
		if (n < 0) {
			ret = ex_fail(ctx, zip_errno(zip_error_code_zip(zip_file_get_error(zf))),
				      "entry %s: %s", name, zip_file_strerror(zf));
			goto out;
		}
		if (!n)
			break;
		got += (uint64_t)n;
		out->len += (size_t)n;	/* sbuf_grow() made room for it and the NUL */
		out->buf[out->len] = '\0';
		if (got > budget || got > st.size) {
			ret = ex_fail(ctx, got > st.size ? -EBADMSG : -EFBIG,
				      got > st.size ? "entry %s: more data than its declared size" :
				      "entry %s: over the unpacking limit", name);
			goto out;
		}
		if (got > RATIO_FLOOR && got / (st.comp_size ? st.comp_size : 1) > lim->max_ratio) {
			ret = ex_fail(ctx, -EFBIG, "entry %s: compression ratio over %u (zip bomb?)",
				      name, lim->max_ratio);
			goto out;
		}
		ret = ex_check_time(ctx);
		if (ret)
			goto out;
	}
	if (got != st.size)
		ret = ex_fail(ctx, -EBADMSG, "entry %s: %llu bytes instead of the declared %llu",
			      name, (unsigned long long)got, (unsigned long long)st.size);
out:
	z->unzipped += got;
	zip_fclose(zf);
	return ret;
}

int64_t zipread_locate(struct zipread *z, const char *name)
{
	zip_int64_t idx = zip_name_locate(z->za, name, 0);

	if (idx < 0)
		idx = zip_name_locate(z->za, name, ZIP_FL_NOCASE);
	return idx < 0 ? -1 : idx;
}

const char *zipread_name(struct zipread *z, uint64_t idx)
{
	return zip_get_name(z->za, idx, 0);
}

static int check_directory(struct zipread *z)
{
	struct ex_ctx *ctx = z->ctx;
	uint64_t comp = 0;
	zip_int64_t i;
	zip_stat_t st;

	z->nentries = zip_get_num_entries(z->za, 0);
	if (z->nentries < 0)
		return ex_fail(ctx, -EBADMSG, "cannot list the archive");
	if ((uint64_t)z->nentries > ctx->lim->max_entries)
		return ex_fail(ctx, -EFBIG, "%lld entries, over the limit of %u",
			       (long long)z->nentries, ctx->lim->max_entries);
	/* Entries whose data overlap (the "overlapping files" zip bomb) claim
	 * more compressed bytes than the archive holds. */
	for (i = 0; i < z->nentries; i++) {
		zip_stat_init(&st);
		if (zip_stat_index(z->za, (zip_uint64_t)i, 0, &st))
			return ex_fail(ctx, -EBADMSG, "entry %lld: %s", (long long)i, zip_strerror(z->za));
		if (st.valid & ZIP_STAT_COMP_SIZE)
			comp += st.comp_size;
	}
	if (comp > z->archive_size)
		return ex_fail(ctx, -EBADMSG, "entries overlap: %llu compressed bytes in a %llu-byte "
			       "archive (zip bomb?)", (unsigned long long)comp,
			       (unsigned long long)z->archive_size);
	return 0;
}

static int open_archive(struct zipread *z, const void *data, size_t len, int fd)
{
	int pass, zep = 0;

	for (pass = 0; pass < 2 && !z->za; pass++) {
		int flags = pass ? 0 : ZIP_CHECKCONS;

		if (data) {
			zip_error_t ze;
			zip_source_t *src;

			zip_error_init(&ze);
			src = zip_source_buffer_create(data, len, 0, &ze);
			if (src) {
				z->za = zip_open_from_source(src, ZIP_RDONLY | flags, &ze);
				if (!z->za)
					zip_source_free(src);
			}
			zep = zip_error_code_zip(&ze);
			zip_error_fini(&ze);
		} else {
			int d = dup(fd);

			if (d < 0)
				return ex_fail(z->ctx, -errno, "dup: %s", strerror(errno));
			z->za = zip_fdopen(d, flags, &zep);
			if (!z->za)
				close(d);
		}
		if (!z->za && zep != ZIP_ER_INCONS)
			break;
		if (z->za && pass)
			ex_warn(z->ctx, "zip headers are inconsistent; read with per-entry checks");
	}
	if (!z->za) {
		zip_error_t ze;
		int ret;

		zip_error_init_with_code(&ze, zep);
		ret = ex_fail(z->ctx, zip_errno(zep), "not a valid zip archive: %s",
			      zip_error_strerror(&ze));
		zip_error_fini(&ze);
		return ret;
	}
	return 0;
}

int zipread_open(struct zipread *z, struct ex_ctx *ctx, const void *data, size_t len, int fd)
{
	int ret;

	memset(z, 0, sizeof(*z));
	z->ctx = ctx;
	z->archive_size = len;
	ret = open_archive(z, data, len, fd);
	if (!ret)
		ret = check_directory(z);
	return ret;
}

int zipread_xml(struct zipread *z, const char *path, xmlDocPtr *doc)
{
	struct sbuf buf = { 0 };
	int64_t idx;
	int ret;

	*doc = NULL;
	sbuf_init(&buf);
	idx = zipread_locate(z, path);
	if (idx < 0)
		return -ENOENT;
	ret = zipread_entry(z, (uint64_t)idx, z->ctx->lim->max_meta_bytes, &buf);
	if (ret)
		goto out;
	if (memmem(buf.buf, buf.len, "<!ENTITY", 8)) {
		ret = -EINVAL;
		ex_warn(z->ctx, "%s declares entities: ignored", path);
		goto out;
	}
	if (buf.len > INT_MAX) {
		ret = -EFBIG;
		goto out;
	}
	*doc = xmlReadMemory(buf.buf, (int)buf.len, NULL, NULL,
			     XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
			     XML_PARSE_RECOVER | XML_PARSE_NOCDATA);
	if (!*doc || !xmlDocGetRootElement(*doc)) {
		ret = -EINVAL;
		ex_warn(z->ctx, "%s is not well-formed XML", path);
	}
out:
	if (ret && *doc) {
		xmlFreeDoc(*doc);
		*doc = NULL;
	}
	sbuf_release(&buf);
	return ret;
}


void zipread_close(struct zipread *z)
{
	if (z->za)
		zip_discard(z->za);
	z->za = NULL;
}
