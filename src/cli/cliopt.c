/* cliopt.c - getopt_long() with one-line errors (cliopt.h). */
#include "cliopt.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int cliopt_next(const char *cmd, int first, int argc, char **argv, const char *shortopts,
		const struct option *longopts)
{
	const char *bad;
	int c;

	if (first)
		optind = 0;	/* glibc: start over, state included */
	opterr = 0;
	c = getopt_long(argc, argv, shortopts, longopts, NULL);
	if (c != '?' && c != ':')
		return c;
	bad = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
	if (c == ':')
		cliopt_usage(cmd, "option '%s' needs a value", bad);
	else if (optopt && strncmp(bad, "--", 2))
		cliopt_usage(cmd, "unknown option '-%c'", optopt);
	else if (optopt && strchr(bad, '='))
		cliopt_usage(cmd, "option '%.*s' takes no value", (int)(strchr(bad, '=') - bad),
			     bad);
	else
		cliopt_usage(cmd, "unknown option '%s'", bad);
	return '?';
}

int cliopt_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "simbook %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see simbook %s --help)\n", cmd);
	return 2;
}
