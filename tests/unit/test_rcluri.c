/* test_rcluri.c - the cluster key slot (values checked against a real
 * redis-server's CLUSTER KEYSLOT) and the redis:// URI parser. */
#include "check.h"
#include "keyslot.h"
#include "rcluri.h"

static unsigned slot(const char *k)
{
	return keyslot_of(k, strlen(k));
}

static void test_crc16(void)
{
	CHECK_EQ_INT(keyslot_crc16("123456789", 9), 0x31C3);
	CHECK_EQ_INT(keyslot_crc16("", 0), 0);
	CHECK_EQ_INT(slot("123456789"), 12739);
	CHECK_EQ_INT(slot("foo"), 12182);
	CHECK_EQ_INT(slot("bar"), 5061);
	CHECK_EQ_INT(slot("hello"), 866);
	CHECK_EQ_INT(slot(""), 0);
	/* binary-safe: a NUL inside the key counts */
	CHECK(keyslot_of("a\0b", 3) != keyslot_of("a", 1));
}

static void test_hash_tags(void)
{
	/* the examples of the cluster specification */
	CHECK_EQ_INT(slot("{user1000}.following"), 3443);
	CHECK_EQ_INT(slot("{user1000}.followers"), slot("{user1000}.following"));
	CHECK_EQ_INT(slot("foo{}{bar}"), 8363);		/* empty first tag: whole key */
	CHECK_EQ_INT(slot("foo{{bar}}zap"), 4015);	/* the tag is "{bar" */
	CHECK_EQ_INT(slot("foo{{bar}}zap"), slot("{bar"));
	CHECK_EQ_INT(slot("foo{bar}{zap}"), 5061);	/* the first tag only */
	CHECK_EQ_INT(slot("foo{bar}{zap}"), slot("bar"));
	CHECK_EQ_INT(slot("bar}"), 6624);
	CHECK_EQ_INT(slot("{"), 4092);
	CHECK_EQ_INT(slot("x{lib}"), slot("y{lib}:books"));
}

static int parse_ok(const char *text, struct rcluri *u)
{
	const char *why = NULL;
	int rc = rcluri_parse(text, u, &why);

	if (rc != 0)
		fprintf(stderr, "  %s: %s\n", text, why ? why : "(no reason)");
	return rc == 0;
}

static void test_uri_good(void)
{
	struct rcluri u;

	REQUIRE(parse_ok("redis://127.0.0.1:7000", &u));
	CHECK_EQ_INT(u.n, 1);
	CHECK_EQ_STR(u.hosts[0].name, "127.0.0.1");
	CHECK_EQ_INT(u.hosts[0].port, 7000);
	CHECK_EQ_STR(u.ns, "");
	rcluri_release(&u);

	REQUIRE(parse_ok("REDIS://localhost", &u));
	CHECK_EQ_STR(u.hosts[0].name, "localhost");
	CHECK_EQ_INT(u.hosts[0].port, 6379);
	rcluri_release(&u);

	REQUIRE(parse_ok("redis://[::1]:7001,10.0.0.2,db-1.example.org:65535/my_lib-2.0", &u));
	CHECK_EQ_INT(u.n, 3);
	CHECK_EQ_STR(u.hosts[0].name, "::1");
	CHECK_EQ_INT(u.hosts[0].port, 7001);
	CHECK_EQ_STR(u.hosts[1].name, "10.0.0.2");
	CHECK_EQ_INT(u.hosts[1].port, 6379);
	CHECK_EQ_STR(u.hosts[2].name, "db-1.example.org");
	CHECK_EQ_INT(u.hosts[2].port, 65535);
	CHECK_EQ_STR(u.ns, "my_lib-2.0");
	rcluri_release(&u);

	/* zone ids are not supported: hiredis would not take them either */
	CHECK_EQ_INT(rcluri_parse("redis://[fe80::1%25eth0]", &u, NULL), -EINVAL);
	REQUIRE(parse_ok("redis://[::ffff:1.2.3.4]/x", &u));
	CHECK_EQ_INT(u.hosts[0].port, 6379);
	CHECK_EQ_STR(u.ns, "x");
	rcluri_release(&u);
	rcluri_release(&u);	/* twice is harmless */
}

