/* Unit tests for sbuf. */
#include "check.h"
#include "sbuf.h"

static void test_empty(void)
{
	struct sbuf sb;
	char *p;
	size_t len = 99;

	sbuf_init(&sb);
	CHECK_EQ_STR(sb.buf, "");
	CHECK_EQ_INT(sb.len, 0);
	sbuf_setlen(&sb, 0);
	p = sbuf_detach(&sb, &len);
	REQUIRE(p);
	CHECK_EQ_STR(p, "");
	CHECK_EQ_INT(len, 0);
	free(p);
	sbuf_release(&sb);
}

static void test_append(void)
{
	struct sbuf sb;
	int i;

	sbuf_init(&sb);
	CHECK_EQ_INT(sbuf_addstr(&sb, "abc"), 0);
	CHECK_EQ_INT(sbuf_addch(&sb, '-'), 0);
	CHECK_EQ_INT(sbuf_addf(&sb, "%d/%s", 42, "x"), 0);
	CHECK_EQ_STR(sb.buf, "abc-42/x");
	for (i = 0; i < 10000; i++)
		REQUIRE(sbuf_add(&sb, "0123456789", 10) == 0);
	CHECK_EQ_INT(sb.len, 8 + 100000);
	CHECK_EQ_INT(sb.buf[sb.len], '\0');
	sbuf_setlen(&sb, 3);
	CHECK_EQ_STR(sb.buf, "abc");
	sbuf_setlen(&sb, 10);	/* longer than len: ignored */
	CHECK_EQ_INT(sb.len, 3);
	sbuf_release(&sb);
	CHECK_EQ_INT(sb.len, 0);
	CHECK_EQ_STR(sb.buf, "");
}

static void test_detach(void)
{
	struct sbuf sb;
	size_t len;
	char *p;

	sbuf_init(&sb);
	sbuf_addstr(&sb, "hello");
	p = sbuf_detach(&sb, &len);
	CHECK_EQ_STR(p, "hello");
	CHECK_EQ_INT(len, 5);
	CHECK_EQ_INT(sb.len, 0);
	CHECK_EQ_INT(sbuf_addstr(&sb, "again"), 0);
	CHECK_EQ_STR(sb.buf, "again");
	free(p);
	sbuf_release(&sb);
}

static void test_overflow(void)
{
	struct sbuf sb;

	sbuf_init(&sb);
	sbuf_addstr(&sb, "x");
	CHECK(sbuf_grow(&sb, (size_t)-1) < 0);
	CHECK_EQ_STR(sb.buf, "x");
	sbuf_release(&sb);
}

int main(void)
{
	RUN(test_empty);
	RUN(test_append);
	RUN(test_detach);
	RUN(test_overflow);
	return CHECK_DONE();
}
