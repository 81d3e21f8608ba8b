/* fuzz_odt.c - libFuzzer target: whole ODT files (libzip, package XML, content). */
#include "fuzz_extract.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_extract(data, size, "fuzz.odt");
}
