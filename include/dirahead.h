/* dirahead.h - reads directories ahead of their consumer, with attributes.
 *
 * A FUSE readdirplus request needs every entry's attributes: one fstatat()
 * per entry, which the daemon would otherwise do while the caller waits,
 * 51 times in a row for a 10,000-entry `ls -l`.  A struct dirahead runs one
 * helper thread that reads open directories ahead of their consumer (names,
 * telldir() offsets and lstat attributes), so the next request finds its
 * entries ready while the kernel is still digesting the previous reply.
 *
 * Attributes read ahead may predate a change made meanwhile.  The owner
 * keeps a change generation that it increments after every change it makes
 * (dirahead_new's gen); attributes are tagged with the generation read before
 * they were fetched, and dirahead_peek() fetches them again when the generation
 * has moved since.  So an entry's attributes are never older than the last
 * change the owner had finished before the entry was taken.
 *
 * Threads: one consumer per struct dirahead_dir at a time (FUSE serialises the
 * requests of one directory handle); any number of dirahead_dirs per dra.
 */
#ifndef DIRAHEAD_H
#define DIRAHEAD_H

#include <dirent.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

struct dirahead;
struct dirahead_dir;

/* Entries read ahead are at most this many per directory. */
#define DRA_MAX_AHEAD 1024u

struct dirahead_entry {
	char *name;		/* owned by the dirahead_dir: valid until dirahead_take(),
				 * dirahead_seek() or dirahead_dir_free() */
	ino_t ino;		/* d_ino */
	unsigned char type;	/* d_type */
	long next;		/* telldir() after this entry */
	int st_err;		/* 0: st holds the entry's lstat; -errno: lstat
				 * failed; 1: not fetched */
	struct stat st;
	uint64_t gen;		/* change generation read before st was fetched */
};

/* Creates a reader whose attributes are checked against *gen (owned by the
 * caller, alive until dirahead_free).  The helper thread starts at the first
 * dirahead_ahead(), so a dra may be created before fork().  0 or -ENOMEM. */
int dirahead_new(struct dirahead **out, const _Atomic uint64_t *gen);
/* Stops the helper.  Every dirahead_dir must have been freed. */
void dirahead_free(struct dirahead *dra);

/* Reads the stream dp (taken over: closed by dirahead_dir_free) through dra.
 * 0 or -ENOMEM (dp then stays the caller's). */
int dirahead_dir_new(struct dirahead *dra, DIR *dp, struct dirahead_dir **out);
/* Waits for the helper to leave d, then frees it and closes its stream. */
void dirahead_dir_free(struct dirahead_dir *d);
/* The stream's descriptor (for fsync), valid until dirahead_dir_free. */
int dirahead_dir_fd(const struct dirahead_dir *d);

/* Positions d at off, a telldir() value of this stream or 0 (the start).
 * Entries read ahead are kept when off is where the last taken entry left
 * off; 0 always rereads the directory from its start. */
void dirahead_seek(struct dirahead_dir *d, long off);
/* The entry at the current position, copied to *e (e->name stays d's),
 * without moving: dirahead_take() moves past it.  attrs: e->st must hold
 * attributes (st_err 0 or -errno) no older than the generation now.
 * Returns 1, 0 at the end of the directory, or -errno (readdir failed). */
int dirahead_peek(struct dirahead_dir *d, bool attrs, struct dirahead_entry *e);
/* Moves past the entry dirahead_peek() returned. */
void dirahead_take(struct dirahead_dir *d);
/* Asks the helper to keep n entries (at most DRA_MAX_AHEAD) read ahead of
 * the position with attributes; 0 stops reading ahead.  Without memory for
 * the helper thread nothing is read ahead (dirahead_peek() still works). */
void dirahead_ahead(struct dirahead_dir *d, unsigned n);

#endif
