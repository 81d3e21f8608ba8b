/* dirahead.h - reads directories ahead of their consumer, with attributes.
 *
 * A FUSE readdirplus request needs every entry's attributes: one fstatat()
 * per entry, which the daemon would otherwise do while the caller waits,
 * 51 times in a row for a 10,000-entry `ls -l`.  A struct dra runs one
 * helper thread that reads open directories ahead of their consumer (names,
 * telldir() offsets and lstat attributes), so the next request finds its
 * entries ready while the kernel is still digesting the previous reply.
 *
 * Attributes read ahead may predate a change made meanwhile.  The owner
 * keeps a change generation that it increments after every change it makes
 * (dra_new's gen); attributes are tagged with the generation read before
 * they were fetched, and dra_peek() fetches them again when the generation
 * has moved since.  So an entry's attributes are never older than the last
 * change the owner had finished before the entry was taken.
 *
 * Threads: one consumer per struct dra_dir at a time (FUSE serialises the
 * requests of one directory handle); any number of dra_dirs per dra.
 */
#ifndef DIRAHEAD_H
#define DIRAHEAD_H

#include <dirent.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

struct dra;
struct dra_dir;

/* Entries read ahead are at most this many per directory. */
#define DRA_MAX_AHEAD 1024u

struct dra_entry {
	char *name;		/* owned by the dra_dir: valid until dra_take(),
				 * dra_seek() or dra_dir_free() */
	ino_t ino;		/* d_ino */
	unsigned char type;	/* d_type */
	long next;		/* telldir() after this entry */
	int st_err;		/* 0: st holds the entry's lstat; -errno: lstat
				 * failed; 1: not fetched */
	struct stat st;
	uint64_t gen;		/* change generation read before st was fetched */
};

/* Creates a reader whose attributes are checked against *gen (owned by the
 * caller, alive until dra_free).  The helper thread starts at the first
 * dra_ahead(), so a dra may be created before fork().  0 or -ENOMEM. */
int dra_new(struct dra **out, const _Atomic uint64_t *gen);
/* Stops the helper.  Every dra_dir must have been freed. */
void dra_free(struct dra *dra);

/* Reads the stream dp (taken over: closed by dra_dir_free) through dra.
 * 0 or -ENOMEM (dp then stays the caller's). */
int dra_dir_new(struct dra *dra, DIR *dp, struct dra_dir **out);
/* Waits for the helper to leave d, then frees it and closes its stream. */
void dra_dir_free(struct dra_dir *d);
/* The stream's descriptor (for fsync), valid until dra_dir_free. */
int dra_dir_fd(const struct dra_dir *d);

/* Positions d at off, a telldir() value of this stream or 0 (the start).
 * Entries read ahead are kept when off is where the last taken entry left
 * off; 0 always rereads the directory from its start. */
void dra_seek(struct dra_dir *d, long off);
/* The entry at the current position, copied to *e (e->name stays d's),
 * without moving: dra_take() moves past it.  attrs: e->st must hold
 * attributes (st_err 0 or -errno) no older than the generation now.
 * Returns 1, 0 at the end of the directory, or -errno (readdir failed). */
int dra_peek(struct dra_dir *d, bool attrs, struct dra_entry *e);
/* Moves past the entry dra_peek() returned. */
void dra_take(struct dra_dir *d);
/* Asks the helper to keep n entries (at most DRA_MAX_AHEAD) read ahead of
 * the position with attributes; 0 stops reading ahead.  Without memory for
 * the helper thread nothing is read ahead (dra_peek() still works). */
void dra_ahead(struct dra_dir *d, unsigned n);

#endif
