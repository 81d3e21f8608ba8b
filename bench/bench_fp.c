/* bench_fp.c - fingerprint throughput per family and all together, in MB/s
 * of normalised text on one core, against an XXH3-64 pass over the same
 * text measured in the same run (CPU time of this thread, so other
 * processes on the machine do not count); the record size of a ~500 KB book; and
 * how closely the one-permutation min-hash and the classic k-hash min-hash
 * estimate the exact Jaccard similarity.
 *
 *   build/bench/bench_fp [-r REPS] [DIR]
 *
 * DIR (default $SIMBOOK_BOOKS/texts) holds plain-text (UTF-8) books; each
 * is normalised with norm_book() first, as the filesystem does, and only
 * the fingerprinting is timed.  Without books, deterministic synthetic text
 * is used.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "fp.h"
#include "fprec.h"
#include "norm.h"
#include "wordhash.h"

struct text {
	char *name;
	char *buf;
	size_t len;
};

static struct text *texts;
static size_t ntexts, total;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int add_text(const char *name, char *buf, size_t len)
{
	struct text *t = realloc(texts, (ntexts + 1) * sizeof(*t));

	if (!t)
		return -ENOMEM;
	texts = t;
	texts[ntexts].name = strdup(name);
	texts[ntexts].buf = buf;
	texts[ntexts].len = len;
	ntexts++;
	total += len;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void load_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL, *path;
	size_t n = 0, i;

	if (!d)
		return;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);

		if (l > 4 && !strcmp(e->d_name + l - 4, ".txt")) {
			names = realloc(names, (n + 1) * sizeof(*names));
			names[n++] = strdup(e->d_name);
		}
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), by_name);
	for (i = 0; i < n; i++) {
		FILE *f;
		char *buf;
		long sz;

		if (asprintf(&path, "%s/%s", dir, names[i]) < 0)
			continue;
		f = fopen(path, "rb");
		free(path);
		if (!f)
			continue;
		fseek(f, 0, SEEK_END);
		sz = ftell(f);
		fseek(f, 0, SEEK_SET);
		buf = sz >= 0 ? malloc((size_t)sz + 1) : NULL;
		if (buf && fread(buf, 1, (size_t)sz, f) == (size_t)sz) {
			struct norm_doc doc;

			/* the real pipeline's input: Gutenberg header and
			 * licence removed, NFKC + case folding, words */
			norm_doc_init(&doc);
			if (norm_book(buf, (size_t)sz, NULL, 0, &doc) == 0) {
				add_text(names[i], doc.text, doc.len);
				doc.text = NULL;	/* now owned by texts[] */
			}
			norm_doc_release(&doc);
		}
		free(buf);
		fclose(f);
		free(names[i]);
	}
	free(names);
}

/* Synthetic books from a fixed seed: words of 1-9 letters drawn from a
 * skewed vocabulary of 20,000, about as repetitive as English. */
static void synthetic(size_t nbooks, size_t bytes)
{
	uint64_t x = 12345;
	size_t b;

	for (b = 0; b < nbooks; b++) {
		char *buf = malloc(bytes + 16), name[32];
		size_t o = 0;

		while (o < bytes) {
			uint64_t w, r;
			unsigned len, k;

			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			w = (x >> 33) % 20000 * ((x >> 17) % 20000) / 20000;
			r = XXH3_64bits(&w, sizeof(w));
			len = 1 + (unsigned)(r % 9);
			for (k = 0; k < len; k++, r /= 26)
				buf[o++] = (char)('a' + r % 26);
			buf[o++] = ' ';
		}
		buf[--o] = '\0';
		snprintf(name, sizeof(name), "synthetic-%zu", b);
		add_text(name, buf, o);
	}
}

typedef int family_fn(const char *buf, size_t len);

static int f_xxh3(const char *buf, size_t len)
{
	volatile uint64_t h = XXH3_64bits(buf, len);

	(void)h;
	return 0;
}

static int f_texthash(const char *buf, size_t len)
{
	struct texthash_value v;

	texthash_compute(buf, len, &v);
	return 0;
}

static int f_simhash(const char *buf, size_t len)
{
	struct simhash_value v;

	return simhash_compute(buf, len, &v);
}

static int f_rsimhash(const char *buf, size_t len)
{
	struct rsimhash_value v;

	return rsimhash_compute(buf, len, &v);
}

static int f_mlsh(const char *buf, size_t len)
{
	struct mlsimhash_value v;

	return mlsimhash_compute(buf, len, &v);
}

static int f_minhash(const char *buf, size_t len)
{
	struct minhash_sig v;

	return minhash_compute(MINHASH_OPH, buf, len, &v);
}

static int f_minhash_classic(const char *buf, size_t len)
{
	struct minhash_sig v;

	return minhash_compute(MINHASH_CLASSIC, buf, len, &v);
}

static int f_dupniq(const char *buf, size_t len)
{
	struct dupniq_seq s;
	int ret;

	dupniq_seq_init(&s);
	ret = dupniq_compute(buf, len, &s);
	dupniq_seq_release(&s);
	return ret;
}

