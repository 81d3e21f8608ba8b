/* acc_corpus.c - the labelled corpus of the accuracy harness: base books
 * (real bodies and synthetic ones), the books derived from each by the
 * mutations of mutate.h with the pairs they form, the real-book pairs of
 * RELATIONS.tsv, each pair compared through the real pipeline (book.h). */
#include "acc_i.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "book.h"
#include "grow.h"
#include "mutate.h"
#include "norm.h"

const char *const acc_cat_names[ACC_NCAT] = {
	"identical file", "format (txt/html/epub)", "OCR 0.5-5%", "OCR 7-10%",
	"sentence edits", "partial 15-80%", "volume in whole", "book in anthology",
	"partial in parts, noisy, both sides", "book whole, 15-60% inserted",
	"anthology of two works vs each", "material of the partial books vs its base",
	"reworded 5-10% (revision)", "unrelated", "same author",
	"anthology vs third book, middle replaced", "reworded 25-100% (translation)",
	"reworded 100%, nouns capitalised (translation)",
	"real: edition", "real: part of", "real: unrelated", "real: other translation",
};

/* an edition of the same work: any relation, another wording included */
#define ANY_RELATED (BIT(RELATE_SAME_TEXT) | BIT(RELATE_NEAR_DUPLICATE) | \
	BIT(RELATE_A_CONTAINS_B) | BIT(RELATE_B_CONTAINS_A) | BIT(RELATE_OVERLAP) | \
	BIT(RELATE_OTHER_TRANSLATION))

static int corpus_add_book(struct corpus *c, struct book *b, uint32_t *idx)
{
	if (ARRAY_GROW(c->books, c->capb, c->nbooks + 1))
		return -ENOMEM;
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
	struct acc_pair *p;
	struct book_cmp cmp;
	int ret;

	if (ARRAY_GROW(c->pairs, c->capp, c->npairs + 1))
		return -ENOMEM;
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
	p->sub = 0;
	return 0;
}

