/* acc.c - accuracy harness: labelled corpus, scores, metrics (see acc.h). */
#include "acc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "book.h"
#include "bookrec.h"
#include "idx.h"
#include "mutate.h"
#include "norm.h"
#include "simlist.h"

/* Kinds of pairs.  The first ones are built by mutation, the ACC_REAL_*
 * ones come from the real corpus and RELATIONS.tsv. */
enum acc_cat {
	ACC_IDENT,
	ACC_FORMAT,
	ACC_OCR_LOW,	/* OCR errors at 5% or less */
	ACC_OCR_HIGH,	/* OCR errors above 5% (outside the targets) */
	ACC_SENT,	/* sentence additions/removals (+1% OCR) */
	ACC_PARTIAL,	/* 15-80% replaced by another book's text */
	ACC_VOLUME,	/* a leading part inside the whole */
	ACC_ANTHOLOGY,	/* a book inside an anthology */
	ACC_UNREL,
	ACC_AUTHOR,	/* same author (or series), different books */
	ACC_REAL_EDITION,
	ACC_REAL_PART,
	ACC_REAL_UNREL,
	ACC_NCAT
};

static const char *const cat_names[ACC_NCAT] = {
	"identical file", "format (txt/html/epub)", "OCR 0.5-5%", "OCR 7-10%",
	"sentence edits", "partial 15-80%", "volume in whole", "book in anthology",
	"unrelated", "same author", "real: edition", "real: part of", "real: unrelated",
};

/* Groups of classes for the per-class figures: both containment
 * directions are one group. */
enum acc_group { G_IDENT, G_SAME, G_NEAR, G_CONTAIN, G_OVERLAP, G_UNREL, G_N };
static const char *const group_names[G_N] = {
	"identical file", "same text", "near duplicate", "containment", "overlap", "unrelated",
};

static enum acc_group group_of(enum relate_class c)
{
	switch (c) {
	case RELATE_IDENTICAL_FILE: return G_IDENT;
	case RELATE_SAME_TEXT: return G_SAME;
	case RELATE_NEAR_DUPLICATE: return G_NEAR;
	case RELATE_A_CONTAINS_B:
	case RELATE_B_CONTAINS_A: return G_CONTAIN;
	case RELATE_OVERLAP: return G_OVERLAP;
	default: return G_UNREL;
	}
}

#define BIT(c) (1u << (c))
#define ANY_RELATED (BIT(RELATE_SAME_TEXT) | BIT(RELATE_NEAR_DUPLICATE) | \
	BIT(RELATE_A_CONTAINS_B) | BIT(RELATE_B_CONTAINS_A) | BIT(RELATE_OVERLAP))

struct acc_pair {
	uint32_t a, b;
	uint8_t cat;
	uint8_t label;		/* enum relate_class */
	uint16_t accept;	/* BIT() of every class counted as correct */
	float param;		/* error rate, replaced fraction, ... */
	struct relate_signals sig;
	const char *name;	/* real pairs: "a <-> b", owned */
};

struct base {
	char *text;
	size_t len;
	int author;
	char name[64];
};

struct corpus {
	struct book **books;
	size_t nbooks, capb;
	struct acc_pair *pairs;
	size_t npairs, capp;
	char tmpdir[64];
	unsigned ntmp;
};

static int corpus_add_book(struct corpus *c, struct book *b, uint32_t *idx)
{
	struct book **nb;

	if (c->nbooks == c->capb) {
		size_t cap = c->capb ? c->capb * 2 : 64;

		nb = realloc(c->books, cap * sizeof(*nb));
		if (!nb)
			return -ENOMEM;
		c->books = nb;
		c->capb = cap;
	}
	*idx = (uint32_t)c->nbooks;
	c->books[c->nbooks++] = b;
	return 0;
}

static int load_buf(struct corpus *c, const char *text, size_t len, const char *name,
		    uint32_t *idx)
{
	struct book *b = NULL;
	struct sbuf err;
	int ret;

	sbuf_init(&err);
	ret = book_load_buffer(text, len, name, NULL, &b, &err);
	if (ret)
		fprintf(stderr, "accuracy: %s\n", err.len ? err.buf : strerror(-ret));
	else if ((ret = corpus_add_book(c, b, idx)))
		book_free(b);
	sbuf_release(&err);
	return ret;
}

static int load_path(struct corpus *c, const char *path, uint32_t *idx)
{
	struct book *b = NULL;
	struct sbuf err;
	int ret;

	sbuf_init(&err);
	ret = book_load(path, NULL, &b, &err);
	if (ret)
		fprintf(stderr, "accuracy: %s\n", err.len ? err.buf : strerror(-ret));
	else if ((ret = corpus_add_book(c, b, idx)))
		book_free(b);
	sbuf_release(&err);
	return ret;
}

static int load_epub(struct corpus *c, const char *title, const char *text, size_t len,
		     unsigned nch, uint32_t *idx)
{
	char path[128];
	int ret;

	snprintf(path, sizeof(path), "%s/b%u.epub", c->tmpdir, c->ntmp++);
	ret = mut_epub_write(path, title, text, len, nch);
	if (ret)
		fprintf(stderr, "accuracy: %s: cannot write: %s\n", path, strerror(-ret));
	else
		ret = load_path(c, path, idx);
	unlink(path);
	return ret;
}

static int corpus_add_pair(struct corpus *c, uint32_t a, uint32_t b, enum acc_cat cat,
			   enum relate_class label, unsigned accept, double param)
{
	struct acc_pair *np, *p;
	struct book_cmp cmp;
	int ret;

	if (c->npairs == c->capp) {
		size_t cap = c->capp ? c->capp * 2 : 256;

		np = realloc(c->pairs, cap * sizeof(*np));
		if (!np)
			return -ENOMEM;
		c->pairs = np;
		c->capp = cap;
	}
	ret = book_compare(c->books[a], c->books[b], NULL, &cmp);
	if (ret)
		return ret;
	p = &c->pairs[c->npairs++];
	p->a = a;
	p->b = b;
	p->cat = (uint8_t)cat;
	p->label = (uint8_t)label;
	p->accept = (uint16_t)(accept | BIT(label));
	p->param = (float)param;
	p->sig = cmp.sig;
	p->name = NULL;
	return 0;
}

static void corpus_release(struct corpus *c)
{
	size_t i;

	for (i = 0; i < c->nbooks; i++)
		book_free(c->books[i]);
	for (i = 0; i < c->npairs; i++)
		free((char *)c->pairs[i].name);
	free(c->books);
	free(c->pairs);
	if (c->tmpdir[0])
		rmdir(c->tmpdir);
	memset(c, 0, sizeof(*c));
}

/* Reads a whole file. */
static int read_file(const char *path, struct sbuf *out)
{
	char buf[65536];
	ssize_t n;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		ret = sbuf_add(out, buf, (size_t)n);
		if (ret)
			break;
	}
	close(fd);
	return ret;
}

/* Real base books: each has no relative among the others (one per
 * relation group of RELATIONS.tsv, plus the distractors).  author ties the
 * same-author (or same-series) books. */
static const struct {
	const char *file;
	int author;
} real_bases[] = {
	{ "pg345-dracula.txt", 1 }, { "pg35-the-time-machine.txt", 2 },
	{ "pg36-the-war-of-the-worlds.txt", 2 }, { "pg120-treasure-island.txt", 3 },
	{ "pg972-the-devils-dictionary.txt", 4 }, { "pg215-the-call-of-the-wild.txt", 5 },
	{ "pg1952-the-yellow-wallpaper.txt", 6 }, { "pg2814-dubliners.txt", 7 },
	{ "pg2701-moby-dick.txt", 8 }, { "pg20170-legend-land-vol1.txt", 9 },
	{ "pg20249-legend-land-vol2.txt", 9 }, { "pg11-alice-in-wonderland.txt", 10 },
	{ "pg84-frankenstein.txt", 11 }, { "pg1342-pride-and-prejudice.txt", 12 },
	{ "pg46-a-christmas-carol.txt", 13 }, { "pg174-the-picture-of-dorian-gray.txt", 14 },
	{ "pg1228-origin-of-species-1st-ed.txt", 15 }, { "pg219-heart-of-darkness.txt", 16 },
	{ "pg76-adventures-of-huckleberry-finn.txt", 17 },
	{ "pg74-the-adventures-of-tom-sawyer.txt", 17 },
	{ "pg5186-kalevala-complete.txt", 18 }, { "pg2148-works-of-poe-vol2.txt", 19 },
	{ "pg1524-hamlet.txt", 20 },
};
#define NREAL (sizeof(real_bases) / sizeof(real_bases[0]))
#define SYNTH_AUTHOR0 100

/* The bases of this run: real bodies (when books is set and quick is not)
 * then synthetic books, two per author; half selects even or odd ones. */
