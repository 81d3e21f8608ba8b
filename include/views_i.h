/* views_i.h - what the files of the views (views.c, view_*.c) share: the
 * instance, the attribute and inode helpers, and each view's operations,
 * which views.c dispatches to.  Private to src/fs/view*.c.
 */
#ifndef VIEWS_I_H
#define VIEWS_I_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

#include "fsacc.h"
#include "idx.h"
#include "sbuf.h"
#include "simlist.h"
#include "views.h"

enum view_kind { VK_SIMILAR, VK_CLUSTERS, VK_DUPLICATES, VK_LOOKUP, VK_META, VK_N };

#define LIST_SLOTS 1024		/* cached similar lists (direct-mapped by id) */
#define SERVED_MAX 65536	/* view paths remembered for invalidation */
#define SEEN_SLOTS (2 * SERVED_MAX)	/* set of their hashes (no duplicates) */
#define SNAP_SLOTS 256		/* generated files' snapshots (view_snap.c) */

struct view_node {
	struct views *v;
	enum view_kind kind;
};

struct listref {
	struct simlist *l;
	int refs;
	int own;		/* one caller's copy (some books hidden): not cached */
};

struct gview;
struct gcaller;

#define PRIV_MAX 4096		/* caller-dependent answers awaiting invalidation */
#define GCALLER_SLOTS 8		/* group views named for one caller, per view */
struct vsnap;

struct views {
	uint64_t serial;		/* tells instances apart in thread caches */
	int rootfd;
	int files;			/* entries are read-only files, not links */
	int shared;			/* other users look too (views_set_shared()) */
	char *prefix;
	const char *hidden;
	const char *src, *index;	/* views_set_library() */
	struct ijr *_Atomic jr;		/* views_set_journal() */
	char *names[VK_N];
	struct view_node nodes[VK_N];
	struct opener *op;
	/* set once the index is open (views_open()), never unset */
	struct indexer *_Atomic ixr;
	struct idx *_Atomic ix;
	struct judge_cache *pairs;
	pthread_mutex_t lock;		/* lists, groups, served, times */
	struct listref *slots[LIST_SLOTS];
	struct gview *groups[2];	/* clusters, duplicates */
	struct gcaller *gcallers[2][GCALLER_SLOTS];	/* groups as one caller sees them */
	int building[2];		/* a build of groups[k] is under way */
	pthread_cond_t built;		/* a build ended (with lock) */
	char **served;			/* FUSE paths handed to the kernel */
	size_t nserved;
	uint64_t *seen;			/* hashes of served, SEEN_SLOTS, 0 = free */
	/* mtimes of generated files (views_file_time()) */
	uint64_t gen_seen;
	struct timespec gen_time;
	struct {
		uint64_t hash;
		size_t len;
		struct timespec t;
	} meta_stamp[4];		/* .simbookfs/ status, errors, not-duplicates,
					 * skipped */
	struct skipped_cache *skipped;	/* the status's counts by kind */
	/* who may see which book (views_reach()) */
	struct fsacc *acc;
	char **priv;			/* view paths whose answer depended on the caller */
	size_t npriv;
	int priv_lost;			/* more than PRIV_MAX: invalidate all served */
	/* fsacc_changes() when the thread last dropped all served: answers
	 * kept for the callers of a folder (views_shield()) only while equal */
	uint64_t acc_seen;
	int perm_req;			/* views_perm_changed() waits for a pass */
	uint64_t perm_done;		/* passes for perm_req, with perm_cond */
	pthread_cond_t perm_cond;
	pthread_mutex_t snap_lock;
	struct vsnap *snaps[SNAP_SLOTS];
	/* invalidation thread */
	struct fuse *fuse;
	pthread_t thread;
	int has_thread, stop, dirty;
	pthread_cond_t cond;
};

/* What an entry's target is asked for as: the text of its link, or (in
 * real-file mode, for fsops's source op) the book's path in SRC. */
enum target_form { TF_LINK, TF_SOURCE };

/* The control file of .simbookfs/: write-only, one command per write(),
 * not listed (docs/VIEWS.md). */
#define META_CONTROL "control"

/* ---- views.c: the instance and the helpers every view uses ---- */

/* 1 once the index is open (v->ixr, v->ix set), else 0. */
int views_open(struct views *v);
/* FNV-1a of s continued from h; views_hash(): of s from seed, mixed. */
uint64_t views_hash_more(uint64_t h, const char *s);
uint64_t views_hash(const char *s, uint64_t seed);
/* The inode number of a view node of kind k with hash h. */
ino_t views_ino(enum view_kind k, uint64_t h);
/* *st of an entry for the book target (a link of linklen bytes, or the
 * book in real-file mode). */
void views_fill_entry(const struct views *v, struct stat *st, ino_t ino, size_t linklen,
		      const struct stat *target);
/* The file type of entries in listings. */
mode_t views_entry_type(const struct views *v);
/* The target of an entry depth folders below the mount's root in form f,
 * into buf.  0, -ENAMETOOLONG. */
int views_entry_target(char *buf, size_t size, int depth, const char *path,
		       enum target_form f);
/* *st of a generated read-only file of size bytes. */
void views_fill_file(struct stat *st, ino_t ino, size_t size, struct timespec mtime);
/* The mtime of a generated file: slot -1 a listing (the index
 * generation's), 0..2 the .simbookfs/ file of content. */
struct timespec views_file_time(struct views *v, int slot, const struct sbuf *content);
/* *st of a view folder. */
void views_fill_dir(struct views *v, struct stat *st, ino_t ino);
/* 1 when path is a regular file in SRC (*st filled when st is not NULL)
 * that the caller of the request may reach (views_reach()). */
