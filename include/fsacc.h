/* fsacc.h - who may reach a book of SRC: search permission on every folder
 * of its path by the kernel's rules, for a caller (uid, gid and the
 * supplementary groups of its process), as the passthrough would check it
 * (default_permissions).  The views show a book only to a caller for whom
 * this holds.
 *
 * The folders' attributes are cached by folder path (the answer for a
 * caller is then a few comparisons per folder) and read again after ttl;
 * fsacc_recheck() re-reads every cached folder at once and says whether
 * one changed, so that answers handed out before can be withdrawn.  The
 * supplementary groups are read (from /proc/PID/status) only when a
 * folder's group bits differ from its other bits for a caller outside its
 * owner and primary group, and kept per process for ttl.  POSIX ACLs are
 * not consulted: the mode's group class stands for them.  Thread-safe.
 */
#ifndef FSACC_H
#define FSACC_H

#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/* A caller: pid 0 when it has no process to read groups from. */
struct fsacc_who {
	uid_t uid;
	gid_t gid;
	pid_t pid;
};

struct fsacc;

/* For SRC's directory fd rootfd (borrowed, kept open by the caller),
 * folder attributes trusted for ttl_ns.  0 and *out, or -ENOMEM. */
int fsacc_new(struct fsacc **out, int rootfd, int64_t ttl_ns);
void fsacc_free(struct fsacc *a);	/* NULL is fine */

/* 1 when who could look up path (relative to SRC, no leading '/'):
 * search permission on SRC's root and on every folder above path's last
 * name; 0 when not, or when such a folder is missing.  Root (uid 0) may
 * search any folder. */
int fsacc_reach(struct fsacc *a, const struct fsacc_who *who, const char *path);
/* 1 when every caller could (each folder above path searchable by owner,
 * group and others): an answer that needs no caller. */
int fsacc_public(struct fsacc *a, const char *path);
/* 1 when every caller who may search each folder of guard (a folder,
 * "" SRC's root) may also reach path: guard holds a folder only its owner
 * may search (no group or other search bit), and that owner (or root)
 * passes every folder above path.  The views use it for entries the kernel
 * only shows through a folder that mirrors guard's search bits. */
int fsacc_covers(struct fsacc *a, const char *guard, const char *path);
/* The folder dir (as fsacc_covers()'s guard) was just read as st: when
 * the cache holds it otherwise, it is read again now (a change counted). */
void fsacc_note(struct fsacc *a, const char *dir, const struct stat *st);
/* How many times a read found a cached folder changed (also those not yet
 * reported by fsacc_recheck()): answers derived from the cache before
 * are stale once it moves. */
uint64_t fsacc_changes(struct fsacc *a);
/* Reads every cached folder again; 1 when one changed mode or owner or
 * went away since the last call (also when a refresh after ttl found
 * it), else 0. */
int fsacc_recheck(struct fsacc *a);

/* The rule for one folder of mode, owner uid and group gid: 1 when who
 * may search it, 0 when not, -1 when it depends on who's supplementary
 * groups and ngroups < 0 (not read yet); groups[0..ngroups) otherwise. */
int fsacc_may_search(const struct fsacc_who *who, const gid_t *groups, int ngroups,
		     mode_t mode, uid_t uid, gid_t gid);
/* The supplementary groups of process pid into groups (room for max):
 * their number, or -errno (-ENOENT: no such process). */
int fsacc_proc_groups(pid_t pid, gid_t *groups, int max);

#endif