static int collect_bases(const struct acc_opts *o, struct base **out, size_t *n)
{
	size_t nsynth = o->quick ? 6 : 12, i, k = 0, start, end;
	struct base *v;
	struct sbuf sb;
	char path[4096];
	int ret = 0;

	v = calloc(NREAL + nsynth, sizeof(*v));
	if (!v)
		return -ENOMEM;
	sbuf_init(&sb);
	for (i = 0; !o->quick && o->books && i < NREAL; i++) {
		if (o->half && (int)(i % 2) != o->half - 1)
			continue;
		snprintf(path, sizeof(path), "%s/texts/%s", o->books, real_bases[i].file);
		sbuf_setlen(&sb, 0);
		ret = read_file(path, &sb);
		if (ret == -ENOENT)
			continue;	/* a partial corpus: use what is there */
		if (ret) {
			fprintf(stderr, "accuracy: %s: %s\n", path, strerror(-ret));
			goto out;
		}
		norm_strip_gutenberg(sb.buf, sb.len, &start, &end);
		v[k].text = malloc(end - start + 1);
		if (!v[k].text) {
			ret = -ENOMEM;
			goto out;
		}
		memcpy(v[k].text, sb.buf + start, end - start);
		v[k].text[end - start] = '\0';
		v[k].len = end - start;
		v[k].author = real_bases[i].author;
		snprintf(v[k].name, sizeof(v[k].name), "%.*s", (int)(strlen(real_bases[i].file) - 4),
			 real_bases[i].file);
		k++;
	}
	for (i = 0; i < nsynth; i++) {
		uint64_t words;

		if (o->half && (int)((i / 2) % 2) != o->half - 1)
			continue;	/* keep both books of an author together */
		/* 8k to 80k words: small books are the hard case for simhash */
		words = o->quick ? 12000 + 3000 * i : 8000 + (i * 7919) % 72000;
		sbuf_setlen(&sb, 0);
		ret = mut_synth(SYNTH_AUTHOR0 + i / 2 + o->seed * 1000, o->seed * 7777 + i, words, &sb);
		if (ret)
			goto out;
		v[k].text = sbuf_detach(&sb, &v[k].len);
		if (!v[k].text) {
			ret = -ENOMEM;
			goto out;
		}
		v[k].author = SYNTH_AUTHOR0 + (int)(i / 2);
		snprintf(v[k].name, sizeof(v[k].name), "synth-%zu", i);
		k++;
	}
out:
	sbuf_release(&sb);
	if (ret) {
		for (i = 0; i < k; i++)
			free(v[i].text);
		free(v);
		return ret;
	}
	*out = v;
	*n = k;
	return 0;
}

/* Adds the book derived from base i by text t, and its pair with the base's
 * original (a = derived, b = original unless swap). */
static int derived_pair(struct corpus *c, uint32_t orig, const struct sbuf *t, const char *name,
			enum acc_cat cat, enum relate_class label, unsigned accept, double param,
			int swap, uint32_t *idx)
{
	uint32_t d;
	int ret;

	ret = load_buf(c, t->buf, t->len, name, &d);
	if (ret)
		return ret;
	if (idx)
		*idx = d;
	if (swap) {
		if (label == RELATE_B_CONTAINS_A)
			label = RELATE_A_CONTAINS_B;
		else if (label == RELATE_A_CONTAINS_B)
			label = RELATE_B_CONTAINS_A;
		return corpus_add_pair(c, orig, d, cat, label, accept, param);
	}
	return corpus_add_pair(c, d, orig, cat, label, accept, param);
}

/* The same as derived_pair() after 2% OCR errors on t (u: scratch): the
 * scanned copy of a volume, an anthology, a partly replaced book. */
static int noisy_pair(struct corpus *c, struct mut_rng *r, uint32_t orig, const struct sbuf *t,
		      struct sbuf *u, const char *name, enum acc_cat cat, enum relate_class label,
		      unsigned accept, double param, int swap)
{
	int ret;

	sbuf_setlen(u, 0);
	ret = mut_ocr(r, t->buf, t->len, 0.02, u, NULL);
	if (!ret)
		ret = derived_pair(c, orig, u, name, cat, label, accept, param, swap, NULL);
	return ret;
}

static int build_corpus(const struct acc_opts *o, const struct base *bv, size_t nb,
			struct corpus *c)
{
	static const double ocr_full[] = { 0.005, 0.01, 0.02, 0.03, 0.04, 0.05, 0.07, 0.10 };
	static const double ocr_quick[] = { 0.01, 0.03, 0.05, 0.10 };
	const double *ocr = o->quick ? ocr_quick : ocr_full;
	size_t nocr = o->quick ? 4 : 8;
	uint32_t *orig = NULL, *noisy = NULL, idx;
	struct sbuf t, u;
	struct mut_rng r;
	char name[96];
	size_t i, j, k;
	int ret = 0;

	sbuf_init(&t);
	sbuf_init(&u);
	orig = calloc(nb, sizeof(*orig));
	noisy = calloc(nb, sizeof(*noisy));
	if (!orig || !noisy) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nb && !ret; i++) {
		snprintf(name, sizeof(name), "%s.txt", bv[i].name);
		ret = load_buf(c, bv[i].text, bv[i].len, name, &orig[i]);
	}
	for (i = 0; i < nb && !ret; i++) {
		const struct base *b = &bv[i], *d1 = &bv[(i + 1) % nb];
		const char *parts[4];
		size_t lens[4], pos;
		double f;

		mut_rng_seed(&r, o->seed * UINT64_C(1000003) + i);
		/* identical copy (every third book: the rule is trivial) */
		if (i % 3 == 0) {
			sbuf_setlen(&t, 0);
			ret = sbuf_add(&t, b->text, b->len);
			if (!ret)
				ret = derived_pair(c, orig[i], &t, "copy.txt", ACC_IDENT,
						   RELATE_IDENTICAL_FILE, 0, 0, 0, NULL);
		}
		/* formats */
		sbuf_setlen(&t, 0);
		if (!ret)
			ret = mut_html(b->name, b->text, b->len, &t);
		if (!ret)
			ret = derived_pair(c, orig[i], &t, "book.html", ACC_FORMAT, RELATE_SAME_TEXT,
					   BIT(RELATE_NEAR_DUPLICATE), 0, (int)(i & 1), NULL);
		if (!ret) {
			ret = load_epub(c, b->name, b->text, b->len, 2 + (unsigned)mut_rng_below(&r, 12), &idx);
			if (!ret)
				ret = corpus_add_pair(c, idx, orig[i], ACC_FORMAT, RELATE_SAME_TEXT,
						      BIT(RELATE_NEAR_DUPLICATE), 0);
		}
		/* OCR errors */
		for (k = 0; k < nocr && !ret; k++) {
			sbuf_setlen(&t, 0);
			ret = mut_ocr(&r, b->text, b->len, ocr[k], &t, NULL);
			if (!ret)
				ret = derived_pair(c, orig[i], &t, "ocr.txt",
						   ocr[k] <= 0.05 + 1e-9 ? ACC_OCR_LOW : ACC_OCR_HIGH,
						   RELATE_NEAR_DUPLICATE, 0, ocr[k], (int)(k & 1), &idx);
			if (!ret && k == 2)
				noisy[i] = idx;
		}
		/* sentence additions and removals, with 1% OCR on top */
		for (k = 0; k < 2 && !ret; k++) {
			f = k ? 0.15 : 0.05;
			sbuf_setlen(&t, 0);
			sbuf_setlen(&u, 0);
			ret = mut_sentences(&r, b->text, b->len, d1->text, d1->len, f, &t, NULL, NULL);
			if (!ret)
				ret = mut_ocr(&r, t.buf, t.len, 0.01, &u, NULL);
			if (!ret)
				ret = derived_pair(c, orig[i], &u, "edited.txt", ACC_SENT,
						   RELATE_NEAR_DUPLICATE, 0, f, (int)(k & 1), NULL);
		}
		/* partial replacement of 15-80%, by text of other books joined
		 * until there is enough of it */
		for (k = 0; k < 2 && !ret; k++) {
			f = 0.15 + 0.65 * mut_rng_unit(&r);
			sbuf_setlen(&u, 0);
			for (j = 1; j < nb && !ret && u.len < (size_t)(f * (double)b->len) + 64; j++) {
				const struct base *x = &bv[(i + j + k) % nb];

				if (x != b)
					ret = mut_join((const char *const *)&x->text, &x->len, 1, &u);
			}
			sbuf_setlen(&t, 0);
			if (!ret)
				ret = mut_replace(&r, b->text, b->len, u.buf, u.len, f, &t, NULL);
			if (!ret)
				ret = derived_pair(c, orig[i], &t, "partial.txt", ACC_PARTIAL, RELATE_OVERLAP,
						   f <= 0.25 ? BIT(RELATE_NEAR_DUPLICATE) : 0, f,
						   (int)(k & 1), NULL);
			if (!ret && k == 1)
				ret = noisy_pair(c, &r, orig[i], &t, &u, "partial-ocr.txt", ACC_PARTIAL,
						 RELATE_OVERLAP, f <= 0.25 ? BIT(RELATE_NEAR_DUPLICATE) : 0,
						 f, 0);
		}
		/* volume 1: a leading 20-60% inside the whole */
		f = 0.2 + 0.4 * mut_rng_unit(&r);
		sbuf_setlen(&t, 0);
		if (!ret)
			ret = mut_slice(b->text, b->len, 0.0, f, &t);
		if (!ret)
			ret = derived_pair(c, orig[i], &t, "vol1.txt", ACC_VOLUME, RELATE_B_CONTAINS_A,
					   0, f, (int)(i & 1), NULL);
		if (!ret)
			ret = noisy_pair(c, &r, orig[i], &t, &u, "vol1-ocr.txt", ACC_VOLUME,
					 RELATE_B_CONTAINS_A, 0, f, (int)(~i & 1));
		/* the whole book inside an anthology with parts of three others */
		pos = (size_t)mut_rng_below(&r, 4);
		for (j = 0, k = 0; j < 4 && !ret; j++) {
			const struct base *x = &bv[(i + 1 + k) % nb];

			if (j == pos) {
				parts[j] = b->text;
				lens[j] = b->len;
				continue;
			}
			k++;
			if (x == b) {	/* fewer than four bases */
				parts[j] = "";
				lens[j] = 0;
				continue;
			}
			/* a part of another book, 25-60% as long as this one */
			lens[j] = (size_t)((0.25 + 0.35 * mut_rng_unit(&r)) * (double)b->len);
			if (lens[j] > x->len)
				lens[j] = x->len;
			parts[j] = x->text + (size_t)(mut_rng_unit(&r) * (double)(x->len - lens[j]));
			/* cut on white space so no word is split */
			while (lens[j] && parts[j] > x->text && parts[j][-1] != ' ' && parts[j][-1] != '\n') {
				parts[j]++;
				lens[j]--;
			}
			while (lens[j] && parts[j][lens[j] - 1] != ' ' && parts[j][lens[j] - 1] != '\n')
				lens[j]--;
		}
		sbuf_setlen(&t, 0);
		if (!ret)
			ret = mut_join(parts, lens, 4, &t);
		/* with short other books the book may still be most of the
		 * anthology: then a near duplicate is right too */
		f = (double)b->len / (double)t.len;
		if (!ret)
			ret = derived_pair(c, orig[i], &t, "anthology.txt", ACC_ANTHOLOGY,
					   RELATE_A_CONTAINS_B, f >= 0.8 ? BIT(RELATE_NEAR_DUPLICATE) : 0,
					   f, 1, NULL);
		if (!ret)
			ret = noisy_pair(c, &r, orig[i], &t, &u, "anthology-ocr.txt", ACC_ANTHOLOGY,
					 RELATE_A_CONTAINS_B, f >= 0.8 ? BIT(RELATE_NEAR_DUPLICATE) : 0,
					 f, 1);
	}
	/* negatives: every pair of originals, and a noisy copy against another
	 * book (a derived book sharing no text with it) */
	for (i = 0; i < nb && !ret; i++)
		for (j = i + 1; j < nb && !ret; j++)
			ret = corpus_add_pair(c, orig[i], orig[j],
					      bv[i].author == bv[j].author ? ACC_AUTHOR : ACC_UNREL,
					      RELATE_UNRELATED, 0, 0);
	for (i = 0; i < nb && !ret && nb > 1; i++) {
		j = (i + nb / 2) % nb;
		if (j == i)
			continue;
		ret = corpus_add_pair(c, noisy[i], orig[j],
				      bv[i].author == bv[j].author ? ACC_AUTHOR : ACC_UNREL,
				      RELATE_UNRELATED, 0, 0);
	}
