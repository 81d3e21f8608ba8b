/* simbook.c - the command-line tool: dispatches to the cli_* subcommands. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "memtune.h"

static const struct cli_cmd cmds[] = {
	{ "text", cli_text, "FILE [--normalized]  print a book's text (or the fingerprint input)" },
	{ "meta", cli_meta, "FILE  print a book's format, metadata and chunks as JSON" },
	{ "fingerprint", cli_fingerprint, "[--json] [--stdin] [--records] FILE...  similarity id and fingerprint summary (or stored record) per book" },
	{ "compare", cli_compare, "[--json] A B  every similarity score of two books and their relation" },
	{ "index", cli_index, "DIR [--index IDXDIR] [--threads N]  index a library folder without mounting" },
	{ "import", cli_import, "--index IDXDIR [--library DIR] [FILE...]  load the records of fingerprint --records into an index" },
	{ "similar", cli_similar, "FILE [--json|--tsv]  the books similar to FILE, from the index" },
	{ "clusters", cli_clusters, "[DIR] [--json|--tsv]  groups of near duplicates, from the index" },
	{ "duplicates", cli_duplicates, "[DIR] [--json|--tsv]  groups of files with the same text, from the index" },
	{ "dedup", cli_dedup, "[PATH] [--relation R] [--keep RULE] [--delete|--hardlink|...]  keep one file per duplicate group, act on the rest (dry run by default)" },
	{ "not-duplicate", cli_not_duplicate, "[--undo] [--src SRC] [--index DIR] A B | --list [PATH]  mark two books as not duplicates in the index; list the marks" },
	{ NULL, NULL, NULL }
};

static void usage(FILE *out)
{
	const struct cli_cmd *c;

	fprintf(out, "usage: simbook COMMAND [ARGS...]\n"
		"       simbook --help | --version\n\ncommands:\n");
	for (c = cmds; c->name; c++)
		fprintf(out, "  %-12s %s\n", c->name, c->usage);
	fprintf(out, "\n'simbook COMMAND --help' describes a command, its output and its exit\n"
		"status.  Options take their value as --opt VALUE or --opt=VALUE.  The\n"
		"queries follow grep's convention: 0 found, 1 nothing found, 2 error.\n");
}

int main(int argc, char **argv)
{
	const struct cli_cmd *c;

	memtune_init();
	if (argc < 2) {
		fprintf(stderr, "simbook: no command given (see simbook --help)\n");
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("simbook %s\n", SIMBOOK_VERSION);
		return 0;
	}
	for (c = cmds; c->name; c++)
		if (!strcmp(argv[1], c->name))
			return c->run(argc - 1, argv + 1);
	fprintf(stderr, "simbook: unknown command '%s' (see simbook --help)\n", argv[1]);
	return 2;
}
