/* fsacc.c - search permission on the folders of a path, per caller (see
 * fsacc.h): a direct-mapped cache of folder chains (SRC's root down to a
 * folder, each folder's mode and owner) and of processes' groups. */
#include "fsacc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "monoclock.h"

#define FOLDER_SLOTS 4096
#define CHAIN_MAX 16		/* deeper folders are read each time */
#define PROC_SLOTS 64
#define GROUPS_MAX 256		/* more supplementary groups: the rest unseen */

struct fattr {
	mode_t mode;
	uid_t uid;
	gid_t gid;
};

/* The folders from SRC's root down to dir; n 0 when one is missing. */
struct chain {
	int n;
	struct fattr f[CHAIN_MAX];
};

struct folder {
	char *dir;		/* owned; NULL: a free slot */
	int64_t at;
	struct chain c;
};

struct procgroups {
	pid_t pid;
	uid_t uid;
	int64_t at;
	int n;
	gid_t g[GROUPS_MAX];
};

struct fsacc {
	int rootfd;
	int64_t ttl;
	int changed;		/* a refresh found a folder changed (fsacc_recheck()) */
	uint64_t changes;	/* every refresh that found a change */
	pthread_mutex_t lock;
	struct folder folder[FOLDER_SLOTS];
	struct procgroups proc[PROC_SLOTS];
};

int fsacc_new(struct fsacc **out, int rootfd, int64_t ttl_ns)
{
	struct fsacc *a = calloc(1, sizeof(*a));

	*out = NULL;
	if (!a)
		return -ENOMEM;
	a->rootfd = rootfd;
	a->ttl = ttl_ns;
	pthread_mutex_init(&a->lock, NULL);
	*out = a;
	return 0;
}

void fsacc_free(struct fsacc *a)
{
	size_t i;

	if (!a)
		return;
	for (i = 0; i < FOLDER_SLOTS; i++)
		free(a->folder[i].dir);
	pthread_mutex_destroy(&a->lock);
	free(a);
}

int fsacc_may_search(const struct fsacc_who *who, const gid_t *groups, int ngroups,
		     mode_t mode, uid_t uid, gid_t gid)
{
	mode_t bits = mode;
	int i, in = 0;

	if (who->uid == 0)
		return 1;	/* CAP_DAC_READ_SEARCH */
	if (who->uid == uid) {
		bits = mode >> 6;
	} else if (who->gid == gid) {
		bits = mode >> 3;
	} else if ((mode >> 3 & 1) != (mode & 1)) {
		/* the group class and the others differ: membership decides */
		if (ngroups < 0)
			return -1;
		for (i = 0; i < ngroups && !in; i++)
			in = groups[i] == gid;
		bits = in ? mode >> 3 : mode;
	}
	return bits & 1;
}

int fsacc_proc_groups(pid_t pid, gid_t *groups, int max)
{
	char name[64], *line = NULL, *p, *end;
	size_t cap = 0;
	unsigned long g;
	int n = -ENOENT;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/status", (int)pid);
	f = fopen(name, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		if (strncmp(line, "Groups:", 7))
			continue;
		n = 0;
		for (p = line + 7; n < max; p = end) {
			errno = 0;
			g = strtoul(p, &end, 10);
			if (end == p || errno)
				break;
			groups[n++] = (gid_t)g;
		}
		break;
	}
	free(line);
	fclose(f);
	return n;
}

/* The folders from the root down to dir ("" the root), read now. */
static void chain_read(int rootfd, const char *dir, struct chain *c)
{
	char buf[PATH_MAX];
	struct stat st;
	size_t len = strlen(dir), i;

	c->n = 0;
	if (len >= sizeof(buf) || fstat(rootfd, &st) || !S_ISDIR(st.st_mode))
		return;
	memcpy(buf, dir, len + 1);
	c->f[c->n++] = (struct fattr){ st.st_mode, st.st_uid, st.st_gid };
	for (i = 0; len && i <= len; i++) {
		if (buf[i] != '/' && buf[i])
			continue;
		buf[i] = '\0';
		if (c->n == CHAIN_MAX || fstatat(rootfd, buf, &st, 0) || !S_ISDIR(st.st_mode)) {
			c->n = 0;
			return;
		}
		c->f[c->n++] = (struct fattr){ st.st_mode, st.st_uid, st.st_gid };
		if (i < len)
			buf[i] = '/';
	}
}

