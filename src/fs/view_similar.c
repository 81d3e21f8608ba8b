/* view_similar.c - similar/: SRC's folders mirrored, one folder per book
 * holding its ranked similar list (simlist.h) and the listing file; the
 * lists cached per book under the index generation. */
#include "views_i.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- similar lists cache ---- */

static void listref_put(struct views *v, struct listref *r)
{
	int last;

	if (!r)
		return;
	pthread_mutex_lock(&v->lock);
	last = --r->refs == 0;
	pthread_mutex_unlock(&v->lock);
	if (last) {
		simlist_free(r->l);
		free(r);
	}
}

static int list_get(struct views *v, uint64_t id, struct listref **out)
{
	uint64_t gen = idx_generation(v->ix);
	size_t slot = (size_t)((id * 0x9E3779B97F4A7C15u) >> 54) % LIST_SLOTS;
	struct listref *r, *old = NULL;
	struct simlist *l = NULL;
	int ret;

	pthread_mutex_lock(&v->lock);
	r = v->slots[slot];
	if (r && r->l->id == id && r->l->generation == gen) {
		r->refs++;
		pthread_mutex_unlock(&v->lock);
		*out = r;
		return 0;
	}
	pthread_mutex_unlock(&v->lock);
	ret = simlist_get(v->ix, v->pairs, id, views_skip, v, &l);
	if (ret)
		return ret;
	r = malloc(sizeof(*r));
	if (!r) {
		simlist_free(l);
		return -ENOMEM;
	}
	r->l = l;
	r->refs = 2;	/* the slot's and the caller's */
	r->own = 0;
	pthread_mutex_lock(&v->lock);
	old = v->slots[slot];
	v->slots[slot] = r;
	pthread_mutex_unlock(&v->lock);
	listref_put(v, old);
	*out = r;
	return 0;
}

/* The list *r as the caller may see it: the books it may reach only,
 * ranked again (a gap in the ranks would tell that a hidden book is
 * there).  *r is replaced by a copy of its own when one is hidden. */
static int list_for_caller(struct views *v, struct listref **r)
{
	const struct simlist *l = (*r)->l;
	struct simlist *c = NULL;
	struct listref *nr = NULL;
	struct fsacc_who who;
	size_t i, n = 0;
	int ret = -ENOMEM;

	if (!v->fuse || views_who(&who))
		return 0;	/* root (or no request): sees every book */
	for (i = 0; i < l->n; i++)
		n += (size_t)views_reach(v, l->v[i].path);
	if (n == l->n)
		return 0;
	c = calloc(1, sizeof(*c));
	nr = malloc(sizeof(*nr));
	if (!c || !nr || !(c->v = calloc(n ? n : 1, sizeof(*c->v))))
		goto out;
	c->id = l->id;
	c->generation = l->generation;
	for (i = 0; i < l->n; i++) {
		if (!views_reach(v, l->v[i].path))
			continue;
		c->v[c->n] = l->v[i];
		c->v[c->n].name = NULL;
		c->v[c->n].path = strdup(l->v[i].path);
		if (!c->v[c->n++].path)
			goto out;
	}
	ret = simlist_rank(c);
out:
	if (ret) {
		simlist_free(c);
		free(nr);
		return ret;
	}
	nr->l = c;
	nr->refs = 1;
	nr->own = 1;
	listref_put(v, *r);
	*r = nr;
	return 0;
}

/* list_get() as the caller sees it. */
static int list_get_for(struct views *v, uint64_t id, struct listref **out)
{
	int ret = list_get(v, id, out);

	if (!ret && (ret = list_for_caller(v, out))) {
		listref_put(v, *out);
		*out = NULL;
	}
	return ret;
}

/* ---- similar/ ---- */

enum sim_node { SN_DIR, SN_BOOK, SN_ENTRY, SN_LISTING };

struct sim_res {
	enum sim_node node;
	uint64_t id;		/* the book (SN_BOOK, SN_ENTRY, SN_LISTING) */
	struct listref *list;	/* SN_ENTRY, SN_LISTING: the book's list */
	size_t entry;		/* SN_ENTRY: index in the list */
	int book_depth;		/* components of the book's path */
	struct stat tst;	/* SN_ENTRY: the target; SN_BOOK: the book */
};