void acc_corpus_release(struct corpus *c)
{
	size_t i;

	for (i = 0; i < c->nbooks; i++)
		book_free(c->books[i]);
	for (i = 0; i < c->npairs; i++)
		free((char *)c->pairs[i].name);
	free(c->books);
	free(c->pairs);
	free(c->twins);
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
 * scanned copy of a volume, an anthology, a partly replaced book.  Every
 * caller derived a book from t just before: the two are twins. */
static int noisy_pair(struct corpus *c, struct mut_rng *r, uint32_t orig, const struct sbuf *t,
		      struct sbuf *u, const char *name, enum acc_cat cat, enum relate_class label,
		      unsigned accept, double param, int swap)
{
	uint32_t d = 0;
	int ret;

	sbuf_setlen(u, 0);
	ret = mut_ocr(r, t->buf, t->len, 0.02, u, NULL);
	if (!ret)
		ret = derived_pair(c, orig, u, name, cat, label, accept, param, swap, &d);
	if (!ret && d && !ARRAY_GROW(c->twins, c->capt, c->ntwins + 1)) {
		c->twins[c->ntwins][0] = d - 1;
		c->twins[c->ntwins++][1] = d;
	} else if (!ret) {
		ret = -ENOMEM;
	}
	return ret;
}

/* The mutations of one base book: what its derived books share. */
struct derive {
	struct corpus *c;
	const struct base *bv;	/* every base */
	size_t nb, i;		/* how many; the one mutated */
	uint32_t orig;		/* the base's book */
	struct mut_rng r;
	struct sbuf t, u;	/* scratch texts */
};

/* An identical copy (every third book: the rule is trivial), then the
 * HTML and EPUB formats. */
static int derive_copies(struct derive *dv)
{
	struct corpus *c = dv->c;
	const struct base *b = &dv->bv[dv->i];
	uint32_t idx;
	int ret = 0;

	if (dv->i % 3 == 0) {
		sbuf_setlen(&dv->t, 0);
		ret = sbuf_add(&dv->t, b->text, b->len);
		if (!ret)
			ret = derived_pair(c, dv->orig, &dv->t, "copy.txt", ACC_IDENT,
					   RELATE_IDENTICAL_FILE, 0, 0, 0, NULL);
	}
	sbuf_setlen(&dv->t, 0);
	if (!ret)
		ret = mut_html(b->name, b->text, b->len, &dv->t);
	if (!ret)
		ret = derived_pair(c, dv->orig, &dv->t, "book.html", ACC_FORMAT, RELATE_SAME_TEXT,
				   BIT(RELATE_NEAR_DUPLICATE), 0, (int)(dv->i & 1), NULL);
	if (!ret) {
		ret = load_epub(c, b->name, b->text, b->len, 2 + (unsigned)mut_rng_below(&dv->r, 12),
				&idx);
		if (!ret)
			ret = corpus_add_pair(c, idx, dv->orig, ACC_FORMAT, RELATE_SAME_TEXT,
					      BIT(RELATE_NEAR_DUPLICATE), 0);
	}
	return ret;
}

/* OCR errors at each rate of ocr[0..nocr-1]; *noisy receives the book of
 * the third rate. */
static int derive_ocr(struct derive *dv, const double *ocr, size_t nocr, uint32_t *noisy)
{
	const struct base *b = &dv->bv[dv->i];
	uint32_t idx;
	size_t k;
	int ret = 0;

	for (k = 0; k < nocr && !ret; k++) {
		sbuf_setlen(&dv->t, 0);
		ret = mut_ocr(&dv->r, b->text, b->len, ocr[k], &dv->t, NULL);
		if (!ret)
			ret = derived_pair(dv->c, dv->orig, &dv->t, "ocr.txt",
					   ocr[k] <= 0.05 + 1e-9 ? ACC_OCR_LOW : ACC_OCR_HIGH,
					   RELATE_NEAR_DUPLICATE, 0, ocr[k], (int)(k & 1), &idx);
		if (!ret && k == 2)
			*noisy = idx;
	}
	return ret;
}

/* Sentence additions and removals, with 1% OCR on top. */
static int derive_edits(struct derive *dv)
{
	const struct base *b = &dv->bv[dv->i], *d1 = &dv->bv[(dv->i + 1) % dv->nb];
	double f;
	size_t k;
	int ret = 0;

	for (k = 0; k < 2 && !ret; k++) {
		f = k ? 0.15 : 0.05;
		sbuf_setlen(&dv->t, 0);
		sbuf_setlen(&dv->u, 0);
		ret = mut_sentences(&dv->r, b->text, b->len, d1->text, d1->len, f, &dv->t, NULL, NULL);
		if (!ret)
			ret = mut_ocr(&dv->r, dv->t.buf, dv->t.len, 0.01, &dv->u, NULL);
		if (!ret)
			ret = derived_pair(dv->c, dv->orig, &dv->u, "edited.txt", ACC_SENT,
					   RELATE_NEAR_DUPLICATE, 0, f, (int)(k & 1), NULL);
	}
	return ret;
}

/* Partial replacement of 15-80%, by text of other books joined until
 * there is enough of it. */
static int derive_partial(struct derive *dv)
{
	const struct base *bv = dv->bv, *b = &bv[dv->i];
	size_t nb = dv->nb, i = dv->i, j, k;
	double f;
	int ret = 0;

	for (k = 0; k < 2 && !ret; k++) {
		f = 0.15 + 0.65 * mut_rng_unit(&dv->r);
		sbuf_setlen(&dv->u, 0);
		for (j = 1; j < nb && !ret && dv->u.len < (size_t)(f * (double)b->len) + 64; j++) {
			const struct base *x = &bv[(i + j + k) % nb];

			if (x != b)
				ret = mut_join((const char *const *)&x->text, &x->len, 1, &dv->u);
		}
		sbuf_setlen(&dv->t, 0);
		if (!ret)
			ret = mut_replace(&dv->r, b->text, b->len, dv->u.buf, dv->u.len, f, &dv->t, NULL);
		if (!ret)
			ret = derived_pair(dv->c, dv->orig, &dv->t, "partial.txt", ACC_PARTIAL,
					   RELATE_OVERLAP, f <= 0.25 ? BIT(RELATE_NEAR_DUPLICATE) : 0, f,
					   (int)(k & 1), NULL);
		if (!ret && k == 1)
			ret = noisy_pair(dv->c, &dv->r, dv->orig, &dv->t, &dv->u, "partial-ocr.txt",
					 ACC_PARTIAL, RELATE_OVERLAP,
					 f <= 0.25 ? BIT(RELATE_NEAR_DUPLICATE) : 0, f, 0);
	}
	return ret;
}

/* Volume 1: a leading 20-60% inside the whole. */
static int derive_volume(struct derive *dv)
{
	const struct base *b = &dv->bv[dv->i];
	double f;
	int ret;

	f = 0.2 + 0.4 * mut_rng_unit(&dv->r);
	sbuf_setlen(&dv->t, 0);
	ret = mut_slice(b->text, b->len, 0.0, f, &dv->t);
	if (!ret)
		ret = derived_pair(dv->c, dv->orig, &dv->t, "vol1.txt", ACC_VOLUME, RELATE_B_CONTAINS_A,
				   0, f, (int)(dv->i & 1), NULL);
	if (!ret)
		ret = noisy_pair(dv->c, &dv->r, dv->orig, &dv->t, &dv->u, "vol1-ocr.txt", ACC_VOLUME,
				 RELATE_B_CONTAINS_A, 0, f, (int)(~dv->i & 1));
	return ret;
}

/* The whole book inside an anthology with parts of three others. */
static int derive_anthology(struct derive *dv)
{
	const struct base *bv = dv->bv, *b = &bv[dv->i];
	size_t nb = dv->nb, i = dv->i, j, k, pos;
	const char *parts[4];
	size_t lens[4];
	double f;
	int ret = 0;

	pos = (size_t)mut_rng_below(&dv->r, 4);
	for (j = 0, k = 0; j < 4; j++) {
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
		lens[j] = (size_t)((0.25 + 0.35 * mut_rng_unit(&dv->r)) * (double)b->len);
		if (lens[j] > x->len)
			lens[j] = x->len;
		parts[j] = x->text + (size_t)(mut_rng_unit(&dv->r) * (double)(x->len - lens[j]));
		/* cut on white space so no word is split */
		while (lens[j] && parts[j] > x->text && parts[j][-1] != ' ' && parts[j][-1] != '\n') {
			parts[j]++;
			lens[j]--;
		}
		while (lens[j] && parts[j][lens[j] - 1] != ' ' && parts[j][lens[j] - 1] != '\n')
			lens[j]--;
	}
	sbuf_setlen(&dv->t, 0);
	ret = mut_join(parts, lens, 4, &dv->t);
	if (ret)
		return ret;
	/* with short other books the book may still be most of the
	 * anthology: then a near duplicate is right too */
	f = (double)b->len / (double)dv->t.len;
	ret = derived_pair(dv->c, dv->orig, &dv->t, "anthology.txt", ACC_ANTHOLOGY,
			   RELATE_A_CONTAINS_B, f >= 0.8 ? BIT(RELATE_NEAR_DUPLICATE) : 0, f, 1, NULL);
	if (!ret)
		ret = noisy_pair(dv->c, &dv->r, dv->orig, &dv->t, &dv->u, "anthology-ocr.txt",
				 ACC_ANTHOLOGY, RELATE_A_CONTAINS_B,
				 f >= 0.8 ? BIT(RELATE_NEAR_DUPLICATE) : 0, f, 1);
	return ret;
}

/* Rewording (mut_reword()): a revision (5% and 10% of the words, with
 * synonyms and 1% OCR errors) is a near duplicate; another translation
 * (25%, 35% and 50% with synonyms, 75% and 100% in a pseudo-language)
 * keeps only the names and numbers in order and is a relation of its own.
 * A quarter of the words reworded shares as many 5-grams (Jaccard
 * 0.09-0.24) as two real English translations of one scripture book
 * (docs/ACCURACY.md, "Real translations in one language"). */
static int derive_reword(struct derive *dv)
{
	static const struct {
		double rate;
		unsigned variants;
		double ocr;
	} kinds[] = { { 0.05, 3, 0.01 }, { 0.10, 3, 0.01 }, { 0.25, 3, 0 }, { 0.35, 3, 0.01 },
		      { 0.50, 3, 0 }, { 0.75, 1, 0 }, { 1.0, 1, 0.02 } };
	const struct base *b = &dv->bv[dv->i];
	size_t k;
	int ret = 0;

	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]) && !ret; k++) {
		int transl = kinds[k].rate >= 0.25;

		sbuf_setlen(&dv->t, 0);
		ret = mut_reword(&dv->r, b->text, b->len, kinds[k].rate, 1 + dv->i % 3 + k,
				 kinds[k].variants, &dv->t);
		if (!ret && kinds[k].ocr > 0) {
			sbuf_setlen(&dv->u, 0);
			ret = mut_ocr(&dv->r, dv->t.buf, dv->t.len, kinds[k].ocr, &dv->u, NULL);
			sbuf_setlen(&dv->t, 0);
			if (!ret)
				ret = sbuf_add(&dv->t, dv->u.buf, dv->u.len);
		}
		if (!ret)
			ret = derived_pair(dv->c, dv->orig, &dv->t, transl ? "translated.txt" :
					   "revised.txt", transl ? ACC_TRANSL : ACC_REVISED,
					   transl ? RELATE_OTHER_TRANSLATION : RELATE_NEAR_DUPLICATE,
					   0, kinds[k].rate, (int)(k & 1), NULL);
	}
	/* a language that writes its nouns with a capital (German): the
	 * pseudo-language translation with a third of its words nouns */
	if (!ret) {
		sbuf_setlen(&dv->t, 0);
		ret = mut_reword(&dv->r, b->text, b->len, 1.0, 4 + dv->i % 3, 1, &dv->t);
	}
	if (!ret) {
		sbuf_setlen(&dv->u, 0);
		ret = mut_nouns(&dv->r, dv->t.buf, dv->t.len, 0.3, &dv->u);
	}
	if (!ret)
		ret = derived_pair(dv->c, dv->orig, &dv->u, "translated-nouns.txt",
				   ACC_TRANSL_NOUNS, RELATE_OTHER_TRANSLATION, 0, 1.0, 0, NULL);
	return ret;
}