static size_t folder_slot(const char *dir)
{
	uint64_t h = 0xcbf29ce484222325u;

	while (*dir)
		h = (h ^ (unsigned char)*dir++) * 0x100000001b3u;
	return (size_t)((h ^ h >> 29) % FOLDER_SLOTS);
}

/* The chain of dir, from the cache while fresh; c->n 0 when a folder is
 * missing or the chain too deep for the cache (deep_ok() then decides). */
static void chain_get(struct fsacc *a, const char *dir, struct chain *c)
{
	struct folder *f = &a->folder[folder_slot(dir)];
	int64_t now = monoclock_ns();
	char *copy;

	pthread_mutex_lock(&a->lock);
	if (f->dir && !strcmp(f->dir, dir) && now - f->at < a->ttl) {
		*c = f->c;
		pthread_mutex_unlock(&a->lock);
		return;
	}
	pthread_mutex_unlock(&a->lock);
	chain_read(a->rootfd, dir, c);
	copy = strdup(dir);
	if (!copy)
		return;
	pthread_mutex_lock(&a->lock);
	if (f->dir && !strcmp(f->dir, dir) &&
	    (c->n != f->c.n || memcmp(c->f, f->c.f, (size_t)c->n * sizeof(c->f[0])))) {
		a->changed = 1;
		a->changes++;
	}
	free(f->dir);
	f->dir = copy;
	f->at = now;
	f->c = *c;
	pthread_mutex_unlock(&a->lock);
}

/* The supplementary groups of who's process, cached for ttl. */
static int groups_get(struct fsacc *a, const struct fsacc_who *who, gid_t *g)
{
	struct procgroups *p = &a->proc[(size_t)who->pid % PROC_SLOTS];
	int64_t now = monoclock_ns();
	int n;

	if (!who->pid)
		return 0;
	pthread_mutex_lock(&a->lock);
	if (p->pid == who->pid && p->uid == who->uid && now - p->at < a->ttl) {
		n = p->n;
		memcpy(g, p->g, (size_t)n * sizeof(*g));
		pthread_mutex_unlock(&a->lock);
		return n;
	}
	pthread_mutex_unlock(&a->lock);
	n = fsacc_proc_groups(who->pid, g, GROUPS_MAX);
	if (n < 0)
		return 0;	/* gone: its primary group only */
	pthread_mutex_lock(&a->lock);
	p->pid = who->pid;
	p->uid = who->uid;
	p->at = now;
	p->n = n;
	memcpy(p->g, g, (size_t)n * sizeof(*g));
	pthread_mutex_unlock(&a->lock);
	return n;
}

/* The folder holding path ("" for a top-level name) into buf. */
static int parent_of(const char *path, char *buf, size_t size)
{
	const char *slash = strrchr(path, '/');
	size_t len = slash ? (size_t)(slash - path) : 0;

	if (len >= size)
		return -ENAMETOOLONG;
	memcpy(buf, path, len);
	buf[len] = '\0';
	return 0;
}

/* One folder of a chain checked for who (any: for every caller); *ng and
 * g the groups once read. */
static int folder_ok(struct fsacc *a, const struct fsacc_who *who, const struct fattr *f,
		     int any, gid_t *g, int *ng)
{
	int r;

	if (any)
		return (f->mode & 0111) == 0111;
	r = fsacc_may_search(who, g, *ng, f->mode, f->uid, f->gid);
	if (r < 0) {
		*ng = groups_get(a, who, g);
		r = fsacc_may_search(who, g, *ng, f->mode, f->uid, f->gid);
	}
	return r;
}

/* A chain the cache does not hold (a missing folder, or deeper than
 * CHAIN_MAX): read folder by folder. */
static int deep_ok(struct fsacc *a, const struct fsacc_who *who, const char *dir, int any)
{
	char buf[PATH_MAX];
	gid_t g[GROUPS_MAX];
	struct fattr f;
	struct stat st;
	size_t len = strlen(dir), i;
	int ng = -1;

	if (len >= sizeof(buf) || fstat(a->rootfd, &st) || !S_ISDIR(st.st_mode))
		return 0;
	f = (struct fattr){ st.st_mode, st.st_uid, st.st_gid };
	if (!folder_ok(a, who, &f, any, g, &ng))
		return 0;
	memcpy(buf, dir, len + 1);
	for (i = 0; len && i <= len; i++) {
		if (buf[i] != '/' && buf[i])
			continue;
		buf[i] = '\0';
		if (fstatat(a->rootfd, buf, &st, 0) || !S_ISDIR(st.st_mode))
			return 0;
		f = (struct fattr){ st.st_mode, st.st_uid, st.st_gid };
		if (!folder_ok(a, who, &f, any, g, &ng))
			return 0;
		if (i < len)
			buf[i] = '/';
	}
	return 1;
}