out:
	free(orig);
	free(noisy);
	sbuf_release(&t);
	sbuf_release(&u);
	return ret;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Real books: every text and EPUB of the corpus, every pair of them; the
 * label comes from RELATIONS.tsv (pairs not listed are unrelated, as the
 * corpus README states). */
static int build_real(const struct acc_opts *o, struct corpus *c)
{
	struct sbuf rel, path;
	char **names = NULL;
	uint32_t *idx = NULL;
	size_t n = 0, cap = 0, i, j;
	const char *sub[2] = { "texts", "epub" };
	int ret = 0, s;

	sbuf_init(&rel);
	sbuf_init(&path);
	/* Without the list of relations there are no labels: no real pairs. */
	sbuf_addf(&path, "%s/RELATIONS.tsv", o->books);
	ret = read_file(path.buf, &rel);
	if (ret == -ENOENT) {
		ret = 0;
		goto out;
	}
	if (ret)
		fprintf(stderr, "accuracy: %s: %s\n", path.buf, strerror(-ret));
	for (s = 0; s < 2 && !ret; s++) {
		struct dirent *de;
		DIR *dir;

		sbuf_setlen(&path, 0);
		sbuf_addf(&path, "%s/%s", o->books, sub[s]);
		dir = opendir(path.buf);
		if (!dir)
			continue;
		while (!ret && (de = readdir(dir))) {
			size_t l = strlen(de->d_name);

			if (!(l > 4 && !strcmp(de->d_name + l - 4, ".txt")) &&
			    !(l > 5 && !strcmp(de->d_name + l - 5, ".epub")))
				continue;
			if (n == cap) {
				char **nn = realloc(names, (cap ? cap * 2 : 64) * sizeof(*names));

				if (!nn) {
					ret = -ENOMEM;
					break;
				}
				names = nn;
				cap = cap ? cap * 2 : 64;
			}
			names[n] = malloc(strlen(sub[s]) + l + 2);
			if (!names[n]) {
				ret = -ENOMEM;
				break;
			}
			sprintf(names[n], "%s/%s", sub[s], de->d_name);
			n++;
		}
		closedir(dir);
	}
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	idx = calloc(n ? n : 1, sizeof(*idx));
	if (!idx)
		ret = -ENOMEM;
	for (i = 0; i < n && !ret; i++) {
		sbuf_setlen(&path, 0);
		sbuf_addf(&path, "%s/%s", o->books, names[i]);
		ret = load_path(c, path.buf, &idx[i]);
	}
	for (i = 0; i < n && !ret; i++) {
		for (j = i + 1; j < n && !ret; j++) {
			enum acc_cat cat = ACC_REAL_UNREL;
			enum relate_class label = RELATE_UNRELATED;
			unsigned accept = 0;
			int swap = 0;
			const char *p = rel.buf, *e;
			struct acc_pair *pp;
			char *nm;

			/* find the row naming both files, in either order */
			for (; *p; p = *e ? e + 1 : e) {
				size_t la = strlen(names[i]), lb = strlen(names[j]);

				e = strchr(p, '\n');
				if (!e)
					e = p + strlen(p);
				if (!strncmp(p, names[i], la) && p[la] == '\t' &&
				    !strncmp(p + la + 1, names[j], lb) && p[la + 1 + lb] == '\t')
					swap = 0;
				else if (!strncmp(p, names[j], lb) && p[lb] == '\t' &&
					 !strncmp(p + lb + 1, names[i], la) && p[lb + 1 + la] == '\t')
					swap = 1;
				else
					continue;
				p += la + lb + 2;
				if (!strncmp(p, "same-work", 9)) {
					cat = ACC_REAL_EDITION;
					label = RELATE_NEAR_DUPLICATE;
					accept = ANY_RELATED;
				} else if (!strncmp(p, "volume-of", 9) || !strncmp(p, "contained-in", 12)) {
					cat = ACC_REAL_PART;
					label = RELATE_B_CONTAINS_A;	/* row: part, whole */
				}
				break;
			}
			if (swap)
				ret = corpus_add_pair(c, idx[j], idx[i], cat, label, accept, 0);
			else
				ret = corpus_add_pair(c, idx[i], idx[j], cat, label, accept, 0);
			if (ret)
				break;
			pp = &c->pairs[c->npairs - 1];
			nm = malloc(strlen(names[i]) + strlen(names[j]) + 8);
			if (!nm) {
				ret = -ENOMEM;
				break;
			}
			sprintf(nm, "%s | %s", swap ? names[j] : names[i], swap ? names[i] : names[j]);
			pp->name = nm;
		}
	}
out:
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(idx);
	sbuf_release(&rel);
	sbuf_release(&path);
	return ret;
}

/* ---- metrics ---- */

struct prf {
	unsigned tp, fp, fn;
};

static double prec(const struct prf *m)
{
	return m->tp + m->fp ? (double)m->tp / (m->tp + m->fp) : 1.0;
}

static double rec(const struct prf *m)
{
	return m->tp + m->fn ? (double)m->tp / (m->tp + m->fn) : 1.0;
}

static double f1(const struct prf *m)
{
	double p = prec(m), r = rec(m);

	return p + r > 0 ? 2 * p * r / (p + r) : 0.0;
}

static int is_synth_pos(int cat)
{
	return cat <= ACC_ANTHOLOGY;
}

