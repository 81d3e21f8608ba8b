/* Unit tests for climount: which files are a mount's reports, and the
 * status's "library" member read back, escapes included. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "climount.h"
#include "fspath.h"

static void test_report_names(void)
{
	CHECK(fspath_status_dir(".simbookfs"));
	CHECK(fspath_status_dir("v-.simbookfs"));
	CHECK(!fspath_status_dir("simbookfs"));
	CHECK(!fspath_status_dir(".simbookfs-index"));
	CHECK(climount_report("/m/.simbookfs/status"));
	CHECK(climount_report(".simbookfs/errors"));
	CHECK(climount_report("a/v-.simbookfs//status"));
	CHECK(!climount_report("/m/.simbookfs"));
	CHECK(!climount_report("status"));
	CHECK(!climount_report("/m/books/status"));
	CHECK(!climount_report("/m/.simbookfs-index/data.mdb"));
}

/* A status as a daemon writes it, in folder name of mnt. */
static int put_status(const char *mnt, const char *name, const char *json)
{
	char p[512];
	FILE *fp;

	snprintf(p, sizeof(p), "%s/%s", mnt, name);
	if (mkdir(p, 0700))
		return -1;
	snprintf(p, sizeof(p), "%s/%s/status", mnt, name);
	fp = fopen(p, "w");
	if (!fp)
		return -1;
	fputs(json, fp);
	return fclose(fp);
}

static void test_library(void)
{
	const char *dir = check_tmpdir();
	struct climount m;

	REQUIRE(dir);
	CHECK(climount_library(dir, &m) < 0);	/* no status at all */
	REQUIRE(put_status(dir, "v-.simbookfs", "{\"state\":\"idle\",\"index\":{\"state\":\"open\"},"
			   "\"library\":{\"src\":\"/b\\\\x\\\"y\\tz\\udcff\\u00e9\",\"index\":\"/b/.i\","
			   "\"reader\":\"/proc/1/fd/3/.i\",\"pid\":1}}\n") == 0);
	REQUIRE(climount_library(dir, &m) == 0);
	CHECK_EQ_STR(m.src, "/b\\x\"y\tz\xff\xc3\xa9");
	CHECK_EQ_STR(m.index, "/b/.i");
	CHECK_EQ_STR(m.reader, "/proc/1/fd/3/.i");
	CHECK_EQ_STR(m.mnt, dir);
	climount_release(&m);
}

static void test_no_library(void)
{
	const char *dir = check_tmpdir();
	struct climount m;

	REQUIRE(dir);
	/* an older daemon's status, and a broken one */
	REQUIRE(put_status(dir, ".simbookfs", "{\"state\":\"idle\",\"index\":{\"state\":\"open\"}}\n") == 0);
	CHECK(climount_library(dir, &m) < 0);
	REQUIRE(put_status(dir, "x.simbookfs", "{\"library\":{\"src\":\"/a\\q\"}}") == 0);
	CHECK(climount_library(dir, &m) < 0);
	CHECK(m.src == NULL && m.mnt == NULL);
}

int main(void)
{
	RUN(test_report_names);
	RUN(test_library);
	RUN(test_no_library);
	return CHECK_DONE();
}