static int f_chunksk(const char *buf, size_t len)
{
	struct chunksketch *ck = chunksketch_new();
	struct chunksketch_book b;
	int ret;

	if (!ck)
		return -ENOMEM;
	chunksketch_book_init(&b);
	ret = chunksketch_update(ck, buf, len);
	if (chunksketch_final(ck, &b) < 0)
		ret = -ENOMEM;
	chunksketch_book_release(&b);
	chunksketch_free(ck);
	return ret;
}

static int f_all(const char *buf, size_t len)
{
	struct fp_book b;
	int ret;

	fp_book_init(&b);
	ret = fp_compute_text(buf, len, &b);
	fp_book_release(&b);
	return ret;
}

static double run(family_fn *fn, int reps)
{
	double t0 = now(), t;
	size_t i;
	int r;

	for (r = 0; r < reps; r++)
		for (i = 0; i < ntexts; i++)
			if (fn(texts[i].buf, texts[i].len) < 0) {
				fprintf(stderr, "bench_fp: out of memory\n");
				exit(1);
			}
	t = now() - t0;
	return (double)total * reps / t / 1e6;
}

/* Exact Jaccard of two texts' 5-shingle sets (sorted distinct hashes). */
static size_t shingle_set(const char *buf, size_t len, uint64_t **out);

static void add_word(void *ctx, uint64_t h, uint32_t idx)
{
	uint64_t **w = ctx;

	(*w)[idx] = h;
}

static int cmp64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static size_t shingle_set(const char *buf, size_t len, uint64_t **out)
{
	struct wordhash wh;
	uint64_t *w = malloc((len / 2 + 2) * sizeof(*w)), *s;
	size_t nw, i, n = 0;

	wordhash_init(&wh);
	wordhash_update(&wh, buf, len, add_word, &w);
	nw = wh.nwords;
	wordhash_final(&wh, add_word, &w);
	nw = nw + (len && buf[len - 1] != ' ');
	wordhash_release(&wh);
	s = malloc((nw + 1) * sizeof(*s));
	for (i = 0; i + MINHASH_SHINGLE <= nw; i++)
		s[n++] = minhash_shingle(w + i, MINHASH_SHINGLE);
	free(w);
	qsort(s, n, sizeof(*s), cmp64);
	for (i = 0, nw = 0; i < n; i++)
		if (!nw || s[i] != s[nw - 1])
			s[nw++] = s[i];
	*out = s;
	return nw;
}

static double exact_jaccard(const char *a, size_t na, const char *b, size_t nb)
{
	uint64_t *x, *y;
	size_t nx = shingle_set(a, na, &x), ny = shingle_set(b, nb, &y), i = 0, j = 0, c = 0;

	while (i < nx && j < ny) {
		if (x[i] == y[j]) {
			c++;
			i++;
			j++;
		} else if (x[i] < y[j]) {
			i++;
		} else {
			j++;
		}
	}
	free(x);
	free(y);
	return nx + ny - c ? (double)c / (double)(nx + ny - c) : 0;
}

/* A derivative: the first `keep` fraction of a, then b's text. */
static char *derive(const struct text *a, const struct text *b, double keep, size_t *len)
{
	size_t ka = (size_t)(a->len * keep), kb = a->len - ka < b->len ? a->len - ka : b->len;
	char *buf = malloc(ka + kb + 2);

	memcpy(buf, a->buf, ka);
	buf[ka] = ' ';
	memcpy(buf + ka + 1, b->buf + (b->len - kb), kb);
	*len = ka + 1 + kb;
	buf[*len] = '\0';
	return buf;
}

static void jaccard_check(void)
{
	static const double keeps[] = { 0.95, 0.8, 0.5, 0.2 };
	double err_oph = 0, err_cls = 0, sq_oph = 0, sq_cls = 0, bias_oph = 0, bias_cls = 0;
	size_t i, k, n = 0, nb = ntexts, shown = 6;

	if (ntexts < 2)
		return;
	printf("\n## min-hash estimates vs exact Jaccard (5-shingles, K=%d)\n", MINHASH_K);
	printf("%-44s %6s %8s %8s %8s\n", "pair", "keep", "exact", "oph", "classic");
	for (i = 0; i < nb; i++) {
		const struct text *a = &texts[i], *b = &texts[(i + 1) % ntexts];

		for (k = 0; k < sizeof(keeps) / sizeof(keeps[0]); k++) {
			struct minhash_sig sa, sd, ca, cd;
			size_t dl;
			char *d = derive(a, b, keeps[k], &dl);
			double ex = exact_jaccard(a->buf, a->len, d, dl), jo, jc;

			minhash_compute(MINHASH_OPH, a->buf, a->len, &sa);
			minhash_compute(MINHASH_OPH, d, dl, &sd);
			minhash_compute(MINHASH_CLASSIC, a->buf, a->len, &ca);
			minhash_compute(MINHASH_CLASSIC, d, dl, &cd);
			jo = minhash_jaccard(&sa, &sd);
			jc = minhash_jaccard(&ca, &cd);
			if (i < shown)
				printf("%-44.44s %6.2f %8.3f %8.3f %8.3f\n", a->name, keeps[k], ex,
				       jo, jc);
			bias_oph += jo - ex;
			bias_cls += jc - ex;
			err_oph += fabs(jo - ex);
			err_cls += fabs(jc - ex);
			sq_oph += (jo - ex) * (jo - ex);
			sq_cls += (jc - ex) * (jc - ex);
			n++;
			free(d);
		}
	}
	printf("(the first %zu books shown)\n", shown);
	printf("mean |error|: oph %.4f classic %.4f; rms: oph %.4f classic %.4f (%zu pairs)\n",
	       err_oph / n, err_cls / n, sqrt(sq_oph / n), sqrt(sq_cls / n), n);
	printf("mean signed error (bias): oph %+.4f classic %+.4f\n", bias_oph / n, bias_cls / n);
}

