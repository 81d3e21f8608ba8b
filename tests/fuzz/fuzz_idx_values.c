/* fuzz_idx_values.c - libFuzzer target: hostile bytes stored in the index.
 *
 * The input is split into a table number, a key and a value that are
 * written raw into one of the index's tables, next to a few real books; then
 * every read and a few writes run over it.  Nothing may crash or leak.  The
 * environment lives for the whole fuzzing run (under $TMPDIR, default /tmp)
 * and is refilled when it gets large.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "idx_test.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct idx *ix;
static char dir[PATH_MAX];
static unsigned rounds;

static void cleanup(void)
{
	char cmd[PATH_MAX + 16];

	idx_close(ix);
	ix = NULL;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (dir[0] && system(cmd) != 0)
		fprintf(stderr, "fuzz_idx_values: could not remove %s\n", dir);
}

static void reset(void)
{
	static const char *const paths[] = { "a/one.txt", "a/b/two.epub", "three.html" };
	struct idx_stat st[3] = { { 10, 20, 30, 40, 50 }, { 11, 21, 31, 41, 51 },
				  { 12, 22, 32, 42, 52 } };
	uint64_t ids[3], mh[4] = { 1, 2, 3, 4 };
	struct idx_fp fp;
	char cmd[PATH_MAX + 16];
	size_t i;

	if (ix) {
		idx_close(ix);
		ix = NULL;
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			abort();
	} else {
		atexit(cleanup);
	}
	{
		const char *tmp = getenv("TMPDIR");

		snprintf(dir, sizeof(dir), "%s/fuzz_idx.%d", tmp && *tmp ? tmp : "/tmp", (int)getpid());
	}
	if (idx_open(&ix, dir, NULL) || idx_mark_queued(ix, paths, st, 1, ids) ||
	    idx_mark_queued(ix, paths + 1, st + 1, 2, ids + 1))
		abort();
	memset(&fp, 0, sizeof(fp));
	fp.mh_bands = mh;
	fp.n_mh_bands = 4;
	fp.rec = "record";
	fp.rec_len = 6;
	for (i = 0; i < 3; i++) {
		fp.simhash[i] = 1;
		if (idx_put(ix, ids[i], &st[i], &fp))
			abort();
	}
	idx_exempt_set(ix, paths[0], paths[1], 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const dbs[] = { "files", "ids", "book", "rec", "shband", "mhband",
					   "text", "exempt", "fail", "meta", "copies", "clusters" };
	struct idx_entry *ents;
	struct idx_file f, *errs;
	struct idx_hit *h;
	struct idx_pair *pairs;
	struct idx_groups g;
	struct idx_link_graph lg;
	struct idx_counts c;
	uint8_t sh[16] = { 1 };
	uint64_t *ids, mh[4] = { 1, 2, 3, 4 }, id;
	size_t n, klen, len;
	uint32_t ver;
	void *rec;

	if (!ix || ++rounds % 5000 == 0)
		reset();
	if (size < 3)
		return 0;
	klen = 1 + data[1] % 64;
	if (klen > size - 2)
		klen = size - 2;
	if (idx_debug_raw_put(ix, dbs[data[0] % (sizeof(dbs) / sizeof(dbs[0]))], data + 2, klen, data + 2 + klen,
			      size - 2 - klen) == -ENOSPC)
		reset();
	for (id = 0; id < 5; id++) {
		if (idx_get_id(ix, id, &f) == 0)
			idx_file_release(&f);
		if (idx_record(ix, id, &ver, &rec, &len) == 0)
			free(rec);
		if (idx_exempt_ids(ix, id, &ids, &n) == 0)
			free(ids);
		if (idx_copies(ix, id, &ids, &n) == 0)
			free(ids);
	}
	if (idx_get(ix, "a/one.txt", &f) == 0)
		idx_file_release(&f);
	if (idx_near(ix, sh, 7, &h, &n) == 0)
		free(h);
	if (idx_mh_candidates(ix, mh, 4, 1, &h, &n) == 0)
		free(h);
	if (idx_by_text_hash(ix, sh, &ids, &n) == 0)
		free(ids);
	if (idx_near_pairs(ix, 7, &pairs, &n) == 0)
		free(pairs);
	if (idx_clusters(ix, 7, &g) == 0)
		idx_groups_release(&g);
	if (idx_text_groups(ix, &g) == 0)
		idx_groups_release(&g);
	idx_link_graph(ix, &lg);	/* what clusters/ reads */
	idx_link_graph_release(&lg);
	if (idx_list(ix, "", 0, &ents, &n) == 0)
		idx_entries_free(ents, n);
	if (idx_list(ix, "a", IDX_LIST_RECURSIVE, &ents, &n) == 0)
		idx_entries_free(ents, n);
	if (idx_errors(ix, &errs, &n) == 0)
		idx_files_free(errs, n);
	idx_counts(ix, &c);
	idx_rename(ix, "a", "z", 0);
	idx_rename(ix, "z", "a", 0);
	return 0;
}