int views_target_ok(struct views *v, const char *path, struct stat *st);
/* 1 when the caller of the current request (fuse_get_context()) could
 * look up path of SRC through the passthrough (fsacc.h); the daemon
 * itself outside a request. */
int views_reach(struct views *v, const char *path);
/* The caller of the current request; 1 when it is root (sees all). */
int views_who(struct fsacc_who *who);
/* 1 when an answer since the last call depended on who asked (a book not
 * every caller may reach), and forgets it: such answers must not stay in
 * the kernel's cache, which all callers share. */
int views_private_take(void);
/* The answer since the last views_private_take() is about an entry the
 * kernel shows only below similar/GUARD/ (GUARD a folder of SRC, whose
 * owner and search bits that view folder carries), and depended on
 * reaching the books paths[0..n): when every caller who gets through GUARD
 * may reach them all (fsacc_covers()), the answer is the same for all of
 * them and is no longer private.  Not while a folder change is still being
 * dropped from the kernel's cache. */
void views_shield(struct views *v, const char *guard, const char *const *paths, size_t n);
/* Whether a folder change is being dropped from the kernel's cache: view
 * folders then carry their owner's search bit only. */
int views_acc_unsettled(struct views *v);
/* 1 when path's top-level name is not visible in the mount (arg: v). */
int views_skip(void *arg, const char *path);
/* The number of components of rel. */
int views_components(const char *rel);

/* ---- view_inval.c: invalidation of what the kernel caches ---- */

/* Remembers the view path rel (or rel/name) handed to the kernel. */
void views_served_add(struct views *v, enum view_kind k, const char *rel, const char *name);
/* Has the thread invalidate the view path rel (or rel/name) at once: its
 * answer depended on the caller. */
void views_private_add(struct views *v, enum view_kind k, const char *rel, const char *name);

/* ---- view_snap.c: snapshots of generated files ---- */

/* For a getattr of kind k's generated file rel by the calling user: 1 and
 * *st when a snapshot of it is current (not stale, or open), 0 when the
 * content must be generated and offered. */
int snap_current(struct views *v, enum view_kind k, const char *rel, struct stat *st);
/* The content just generated for rel, with its attributes *st, becomes
 * its snapshot (content is taken: left empty); when the current one has
 * the same bytes, or is open, that one stays and *st becomes its. */
void snap_offer(struct views *v, enum view_kind k, const char *rel, struct sbuf *content,
		struct stat *st);
/* The snapshot of rel (stale or not) opened, or NULL when there is none;
 * snap_close() it. */
struct vsnap *snap_open(struct views *v, enum view_kind k, const char *rel);
/* An opened snapshot of content (taken) kept by no table; NULL: ENOMEM. */
struct vsnap *snap_private(struct sbuf *content);
/* Its bytes, valid until snap_close(). */
const char *snap_data(const struct vsnap *s, size_t *len);
void snap_close(struct views *v, struct vsnap *s);
/* Before the kernel is told to forget what it holds: every snapshot (or
 * only .simbookfs/status's) is stale. */
void snap_stale(struct views *v, bool status_only);
/* At the views' end. */
void snap_free_all(struct views *v);

/* ---- view_similar.c: similar/ ---- */

int sim_getattr(struct views *v, const char *rel, struct stat *st);
int sim_readdir(struct views *v, const char *rel, void *buf, fuse_fill_dir_t filler);
int sim_entry_target(struct views *v, const char *rel, char *buf, size_t size,
		     enum target_form f);
/* Unlinking an entry exempts the pair ("not a duplicate"). */
int sim_unlink(struct views *v, const char *rel);
/* The content of the listing file rel (VIEWS_LISTING) appended to out;
 * -EACCES for any other node. */
int sim_open(struct views *v, const char *rel, struct sbuf *out);

/* ---- view_groups.c: clusters/ (k VK_CLUSTERS) and duplicates/ ---- */

int grp_getattr(struct views *v, enum view_kind k, const char *rel, struct stat *st);
int grp_readdir(struct views *v, enum view_kind k, const char *rel, void *buf,
		fuse_fill_dir_t filler);
int grp_entry_target(struct views *v, enum view_kind k, const char *rel, char *buf,
		     size_t size, enum target_form f);
/* Builds both group views when the index is idle. */
void grp_prebuild(struct views *v);
/* Frees a group view (NULL is fine) whatever its references. */
void grp_free(struct gview *gs);
/* Forgets the group views named for callers (folder permissions moved). */
void grp_callers_drop(struct views *v);
/* Frees them at the views' end, before groups[] go. */
void grp_callers_free(struct views *v);

/* ---- view_lookup.c: lookup/<id>/ ---- */

int lk_getattr(struct views *v, const char *rel, struct stat *st);
int lk_readdir(struct views *v, const char *rel, void *buf, fuse_fill_dir_t filler);
int lk_entry_target(struct views *v, const char *rel, char *buf, size_t size,
		    enum target_form f);

/* ---- view_meta.c: .simbookfs/ ---- */

/* The content of .simbookfs/rel appended to out.  0, -ENOENT, -ENOMEM. */
int meta_content(struct views *v, const char *rel, struct sbuf *out);
/* The meta_stamp slot of .simbookfs/rel, or -1. */
int meta_slot(const char *rel);
/* The listed files of .simbookfs/. */
void meta_list(void *buf, fuse_fill_dir_t filler);
/* Applies one control command (size bytes of buf).  0 or -errno. */
int meta_control(struct views *v, const char *buf, size_t size);

#endif