static int is_book(struct views *v, const char *path, uint64_t *id)
{
	struct idx_file f = { 0 };
	int ok;

	if (!*path || views_skip(v, path) || idx_get(v->ix, path, &f))
		return 0;
	ok = f.has_fp && f.state == IDX_INDEXED;
	*id = f.id;
	idx_file_release(&f);
	return ok;
}

/* is_book() of the folder holding the entries a caller looks up, kept per
 * thread while the index generation stays: a file manager looks up every
 * entry of one folder in turn, and then none of them reads the index. */
static int folder_book(struct views *v, const char *path, uint64_t *id)
{
	static _Thread_local struct {
		uint64_t serial, gen, id;
		int ok;
		char path[IDX_PATH_MAX + 1];
	} c;
	uint64_t gen = idx_generation(v->ix);

	if (c.serial == v->serial && c.gen == gen && !strcmp(c.path, path)) {
		*id = c.id;
		return c.ok;
	}
	c.ok = is_book(v, path, &c.id);
	c.serial = v->serial;
	c.gen = gen;
	strcpy(c.path, path);	/* callers check the length */
	*id = c.id;
	return c.ok;
}

static int sim_resolve(struct views *v, const char *rel, struct sim_res *r)
{
	char parent[IDX_PATH_MAX + 1];
	const char *name;
	struct simlist *l;
	size_t i, plen;
	int ret;

	memset(r, 0, sizeof(*r));
	if (!*rel) {
		r->node = SN_DIR;
		return 0;
	}
	if (strlen(rel) > IDX_PATH_MAX)
		return -ENAMETOOLONG;
	/* The folder first: when it is a book (a file), rel cannot be one. */
	name = strrchr(rel, '/');
	if (name) {
		plen = (size_t)(name - rel);
		memcpy(parent, rel, plen);
		parent[plen] = '\0';
		name++;
		if (folder_book(v, parent, &r->id)) {
			/* a book the caller may not reach has no folder */
			if (!views_reach(v, parent))
				return -ENOENT;
			r->book_depth = views_components(parent);
			ret = list_get_for(v, r->id, &r->list);
			if (ret)
				return ret == -ENOENT ? -ENOENT : ret;
			if (!strcmp(name, VIEWS_LISTING)) {
				r->node = SN_LISTING;
				return 0;
			}
			l = r->list->l;
			for (i = 0; i < l->n; i++)
				if (!strcmp(l->v[i].name, name))
					break;
			if (i == l->n || !views_target_ok(v, l->v[i].path, &r->tst)) {
				listref_put(v, r->list);
				r->list = NULL;
				return -ENOENT;
			}
			r->node = SN_ENTRY;
			r->entry = i;
			return 0;
		}
	}
	if (is_book(v, rel, &r->id)) {
		if (!views_target_ok(v, rel, &r->tst))
			return -ENOENT;
		r->node = SN_BOOK;
		return 0;
	}
	/* A folder of SRC (books below it are listed from the index). */
	if (views_skip(v, rel) || fstatat(v->rootfd, rel, &r->tst, AT_SYMLINK_NOFOLLOW) ||
	    !S_ISDIR(r->tst.st_mode) || !views_reach(v, rel))
		return -ENOENT;
	r->node = SN_DIR;
	return 0;
}

static void sim_release(struct views *v, struct sim_res *r)
{
	listref_put(v, r->list);
	r->list = NULL;
}

static int sim_target(const struct sim_res *r, char *buf, size_t size)
{
	return simlist_link(buf, size, 1 + r->book_depth, r->list->l->v[r->entry].path);
}

static int sim_listing(struct views *v, const struct simlist *l, struct sbuf *out)
{
	struct simlist tmp = *l;
	size_t i, n = 0;
	int ret;

	/* Only the entries that exist now, as in the directory. */
	tmp.v = malloc((l->n ? l->n : 1) * sizeof(*tmp.v));
	if (!tmp.v)
		return -ENOMEM;
	for (i = 0; i < l->n; i++)
		if (views_target_ok(v, l->v[i].path, NULL))
			tmp.v[n++] = l->v[i];
	tmp.n = n;
	ret = simlist_tsv(&tmp, out);
	free(tmp.v);
	return ret;
}

