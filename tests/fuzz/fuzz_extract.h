/* fuzz_extract.h - the body of the extraction fuzz targets (fuzz_txt,
 * fuzz_html, fuzz_epub, fuzz_mobi, fuzz_pdf, fuzz_fb2, fuzz_docx, fuzz_odt,
 * fuzz_rtf): the input as a
 * whole file named name, whose extension picks the extractor, through
 * extraction and normalisation. */
#ifndef SIMBOOK_FUZZ_EXTRACT_H
#define SIMBOOK_FUZZ_EXTRACT_H

#include <stddef.h>
#include <stdint.h>

#include "extract.h"
#include "norm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline int fuzz_extract(const uint8_t *data, size_t size, const char *name)
{
	struct extract_doc d;
	struct norm_doc n;

	extract_doc_init(&d);
	norm_doc_init(&n);
	if (!extract_buffer(data, size, name, NULL, &d, NULL))
		extract_normalize(&d, &n);
	norm_doc_release(&n);
	extract_doc_release(&d);
	return 0;
}

#endif
