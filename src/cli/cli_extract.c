/* cli_extract.c - `simbook text` and `simbook meta`: what the extractor sees
 * in a book file, for users checking a file and for scripts.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
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

int cli_text(int argc, char **argv)
{
	struct extract_doc doc;
	struct norm_doc nd;
	const char *path = NULL;
	int normalized = 0, i, ret;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--normalized"))
			normalized = 1;
		else if (!path && argv[i][0] != '-')
			path = argv[i];
		else
			path = NULL, i = argc + 1;
	}
	if (!path || i > argc) {
		fprintf(stderr, "usage: simbook text FILE [--normalized]\n");
		return 2;
	}
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
	size_t i;
	int ret;

	if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: simbook meta FILE\n");
		return 2;
	}
	ret = load(argv[1], &doc);
	if (ret)
		return ret;
	sbuf_init(&js);
	sbuf_addstr(&js, "{\n");
	json_opt(&js, "file", argv[1]);
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
		fprintf(stderr, "simbook: %s: %s\n", argv[1], strerror(-ret));
		return 1;
	}
	return 0;
}
