/* idxcheck.h - reading an index data file that may be damaged, safely.
 *
 * LMDB checks no page of its file: a truncated, overwritten or bit-flipped
 * data.mdb can make its calls read outside the map (SIGSEGV, SIGBUS), fail
 * an assertion (SIGABRT) or loop.  The index (idx.c) maps a data file in its
 * own process only after idxcheck_walk() found it sound, and reads an old
 * file it carries marks over from only through idxcheck_dump(); both do
 * their reading in a forked child process under a time limit, so a file
 * that would crash or hang the reader costs that child, never the caller.
 * The child reads only; nothing here writes or removes a file.
 *
 * Call these before the calling process opens the file with LMDB itself,
 * and from one thread at a time (fork() copies only the calling thread; the
 * child uses LMDB and malloc, then _exit()s).
 *
 * A child forked from a multithreaded process can inherit a lock another
 * thread held at the fork and then wait for ever (seen: GCC 12's ASan
 * allocator, which does not take its locks around fork(); docs/INDEX.md).  Such a child, or
 * one held up for any other reason, says nothing about the file: a child
 * that sleeps 10 s without running, or runs past the time limit, is killed
 * and another one reads the file, up to 3 in all.  Only a file that kept 3
 * children busy to the time limit is judged damaged for its time (a loop
 * LMDB does not see); when the children stalled, the answer is -ETIMEDOUT,
 * not damage.
 */
#ifndef IDXCHECK_H
#define IDXCHECK_H

#include <stddef.h>
#include <stdint.h>

#define IDXCHECK_DAMAGED 1

/* What a walk met, for the log: why it judged the file damaged (LMDB
 * refused it, a check of its pages failed, its reader crashed with signal
 * N, or ran past the time limit N times), and each reader it had to kill
 * with the state it was killed in (/proc/PID/wchan, the system call, the
 * kernel stack when readable).  Empty when there was nothing to say. */
struct idxcheck_note {
	char text[1024];
};

/* Walks every table of the LMDB environment at path (a folder holding
 * data.mdb and lock.mdb, opened with LMDB's locks so a process writing it
 * meanwhile is safe) in a child: the free-page list and every table of the
 * main database, every entry, checking that each page an entry lies on is
 * a page of the file of the expected kind at its own position, that each
 * key and value lies inside its page or its overflow pages, and reading
 * their first and last bytes.  A file that passes reads the same way in
 * any process: its pages are where its pointers say.  Values are not
 * decoded (the index checks their lengths when it decodes them).
 * The walk is skipped when the data file's device, inode, size, mtime and
 * ctime are still those idxcheck_stamp() recorded (any write to the file,
 * or a file put in its place, changes them; a bit flipped by the disk does
 * not, which no cheap check can see).  The stamp is removed either way, so
 * a process that dies with the file open (and may have died reading it)
 * leaves none and the next open walks.
 * The walk is skipped too when a process has the environment open
 * (idxcheck_in_use(): it walked the file when it opened it, and its writes
 * move pages under a walk).  A walk that
 * finds damage in a file written meanwhile (its size, mtime or ctime
 * moved: a writer of this process, or one that opened it after the check)
 * is run again, up to 3 times; damage is reported only for a file nobody
 * wrote during the walk, and a file written during every walk counts as
 * sound (its writer's pages are its own).
 * Returns 0 (sound), IDXCHECK_DAMAGED (LMDB refused the file, a check
 * failed, the child died of a signal, or 3 children ran past the time
 * limit, which grows with the file's size), -ENOENT (no data file),
 * -ETIMEDOUT (no child finished and not every one was busy: no verdict),
 * or another -errno for a failure that is not the file's (fork,
 * descriptors, memory, permissions).  note (may be NULL) says why, and
 * what the children that had to be killed were doing. */
int idxcheck_walk(const char *path, struct idxcheck_note *note);

/* 1 when a process (this one included) has the LMDB environment in the
 * folder path open: every process with it open holds a read lock on the
 * first byte of its lock.mdb, which a child asks with fcntl(F_GETLK) (the
 * caller must not: closing a descriptor of the file would drop its own
 * LMDB locks).  0 when none has (or there is no lock.mdb), or -errno
 * (-ETIMEDOUT: the child gave no answer within 10 s and was killed). */
int idxcheck_in_use(const char *path);

/* The stamp file, in the folder. */
#define IDXCHECK_STAMP_NAME "data.mdb.walked"

/* Records that the data file at path (a folder) is sound as it is now, so
 * the next idxcheck_walk() skips the walk: call it only for a file LMDB
 * wrote and synced in this process (idx_close() does), with no process
 * writing it.  Returns 0 or -errno (then the next open walks). */
int idxcheck_stamp(const char *path);

/* The rows idxcheck_dump() read: records of a u8 table number (the index
 * in the caller's list), a u32 key length, a u32 value length (host byte
 * order), the key bytes and the value bytes.  buf is malloc'd; release with
 * idxcheck_rows_release(). */
struct idxcheck_rows {
	uint8_t *buf;
	size_t len;
};

/* Reads every row of the named tables (at most 255; a table the file does
 * not have gives no rows) of the data file at file, opened read-only
 * without the lock file (no other process may be using it), in a child,
 * after walking the whole file as idxcheck_walk() does: a file damaged
 * anywhere, not only in the named tables, gives no rows.  Returns 0 and
 * *rows (owned by the caller), IDXCHECK_DAMAGED (nothing in *rows), or
 * -errno as idxcheck_walk(); note (may be NULL) as idxcheck_walk()'s. */
int idxcheck_dump(const char *file, const char *const *tables, size_t ntables,
		  struct idxcheck_rows *rows, struct idxcheck_note *note);

/* Steps through rows from *pos (start at 0): 1 and the next row's table,
 * key and value (pointers into rows->buf), or 0 at the end. */
int idxcheck_next(const struct idxcheck_rows *rows, size_t *pos, unsigned *table,
		  const uint8_t **key, size_t *klen, const uint8_t **val, size_t *vlen);

void idxcheck_rows_release(struct idxcheck_rows *rows);

/* For tests only: the next n children stop at once and wait for ever (as
 * a child holding an inherited lock would), and a child that sleeps
 * stall_ms ms without running counts as stuck (0: the default 10 s). */
void idxcheck_test_stall(unsigned n, unsigned stall_ms);

#endif
