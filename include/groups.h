/* groups.h - the groups of books of the clusters/ and duplicates/ views
 * and of `simbook clusters|duplicates`.
 *
 * Clusters are the stored cluster links (judge.h: identical file, same
 * text, near duplicate) minus exemptions, clustered by average linkage
 * over texts (avglink.h): a book joins only when it is a near duplicate of
 * more than half of a cluster, and ties go by content, so the clusters do
 * not depend on the order books arrived in; text groups
 * the books with the same exact-text hash, split where "not a duplicate"
 * exemptions cut them.  Order, everywhere: groups by size (descending, the
 * size of the stored group), then by their smallest id; members by id
 * (ascending).  groups_resolve() turns either kind into members with paths
 * and metadata.opf names, the one assembly the views and the command line
 * both show.
 */
#ifndef GROUPS_H
#define GROUPS_H

#include <stddef.h>
#include <stdint.h>

#include "idx.h"

/* The groups of clusters/: idx_link_graph() (the stored links between
 * texts, minus exemptions, one pass), its components that are complete
 * kept whole, the others split by avglink_cluster() with the texts ranked
 * by simhash and text hash (read for those components only).  A group of
 * copies is never split.  Order rules as above.  Free with
 * idx_groups_release(). */
int groups_clusters(struct idx *ix, struct idx_groups *g);

/* Groups for duplicates/: idx_text_groups() with exempted pairs split
 * apart (the connected components of each group's non-exempted pairs).
 * Same order rules.  Free with idx_groups_release(). */
int groups_text(struct idx *ix, struct idx_groups *g);

enum groups_kind {
	GROUPS_CLUSTERS,	/* groups_clusters() */
	GROUPS_TEXT,		/* groups_text() */
};

/* A member of a resolved group. */
struct groups_member {
	uint64_t id;
	char *path;		/* relative to SRC, owned by the set */
	char *title;		/* its metadata.opf name (simlist_book_title()),
				 * owned by the set; NULL: none */
	uint64_t size;		/* the file's size when indexed */
	uint8_t simhash[IDX_SH_BYTES];
};

struct groups_group {
	size_t n;		/* two or more */
	struct groups_member *m;
};

struct groups_set {
	size_t n;
	struct groups_group *g;
};

/* The groups of kind with their members: the order of groups_clusters()
 * or groups_text() (groups by stored size, then smallest id; members by
 * id), leaving out the members no longer indexed (no path) and those
 * skip(arg, f) (may be NULL) returns non-zero for, then the groups left
 * with fewer than two members; the others keep their place.  All entries
 * are read in one read transaction.  *out is filled (empty on error);
 * release with groups_set_release().  0, -ENOMEM, -errno of the index. */
int groups_resolve(struct idx *ix, enum groups_kind kind,
		   int (*skip)(void *arg, const struct idx_file *f), void *arg,
		   struct groups_set *out);
/* Frees the set's groups, paths and titles; s is empty afterwards. */
void groups_set_release(struct groups_set *s);

/* Members of a group whose own metadata title is looked at for its title. */
#define GROUPS_TITLE_MEMBERS 8

/* The title of the group gr (its members as resolved, or any subset of
 * them, e.g. those one caller may see): the metadata.opf name ("TITLE -
 * AUTHOR") most of its members have, the first in byte order among
 * equally common ones, so that it depends on the members only and not on
 * the order they arrived in; else the first non-empty metadata title of
 * a file among its first GROUPS_TITLE_MEMBERS members; else the first
 * member's file name without its extension.  *title is malloc'd (caller
 * frees).  0 or -ENOMEM. */
int groups_title(struct idx *ix, const struct groups_group *gr, char **title);

#endif