static int is_synth_neg(int cat)
{
	return cat == ACC_UNREL || cat == ACC_AUTHOR;
}

/* Tasks for the single-method sweeps: which pairs are positives and which
 * negatives (others are left out). */
enum task { T_NEAR, T_ALL, T_NEAR_CLASS, T_CONTAIN_CLASS, T_REAL, T_N };
static const char *const task_names[T_N] = {
	"near duplicates (OCR <= 5%, sentence edits) vs unrelated and same-author pairs",
	"every relation vs unrelated and same-author pairs",
	"the near-duplicate class: near duplicates vs every other pair (partial, contained, unrelated)",
	"the containment class: contained books vs every other pair (near duplicates, partial, unrelated)",
	"real books: pairs listed in RELATIONS.tsv vs every other pair",
};

/* Pairs whose class is ambiguous by construction: left out of the class
 * tasks (they still count in the others). */
static int ambiguous(const struct acc_pair *p)
{
	return p->cat == ACC_IDENT || p->cat == ACC_FORMAT || p->cat == ACC_OCR_HIGH ||
	       (p->accept & ~BIT(p->label)) != 0;
}

/* 1: a positive of task t, -1: a negative, 0: left out. */
static int task_side(enum task t, const struct acc_pair *p)
{
	int cat = p->cat;

	switch (t) {
	case T_NEAR:
		return cat == ACC_OCR_LOW || cat == ACC_SENT ? 1 : is_synth_neg(cat) ? -1 : 0;
	case T_ALL:
		return is_synth_pos(cat) ? 1 : is_synth_neg(cat) ? -1 : 0;
	case T_NEAR_CLASS:
		if (ambiguous(p) || cat >= ACC_REAL_EDITION)
			return 0;
		return cat == ACC_OCR_LOW || cat == ACC_SENT ? 1 : -1;
	case T_CONTAIN_CLASS:
		if (ambiguous(p) || cat >= ACC_REAL_EDITION)
			return 0;
		return cat == ACC_VOLUME || cat == ACC_ANTHOLOGY ? 1 : -1;
	default:
		return cat == ACC_REAL_EDITION || cat == ACC_REAL_PART ? 1 :
		       cat == ACC_REAL_UNREL ? -1 : 0;
	}
}

/* Whether relate()'s answer counts as a hit in task t. */
static int task_hit(enum task t, const struct acc_pair *p, enum relate_class pred)
{
	switch (t) {
	case T_NEAR_CLASS:
		return pred == RELATE_NEAR_DUPLICATE;
	case T_CONTAIN_CLASS:
		/* the right direction only */
		return group_of(pred) == G_CONTAIN && (p->cat < ACC_VOLUME || p->cat > ACC_ANTHOLOGY ||
						       pred == (enum relate_class)p->label);
	default:
		return pred != RELATE_UNRELATED;
	}
}

/* A single method: a value per pair and a direction. */
struct method {
	const char *name;
	int lower;		/* 1: related when value <= t */
	double lo, hi, step;	/* sweep */
	double published;	/* the published operating point (NAN: none) */
};

static const struct method methods[] = {
	{ "S1 simhash-128 distance", 1, 0, 64, 1, 7 },
	{ "S4 robust simhash distance", 1, 0, 64, 1, 10 },
	{ "S3 multi-lexicon simhash distance", 1, 0, 32, 1, 3 },
	{ "S2/S4 min-hash B-similarity (of 128)", 0, 1, 128, 1, 2 },
	{ "S5 DUPNIQ cs", 0, 0.01, 1.0, 0.01, 0.12 },
	{ "S5 DUPNIQ its", 0, 0.01, 1.0, 0.01, 0.72 },
};
#define NMETHODS (sizeof(methods) / sizeof(methods[0]))

static double method_value(size_t m, const struct relate_signals *s)
{
	switch (m) {
	case 0: return s->simhash_distance;
	case 1: return s->rsimhash_distance;
	case 2: return s->mlsimhash_distance;
	case 3: return s->bsim * 128.0;
	case 4: return s->dupniq_cs;
	default: return s->dupniq_its;
	}
}

static struct prf method_prf(const struct corpus *c, size_t m, enum task t, double thr)
{
	struct prf r = { 0, 0, 0 };
	size_t i;

	for (i = 0; i < c->npairs; i++) {
		const struct acc_pair *p = &c->pairs[i];
		int side = task_side(t, p), hit;
		double v = method_value(m, &p->sig);

		if (!side)
			continue;
		/* identical texts are found by the exact hashes, whatever the
		 * method: every method sees them as distance 0 anyway */
		hit = methods[m].lower ? v <= thr + 1e-9 : v >= thr - 1e-9;
		if (side > 0 && hit)
			r.tp++;
		else if (side > 0)
			r.fn++;
		else if (hit)
			r.fp++;
	}
	return r;
}

static int task_present(const struct corpus *c, enum task t)
{
	size_t i;
	int pos = 0, neg = 0;

	for (i = 0; i < c->npairs; i++) {
		pos |= task_side(t, &c->pairs[i]) > 0;
		neg |= task_side(t, &c->pairs[i]) < 0;
	}
	return pos && neg;
}

/* relate() on task t. */
static struct prf combined_prf(const struct corpus *c, const enum relate_class *pred, enum task t)
{
	struct prf r = { 0, 0, 0 };
	size_t i;

	for (i = 0; i < c->npairs; i++) {
		int side = task_side(t, &c->pairs[i]), hit = task_hit(t, &c->pairs[i], pred[i]);

		if (side > 0 && hit)
			r.tp++;
		else if (side > 0)
			r.fn++;
		else if (side < 0 && hit)
			r.fp++;
	}
	return r;
}

/* Per-group figures of the relate decision over the synthetic pairs
 * except OCR above 5% (outside the targets). */
static void group_prf(const struct corpus *c, const enum relate_class *pred, struct prf *g)
{
	size_t i;

	memset(g, 0, G_N * sizeof(*g));
	for (i = 0; i < c->npairs; i++) {
		const struct acc_pair *p = &c->pairs[i];
		int ok = (p->accept & BIT(pred[i])) != 0;

		if (p->cat == ACC_OCR_HIGH || p->cat >= ACC_REAL_EDITION)
			continue;
		if (ok)
			g[group_of(p->label)].tp++;
		else {
			g[group_of(p->label)].fn++;
			g[group_of(pred[i])].fp++;
		}
	}
}

static void decide_all(const struct corpus *c, const struct relate_params *p, enum relate_class *pred)
{
	struct relate_result r;
	size_t i;

	for (i = 0; i < c->npairs; i++) {
		relate_decide(&c->pairs[i].sig, p, &r);
		pred[i] = r.cls;
	}
}

/* relate()'s F1 on task t, and the best F1 of any single method at its best
 * threshold. */
static void best_method(const struct corpus *c, const enum relate_class *pred, enum task t,
			double *combined, double *best_f1, const char **best_name)
{
	struct prf m;
	double best, v;
	size_t k;

	m = combined_prf(c, pred, t);
	*combined = f1(&m);
	*best_f1 = 0;
	*best_name = "";
	for (k = 0; k < NMETHODS; k++) {
		best = 0;
		for (v = methods[k].lo; v <= methods[k].hi + 1e-9; v += methods[k].step) {
			m = method_prf(c, k, t, v);
			if (f1(&m) > best)
				best = f1(&m);
		}
		if (best > *best_f1) {
			*best_f1 = best;
			*best_name = methods[k].name;
		}
	}
}

static void summarise(const struct corpus *c, const enum relate_class *pred, struct acc_summary *s)
{
	struct prf g[G_N];
	size_t i, k;
	unsigned neg = 0, negflag = 0, gn = 0;

	memset(s, 0, sizeof(*s));
	group_prf(c, pred, g);
	s->near_p = prec(&g[G_NEAR]);
	s->near_r = rec(&g[G_NEAR]);
	s->near_f1 = f1(&g[G_NEAR]);
	s->contain_p = prec(&g[G_CONTAIN]);
	s->contain_r = rec(&g[G_CONTAIN]);
	s->contain_f1 = f1(&g[G_CONTAIN]);
	s->overlap_p = prec(&g[G_OVERLAP]);
	s->overlap_r = rec(&g[G_OVERLAP]);
	s->overlap_f1 = f1(&g[G_OVERLAP]);
	s->same_text_p = prec(&g[G_SAME]);
	s->same_text_r = rec(&g[G_SAME]);
	for (k = 0; k < G_N; k++) {
		if (g[k].tp + g[k].fn == 0)
			continue;
		s->macro_f1 += f1(&g[k]);
		gn++;
	}
	s->macro_f1 = gn ? s->macro_f1 / gn : 0;
	for (i = 0; i < c->npairs; i++) {
		const struct acc_pair *p = &c->pairs[i];

		if (p->cat < ACC_REAL_EDITION)
			s->pairs++;
		if (is_synth_pos(p->cat))
			s->positives++;
		if (is_synth_neg(p->cat)) {
			s->negatives++;
			neg++;
			negflag += pred[i] != RELATE_UNRELATED;
		}
		if (p->cat == ACC_REAL_EDITION || p->cat == ACC_REAL_PART) {
			s->real_pos++;
			s->real_pos_found += pred[i] != RELATE_UNRELATED;
		} else if (p->cat == ACC_REAL_UNREL) {
			s->real_neg++;
			s->real_neg_flagged += pred[i] != RELATE_UNRELATED;
		}
	}
	s->neg_flagged = neg ? (double)negflag / neg : 0;
	best_method(c, pred, T_NEAR_CLASS, &s->combined_f1, &s->best_single_f1, &s->best_single);
	best_method(c, pred, T_ALL, &s->combined_any_f1, &s->best_single_any_f1, &s->best_single_any);
}

