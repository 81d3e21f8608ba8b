/* fuzz_txt.c - libFuzzer target: plain-text decoding and normalisation. */
#include "fuzz_extract.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_extract(data, size, "fuzz.txt");
}
