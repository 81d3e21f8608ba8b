/* check.h - a tiny test harness for the unit tests.
 *
 * Each test program defines test functions and runs them with RUN(fn).
 * CHECK(cond) records a failure with file:line and carries on; REQUIRE(cond)
 * also returns from the current test.  The program prints one TAP-ish line per
 * test and exits non-zero if any check failed, 77 if every test skipped.
 * SKIP(reason) ends the current test as skipped.
 */
#ifndef CHECK_H
#define CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failed_total, check_run, check_skipped, check_cur_failed, check_cur_skipped;

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "  FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
	check_cur_failed++; } } while (0)
#define REQUIRE(cond) do { if (!(cond)) { \
	fprintf(stderr, "  FAIL %s:%d: %s (required)\n", __FILE__, __LINE__, #cond); \
	check_cur_failed++; return; } } while (0)
#define CHECK_EQ_INT(a, b) do { long long check_a_ = (long long)(a), check_b_ = (long long)(b); \
	if (check_a_ != check_b_) { fprintf(stderr, "  FAIL %s:%d: %s == %s (%lld != %lld)\n", \
	__FILE__, __LINE__, #a, #b, check_a_, check_b_); check_cur_failed++; } } while (0)
#define CHECK_EQ_STR(a, b) do { const char *check_a_ = (a), *check_b_ = (b); \
	if (!check_a_ || !check_b_ || strcmp(check_a_, check_b_) != 0) { \
	fprintf(stderr, "  FAIL %s:%d: %s == %s (\"%s\" != \"%s\")\n", __FILE__, __LINE__, \
	#a, #b, check_a_ ? check_a_ : "(null)", check_b_ ? check_b_ : "(null)"); \
	check_cur_failed++; } } while (0)
#define SKIP(reason) do { fprintf(stderr, "  skip: %s\n", (reason)); \
	check_cur_skipped = 1; return; } while (0)

#define RUN(fn) do { check_cur_failed = 0; check_cur_skipped = 0; fn(); check_run++; \
	if (check_cur_skipped && !check_cur_failed) { check_skipped++; printf("ok - %s # SKIP\n", #fn); } \
	else if (check_cur_failed) { check_failed_total++; printf("not ok - %s\n", #fn); } \
	else { printf("ok - %s\n", #fn); } \
	fflush(stdout); } while (0)

#define CHECK_DONE() (check_failed_total ? 1 : (check_run && check_skipped == check_run) ? 77 : 0)

#endif