/* ---- report ---- */

static void report_corpus(FILE *f, const struct corpus *c, const enum relate_class *pred)
{
	unsigned cnt[ACC_NCAT][RELATE_NCLASSES], tot[ACC_NCAT], ok[ACC_NCAT];
	size_t i, k;

	memset(cnt, 0, sizeof(cnt));
	memset(tot, 0, sizeof(tot));
	memset(ok, 0, sizeof(ok));
	for (i = 0; i < c->npairs; i++) {
		const struct acc_pair *p = &c->pairs[i];

		cnt[p->cat][pred[i]]++;
		tot[p->cat]++;
		ok[p->cat] += (p->accept & BIT(pred[i])) != 0;
	}
	fprintf(f, "\n### Decisions per kind of pair (rows: truth, columns: relate() output)\n\n"
		"| pairs | n | correct |");
	for (k = 0; k < RELATE_NCLASSES; k++)
		fprintf(f, " %s |", relate_class_name((enum relate_class)k));
	fprintf(f, "\n|---|--:|--:|");
	for (k = 0; k < RELATE_NCLASSES; k++)
		fprintf(f, "--:|");
	fprintf(f, "\n");
	for (i = 0; i < ACC_NCAT; i++) {
		if (!tot[i])
			continue;
		fprintf(f, "| %s | %u | %.1f%% |", cat_names[i], tot[i], 100.0 * ok[i] / tot[i]);
		for (k = 0; k < RELATE_NCLASSES; k++)
			fprintf(f, " %u |", cnt[i][k]);
		fprintf(f, "\n");
	}
}

static void report_groups(FILE *f, const struct corpus *c, const enum relate_class *pred)
{
	struct prf g[G_N];
	size_t k;

	group_prf(c, pred, g);
	fprintf(f, "\n### relate() per relation class (synthetic pairs, OCR <= 5%%)\n\n"
		"| class | truth | TP | FP | FN | precision | recall | F1 |\n"
		"|---|--:|--:|--:|--:|--:|--:|--:|\n");
	for (k = 0; k < G_N; k++)
		fprintf(f, "| %s | %u | %u | %u | %u | %.4f | %.4f | %.4f |\n", group_names[k],
			g[k].tp + g[k].fn, g[k].tp, g[k].fp, g[k].fn, prec(&g[k]), rec(&g[k]), f1(&g[k]));
}

static void report_methods(FILE *f, const struct corpus *c, const enum relate_class *pred, int sweep)
{
	size_t m, t;
	double v, bt;
	struct prf r, best, pub;

	for (t = 0; t < T_N; t++) {
		if (!task_present(c, (enum task)t))
			continue;
		fprintf(f, "\n### Single methods vs combined: %s\n\n"
			"| method | best threshold | P | R | F1 | published threshold | P | R | F1 |\n"
			"|---|--:|--:|--:|--:|--:|--:|--:|--:|\n", task_names[t]);
		for (m = 0; m < NMETHODS; m++) {
			bt = methods[m].lo;
			memset(&best, 0, sizeof(best));
			best.fn = 1;
			for (v = methods[m].lo; v <= methods[m].hi + 1e-9; v += methods[m].step) {
				r = method_prf(c, m, (enum task)t, v);
				if (f1(&r) > f1(&best) + 1e-12) {
					best = r;
					bt = v;
				}
			}
			pub = method_prf(c, m, (enum task)t, methods[m].published);
			fprintf(f, "| %s | %s%g | %.4f | %.4f | %.4f | %s%g | %.4f | %.4f | %.4f |\n",
				methods[m].name, methods[m].lower ? "<= " : ">= ", bt, prec(&best),
				rec(&best), f1(&best), methods[m].lower ? "<= " : ">= ",
				methods[m].published, prec(&pub), rec(&pub), f1(&pub));
		}
		r = combined_prf(c, pred, (enum task)t);
		fprintf(f, "| **combined relate()** | (operating point) | %.4f | %.4f | **%.4f** | | | | |\n",
			prec(&r), rec(&r), f1(&r));
	}
	if (!sweep)
		return;
	for (t = 0; t < T_N; t++) {
		if (!task_present(c, (enum task)t))
			continue;
		for (m = 0; m < NMETHODS; m++) {
			fprintf(f, "\n#### Sweep: %s, %s\n\n| threshold | P | R | F1 |\n|--:|--:|--:|--:|\n",
				methods[m].name, task_names[t]);
			for (v = methods[m].lo; v <= methods[m].hi + 1e-9; v += methods[m].step) {
				r = method_prf(c, m, (enum task)t, v);
				fprintf(f, "| %g | %.4f | %.4f | %.4f |\n", v, prec(&r), rec(&r), f1(&r));
			}
		}
	}
}

static void report_real(FILE *f, const struct corpus *c, const enum relate_class *pred)
{
	size_t i;
	unsigned flagged = 0, neg = 0;

	fprintf(f, "\n### Real books: RELATIONS.tsv rows\n\n"
		"| A | B | listed | relate() | simhash | Jaccard | cs | its | windows A/B matched | blocks A/B |\n"
		"|---|---|---|---|--:|--:|--:|--:|--:|--:|\n");
	for (i = 0; i < c->npairs; i++) {
		const struct acc_pair *p = &c->pairs[i];
		const struct relate_signals *s = &p->sig;
		const char *bar;

		if (p->cat == ACC_REAL_UNREL) {
			neg++;
			if (pred[i] != RELATE_UNRELATED) {
				flagged++;
				fprintf(f, "| %s | unrelated | **%s** | %d | %.3f | %.3f | %.3f | %.2f/%.2f | %.2f/%.2f |\n",
					p->name ? p->name : "?", relate_class_name(pred[i]),
					s->simhash_distance, s->jaccard, s->dupniq_cs, s->dupniq_its,
					s->chunk_cover_a, s->chunk_cover_b, s->block_cover_a, s->block_cover_b);
			}
			continue;
		}
		if (p->cat < ACC_REAL_EDITION)
			continue;
		bar = p->name ? strchr(p->name, '|') : NULL;
		fprintf(f, "| %.*s | %s | %s | %s%s | %d | %.3f | %.3f | %.3f | %.2f/%.2f | %.2f/%.2f |\n",
			bar ? (int)(bar - p->name - 1) : 1, p->name ? p->name : "?", bar ? bar + 2 : "?",
			p->cat == ACC_REAL_EDITION ? "edition" : "part of B",
			relate_class_name(pred[i]), (p->accept & BIT(pred[i])) ? "" : " (miss)",
			s->simhash_distance, s->jaccard, s->dupniq_cs, s->dupniq_its,
			s->chunk_cover_a, s->chunk_cover_b, s->block_cover_a, s->block_cover_b);
	}
	fprintf(f, "\nOther pairs of real books (unlisted, so unrelated): %u, flagged related: %u\n",
		neg, flagged);
}

/* relate() with its coverage signal (the block cover) replaced by each of
 * the other coverage measures: why the rule reads the block cover. */
static void report_ablation(FILE *f, const struct corpus *c, const struct relate_params *p)
{
	static const char *const names[] = {
		"block cover (align.h, the rule's)", "DUPNIQ span (first to last LCS word)",
		"DUPNIQ stretches (fp: equal gaps <= 500 words)", "text windows (chunk sketches)",
	};
	enum relate_class *pred;
	struct acc_summary s;
	size_t i, k;
	struct acc_pair *pairs = NULL;
	struct corpus alt;

	pred = calloc(c->npairs ? c->npairs : 1, sizeof(*pred));
	pairs = malloc((c->npairs ? c->npairs : 1) * sizeof(*pairs));
	if (!pred || !pairs)
		goto out;
	alt = *c;
	alt.pairs = pairs;
	fprintf(f, "\n### Which coverage measure (the rule with each one in place of the block cover)\n\n"
		"| coverage | near dup. F1 | containment P / R | overlap P / R | negatives flagged | mean class F1 |\n"
		"|---|--:|--:|--:|--:|--:|\n");
	for (k = 0; k < 4; k++) {
		for (i = 0; i < c->npairs; i++) {
			struct relate_signals *g = &pairs[i].sig;

			pairs[i] = c->pairs[i];
			if (k == 1) {
				g->block_cover_a = g->span_cover_a;
				g->block_cover_b = g->span_cover_b;
			} else if (k == 2) {
				g->block_cover_a = g->stretch_cover_a;
				g->block_cover_b = g->stretch_cover_b;
			} else if (k == 3) {
				g->block_cover_a = -1;
				g->block_cover_b = -1;
			}
		}
		decide_all(&alt, p, pred);
		summarise(&alt, pred, &s);
		fprintf(f, "| %s | %.4f | %.4f / %.4f | %.4f / %.4f | %.2f%% | %.4f |\n", names[k],
			s.near_f1, s.contain_p, s.contain_r, s.overlap_p, s.overlap_r,
			100.0 * s.neg_flagged, s.macro_f1);
	}
out:
	free(pred);
	free(pairs);
}

