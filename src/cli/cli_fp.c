/* cli_fp.c - `simbook fingerprint` and `simbook compare`.
 *
 * fingerprint is a batch mapper: one output line per input file, in input
 * order, a failing file costs one line on stderr and a non-zero exit status
 * at the end, never the rest of the batch.  With --records it is the
 * mapper of bulk fingerprinting (fpmap.h, docs/BULK.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "book.h"
#include "cli.h"
#include "climount.h"
#include "cliopt.h"
#include "extract.h"
#include "fpmap.h"
#include "jsonw.h"
#include "judge.h"
#include "simlist.h"

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
	ret = climount_report(path) ? -EINVAL : book_load(path, NULL, &b, &err);
	if (ret == -EINVAL && !err.len)
		sbuf_addf(&err, "%s: a simbookfs status file, not a book", path);
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

/* Writes the whole line with one write(2) when the kernel takes it whole:
 * records of parallel mappers sharing one output then never mix within a
 * line (a pipe guarantees it up to PIPE_BUF bytes, a file opened with
 * O_APPEND for any length on Linux; docs/BULK.md). */
static int write_line(const struct sbuf *l)
{
	size_t off = 0;
	ssize_t w;

	while (off < l->len) {
		w = write(STDOUT_FILENO, l->buf + off, l->len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -EIO;
		off += (size_t)w;
	}
	return 0;
}

/* One file as a record line on stdout: 0, or a line on stderr and -1. */
static int record_one(const char *path, const struct fpmap_opts *o, struct sbuf *line)
{
	struct sbuf err;
	int ret;

	sbuf_init(&err);
	sbuf_setlen(line, 0);
	ret = climount_report(path) ? EXTRACT_NOTBOOK : fpmap_file(path, o, line, &err);
	if (ret && !err.len)
		sbuf_addf(&err, "%s: a simbookfs status file, not a book", path);
	if (ret)
		fprintf(stderr, "simbook fingerprint: %s\n", err.buf);
	else if (write_line(line))
		ret = -EPIPE;
	sbuf_release(&err);
	if (ret == -EPIPE) {
		fprintf(stderr, "simbook fingerprint: cannot write the output\n");
		exit(2);
	}
	/* a file that is no book is known for what it is: no failure */
	return ret && ret != EXTRACT_NOTBOOK ? -1 : 0;
}

static const char fp_usage[] =
	"usage: simbook fingerprint [--json] [--stdin] [-0] FILE...\n"
	"       simbook fingerprint --records [-0] [--extensionless] [FILE...]\n"
	"  one line per file: simhash id, format, words, unique words, text hash, path\n"
	"  --json     JSON Lines instead: {\"path\",\"id\",\"format\",\"file_bytes\",\n"
	"             \"text_bytes\",\"words\",\"unique_words\",\"chunks\",\"size_class\",\n"
	"             \"text_hash\",\"shingles\",\"title\",\"author\"}\n"
	"  --stdin    also read file names from standard input, one per line\n"
	"  -0, --null the names on standard input end with a NUL, not a newline\n"
	"             (find -print0)\n"
	"  --records  the stored fingerprint instead, one record line per book for\n"
	"             simbook import (a mapper for Hadoop Streaming, Spark pipe(),\n"
	"             GNU parallel: docs/BULK.md); names come from standard input\n"
	"             when no FILE is given; files that are no book (or a kind the\n"
	"             index skips) get a line \"PATH: not a book (KIND)\" on stderr\n"
	"  --extensionless  with --records: plain text without an extension is a\n"
	"             book (as simbook index --extensionless)\n"
	"Exit status: 0 every file fingerprinted (or, with --records, recognised as\n"
	"not a book), 1 some could not be read as a book (one line each on stderr),\n"
	"2 bad arguments or an output error.\n";

/* The options of `simbook fingerprint`. */
struct fp_args {
	int json, from_stdin, nul, records;
	struct fpmap_opts mo;
};

/* Returns -1 to go on, else the exit status. */
static int fp_parse(int argc, char **argv, struct fp_args *a)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' }, { "json", no_argument, NULL, 'j' },
		{ "stdin", no_argument, NULL, 's' }, { "null", no_argument, NULL, '0' },
		{ "records", no_argument, NULL, 'r' },
		{ "extensionless", no_argument, NULL, 'E' }, { NULL, 0, NULL, 0 }
	};
	int c, first = 1;

	while ((c = cliopt_next("fingerprint", first, argc, argv, ":h0", longopts)) != -1) {
		first = 0;
		if (c == 'h') {
			fputs(fp_usage, stdout);
			return 0;
		} else if (c == 'j') {
			a->json = 1;
		} else if (c == 's') {
			a->from_stdin = 1;
		} else if (c == '0') {
			a->nul = 1;
		} else if (c == 'r') {
			a->records = 1;
		} else if (c == 'E') {
			a->mo.extensionless = 1;
		} else {
			return 2;
		}
	}
	if (a->records && a->json)
		return cliopt_usage("fingerprint", "--records and --json do not go together");
	if (a->mo.extensionless && !a->records)
		return cliopt_usage("fingerprint", "--extensionless goes with --records");
	if (a->records && optind >= argc)
		a->from_stdin = 1;
	if (optind >= argc && !a->from_stdin)
		return cliopt_usage("fingerprint", "no FILE given");
	return -1;
}

