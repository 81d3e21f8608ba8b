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
#include "check.h"
#include "judge.h"

#define SHARE_TOLERANCE 10.0

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
};

static int load(const char *dir, const char *rel, struct book **b)
{
	char path[4096];

	if (snprintf(path, sizeof(path), "%s/%s", dir, rel) >= (int)sizeof(path))
		return -1;
	return book_load(path, NULL, b, NULL);
}

/* Checks one measured share m (percent) of book x_is_a ? a : b found in
 * the other; prints the table row. */
static int check_one(const struct pair *p, int x_is_a, double m, int *bad)
{
	double s = 100.0 * (x_is_a ? p->sa : p->sb);
	enum relate_class cx = x_is_a ? p->c.rel.cls : judge_mirror(p->c.rel.cls);
	unsigned listed;
	const char *where;

	/* the list that shows that share: x's own ("contains this", near
	 * duplicate, overlap), or the other's when x is a part of it */
	if (cx == RELATE_B_CONTAINS_A || cx == RELATE_NEAR_DUPLICATE || cx == RELATE_OVERLAP) {
		listed = x_is_a ? p->la : p->lb;
		where = "x's list";
	} else if (cx == RELATE_A_CONTAINS_B || cx == RELATE_UNRELATED) {
		listed = judge_share(judge_mirror(cx), x_is_a ? p->sb : p->sa, x_is_a ? p->sa : p->sb);
		where = cx == RELATE_UNRELATED ? "not listed" : "other's list";
		if (cx == RELATE_UNRELATED)
			listed = (unsigned)lround(s);
	} else {
		listed = 100;
		where = "x's list";
	}
	printf("| %s | %s | %s | %.1f%% | %u%% (%s) | %+.1f |\n", base(x_is_a ? p->a : p->b),
	       base(x_is_a ? p->b : p->a), relate_class_name(cx), m, listed, where, listed - m);
	if (fabs(listed - m) > SHARE_TOLERANCE || (listed == 100 && m < 99.5)) {
		(*bad)++;
		return 1;
	}
	return 0;
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
static int check_note(const struct pair *p, const char *note, int *bad)
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
		check_one(p, x_is_a, m, bad);
		if (seen == 2)
			break;
	}
	return n;
}

static void test_relations(void)
{
	const char *dir = getenv("SIMBOOK_BOOKS");
	char path[4096], line[4096];
	int rows = 0, bad = 0;
	FILE *f;

	if (!dir || snprintf(path, sizeof(path), "%s/RELATIONS.tsv", dir) >= (int)sizeof(path) ||
	    !(f = fopen(path, "r")))
		SKIP("no $SIMBOOK_BOOKS/RELATIONS.tsv");
	printf("| book X | other book Y | relation from X | measured share of X in Y | "
	       "listed | listed - measured |\n|---|---|---|--:|--:|--:|\n");
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
		judge_shares(&p.c.sig, &p.sa, &p.sb);
		p.la = judge_share(p.c.rel.cls, p.sa, p.sb);
		p.lb = judge_share(judge_mirror(p.c.rel.cls), p.sb, p.sa);
		rows += check_note(&p, note, &bad);
		book_free(p.ba);
		book_free(p.bb);
	}
	fclose(f);
	printf("%d measured shares, %d off by more than %.0f points\n", rows, bad,
	       SHARE_TOLERANCE);
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