int fsacc_reach(struct fsacc *a, const struct fsacc_who *who, const char *path)
{
	char dir[PATH_MAX];
	gid_t g[GROUPS_MAX];
	struct chain c;
	int i, ng = -1;

	if (parent_of(path, dir, sizeof(dir)))
		return 0;
	chain_get(a, dir, &c);
	if (!c.n)
		return deep_ok(a, who, dir, 0);
	for (i = 0; i < c.n; i++)
		if (!folder_ok(a, who, &c.f[i], 0, g, &ng))
			return 0;
	return 1;
}

int fsacc_public(struct fsacc *a, const char *path)
{
	char dir[PATH_MAX];
	struct chain c;
	int i;

	if (parent_of(path, dir, sizeof(dir)))
		return 0;
	chain_get(a, dir, &c);
	if (!c.n)
		return deep_ok(a, NULL, dir, 1);
	for (i = 0; i < c.n; i++)
		if ((c.f[i].mode & 0111) != 0111)
			return 0;
	return 1;
}
int fsacc_covers(struct fsacc *a, const char *guard, const char *path)
{
	char dir[PATH_MAX];
	struct chain g, c;
	uid_t owner = 0;
	int i, closed = 0;

	chain_get(a, guard, &g);
	/* who gets through guard: root, and the owner of each folder that
	 * only its owner may search (the other folders are not counted:
	 * that can only make the set larger) */
	for (i = 0; i < g.n; i++) {
		if (g.f[i].mode & 0011)
			continue;
		if (closed && g.f[i].uid != owner)
			return 1;	/* two owners: root alone */
		owner = g.f[i].uid;
		closed = 1;
	}
	if (!closed)
		return 0;
	if (owner == 0)
		return 1;
	if (parent_of(path, dir, sizeof(dir)))
		return 0;
	chain_get(a, dir, &c);
	if (!c.n)
		return 0;
	/* whether owner is in a folder's group is not known here: both the
	 * group's and the others' bit must let it search */
	for (i = 0; i < c.n; i++)
		if (c.f[i].uid == owner ? !(c.f[i].mode & 0100) : (c.f[i].mode & 0011) != 0011)
			return 0;
	return 1;
}

void fsacc_note(struct fsacc *a, const char *dir, const struct stat *st)
{
	struct folder *f = &a->folder[folder_slot(dir)];
	const struct fattr *last;
	struct chain c;
	int stale = 0;

	pthread_mutex_lock(&a->lock);
	if (f->dir && !strcmp(f->dir, dir) && f->c.n) {
		last = &f->c.f[f->c.n - 1];
		stale = last->mode != st->st_mode || last->uid != st->st_uid ||
			last->gid != st->st_gid;
		if (stale)
			f->at = monoclock_ns() - a->ttl;	/* expired */
	}
	pthread_mutex_unlock(&a->lock);
	if (stale)
		chain_get(a, dir, &c);
}

uint64_t fsacc_changes(struct fsacc *a)
{
	uint64_t n;

	pthread_mutex_lock(&a->lock);
	n = a->changes;
	pthread_mutex_unlock(&a->lock);
	return n;
}

int fsacc_recheck(struct fsacc *a)
{
	struct chain c;
	size_t i;
	char *dir;
	int changed;

	pthread_mutex_lock(&a->lock);
	changed = a->changed;
	a->changed = 0;
	pthread_mutex_unlock(&a->lock);

	for (i = 0; i < FOLDER_SLOTS; i++) {
		pthread_mutex_lock(&a->lock);
		dir = a->folder[i].dir ? strdup(a->folder[i].dir) : NULL;
		pthread_mutex_unlock(&a->lock);
		if (!dir)
			continue;
		chain_read(a->rootfd, dir, &c);
		pthread_mutex_lock(&a->lock);
		if (a->folder[i].dir && !strcmp(a->folder[i].dir, dir)) {
			if (c.n != a->folder[i].c.n ||
			    memcmp(c.f, a->folder[i].c.f, (size_t)c.n * sizeof(c.f[0]))) {
				changed = 1;
				a->changes++;
			}
			a->folder[i].c = c;
			a->folder[i].at = monoclock_ns();
		}
		pthread_mutex_unlock(&a->lock);
		free(dir);
	}
	return changed;
}
