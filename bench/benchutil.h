/* benchutil.h - what bench_index, bench_views and bench_excerpt share:
 * clocks, a qsort comparator for times, and work folders under $TMPDIR. */
#ifndef SIMBOOK_BENCHUTIL_H
#define SIMBOOK_BENCHUTIL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Wall-clock seconds (monotonic). */
static inline double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU seconds of this process: the machine is shared, so wall time alone
 * overstates what a step costs when other work competes for the cores. */
static inline double bench_cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* qsort() order of doubles, ascending. */
static inline int bench_dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Writes "$TMPDIR/name" (TMPDIR unset or empty: /tmp) to out.  Returns 0,
 * or -ENAMETOOLONG when it does not fit in n bytes. */
static inline int bench_tmppath(char *out, size_t n, const char *name)
{
	const char *tmp = getenv("TMPDIR");

	if ((size_t)snprintf(out, n, "%s/%s", tmp && *tmp ? tmp : "/tmp", name) >= n)
		return -ENAMETOOLONG;
	return 0;
}

/* Makes a new empty folder "$TMPDIR/name.XXXXXX" and writes its path to
 * out (n bytes); the caller removes it.  Returns 0 or -errno. */
static inline int bench_mkdtemp(char *out, size_t n, const char *name)
{
	char tmpl[256];
	int ret;

	if ((size_t)snprintf(tmpl, sizeof(tmpl), "%s.XXXXXX", name) >= sizeof(tmpl))
		return -ENAMETOOLONG;
	ret = bench_tmppath(out, n, tmpl);
	if (ret)
		return ret;
	return mkdtemp(out) ? 0 : -errno;
}

#endif
