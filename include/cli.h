/* cli.h - subcommands of the simbook command-line tool.
 *
 * Each subcommand is a function taking the arguments after its name
 * (argv[0] is the subcommand name) and returning the process exit status.
 * They print results to stdout and one-line errors to stderr.
 */
#ifndef CLI_H
#define CLI_H

struct cli_cmd {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage;	/* one line: arguments and purpose */
};

/* cli_extract.c: `simbook text FILE [--normalized]`, `simbook meta FILE`. */
int cli_text(int argc, char **argv);
int cli_meta(int argc, char **argv);

/* cli_fp.c: `simbook fingerprint FILE...`, `simbook compare A B`. */
int cli_fingerprint(int argc, char **argv);
int cli_compare(int argc, char **argv);

/* cli_index.c: `simbook index DIR`: index a library without mounting. */
int cli_index(int argc, char **argv);

struct idxlock;
struct libroot;
/* Locks the index folder of lr for a run of `simbook CMD` as program prog
 * (idxlock.h: one writer per index).  0, or the exit status after
 * reporting why not on stderr: 3 in use (a mount or another run, named),
 * 2 cannot lock. */
int cli_index_lock(const char *cmd, const char *prog, const struct libroot *lr,
		   struct idxlock **lock);

/* cli_import.c: `simbook import --index DIR [--library ROOT] [FILE...]`:
 * bulk-loads the record lines of `simbook fingerprint --records` into a
 * library's index and judges the books (docs/BULK.md). */
int cli_import(int argc, char **argv);

/* cli_query.c: `simbook similar FILE`, `simbook clusters [DIR]`,
 * `simbook duplicates [DIR]`: the views' answers from the index. */
int cli_similar(int argc, char **argv);
int cli_clusters(int argc, char **argv);
int cli_duplicates(int argc, char **argv);

/* cli_notdup.c: `simbook not-duplicate [--undo] [--src SRC] [--index DIR] A B`:
 * records (or with --undo removes) a "not a duplicate" exemption in a
 * library's index, without a mount; on a mounted library (paths inside the
 * mount) it asks the daemon through the mount's .simbookfs/control.
 * `--list [PATH]` prints every exemption of the library holding PATH (a
 * mount: its .simbookfs/not-duplicates), one per line: path TAB path. */
int cli_not_duplicate(int argc, char **argv);

/* cli_dedup.c: `simbook dedup [PATH]`: keeps one file of each group of
 * duplicates (of the index, a mount's views or --from JSON lines) and
 * deletes, links, reflinks or moves the others; a dry run by default. */
int cli_dedup(int argc, char **argv);

#endif
