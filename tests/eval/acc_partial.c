/* acc_partial.c - the hard partial cases of the accuracy harness: a book of
 * 20 KB to 2 MB with 15-80% of it replaced by other text (one block at its
 * start, middle or end, several blocks, interleaved chapters), with OCR
 * noise and sentence edits, each judged from both sides; the book whole
 * with other text inserted (containment); an anthology of two whole works
 * that each have their near duplicates in the corpus (clusters/ must keep
 * the works apart).  See acc_i.h and docs/ACCURACY.md. */
#include "acc_i.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "grow.h"
#include "sbuf.h"

#define MIN_BYTES 20000.0
#define MAX_BYTES 2000000.0
#define QUICK_MAX_BYTES 150000.0
#define CHAPTER_MIN 6000

/* The layouts of ACC_PARTS books (acc_pair.sub). */
enum layout { L_START, L_MIDDLE, L_END, L_BLOCKS, L_CHAPTERS, L_NOISY_BLOCK, L_N };

static const char *const layout_names[L_N] = {
	"one block at the start", "one block in the middle", "one block at the end",
	"2-5 blocks, 1-5% OCR", "2-40 interleaved chapters (6 KB or more), 5% sentence edits, 1% OCR",
	"one block anywhere, 1-5% OCR and 5% sentence edits",
};

/* Appends bases from first on (skipping skip and wrapping round) to out
 * until it holds want bytes or every base was used. */
static int gather(const struct base *bv, size_t nb, size_t first, size_t skip, size_t want,
		  struct sbuf *out)
{
	size_t k;
	int ret = 0;

	for (k = 0; k < nb && !ret && out->len < want; k++) {
		size_t j = (first + k) % nb;

		if (j == skip)
			continue;
		ret = sbuf_add(out, bv[j].text, bv[j].len);
		if (!ret)
			ret = sbuf_add(out, "\n\n", 2);
	}
	return ret;
}

/* The material of base i: its text from a random white space on, cut to a
 * size drawn log-uniform in [MIN_BYTES, max]; the bases after it appended
 * when it is shorter (a long book). */
static int material(const struct base *bv, size_t nb, size_t i, double max, struct mut_rng *r,
		    struct sbuf *out)
{
	size_t want = (size_t)(MIN_BYTES * exp(mut_rng_unit(r) * log(max / MIN_BYTES)));
	const struct base *b = &bv[i];
	size_t from = 0, end;
	int ret;

	if (b->len > want) {
		from = (size_t)mut_rng_below(r, b->len - want);
		while (from < b->len && b->text[from] != ' ' && b->text[from] != '\n')
			from++;
	}
	ret = sbuf_add(out, b->text + from, b->len - from < want ? b->len - from : want);
	if (!ret && out->len < want)
		ret = sbuf_add(out, "\n\n", 2);
	if (!ret)
		ret = gather(bv, nb, i + 1, i, want, out);
	end = out->len < want ? out->len : want;
	while (end > 0 && out->buf[end - 1] != ' ' && out->buf[end - 1] != '\n')
		end--;
	if (!ret)
		sbuf_setlen(out, end);
	return ret;
}

/* The material m (text mt) against its base b (book orig): a part of it,
 * or the whole of it among other books; a near duplicate too when the
 * smaller is 80% of the larger or more (as for anthologies). */
static int material_pair(struct corpus *c, const struct base *b, uint32_t orig, uint32_t m,
			 const struct sbuf *mt)
{
	int part = mt->len < b->len;
	double f = part ? (double)mt->len / (double)b->len : (double)b->len / (double)mt->len;

	return acc_corpus_pair(c, m, orig, ACC_MATERIAL,
			       part ? RELATE_B_CONTAINS_A : RELATE_A_CONTAINS_B,
			       f >= 0.8 ? BIT(RELATE_NEAR_DUPLICATE) : 0, f);
}

/* OCR errors at rate (0: none) on t, through scratch u. */
static int noise(struct mut_rng *r, double rate, struct sbuf *t, struct sbuf *u)
{
	int ret;

	if (rate <= 0.0)
		return 0;
	sbuf_setlen(u, 0);
	ret = mut_ocr(r, t->buf, t->len, rate, u, NULL);
	sbuf_setlen(t, 0);
	return ret ? ret : sbuf_add(t, u->buf, u->len);
}

/* Sentence edits at rate on t (donor: the other text), through u. */
static int edits(struct mut_rng *r, double rate, const struct sbuf *donor, struct sbuf *t,
		 struct sbuf *u)
{
	int ret;

	sbuf_setlen(u, 0);
	ret = mut_sentences(r, t->buf, t->len, donor->buf, donor->len, rate, u, NULL, NULL);
	sbuf_setlen(t, 0);
	return ret ? ret : sbuf_add(t, u->buf, u->len);
}

/* Adds the derived book t and its pair with the material m from both
 * sides: label is the class with the derived book as A. */