/* The sparse-alignment negative: an anthology of the next two bases
 * against the third one with its middle 40% replaced by the fourth: books
 * of one genre (or of one synthetic author) share scattered rare words in
 * order by chance, but no text. */
static int derive_sparse(struct derive *dv)
{
	const struct base *bv = dv->bv;
	size_t nb = dv->nb, i = dv->i;
	const struct base *x = &bv[(i + 1) % nb], *y = &bv[(i + 2) % nb];
	const struct base *z = &bv[(i + 3) % nb], *w = &bv[(i + 4) % nb];
	const char *parts[2] = { x->text, y->text };
	size_t lens[2] = { x->len, y->len };
	uint32_t ia, ib;
	int ret;

	if (nb < 5)
		return 0;
	sbuf_setlen(&dv->t, 0);
	ret = mut_join(parts, lens, 2, &dv->t);
	if (!ret)
		ret = load_buf(dv->c, dv->t.buf, dv->t.len, "anthology2.txt", &ia);
	sbuf_setlen(&dv->t, 0);
	if (!ret)
		ret = mut_replace(&dv->r, z->text, z->len, w->text, w->len, 0.4, &dv->t, NULL);
	if (!ret)
		ret = load_buf(dv->c, dv->t.buf, dv->t.len, "middle.txt", &ib);
	if (!ret)
		ret = corpus_add_pair(dv->c, ia, ib, ACC_SPARSE, RELATE_UNRELATED, 0, 0.4);
	return ret;
}

