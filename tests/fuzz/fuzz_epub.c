/* fuzz_epub.c - libFuzzer target: whole EPUB archives (libzip, package XML, content). */
#include <stddef.h>
#include <stdint.h>

#include "extract.h"
#include "norm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct extract_doc d;
	struct norm_doc n;

	extract_doc_init(&d);
	norm_doc_init(&n);
	if (!extract_buffer(data, size, "fuzz.epub", NULL, &d, NULL))
		extract_normalize(&d, &n);
	norm_doc_release(&n);
	extract_doc_release(&d);
	return 0;
}
