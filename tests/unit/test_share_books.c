/* The percentage the views list against the 5-gram containment measured
 * in $SIMBOOK_BOOKS/RELATIONS.tsv: every share a row's note gives ("NN% of
 * X's 5-grams occur in Y", "NN% the other way", "(NN% of Y)") must be
 * within SHARE_TOLERANCE points of the one a list shows for that side
 * (judge_shares(), judge_share()).  Prints the table listed vs measured
 * (docs/ACCURACY.md).  Skipped when the books are absent. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "book.h"
#include "extract.h"
#include "norm.h"
#include "check.h"
#include "judge.h"

#define SHARE_TOLERANCE 10.0

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static const char *base(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* 1 when the note's name for a book (X in "X's 5-grams") names file f:
 * "its" the row's first file, else a part of f's base name ("19033",
 * "pg1524", "1st-ed", "txt"). */
static int names(const char *x, const char *f, int first)
{
	if (!strcmp(x, "its"))
		return first;
	if (!strncmp(x, "the ", 4))
		x += 4;
	return *x && strstr(base(f), x) != NULL;
}

struct pair {
	const char *a, *b;
	struct book *ba, *bb;
	struct book_cmp c;
	double sa, sb;		/* judge_shares(): a in b, b in a */
	unsigned la, lb;	/* what a's list shows for b and b's list for a */
	double ea, eb;		/* exact 5-gram shares of the normalised texts */
};

static int load(const char *dir, const char *rel, struct book **b)
{
	char path[4096];

	if (snprintf(path, sizeof(path), "%s/%s", dir, rel) >= (int)sizeof(path))
		return -1;
	return book_load(path, NULL, b, NULL);
}

/* The distinct word 5-grams of a book's normalised text (what the
 * fingerprints read), as sorted 64-bit hashes: *n of them in *out. */
static int grams(const char *path, uint64_t **out, size_t *n)
{
	struct extract_doc doc;
	struct norm_doc nd;
	size_t i, k = 0, w;
	int ret;

	*out = NULL;
	*n = 0;
	extract_doc_init(&doc);
	norm_doc_init(&nd);
	ret = extract_file(path, NULL, &doc, NULL);
	if (!ret)
		ret = extract_normalize(&doc, &nd);
	if (!ret && nd.nwords >= 5 && !(*out = malloc(nd.nwords * sizeof(**out))))
		ret = -1;
	for (i = 0; !ret && i + 5 <= nd.nwords; i++) {
		size_t end = i + 5 < nd.nwords ? nd.word_off[i + 5] : nd.len;
		uint64_t h = 1469598103934665603u;

		for (w = nd.word_off[i]; w < end; w++)
			h = (h ^ (unsigned char)(nd.text[w] == '\n' ? ' ' : nd.text[w])) * 1099511628211u;
		(*out)[k++] = h;
	}
	if (k) {
		qsort(*out, k, sizeof(**out), u64_cmp);
		for (i = w = 0; i < k; i++)
			if (!w || (*out)[w - 1] != (*out)[i])
				(*out)[w++] = (*out)[i];
		k = w;
	}
	*n = k;
	norm_doc_release(&nd);
	extract_doc_release(&doc);
	return ret;
}

/* Exact share of x's distinct 5-grams found in y, in percent. */
static double exact_share(const uint64_t *x, size_t nx, const uint64_t *y, size_t ny)
{
	size_t i = 0, j = 0, both = 0;

	while (i < nx && j < ny) {
		if (x[i] == y[j])
			both++, i++, j++;
		else if (x[i] < y[j])
			i++;
		else
			j++;
	}
	return nx ? 100.0 * (double)both / (double)nx : 0.0;
}

/* Checks one measured share m (percent) of book x_is_a ? a : b found in
 * the other and prints its table row: the estimate (the anchor share) is
 * within SHARE_TOLERANCE points of the exact share of the normalised
 * texts (what the fingerprints read); where a list shows it, the listed
 * number is within SHARE_TOLERANCE of m where the normalised texts agree
 * with m within half of that (the Cambridge Shakespeare's line numbers and
 * footnote markers, which normalisation drops, break the measured 5-grams:
 * those rows are reported, not checked); 100 only for a text whole in the
 * other (99.5% of its 5-grams found). */
static void check_one(const struct pair *p, int x_is_a, double m, int *bad, int *agree)
{
	double s = 100.0 * (x_is_a ? p->sa : p->sb), e = x_is_a ? p->ea : p->eb;
	enum relate_class cx = x_is_a ? p->c.rel.cls : judge_mirror(p->c.rel.cls);
	int listed = cx != RELATE_UNRELATED && cx != RELATE_A_CONTAINS_B;
	unsigned shown = listed ? (x_is_a ? p->la : p->lb) : 0;
	int off = fabs(s - e) > SHARE_TOLERANCE ||
		  (listed && fabs(e - m) <= SHARE_TOLERANCE / 2 &&
		   fabs(shown - m) > SHARE_TOLERANCE) ||
		  (listed && shown == 100 && e < 99.5);
	char col[32];

	if (listed)
		snprintf(col, sizeof(col), "%u%%", shown);
	else
		snprintf(col, sizeof(col), "(%s)", cx == RELATE_UNRELATED ? "unrelated" : "part of X");
	printf("| %s | %s | %s | %.1f%% | %.1f%% | %.1f%% | %s | %s |\n",
	       base(x_is_a ? p->a : p->b), base(x_is_a ? p->b : p->a), relate_class_name(cx), m, e,
	       s, col, off ? "NO" : !listed ? "-" : fabs(shown - m) <= SHARE_TOLERANCE ? "yes" :
	       "text differs");
	*bad += off;
	*agree += listed && fabs(shown - m) <= SHARE_TOLERANCE;
}

