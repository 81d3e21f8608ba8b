/* fuzz_pdf.c - libFuzzer target: whole PDF files (poppler's parser and text
 * layer, then the header/hyphenation/paragraph rules of pdftext.c). */
#include "fuzz_extract.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_extract(data, size, "fuzz.pdf");
}
