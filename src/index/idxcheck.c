/* idxcheck.c - reading an index data file that may be damaged, in a child
 * process (see idxcheck.h).  With the index's own files (src/index/idx*.c)
 * the only module that includes lmdb.h.
 *
 * The page checks use LMDB's on-disk page header, which has not changed
 * since its data format 1 (every 0.9 release): u64 page number, u16 pad,
 * u16 flags, then u16 lower and upper free-space bounds (u32 page count on
 * an overflow page), 16 bytes in all.  LMDB hands out keys and values as
 * pointers into the map, so the page under each one can be found and
 * checked before its bytes are read.
 */
#include "idxcheck.h"

#include <errno.h>
#include <fcntl.h>
#include <lmdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PAGE_HDR 16
#define P_BRANCH 0x01
#define P_LEAF 0x02
#define P_OVERFLOW 0x04
#define P_LEAF2 0x20
#define MAXDBS 64
#define END_TABLE 255
#define WALK_ATTEMPTS 3

/* The child's exit codes. */
/* The child's exit codes: REFUSED, LMDB would not open or read the file;
 * DAMAGED, a check of the walk failed. */
enum { SOUND = 0, DAMAGED = 1, NOFILE = 2, REFUSED = 3, ERRNO_BASE = 32 };

struct walker {
	const uint8_t *base;	/* the map, once a page told where it is */
	int pages;		/* the page checks apply (psize is the OS page size) */
	size_t psize;
	uint64_t last;		/* last page in use */
	uint64_t entries, cap;	/* entries read; more than cap: a loop */
	unsigned sum;		/* the bytes read, so the reads happen */
	int out;		/* idxcheck_dump(): the pipe; -1 for a walk */
};

