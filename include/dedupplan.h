/* dedupplan.h - the pure parts of `simbook dedup`: which member of a group
 * is kept (the keep rules), the relative target of a symbolic link, and the
 * groups read back from `simbook duplicates|clusters --json` lines.
 *
 * Nothing here touches the filesystem; cli_dedup.c does the I/O.
 */
#ifndef DEDUPPLAN_H
#define DEDUPPLAN_H

#include <stddef.h>
#include <stdint.h>

#include "sbuf.h"

enum dd_rule_kind {
	DD_KEEP_OLDEST,		/* smallest mtime first */
	DD_KEEP_NEWEST,
	DD_KEEP_LARGEST,
	DD_KEEP_SMALLEST,
	DD_KEEP_SHORTEST,	/* fewest path components, then fewest bytes */
	DD_PREFER_PREFIX,	/* arg: a folder; members (abs or act) at or below it first */
	DD_PREFER_FORMAT	/* arg: "epub,azw3,pdf"; by extension, in that order */
};

#define DD_RULES_MAX 16

struct dd_rule {
	enum dd_rule_kind kind;
	const char *arg;	/* borrowed (argv) */
};

struct dd_rules {
	size_t n;
	struct dd_rule r[DD_RULES_MAX];
};

/* One member of a group, as the planner sees it.  Strings owned by the
 * member (dd_group_release() frees them). */
struct dd_member {
	char *path;		/* relative to the library */
	char *abs;		/* absolute path in the library, as listed */
	uint64_t size;
	int64_t mtime_ns;
	/* filled and used by cli_dedup.c only: */
	char *act;		/* the path acted on (through the mount), owned */
	uint64_t dev, ino, nlink;
	uint8_t hash[16];	/* XXH3-128 of the bytes at plan time */
};

struct dd_group {
	size_t n;
	struct dd_member *m;
};

/* Appends the rule for a --keep NAME (oldest|newest|largest|smallest|
 * shortest-path).  0, -EINVAL (unknown name), -E2BIG (too many rules). */
int dd_rules_keep(struct dd_rules *r, const char *name);

/* Appends a --prefer PREFIX or --prefer-format LIST rule (arg borrowed).
 * 0, -EINVAL (empty argument), -E2BIG. */
int dd_rules_add(struct dd_rules *r, enum dd_rule_kind kind, const char *arg);

/* Orders two members by the rules in turn, then by the shortest path, then
 * by byte order of abs: < 0 when a is the better one to keep.  Never 0 for
 * two members with different abs. */
int dd_cmp(const struct dd_rules *r, const struct dd_member *a, const struct dd_member *b);

/* Sorts g->m best first (g->m[0] is the one kept). */
void dd_sort(const struct dd_rules *r, struct dd_group *g);

/* The relative path from folder from_dir to to (both absolute, without "."
 * or ".." components, no trailing '/'), appended to out: the target of a
 * relative symbolic link placed in from_dir.  0 or -ENOMEM. */
int dd_relpath(const char *from_dir, const char *to, struct sbuf *out);

/* Parses one line of `simbook duplicates|clusters --json` (a group object
 * with "members":[{"path","abs","size",...}]; other fields are skipped)
 * into g (release with dd_group_release()).  JSON strings are decoded with
 * \udcXX back to the raw byte XX.  0, -EINVAL (not such a line: a member
 * without "abs", bad JSON), -ENOMEM. */
int dd_json_group(const char *line, size_t len, struct dd_group *g);

void dd_group_release(struct dd_group *g);

#endif