/* An entry of similar/BOOK/ pointing at path, the caller's answer taken:
 * the kernel shows it only through similar/FOLDER/, FOLDER BOOK's folder
 * in SRC (the answer depended on reaching BOOK and path). */
static void shield_entry(struct views *v, const char *book, size_t len, const char *path)
{
	char guard[IDX_PATH_MAX + 1], self[IDX_PATH_MAX + 1];
	const char *paths[2] = { path, self };
	const char *slash;

	if (len > IDX_PATH_MAX)
		return;
	memcpy(self, book, len);
	self[len] = '\0';
	slash = strrchr(self, '/');
	len = slash ? (size_t)(slash - self) : 0;
	memcpy(guard, self, len);
	guard[len] = '\0';
	views_shield(v, guard, paths, 2);
}

int sim_getattr(struct views *v, const char *rel, struct stat *st)
{
	struct sim_res r;
	char buf[PATH_MAX];
	struct sbuf sb;
	int ret = sim_resolve(v, rel, &r);

	if (ret)
		return ret;
	switch (r.node) {
	case SN_DIR:
		views_fill_dir(v, st, views_ino(VK_SIMILAR, views_hash(rel, 1)));
		if (*rel) {
			/* the folder's own owner and search bits: the kernel
			 * keeps others out of similar/<folder>/ as out of
			 * <folder>/ */
			st->st_mtim = r.tst.st_mtim;
			st->st_mode = S_IFDIR | (r.tst.st_mode & 0555);
			st->st_uid = r.tst.st_uid;
			st->st_gid = r.tst.st_gid;
			/* entries below were kept for the callers these bits
			 * let in (views_shield()): until those of a changed
			 * folder are dropped, only its owner, and ask again */
			fsacc_note(v->acc, rel, &r.tst);
			if (v->shared && v->has_thread && views_acc_unsettled(v)) {
				st->st_mode &= ~(mode_t)0055;
				views_private_add(v, VK_SIMILAR, rel, NULL);
			}
		}
		break;
	case SN_BOOK:
		views_fill_dir(v, st, views_ino(VK_SIMILAR, r.id));
		st->st_mtim = r.tst.st_mtim;
		break;
	case SN_ENTRY:
		ret = sim_target(&r, buf, sizeof(buf));
		if (!ret)
			views_fill_entry(v, st, views_ino(VK_SIMILAR, views_hash(r.list->l->v[r.entry].path, r.id)),
				   strlen(buf), &r.tst);
		if (!ret && !r.list->own)
			shield_entry(v, rel, (size_t)(strrchr(rel, '/') - rel),
				     r.list->l->v[r.entry].path);
		break;
	case SN_LISTING:
		if (snap_current(v, VK_SIMILAR, rel, st))
			break;
		sbuf_init(&sb);
		ret = sim_listing(v, r.list->l, &sb);
		if (!ret) {
			views_fill_file(st, views_ino(VK_SIMILAR, r.id ^ 0x5a5a5a5a5a5a5a5au), sb.len,
				  views_file_time(v, -1, NULL));
			snap_offer(v, VK_SIMILAR, rel, &sb, st);
		}
		sbuf_release(&sb);
		break;
	}
	sim_release(v, &r);
	return ret;
}

