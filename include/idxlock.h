/* idxlock.h - one writer per index: the lock a daemon or `simbook index`
 * holds on its index folder for as long as it runs.
 *
 * LMDB lets several processes write one environment, so nothing below this
 * module stops two daemons (or a daemon and `simbook index`) from scanning
 * and fingerprinting one library into one index at once.  The lock is an
 * flock() on INDEX/daemon.lock: the kernel drops it when the last
 * descriptor of its open file goes, so a process that dies (even by
 * SIGKILL) leaves nothing stale behind, and a fork() child (the daemon
 * going to the background) keeps it.  flock() rather than fcntl() locks:
 * those belong to the process and vanish at the close of any descriptor of
 * the file, and are not inherited across fork().
 *
 * Once locked, the file holds who holds it, one "key value" line each:
 * "pid N", "prog NAME", "src PATH" and, for a mount, "mnt PATH", so that a
 * process refused can name the holder.
 */
#ifndef IDXLOCK_H
#define IDXLOCK_H

#include <limits.h>
#include <stddef.h>

#define IDXLOCK_NAME "daemon.lock"

/* The holder's program names, as written in the file. */
#define IDXLOCK_PROG_DAEMON "simbookfs"
#define IDXLOCK_PROG_INDEX "simbook index"

struct idxlock;

/* Who holds a lock, as its file says (fields empty, pid 0, when it does not
 * say yet: the holder writes it just after locking). */
struct idxlock_holder {
	long pid;
	char prog[32];
	char src[PATH_MAX];
	char mnt[PATH_MAX];	/* "" when the holder is not a mount */
};

/* Takes the lock of index folder dir (which must exist) without waiting,
 * and writes prog, src and mnt (NULL: none) with the caller's pid into it.
 * *out: the lock, held until idxlock_free().  Returns 0, -EBUSY when
 * another open file holds it (then *holder, when not NULL, says who), or
 * -errno of open()/flock().  The file is opened read-only when it cannot be
 * written (the lock still excludes; the holder is then not recorded). */
int idxlock_take(struct idxlock **out, const char *dir, const char *prog, const char *src,
		 const char *mnt, struct idxlock_holder *holder);

/* Writes the record again with the calling process's pid: after fork(),
 * the child that keeps the lock.  0 or -errno. */
int idxlock_refresh(struct idxlock *lk);

/* One sentence naming the holder into buf, e.g. "/books is already served
 * by simbookfs (pid 12) at /mnt/books" or "/books is already being indexed
 * by simbook index (pid 12)". */
void idxlock_describe(const struct idxlock_holder *h, char *buf, size_t size);

/* Releases the lock and frees lk (NULL allowed).  With remove, the file is
 * unlinked first (for a caller that created the index folder itself and
 * takes it away again); otherwise its record is emptied. */
void idxlock_free(struct idxlock *lk, int remove);

#endif