static int fp_one(const struct fp_args *a, const char *path, struct sbuf *line)
{
	return a->records ? record_one(path, &a->mo, line) : fingerprint_one(path, a->json);
}

int cli_fingerprint(int argc, char **argv)
{
	struct fp_args a;
	struct sbuf line;
	int failed = 0, i, ret;
	char *name = NULL;
	size_t cap = 0;
	ssize_t n;

	memset(&a, 0, sizeof(a));
	ret = fp_parse(argc, argv, &a);
	if (ret >= 0)
		return ret;
	sbuf_init(&line);
	for (i = optind; i < argc; i++)
		failed |= fp_one(&a, argv[i], &line);
	while (a.from_stdin && (n = getdelim(&name, &cap, a.nul ? '\0' : '\n', stdin)) > 0) {
		if (name[n - 1] == (a.nul ? '\0' : '\n'))
			name[--n] = '\0';
		if (!n)
			continue;
		failed |= fp_one(&a, name, &line);
		if (!a.records)
			fflush(stdout);
	}
	free(name);
	sbuf_release(&line);
	if (fflush(stdout)) {
		fprintf(stderr, "simbook fingerprint: cannot write the output\n");
		return 2;
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
	printf("score:               %u%% %s\n", judge_score(&c->sig, &c->rel),
	       simlist_label(c->rel.cls));
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
	printf("language:            A %s, B %s\n", *a->lang ? a->lang : "unknown",
	       *b->lang ? b->lang : "unknown");
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
				"\"score\":%u,\"relation\":\"%s\",\"label\":\"%s\",\"difference\":",
				ia, ib, s->a_nwords, s->b_nwords, judge_score(&c->sig, &c->rel),
				relate_class_name(c->rel.cls), simlist_label(c->rel.cls));
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
		ret = sbuf_addf(&o, ",\"a_language\":\"%s\",\"b_language\":\"%s\"}\n",
				*a->lang ? a->lang : "unknown", *b->lang ? b->lang : "unknown");
	if (!ret && fwrite(o.buf, 1, o.len, stdout) != o.len)
		ret = -EIO;
	sbuf_release(&o);
	return ret;
}

static const char cmp_usage[] =
	"usage: simbook compare [--json] A B\n"
	"Every similarity score of books A and B and their relation, from A's side.\n"
	"The first lines give the score (0..100) and the relation as the views\n"
	"show them: identical file, same text, near duplicate, A contains B\n"
	"(\"contains\"), B contains A (\"part of\"), overlap, unrelated.\n"
	"  --json  one object: {\"a\",\"b\",\"a_id\",\"b_id\",\"a_words\",\"b_words\",\n"
	"          \"score\",\"relation\",\"label\",\"difference\",\"rule\",...,\n"
	"          \"a_language\",\"b_language\"} (every signal; the man page lists\n"
	"          them; a language is an ISO 639-1 code or \"unknown\")\n"
	"Exit status (grep's convention): 0 the books are related, 1 unrelated,\n"
	"2 error (bad arguments, a file that cannot be read as a book).\n";

int cli_compare(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' }, { "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 }
	};
	struct book *a = NULL, *b = NULL;
	struct book_cmp c;
	struct sbuf err;
	const char *pa, *pb;
	int json = 0, ret, status = 2, opt, first = 1;

	while ((opt = cliopt_next("compare", first, argc, argv, ":h", longopts)) != -1) {
		first = 0;
		if (opt == 'h') {
			fputs(cmp_usage, stdout);
			return 0;
		} else if (opt == 'j') {
			json = 1;
		} else {
			return 2;
		}
	}
	if (argc - optind != 2)
		return cliopt_usage("compare", "two books A and B are needed, not %d",
				    argc - optind);
	pa = argv[optind];
	pb = argv[optind + 1];
	sbuf_init(&err);
	ret = climount_report(pa) || climount_report(pb) ? -EINVAL : 0;
	if (ret)
		sbuf_addf(&err, "%s: a simbookfs status file, not a book",
			  climount_report(pa) ? pa : pb);
	if (!ret)
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
	status = c.rel.cls == RELATE_UNRELATED ? 1 : 0;
out:
	book_free(a);
	book_free(b);
	sbuf_release(&err);
	return status;
}