static int both_sides(struct corpus *c, uint32_t m, const struct sbuf *t, const char *name,
		      enum acc_cat cat, enum relate_class label, unsigned accept, double f,
		      unsigned sub)
{
	enum relate_class mirror = label == RELATE_A_CONTAINS_B ? RELATE_B_CONTAINS_A : label;
	uint32_t d;
	int ret;

	ret = acc_corpus_load(c, t->buf, t->len, name, &d);
	if (!ret)
		ret = acc_corpus_pair(c, d, m, cat, label, accept, f);
	if (!ret) {
		c->pairs[c->npairs - 1].sub = (uint8_t)sub;
		ret = acc_corpus_pair(c, m, d, cat, mirror, accept, f);
	}
	if (!ret)
		c->pairs[c->npairs - 1].sub = (uint8_t)sub;
	return ret;
}

/* 8 to 40 chapters, none under CHAPTER_MIN bytes (about 1,000 words: a
 * shorter piece is a sentence edit, not a chapter), at least 2. */
static unsigned chapters(struct mut_rng *r, size_t len)
{
	unsigned n = 8 + (unsigned)mut_rng_below(r, 33);

	if (n > len / CHAPTER_MIN)
		n = (unsigned)(len / CHAPTER_MIN);
	return n < 2 ? 2 : n;
}

/* One replaced book of layout l from material m (text mt), donor text dn. */
static int replaced(struct corpus *c, struct mut_rng *r, uint32_t m, const struct sbuf *mt,
		    const struct sbuf *dn, enum layout l, struct sbuf *t, struct sbuf *u)
{
	struct mut_parts_spec sp = { 0.15 + 0.65 * mut_rng_unit(r), 1, -1.0, 0 };
	double ocr = 0.01 + 0.04 * mut_rng_unit(r);
	int ret;

	if (l <= L_END)
		sp.where = l == L_START ? 0.0 : l == L_MIDDLE ? 0.5 : 1.0;
	else if (l == L_BLOCKS)
		sp.nparts = 2 + (unsigned)mut_rng_below(r, 4);
	else if (l == L_CHAPTERS)
		sp.nparts = chapters(r, mt->len), sp.where = 0.0;
	sbuf_setlen(t, 0);
	ret = mut_parts(r, mt->buf, mt->len, dn->buf, dn->len, &sp, t, NULL);
	if (!ret && l == L_CHAPTERS)
		ret = edits(r, 0.05, dn, t, u);
	if (!ret && (l == L_BLOCKS || l == L_NOISY_BLOCK))
		ret = noise(r, ocr, t, u);
	if (!ret && l == L_NOISY_BLOCK)
		ret = edits(r, 0.05, dn, t, u);
	if (!ret && l == L_CHAPTERS)
		ret = noise(r, 0.01, t, u);
	if (!ret)
		ret = both_sides(c, m, t, "parts.txt", ACC_PARTS, RELATE_OVERLAP,
				 sp.frac <= 0.25 ? BIT(RELATE_NEAR_DUPLICATE) : 0, sp.frac,
				 (unsigned)l);
	return ret;
}

/* The material whole with 15-60% of other text inserted in 1-3 parts,
 * with 1-5% OCR errors for odd bases: it contains the material. */
static int inserted(struct corpus *c, struct mut_rng *r, size_t i, uint32_t m,
		    const struct sbuf *mt, const struct sbuf *dn, struct sbuf *t, struct sbuf *u)
{
	struct mut_parts_spec sp = { 0.15 + 0.45 * mut_rng_unit(r),
				     1 + (unsigned)mut_rng_below(r, 3), -1.0, 1 };
	int ret;

	sbuf_setlen(t, 0);
	ret = mut_parts(r, mt->buf, mt->len, dn->buf, dn->len, &sp, t, NULL);
	if (!ret)
		ret = noise(r, i & 1 ? 0.01 + 0.04 * mut_rng_unit(r) : 0.0, t, u);
	if (!ret)
		ret = both_sides(c, m, t, "inserted.txt", ACC_INSERTED, RELATE_A_CONTAINS_B,
				 sp.frac <= 0.2 ? BIT(RELATE_NEAR_DUPLICATE) : 0, sp.frac, 0);
	return ret;
}

/* Every third base: the anthology of it and the base two further on (the
 * sparse negatives join next bases), both whole, clean and after 2% OCR
 * errors (the two are near duplicates of each other: twins); each
 * contains both works. */
