/* accuracy.c - the accuracy harness: builds the labelled corpus, scores
 * every pair, prints the report (Markdown) on stdout.  See acc.h and
 * docs/ACCURACY.md.
 *
 *   build/bench/accuracy [--seed N] [--quick] [--tune] [--no-real] [--sweep]
 *                        [--dump FILE] [--books DIR] [--index]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acc.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: accuracy [--seed N] [--quick] [--tune] [--no-real] [--sweep] [--dump FILE]\n"
		"                [--books DIR] [--index]\n"
		"  --quick    small synthetic corpus (what the unit test runs)\n"
		"  --tune     grid-search relate() on even-numbered bases (seed N), report on\n"
		"             the odd-numbered ones with seed N+1 (held out)\n"
		"  --no-real  skip the real-book pairs (RELATIONS.tsv)\n"
		"  --sweep    print every threshold of every method\n"
		"  --dump     write every pair's scores and decision to FILE (TSV)\n"
		"  --books    real-book corpus (default $SIMBOOK_BOOKS; synthetic only if unset)\n"
		"  --index    also index every book (LMDB) and score the pairs the similar/\n"
		"             views list against the labels, next to book_compare()\n");
}

int main(int argc, char **argv)
{
	struct acc_opts o = { 1, 0, NULL, 0, 1, 0, stdout, NULL, 0 };
	struct acc_summary s;
	struct relate_params p;
	int tune = 0, i, ret;

	o.books = getenv("SIMBOOK_BOOKS");
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			o.seed = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--quick"))
			o.quick = 1;
		else if (!strcmp(argv[i], "--tune"))
			tune = 1;
		else if (!strcmp(argv[i], "--no-real"))
			o.real = 0;
		else if (!strcmp(argv[i], "--sweep"))
			o.sweep = 1;
		else if (!strcmp(argv[i], "--index"))
			o.index = 1;
		else if (!strcmp(argv[i], "--dump") && i + 1 < argc) {
			o.dump = fopen(argv[++i], "w");
			if (!o.dump) {
				perror(argv[i]);
				return 1;
			}
		} else if (!strcmp(argv[i], "--books") && i + 1 < argc)
			o.books = argv[++i];
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (o.books && !*o.books)
		o.books = NULL;
	if (tune && o.index) {
		/* the views decide with relate()'s defaults */
		fprintf(stderr, "accuracy: --index measures the default rule: not with --tune\n");
		return 2;
	}
	printf("# simbook accuracy report\n\ncommand:");
	for (i = 0; i < argc; i++)
		printf(" %s", i ? argv[i] : "build/bench/accuracy");
	printf("\nbooks: %s\n", o.books && !o.quick ? o.books : "(synthetic only)");
	if (tune) {
		ret = acc_tune(&o, &p, &s);
		if (!ret) {
			/* the tuned point on the whole corpus, for the record */
			o.half = 0;
			ret = acc_run(&o, &p, &s);
		}
	} else {
		ret = acc_run(&o, NULL, &s);
	}
	if (o.dump)
		fclose(o.dump);
	if (ret) {
		fprintf(stderr, "accuracy: failed (%d)\n", ret);
		return 1;
	}
	return 0;
}
