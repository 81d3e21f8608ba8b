/* fuzz_opf.c - libFuzzer target: the input is the OPF package document of
 * an otherwise valid EPUB built in memory, so mutations go straight to the
 * package parser (metadata, manifest, href resolution, spine).
 */
#include <stdint.h>
#include <stddef.h>

#include "extract.h"
#include "sbuf.h"
#include "zipgen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char container[] =
	"<?xml version=\"1.0\"?><container version=\"1.0\" "
	"xmlns=\"urn:oasis:names:tc:opendocument:xmlns:container\"><rootfiles>"
	"<rootfile full-path=\"OPS/p.opf\" media-type=\"application/oebps-package+xml\"/>"
	"</rootfiles></container>";
static const char chapter[] = "<html><body><p>Some text.</p></body></html>";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct zipgen_entry e[] = {
		{ "mimetype", "application/epub+zip", 20 },
		{ "META-INF/container.xml", container, sizeof(container) - 1 },
		{ "OPS/p.opf", data, size },
		{ "OPS/c1.xhtml", chapter, sizeof(chapter) - 1 },
		{ "OPS/a b.html", chapter, sizeof(chapter) - 1 },
	};
	struct extract_doc d;
	struct sbuf zip;

	sbuf_init(&zip);
	if (!zipgen_build(&zip, e, sizeof(e) / sizeof(e[0]))) {
		extract_doc_init(&d);
		extract_buffer(zip.buf, zip.len, "fuzz.epub", NULL, &d, NULL);
		extract_doc_release(&d);
	}
	sbuf_release(&zip);
	return 0;
}
