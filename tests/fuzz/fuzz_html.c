/* fuzz_html.c - libFuzzer target: HTML to text (libxml2 SAX) and normalisation. */
#include "fuzz_extract.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_extract(data, size, "fuzz.html");
}
