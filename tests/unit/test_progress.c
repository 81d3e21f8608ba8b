/* test_progress.c - progress lines of `simbook index`: rate, ETA, durations,
 * the bar and its width limit, scanning vs counting. */
#include <string.h>

#include "check.h"
#include "progress.h"

static struct sbuf sb;

static const char *dur(double s)
{
	sbuf_setlen(&sb, 0);
	return progress_duration(&sb, s) ? NULL : sb.buf;
}

static void test_duration(void)
{
	CHECK_EQ_STR(dur(0), "0s");
	CHECK_EQ_STR(dur(44.6), "45s");
	CHECK_EQ_STR(dur(59.4), "59s");
	CHECK_EQ_STR(dur(60), "1m00s");
	CHECK_EQ_STR(dur(185), "3m05s");
	CHECK_EQ_STR(dur(3599.4), "59m59s");
	CHECK_EQ_STR(dur(3600), "1h00m");
	CHECK_EQ_STR(dur(7620), "2h07m");
	CHECK_EQ_STR(dur(-1), "--");
	CHECK_EQ_STR(dur(1e12), "--");
}

static void test_rate_eta(void)
{
	struct progress_snap s = { .elapsed = 10, .todo = 100, .done = 40 };

	CHECK(progress_rate(&s) > 3.99 && progress_rate(&s) < 4.01);
	CHECK(progress_eta(&s) > 14.99 && progress_eta(&s) < 15.01);
	s.scanning = 1;
	CHECK(progress_eta(&s) < 0);	/* total unknown */
	s.scanning = 0;
	s.done = 0;
	CHECK(progress_rate(&s) == 0);
	CHECK(progress_eta(&s) < 0);	/* no rate yet */
	s.done = 100;
	CHECK(progress_eta(&s) == 0);
	s.elapsed = 0;
	CHECK(progress_rate(&s) == 0);
}

static void test_tty(void)
{
	struct progress_snap s = { .elapsed = 10, .todo = 200, .done = 100, .seen = 300 };

	sbuf_setlen(&sb, 0);
	REQUIRE(progress_tty(&sb, &s, 200) == 0);
	CHECK_EQ_STR(sb.buf, "[############............]  50%  100/200 files  10.0 files/s  ETA 10s");
	sbuf_setlen(&sb, 0);
	REQUIRE(progress_tty(&sb, &s, 30) == 0);
	CHECK_EQ_INT(sb.len, 29);	/* never wraps */
	CHECK(!strncmp(sb.buf, "[############......", 19));
	sbuf_setlen(&sb, 0);
	REQUIRE(progress_tty(&sb, &s, 5) == 0);
	CHECK_EQ_INT(sb.len, 19);	/* narrower than 20 counts as 20 */
	s.scanning = 1;
	sbuf_setlen(&sb, 0);
	REQUIRE(progress_tty(&sb, &s, 200) == 0);
	CHECK_EQ_STR(sb.buf, "scanning  100/200 files (300 seen)  10.0 files/s  ETA --");
	s.scanning = 0;
	s.done = 200;
	sbuf_setlen(&sb, 0);
	REQUIRE(progress_tty(&sb, &s, 200) == 0);
	CHECK(!strncmp(sb.buf, "[########################] 100%", 31));
	s.done = s.todo = 0;
	sbuf_setlen(&sb, 0);
	REQUIRE(progress_tty(&sb, &s, 200) == 0);	/* nothing to do is done */
	CHECK(strstr(sb.buf, "100%") != NULL);
}

static void test_plain(void)
{
	struct progress_snap s = { .elapsed = 4, .todo = 2345, .done = 1234, .seen = 3000 };

	sbuf_setlen(&sb, 0);
	REQUIRE(progress_plain(&sb, &s) == 0);
	CHECK_EQ_STR(sb.buf, "indexing: 1234/2345 files (52%), 308.5 files/s, ETA 4s");
	s.scanning = 1;
	sbuf_setlen(&sb, 0);
	REQUIRE(progress_plain(&sb, &s) == 0);
	CHECK_EQ_STR(sb.buf, "scanning: 3000 files seen, 1234/2345 queued files done, 308.5 files/s");
	CHECK(strchr(sb.buf, '\n') == NULL);
}

int main(void)
{
	sbuf_init(&sb);
	RUN(test_duration);
	RUN(test_rate_eta);
	RUN(test_tty);
	RUN(test_plain);
	sbuf_release(&sb);
	return CHECK_DONE();
}