int sim_readdir(struct views *v, const char *rel, void *buf, fuse_fill_dir_t filler)
{
	struct idx_entry *ents = NULL;
	struct sim_res r;
	struct stat st;
	size_t n = 0, i;
	int ret = sim_resolve(v, rel, &r);

	if (ret)
		return ret;
	memset(&st, 0, sizeof(st));
	filler(buf, ".", NULL, 0, 0);
	filler(buf, "..", NULL, 0, 0);
	if (r.node == SN_DIR) {
		/* its names only to a caller who could search it */
		struct sbuf in;

		sbuf_init(&in);
		ret = sbuf_addf(&in, "%s%s.", rel, *rel ? "/" : "");
		if (!ret && !views_reach(v, in.buf))
			ret = -EACCES;
		sbuf_release(&in);
		if (!ret)
			ret = idx_list(v->ix, rel, 0, &ents, &n);
		if (ret == -ENOENT)
			ret = 0;
		for (i = 0; i < n && !ret; i++) {
			const char *nm = ents[i].name;

			if (!*rel && views_skip(v, nm))
				continue;
			if (!ents[i].is_dir &&
			    (!ents[i].file.has_fp || ents[i].file.state != IDX_INDEXED))
				continue;
			st.st_mode = S_IFDIR;
			if (ents[i].is_dir) {
				struct sbuf full;

				sbuf_init(&full);
				if (sbuf_addf(&full, "%s%s%s", rel, *rel ? "/" : "", nm)) {
					ret = -ENOMEM;
					break;
				}
				st.st_ino = views_ino(VK_SIMILAR, views_hash(full.buf, 1));
				sbuf_release(&full);
			} else {
				st.st_ino = views_ino(VK_SIMILAR, ents[i].file.id);
			}
			filler(buf, nm, &st, 0, 0);
		}
		idx_entries_free(ents, n);
	} else if (r.node == SN_BOOK) {
		struct listref *lr = NULL;
		char link[PATH_MAX];
		struct stat tst;

		ret = list_get_for(v, r.id, &lr);
		if (!ret) {
			st.st_mode = S_IFREG;
			st.st_ino = views_ino(VK_SIMILAR, r.id ^ 0x5a5a5a5a5a5a5a5au);
			filler(buf, VIEWS_LISTING, &st, 0, 0);
			/* With attributes (as sim_getattr() gives them), so the
			 * kernel needs no lookup per entry; remembered for the
			 * invalidation like looked-up entries, and dropped from
			 * the kernel's cache at once when the caller decided. */
			views_private_take();
			for (i = 0; i < lr->l->n; i++) {
				const struct simlist_entry *e = &lr->l->v[i];

				if (!views_target_ok(v, e->path, &tst) ||
				    simlist_link(link, sizeof(link), 1 + views_components(rel), e->path)) {
					views_private_take();
					continue;
				}
				shield_entry(v, rel, strlen(rel), e->path);
				/* names ranked for this caller are its own too */
				if (views_private_take() || lr->own)
					views_private_add(v, VK_SIMILAR, rel, e->name);
				views_fill_entry(v, &st, views_ino(VK_SIMILAR, views_hash(e->path, r.id)),
					   strlen(link), &tst);
				filler(buf, e->name, &st, 0, FUSE_FILL_DIR_PLUS);
				views_served_add(v, VK_SIMILAR, rel, e->name);
			}
			listref_put(v, lr);
		}
	} else {
		ret = -ENOTDIR;
	}
	sim_release(v, &r);
	return ret;
}

int sim_entry_target(struct views *v, const char *rel, char *buf, size_t size,
			    enum target_form f)
{
	struct sim_res r;
	int ret = sim_resolve(v, rel, &r);

	if (ret)
		return ret;
	if (r.node != SN_ENTRY)
		ret = -EINVAL;
	else if (f == TF_LINK)
		ret = sim_target(&r, buf, size);
	else
		ret = views_entry_target(buf, size, 0, r.list->l->v[r.entry].path, f);
	sim_release(v, &r);
	return ret;
}

/* "Not a duplicate": removing an entry exempts the pair. */
int sim_unlink(struct views *v, const char *rel)
{
	struct idx_file a = { 0 }, b = { 0 };
	struct sim_res r;
	int ret = sim_resolve(v, rel, &r);

	if (ret)
		return ret;
	if (r.node != SN_ENTRY) {
		ret = r.node == SN_LISTING ? -EROFS : -EISDIR;
		goto out;
	}
	ret = idx_get_id(v->ix, r.id, &a);
	if (!ret)
		ret = idx_get_id(v->ix, r.list->l->v[r.entry].id, &b);
	if (!ret)
		ret = idx_exempt_set(v->ix, a.path, b.path, 1);
	if (!ret)
		views_changed(v);
out:
	idx_file_release(&a);
	idx_file_release(&b);
	sim_release(v, &r);
	return ret;
}

int sim_open(struct views *v, const char *rel, struct sbuf *out)
{
	struct sim_res r;
	int ret = sim_resolve(v, rel, &r);

	if (!ret) {
		ret = r.node == SN_LISTING ? sim_listing(v, r.list->l, out) : -EACCES;
		sim_release(v, &r);
	}
	return ret;
}