/* The number before s[0] == '%' in note (-1 when none). */
static double number_before(const char *note, const char *s)
{
	const char *d = s;

	while (d > note && (isdigit((unsigned char)d[-1]) || d[-1] == '.'))
		d--;
	return d == s ? -1.0 : strtod(d, NULL);
}

/* The shares a note gives, checked: "NN% of X's 5-grams" (X one of the
 * two books), then "NN% the other way" or "(NN% of Y)" for the other one.
 * The number of shares checked. */
static int check_note(const struct pair *p, const char *note, int *bad, int *agree)
{
	const char *s, *t;
	int n = 0, x_is_a = 1, seen = 0;
	double m;

	for (s = strchr(note, '%'); s; s = strchr(s + 1, '%')) {
		m = number_before(note, s);
		t = s + 1;
		if (m < 0)
			continue;
		if (!seen && !strncmp(t, " of ", 4) && strstr(t, "5-grams") &&
		    strstr(t, "5-grams") - t < 40) {
			char x[64];
			size_t k = 0;

			t += 4;
			if (!strncmp(t, "the ", 4))
				t += 4;
			while (t[k] && t[k] != '\'' && t[k] != ' ' && k < sizeof(x) - 1)
				k++;
			memcpy(x, t, k);
			x[k] = 0;
			x_is_a = !(names(x, p->b, 0) && !names(x, p->a, 1));
			seen = 1;
		} else if (seen && (!strncmp(t, " the other way", 14) ||
				    (!strncmp(t, " of ", 4) && s - note >= 6 &&
				     memchr(s - 6, '(', 6)))) {
			x_is_a = !x_is_a;
			seen = 2;
		} else {
			continue;
		}
		n++;
		check_one(p, x_is_a, m, bad, agree);
		if (seen == 2)
			break;
	}
	return n;
}

static void test_relations(void)
{
	const char *dir = getenv("SIMBOOK_BOOKS");
	char path[4096], line[4096];
	int rows = 0, bad = 0, agree = 0;
	FILE *f;

	if (!dir || snprintf(path, sizeof(path), "%s/RELATIONS.tsv", dir) >= (int)sizeof(path) ||
	    !(f = fopen(path, "r")))
		SKIP("no $SIMBOOK_BOOKS/RELATIONS.tsv");
	printf("| book X | other book Y | relation from X | RELATIONS.tsv | normalised texts | "
	       "estimate | listed in X's list | within 10 |\n|---|---|---|--:|--:|--:|--:|---|\n");
	while (fgets(line, sizeof(line), f)) {
		struct pair p;
		char *fa, *fb, *cls, *note, *save = NULL;

		line[strcspn(line, "\r\n")] = 0;
		fa = strtok_r(line, "\t", &save);
		fb = strtok_r(NULL, "\t", &save);
		cls = strtok_r(NULL, "\t", &save);
		note = strtok_r(NULL, "\t", &save);
		if (!fa || !fb || !cls || !note || !strcmp(fa, "file_a") || !strstr(note, "5-grams"))
			continue;
		memset(&p, 0, sizeof(p));
		p.a = fa;
		p.b = fb;
		if (load(dir, fa, &p.ba) || load(dir, fb, &p.bb)) {
			book_free(p.ba);
			book_free(p.bb);
			continue;	/* a partial corpus: what is there */
		}
		REQUIRE(book_compare(p.ba, p.bb, NULL, &p.c) == 0);
		{
			uint64_t *ga = NULL, *gb = NULL;
			size_t na = 0, nb = 0;
			char pa[4096], pb[4096];

			snprintf(pa, sizeof(pa), "%s/%s", dir, fa);
			snprintf(pb, sizeof(pb), "%s/%s", dir, fb);
			REQUIRE(grams(pa, &ga, &na) == 0 && grams(pb, &gb, &nb) == 0);
			p.ea = exact_share(ga, na, gb, nb);
			p.eb = exact_share(gb, nb, ga, na);
			free(ga);
			free(gb);
		}
		judge_shares(&p.c.sig, &p.sa, &p.sb);
		p.la = judge_share(p.c.rel.cls, p.sa, p.sb);
		p.lb = judge_share(judge_mirror(p.c.rel.cls), p.sb, p.sa);
		rows += check_note(&p, note, &bad, &agree);
		book_free(p.ba);
		book_free(p.bb);
	}
	fclose(f);
	printf("%d measured shares, %d listed within %.0f points of RELATIONS.tsv, %d wrong\n",
	       rows, agree, SHARE_TOLERANCE, bad);
	if (!rows)
		SKIP("no measured 5-gram shares in RELATIONS.tsv");
	CHECK(rows >= 10);
	CHECK_EQ_INT(bad, 0);
}

int main(void)
{
	RUN(test_relations);
	return CHECK_DONE();
}
