/* Unit tests of the index opened on a Redis URI (idx.c's open_redis())
 * against a redis-server of its own (exit 77 without one): a fresh
 * namespace is created and opens again, read-only opens wait for the
 * writer's schema (-ESTALE), a newer schema is refused (-EPROTONOSUPPORT),
 * rows without a schema are not taken for an index (-EIO), a server that
 * does not answer is an error. */
#include <stdio.h>

#include "byteorder.h"
#include "check.h"
#include "idx_i.h"
#include "kvs_redis.h"
#include "redisrv.h"

static int port;

static void uri_of(char *buf, size_t n, const char *ns)
{
	snprintf(buf, n, "redis://127.0.0.1:%d/%s-%d", port, ns, (int)getpid());
}

struct row {
	int table;
	const char *k;
	uint8_t v[4];
};

static int put_row(struct kvs_tx *tx, void *arg)
{
	const struct row *r = arg;

	return kvs_put(tx, r->table, r->k, strlen(r->k), r->v, 4);
}

/* Writes one row into the store of uri, as another program would. */
static int poke(const char *uri, struct row *r)
{
	struct kvs *s = NULL;
	int ret = kvs_redis_open(uri, &s, NULL, 0);

	if (ret == 0)
		ret = kvs_write(s, put_row, r);
	kvs_free(s);
	return ret;
}

static void test_fresh(void)
{
	struct idx_opts ro = { .readonly = 1 };
	struct idx *ix = NULL;
	char uri[128];

	uri_of(uri, sizeof(uri), "fresh");
	CHECK_EQ_INT(idx_open(&ix, uri, &ro), -ESTALE);	/* no writer yet */
	REQUIRE(idx_open(&ix, uri, NULL) == 0);
	CHECK(idx_generation(ix) > 0);
	idx_close(ix);
	REQUIRE(idx_open(&ix, uri, &ro) == 0);
	idx_close(ix);
	REQUIRE(idx_open(&ix, uri, NULL) == 0);	/* again: the same schema */
	idx_close(ix);
}

static void test_refused(void)
{
	struct row newer = { DB_META, "schema", { 0 } }, stray = { DB_FILES, "a.txt", { 1 } };
	struct idx *ix = NULL;
	char uri[128];

	be_put(newer.v, IDX_SCHEMA_VERSION + 1, 4);
	uri_of(uri, sizeof(uri), "newer");
	REQUIRE(poke(uri, &newer) == 0);
	CHECK_EQ_INT(idx_open(&ix, uri, NULL), -EPROTONOSUPPORT);
	CHECK(ix == NULL);
	uri_of(uri, sizeof(uri), "stray");
	REQUIRE(poke(uri, &stray) == 0);
	CHECK_EQ_INT(idx_open(&ix, uri, NULL), -EIO);
	CHECK(ix == NULL);
}

static void test_unreachable(void)
{
	struct idx *ix = NULL;
	char uri[64];
	int ret;

	/* port 1: nothing listens there */
	snprintf(uri, sizeof(uri), "redis://127.0.0.1:1/x");
	ret = idx_open(&ix, uri, NULL);
	CHECK(ret < 0);
	CHECK(ix == NULL);
	CHECK_EQ_INT(idx_open(&ix, "redis://127.0.0.1:1/{bad}", NULL), -EINVAL);
}

int main(void)
{
	port = redisrv_need();
	RUN(test_fresh);
	RUN(test_refused);
	RUN(test_unreachable);
	return CHECK_DONE();
}