static void test_uri_bad(void)
{
	static const char *bad[] = {
		"", "redis:/h", "http://h:1", "redis://", "redis://:6379", "redis://h:",
		"redis://h:0", "redis://h:65536", "redis://h:123456", "redis://h:+1",
		"redis://h:1x", "redis://h,", "redis://,h", "redis://h,,g", "redis://h/",
		"redis://h/a{b}", "redis://h/a:b", "redis://h/a/b", "redis://h/\xc3\xa9",
		"redis://user:pw@h", "redis://h?x=1", "redis://h#f", "redis://-h",
		"redis://h-", "redis://a..b", "redis://.a", "redis://a.", "redis://h_x",
		"redis://256.1.1.1", "redis://1.2.3", "redis://::1", "redis://[::1",
		"redis://[]", "redis://[::1]x", "redis://[::1]:", "redis://[1.2.3.4]",
		"redis://[::g]", "redis://h:6379:1",
		"redis://h/0123456789012345678901234567890123456789012345678901234567890123x",
	};
	struct rcluri u;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *why = NULL;
		int rc = rcluri_parse(bad[i], &u, &why);

		if (rc != -EINVAL)
			fprintf(stderr, "  accepted: %s\n", bad[i]);
		CHECK_EQ_INT(rc, -EINVAL);
		CHECK(why != NULL);
		CHECK(u.hosts == NULL && u.n == 0);
	}
	/* 64 hosts pass, 65 do not */
	char many[65 * 8 + 16];
	size_t off = (size_t)snprintf(many, sizeof(many), "redis://");
	for (int i = 0; i < 64; i++)
		off += (size_t)snprintf(many + off, sizeof(many) - off, "%sh%d", i ? "," : "", i);
	REQUIRE(parse_ok(many, &u));
	CHECK_EQ_INT(u.n, 64);
	CHECK_EQ_STR(u.hosts[63].name, "h63");
	rcluri_release(&u);
	snprintf(many + off, sizeof(many) - off, ",h64");
	CHECK_EQ_INT(rcluri_parse(many, &u, NULL), -EINVAL);
	/* a 253-byte name passes, 254 does not; a label of 64 does not */
	char name[300];
	memcpy(name, "redis://", 8);
	memset(name + 8, 'a', 253);
	for (int i = 8 + 63; i < 8 + 253; i += 64)
		name[i] = '.';
	name[8 + 253] = '\0';
	REQUIRE(parse_ok(name, &u));
	rcluri_release(&u);
	name[8 + 253] = 'a';
	name[8 + 254] = '\0';
	CHECK_EQ_INT(rcluri_parse(name, &u, NULL), -EINVAL);
	memset(name + 8, 'b', 64);
	name[8 + 64] = '\0';
	CHECK_EQ_INT(rcluri_parse(name, &u, NULL), -EINVAL);
}

/* An index named redis://... is a Redis one, whatever follows the scheme. */
static void test_is_uri(void)
{
	CHECK(rcluri_is_uri("redis://127.0.0.1"));
	CHECK(rcluri_is_uri("ReDiS://h:1/ns"));
	CHECK(rcluri_is_uri("redis://"));
	CHECK(!rcluri_is_uri("/srv/books/.simbookfs-index"));
	CHECK(!rcluri_is_uri("redis:/x"));
	CHECK(!rcluri_is_uri("rediss://h"));
	CHECK(!rcluri_is_uri(""));
	CHECK(!rcluri_is_uri(NULL));
}

int main(void)
{
	RUN(test_crc16);
	RUN(test_hash_tags);
	RUN(test_uri_good);
	RUN(test_uri_bad);
	RUN(test_is_uri);
	return CHECK_DONE();
}
