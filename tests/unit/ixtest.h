/* ixtest.h - the fixture of the tests that run a whole indexer over a
 * folder (test_indexer, test_clusters): a SRC folder and an index folder of
 * the current test's own, a file writer and the id of an indexed path. */
#ifndef SIMBOOK_TEST_IXTEST_H
#define SIMBOOK_TEST_IXTEST_H

#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

#include "check.h"
#include "idx_test.h"
#include "indexer.h"

static char src[PATH_MAX], ixdir[PATH_MAX];

/* Points src and ixdir into a new scratch folder (check_tmpdir(), so it
 * goes when the test returns) and makes src; the indexer makes ixdir.
 * Returns 0 or -1. */
static inline int ixtest_dirs(void)
{
	const char *d = check_tmpdir();

	if (!d)
		return -1;
	snprintf(src, sizeof(src), "%s/src", d);
	snprintf(ixdir, sizeof(ixdir), "%s/index", d);
	return mkdir(src, 0700);
}

/* Writes text to src/rel (errors show up as a missing book later). */
static inline void ixtest_put(const char *rel, const char *text)
{
	char path[PATH_MAX + 256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", src, rel);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* The id of the book at path, 0 if it has no fingerprint (yet). */
static inline uint64_t ixtest_id_of(struct indexer *ixr, const char *path)
{
	struct idx_file f = { 0 };
	uint64_t id = 0;

	if (idx_get(indexer_idx(ixr), path, &f) == 0 && f.has_fp)
		id = f.id;
	idx_file_release(&f);
	return id;
}

#endif