/* Negatives: every pair of originals, and a noisy copy against another
 * book (a derived book sharing no text with it). */
static int add_negatives(struct corpus *c, const struct base *bv, size_t nb, const uint32_t *orig,
			 const uint32_t *noisy)
{
	size_t i, j;
	int ret = 0;

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
	return ret;
}

/* The base books, every book derived from each (in this order: the
 * mutations draw from one generator per base), and the negatives. */
static int build_corpus(const struct acc_opts *o, const struct base *bv, size_t nb,
			struct corpus *c)
{
	static const double ocr_full[] = { 0.005, 0.01, 0.02, 0.03, 0.04, 0.05, 0.07, 0.10 };
	static const double ocr_quick[] = { 0.01, 0.03, 0.05, 0.10 };
	const double *ocr = o->quick ? ocr_quick : ocr_full;
	size_t nocr = o->quick ? 4 : 8;
	uint32_t *orig = NULL, *noisy = NULL;
	struct derive dv;
	char name[96];
	size_t i;
	int ret = 0;

	memset(&dv, 0, sizeof(dv));
	sbuf_init(&dv.t);
	sbuf_init(&dv.u);
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
	dv.c = c;
	dv.bv = bv;
	dv.nb = nb;
	for (i = 0; i < nb && !ret; i++) {
		dv.i = i;
		dv.orig = orig[i];
		mut_rng_seed(&dv.r, o->seed * UINT64_C(1000003) + i);
		ret = derive_copies(&dv);
		if (!ret)
			ret = derive_ocr(&dv, ocr, nocr, &noisy[i]);
		if (!ret)
			ret = derive_edits(&dv);
		if (!ret)
			ret = derive_partial(&dv);
		if (!ret)
			ret = derive_volume(&dv);
		if (!ret)
			ret = derive_anthology(&dv);
		if (!ret)
			ret = derive_reword(&dv);
		if (!ret)
			ret = derive_sparse(&dv);
		if (!ret)
			ret = acc_partial_derive(c, bv, nb, i, orig, o->quick, &dv.r);
	}
	if (!ret)
		ret = add_negatives(c, bv, nb, orig, noisy);
out:
	free(orig);
	free(noisy);
	sbuf_release(&dv.t);
	sbuf_release(&dv.u);
	return ret;
}

