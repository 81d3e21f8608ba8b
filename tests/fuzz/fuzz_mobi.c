/* fuzz_mobi.c - libFuzzer target: whole MOBI/AZW3/PalmDOC files (the Palm
 * record checks, libmobi's decompression and KF8 reassembly, the markup). */
#include "fuzz_extract.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_extract(data, size, "fuzz.mobi");
}
