/* fsops_links.c - the names of files with several hard links that the
 * kernel was given, by inode of SRC.  The high-level API gives every name
 * its own kernel inode, each with its own cached attributes (kept for
 * cache_timeout): a change through one name (link, unlink, rename over
 * it, chmod, chown, times, size, a write) must drop what the kernel holds
 * for the others, or they show an old link count, ctime, mode or owner.
 * Files with one link are never remembered, so the table stays empty (and
 * costs nothing) in a library without hard links.
 */
#include "fsops_i.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "fspath.h"
#include "grow.h"

#define LINKS_BUCKETS 1024
/* Names remembered in all; past it new names are not (their other names'
 * attributes then age out with cache_timeout, as before). */
#define LINKS_MAX 200000

struct fs_lnode {
	dev_t dev;
	ino_t ino;
	char **names;		/* FUSE paths, malloc'd */
	size_t n, cap;
	struct fs_lnode *next;
};

struct fs_links {
	pthread_mutex_t lock;
	_Atomic size_t nodes;	/* read without the lock: the fast path */
	size_t names;
	struct fs_lnode *bucket[LINKS_BUCKETS];
};

int fs_links_new(struct fs_links **out)
{
	struct fs_links *l = calloc(1, sizeof(*l));

	if (!l)
		return -ENOMEM;
	pthread_mutex_init(&l->lock, NULL);
	*out = l;
	return 0;
}

static void fs_lnode_free(struct fs_lnode *n)
{
	size_t i;

	for (i = 0; i < n->n; i++)
		free(n->names[i]);
	free(n->names);
	free(n);
}

void fs_links_free(struct fs_links *l)
{
	struct fs_lnode *n, *next;
	size_t b;

	if (!l)
		return;
	for (b = 0; b < LINKS_BUCKETS; b++)
		for (n = l->bucket[b]; n; n = next) {
			next = n->next;
			fs_lnode_free(n);
		}
	pthread_mutex_destroy(&l->lock);
	free(l);
}

bool fs_links_any(const struct fs *fs)
{
	return atomic_load_explicit(&fs->links->nodes, memory_order_relaxed) != 0;
}

static struct fs_lnode **fs_links_slot(struct fs_links *l, dev_t dev, ino_t ino)
{
	struct fs_lnode **pp = &l->bucket[((uint64_t)ino * 0x9e3779b97f4a7c15ULL >> 44) % LINKS_BUCKETS];

	while (*pp && ((*pp)->ino != ino || (*pp)->dev != dev))
		pp = &(*pp)->next;
	return pp;
}

static void fs_links_drop(struct fs_links *l, struct fs_lnode **pp)
{
	struct fs_lnode *n = *pp;

	*pp = n->next;
	l->names -= n->n;
	atomic_fetch_sub(&l->nodes, 1);
	fs_lnode_free(n);
}

static ssize_t fs_lnode_find(const struct fs_lnode *n, const char *path)
{
	size_t i;

	for (i = 0; i < n->n; i++)
		if (!strcmp(n->names[i], path))
			return (ssize_t)i;
	return -1;
}

static void fs_lnode_remove(struct fs_links *l, struct fs_lnode *n, size_t i)
{
	free(n->names[i]);
	n->names[i] = n->names[--n->n];
	l->names--;
}

void fs_links_seen(struct fs *fs, const char *path, const struct stat *st)
{
	struct fs_links *l = fs->links;
	struct fs_lnode **pp, *n;
	char *copy;

	if (S_ISDIR(st->st_mode) || (st->st_nlink <= 1 && !fs_links_any(fs)))
		return;
	pthread_mutex_lock(&l->lock);
	pp = fs_links_slot(l, st->st_dev, st->st_ino);
	if (st->st_nlink <= 1) {
		if (*pp)
			fs_links_drop(l, pp);
		goto out;
	}
	if ((*pp && fs_lnode_find(*pp, path) >= 0) || l->names >= LINKS_MAX)
		goto out;
	if (!*pp) {
		*pp = calloc(1, sizeof(**pp));
		if (!*pp)
			goto out;
		(*pp)->dev = st->st_dev;
		(*pp)->ino = st->st_ino;
		atomic_fetch_add(&l->nodes, 1);
	}
	n = *pp;
	copy = strdup(path);
	if (!copy || ARRAY_GROW(n->names, n->cap, n->n + 1)) {
		free(copy);
		goto out;
	}
	n->names[n->n++] = copy;
	l->names++;
out:
	pthread_mutex_unlock(&l->lock);
}

