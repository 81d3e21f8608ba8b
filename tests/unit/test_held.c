/* Unit tests for held: every path comes back once, the ones whose time
 * came first before one held for an hour, which held_free() drops. */
#include <pthread.h>
#include <string.h>

#include "check.h"
#include "held.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static char got[8][16];
static int ngot;

static void back(void *arg, const char *path)
{
	CHECK(arg == &ngot);
	pthread_mutex_lock(&lock);
	if (ngot < 8)
		snprintf(got[ngot], sizeof(got[ngot]), "%s", path);
	ngot++;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
}

/* Waits (no limit: the test runner's timeout ends a hang) for n paths. */
static void wait_for(int n)
{
	pthread_mutex_lock(&lock);
	while (ngot < n)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
}

static void test_back_once(void)
{
	struct held *h = NULL;
	char p[16];
	int i, seen[5] = { 0 };

	ngot = 0;
	REQUIRE(held_new(&h, back, &ngot) == 0);
	CHECK_EQ_INT(held_count(h), 0);
	CHECK_EQ_INT(held_add(h, "late", 3600 * 1000), 0);
	for (i = 0; i < 5; i++) {
		snprintf(p, sizeof(p), "b%d", i);
		CHECK_EQ_INT(held_add(h, p, (unsigned)(i % 2) * 300), 0);
	}
	wait_for(5);
	pthread_mutex_lock(&lock);
	for (i = 0; i < 5; i++) {
		REQUIRE(got[i][0] == 'b');
		seen[got[i][1] - '0']++;
	}
	pthread_mutex_unlock(&lock);
	for (i = 0; i < 5; i++)
		CHECK_EQ_INT(seen[i], 1);
	CHECK_EQ_INT(held_count(h), 1);	/* "late" waits on */
	held_free(h);
	CHECK_EQ_INT(ngot, 5);		/* dropped, not handed back */
}

static void test_unused(void)
{
	struct held *h = NULL;

	REQUIRE(held_new(&h, back, &ngot) == 0);
	held_free(h);		/* no thread was started */
	held_free(NULL);
}

int main(void)
{
	RUN(test_back_once);
	RUN(test_unused);
	return CHECK_DONE();
}