int acc_corpus_load(struct corpus *c, const char *text, size_t len, const char *name,
		    uint32_t *idx)
{
	return load_buf(c, text, len, name, idx);
}

int acc_corpus_pair(struct corpus *c, uint32_t a, uint32_t b, enum acc_cat cat,
		    enum relate_class label, unsigned accept, double param)
{
	return corpus_add_pair(c, a, b, cat, label, accept, param);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* 1 when RELATIONS.tsv (rel) joins files a and b through rows of the
 * same work (editions, translations), two steps at most. */
static int linked(const char *rel, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	const char *p, *e;

	for (p = rel; *p; p = *e ? e + 1 : e) {
		e = strchr(p, '\n');
		if (!e)
			e = p + strlen(p);
		if (!((!strncmp(p, a, la) && p[la] == '\t' && !strncmp(p + la + 1, b, lb) &&
		       p[la + 1 + lb] == '\t') ||
		      (!strncmp(p, b, lb) && p[lb] == '\t' && !strncmp(p + lb + 1, a, la) &&
		       p[lb + 1 + la] == '\t')))
			continue;
		p += la + lb + 2;
		return !strncmp(p, "same-work", 9) || !strncmp(p, "other-translation", 17);
	}
	return 0;
}

static int same_work(const char *rel, const char *a, const char *b)
{
	const char *p, *t, *e;
	char mid[512];
	size_t n;

	/* every file named first or second in a row is a candidate middle */
	for (p = rel; *p; p = *e ? e + 1 : e) {
		e = strchr(p, '\n');
		if (!e)
			e = p + strlen(p);
		for (t = p; t < e && *t != '\t'; t++)
			;
		n = (size_t)(t - p);
		if (n && n < sizeof(mid)) {
			memcpy(mid, p, n);
			mid[n] = '\0';
			if (linked(rel, a, mid) && linked(rel, mid, b))
				return 1;
		}
		if (t < e) {
			const char *u = t + 1;

			for (t = u; t < e && *t != '\t'; t++)
				;
			n = (size_t)(t - u);
			if (n && n < sizeof(mid)) {
				memcpy(mid, u, n);
				mid[n] = '\0';
				if (linked(rel, a, mid) && linked(rel, mid, b))
					return 1;
			}
		}
	}
	return 0;
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
	const char *sub[3] = { "texts", "epub", "translations" };
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
	for (s = 0; s < 3 && !ret; s++) {
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
			if (ARRAY_GROW(names, cap, n + 1)) {
				ret = -ENOMEM;
				break;
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
				} else if (!strncmp(p, "other-translation", 17)) {
					cat = ACC_REAL_TRANSL;
					label = RELATE_OTHER_TRANSLATION;
				}
				break;
			}
			/* not listed, but the same work as a translation through
			 * listed rows (the Rackham Alice and the German one) */
			if (cat == ACC_REAL_UNREL && same_work(rel.buf, names[i], names[j]) &&
			    (!strncmp(names[i], "translations/", 13) ||
			     !strncmp(names[j], "translations/", 13))) {
				cat = ACC_REAL_TRANSL;
				label = RELATE_OTHER_TRANSLATION;
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

/* Builds the corpus of o into c. */
int acc_corpus_build(const struct acc_opts *o, struct corpus *c)
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
