/* fuzz_idx_open.c - libFuzzer target: idx_open() over a damaged copy of a
 * small real index.
 *
 * A small index (books, records, marks, links) is built at the first call.
 * Each input is a recipe for damaging a copy of its data file: byte 0 says
 * whether the copy is put in place as data.mdb or as data.mdb.prev (the
 * set-aside file of a rebuild), byte 1 whether and where it is cut short,
 * then triples of a 16-bit page number, a byte offset and a byte to xor.
 * The open must not crash or hang (a damaged file is read only by child
 * processes), the index must answer and take writes, and a second open
 * must not rebuild again.  An open may refuse only a schema number the
 * flips turned into a newer version's.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "idx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t *pristine;
static size_t plen;
static char base[PATH_MAX];
static unsigned round_no;

static void rm_rf(const char *dir)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "fuzz_idx_open: could not remove %s\n", dir);
}

static void cleanup(void)
{
	if (base[0])
		rm_rf(base);
}

static void build(void)
{
	const char *tmp = getenv("TMPDIR");
	char dir[PATH_MAX + 16], path[64], rec[6000];
	const char *pp = path;
	uint64_t ids[24], mh[4];
	struct idx *ix = NULL;
	struct idx_fp fp;
	FILE *f;
	long n;
	int i;

	snprintf(base, sizeof(base), "%s/fuzz_idx_open.%d", tmp && *tmp ? tmp : "/tmp",
		 (int)getpid());
	snprintf(dir, sizeof(dir), "%s/seed", base);
	if (mkdir(base, 0700) || idx_open(&ix, dir, NULL))
		abort();
	atexit(cleanup);
	memset(rec, 'r', sizeof(rec));
	for (i = 0; i < 24; i++) {
		struct idx_stat st = { (uint64_t)i, i, i, (uint64_t)i + 10, 1 };

		snprintf(path, sizeof(path), "d%d/book%02d.txt", i % 3, i);
		memset(&fp, 0, sizeof(fp));
		fp.simhash[i % 16] = (uint8_t)(i + 1);
		fp.text_hash[0] = (uint8_t)i;
		mh[0] = 1;
		mh[1] = (uint64_t)i;
		mh[2] = (uint64_t)i % 4;
		mh[3] = 7;
		fp.mh_bands = mh;
		fp.n_mh_bands = 4;
		fp.rec = rec;
		fp.rec_len = i % 6 ? 200 : sizeof(rec);
		if (idx_mark_queued(ix, &pp, &st, 1, &ids[i]) || idx_put(ix, ids[i], &st, &fp))
			abort();
	}
	idx_exempt_set(ix, "d0/book00.txt", "d1/book01.txt", 1);
	idx_exempt_set(ix, "d2/book05.txt", "d1/book04.txt", 1);
	idx_close(ix);
	snprintf(dir, sizeof(dir), "%s/seed/data.mdb", base);
	f = fopen(dir, "rb");
	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET))
		abort();
	plen = (size_t)n;
	pristine = malloc(plen);
	if (!pristine || fread(pristine, 1, plen, f) != plen)
		abort();
	fclose(f);
}

static void use(struct idx *ix)
{
	struct idx_entry *ents = NULL;
	struct idx_file f;
	struct idx_link_graph lg;
	struct idx_counts c;
	struct idx_hit *h;
	uint64_t *ids;
	size_t n = 0, m, i;
	const char *np = "new.txt";
	struct idx_stat st = { 1, 1, 1, 1, 1 };

	idx_counts(ix, &c);
	if (idx_list(ix, "", IDX_LIST_RECURSIVE, &ents, &n))
		n = 0;
	for (i = 0; i < n; i++) {
		if (idx_get_id(ix, ents[i].file.id, &f) == 0) {
			if (f.has_fp && idx_near(ix, f.simhash, 7, &h, &m) == 0)
				free(h);
			idx_file_release(&f);
		}
		if (idx_exempt_ids(ix, ents[i].file.id, &ids, &m) == 0)
			free(ids);
	}
	idx_link_graph(ix, &lg);	/* what clusters/ reads */
	idx_link_graph_release(&lg);
	idx_mark_queued(ix, &np, &st, 1, NULL);
	if (n)
		idx_unlink(ix, ents[0].name);
	idx_entries_free(ents, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char dir[PATH_MAX + 32], file[PATH_MAX + 64];
	struct idx *ix = NULL;
	uint8_t *b;
	size_t len, i;
	FILE *f;
	int ret;

	if (!pristine)
		build();
	if (size < 2)
		return 0;
	b = malloc(plen);
	if (!b)
		abort();
	memcpy(b, pristine, plen);
	len = data[1] & 0x80 ? plen * (data[1] & 0x7f) / 128 : plen;
	for (i = 2; i + 4 <= size; i += 4) {
		size_t pg = ((size_t)data[i] << 8 | data[i + 1]) % (plen / 4096);
		size_t off = pg * 4096 + (size_t)data[i + 2] * 16 % 4096;

		b[off] ^= data[i + 3];
	}
	snprintf(dir, sizeof(dir), "%s/r%u", base, round_no++);
	if (mkdir(dir, 0700))
		abort();
	snprintf(file, sizeof(file), "%s/%s", dir, data[0] & 1 ? "data.mdb.prev" : "data.mdb");
	f = fopen(file, "wb");
	if (!f || (len && fwrite(b, 1, len, f) != len) || fclose(f))
		abort();
	free(b);
	ret = idx_open(&ix, dir, NULL);
	if (ret == 0) {
		use(ix);
		idx_close(ix);
		/* the next open finds a sound index: no second rebuild */
		if (idx_open(&ix, dir, NULL) || idx_rebuilt(ix) != IDX_REBUILT_NOT)
			abort();
		idx_close(ix);
	} else if (ret != -EPROTONOSUPPORT) {
		/* a damaged file is rebuilt, never an error; only a schema
		 * number flipped into a newer version's is refused */
		abort();
	}
	rm_rf(dir);
	return 0;
}
