/* bench_index.c - index benchmarks that need no mount.
 *
 *   build/bench/bench_index [--n N] [--queries Q] [--files F] [--tree DIR]
 *                           [--no-brute] [--no-scan] [--keep] [--index DIR]
 *
 * 1. All near pairs (d <= 7) over N synthetic 128-bit fingerprints with
 *    planted near copies: banded search in memory and through the LMDB index,
 *    against brute force measured in the same run (recall must be 1.0).
 * 2. Near-candidate queries on the same index: latency p50/p99 of idx_near(),
 *    and of idx_near() plus idx_get_id() per hit (what listing
 *    similar/<book>/ costs); clusters (connected components) of the whole set.
 * 3. No-change rescan of a tree of F files (created once under $TMPDIR,
 *    default /tmp, or DIR), against a plain openat/fstatat walk of it.
 * 4. Memory: anonymous RSS (the LMDB map is file-backed and reported apart).
 * --keep leaves the index in $TMPDIR (or /tmp); --index DIR uses (and
 * keeps) DIR, loading it only when it does not already hold the N books of
 * this seed.
 * Everything is deterministic (fixed seed); times are wall clock.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "band.h"
#include "benchutil.h"
#include "idx_test.h"
#include "scan.h"
#include "simgen.h"

static uint64_t rng_state = 0x5eed;

static uint64_t rnd(void)
{
	return simgen_next(&rng_state);
}

static void rss(const char *when)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");
	long anon = -1, file = -1, hwm = -1;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "RssAnon: %ld", &anon);
		sscanf(line, "RssFile: %ld", &file);
		sscanf(line, "VmHWM: %ld", &hwm);
	}
	fclose(f);
	printf("  rss %-28s anon %6.1f MB, file-backed (LMDB map, code) %6.1f MB, peak %6.1f MB\n",
	       when, anon / 1024.0, file / 1024.0, hwm / 1024.0);
}

/* 30% of the hashes are near copies (0..11 bits) of an earlier one. */
static void make_hashes(uint8_t (*sh)[16], size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (i > 10 && rnd() % 10 < 3)
			simgen_flip(&rng_state, sh[rnd() % i], sh[i], (uint32_t)(rnd() % 12));
		else
			simgen_sh(&rng_state, sh[i]);
	}
}

/* Pairs (i, j), i < rows, j > i, within d: every pair when rows == n. */
static size_t brute_pairs(uint8_t (*sh)[16], size_t n, size_t rows, uint32_t d)
{
	uint64_t *hi = malloc(n * 8), *lo = malloc(n * 8);
	size_t i, j, cnt = 0;

	if (!hi || !lo) {
		free(hi);
		free(lo);
		return 0;
	}
	for (i = 0; i < n; i++) {
		hi[i] = lo[i] = 0;
		for (j = 0; j < 8; j++) {
			hi[i] = hi[i] << 8 | sh[i][j];
			lo[i] = lo[i] << 8 | sh[i][8 + j];
		}
	}
	for (i = 0; i < rows; i++)
		for (j = i + 1; j < n; j++)
			cnt += (uint32_t)(band_popcount64(hi[i] ^ hi[j]) +
					  band_popcount64(lo[i] ^ lo[j])) <= d;
	free(hi);
	free(lo);
	return cnt;
}

