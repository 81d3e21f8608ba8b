/* cli_fp.c - `simbook fingerprint` and `simbook compare`.
 *
 * fingerprint is a batch mapper: one output line per input file, in input
 * order, a failing file costs one line on stderr and a non-zero exit status
 * at the end, never the rest of the batch.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "book.h"
#include "cli.h"
#include "jsonw.h"

/* Appends s as a JSON string literal (quotes included); file names that are
 * not UTF-8 are kept (jsonw.h). */
static int json_str(struct sbuf *o, const char *s)
{
	return jsonw_str(o, s ? s : "");
}

static int print_fingerprint(const char *path, const struct book *b, int json)
{
	struct sbuf o;
	char id[33], th[33];
	int ret;

	sbuf_init(&o);
	book_id(b, id);
	texthash_hex(&b->fp.text, th);
	if (json) {
		ret = sbuf_addstr(&o, "{\"path\":");
		if (!ret)
			ret = json_str(&o, path);
		if (!ret)
			ret = sbuf_addf(&o, ",\"id\":\"%s\",\"format\":\"%s\",\"file_bytes\":%llu,"
					"\"text_bytes\":%llu,\"words\":%u,\"unique_words\":%u,"
					"\"chunks\":%u,\"size_class\":%u,\"text_hash\":\"%s\","
					"\"shingles\":%llu,\"title\":", id,
					extract_format_name(b->format),
					(unsigned long long)b->file_size,
					(unsigned long long)b->fp.nbytes, b->fp.nwords, b->fp.dq.n,
					b->fp.nchunks, b->fp.size_class, th,
					(unsigned long long)b->fp.mh.nshingles);
		if (!ret)
			ret = b->title ? json_str(&o, b->title) : sbuf_addstr(&o, "null");
		if (!ret)
			ret = sbuf_addstr(&o, ",\"author\":");
		if (!ret)
			ret = b->author ? json_str(&o, b->author) : sbuf_addstr(&o, "null");
		if (!ret)
			ret = sbuf_addstr(&o, "}\n");
	} else {
		/* identifier first, path last: `cut`/`sort` friendly even for
		 * paths with spaces */
		ret = sbuf_addf(&o, "%s %-4s %9u words %6u unique text:%s %s\n", id,
				extract_format_name(b->format), b->fp.nwords, b->fp.dq.n, th, path);
	}
	if (!ret && fwrite(o.buf, 1, o.len, stdout) != o.len)
		ret = -EIO;
	sbuf_release(&o);
	return ret;
}

/* One file: 0 if printed, else an error line on stderr and -1. */
static int fingerprint_one(const char *path, int json)
{
	struct sbuf err;
	struct book *b = NULL;
	int ret;

	sbuf_init(&err);
	ret = book_load(path, NULL, &b, &err);
	if (ret) {
		fprintf(stderr, "simbook fingerprint: %s\n",
			err.len ? err.buf : strerror(ret < 0 ? -ret : ret));
	} else if (print_fingerprint(path, b, json)) {
		fprintf(stderr, "simbook fingerprint: %s: cannot write the output\n", path);
		ret = -EIO;
	}
	book_free(b);
	sbuf_release(&err);
	return ret ? -1 : 0;
}

static const char fp_usage[] =
	"usage: simbook fingerprint [--json] [--stdin] FILE...\n"
	"  one line per file: simhash id, format, words, unique words, text hash, path\n"
	"  --json   JSON Lines instead\n"
	"  --stdin  also read file names from standard input, one per line\n";

int cli_fingerprint(int argc, char **argv)
{
	int json = 0, from_stdin = 0, failed = 0, any = 0, i, opts = 1;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	for (i = 1; i < argc && opts; i++) {
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (!strcmp(argv[i], "--stdin"))
			from_stdin = 1;
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(fp_usage, stdout);
			return 0;
		} else if (!strcmp(argv[i], "--"))
			opts = 0;
		else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "simbook fingerprint: unknown option '%s'\n%s", argv[i], fp_usage);
			return 2;
		} else
			break;
	}
	if (i >= argc && !from_stdin) {
		fputs(fp_usage, stderr);
		return 2;
	}
	for (; i < argc; i++, any++)
		failed |= fingerprint_one(argv[i], json);
	while (from_stdin && (n = getline(&line, &cap, stdin)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (!n)
			continue;
		failed |= fingerprint_one(line, json);
		fflush(stdout);
		any++;
	}
	free(line);
	if (fflush(stdout)) {
		fprintf(stderr, "simbook fingerprint: cannot write the output\n");
		return 1;
	}
	return failed ? 1 : 0;
}

