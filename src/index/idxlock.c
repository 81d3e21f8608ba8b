/* idxlock.c - the one-writer lock on an index folder (idxlock.h). */
#include "idxlock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct idxlock {
	int fd;
	int locked;		/* flock() succeeded on fd */
	int writable;
	char *path;
	char *prog, *src, *mnt;
};

/* How often a refused taker rereads a record not written yet, 10 ms apart. */
#define READ_TRIES 50

static char *idxlock_dup(const char *s)
{
	return strdup(s ? s : "");
}

/* One "key value" line of the record at *at.  A newline in a path would
 * end its line early, so it is written as '?': the record only names the
 * holder to a person. */
static int idxlock_put(char **at, char *end, const char *key, const char *val)
{
	char *p = *at;
	int n = snprintf(p, (size_t)(end - p), "%s %s\n", key, val);

	if (n < 0 || n >= end - p)
		return -ENAMETOOLONG;
	for (p += strlen(key) + 1; p < *at + n - 1; p++)
		if (*p == '\n')
			*p = '?';
	*at += n;
	return 0;
}

int idxlock_refresh(struct idxlock *lk)
{
	char buf[2 * PATH_MAX + 128], pid[32];
	char *at = buf, *end = buf + sizeof(buf);
	ssize_t n;
	int ret;

	if (!lk->writable)
		return 0;
	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	ret = idxlock_put(&at, end, "pid", pid);
	if (!ret)
		ret = idxlock_put(&at, end, "prog", lk->prog);
	if (!ret)
		ret = idxlock_put(&at, end, "src", lk->src);
	if (!ret && *lk->mnt)
		ret = idxlock_put(&at, end, "mnt", lk->mnt);
	if (ret)
		return ret;
	/* One write at offset 0 after the truncation: a reader sees the old
	 * record, none, or the new one whole (it retries a record without a
	 * pid). */
	if (ftruncate(lk->fd, 0) < 0)
		return -errno;
	n = pwrite(lk->fd, buf, (size_t)(at - buf), 0);
	if (n < 0)
		return -errno;
	return n == at - buf ? 0 : -EIO;
}

/* Parses a record into h; 0 when it names a pid. */
static int idxlock_parse(char *buf, struct idxlock_holder *h)
{
	char *line, *next, *val;

	memset(h, 0, sizeof(*h));
	for (line = buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (!next)
			break;	/* a last line without its newline is not whole */
		*next++ = '\0';
		val = strchr(line, ' ');
		if (!val)
			continue;
		*val++ = '\0';
		if (!strcmp(line, "pid"))
			h->pid = strtol(val, NULL, 10);
		else if (!strcmp(line, "prog"))
			snprintf(h->prog, sizeof(h->prog), "%s", val);
		else if (!strcmp(line, "src"))
			snprintf(h->src, sizeof(h->src), "%s", val);
		else if (!strcmp(line, "mnt"))
			snprintf(h->mnt, sizeof(h->mnt), "%s", val);
	}
	return h->pid > 0 ? 0 : -ENOENT;
}

/* Reads the holder's record from fd, waiting a little for a holder that
 * has locked but not written yet. */
static void idxlock_read(int fd, struct idxlock_holder *h)
{
	const struct timespec pause = { 0, 10 * 1000 * 1000 };
	char buf[2 * PATH_MAX + 128];
	ssize_t n;
	int i;

	for (i = 0; i < READ_TRIES; i++) {
		n = pread(fd, buf, sizeof(buf) - 1, 0);
		buf[n > 0 ? n : 0] = '\0';
		if (idxlock_parse(buf, h) == 0)
			return;
		nanosleep(&pause, NULL);
	}
}

/* Opens and locks path; 1 when the file locked is no longer the one at
 * path (its creator took it away meanwhile: try again). */
static int idxlock_open(struct idxlock *lk, struct idxlock_holder *holder)
{
	struct stat a, b;

	lk->writable = 1;
	lk->fd = open(lk->path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (lk->fd < 0 && (errno == EACCES || errno == EROFS || errno == EPERM)) {
		lk->writable = 0;
		lk->fd = open(lk->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	}
	if (lk->fd < 0)
		return -errno;
	if (flock(lk->fd, LOCK_EX | LOCK_NB) < 0) {
		int ret = errno == EWOULDBLOCK ? -EBUSY : -errno;

		if (ret == -EBUSY && holder)
			idxlock_read(lk->fd, holder);
		return ret;
	}
	lk->locked = 1;
	if (fstat(lk->fd, &a) < 0)
		return -errno;
	if (stat(lk->path, &b) < 0)
		return errno == ENOENT ? 1 : -errno;
	return a.st_dev != b.st_dev || a.st_ino != b.st_ino;
}

int idxlock_take(struct idxlock **out, const char *dir, const char *prog, const char *src,
		 const char *mnt, struct idxlock_holder *holder)
{
	struct idxlock *lk = calloc(1, sizeof(*lk));
	int ret, tries;

	*out = NULL;
	if (holder)
		memset(holder, 0, sizeof(*holder));
	if (!lk)
		return -ENOMEM;
	lk->fd = -1;
	lk->prog = idxlock_dup(prog);
	lk->src = idxlock_dup(src);
	lk->mnt = idxlock_dup(mnt);
	if (!lk->prog || !lk->src || !lk->mnt ||
	    asprintf(&lk->path, "%s/%s", dir, IDXLOCK_NAME) < 0) {
		lk->path = NULL;
		ret = -ENOMEM;
		goto out;
	}
	for (tries = 0; tries < 10; tries++) {
		ret = idxlock_open(lk, holder);
		if (ret <= 0)
			break;
		close(lk->fd);
		lk->fd = -1;
		lk->locked = 0;
	}
	if (ret > 0)
		ret = -EAGAIN;
	if (!ret)
		ret = idxlock_refresh(lk);
out:
	if (ret) {
		idxlock_free(lk, 0);
		return ret;
	}
	*out = lk;
	return 0;
}

void idxlock_describe(const struct idxlock_holder *h, char *buf, size_t size)
{
	const char *src = *h->src ? h->src : "the library";

	if (!h->pid)
		snprintf(buf, size, "the index is in use by another process (which does not say "
			 "who it is)");
	else if (!strcmp(h->prog, IDXLOCK_PROG_DAEMON) && *h->mnt)
		snprintf(buf, size, "%s is already served by %s (pid %ld) at %s", src, h->prog,
			 h->pid, h->mnt);
	else if (!strcmp(h->prog, IDXLOCK_PROG_INDEX))
		snprintf(buf, size, "%s is already being indexed by %s (pid %ld)", src, h->prog,
			 h->pid);
	else
		snprintf(buf, size, "the index of %s is in use by %s (pid %ld)", src,
			 *h->prog ? h->prog : "another process", h->pid);
}

void idxlock_free(struct idxlock *lk, int remove)
{
	if (!lk)
		return;
	/* Still locked here, so no taker sees the record change.  An emptied
	 * record is tidier than a stale one; it is only ever read while a
	 * lock is held, so failing to empty it is harmless. */
	if (lk->locked && remove)
		unlink(lk->path);
	else if (lk->locked && lk->writable && ftruncate(lk->fd, 0) < 0)
		lk->writable = 0;
	if (lk->fd >= 0)
		close(lk->fd);
	free(lk->path);
	free(lk->prog);
	free(lk->src);
	free(lk->mnt);
	free(lk);
}