static int load_index(struct idx *ix, uint8_t (*sh)[16], size_t n)
{
	enum { B = 1000, NMH = 8 };
	const char *paths[B];
	char names[B][40];
	struct idx_stat sts[B];
	uint64_t ids[B], mh[NMH];
	uint8_t rec[256];
	struct idx_fp fp;
	size_t i, k, base;
	int ret;

	memset(rec, 'r', sizeof(rec));
	memset(&fp, 0, sizeof(fp));
	fp.mh_bands = mh;
	fp.n_mh_bands = NMH;
	fp.rec = rec;
	fp.rec_len = sizeof(rec);
	fp.rec_version = 1;
	for (base = 0; base < n; base += B) {
		size_t m = n - base < B ? n - base : B;

		for (i = 0; i < m; i++) {
			snprintf(names[i], sizeof(names[i]), "lib/%03zu/book-%07zu.epub",
				 (base + i) / 1000, base + i);
			paths[i] = names[i];
			memset(&sts[i], 0, sizeof(sts[i]));
			sts[i].size = base + i;
			sts[i].ino = base + i + 1;
		}
		ret = idx_mark_queued(ix, paths, sts, m, ids);
		if (ret)
			return ret;
		for (i = 0; i < m; i++) {
			memcpy(fp.simhash, sh[base + i], 16);
			memcpy(fp.text_hash, sh[base + i], 16);
			fp.text_hash[0] ^= 0x5a;
			for (k = 0; k < NMH; k++)
				mh[k] = rnd();
			ret = idx_put(ix, ids[i], &sts[i], &fp);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static void bench_pairs_and_queries(size_t n, size_t nq, int brute, int keep, const char *reuse)
{
	uint8_t (*sh)[16] = malloc(n * sizeof(*sh));
	struct band_pair *bp = NULL;
	struct idx_pair *ip = NULL;
	struct idx_hit *h = NULL;
	struct band_layout bl;
	struct idx_groups g;
	struct idx *ix = NULL;
	char dir[256], cmd[300];
	size_t nbp = 0, nip = 0, nh, i, j, want = 0, hits_total = 0, biggest = 0;
	double t0, c0, t_mem, c_mem, t_idx, t_brute = 0, t_load, *lat = NULL, *lat2 = NULL;
	int ret;

	printf("== %zu fingerprints, d <= 7 (8 bands of 16 bits)\n", n);
	if (reuse) {
		snprintf(dir, sizeof(dir), "%s", reuse);
		keep = 1;
	}
	if (!sh || (!reuse && bench_mkdtemp(dir, sizeof(dir), "bench_index"))) {
		fprintf(stderr, "bench: setup failed\n");
		exit(1);
	}
	make_hashes(sh, n);
	band_layout_init(&bl, 7);
	t0 = bench_now();
	c0 = bench_cpu_now();
	ret = band_pairs(&bl, (const uint8_t (*)[16])sh, n, 7, &bp, &nbp);
	t_mem = bench_now() - t0;
	c_mem = bench_cpu_now() - c0;
	if (ret) {
		fprintf(stderr, "band_pairs: %s\n", strerror(-ret));
		exit(1);
	}
	printf("  near pairs in memory          %9.3f s  (cpu %.3f s; %zu pairs)\n", t_mem, c_mem, nbp);
	if (brute) {
		double c_brute;

		t0 = bench_now();
		c0 = bench_cpu_now();
		want = brute_pairs(sh, n, n, 7);
		t_brute = bench_now() - t0;
		c_brute = bench_cpu_now() - c0;
		printf("  brute force (baseline)        %9.3f s  (cpu %.3f s; %zu pairs)  "
		       "speed-up x%.0f (cpu), recall %s\n",
		       t_brute, c_brute, want, c_brute / c_mem,
		       want == nbp ? "1.000 (same pairs)" : "MISMATCH");
	}
	if (!brute) {
		/* too slow in full: time 1000 rows against all, scale to n(n-1)/2 */
		size_t rows = n < 1000 ? n : 1000, cnt = 0;
		double est;

		c0 = bench_cpu_now();
		cnt = brute_pairs(sh, n, rows, 7);
		est = (bench_cpu_now() - c0) * ((double)n * (n - 1) / 2) /
		      ((double)rows * n - rows * (rows + 1) / 2.0);
		printf("  brute force (cpu, estimated from %zu rows) %6.1f s  speed-up x%.0f (cpu)  "
		       "(%zu pairs in the sample)\n",
		       rows, est, est / c_mem, cnt);
	}
	free(bp);

	ret = idx_open(&ix, dir, NULL);
	if (ret) {
		fprintf(stderr, "idx_open: %s\n", strerror(-ret));
		exit(1);
	}
	{
		struct idx_counts c;

		if (idx_counts(ix, &c) == 0 && c.books == n) {
			printf("  index reused from %s\n", dir);
		} else {
			t0 = bench_now();
			ret = load_index(ix, sh, n);
			t_load = bench_now() - t0;
			if (ret) {
				fprintf(stderr, "load: %s\n", strerror(-ret));
				exit(1);
			}
			printf("  index load (1 txn per book)   %9.3f s  (%.0f books/s)\n", t_load,
			       n / t_load);
		}
	}
	rss("after load");
	t0 = bench_now();
	c0 = bench_cpu_now();
	ret = idx_near_pairs(ix, 7, &ip, &nip);
	t_idx = bench_now() - t0;
	if (ret) {
		fprintf(stderr, "idx_near_pairs: %s\n", strerror(-ret));
		exit(1);
	}
	printf("  near pairs through the index  %9.3f s  (cpu %.3f s; %zu pairs%s)\n", t_idx,
	       bench_cpu_now() - c0, nip,
	       brute ? (nip == want ? ", == brute force" : ", MISMATCH with brute force") : "");
	free(ip);
	t0 = bench_now();
	c0 = bench_cpu_now();
	ret = idx_clusters(ix, 7, &g);
	if (ret == 0) {
		for (i = 0; i < g.ngroups; i++)
			if (g.start[i + 1] - g.start[i] > biggest)
				biggest = g.start[i + 1] - g.start[i];
		printf("  clusters (on demand)          %9.3f s  (cpu %.3f s; %zu groups, largest %zu)\n",
		       bench_now() - t0, bench_cpu_now() - c0, g.ngroups, biggest);
		idx_groups_release(&g);
	}

	lat = malloc(nq * sizeof(*lat));
	lat2 = malloc(nq * sizeof(*lat2));
	if (!lat || !lat2)
		exit(1);
	for (i = 0; i < nq; i++) {
		uint8_t q[16];
		double t1;

		simgen_flip(&rng_state, sh[rnd() % n], q, (uint32_t)(rnd() % 4));
		t0 = bench_now();
		ret = idx_near(ix, q, 7, &h, &nh);
		t1 = bench_now();
		if (ret)
			exit(1);
		hits_total += nh;
		for (j = 0; j < nh; j++) {
			struct idx_file f;

			if (idx_get_id(ix, h[j].id, &f) == 0)
				idx_file_release(&f);
		}
		lat[i] = (t1 - t0) * 1e6;
		lat2[i] = (bench_now() - t0) * 1e6;
		free(h);
	}
	{
		/* baseline: a linear scan of every simhash in memory per query */
		size_t nlin = nq < 200 ? nq : 200, found = 0;
		double *ll = malloc(nlin * sizeof(*ll));

		if (!ll)
			exit(1);
		for (i = 0; i < nlin; i++) {
			uint8_t q[16];

			simgen_flip(&rng_state, sh[rnd() % n], q, (uint32_t)(rnd() % 4));
			t0 = bench_now();
			for (j = 0; j < n; j++)
				found += band_distance(q, sh[j]) <= 7;
			ll[i] = (bench_now() - t0) * 1e6;
		}
		qsort(ll, nlin, sizeof(*ll), bench_dcmp);
		printf("  linear scan in memory (baseline, %zu queries) p50 %9.1f us (%.1f hits/query)\n",
		       nlin, ll[nlin / 2], (double)found / nlin);
		free(ll);
	}
	qsort(lat, nq, sizeof(*lat), bench_dcmp);
	qsort(lat2, nq, sizeof(*lat2), bench_dcmp);
	printf("  idx_near query   (%zu queries) p50 %7.1f us  p99 %7.1f us  (%.1f hits/query)\n", nq,
	       lat[nq / 2], lat[nq * 99 / 100], (double)hits_total / nq);
	printf("  + idx_get_id per hit           p50 %7.1f us  p99 %7.1f us\n", lat2[nq / 2],
	       lat2[nq * 99 / 100]);
	rss("after queries");
	free(lat);
	free(lat2);
	idx_close(ix);
	{
		struct stat st;
		char p[sizeof(dir) + 16];

		snprintf(p, sizeof(p), "%s/data.mdb", dir);
		if (stat(p, &st) == 0)
			printf("  index size on disk            %9.1f MB (%.0f bytes/book)\n",
			       st.st_blocks * 512 / 1e6, st.st_blocks * 512.0 / n);
	}
	if (!keep) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "cleanup of %s failed\n", dir);
	} else {
		printf("  kept %s\n", dir);
	}
	free(sh);
}

static int make_tree(const char *root, size_t nfiles)
{
	char p[512];
	size_t i;
	int fd;

	if (mkdir(root, 0755) && errno != EEXIST)
		return -errno;
	for (i = 0; i < nfiles; i++) {
		if (i % 100 == 0) {
			snprintf(p, sizeof(p), "%s/d%03zu", root, i / 1000);
			if (mkdir(p, 0755) && errno != EEXIST)
				return -errno;
			snprintf(p, sizeof(p), "%s/d%03zu/s%zu", root, i / 1000, i / 100 % 10);
			if (mkdir(p, 0755) && errno != EEXIST)
				return -errno;
		}
		snprintf(p, sizeof(p), "%s/d%03zu/s%zu/book-%07zu.txt", root, i / 1000, i / 100 % 10, i);
		fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0)
			return -errno;
		if (write(fd, p, 8) != 8) {
			close(fd);
			return -EIO;
		}
		close(fd);
	}
	return 0;
}

