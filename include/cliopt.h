/* cliopt.h - option parsing shared by the simbook subcommands:
 * getopt_long() (--opt=value and --opt value, options before, between or
 * after the operands, "--" ending them) with one-line errors that name the
 * bad option and point to the subcommand's --help, never a usage dump.
 */
#ifndef CLIOPT_H
#define CLIOPT_H

#include <getopt.h>

/* getopt_long() over a subcommand's argv (argv[0] its name, cmd in the
 * messages); shortopts starts with ':'.  Call with first != 0 for the first
 * option of a command line (parsing starts over).  An unknown option, a
 * missing value, or a value given to an option that takes none is
 * reported on stderr ("simbook CMD: unknown option '--x' (see simbook CMD
 * --help)") and returns '?'.  After -1, optind is the first operand. */
int cliopt_next(const char *cmd, int first, int argc, char **argv, const char *shortopts,
		const struct option *longopts);

/* Prints "simbook CMD: " and the message, then " (see simbook CMD --help)"
 * on one line.  Returns 2, the exit status of a usage error. */
int cliopt_usage(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
