/* fuzz_fb2.c - libFuzzer target: whole FB2 files (XML, or a zip holding a .fb2). */
#include "fuzz_extract.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_extract(data, size, "fuzz.fb2");
}
