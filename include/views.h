/* views.h - the read-only virtual views of a mounted library.
 *
 * Registered with fsops as top-level names (each prefixed with the
 * configurable prefix, "" by default):
 *   similar/<path of a book>/   one directory per indexed book, mirroring
 *                               SRC's folders; entries are relative symlinks
 *                               to the similar books (simlist.h names), or in
 *                               real-file mode read-only regular files with
 *                               the books' content, plus the listing file
 *                               .similar.tsv
 *   clusters/<Title (N)>/       groups of near duplicates (simhash within the
 *                               index threshold, exemptions applied)
 *   duplicates/<Title (N)>/     groups with the same normalised text
 *   lookup/<32 hex digits>/     the books within the threshold of any id
 *   .simbookfs/status, errors   JSON status (with "library": {"src",
 *                               "index", "reader", "pid"}, reader the path
 *                               by which another process of the same user
 *                               opens the index read-only); one line per
 *                               unindexable file
 *   .simbookfs/not-duplicates   one line per "not a duplicate" pair
 *   .simbookfs/control          write-only, not listed: one command per
 *                               write() ("not-duplicate" or
 *                               "undo-not-duplicate" TAB A TAB B), the
 *                               write()'s errno the answer
 * and the computed xattr user.simbookfs.id on every indexed book.
 *
 * Every symlink points at a regular file of the mount (never at a
 * directory: no cycles), and an entry whose target is gone is not listed
 * and answers ENOENT.  In real-file mode an entry shows the target's size,
 * times, owner and read bits, and fsops serves its reads from the target
 * opened read-only (fs_view_ops.source).  Unlinking an entry of similar/<book>/ records "not a
 * duplicate" for the pair in the index.  After the index changes, a thread
 * of the views invalidates the kernel's cached entries of the view paths it
 * handed out (never from inside an operation).
 */
#ifndef VIEWS_H
#define VIEWS_H

#include "fsops.h"
#include "ijournal.h"
#include "indexer.h"
#include "opener.h"

#define VIEWS_LISTING ".similar.tsv"	/* listing file in similar/<book>/ */
#define VIEWS_XATTR "user.simbookfs.id"

struct views;

/* Creates the views for SRC's directory fd rootfd, view names prefixed by
 * prefix (copied).  hidden (may be NULL) is a top-level SRC name the mount
 * hides (the index folder).  Returns 0 and *out, -EINVAL (prefix with '/'),
 * -ENOMEM. */
int views_new(struct views **out, int rootfd, const char *prefix, const char *hidden);
/* Real-file mode (on != 0): book entries of similar/, clusters/,
 * duplicates/ and lookup/ are read-only regular files with the content of
 * their target instead of relative symlinks (the default).  Call before
 * mounting. */
void views_set_files(struct views *v, int on);
/* The library folder src and its index folder index, absolute, for the
 * status's "library" member (VIEWS_STATUS_LIBRARY): how `simbook` finds
 * the index of a mount, even one over SRC that hides it.  Both borrowed:
 * they must outlive v.  Call before mounting. */
void views_set_library(struct views *v, const char *src, const char *index);
/* A shared index's outage journal (borrowed; NULL: none), for the status;
 * may be called while mounted. */
void views_set_journal(struct views *v, struct ijr *jr);
/* Several users use the mount (allow_other, allow_root; on != 0): the
 * answers that depend on who asked are dropped from the kernel's cache,
 * which all users share, right after they are handed out.  Call before
 * mounting. */
void views_set_shared(struct views *v, int on);
/* The indexer's notify callback (arg: the struct views). */
void views_changed(void *arg);
/* A folder of SRC changed mode or owner through the mount: who may reach
 * which book is read again and what the kernel holds of the views is
 * dropped before this returns (at most a second's wait), so that every
 * caller sees the change at once. */
void views_perm_changed(struct views *v);
/* Connects the index that op opens (before mounting).  Until it is open
 * (and when it failed) similar/, clusters/, duplicates/ and lookup/ are
 * empty folders, their entries ENOENT, the xattr absent; .simbookfs/status
 * says where the open stands ("state" opening, upgrading, rebuilding or
 * failed; "index" with progress and error) and errors and not-duplicates
 * are empty. */
void views_attach(struct views *v, struct opener *op);
/* Registers the views and the xattr hook with fs.  0 or -errno of
 * fs_add_view(). */
int views_register(struct views *v, struct fs *fs);
/* Starts the cache-invalidation thread for the mounted f.  0 or -errno. */
int views_start(struct views *v, struct fuse *f);
/* Stops the thread (before fuse_destroy()). */
void views_stop(struct views *v);
void views_free(struct views *v);	/* NULL is fine */

#endif