/* The floor: open every directory and fstatat every entry, nothing else. */
static size_t plain_walk(int dfd)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de;
	struct stat st;
	size_t n = 0;

	if (!d) {
		close(dfd);
		return 0;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (S_ISDIR(st.st_mode)) {
			int sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);

			if (sub >= 0)
				n += plain_walk(sub);
		} else if (S_ISREG(st.st_mode)) {
			n++;
		}
	}
	closedir(d);
	return n;
}

static void bench_rescan(size_t nfiles, const char *tree)
{
	char root[256], idxdir[300], marker[300], cmd[1024];
	struct scan_opts o;
	struct scan_progress pr;
	struct scan *s = NULL;
	struct idx *ix = NULL;
	double t0, t_first, t_again, t_plain;
	size_t nplain;
	int ret, fd;

	printf("== rescan of %zu files\n", nfiles);
	if (tree)
		snprintf(root, sizeof(root), "%s", tree);
	else if (bench_tmppath(root, sizeof(root), "bench_index_tree"))
		exit(1);
	snprintf(marker, sizeof(marker), "%s.complete-%zu", root, nfiles);
	if (access(marker, F_OK) != 0) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'.complete-*", root, root);
		if (system(cmd) != 0)
			exit(1);
		t0 = bench_now();
		ret = make_tree(root, nfiles);
		if (ret) {
			fprintf(stderr, "tree: %s\n", strerror(-ret));
			exit(1);
		}
		fd = open(marker, O_WRONLY | O_CREAT, 0644);
		if (fd >= 0)
			close(fd);
		printf("  created the tree in %.1f s (kept in %s for the next run)\n", bench_now() - t0, root);
	}
	snprintf(idxdir, sizeof(idxdir), "%s/.simbookfs-bench-index", root);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", idxdir);
	if (system(cmd) != 0)
		exit(1);
	if (idx_open(&ix, idxdir, NULL))
		exit(1);
	memset(&o, 0, sizeof(o));
	o.src_fd = -1;
	o.src = root;
	o.ix = ix;
	o.skip_dir = idxdir;
	if (scan_new(&s, &o))
		exit(1);
	t0 = bench_now();
	ret = scan_run(s);
	t_first = bench_now() - t0;
	{
		double la[1];

		if (getloadavg(la, 1) == 1)
			printf("  (load average %.1f on %ld cores)\n", la[0], sysconf(_SC_NPROCESSORS_ONLN));
	}
	scan_progress(s, &pr);
	printf("  first scan (all new, marked queued)  %7.3f s  (%llu files, %llu queued)\n", t_first,
	       (unsigned long long)pr.files, (unsigned long long)pr.queued);
	if (ret)
		exit(1);
	/* pretend they were indexed: the next scans must find nothing to do */
	{
		struct idx_entry *ents = NULL;
		size_t n = 0, i;
		struct idx_fp fp;

		memset(&fp, 0, sizeof(fp));
		if (idx_list(ix, "", IDX_LIST_RECURSIVE, &ents, &n))
			exit(1);
		for (i = 0; i < n; i++) {
			memcpy(fp.simhash, &ents[i].file.id, 8);
			if (idx_put(ix, ents[i].file.id, &ents[i].file.st, &fp))
				exit(1);
		}
		idx_entries_free(ents, n);
	}
	/* warm cache for both, best of 3 for both */
	t_again = t_plain = 1e9;
	nplain = 0;
	for (int k = 0; k < 3; k++) {
		double t;

		t0 = bench_now();
		fd = open(root, O_RDONLY | O_DIRECTORY);
		nplain = plain_walk(fd);
		t = bench_now() - t0;
		if (t < t_plain)
			t_plain = t;
		t0 = bench_now();
		ret = scan_run(s);
		t = bench_now() - t0;
		if (t < t_again)
			t_again = t;
		if (ret)
			exit(1);
	}
	scan_progress(s, &pr);
	printf("  plain openat/fstatat walk (floor)    %7.3f s  (%zu files)\n", t_plain, nplain);
	printf("  no-change rescan                     %7.3f s  (%llu unchanged, %llu queued)  "
	       "x%.2f of the walk\n",
	       t_again, (unsigned long long)pr.unchanged, (unsigned long long)pr.queued,
	       t_again / t_plain);
	rss("after rescans");
	scan_free(s);
	idx_close(ix);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup of %s failed\n", idxdir);
}