static void record_sizes(void)
{
	size_t i, best = 0, minsz = SIZE_MAX, maxsz = 0;
	double per_kb = 0;
	struct sbuf sb;

	if (!ntexts)
		return;
	sbuf_init(&sb);
	printf("\n## record size (fprec v%d)\n", FPREC_VERSION);
	for (i = 0; i < ntexts; i++) {
		struct fp_book b;

		fp_book_init(&b);
		sbuf_setlen(&sb, 0);
		if (fp_compute_text(texts[i].buf, texts[i].len, &b) == 0 &&
		    fprec_encode(&b, &sb) == 0) {
			if (sb.len < minsz)
				minsz = sb.len;
			if (sb.len > maxsz)
				maxsz = sb.len;
			per_kb += (double)sb.len / ((double)texts[i].len / 1024);
		}
		if (labs((long)texts[i].len - 500000) < labs((long)texts[best].len - 500000))
			best = i;
		fp_book_release(&b);
	}
	{
		struct fp_book b;

		fp_book_init(&b);
		sbuf_setlen(&sb, 0);
		fp_compute_text(texts[best].buf, texts[best].len, &b);
		fprec_encode(&b, &sb);
		printf("closest to 500 KB: %s, %zu bytes of text, %u words, %u unique words, "
		       "%u+%u chunks: record %zu bytes (target <= 65536)\n",
		       texts[best].name, texts[best].len, b.nwords, b.dq.n, b.ck.spine.n,
		       b.ck.win.n, sb.len);
		fp_book_release(&b);
	}
	printf("all %zu books: record %zu..%zu bytes, mean %.1f bytes per KB of text\n",
	       ntexts, minsz, maxsz, per_kb / ntexts);
	sbuf_release(&sb);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		family_fn *fn;
		double target;
	} fam[] = {
		{ "xxh3-64 (baseline)", f_xxh3, 0 },
		{ "texthash xxh3-128", f_texthash, 0 },
		{ "S1 simhash-128 4-grams", f_simhash, 150 },
		{ "S4 robust simhash 12-grams", f_rsimhash, 0 },
		{ "S3 multi-lexicon simhash", f_mlsh, 0 },
		{ "min-hash one-permutation", f_minhash, 100 },
		{ "min-hash classic k=128", f_minhash_classic, 0 },
		{ "DUPNIQ unique words", f_dupniq, 0 },
		{ "chunk sketches", f_chunksk, 0 },
		{ "all families (fp_compute)", f_all, 60 },
	};
	const char *dir = NULL, *env;
	char *def = NULL;
	int reps = 3, i;
	double base = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-r") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else
			dir = argv[i];
	}
	if (reps < 1)
		reps = 1;
	if (!dir && (env = getenv("SIMBOOK_BOOKS"))) {
		if (asprintf(&def, "%s/texts", env) >= 0)
			dir = def;
	}
	if (dir)
		load_dir(dir);
	if (!ntexts) {
		printf("no books found: synthetic text\n");
		synthetic(8, 500000);
	}
	printf("# bench_fp: %zu texts, %.1f MB of normalised text, %d repetitions, one core\n",
	       ntexts, (double)total / 1e6, reps);
	run(f_xxh3, 1);	/* warm-up: page in the texts before timing */
	printf("%-30s %10s %10s %8s\n", "family", "MB/s", "x baseline", "target");
	for (i = 0; i < (int)(sizeof(fam) / sizeof(fam[0])); i++) {
		double mbs = run(fam[i].fn, reps);

		if (i == 0)
			base = mbs;
		printf("%-30s %10.1f %10.3f ", fam[i].name, mbs, mbs / base);
		if (fam[i].target > 0)
			printf("%5.0f %s\n", fam[i].target, mbs >= fam[i].target ? "ok" : "MISSED");
		else
			printf("%8s\n", "-");
		fflush(stdout);
	}
	record_sizes();
	jaccard_check();
	for (i = 0; i < (int)ntexts; i++) {
		free(texts[i].name);
		free(texts[i].buf);
	}
	free(texts);
	free(def);
	return 0;
}
