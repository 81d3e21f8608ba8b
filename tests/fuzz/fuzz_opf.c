/* fuzz_opf.c - libFuzzer target: the input is the OPF package document of
 * an otherwise valid EPUB built in memory, so mutations go straight to the
 * package parser (metadata, manifest, href resolution, spine).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

#include "extract.h"
#include "norm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char container[] =
	"<?xml version=\"1.0\"?><container version=\"1.0\" "
	"xmlns=\"urn:oasis:names:tc:opendocument:xmlns:container\"><rootfiles>"
	"<rootfile full-path=\"OPS/p.opf\" media-type=\"application/oebps-package+xml\"/>"
	"</rootfiles></container>";
static const char chapter[] = "<html><body><p>Some text.</p></body></html>";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	zip_source_t *src = zip_source_buffer_create(NULL, 0, 0, NULL);
	struct extract_doc d;
	zip_int64_t len;
	zip_t *za;
	char *buf;

	if (!src)
		return 0;
	zip_source_keep(src);
	za = zip_open_from_source(src, ZIP_TRUNCATE, NULL);
	if (!za) {
		zip_source_free(src);
		return 0;
	}
	zip_file_add(za, "mimetype", zip_source_buffer(za, "application/epub+zip", 20, 0), 0);
	zip_file_add(za, "META-INF/container.xml", zip_source_buffer(za, container, strlen(container), 0), 0);
	zip_file_add(za, "OPS/p.opf", zip_source_buffer(za, data, size, 0), 0);
	zip_file_add(za, "OPS/c1.xhtml", zip_source_buffer(za, chapter, strlen(chapter), 0), 0);
	zip_file_add(za, "OPS/a b.html", zip_source_buffer(za, chapter, strlen(chapter), 0), 0);
	if (zip_close(za) || zip_source_open(src)) {
		zip_source_free(src);
		return 0;
	}
	zip_source_seek(src, 0, SEEK_END);
	len = zip_source_tell(src);
	zip_source_seek(src, 0, SEEK_SET);
	buf = malloc((size_t)len);
	if (buf && zip_source_read(src, buf, (zip_uint64_t)len) == len) {
		extract_doc_init(&d);
		extract_buffer(buf, (size_t)len, "fuzz.epub", NULL, &d, NULL);
		extract_doc_release(&d);
	}
	free(buf);
	zip_source_close(src);
	zip_source_free(src);
	return 0;
}
