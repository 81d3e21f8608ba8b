/* fpmap.c - a file to a record line, as the indexer fingerprints (fpmap.h). */
#include "fpmap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "book.h"
#include "bookfile.h"
#include "bookrec.h"
#include "extract.h"
#include "fpline.h"
#include "scan.h"

#define SNIFF_BYTES 4096	/* the indexer's sniffing prefix */

/* Whether the last component of path has no extension (COPYING, README). */
static int no_extension(const char *path)
{
	const char *base = strrchr(path, '/'), *dot;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	return !dot || dot == base;
}

/* The line of book b read from a file of stat sb. */
static int encode(const char *path, const struct stat *sb, const struct book *b,
		  struct sbuf *line)
{
	struct bookrec_fp rf;
	struct fpline r;
	int ret;

	ret = bookrec_fp_make(b, &rf);
	if (!ret) {
		r = (struct fpline){
			.path = (char *)path, .size = (uint64_t)sb->st_size,
			.mtime_ns = (int64_t)sb->st_mtim.tv_sec * 1000000000 + sb->st_mtim.tv_nsec,
			.rec_version = rf.fp.rec_version, .bands = (uint64_t *)rf.fp.mh_bands,
			.n_bands = rf.fp.n_mh_bands, .keys = (uint32_t *)rf.fp.uq_keys,
			.n_keys = rf.fp.n_uq_keys, .rec = (uint8_t *)rf.fp.rec,
			.rec_len = rf.fp.rec_len,
		};
		memcpy(r.simhash, rf.fp.simhash, sizeof(r.simhash));
		memcpy(r.text_hash, rf.fp.text_hash, sizeof(r.text_hash));
		ret = fpline_encode(&r, line);
	}
	bookrec_fp_release(&rf);
	return ret;
}

int fpmap_file(const char *path, const struct fpmap_opts *o, struct sbuf *line,
	       struct sbuf *err)
{
	struct extract_limits lim;
	struct book *b = NULL;
	struct stat sb;
	char head[SNIFF_BYTES], *data = NULL;
	enum extract_format fmt;
	size_t len = 0;
	uint64_t max;
	ssize_t n;
	int fd, ret;

	extract_limits_default(&lim);
	/* the scan leaves symbolic links out: so does the mapper */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		ret = errno == ELOOP ? EXTRACT_NOTBOOK : -errno;
		sbuf_addf(err, "%s: %s", path, ret == EXTRACT_NOTBOOK ?
			  "not a book (a symbolic link: the index leaves links out)" :
			  strerror(errno));
		return ret;
	}
	if (fstat(fd, &sb)) {
		ret = -errno;
		sbuf_addf(err, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(sb.st_mode)) {
		ret = S_ISDIR(sb.st_mode) ? -EISDIR : EXTRACT_NOTBOOK;
		sbuf_addf(err, "%s: %s", path, S_ISDIR(sb.st_mode) ? strerror(EISDIR) :
			  "not a book (not a regular file)");
		goto out;
	}
	n = pread(fd, head, sizeof(head), 0);
	if (n < 0) {
		ret = -errno;
		sbuf_addf(err, "%s: %s", path, strerror(errno));
		goto out;
	}
	/* non-books (pictures, videos) are never read whole */
	fmt = extract_sniff(head, (size_t)n, path);
	ret = EXTRACT_NOTBOOK;
	if (fmt == EXTRACT_FMT_UNKNOWN) {
		sbuf_addf(err, "%s: not a book (%s)", path,
			  extract_notbook_kind(head, (size_t)n, path));
		goto out;
	}
	if (fmt == EXTRACT_FMT_TXT && !o->extensionless && no_extension(path)) {
		sbuf_addf(err, "%s: not a book (%s)", path, SCAN_NOEXT_KIND);
		goto out;
	}
	max = extract_max_file_bytes(&lim, fmt);
	ret = bookfile_read(fd, max, (uint64_t)sb.st_size, &data, &len);
	if (!ret && len > max)
		ret = -EFBIG;
	if (ret) {
		sbuf_addf(err, "%s: %s", path, ret == -EFBIG ? "too large for its format" :
			  strerror(-ret));
		goto out;
	}
	ret = book_load_buffer(data, len, path, &lim, &b, err);
	if (ret) {
		if (!err->len)
			sbuf_addf(err, "%s: %s", path, strerror(-ret));
		goto out;
	}
	bookfile_calibre(AT_FDCWD, path, b);
	ret = encode(path, &sb, b, line);
	if (ret)
		sbuf_addf(err, "%s: cannot encode its record: %s", path, strerror(-ret));
out:
	book_free(b);
	free(data);
	close(fd);
	return ret;
}