static void print_compare_text(const char *pa, const char *pb, const struct book *a,
			       const struct book *b, const struct book_cmp *c)
{
	const struct fp_scores *s = &c->scores;
	const struct dupniq_result *d = &s->dupniq;
	char ia[33], ib[33];

	book_id(a, ia);
	book_id(b, ib);
	printf("A: %s %s %u words %s\n", ia, extract_format_name(a->format), s->a_nwords, pa);
	printf("B: %s %s %u words %s\n", ib, extract_format_name(b->format), s->b_nwords, pb);
	printf("relation:            %s", relate_class_name(c->rel.cls));
	/* the numbers the verdict rests on, so words and numbers agree */
	if (c->rel.cls == RELATE_NEAR_DUPLICATE && c->sig.block_cover_a + c->sig.block_cover_b > 0)
		printf(" (aligned text: A %.0f%%, B %.0f%%)", 100.0 * c->sig.block_cover_a,
		       100.0 * c->sig.block_cover_b);
	else if (c->rel.cls == RELATE_NEAR_DUPLICATE)
		printf(" (matched text windows: A %.0f%%, B %.0f%%)", 100.0 * c->sig.chunk_cover_a,
		       100.0 * c->sig.chunk_cover_b);
	else if (c->rel.cls == RELATE_OTHER_TRANSLATION)
		printf(" (no wording shared; %u of %u common distinctive words in order)",
		       d->lcs, d->common);
	printf("  [%s]\n", c->rel.rule);
	printf("same file:           %s\n", c->sig.same_file ? "yes" : "no");
	printf("same text:           %s\n", s->same_text ? "yes" : "no");
	printf("simhash distance:    %u / 128 (size classes %u, %u)\n", s->simhash_distance,
	       a->fp.size_class, b->fp.size_class);
	printf("robust simhash:      %u / 128 (A->B %u, B->A %u)\n", s->rsim_distance,
	       s->rsim_asym_ab, s->rsim_asym_ba);
	printf("multi-lexicon:       %u / 64 (lexicon %u)\n", s->mlsimhash_distance, s->mlsimhash_lexicon);
	printf("min-hash Jaccard:    %.4f (B-similarity %u / %u)\n", s->jaccard,
	       s->minhash_bsim, (unsigned)MINHASH_K);
	printf("DUPNIQ:              cs %.4f its %.4f lcs %u common %u (unique words %u, %u)\n",
	       d->cs, d->its, d->lcs, d->common, a->fp.dq.n, b->fp.dq.n);
	printf("DUPNIQ span:         A words %u-%u (%.1f%%), B words %u-%u (%.1f%%)\n",
	       d->a_first, d->a_last, 100.0 * d->a_cover, d->b_first, d->b_last,
	       100.0 * d->b_cover);
	printf("aligned blocks:      A %.1f%%, B %.1f%% of the words\n",
	       100.0 * c->sig.block_cover_a, 100.0 * c->sig.block_cover_b);
	printf("window alignment:    %u pairs, A matched %.1f%%, B matched %.1f%%, "
	       "fit b = %.3f a %+.0f (r2 %.3f)\n", s->win_fit.pairs,
	       100.0 * s->win_fit.a_matched, 100.0 * s->win_fit.b_matched,
	       s->win_fit.slope, s->win_fit.offset, s->win_fit.r2);
	printf("chapter alignment:   %u pairs, A matched %.1f%%, B matched %.1f%%, "
	       "fit b = %.3f a %+.0f (r2 %.3f)\n", s->spine_fit.pairs,
	       100.0 * s->spine_fit.a_matched, 100.0 * s->spine_fit.b_matched,
	       s->spine_fit.slope, s->spine_fit.offset, s->spine_fit.r2);
}

static int json_fit(struct sbuf *o, const char *key, const struct chunksketch_fit *f)
{
	return sbuf_addf(o, ",\"%s\":{\"pairs\":%u,\"a_matched\":%.6f,\"b_matched\":%.6f,"
			 "\"slope\":%.6f,\"offset\":%.3f,\"r2\":%.6f,\"mean_sim\":%.6f}",
			 key, f->pairs, f->a_matched, f->b_matched, f->slope, f->offset,
			 f->r2, f->mean_sim);
}