static void report_summary(FILE *f, const struct acc_summary *s)
{
	fprintf(f, "\n### Targets (issue 4)\n\n| target | measured | goal | met |\n|---|--:|--:|---|\n");
	fprintf(f, "| near duplicates (OCR <= 5%%, sentence edits) F1 | %.4f | >= 0.97 | %s |\n",
		s->near_f1, s->near_f1 >= 0.97 ? "yes" : "NO");
	fprintf(f, "| containment precision / recall | %.4f / %.4f | >= 0.99 / 0.95 | %s |\n",
		s->contain_p, s->contain_r, s->contain_p >= 0.99 && s->contain_r >= 0.95 ? "yes" : "NO");
	fprintf(f, "| partial duplicates (overlap) precision / recall | %.4f / %.4f | >= 0.99 / 0.95 | %s |\n",
		s->overlap_p, s->overlap_r, s->overlap_p >= 0.99 && s->overlap_r >= 0.95 ? "yes" : "NO");
	fprintf(f, "| unrelated and same-author pairs flagged | %.2f%% | <= 1%% | %s |\n",
		100.0 * s->neg_flagged, s->neg_flagged <= 0.01 ? "yes" : "NO");
	fprintf(f, "| near-duplicate class F1: relate() vs best single method (%s) | %.4f vs %.4f | higher | %s |\n",
		s->best_single, s->combined_f1, s->best_single_f1,
		s->combined_f1 > s->best_single_f1 ? "yes" : "NO");
	fprintf(f, "| any relation F1: relate() vs best single method (%s) | %.4f vs %.4f | (reported) | %s |\n",
		s->best_single_any, s->combined_any_f1, s->best_single_any_f1,
		s->combined_any_f1 > s->best_single_any_f1 ? "higher" :
		s->combined_any_f1 == s->best_single_any_f1 ? "equal" : "lower");
	if (s->real_pos + s->real_neg)
		fprintf(f, "| real books: listed relations found / other pairs flagged | %u of %u / %u of %u | | |\n",
			s->real_pos_found, s->real_pos, s->real_neg_flagged, s->real_neg);
}