static int two_works(struct corpus *c, const struct base *bv, size_t nb, size_t i,
		     const uint32_t *origs, struct mut_rng *r, struct sbuf *t, struct sbuf *u)
{
	const char *parts[2] = { bv[i].text, bv[(i + 2) % nb].text };
	size_t lens[2] = { bv[i].len, bv[(i + 2) % nb].len }, k;
	uint32_t an[2];
	int ret;

	sbuf_setlen(t, 0);
	ret = mut_join(parts, lens, 2, t);
	if (!ret)
		ret = acc_corpus_load(c, t->buf, t->len, "two-works.txt", &an[0]);
	if (!ret)
		ret = noise(r, 0.02, t, u);
	if (!ret)
		ret = acc_corpus_load(c, t->buf, t->len, "two-works-ocr.txt", &an[1]);
	if (!ret && ARRAY_GROW(c->twins, c->capt, c->ntwins + 1))
		ret = -ENOMEM;
	if (!ret) {
		c->twins[c->ntwins][0] = an[0];
		c->twins[c->ntwins++][1] = an[1];
	}
	for (k = 0; k < 4 && !ret; k++) {
		double f = (double)lens[k % 2] / (double)(lens[0] + lens[1]);

		/* a work of 80% or more of the anthology: near duplicate too */
		ret = acc_corpus_pair(c, an[k / 2], origs[(i + 2 * (k % 2)) % nb], ACC_TWO_WORKS,
				      RELATE_A_CONTAINS_B, f >= 0.8 ? BIT(RELATE_NEAR_DUPLICATE) : 0,
				      f);
	}
	return ret;
}

int acc_partial_derive(struct corpus *c, const struct base *bv, size_t nb, size_t i,
		       const uint32_t *origs, int quick, struct mut_rng *r)
{
	struct sbuf mt, dn, t, u;
	uint32_t m;
	int ret, l;

	if (nb < 3)
		return 0;
	sbuf_init(&mt);
	sbuf_init(&dn);
	sbuf_init(&t);
	sbuf_init(&u);
	ret = material(bv, nb, i, quick ? QUICK_MAX_BYTES : MAX_BYTES, r, &mt);
	if (!ret)
		ret = acc_corpus_load(c, mt.buf, mt.len, "material.txt", &m);
	if (!ret)
		ret = material_pair(c, &bv[i], origs[i], m, &mt);
	/* other text: the bases from the far side of the list on (those in
	 * the material may come round again only in a short corpus) */
	if (!ret)
		ret = gather(bv, nb, i + nb / 2, i, (size_t)(1.6 * (double)mt.len), &dn);
	for (l = 0; l < L_N && !ret; l++)
		ret = replaced(c, r, m, &mt, &dn, (enum layout)l, &t, &u);
	if (!ret)
		ret = inserted(c, r, i, m, &mt, &dn, &t, &u);
	if (!ret && i % 3 == 0)
		ret = two_works(c, bv, nb, i, origs, r, &t, &u);
	sbuf_release(&mt);
	sbuf_release(&dn);
	sbuf_release(&t);
	sbuf_release(&u);
	return ret;
}

/* One row of the breakdown: right answers of n. */
static void row(FILE *f, const char *name, const unsigned *v)
{
	if (v[1])
		fprintf(f, "| %s | %u | %u | %.1f%% |\n", name, v[1], v[0], 100.0 * v[0] / v[1]);
}

void acc_partial_report(FILE *f, const struct corpus *c, const enum relate_class *pred)
{
	static const char *const sizes[3] = { "under 100 KB", "100-500 KB", "over 500 KB" };
	static const char *const fracs[3] = { "15-25%", "25-50%", "50-80%" };
	unsigned lay[L_N][2] = { { 0 } }, sz[3][2] = { { 0 } }, fr[3][2] = { { 0 } };
	unsigned ins[2] = { 0 }, two[2] = { 0 };
	size_t i, k;

	for (i = 0; i < c->npairs; i++) {
		const struct acc_pair *p = &c->pairs[i];
		/* size: the mean of the two books, at about 6 bytes a word */
		double bytes = 3.0 * (double)(p->sig.words_a + p->sig.words_b);
		unsigned ok = (p->accept & BIT(pred[i])) != 0;
		unsigned s = bytes < 100e3 ? 0 : bytes < 500e3 ? 1 : 2;
		unsigned q = p->param <= 0.25f ? 0 : p->param <= 0.5f ? 1 : 2;

		if (p->cat == ACC_TWO_WORKS) {
			two[0] += ok;
			two[1]++;
			continue;
		}
		if (p->cat != ACC_PARTS && p->cat != ACC_INSERTED)
			continue;
		if (p->cat == ACC_INSERTED) {
			ins[0] += ok;
			ins[1]++;
		} else {
			lay[p->sub][0] += ok;
			lay[p->sub][1]++;
		}
		sz[s][0] += ok;
		sz[s][1]++;
		fr[q][0] += ok;
		fr[q][1]++;
	}
	fprintf(f, "\n### Partial overlaps in parts, both sides\n\n"
		"Pairs of `acc_partial.c` (each book judged from both sides) answered right "
		"(the label or an accepted class), by layout, by size (bytes, estimated from "
		"the words) and by the share of other text:\n\n"
		"| pairs | n | right | recall |\n|---|--:|--:|--:|\n");
	for (k = 0; k < L_N; k++)
		row(f, layout_names[k], lay[k]);
	row(f, "book whole, 15-60% inserted (containment)", ins);
	for (k = 0; k < 3; k++)
		row(f, sizes[k], sz[k]);
	for (k = 0; k < 3; k++)
		row(f, fracs[k], fr[k]);
	row(f, "anthology of two works vs each (containment)", two);
}