static uint16_t u16_at(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

static uint32_t u32_at(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t u64_at(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* 1 when the len bytes at p lie on a leaf page (inside it) or on the pages
 * of an overflow value (starting right after its header), each page being
 * a page of the file at its own position; then reads their ends. */
static int span_ok(struct walker *w, const void *ptr, size_t len)
{
	const uint8_t *p = ptr, *page;
	uint64_t pg;
	size_t off;
	uint16_t flags;

	if (!w->pages)
		goto read;
	/* the map starts on an OS page: so does every LMDB page in it */
	off = (size_t)((uintptr_t)p % w->psize);
	page = p - off;
	pg = u64_at(page);
	if (!w->base) {
		/* the map's address (LMDB does not tell it) from the first
		 * page's number; every later page must agree with it */
		if (pg < 2 || pg > w->last || (uintptr_t)page < pg * w->psize)
			return 0;
		w->base = page - pg * w->psize;
	}
	if (page < w->base || (uint64_t)(page - w->base) / w->psize != pg || pg < 2 ||
	    pg > w->last)
		return 0;
	flags = u16_at(page + 10);
	if (flags & P_OVERFLOW) {
		uint32_t n = u32_at(page + 12);

		if (off != PAGE_HDR || n == 0 || pg + n - 1 > w->last ||
		    (uint64_t)n * w->psize < PAGE_HDR + (uint64_t)len)
			return 0;
	} else {
		uint16_t lower = u16_at(page + 12), upper = u16_at(page + 14);

		if (!(flags & (P_LEAF | P_LEAF2)) || (flags & P_BRANCH) || lower < PAGE_HDR ||
		    lower > upper || upper > w->psize || off < PAGE_HDR || off + len > w->psize)
			return 0;
	}
read:
	if (len)
		w->sum += (unsigned)p[0] + p[len - 1];
	return 1;
}

static int write_all(int fd, const void *p, size_t len)
{
	const uint8_t *b = p;

	while (len) {
		ssize_t n = write(fd, b, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		b += n;
		len -= (size_t)n;
	}
	return 0;
}

static int emit(struct walker *w, unsigned table, const MDB_val *k, const MDB_val *v)
{
	uint8_t hdr[9];
	uint32_t kl = (uint32_t)k->mv_size, vl = (uint32_t)v->mv_size;

	hdr[0] = (uint8_t)table;
	memcpy(hdr + 1, &kl, 4);
	memcpy(hdr + 5, &vl, 4);
	if (write_all(w->out, hdr, 9) || write_all(w->out, k->mv_data, kl) ||
	    write_all(w->out, v->mv_data, vl))
		return -1;
	return 0;
}

/* Every entry of dbi; freelist: its values are page lists to check; table:
 * when dumping, the rows are written out under that number (< 0: not). */
static int walk_dbi(struct walker *w, MDB_txn *txn, MDB_dbi dbi, int freelist, int table)
{
	MDB_cursor *cur = NULL;
	MDB_val k, v;
	int rc;

	rc = mdb_cursor_open(txn, dbi, &cur);
	if (rc)
		return rc;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (++w->entries > w->cap || !k.mv_size || !span_ok(w, k.mv_data, k.mv_size) ||
		    (v.mv_size && !span_ok(w, v.mv_data, v.mv_size))) {
			rc = MDB_CORRUPTED;
			break;
		}
		if (freelist) {
			const uint8_t *p = v.mv_data;
			uint64_t n, i;

			if (v.mv_size < 8 || v.mv_size % 8 ||
			    (n = u64_at(p)) != v.mv_size / 8 - 1) {
				rc = MDB_CORRUPTED;
				break;
			}
			for (i = 1; i <= n; i++)
				if (u64_at(p + 8 * i) < 2 || u64_at(p + 8 * i) > w->last)
					break;
			if (i <= n) {
				rc = MDB_CORRUPTED;
				break;
			}
		}
		if (table >= 0 && emit(w, (unsigned)table, &k, &v)) {
			rc = EPIPE;
			break;
		}
	}
	mdb_cursor_close(cur);
	return rc == MDB_NOTFOUND ? 0 : rc;
}

/* The main database's entries, then every table named in it. */
static int walk_named(struct walker *w, MDB_txn *txn, MDB_dbi main_dbi)
{
	MDB_cursor *cur = NULL;
	MDB_val k, v;
	char name[512];
	int rc;

	rc = walk_dbi(w, txn, main_dbi, 0, -1);
	if (rc == 0)
		rc = mdb_cursor_open(txn, main_dbi, &cur);
	for (rc = rc ? rc : mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		MDB_dbi d;
		int r2;

		if (k.mv_size >= sizeof(name) || memchr(k.mv_data, 0, k.mv_size))
			continue;	/* a plain key, not a table's name */
		memcpy(name, k.mv_data, k.mv_size);
		name[k.mv_size] = '\0';
		r2 = mdb_dbi_open(txn, name, 0, &d);
		if (r2 == MDB_INCOMPATIBLE || r2 == MDB_NOTFOUND || r2 == MDB_DBS_FULL)
			continue;
		rc = r2 ? r2 : walk_dbi(w, txn, d, 0, -1);
		if (rc)
			break;
	}
	if (cur)
		mdb_cursor_close(cur);
	return rc == MDB_NOTFOUND ? 0 : rc;
}

/* The child's work: opens path and walks it whole, then, when tables is
 * not NULL, writes the named tables' rows to w->out.  An exit code. */
static int child_walk(const char *path, unsigned flags, const char *const *tables, size_t nt,
		      struct walker *w)
{
	MDB_env *env = NULL;
	MDB_txn *txn = NULL;
	MDB_dbi main_dbi;
	MDB_envinfo info;
	MDB_stat st;
	struct stat fst;
	char file[4096 + 16];
	int rc;
	size_t i;

	if (flags & MDB_NOSUBDIR)
		snprintf(file, sizeof(file), "%s", path);
	else if (snprintf(file, sizeof(file), "%s/data.mdb", path) >= (int)sizeof(file))
		return ERRNO_BASE + ENAMETOOLONG;
	if (stat(file, &fst))
		return errno == ENOENT ? NOFILE : ERRNO_BASE + errno;
	rc = mdb_env_create(&env);
	if (rc == 0)
		rc = mdb_env_set_maxdbs(env, MAXDBS);
	if (rc == 0)
		rc = mdb_env_set_maxreaders(env, 512);
	if (rc == 0)
		rc = mdb_env_open(env, path, flags | MDB_RDONLY | MDB_NOTLS, 0600);
	if (rc == EACCES || rc == EPERM || rc == EMFILE || rc == ENFILE || rc == EAGAIN ||
	    rc == EBUSY || rc == EROFS || rc == ENOSPC)
		return ERRNO_BASE + rc;
	/* another process may be writing the index: its map may have grown
	 * since the open (LMDB's documented answer is to adopt the new size) */
	for (i = 0; rc == 0; i++) {
		rc = mdb_txn_begin(env, NULL, MDB_RDONLY, &txn);
		if (rc != MDB_MAP_RESIZED || i == 3)
			break;
		rc = mdb_env_set_mapsize(env, 0);
	}
	if (rc == MDB_READERS_FULL)
		return ERRNO_BASE + EAGAIN;
	/* read after the snapshot was taken: a writer only adds pages, so
	 * every page of the snapshot is within these bounds */
	if (rc == 0)
		rc = mdb_env_info(env, &info);
	if (rc == 0)
		rc = mdb_env_stat(env, &st);
	if (rc == 0 && stat(file, &fst))
		rc = errno;
	if (rc)
		return REFUSED;
	w->psize = st.ms_psize;
	w->pages = (long)w->psize == sysconf(_SC_PAGESIZE);
	w->last = info.me_last_pgno;
	/* pages past the end of the file would be read as SIGBUS */
	if (w->psize < 512 || (w->last + 1) * (uint64_t)w->psize > (uint64_t)fst.st_size)
		return DAMAGED;
	w->cap = (uint64_t)fst.st_size / 8 + 16;
	/* the whole file, also before a dump: rows read from a file with a
	 * broken page anywhere are not trusted */
	if (rc == 0)
		rc = walk_dbi(w, txn, 0, 1, -1);
	if (rc == 0)
		rc = mdb_dbi_open(txn, NULL, 0, &main_dbi);
	if (rc == 0)
		rc = walk_named(w, txn, main_dbi);
	w->entries = 0;		/* the dump reads the tables again */
	for (i = 0; rc == 0 && tables && i < nt; i++) {
		MDB_dbi d;
		int r2 = mdb_dbi_open(txn, tables[i], 0, &d);

		if (r2 == MDB_NOTFOUND || r2 == MDB_INCOMPATIBLE)
			continue;
		rc = r2 ? r2 : walk_dbi(w, txn, d, 0, (int)i);
	}
	if (rc == 0 && tables) {
		MDB_val e = { 0, NULL };

		if (emit(w, END_TABLE, &e, &e))
			rc = EPIPE;
	}
	if (txn)
		mdb_txn_abort(txn);
	mdb_env_close(env);
	if (rc == EPIPE || rc == ENOMEM)
		return ERRNO_BASE + rc;
	return rc ? DAMAGED : SOUND;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The tests' stand-in for a reader that cannot go on (idxcheck_test_stall()):
 * how many children are still to stop, and how long a reader may sleep
 * without running before it counts as stuck. */
static unsigned test_stalls;
static unsigned stall_ms = 10000;

void idxcheck_test_stall(unsigned n, unsigned ms)
{
	test_stalls = n;
	stall_ms = ms ? ms : 10000;
}

static void note_add(struct idxcheck_note *note, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note_add(struct idxcheck_note *note, const char *fmt, ...)
{
	size_t len;
	va_list ap;

	if (!note)
		return;
	len = strlen(note->text);
	if (len + 3 >= sizeof(note->text))
		return;
	if (len)
		len += (size_t)snprintf(note->text + len, sizeof(note->text) - len, "; ");
	va_start(ap, fmt);
	vsnprintf(note->text + len, sizeof(note->text) - len, fmt, ap);
	va_end(ap);
}

/* The child's scheduler state ('R', 'S', 'D', ...) and the CPU time it
 * used, in clock ticks, from /proc/PID/stat; -1 without /proc. */
static int proc_sample(pid_t pid, char *state, unsigned long long *ticks)
{
	char name[64], buf[1024], *p;
	unsigned long long ut, st;
	ssize_t n;
	int fd;

	snprintf(name, sizeof(name), "/proc/%ld/stat", (long)pid);
	fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* the command name may hold spaces and parentheses: it ends at the last ')' */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", state,
			 &ut, &st) != 3)
		return -1;
	*ticks = ut + st;
	return 0;
}

/* What a stuck child is waiting in, for the log: /proc/PID/wchan, the
 * system call it is in (its number) and the kernel stack when readable. */
static void proc_where(pid_t pid, char *out, size_t size)
{
	static const char *const what[] = { "wchan", "syscall", "stack" };
	size_t len = 0, i;

	out[0] = '\0';
	for (i = 0; i < sizeof(what) / sizeof(what[0]) && len + 16 < size; i++) {
		char name[64], buf[512], *p;
		ssize_t n;
		int fd;

		snprintf(name, sizeof(name), "/proc/%ld/%s", (long)pid, what[i]);
		fd = open(name, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		if (i == 1 && (p = strchr(buf, ' ')))
			*p = '\0';	/* the number; its arguments are addresses */
		for (p = buf; *p; p++)
			if (*p == '\n')
				*p = ' ';
		while (p > buf && p[-1] == ' ')
			*--p = '\0';
		len += (size_t)snprintf(out + len, size - len, "%s%s %s", len ? ", " : "",
					what[i], buf);
		if (len >= size)
			len = size - 1;
	}
	if (!out[0])
		snprintf(out, size, "its state unreadable");
}

/* How one child ended. */
enum child_end { CHILD_EXITED, CHILD_STALLED, CHILD_LATE, CHILD_LOOPED };

/* Runs child_walk() in one child and waits for it (reading what it writes
 * into rows when dumping) until it exits (CHILD_EXITED, *status), sleeps
 * stall_ms without running (CHILD_STALLED: it waits for something that
 * will not come, e.g. a lock a thread of this process held when it forked)
 * or runs past limit ms (CHILD_LATE), or a dump writes more than cap bytes
 * (CHILD_LOOPED); the child is killed in the last three, and *why says
 * where it was.  -errno for a failure of this process. */
static int one_child(const char *path, unsigned flags, const char *const *tables, size_t nt,
		     struct idxcheck_rows *rows, uint64_t limit, uint64_t cap, int *status,
		     char *why, size_t whysize)
{
	struct walker w = { 0 };
	uint64_t start = now_ms(), t, ran_at, sampled = 0;
	unsigned long long ticks = 0, last_ticks = 0;
	size_t cap_buf = 0;
	int pfd[2] = { -1, -1 }, ret = 0, exited = 0, r;
	char state;
	pid_t pid;

	/* a walk writes nothing: its end of the pipe closing says it ended */
	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		goto out;
	}
	if (pid == 0) {
		static const int sigs[] = { SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE };
		size_t i;

		if (test_stalls)
			for (;;)
				pause();
		/* die of the signal: no handler of the caller's (a sanitizer's,
		 * a fuzzer's) reports LMDB's fault in a damaged file as its own */
		for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			signal(sigs[i], SIG_DFL);
		close(pfd[0]);
		w.out = pfd[1];
		_exit(child_walk(path, flags, tables, nt, &w));
	}
	if (test_stalls)
		test_stalls--;
	close(pfd[1]);
	pfd[1] = -1;
	ran_at = start;
	for (;;) {
		ssize_t n;

		r = exited ? pid : waitpid(pid, status, WNOHANG);
		if (r == pid)
			exited = 1;
		else if (r < 0 && errno != EINTR) {
			ret = -errno;
			goto out;
		}
		/* once the child is gone, only what it left in the pipe is read:
		 * the pipe's end, not the child's exit, could be held by another
		 * process that forked meanwhile */
		if (pfd[0] >= 0 && (rows || !exited)) {
			struct pollfd pf = { pfd[0], POLLIN, 0 };
			uint8_t sink[64];

			if (poll(&pf, 1, exited ? 0 : 100) > 0) {
				if (rows && rows->len + 65536 > cap_buf) {
					size_t nc = cap_buf ? 2 * cap_buf : 1 << 20;
					uint8_t *nb = realloc(rows->buf, nc);

					if (!nb) {
						ret = -ENOMEM;
						goto kill;
					}
					rows->buf = nb;
					cap_buf = nc;
				}
				n = rows ? read(pfd[0], rows->buf + rows->len, 65536) :
				    read(pfd[0], sink, sizeof(sink));
				if (n > 0 && rows)
					rows->len += (size_t)n;
				else if (n == 0 || (n < 0 && errno != EINTR)) {
					close(pfd[0]);
					pfd[0] = -1;
				}
				if (!exited)
					goto checks;
				continue;
			} else if (exited) {
				close(pfd[0]);
				pfd[0] = -1;
			}
		} else if (!exited) {
			poll(NULL, 0, 1);
		}
		if (exited)
			break;
checks:
		t = now_ms();
		if (rows && rows->len > cap) {
			ret = CHILD_LOOPED;
			goto kill;
		}
		if (t - sampled >= 100) {
			sampled = t;
			/* without /proc, only the time limit applies */
			if (proc_sample(pid, &state, &ticks) || state != 'S' || ticks != last_ticks)
				ran_at = t;
			last_ticks = ticks;
		}
		if (t - ran_at >= stall_ms) {
			ret = CHILD_STALLED;
			goto kill;
		}
		if (t - start > limit) {
			ret = CHILD_LATE;
			goto kill;
		}
	}
	ret = CHILD_EXITED;
	goto out;
kill:
	proc_where(pid, why, whysize);
	kill(pid, SIGKILL);
	/* a walk may have ended meanwhile: its own status then stands */
	if (waitpid(pid, status, 0) == pid && !rows && ret > 0 &&
	    !(WIFSIGNALED(*status) && WTERMSIG(*status) == SIGKILL))
		ret = CHILD_EXITED;
out:
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	return ret;
}

/* Reads path in a child (one_child()) and judges what it found; a child
 * that stalled or ran late is no evidence against the file and is run
 * again, up to WALK_ATTEMPTS children.  The time limit: a minute, plus a
 * second per 16 MiB of file, for a cold disk. */
static int guarded(const char *path, unsigned flags, const char *const *tables, size_t nt,
		   struct idxcheck_rows *rows, struct idxcheck_note *note)
{
	char file[4096 + 16], why[768];
	int status = 0, ret = 0, attempt, late = 0;
	uint64_t limit, cap;
	struct stat st;

	if (flags & MDB_NOSUBDIR)
		snprintf(file, sizeof(file), "%s", path);
	else if (snprintf(file, sizeof(file), "%s/data.mdb", path) >= (int)sizeof(file))
		return -ENAMETOOLONG;
	if (stat(file, &st))
		return -errno;
	limit = 60000 + (uint64_t)st.st_size / (16 << 20) * 1000;
	/* every row takes at least 8 bytes of the file; more is a loop */
	cap = 2 * (uint64_t)st.st_size + 4096;
	for (attempt = 1; attempt <= WALK_ATTEMPTS; attempt++) {
		if (rows)
			idxcheck_rows_release(rows);
		ret = one_child(path, flags, tables, nt, rows, limit, cap, &status, why,
				sizeof(why));
		if (ret == CHILD_EXITED)
			break;
		if (ret == CHILD_LOOPED) {
			note_add(note, "it reads as more rows than its size holds (a loop)");
			ret = IDXCHECK_DAMAGED;
			goto out;
		}
		if (ret < 0)
			goto out;
		late += ret == CHILD_LATE;
		note_add(note, "reader %d of %d %s, killed (%s)", attempt, WALK_ATTEMPTS,
			 ret == CHILD_LATE ? "ran past the time limit" : "stopped making progress",
			 why);
	}
	if (ret != CHILD_EXITED) {
		/* only a file that kept every reader busy to the limit is
		 * suspect (a loop LMDB does not see); stuck readers say nothing */
		if (late == WALK_ATTEMPTS) {
			note_add(note, "its reader ran past the time limit (%llu s) %d times",
				 (unsigned long long)(limit / 1000), late);
			ret = IDXCHECK_DAMAGED;
		} else {
			ret = -ETIMEDOUT;
		}
	} else if (WIFSIGNALED(status)) {
		note_add(note, "its reader crashed with signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
		ret = IDXCHECK_DAMAGED;
	} else if (WEXITSTATUS(status) == DAMAGED) {
		note_add(note, "a check of its pages failed");
		ret = IDXCHECK_DAMAGED;
	} else if (WEXITSTATUS(status) == REFUSED) {
		note_add(note, "LMDB refused it");
		ret = IDXCHECK_DAMAGED;
	} else if (WEXITSTATUS(status) == NOFILE) {
		ret = -ENOENT;
	} else if (WEXITSTATUS(status) >= ERRNO_BASE) {
		ret = -(WEXITSTATUS(status) - ERRNO_BASE);
	} else {
		ret = 0;
	}
out:
	if (ret && rows)
		idxcheck_rows_release(rows);
	return ret;
}

/* The stamp of path's data file: what a change to the file (in place or by
 * replacing it) cannot keep the same; ctime cannot be set back. */
static int stamp_of(const char *path, char *buf, size_t size)
{
	char file[4096 + 16];
	struct stat st;

	if (snprintf(file, sizeof(file), "%s/data.mdb", path) >= (int)sizeof(file))
		return -ENAMETOOLONG;
	if (stat(file, &st))
		return -errno;
	snprintf(buf, size, "simbookfs data.mdb walked: %llu %llu %llu %lld.%09ld %lld.%09ld\n",
		 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
		 (unsigned long long)st.st_size, (long long)st.st_mtim.tv_sec,
		 st.st_mtim.tv_nsec, (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
	return 0;
}

int idxcheck_walk(const char *path, struct idxcheck_note *note)
{
	char want[256], have[256] = "", file[4096 + 16];
	FILE *f;
	int ret, attempt;

	if (note)
		note->text[0] = '\0';
	if (snprintf(file, sizeof(file), "%s/" IDXCHECK_STAMP_NAME, path) >= (int)sizeof(file))
		return -ENAMETOOLONG;
	ret = stamp_of(path, want, sizeof(want));
	if (ret)
		return ret;
	f = fopen(file, "re");
	if (f) {
		if (!fgets(have, sizeof(have), f))
			have[0] = '\0';
		fclose(f);
		/* consumed: a process that dies with the file open leaves none
		 * (one that cannot be removed is not trusted) */
		if (unlink(file) && errno != ENOENT)
			have[0] = '\0';
	}
	if (strcmp(want, have) == 0)
		return 0;
	/* a process that has the file open walked it when it opened it, and
	 * its writes move pages under a walk */
	ret = idxcheck_in_use(path);
	if (ret)
		return ret < 0 ? ret : 0;
	for (attempt = 0; attempt < WALK_ATTEMPTS; attempt++) {
		ret = guarded(path, 0, NULL, 0, NULL, note);
		if (ret != IDXCHECK_DAMAGED)
			return ret;
		/* damage is believed only of a file nobody wrote during the walk */
		ret = stamp_of(path, have, sizeof(have));
		if (ret)
			return ret;
		if (strcmp(want, have) == 0)
			return IDXCHECK_DAMAGED;
		note_add(note, "written during that walk: walked again");
		memcpy(want, have, sizeof(want));
	}
	/* written all along: an LMDB writer (which opened the file after the
	 * check above) holds it, and its pages are its own */
	return 0;
}

/* How long idxcheck_in_use() waits for its child's answer. */
#define IN_USE_WAIT_MS 10000

int idxcheck_in_use(const char *path)
{
	char file[4096 + 16];
	int status = 0, waited;
	pid_t pid, r;

	if (snprintf(file, sizeof(file), "%s/lock.mdb", path) >= (int)sizeof(file))
		return -ENAMETOOLONG;
	/* asked from a child: closing any descriptor of lock.mdb drops every
	 * fcntl lock this process holds on it, LMDB's own included */
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		struct flock lk = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0,
				    .l_len = 1 };
		int fd = open(file, O_RDWR | O_CLOEXEC);

		if (fd < 0)
			_exit(errno == ENOENT ? 0 : 2);
		if (fcntl(fd, F_GETLK, &lk))
			_exit(2);
		_exit(lk.l_type != F_UNLCK);
	}
	/* the child only opens and asks, but a child of a threaded process
	 * (under a sanitizer's fork hooks too) is not waited on unbounded */
	for (waited = 0; (r = waitpid(pid, &status, WNOHANG)) != pid; waited += 10) {
		if (r < 0 && errno != EINTR)
			return -errno;
		if (waited >= IN_USE_WAIT_MS) {
			kill(pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			return -ETIMEDOUT;
		}
		poll(NULL, 0, 10);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) > 1)
		return -EIO;
	return WEXITSTATUS(status);
}

int idxcheck_stamp(const char *path)
{
	char buf[256], file[4096 + 16];
	FILE *f;
	int ret = stamp_of(path, buf, sizeof(buf));

	if (ret)
		return ret;
	if (snprintf(file, sizeof(file), "%s/" IDXCHECK_STAMP_NAME, path) >= (int)sizeof(file))
		return -ENAMETOOLONG;
	f = fopen(file, "we");
	if (!f)
		return -errno;
	ret = fputs(buf, f) < 0 ? -EIO : 0;
	if (fclose(f) && ret == 0)
		ret = -errno;
	return ret;
}

int idxcheck_dump(const char *file, const char *const *tables, size_t ntables,
		  struct idxcheck_rows *rows, struct idxcheck_note *note)
{
	size_t pos = 0, kl, vl;
	const uint8_t *k, *v;
	unsigned t = 0;
	int ret;

	rows->buf = NULL;
	rows->len = 0;
	if (note)
		note->text[0] = '\0';
	if (ntables >= END_TABLE)
		return -EINVAL;
	ret = guarded(file, MDB_NOSUBDIR | MDB_NOLOCK, tables, ntables, rows, note);
	if (ret)
		return ret;
	/* a stream cut short (the child died writing it) ends without the
	 * end row; a row that does not fit is damage too */
	while (idxcheck_next(rows, &pos, &t, &k, &kl, &v, &vl))
		if (t == END_TABLE)
			break;
	if (t != END_TABLE || pos != rows->len) {
		idxcheck_rows_release(rows);
		return IDXCHECK_DAMAGED;
	}
	rows->len -= 9;	/* the end row is the stream's, not the caller's */
	return 0;
}

int idxcheck_next(const struct idxcheck_rows *rows, size_t *pos, unsigned *table,
		  const uint8_t **key, size_t *klen, const uint8_t **val, size_t *vlen)
{
	const uint8_t *p = rows->buf + *pos;
	size_t left = rows->len - *pos;
	uint32_t kl, vl;

	if (left < 9)
		return 0;
	memcpy(&kl, p + 1, 4);
	memcpy(&vl, p + 5, 4);
	if ((uint64_t)kl + vl > left - 9)
		return 0;
	*table = p[0];
	*key = p + 9;
	*klen = kl;
	*val = p + 9 + kl;
	*vlen = vl;
	*pos += 9 + (size_t)kl + vl;
	return 1;
}

void idxcheck_rows_release(struct idxcheck_rows *rows)
{
	free(rows->buf);
	rows->buf = NULL;
	rows->len = 0;
}