static int make_tmpdir(struct corpus *c)
{
	const char *t = getenv("TMPDIR");

	snprintf(c->tmpdir, sizeof(c->tmpdir), "%s/simbook-acc-XXXXXX",
		 t && *t && strlen(t) < 40 ? t : "/tmp");
	if (!mkdtemp(c->tmpdir)) {
		c->tmpdir[0] = '\0';
		return -errno;
	}
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int u64_cmp(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

/* ---- index parity: the pairs the views list (opts.index) ---- */

/* A pair listed by the views: book a's list holds b with class cls (a's
 * point of view). */
struct listed {
	uint32_t a, b;
	enum relate_class cls;
};

static int listed_cmp(const void *pa, const void *pb)
{
	const struct listed *a = pa, *b = pb;

	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return a->b < b->b ? -1 : a->b > b->b;
}

/* The id -> book index map, sorted by id. */
struct idmap {
	uint64_t id;
	uint32_t k;
};

static int idmap_cmp(const void *pa, const void *pb)
{
	const struct idmap *a = pa, *b = pb;

	return a->id < b->id ? -1 : a->id > b->id;
}

struct parity {
	struct idx *ix;
	struct simcache *cache;
	uint64_t *ids;			/* book index -> id */
	struct idmap *map;
	struct listed *v;		/* every listed pair, sorted */
	size_t n, cap;
	uint64_t *cand[4];		/* per source bit: all candidate pairs a << 32 | b, sorted */
	size_t ncand[4];
	size_t maxcand[4];		/* most candidates of one book */
	double t_put, t_list;
	char dir[96];
};

static const unsigned src_bits[4] = {
	SIMLIST_SRC_NEAR, SIMLIST_SRC_MINHASH, SIMLIST_SRC_TEXT, SIMLIST_SRC_UNIQUE,
};
static const char *const src_names[4] = {
	"simhash near", "min-hash band", "text hash", "pruning keys",
};

static int parity_book_of(const struct parity *pa, size_t nbooks, uint64_t id, uint32_t *k)
{
	struct idmap key = { id, 0 }, *m;

	m = bsearch(&key, pa->map, nbooks, sizeof(*m), idmap_cmp);
	if (!m)
		return -ENOENT;
	*k = m->k;
	return 0;
}

/* Indexes b at path as the indexer does. */
static int parity_put(struct idx *ix, const struct book *b, const char *path, uint64_t *id)
{
	struct bookrec_fp rf;
	struct idx_stat st;
	int ret;

	memset(&rf, 0, sizeof(rf));
	memset(&st, 0, sizeof(st));
	st.size = b->file_size;
	ret = idx_mark_queued(ix, &path, &st, 1, id);
	if (!ret)
		ret = bookrec_fp_make(b, &rf);
	if (!ret)
		ret = idx_put(ix, *id, &st, &rf.fp);
	bookrec_fp_release(&rf);
	return ret;
}

static int parity_push(struct parity *pa, uint32_t a, uint32_t b, enum relate_class cls)
{
	if (pa->n == pa->cap) {
		size_t cap = pa->cap ? pa->cap * 2 : 1024;
		struct listed *v = realloc(pa->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		pa->v = v;
		pa->cap = cap;
	}
	pa->v[pa->n++] = (struct listed){ a, b, cls };
	return 0;
}

/* Candidates of every book from source s, as sorted pair keys. */
static int parity_sources(struct parity *pa, size_t nbooks, size_t s)
{
	uint64_t *ids = NULL, *v = NULL;
	size_t n = 0, cap = 0, i, j;
	uint32_t k;
	int ret = 0;

	for (i = 0; i < nbooks && !ret; i++) {
		ret = simlist_candidates(pa->ix, pa->ids[i], src_bits[s], &ids, &n);
		if (n > pa->maxcand[s])
			pa->maxcand[s] = n;
		for (j = 0; j < n && !ret; j++) {
			if (parity_book_of(pa, nbooks, ids[j], &k))
				continue;
			if (pa->ncand[s] == cap) {
				cap = cap ? cap * 2 : 1024;
				v = realloc(pa->cand[s], cap * sizeof(*v));
				if (!v) {
					ret = -ENOMEM;
					break;
				}
				pa->cand[s] = v;
			}
			pa->cand[s][pa->ncand[s]++] = (uint64_t)i << 32 | k;
		}
		free(ids);
		ids = NULL;
	}
	if (!ret && pa->ncand[s])
		qsort(pa->cand[s], pa->ncand[s], sizeof(uint64_t), u64_cmp);
	return ret;
}

static int parity_build(struct parity *pa, const struct corpus *c)
{
	struct simlist *l = NULL;
	char path[32];
	size_t i, j, s;
	uint32_t k;
	double t0;
	int ret;

	snprintf(pa->dir, sizeof(pa->dir), "%s/index", c->tmpdir);
	pa->ids = calloc(c->nbooks ? c->nbooks : 1, sizeof(*pa->ids));
	pa->map = calloc(c->nbooks ? c->nbooks : 1, sizeof(*pa->map));
	pa->cache = simcache_new(0);
	if (!pa->ids || !pa->map || !pa->cache)
		return -ENOMEM;
	ret = idx_open(&pa->ix, pa->dir, NULL);
	if (ret)
		return ret;
	t0 = now();
	for (i = 0; i < c->nbooks && !ret; i++) {
		snprintf(path, sizeof(path), "b%06zu", i);
		ret = parity_put(pa->ix, c->books[i], path, &pa->ids[i]);
		/* judged after its store, as the indexer does: the lists
		 * below are the stored ones the views read */
		if (!ret)
			ret = simlist_judge(pa->ix, pa->ids[i]);
		pa->map[i] = (struct idmap){ pa->ids[i], (uint32_t)i };
	}
	if (ret)
		return ret;
	qsort(pa->map, c->nbooks, sizeof(*pa->map), idmap_cmp);
	pa->t_put = now() - t0;
	t0 = now();
	for (i = 0; i < c->nbooks && !ret; i++) {
		ret = simlist_get(pa->ix, pa->cache, pa->ids[i], NULL, NULL, &l);
		for (j = 0; !ret && j < l->n; j++)
			if (!parity_book_of(pa, c->nbooks, l->v[j].id, &k))
				ret = parity_push(pa, (uint32_t)i, k, l->v[j].cls);
		simlist_free(l);
		l = NULL;
	}
	pa->t_list = now() - t0;
	if (pa->n)
		qsort(pa->v, pa->n, sizeof(*pa->v), listed_cmp);
	for (s = 0; s < 4 && !ret; s++)
		if (src_bits[s])
			ret = parity_sources(pa, c->nbooks, s);
	return ret;
}

static void parity_release(struct parity *pa)
{
	size_t s;

	idx_close(pa->ix);
	simcache_free(pa->cache);
	free(pa->ids);
	free(pa->map);
	free(pa->v);
	for (s = 0; s < 4; s++)
		free(pa->cand[s]);
	if (pa->dir[0]) {
		char p[128];

		snprintf(p, sizeof(p), "%s/data.mdb", pa->dir);
		unlink(p);
		snprintf(p, sizeof(p), "%s/lock.mdb", pa->dir);
		unlink(p);
		rmdir(pa->dir);
	}
	memset(pa, 0, sizeof(*pa));
}

/* The class book a's list gives b, unrelated when b is not listed. */
static enum relate_class parity_class(const struct parity *pa, uint32_t a, uint32_t b, int *listed)
{
	struct listed key = { a, b, RELATE_UNRELATED }, *m;

	m = pa->n ? bsearch(&key, pa->v, pa->n, sizeof(*pa->v), listed_cmp) : NULL;
	*listed = m != NULL;
	return m ? m->cls : RELATE_UNRELATED;
}

static int parity_has(const struct parity *pa, size_t s, uint32_t a, uint32_t b)
{
	uint64_t key = (uint64_t)a << 32 | b;

	return pa->ncand[s] && bsearch(&key, pa->cand[s], pa->ncand[s], sizeof(key), u64_cmp) != NULL;
}

/* Scores the views' answers (predi) against the labels next to book_compare's
 * (pred), and says why each differing pair differs. */
static void parity_report(const struct acc_opts *o, const struct corpus *c, const struct parity *pa,
			  const enum relate_class *pred, const enum relate_class *predi,
			  struct acc_summary *sum)
{
	FILE *f = o->out;
	struct prf g[G_N], gi[G_N];
	unsigned found[4] = { 0, 0, 0, 0 }, rel = 0, only[4] = { 0, 0, 0, 0 }, shown = 0;
	unsigned unlabelled = 0, by;
	size_t i, s, k, gn = 0;
	const char *nm;
	enum relate_class vc;

	group_prf(c, pred, g);
	group_prf(c, predi, gi);
	sum->index_macro_f1 = 0;
	for (k = 0; k < G_N; k++) {
		if (gi[k].tp + gi[k].fn == 0)
			continue;
		sum->index_macro_f1 += f1(&gi[k]);
		gn++;
	}
	sum->index_macro_f1 = gn ? sum->index_macro_f1 / gn : 0;
	for (i = 0; i < c->npairs; i++) {
		const struct acc_pair *p = &c->pairs[i];

		if (pred[i] == RELATE_UNRELATED)
			continue;
		rel++;
		by = 0;
		for (s = 0; s < 4; s++)
			if (src_bits[s] && parity_has(pa, s, p->a, p->b)) {
				found[s]++;
				by |= 1u << s;
			}
		for (s = 0; s < 4; s++)
			if (by == 1u << s)
				only[s]++;
	}
	/* listed pairs that are not labelled pairs (e.g. two derived books of
	 * one base): listed, not scored */
	for (i = 0; i < pa->n; i++) {
		int l;

		(void)parity_class(pa, pa->v[i].b, pa->v[i].a, &l);
		unlabelled += pa->v[i].a < pa->v[i].b || !l;
	}
	for (i = 0; i < c->npairs; i++) {
		const struct acc_pair *p = &c->pairs[i];
		int l1, l2;

		(void)parity_class(pa, p->a, p->b, &l1);
		(void)parity_class(pa, p->b, p->a, &l2);
		if ((l1 || l2) && unlabelled)
			unlabelled--;
	}
	if (!f)
		return;
	fprintf(f, "\n### The index's views against book_compare() (the index loses nothing?)\n\n"
		"Every book of the corpus (%zu) put into a real LMDB index and judged as the indexer "
		"does (%.1f s: the index's candidates verified on the stored records, every relation "
		"stored), the list of `similar/<book>/` read for each (`simlist_get()`: the stored "
		"relations; %.1f s), and each labelled pair scored by the class "
		"its first book's list gives the second (not listed: unrelated).\n\n"
		"| class | truth | compare P | R | F1 | views P | R | F1 |\n"
		"|---|--:|--:|--:|--:|--:|--:|--:|\n", c->nbooks, pa->t_put, pa->t_list);
	for (k = 0; k < G_N; k++)
		fprintf(f, "| %s | %u | %.4f | %.4f | %.4f | %.4f | %.4f | %.4f |\n", group_names[k],
			g[k].tp + g[k].fn, prec(&g[k]), rec(&g[k]), f1(&g[k]), prec(&gi[k]),
			rec(&gi[k]), f1(&gi[k]));
	fprintf(f, "\nMean class F1: compare %.4f, views %.4f.  Pairs whose class differs: %u "
		"(no candidate: %u, the stored records compare to another class: %u); listed on "
		"one side only: %u; related pairs listed that carry no label: %u.\n",
		sum->macro_f1, sum->index_macro_f1, sum->index_differ, sum->index_no_candidate,
		sum->index_verify_differs, sum->index_asymmetric, unlabelled);
	fprintf(f, "\nCandidate sources of the %u labelled pairs book_compare() calls related (a "
		"pair can come from several), and what each source costs: candidates per book "
		"(each one is a comparison of two records) and the share of them the comparison "
		"lists:\n\n| source | labelled pairs proposed | only by this source | candidates per "
		"book, mean | max | listed |\n|---|--:|--:|--:|--:|--:|\n", rel);
	for (s = 0; s < 4; s++) {
		size_t lst = 0;

		if (!src_bits[s])
			continue;
		for (i = 0; i < pa->ncand[s]; i++) {
			int l;

			(void)parity_class(pa, (uint32_t)(pa->cand[s][i] >> 32), (uint32_t)pa->cand[s][i], &l);
			lst += (size_t)l;
		}
		fprintf(f, "| %s | %u | %u | %.1f | %zu | %.1f%% |\n", src_names[s], found[s], only[s],
			c->nbooks ? (double)pa->ncand[s] / (double)c->nbooks : 0.0, pa->maxcand[s],
			pa->ncand[s] ? 100.0 * (double)lst / (double)pa->ncand[s] : 0.0);
	}
	for (i = 0; i < c->npairs; i++) {
		const struct acc_pair *p = &c->pairs[i];
		int l1;

		if (pred[i] == predi[i])
			continue;
		if (!shown++)
			fprintf(f, "\nPairs that differ:\n\n| kind | label | compare | views | why |\n"
				"|---|---|---|---|---|\n");
		if (shown > 40)
			continue;
		vc = parity_class(pa, p->a, p->b, &l1);
		for (s = 0, by = 0; s < 4; s++)
			by |= src_bits[s] && parity_has(pa, s, p->a, p->b);
		fprintf(f, "| %s%s", cat_names[p->cat], p->name ? ": " : "");
		for (nm = p->name; nm && *nm; nm++)	/* "a | b": no '|' in a table cell */
			fputs(*nm == '|' ? "vs" : (char[2]){ *nm, 0 }, f);
		fprintf(f, " | %s | %s | %s | %s |\n", relate_class_name((enum relate_class)p->label),
			relate_class_name(pred[i]), relate_class_name(vc),
			by ? "a candidate; the stored records compare to another class" :
			"no candidate from any source");
	}
	if (shown > 40)
		fprintf(f, "\n(%u more not shown)\n", shown - 40);
}

/* Runs the parity check: predi[i] = the views' class for pair i. */
static int parity_run(const struct acc_opts *o, const struct corpus *c, const enum relate_class *pred,
		      struct acc_summary *sum)
{
	struct parity pa;
	enum relate_class *predi = NULL, cls;
	size_t i, s;
	int ret, l1, l2, cand;

	memset(&pa, 0, sizeof(pa));
	predi = calloc(c->npairs ? c->npairs : 1, sizeof(*predi));
	ret = predi ? parity_build(&pa, c) : -ENOMEM;
	if (ret)
		goto out;
	for (i = 0; i < c->npairs; i++) {
		const struct acc_pair *p = &c->pairs[i];

		predi[i] = parity_class(&pa, p->a, p->b, &l1);
		(void)parity_class(&pa, p->b, p->a, &l2);
		sum->index_asymmetric += l1 != l2;
		if (predi[i] == pred[i])
			continue;
		sum->index_differ++;
		for (s = 0, cand = 0; s < 4; s++)
			cand |= src_bits[s] && parity_has(&pa, s, p->a, p->b);
		if (!cand) {
			sum->index_no_candidate++;
			continue;
		}
		/* a candidate: what the comparison of the stored records says */
		if (simlist_relation(pa.ix, pa.cache, pa.ids[p->a], pa.ids[p->b], &cls) == 0 &&
		    cls != pred[i])
			sum->index_verify_differs++;
	}
	parity_report(o, c, &pa, pred, predi, sum);
out:
	parity_release(&pa);
	free(predi);
	return ret;
}

/* Builds the corpus of o into c. */
static int corpus_build(const struct acc_opts *o, struct corpus *c)
{
	struct base *bv = NULL;
	size_t nb = 0, i;
	int ret;

	memset(c, 0, sizeof(*c));
	ret = make_tmpdir(c);
	if (!ret)
		ret = collect_bases(o, &bv, &nb);
	if (!ret)
		ret = build_corpus(o, bv, nb, c);
	if (!ret && o->real && o->books && !o->quick)
		ret = build_real(o, c);
	for (i = 0; i < nb; i++)
		free(bv[i].text);
	free(bv);
	return ret;
}

static void report(const struct acc_opts *o, const struct corpus *c, const enum relate_class *pred,
		   const struct acc_summary *s, const struct relate_params *p)
{
	FILE *f = o->out;

	if (!f)
		return;
	report_summary(f, s);
	report_groups(f, c, pred);
	report_corpus(f, c, pred);
	report_ablation(f, c, p);
	report_methods(f, c, pred, o->sweep);
	if (s->real_pos + s->real_neg)
		report_real(f, c, pred);
}

static void dump_pairs(FILE *f, const struct corpus *c, const enum relate_class *pred)
{
	size_t i;

	fprintf(f, "kind\tparam\tlabel\tpredicted\twords_a\twords_b\tsimhash\trsimhash\tmlsh\t"
		"jaccard\tcs\tits\tspan_a\tspan_b\tblock_a\tblock_b\twin_a\twin_b\tstretch_a\tstretch_b\tname\n");
	for (i = 0; i < c->npairs; i++) {
		const struct acc_pair *p = &c->pairs[i];
		const struct relate_signals *s = &p->sig;

		fprintf(f, "%s\t%.3f\t%s\t%s\t%llu\t%llu\t%d\t%d\t%d\t%.4f\t%.4f\t%.4f\t"
			"%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%s\n", cat_names[p->cat], p->param,
			relate_class_name((enum relate_class)p->label), relate_class_name(pred[i]),
			(unsigned long long)s->words_a, (unsigned long long)s->words_b,
			s->simhash_distance, s->rsimhash_distance, s->mlsimhash_distance, s->jaccard,
			s->dupniq_cs, s->dupniq_its, s->span_cover_a, s->span_cover_b,
			s->block_cover_a, s->block_cover_b, s->chunk_cover_a, s->chunk_cover_b,
			s->stretch_cover_a, s->stretch_cover_b, p->name ? p->name : "");
	}
}

static void report_params(FILE *f, const struct relate_params *p)
{
	fprintf(f, "simhash_near=%d rsimhash_near=%d its_min=%.2f cs_min=%.2f jaccard_min=%.2f "
		"cover_min=%.2f cover_whole=%.2f\n", p->simhash_near, p->rsimhash_near, p->its_min,
		p->cs_min, p->jaccard_min, p->cover_min, p->cover_whole);
}

int acc_run(const struct acc_opts *o, const struct relate_params *p, struct acc_summary *sum)
{
	struct relate_params def;
	struct corpus c;
	enum relate_class *pred = NULL;
	double t0 = now();
	int ret;

	if (!p) {
		relate_params_default(&def);
		p = &def;
	}
	ret = corpus_build(o, &c);
	if (ret)
		goto out;
	pred = calloc(c.npairs ? c.npairs : 1, sizeof(*pred));
	if (!pred) {
		ret = -ENOMEM;
		goto out;
	}
	decide_all(&c, p, pred);
	summarise(&c, pred, sum);
	if (o->out) {
		fprintf(o->out, "\n## Run: seed %llu, %s, bases %s; %u synthetic-corpus pairs, "
			"%zu books, %.1f s\n\nrelate parameters: ", (unsigned long long)o->seed,
			o->quick ? "quick" : "full", o->half ? (o->half == 1 ? "even" : "odd") : "all",
			sum->pairs, c.nbooks, now() - t0);
		report_params(o->out, p);
	}
	report(o, &c, pred, sum, p);
	if (o->index)
		ret = parity_run(o, &c, pred, sum);
	if (!ret && o->dump)
		dump_pairs(o->dump, &c, pred);
out:
	free(pred);
	corpus_release(&c);
	return ret;
}

/* The values tried by acc_tune() for each parameter. */
static const int g_sh[] = { 4, 6, 7, 8, 10, 12, 14, 16 };
static const int g_rsh[] = { -1, 6, 10, 14, 20 };
static const double g_its[] = { 0.6, 0.65, 0.7, 0.72, 0.75, 0.8, 2 };
static const double g_cs[] = { 0.05, 0.08, 0.12, 0.2, 2 };
static const double g_jac[] = { 0.02, 0.05, 0.1, 0.2, 2 };
static const double g_cmin[] = { 0.05, 0.1, 0.2, 0.3 };
static const double g_cwhole[] = { 0.6, 0.7, 0.75, 0.8, 0.85, 0.9 };
#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The tuning objective: mean class F1, and a hard cap on the false-alarm
 * rate (more than 1% of negatives flagged disqualifies). */
static double objective(const struct corpus *c, const enum relate_class *pred)
{
	struct prf g[G_N];
	unsigned neg = 0, flagged = 0, gn = 0, k;
	double macro = 0;
	size_t i;

	group_prf(c, pred, g);
	for (k = 0; k < G_N; k++) {
		if (g[k].tp + g[k].fn == 0)
			continue;
		macro += f1(&g[k]);
		gn++;
	}
	for (i = 0; i < c->npairs; i++) {
		if (!is_synth_neg(c->pairs[i].cat))
			continue;
		neg++;
		flagged += pred[i] != RELATE_UNRELATED;
	}
	macro = gn ? macro / gn : 0;
	return macro - (neg && (double)flagged / neg > 0.01 ? 1.0 : 0.0);
}

int acc_tune(const struct acc_opts *o, struct relate_params *best, struct acc_summary *sum)
{
	struct acc_opts train = *o, test = *o;
	struct relate_params p, cur;
	struct corpus c;
	enum relate_class *pred = NULL;
	double bestv = -1, v;
	size_t a, k;
	int ret, round;

	train.half = 1;
	train.real = 0;
	ret = corpus_build(&train, &c);
	if (ret)
		goto out;
	pred = calloc(c.npairs ? c.npairs : 1, sizeof(*pred));
	if (!pred) {
		ret = -ENOMEM;
		goto out;
	}
	relate_params_default(&p);
	/* Coordinate search from the defaults (the published thresholds where
	 * there are some): one parameter at a time over its grid, a change
	 * kept only when strictly better, two rounds.  Ties keep the default,
	 * so no threshold drifts towards the negatives for nothing. */
	*best = p;
	decide_all(&c, &p, pred);
	bestv = objective(&c, pred);
	for (round = 0; round < 2; round++) {
		for (k = 0; k < 7; k++) {
			size_t n = k == 0 ? N(g_sh) : k == 1 ? N(g_rsh) : k == 2 ? N(g_its) :
				   k == 3 ? N(g_cs) : k == 4 ? N(g_jac) : k == 5 ? N(g_cmin) : N(g_cwhole);

			for (a = 0; a < n; a++) {
				cur = *best;
				switch (k) {
				case 0: cur.simhash_near = g_sh[a]; break;
				case 1: cur.rsimhash_near = g_rsh[a]; break;
				case 2: cur.its_min = g_its[a]; break;
				case 3: cur.cs_min = g_cs[a]; break;
				case 4: cur.jaccard_min = g_jac[a]; break;
				case 5: cur.cover_min = g_cmin[a]; break;
				default: cur.cover_whole = g_cwhole[a]; break;
				}
				decide_all(&c, &cur, pred);
				v = objective(&c, pred);
				if (v > bestv + 1e-9) {
					bestv = v;
					*best = cur;
				}
			}
		}
	}
	if (o->out) {
		fprintf(o->out, "\n## Tuning on the even-numbered base books, seed %llu "
			"(%zu pairs; coordinate search from the defaults, a change kept only if "
			"strictly better); "
			"best mean class F1 %.4f at\n\n", (unsigned long long)o->seed,
			c.npairs, bestv);
		report_params(o->out, best);
	}
	corpus_release(&c);
	test.half = 2;
	test.seed = o->seed + 1;
	ret = acc_run(&test, best, sum);
out:
	if (ret)
		corpus_release(&c);
	free(pred);
	return ret;
}
