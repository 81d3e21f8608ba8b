/* cli_extract.c - `simbook text` and `simbook meta`: what the extractor sees
 * in a book file, for users checking a file and for scripts.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "climount.h"
#include "cliopt.h"
#include "extract.h"
#include "norm.h"
#include "sbuf.h"

/* Extracts path, printing the one-line reason on failure; returns the
 * process exit status (0, 1 on refusal). */
static int load(const char *path, struct extract_doc *doc)
{
	struct sbuf err;
	int ret;

	sbuf_init(&err);
	extract_doc_init(doc);
	if (climount_report(path)) {
		fprintf(stderr, "simbook: %s: a simbookfs status file, not a book\n", path);
		sbuf_release(&err);
		return 1;
	}
	ret = extract_file(path, NULL, doc, &err);
	if (ret)
		fprintf(stderr, "simbook: %s\n", err.len ? err.buf : strerror(-ret));
	sbuf_release(&err);
	return ret ? 1 : 0;
}

static int write_out(const char *p, size_t n)
{
	if (n && fwrite(p, 1, n, stdout) != n)
		return -EIO;
	if (fputc('\n', stdout) == EOF || fflush(stdout))
		return -EIO;
	return 0;
}

static const char text_usage[] =
	"usage: simbook text [--normalized] FILE\n"
	"The text of a book as the extractor reads it (format by content).\n"
	"  --normalized  the text the fingerprints are computed from\n"
	"Exit status: 0 printed, 1 FILE cannot be read as a book or the output\n"
	"failed, 2 bad arguments.\n";

static const char meta_usage[] =
	"usage: simbook meta FILE\n"
	"A book's format, charset, title, creators, language, identifiers, ISBN,\n"
	"text size, chunk offsets and warnings, as one JSON object.\n"
	"Exit status: 0 printed, 1 FILE cannot be read as a book or the output\n"
	"failed, 2 bad arguments.\n";

/* Parses text's (normalized not NULL) or meta's options and its one FILE:
 * -1 to go on, else the exit status. */
static int one_file(const char *cmd, const char *usage, int argc, char **argv,
		    int *normalized, const char **path)
{
	static const struct option text_opts[] = {
		{ "help", no_argument, NULL, 'h' }, { "normalized", no_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 }
	};
	static const struct option meta_opts[] = {
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 }
	};
	int c, first = 1;

	while ((c = cliopt_next(cmd, first, argc, argv, ":h", normalized ? text_opts :
				meta_opts)) != -1) {
		first = 0;
		if (c == 'h') {
			fputs(usage, stdout);
			return 0;
		} else if (c == 'n') {
			*normalized = 1;
		} else {
			return 2;
		}
	}
	if (argc - optind != 1)
		return cliopt_usage(cmd, "one FILE is needed, not %d", argc - optind);
	*path = argv[optind];
	return -1;
}

int cli_text(int argc, char **argv)
{
	struct extract_doc doc;
	struct norm_doc nd;
	const char *path = NULL;
	int normalized = 0, ret;

	ret = one_file("text", text_usage, argc, argv, &normalized, &path);
	if (ret >= 0)
		return ret;
	ret = load(path, &doc);
	if (ret)
		return ret;
	if (!normalized) {
		ret = write_out(doc.text.buf, doc.text.len);
	} else {
		norm_doc_init(&nd);
		ret = extract_normalize(&doc, &nd);
		if (!ret)
			ret = write_out(nd.text, nd.len);
		norm_doc_release(&nd);
	}
	extract_doc_release(&doc);
	if (ret) {
		fprintf(stderr, "simbook: %s: %s\n", path, strerror(-ret));
		return 1;
	}
	return 0;
}

static void json_str(struct sbuf *sb, const char *s)
{
	sbuf_addch(sb, '"');
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			sbuf_addf(sb, "\\%c", c);
		else if (c == '\n')
			sbuf_addstr(sb, "\\n");
		else if (c < 0x20)
			sbuf_addf(sb, "\\u%04x", c);
		else
			sbuf_addch(sb, (char)c);
	}
	sbuf_addch(sb, '"');
}

static void json_opt(struct sbuf *sb, const char *key, const char *v)
{
	sbuf_addf(sb, "  \"%s\": ", key);
	if (v)
		json_str(sb, v);
	else
		sbuf_addstr(sb, "null");
	sbuf_addstr(sb, ",\n");
}

static void json_list(struct sbuf *sb, const char *key, const struct extract_strv *v)
{
	size_t i;

	sbuf_addf(sb, "  \"%s\": [", key);
	for (i = 0; i < v->n; i++) {
		if (i)
			sbuf_addstr(sb, ", ");
		json_str(sb, v->v[i]);
	}
	sbuf_addstr(sb, "],\n");
}

int cli_meta(int argc, char **argv)
{
	struct extract_doc doc;
	struct sbuf js;
	const char *path = NULL;
	size_t i;
	int ret;

	ret = one_file("meta", meta_usage, argc, argv, NULL, &path);
	if (ret >= 0)
		return ret;
	ret = load(path, &doc);
	if (ret)
		return ret;
	sbuf_init(&js);
	sbuf_addstr(&js, "{\n");
	json_opt(&js, "file", path);
	json_opt(&js, "format", extract_format_name(doc.format));
	json_opt(&js, "charset", doc.charset);
	json_opt(&js, "title", doc.title);
	json_list(&js, "creators", &doc.creators);
	json_opt(&js, "language", doc.language);
	json_list(&js, "identifiers", &doc.identifiers);
	json_opt(&js, "isbn", doc.isbn);
	sbuf_addf(&js, "  \"text_bytes\": %zu,\n  \"chunks\": [", doc.text.len);
	for (i = 0; i < doc.nchunks; i++)
		sbuf_addf(&js, "%s%zu", i ? ", " : "", doc.chunk_off[i]);
	sbuf_addstr(&js, "],\n");
	json_list(&js, "warnings", &doc.warnings);
	sbuf_setlen(&js, js.len - 2);	/* the last ",\n" */
	sbuf_addstr(&js, "\n}");
	ret = write_out(js.buf, js.len);
	sbuf_release(&js);
	extract_doc_release(&doc);
	if (ret) {
		fprintf(stderr, "simbook: %s: %s\n", path, strerror(-ret));
		return 1;
	}
	return 0;
}
