/* fuzz_names.c - libFuzzer target: the two text analyses behind other
 * translations, on arbitrary bytes (invalid UTF-8, NULs, no sentence end):
 * the names sketch must be a function of the text (the same twice, every
 * slot shared with itself) and the language answers must be codes of two
 * lowercase letters or "", never crash or read past the input.
 *
 *   make fuzz && build-fuzz/fuzz/fuzz_names -max_total_time=60 CORPUS_DIR */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lang.h"
#include "names.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* "" or two lowercase ASCII letters. */
static int code_ok(const char *c)
{
	return c && (!*c || (c[0] >= 'a' && c[0] <= 'z' && c[1] >= 'a' && c[1] <= 'z' && !c[2]));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct names_sketch a, b;
	const char *l;
	char *decl;
	size_t n;

	if (names_sketch((const char *)data, size, &a) != 0 ||
	    names_sketch((const char *)data, size, &b) != 0)
		abort();
	if (memcmp(&a, &b, sizeof(a)))
		abort();
	if (names_shared(&a, &b) != (a.nkeys >= NAMES_MIN_KEYS ? NAMES_SLOTS : 0u))
		abort();
	l = lang_detect((const char *)data, size);
	if (!code_ok(l) || strcmp(l, lang_detect((const char *)data, size)))
		abort();
	if (lang_differ(l, l))
		abort();
	/* a declared language is a short NUL-terminated string */
	n = size < 64 ? size : 64;
	decl = malloc(n + 1);
	if (!decl)
		return 0;
	memcpy(decl, data, n);
	decl[n] = '\0';
	if (!code_ok(lang_code(decl)))
		abort();
	free(decl);
	return 0;
}