/* Drops the kernel's attributes (and cached pages) of every remembered
 * name of the inode st except skip (NULL: none).  The copies are made
 * under the lock and the kernel is told without it: telling it can wait
 * on its page locks. */
static void fs_links_tell(struct fs *fs, const struct stat *st, const char *skip)
{
	struct fs_links *l = fs->links;
	struct fs_lnode **pp;
	char **names = NULL;
	size_t n = 0, i;

	pthread_mutex_lock(&l->lock);
	pp = fs_links_slot(l, st->st_dev, st->st_ino);
	if (*pp && (names = calloc((*pp)->n, sizeof(*names)))) {
		for (i = 0; i < (*pp)->n; i++)
			if ((!skip || strcmp((*pp)->names[i], skip)) &&
			    (names[n] = strdup((*pp)->names[i])))
				n++;
	}
	pthread_mutex_unlock(&l->lock);
	for (i = 0; i < n; i++) {
		fuse_invalidate_path(fuse_get_context()->fuse, names[i]);
		free(names[i]);
	}
	free(names);
}

void fs_links_changed(struct fs *fs, const char *path, const struct stat *st)
{
	if (S_ISDIR(st->st_mode) || !fs_links_any(fs))
		return;
	fs_links_tell(fs, st, path);
}

void fs_links_gone(struct fs *fs, const char *path, const struct stat *st)
{
	struct fs_links *l = fs->links;
	struct fs_lnode **pp;
	ssize_t i;

	if (S_ISDIR(st->st_mode) || st->st_nlink <= 1 || !fs_links_any(fs))
		return;
	pthread_mutex_lock(&l->lock);
	pp = fs_links_slot(l, st->st_dev, st->st_ino);
	if (*pp && (i = fs_lnode_find(*pp, path)) >= 0)
		fs_lnode_remove(l, *pp, (size_t)i);
	pthread_mutex_unlock(&l->lock);
	fs_links_tell(fs, st, NULL);
}

/* The new name of old when it is from or lies below it (a folder moved),
 * malloc'd; NULL when it does not, or without memory. */
static char *fs_links_rebase(const char *old, const char *from, const char *to)
{
	size_t fl = strlen(from), tl = strlen(to), ol = strlen(old);
	char *s;

	if (strncmp(old, from, fl) || (old[fl] && old[fl] != '/'))
		return NULL;
	s = malloc(tl + ol - fl + 1);
	if (s) {
		memcpy(s, to, tl);
		memcpy(s + tl, old + fl, ol - fl + 1);
	}
	return s;
}

void fs_links_moved(struct fs *fs, const char *from, const char *to, bool exchange)
{
	struct fs_links *l = fs->links;
	struct fs_lnode *n;
	size_t b, i;
	char *s;

	if (!fs_links_any(fs))
		return;
	pthread_mutex_lock(&l->lock);
	for (b = 0; b < LINKS_BUCKETS; b++)
		for (n = l->bucket[b]; n; n = n->next)
			for (i = 0; i < n->n; i++) {
				s = fs_links_rebase(n->names[i], from, to);
				if (!s && exchange)
					s = fs_links_rebase(n->names[i], to, from);
				if (s) {
					free(n->names[i]);
					n->names[i] = s;
				}
			}
	pthread_mutex_unlock(&l->lock);
}

void fs_links_touched(struct fs *fs, const char *path, int fd)
{
	struct fspath fp = FSPATH_INIT;
	struct stat st;
	int ret;

	if (!fs_links_any(fs))
		return;
	if (fd >= 0) {
		ret = fstat(fd, &st);
	} else {
		ret = fspath_resolve(&fp, fs->rootfd, path) ? -1 :
			fstatat(fp.dirfd, fp.name, &st, AT_SYMLINK_NOFOLLOW);
		fspath_release(&fp);
	}
	if (ret == 0)
		fs_links_changed(fs, path, &st);
}

int fs_links_stat(const struct fs *fs, const char *path, struct stat *st)
{
	struct fspath fp = FSPATH_INIT;
	int ret;

	if (!fs_links_any(fs))
		return -ENOENT;
	ret = fspath_resolve(&fp, fs->rootfd, path);
	if (!ret)
		ret = fstatat(fp.dirfd, fp.name, st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
	fspath_release(&fp);
	return ret;
}
