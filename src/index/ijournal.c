/* ijournal.c - the outage journal (see ijournal.h). */
#include "ijournal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "byteorder.h"
#include "rcluri.h"

#define IJR_DEFAULT_MAX 10000
#define IJR_FILE_MAX ((off_t)64 << 20)	/* larger than any max allows: damage */
#define REC_HEAD 5
#define REC_TAIL 4

struct ijr {
	pthread_mutex_t lock;
	int fd;
	char *path;
	size_t max, n;
	int rescan;
};

static int op_known(int op)
{
	return op == IJR_WRITE || op == IJR_UNLINK || op == IJR_RENAME || op == IJR_EXCHANGE ||
	       op == IJR_LINK || op == IJR_RESCAN;
}

/* The ops that carry a second path. */
static int op_two(int op)
{
	return op == IJR_RENAME || op == IJR_EXCHANGE || op == IJR_LINK;
}

size_t ijr_parse(const void *buf, size_t len, ijr_fn *fn, void *arg, int *damaged)
{
	const uint8_t *p = buf;
	char a[IJR_PATH_MAX + 1], b[IJR_PATH_MAX + 1];
	size_t off = IJR_MAGIC_LEN;

	*damaged = 0;
	if (len < IJR_MAGIC_LEN || memcmp(p, IJR_MAGIC, IJR_MAGIC_LEN)) {
		*damaged = 1;
		return 0;
	}
	while (off < len) {
		size_t la, lb, rec;
		int op;

		if (len - off < REC_HEAD + REC_TAIL)
			break;
		op = p[off];
		la = (size_t)be_get(p + off + 1, 2);
		lb = (size_t)be_get(p + off + 3, 2);
		rec = REC_HEAD + la + lb + REC_TAIL;
		if (!op_known(op) || la > IJR_PATH_MAX || lb > IJR_PATH_MAX || len - off < rec ||
		    be_get(p + off + rec - REC_TAIL, 4) != XXH32(p + off, rec - REC_TAIL, 0))
			break;
		/* the shapes the writer makes, and no NUL inside a path */
		if ((op == IJR_RESCAN ? la || lb : !la || !lb != !op_two(op)) ||
		    memchr(p + off + REC_HEAD, 0, la + lb))
			break;
		memcpy(a, p + off + REC_HEAD, la);
		a[la] = 0;
		memcpy(b, p + off + REC_HEAD + la, lb);
		b[lb] = 0;
		if (fn)
			fn(arg, (enum ijr_op)op, op == IJR_RESCAN ? NULL : a, op_two(op) ? b : NULL);
		off += rec;
	}
	*damaged = off < len;
	return off;
}

/* Encodes one record into buf (room for REC_HEAD + 2 * IJR_PATH_MAX +
 * REC_TAIL): its length. */
