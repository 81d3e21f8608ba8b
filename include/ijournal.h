/* ijournal.h - the outage journal: the changes made to a library while its
 * shared index (a redis:// server) cannot be reached, kept in a small local
 * file until the index is back, then handed back in order and forgotten.
 *
 * The file is a header then one record per change, each appended with one
 * write() and fdatasync()ed before ijr_add() returns, each with a checksum:
 * a record torn by a crash, or any damage, ends the readable part; what
 * followed is unknown, so a rescan is owed instead (IJR_RESCAN).
 * Bounded: at most max records; the one after them replaces the whole
 * file with a single IJR_RESCAN record (a scan of the library finds every
 * new, changed, vanished and renamed file, so the paths are not needed any
 * more), and further changes are not recorded until it is replayed.
 *
 * Record: op (1 byte), the lengths of a and b (2 bytes each, big-endian),
 * a, b (no NULs), XXH32 of all of it (4 bytes, big-endian, seed 0).
 *
 * Thread-safety: every call may come from any thread (one lock).
 */
#ifndef IJOURNAL_H
#define IJOURNAL_H

#include <stddef.h>

#define IJR_MAGIC "SBJRNL1\n"
#define IJR_MAGIC_LEN 8
#define IJR_PATH_MAX 4095	/* a longer path is not recorded: a rescan is owed */

/* The recorded changes, as the indexer's calls (indexer.h). */
enum ijr_op {
	IJR_WRITE = 'W',	/* a */
	IJR_UNLINK = 'U',	/* a */
	IJR_RENAME = 'R',	/* a -> b */
	IJR_EXCHANGE = 'X',	/* a <-> b */
	IJR_LINK = 'L',		/* b is a new hard link to a */
	IJR_RESCAN = 'S',	/* some changes are not recorded: scan the library */
};

struct ijr;

/* Called for each record, in order; a and b are NUL-terminated, valid
 * during the call (b NULL for one-path ops; both NULL for IJR_RESCAN). */
typedef void ijr_fn(void *arg, enum ijr_op op, const char *a, const char *b);

/* Opens the journal file at path (its folder is created, 0700, with its
 * parents), creating it when missing, keeping at most max records (0: a
 * default of 10000).  A damaged file is not an error: its readable records
 * are kept and a rescan is owed.  0 and *out (ijr_free()), or -errno. */
int ijr_open(const char *path, size_t max, struct ijr **out);
void ijr_free(struct ijr *j);

/* Records one change (b NULL for a one-path op; IJR_RESCAN with a and b
 * NULL: the records give way to a rescan owed): 0 or -errno (the disk
 * refused it: a rescan is owed, kept in memory). */
int ijr_add(struct ijr *j, enum ijr_op op, const char *a, const char *b);

/* Records, and whether a rescan is owed (*rescan may be NULL). */
size_t ijr_count(struct ijr *j, int *rescan);

/* Hands every record to fn in order (a rescan owed last, as one
 * IJR_RESCAN), then empties the journal.  fn must not call ijr_*.
 * Returns the number of calls, or -errno (the journal is kept). */
int ijr_replay(struct ijr *j, ijr_fn *fn, void *arg);

/* Where the journal of the library src (its real path) with the shared
 * index uri lives: DIR/NS-HASH.journal, DIR the state folder state_dir,
 * or when NULL $XDG_STATE_HOME/simbookfs, or ~/.local/state/simbookfs (an
 * absolute $XDG_STATE_HOME or $HOME only); NS the URI's namespace
 * ("simbook" when none); HASH 16 hex digits of uri and src, so each mount
 * of one library on one machine has a journal of its own.  0 and buf (n
 * bytes), -EINVAL (no such folder to use, or a URI that does not parse),
 * -ENAMETOOLONG. */
int ijr_place(const char *state_dir, const char *uri, const char *src, char *buf, size_t n);

/* The file's path (owned by j). */
const char *ijr_path(const struct ijr *j);

/* Parses len bytes of a journal file: fn for each good record; returns the
 * length of the readable prefix (header and whole records) and sets
 * *damaged when anything after it, or the header, is not a journal. */
size_t ijr_parse(const void *buf, size_t len, ijr_fn *fn, void *arg, int *damaged);

#endif
