/* fuzz_rtf.c - libFuzzer target: whole RTF files (groups, control words,
 * code pages, \u fallbacks, skipped destinations, \bin). */
#include "fuzz_extract.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_extract(data, size, "fuzz.rtf");
}