static size_t rec_encode(uint8_t *buf, int op, const char *a, size_t la, const char *b,
			 size_t lb)
{
	buf[0] = (uint8_t)op;
	be_put(buf + 1, la, 2);
	be_put(buf + 3, lb, 2);
	memcpy(buf + REC_HEAD, a, la);
	memcpy(buf + REC_HEAD + la, b, lb);
	be_put(buf + REC_HEAD + la + lb, XXH32(buf, REC_HEAD + la + lb, 0), 4);
	return REC_HEAD + la + lb + REC_TAIL;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* Replaces the file with the header and, when rescan, one IJR_RESCAN
 * record: a new file renamed over it, then the folder synced.  Lock held. */
static int rewrite(struct ijr *j, int rescan)
{
	uint8_t buf[IJR_MAGIC_LEN + REC_HEAD + REC_TAIL];
	size_t len = IJR_MAGIC_LEN, pl = strlen(j->path);
	char *tmp = malloc(pl + 5), *slash;
	int fd = -1, dfd, ret;

	if (!tmp)
		return -ENOMEM;
	memcpy(buf, IJR_MAGIC, IJR_MAGIC_LEN);
	if (rescan)
		len += rec_encode(buf + len, IJR_RESCAN, "", 0, "", 0);
	memcpy(tmp, j->path, pl);
	memcpy(tmp + pl, ".new", 5);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ret = fd < 0 ? -errno : write_all(fd, buf, len);
	if (!ret && fsync(fd) < 0)
		ret = -errno;
	if (!ret && rename(tmp, j->path) < 0)
		ret = -errno;
	if (ret) {
		if (fd >= 0)
			close(fd);
		unlink(tmp);
		free(tmp);
		return ret;
	}
	/* the rename itself survives a crash once its folder is synced */
	slash = strrchr(tmp, '/');
	if (slash)
		*slash = 0;
	dfd = open(slash ? (*tmp ? tmp : "/") : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		(void)fsync(dfd);
		close(dfd);
	}
	free(tmp);
	if (j->fd >= 0)
		close(j->fd);
	/* the new file, for appending: fd is write-only, not O_APPEND */
	close(fd);
	j->fd = open(j->path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (j->fd < 0)
		return -errno;
	j->n = 0;
	j->rescan = rescan;
	return 0;
}

/* mkdir -p of path's folder, 0700. */
static int make_parent(const char *path)
{
	char *d = strdup(path), *s;
	int ret = 0;

	if (!d)
		return -ENOMEM;
	for (s = strchr(d + 1, '/'); s && !ret; s = strchr(s + 1, '/')) {
		*s = 0;
		if (mkdir(d, 0700) < 0 && errno != EEXIST)
			ret = -errno;
		*s = '/';
	}
	free(d);
	return ret;
}

static void count_rec(void *arg, enum ijr_op op, const char *a, const char *b)
{
	struct ijr *j = arg;

	(void)a;
	(void)b;
	if (op == IJR_RESCAN)
		j->rescan = 1;
	else
		j->n++;
}

/* Reads what the file holds; cuts a damaged tail off (a rescan owed). */
static int load(struct ijr *j)
{
	struct stat st;
	uint8_t *buf = NULL;
	size_t good = 0, got = 0;
	int damaged = 1, ret = 0;

	if (fstat(j->fd, &st) < 0)
		return -errno;
	if (st.st_size == 0)
		return rewrite(j, 0);
	if (st.st_size <= IJR_FILE_MAX) {
		buf = malloc((size_t)st.st_size);
		if (!buf)
			return -ENOMEM;
		while (got < (size_t)st.st_size) {
			ssize_t r = pread(j->fd, buf + got, (size_t)st.st_size - got, (off_t)got);

			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			got += (size_t)r;
		}
		good = ijr_parse(buf, got, count_rec, j, &damaged);
		free(buf);
	}
	if (!damaged)
		return 0;
	if (good == 0) {
		j->n = 0;
		return rewrite(j, 1);
	}
	/* keep the readable records, then owe a rescan for the rest */
	if (ftruncate(j->fd, (off_t)good) < 0)
		return -errno;
	if (!j->rescan) {
		uint8_t rec[REC_HEAD + REC_TAIL];

		ret = write_all(j->fd, rec, rec_encode(rec, IJR_RESCAN, "", 0, "", 0));
		j->rescan = 1;
	}
	if (!ret && fdatasync(j->fd) < 0)
		ret = -errno;
	return ret;
}

int ijr_open(const char *path, size_t max, struct ijr **out)
{
	struct ijr *j = calloc(1, sizeof(*j));
	int ret;

	*out = NULL;
	if (!j)
		return -ENOMEM;
	j->fd = -1;
	j->max = max ? max : IJR_DEFAULT_MAX;
	pthread_mutex_init(&j->lock, NULL);
	j->path = strdup(path);
	ret = j->path ? make_parent(path) : -ENOMEM;
	if (!ret) {
		j->fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
		ret = j->fd < 0 ? -errno : load(j);
	}
	if (ret) {
		ijr_free(j);
		return ret;
	}
	*out = j;
	return 0;
}

void ijr_free(struct ijr *j)
{
	if (!j)
		return;
	if (j->fd >= 0)
		close(j->fd);
	pthread_mutex_destroy(&j->lock);
	free(j->path);
	free(j);
}

int ijr_add(struct ijr *j, enum ijr_op op, const char *a, const char *b)
{
	uint8_t rec[REC_HEAD + 2 * IJR_PATH_MAX + REC_TAIL];
	size_t la = a ? strlen(a) : 0, lb = b ? strlen(b) : 0;
	int ret = 0;

	if (!op_known(op) || (op == IJR_RESCAN ? la || lb : !la || !lb != !op_two(op)))
		return -EINVAL;
	pthread_mutex_lock(&j->lock);
	if (j->rescan)
		goto out;	/* the rescan will find it */
	if (op == IJR_RESCAN || la > IJR_PATH_MAX || lb > IJR_PATH_MAX || j->n >= j->max) {
		ret = rewrite(j, 1);
		goto out;
	}
	ret = write_all(j->fd, rec, rec_encode(rec, op, a, la, b ? b : "", lb));
	if (!ret && fdatasync(j->fd) < 0)
		ret = -errno;
	if (!ret)
		j->n++;
out:
	if (ret)
		j->rescan = 1;	/* at least in memory: replayed as a rescan */
	pthread_mutex_unlock(&j->lock);
	return ret;
}

size_t ijr_count(struct ijr *j, int *rescan)
{
	size_t n;

	pthread_mutex_lock(&j->lock);
	n = j->n;
	if (rescan)
		*rescan = j->rescan;
	pthread_mutex_unlock(&j->lock);
	return n;
}

const char *ijr_path(const struct ijr *j)
{
	return j->path;
}

struct replay {
	ijr_fn *fn;
	void *arg;
	int calls, rescan;
};

static void replay_rec(void *arg, enum ijr_op op, const char *a, const char *b)
{
	struct replay *r = arg;

	if (op == IJR_RESCAN) {
		r->rescan = 1;
		return;
	}
	r->fn(r->arg, op, a, b);
	r->calls++;
}

int ijr_replay(struct ijr *j, ijr_fn *fn, void *arg)
{
	struct replay r = { fn, arg, 0, 0 };
	struct stat st;
	uint8_t *buf = NULL;
	size_t got = 0;
	int damaged, ret = 0;

	pthread_mutex_lock(&j->lock);
	if (!j->n && !j->rescan)
		goto out;
	if (fstat(j->fd, &st) < 0) {
		ret = -errno;
		goto out;
	}
	buf = malloc(st.st_size > 0 ? (size_t)st.st_size : 1);
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = pread(j->fd, buf + got, (size_t)st.st_size - got, (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	/* a rescan kept only in memory (a failed append) counts too */
	r.rescan = j->rescan;
	(void)ijr_parse(buf, got, replay_rec, &r, &damaged);
	if (r.rescan || damaged) {
		fn(arg, IJR_RESCAN, NULL, NULL);
		r.calls++;
	}
	ret = rewrite(j, 0);
	if (!ret)
		ret = r.calls;
out:
	pthread_mutex_unlock(&j->lock);
	free(buf);
	return ret;
}

int ijr_place(const char *state_dir, const char *uri, const char *src, char *buf, size_t n)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	struct rcluri u = { 0 };
	XXH64_state_t h;
	int ret, len;

	if (!state_dir && !(xdg && *xdg == '/') && !(home && *home == '/'))
		return -EINVAL;
	ret = rcluri_parse(uri, &u, NULL);
	if (ret)
		return ret;
	XXH64_reset(&h, 0);
	XXH64_update(&h, uri, strlen(uri) + 1);
	XXH64_update(&h, src, strlen(src));
	if (state_dir)
		len = snprintf(buf, n, "%s/%s-%016llx.journal", state_dir,
			       u.ns[0] ? u.ns : "simbook", (unsigned long long)XXH64_digest(&h));
	else
		len = snprintf(buf, n, "%s%s/simbookfs/%s-%016llx.journal",
			       xdg && *xdg == '/' ? xdg : home,
			       xdg && *xdg == '/' ? "" : "/.local/state", u.ns[0] ? u.ns : "simbook",
			       (unsigned long long)XXH64_digest(&h));
	rcluri_release(&u);
	return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}
