/* bookfile.c - a book's file and its metadata.opf, read as every writer of
 * the index reads them (bookfile.h). */
#include "bookfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "extract.h"

int bookfile_read(int fd, uint64_t max, uint64_t hint, char **buf, size_t *len)
{
	uint64_t want = hint < 65536 ? 65536 : hint;
	size_t cap = (size_t)(want < max ? want : max) + 1, n = 0;
	char *p = malloc(cap), *np;
	ssize_t r;

	if (!p)
		return -ENOMEM;
	for (;;) {
		if (n == cap) {
			if (n > max)
				break;
			cap = cap * 2 > max + 1 ? (size_t)max + 1 : cap * 2;
			np = realloc(p, cap);
			if (!np) {
				free(p);
				return -ENOMEM;
			}
			p = np;
		}
		r = pread(fd, p + n, cap - n, (off_t)n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			free(p);
			return -errno;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	*buf = p;
	*len = n;
	return 0;
}

int bookfile_opf(int dirfd, const char *path, char **title, char **author)
{
	const char *slash = strrchr(path, '/');
	struct extract_doc doc;
	struct stat sb;
	char *opf = NULL, *data = NULL;
	size_t len = 0;
	int fd, ret = 0;

	*title = *author = NULL;
	extract_doc_init(&doc);
	if (asprintf(&opf, "%.*smetadata.opf", slash ? (int)(slash - path + 1) : 0, path) < 0)
		return -ENOMEM;
	fd = openat(dirfd, opf, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	free(opf);
	if (fd < 0)
		return 0;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && (uint64_t)sb.st_size <= BOOKFILE_OPF_MAX &&
	    bookfile_read(fd, BOOKFILE_OPF_MAX, (uint64_t)sb.st_size, &data, &len) == 0 &&
	    len <= BOOKFILE_OPF_MAX &&
	    extract_opf_meta(data, len, &doc) == 0 && doc.title && *doc.title) {
		*title = strdup(doc.title);
		*author = doc.creators.n && *doc.creators.v[0] ? strdup(doc.creators.v[0]) : NULL;
		ret = 1;
		if (!*title || (doc.creators.n && *doc.creators.v[0] && !*author)) {
			free(*title);
			free(*author);
			*title = *author = NULL;
			ret = -ENOMEM;
		}
	}
	free(data);
	extract_doc_release(&doc);
	close(fd);
	return ret;
}

void bookfile_calibre(int dirfd, const char *path, struct book *b)
{
	char *title, *author;

	if (bookfile_opf(dirfd, path, &title, &author) == 1) {
		free(b->opf_title);
		free(b->opf_author);
		b->opf_title = title;
		b->opf_author = author;
	}
}