int main(int argc, char **argv)
{
	size_t n = 75000, nq = 10000, nfiles = 100000;
	const char *tree = NULL, *reuse = NULL;
	int brute = 1, do_scan = 1, keep = 0, i;

	setvbuf(stdout, NULL, _IOLBF, 0);	/* progress shows when redirected */

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--n") && i + 1 < argc)
			n = strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--queries") && i + 1 < argc)
			nq = strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--files") && i + 1 < argc)
			nfiles = strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--tree") && i + 1 < argc)
			tree = argv[++i];
		else if (!strcmp(argv[i], "--no-brute"))
			brute = 0;
		else if (!strcmp(argv[i], "--no-scan"))
			do_scan = 0;
		else if (!strcmp(argv[i], "--index") && i + 1 < argc)
			reuse = argv[++i];
		else if (!strcmp(argv[i], "--keep"))
			keep = 1;
		else {
			fprintf(stderr, "usage: %s [--n N] [--queries Q] [--files F] [--tree DIR] "
				"[--no-brute] [--no-scan] [--keep] [--index DIR]\n", argv[0]);
			return 2;
		}
	}
	if (n < 20 || nq < 1) {
		fprintf(stderr, "--n must be >= 20, --queries >= 1\n");
		return 2;
	}
	{
		double la[1];

		if (getloadavg(la, 1) == 1)
			printf("(load average %.1f on %ld cores at start)\n", la[0],
			       sysconf(_SC_NPROCESSORS_ONLN));
	}
	bench_pairs_and_queries(n, nq, brute, keep, reuse);
	if (do_scan && nfiles)
		bench_rescan(nfiles, tree);
	rss("at exit");
	return 0;
}
