/* fuzz_norm.c - libFuzzer target: normalisation of arbitrary bytes, with
 * chunk offsets taken from the input; checks the output invariants.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "norm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct norm_doc n;
	size_t off[4] = { 0, size / 4, size / 2, size };
	size_t i;

	norm_doc_init(&n);
	if (norm_book((const char *)data, size, off, 4, &n))
		return 0;
	/* one space between words, none at the ends, offsets consistent */
	if (n.len && (n.text[0] == ' ' || n.text[n.len - 1] == ' ' || strstr(n.text, "  ")))
		abort();
	if (strlen(n.text) != n.len)
		abort();
	for (i = 0; i < n.nwords; i++)
		if (n.word_off[i] >= n.len || (i && n.text[n.word_off[i] - 1] != ' '))
			abort();
	for (i = 1; i < n.nchunks; i++)
		if (n.chunk_word[i] < n.chunk_word[i - 1] || n.chunk_word[i] > n.nwords)
			abort();
	norm_doc_release(&n);
	return 0;
}