static int print_compare_json(const char *pa, const char *pb, const struct book *a,
			      const struct book *b, const struct book_cmp *c)
{
	const struct fp_scores *s = &c->scores;
	const struct dupniq_result *d = &s->dupniq;
	struct sbuf o;
	char ia[33], ib[33];
	int ret;

	sbuf_init(&o);
	book_id(a, ia);
	book_id(b, ib);
	ret = sbuf_addstr(&o, "{\"a\":");
	if (!ret)
		ret = json_str(&o, pa);
	if (!ret)
		ret = sbuf_addstr(&o, ",\"b\":");
	if (!ret)
		ret = json_str(&o, pb);
	if (!ret)
		ret = sbuf_addf(&o, ",\"a_id\":\"%s\",\"b_id\":\"%s\",\"a_words\":%u,\"b_words\":%u,"
				"\"relation\":\"%s\",\"difference\":",
				ia, ib, s->a_nwords, s->b_nwords, relate_class_name(c->rel.cls));
	/* the difference only means something for near duplicates */
	if (!ret)
		ret = c->rel.difference >= 0 ? sbuf_addf(&o, "%.4f", c->rel.difference) :
					       sbuf_addstr(&o, "null");
	if (!ret)
		ret = sbuf_addstr(&o, ",\"rule\":");
	if (!ret)
		ret = json_str(&o, c->rel.rule);
	if (!ret)
		ret = sbuf_addf(&o, ",\"same_file\":%s,\"same_text\":%s,\"simhash_distance\":%u,"
				"\"rsimhash_distance\":%u,\"rsimhash_ab\":%u,\"rsimhash_ba\":%u,"
				"\"mlsimhash_distance\":%u,\"jaccard\":%.6f,\"bsim\":%u,"
				"\"dupniq_cs\":%.6f,\"dupniq_its\":%.6f,\"dupniq_lcs\":%u,"
				"\"dupniq_common\":%u,\"dupniq_a_span\":[%u,%u],\"dupniq_b_span\":[%u,%u],"
				"\"dupniq_a_cover\":%.6f,\"dupniq_b_cover\":%.6f,"
				"\"block_a_cover\":%.6f,\"block_b_cover\":%.6f",
				c->sig.same_file ? "true" : "false", s->same_text ? "true" : "false",
				s->simhash_distance, s->rsim_distance, s->rsim_asym_ab,
				s->rsim_asym_ba, s->mlsimhash_distance, s->jaccard, s->minhash_bsim,
				d->cs, d->its, d->lcs, d->common, d->a_first, d->a_last,
				d->b_first, d->b_last, d->a_cover, d->b_cover,
				c->sig.block_cover_a, c->sig.block_cover_b);
	if (!ret)
		ret = json_fit(&o, "windows", &s->win_fit);
	if (!ret)
		ret = json_fit(&o, "chapters", &s->spine_fit);
	if (!ret)
		ret = sbuf_addstr(&o, "}\n");
	if (!ret && fwrite(o.buf, 1, o.len, stdout) != o.len)
		ret = -EIO;
	sbuf_release(&o);
	return ret;
}

static const char cmp_usage[] =
	"usage: simbook compare [--json] A B\n"
	"  every similarity score of books A and B and their relation\n";

int cli_compare(int argc, char **argv)
{
	struct book *a = NULL, *b = NULL;
	struct book_cmp c;
	struct sbuf err;
	const char *pa = NULL, *pb = NULL;
	int json = 0, i, ret, status = 1;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(cmp_usage, stdout);
			return 0;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "simbook compare: unknown option '%s'\n%s", argv[i], cmp_usage);
			return 2;
		} else if (!pa) {
			pa = argv[i];
		} else if (!pb) {
			pb = argv[i];
		} else {
			fputs(cmp_usage, stderr);
			return 2;
		}
	}
	if (!pb) {
		fputs(cmp_usage, stderr);
		return 2;
	}
	sbuf_init(&err);
	ret = book_load(pa, NULL, &a, &err);
	if (!ret)
		ret = book_load(pb, NULL, &b, &err);
	if (ret) {
		fprintf(stderr, "simbook compare: %s\n", err.len ? err.buf : strerror(-ret));
		goto out;
	}
	ret = book_compare(a, b, NULL, &c);
	if (ret) {
		fprintf(stderr, "simbook compare: %s\n", strerror(-ret));
		goto out;
	}
	if (json)
		ret = print_compare_json(pa, pb, a, b, &c);
	else
		print_compare_text(pa, pb, a, b, &c);
	if (ret || fflush(stdout)) {
		fprintf(stderr, "simbook compare: cannot write the output\n");
		goto out;
	}
	status = 0;
out:
	book_free(a);
	book_free(b);
	sbuf_release(&err);
	return status;
}
