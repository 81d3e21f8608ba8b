/* views.c - similar/, clusters/, duplicates/, lookup/ and .simbookfs/ (see
 * views.h).
 *
 * Per-entry cost: a similar/<book>/ listing hands each entry to the kernel
 * with its attributes (readdirplus), so a file manager's lstat() of an
 * entry needs no lookup; lookup, getattr and readlink of an entry are
 * answered from memory (the book of the folder remembered per thread under
 * the index generation, the cached list) plus one fstatat() that checks
 * the target exists; lists are read again only when the index generation
 * moved (the relations stored at indexing time, simlist_get(); the pair
 * cache of simlist.h serves the books not judged yet).  Group views are
 * recomputed at most once a second while the index keeps changing; they
 * check each target's existence like the rest, so a stale group never
 * dangles.
 */
#include "views.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sbuf.h"
#include "simhash.h"
#include "groups.h"
#include "simlist.h"
#include "monoclock.h"

enum view_kind { VK_SIMILAR, VK_CLUSTERS, VK_DUPLICATES, VK_LOOKUP, VK_META, VK_N };

static const char *const view_base[VK_N] = {
	"similar", "clusters", "duplicates", "lookup", ".simbookfs",
};

#define LIST_SLOTS 1024		/* cached similar lists (direct-mapped by id) */
#define SERVED_MAX 65536	/* view paths remembered for invalidation */
#define SEEN_SLOTS (2 * SERVED_MAX)	/* set of their hashes (no duplicates) */
#define GROUPS_MIN_AGE_NS 1000000000LL

struct view_node {
	struct views *v;
	enum view_kind kind;
};

struct listref {
	struct simlist *l;
	int refs;
};

/* One member of a group folder. */
struct gmember {
	char *name;		/* entry name, unique in the group */
	char *path;
	uint64_t id;
};

struct group {
	char *name;		/* "Title (N)", unique */
	size_t n;
	struct gmember *m;
};

/* The names already given in one folder, hashed, each with a value (the
 * group's index for the group names): clusters/ of a large library has
 * tens of thousands of groups, which a linear check per new name and per
 * lookup made quadratic.  Holds name pointers it does not own. */
struct nameset {
	const char **slot;
	size_t *val;
	size_t mask;
};

struct gview {
	int refs;
	uint64_t generation;
	int64_t built_ns;
	size_t n;
	struct group *g;
	struct nameset names;	/* group name -> index in g */
};

struct views {
	uint64_t serial;		/* tells instances apart in thread caches */
	int rootfd;
	int files;			/* entries are read-only files, not links */
	char *prefix;
	const char *hidden;
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
	int building[2];		/* a build of groups[k] is under way */
	pthread_cond_t built;		/* a build ended (with lock) */
	char **served;			/* FUSE paths handed to the kernel */
	size_t nserved;
	uint64_t *seen;			/* hashes of served, SEEN_SLOTS, 0 = free */
	/* mtimes of generated files (file_time()) */
	uint64_t gen_seen;
	struct timespec gen_time;
	struct {
		uint64_t hash;
		size_t len;
		struct timespec t;
	} meta_stamp[3];		/* .simbookfs/ status, errors, not-duplicates */
	/* invalidation thread */
	struct fuse *fuse;
	pthread_t thread;
	int has_thread, stop, dirty;
	pthread_cond_t cond;
};

static _Atomic uint64_t views_serials;	/* instances made so far */

/* 1 once the index is open (v->ixr and v->ix set from then on), 0 while it
 * opens, upgrades or rebuilds, or after it failed: the views then show
 * their top folders empty (docs/VIEWS.md). */
static int views_open(struct views *v)
{
	struct indexer *ixr;

	if (v->ix)
		return 1;
	ixr = v->op ? opener_indexer(v->op) : NULL;
	if (!ixr)
		return 0;
	v->ixr = ixr;
	v->ix = indexer_idx(ixr);
	return 1;
}

/* ---- helpers ---- */

static uint64_t hash_more(uint64_t h, const char *s)
{
	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3u;
	return h;
}

static uint64_t hash_str(const char *s, uint64_t seed)
{
	uint64_t h = hash_more(0xcbf29ce484222325u ^ seed, s);

	return h ^ h >> 31;
}

/* Inode numbers of view nodes: the top bit set (away from most real
 * filesystems' numbers), the kind in the next 7 bits, a stable hash. */
static ino_t view_ino(enum view_kind k, uint64_t h)
{
	return (ino_t)(UINT64_C(1) << 63 | (uint64_t)(k + 1) << 56 | (h & UINT64_C(0x00ffffffffffffff)));
}

static void fill_link(struct stat *st, ino_t ino, size_t len, const struct stat *target)
{
	memset(st, 0, sizeof(*st));
	st->st_mode = S_IFLNK | 0777;
	st->st_nlink = 1;
	st->st_ino = ino;
	st->st_size = (off_t)len;
	st->st_uid = target->st_uid;
	st->st_gid = target->st_gid;
	st->st_mtim = target->st_mtim;
	st->st_ctim = target->st_ctim;
	st->st_atim = target->st_atim;
}

/* The attributes of an entry for the book target: a relative link of
 * linklen bytes, or in real-file mode the book itself, read-only (its
 * read bits, so the kernel grants the same readers). */
static void fill_entry(const struct views *v, struct stat *st, ino_t ino, size_t linklen,
		       const struct stat *target)
{
	fill_link(st, ino, linklen, target);
	if (v->files) {
		st->st_mode = S_IFREG | (target->st_mode & 0444);
		st->st_size = target->st_size;
		st->st_blocks = target->st_blocks;
		st->st_blksize = target->st_blksize;
	}
}

/* The file type of entries in listings. */
static mode_t entry_type(const struct views *v)
{
	return v->files ? S_IFREG : S_IFLNK;
}

/* What an entry's target is asked for as: the text of its link, or (in
 * real-file mode, for fsops's source op) the book's path in SRC. */
enum target_form { TF_LINK, TF_SOURCE };

/* The target path (relative to SRC) of an entry depth folders below the
 * mount's root, in form f, into buf. */
static int entry_target(char *buf, size_t size, int depth, const char *path,
			enum target_form f)
{
	size_t len;

	if (f == TF_LINK)
		return simlist_link(buf, size, depth, path);
	len = strlen(path);
	if (len >= size)
		return -ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	return 0;
}

static void fill_file(struct stat *st, ino_t ino, size_t size, struct timespec mtime)
{
	memset(st, 0, sizeof(*st));
	st->st_mode = S_IFREG | 0444;
	st->st_nlink = 1;
	st->st_ino = ino;
	st->st_size = (off_t)size;
	st->st_uid = getuid();
	st->st_gid = getgid();
	st->st_mtim = mtime;
	st->st_ctim = mtime;
	st->st_atim = mtime;
}

/* The mtime of a generated file: it holds still while the content does, as
 * clients that check a file did not change while they read it need
 * (Syncthing, tar).  A listing derives from the index generation: the time
 * the views first saw it.  A .simbookfs/ file (slot 0 or 1, content) moves
 * when its content changes. */
static struct timespec file_time(struct views *v, int slot, const struct sbuf *content)
{
	uint64_t gen = views_open(v) ? idx_generation(v->ix) : 0, h;
	struct timespec now, t;

	clock_gettime(CLOCK_REALTIME, &now);
	pthread_mutex_lock(&v->lock);
	if (slot < 0) {
		if (gen != v->gen_seen || !v->gen_time.tv_sec) {
			v->gen_seen = gen;
			v->gen_time = now;
		}
		t = v->gen_time;
	} else {
		h = hash_str(content->buf, 8);
		if (h != v->meta_stamp[slot].hash || content->len != v->meta_stamp[slot].len ||
		    !v->meta_stamp[slot].t.tv_sec) {
			v->meta_stamp[slot].hash = h;
			v->meta_stamp[slot].len = content->len;
			v->meta_stamp[slot].t = now;
		}
		t = v->meta_stamp[slot].t;
	}
	pthread_mutex_unlock(&v->lock);
	return t;
}

/* A view folder: its times are those of the index generation it shows
 * (file managers and rsync see a folder change when its content may have;
 * sim_getattr() gives mirrored folders their SRC folder's mtime). */
static void fill_dir(struct views *v, struct stat *st, ino_t ino)
{
	memset(st, 0, sizeof(*st));
	st->st_mode = S_IFDIR | 0555;
	st->st_nlink = 2;
	st->st_ino = ino;
	st->st_uid = getuid();
	st->st_gid = getgid();
	st->st_mtim = file_time(v, -1, NULL);
	st->st_ctim = st->st_mtim;
	st->st_atim = st->st_mtim;
}

/* The target exists as a regular file in SRC (*st filled). */
static int target_ok(struct views *v, const char *path, struct stat *st)
{
	struct stat tmp;

	if (!st)
		st = &tmp;
	return fstatat(v->rootfd, path, st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st->st_mode);
}

/* 1 when path's top-level name is not visible in the mount (a view name or
 * the hidden index folder): the views cannot link to it. */
static int views_skip(void *arg, const char *path)
{
	struct views *v = arg;
	size_t n = strcspn(path, "/"), k;

	if (v->hidden && strlen(v->hidden) == n && !strncmp(path, v->hidden, n))
		return 1;
	for (k = 0; k < VK_N; k++)
		if (strlen(v->names[k]) == n && !strncmp(path, v->names[k], n))
			return 1;
	return 0;
}

static int components(const char *rel)
{
	int n = 1;

	for (; *rel; rel++)
		n += *rel == '/';
	return n;
}

/* Remembers a view path the kernel now caches (rel, or rel/name when name
 * is not NULL), for the next invalidation. */
static void served_add(struct views *v, enum view_kind k, const char *rel, const char *name)
{
	const char *part[6] = { "/", v->names[k], *rel ? "/" : "", rel, name ? "/" : "",
				name ? name : "" };
	uint64_t h = 0xcbf29ce484222325u ^ 7;
	struct sbuf p;
	size_t i;
	char *s;
	int known;

	if (!v->has_thread)
		return;
	/* hash_str() of the path, without building it: every listing of a
	 * folder hands out the same entries again. */
	for (i = 0; i < 6; i++)
		h = hash_more(h, part[i]);
	h = (h ^ h >> 31) | 1;
	pthread_mutex_lock(&v->lock);
	for (i = (size_t)h % SEEN_SLOTS; v->seen[i] && v->seen[i] != h; i = (i + 1) % SEEN_SLOTS)
		;
	known = v->seen[i] == h;
	pthread_mutex_unlock(&v->lock);
	if (known)
		return;
	sbuf_init(&p);
	if (sbuf_addf(&p, "%s%s%s%s%s%s", part[0], part[1], part[2], part[3], part[4], part[5]))
		goto out;
	pthread_mutex_lock(&v->lock);
	for (i = (size_t)h % SEEN_SLOTS; v->seen[i] && v->seen[i] != h; i = (i + 1) % SEEN_SLOTS)
		;
	if (!v->seen[i] && v->nserved < SERVED_MAX && (s = sbuf_detach(&p, NULL))) {
		v->seen[i] = h;
		v->served[v->nserved++] = s;
	}
	pthread_mutex_unlock(&v->lock);
out:
	sbuf_release(&p);
}

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
	pthread_mutex_lock(&v->lock);
	old = v->slots[slot];
	v->slots[slot] = r;
	pthread_mutex_unlock(&v->lock);
	listref_put(v, old);
	*out = r;
	return 0;
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
			r->book_depth = components(parent);
			ret = list_get(v, r->id, &r->list);
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
			if (i == l->n || !target_ok(v, l->v[i].path, &r->tst)) {
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
		if (!target_ok(v, rel, &r->tst))
			return -ENOENT;
		r->node = SN_BOOK;
		return 0;
	}
	/* A folder of SRC (books below it are listed from the index). */
	if (views_skip(v, rel) || fstatat(v->rootfd, rel, &r->tst, AT_SYMLINK_NOFOLLOW) ||
	    !S_ISDIR(r->tst.st_mode))
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
		if (target_ok(v, l->v[i].path, NULL))
			tmp.v[n++] = l->v[i];
	tmp.n = n;
	ret = simlist_tsv(&tmp, out);
	free(tmp.v);
	return ret;
}

static int sim_getattr(struct views *v, const char *rel, struct stat *st)
{
	struct sim_res r;
	char buf[PATH_MAX];
	struct sbuf sb;
	int ret = sim_resolve(v, rel, &r);

	if (ret)
		return ret;
	switch (r.node) {
	case SN_DIR:
		fill_dir(v, st, view_ino(VK_SIMILAR, hash_str(rel, 1)));
		if (*rel)
			st->st_mtim = r.tst.st_mtim;
		break;
	case SN_BOOK:
		fill_dir(v, st, view_ino(VK_SIMILAR, r.id));
		st->st_mtim = r.tst.st_mtim;
		break;
	case SN_ENTRY:
		ret = sim_target(&r, buf, sizeof(buf));
		if (!ret)
			fill_entry(v, st, view_ino(VK_SIMILAR, hash_str(r.list->l->v[r.entry].path, r.id)),
				   strlen(buf), &r.tst);
		break;
	case SN_LISTING:
		sbuf_init(&sb);
		ret = sim_listing(v, r.list->l, &sb);
		if (!ret)
			fill_file(st, view_ino(VK_SIMILAR, r.id ^ 0x5a5a5a5a5a5a5a5au), sb.len,
				  file_time(v, -1, NULL));
		sbuf_release(&sb);
		break;
	}
	sim_release(v, &r);
	return ret;
}

static int sim_readdir(struct views *v, const char *rel, void *buf, fuse_fill_dir_t filler)
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
				st.st_ino = view_ino(VK_SIMILAR, hash_str(full.buf, 1));
				sbuf_release(&full);
			} else {
				st.st_ino = view_ino(VK_SIMILAR, ents[i].file.id);
			}
			filler(buf, nm, &st, 0, 0);
		}
		idx_entries_free(ents, n);
	} else if (r.node == SN_BOOK) {
		struct listref *lr = NULL;
		char link[PATH_MAX];
		struct stat tst;

		ret = list_get(v, r.id, &lr);
		if (!ret) {
			st.st_mode = S_IFREG;
			st.st_ino = view_ino(VK_SIMILAR, r.id ^ 0x5a5a5a5a5a5a5a5au);
			filler(buf, VIEWS_LISTING, &st, 0, 0);
			/* With attributes (as sim_getattr() gives them), so the
			 * kernel needs no lookup per entry; remembered for the
			 * invalidation like looked-up entries. */
			for (i = 0; i < lr->l->n; i++) {
				const struct simlist_entry *e = &lr->l->v[i];

				if (!target_ok(v, e->path, &tst) ||
				    simlist_link(link, sizeof(link), 1 + components(rel), e->path))
					continue;
				fill_entry(v, &st, view_ino(VK_SIMILAR, hash_str(e->path, r.id)),
					   strlen(link), &tst);
				filler(buf, e->name, &st, 0, FUSE_FILL_DIR_PLUS);
				served_add(v, VK_SIMILAR, rel, e->name);
			}
			listref_put(v, lr);
		}
	} else {
		ret = -ENOTDIR;
	}
	sim_release(v, &r);
	return ret;
}

static int sim_entry_target(struct views *v, const char *rel, char *buf, size_t size,
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
		ret = entry_target(buf, size, 0, r.list->l->v[r.entry].path, f);
	sim_release(v, &r);
	return ret;
}

/* "Not a duplicate": removing an entry exempts the pair. */
static int sim_unlink(struct views *v, const char *rel)
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

/* ---- clusters/ and duplicates/ ---- */

/* Room for n names.  0 or -ENOMEM. */
static int nameset_init(struct nameset *s, size_t n)
{
	size_t cap = 16;

	while (cap < 2 * n)
		cap *= 2;
	s->slot = calloc(cap, sizeof(*s->slot));
	s->val = calloc(cap, sizeof(*s->val));
	s->mask = cap - 1;
	return s->slot && s->val ? 0 : -ENOMEM;
}

static void nameset_release(struct nameset *s)
{
	free(s->slot);
	free(s->val);
	s->slot = NULL;
	s->val = NULL;
}

/* The slot of name: where it is, or the empty slot where it belongs. */
static size_t nameset_slot(const struct nameset *s, const char *name)
{
	uint64_t h = hash_str(name, 0);
	size_t i;

	for (i = (size_t)h & s->mask; s->slot[i]; i = (i + 1) & s->mask)
		if (!strcmp(s->slot[i], name))
			break;
	return i;
}

/* The value of name in s, or SIZE_MAX. */
static size_t nameset_get(const struct nameset *s, const char *name)
{
	size_t i;

	if (!s->slot)
		return SIZE_MAX;
	i = nameset_slot(s, name);
	return s->slot[i] ? s->val[i] : SIZE_MAX;
}

/* A name not in s, added to it with value val (at most the n of
 * nameset_init() names): base itself, else "stem (k).ext".  malloc'd, or
 * NULL on -ENOMEM; the caller keeps it alive while s is used. */
static char *uniq_name(struct nameset *s, const char *base, size_t val)
{
	const char *dot = strrchr(base, '.');
	struct sbuf sb;
	char *name = NULL;
	size_t stem;
	int k;

	if (!s->slot[nameset_slot(s, base)]) {
		name = strdup(base);
	} else {
		stem = dot && dot != base ? (size_t)(dot - base) : strlen(base);
		sbuf_init(&sb);
		for (k = 2; !name; k++) {
			sbuf_setlen(&sb, 0);
			if (sbuf_add(&sb, base, stem) || sbuf_addf(&sb, " (%d)%s", k, base + stem))
				break;
			if (!s->slot[nameset_slot(s, sb.buf)])
				name = sbuf_detach(&sb, NULL);
		}
		sbuf_release(&sb);
	}
	if (name) {
		size_t i = nameset_slot(s, name);

		s->slot[i] = name;
		s->val[i] = val;
	}
	return name;
}

static void gview_free(struct gview *gs)
{
	size_t i, j;

	if (!gs)
		return;
	for (i = 0; i < gs->n; i++) {
		for (j = 0; j < gs->g[i].n; j++) {
			free(gs->g[i].m[j].name);
			free(gs->g[i].m[j].path);
		}
		free(gs->g[i].m);
		free(gs->g[i].name);
	}
	free(gs->g);
	nameset_release(&gs->names);
	free(gs);
}

static void gview_put(struct views *v, struct gview *gs)
{
	int last;

	if (!gs)
		return;
	pthread_mutex_lock(&v->lock);
	last = --gs->refs == 0;
	pthread_mutex_unlock(&v->lock);
	if (last)
		gview_free(gs);
}

/* Replaces characters a folder name cannot or should not hold. */
static void clean_name(char *s)
{
	for (; *s; s++)
		if (*s == '/' || (unsigned char)*s < 0x20)
			*s = ' ';
}

/* The folder title of a group (groups_title()), cut to fit a name. */
static int gview_title(struct views *v, const struct group *gr, struct sbuf *out)
{
	uint64_t ids[GROUPS_TITLE_MEMBERS];
	char *title = NULL;
	size_t j;
	int ret;

	for (j = 0; j < gr->n && j < GROUPS_TITLE_MEMBERS; j++)
		ids[j] = gr->m[j].id;
	ret = groups_title(v->ix, ids, j, gr->m[0].path, &title);
	if (!ret)
		ret = simlist_fit(out, title, 200);
	free(title);
	return ret;
}

/* groups_resolve() leaves out the members the views cannot link to. */
static int gview_skip(void *arg, const struct idx_file *f)
{
	return views_skip(arg, f->path);
}

/* Names the members of the resolved group rg (taking their paths) into gr:
 * the base names, made unique in the group. */
static int gview_members(struct group *gr, struct groups_group *rg)
{
	struct nameset mset = { NULL, NULL, 0 };
	size_t j;
	int ret = 0;

	gr->m = calloc(rg->n, sizeof(*gr->m));
	if (!gr->m || nameset_init(&mset, rg->n)) {
		nameset_release(&mset);
		return -ENOMEM;
	}
	for (j = 0; j < rg->n; j++) {
		const char *path = rg->m[j].path, *base = strrchr(path, '/');

		base = base ? base + 1 : path;
		gr->m[gr->n].name = uniq_name(&mset, base, gr->n);
		if (!gr->m[gr->n].name) {
			ret = -ENOMEM;
			break;
		}
		gr->m[gr->n].path = rg->m[j].path;
		gr->m[gr->n].id = rg->m[j].id;
		rg->m[j].path = NULL;
		gr->n++;
	}
	nameset_release(&mset);
	return ret;
}

static int gview_build(struct views *v, int dup, struct gview **out)
{
	struct groups_set rs = { 0, NULL };
	struct gview *gs = NULL;
	struct sbuf sb;
	size_t g;
	int ret;

	sbuf_init(&sb);
	gs = calloc(1, sizeof(*gs));
	if (!gs)
		return -ENOMEM;
	gs->generation = idx_generation(v->ix);
	gs->built_ns = monoclock_ns();
	ret = groups_resolve(v->ix, dup ? GROUPS_TEXT : GROUPS_CLUSTERS, gview_skip, v, &rs);
	if (ret)
		goto out;
	gs->g = calloc(rs.n ? rs.n : 1, sizeof(*gs->g));
	if (!gs->g || nameset_init(&gs->names, rs.n)) {
		ret = -ENOMEM;
		goto out;
	}
	for (g = 0; g < rs.n; g++) {
		struct group *gr = &gs->g[gs->n];

		/* counted before its members: freed with gs when naming fails */
		gs->n++;
		ret = gview_members(gr, &rs.g[g]);
		if (ret)
			goto out;
		sbuf_setlen(&sb, 0);
		ret = gview_title(v, gr, &sb);
		if (ret || sbuf_addf(&sb, " (%zu)", gr->n)) {
			ret = -ENOMEM;
			goto out;
		}
		clean_name(sb.buf);
		gr->name = uniq_name(&gs->names, sb.buf, g);
		if (!gr->name) {
			ret = -ENOMEM;
			goto out;
		}
	}
out:
	groups_set_release(&rs);
	sbuf_release(&sb);
	if (ret) {
		gview_free(gs);
		gs = NULL;
	} else {
		gs->refs = 1;
	}
	*out = gs;
	return ret;
}

static int gview_get(struct views *v, int dup, struct gview **out)
{
	uint64_t gen = idx_generation(v->ix);
	struct indexer_status st;
	struct gview *gs, *old;
	int ret, busy;

	/* While indexing goes on, a group view younger than a second is served
	 * as it is (every commit moves the generation); once idle, always the
	 * current one.  One build at a time per view: a reader that finds one
	 * under way (the invalidation thread's, after a change) waits for its
	 * result rather than building the same view beside it. */
	indexer_status(v->ixr, &st);
	busy = st.scanning;
	pthread_mutex_lock(&v->lock);
	for (;;) {
		gs = v->groups[dup];
		if (gs && (gs->generation == gen ||
			   (busy && monoclock_ns() - gs->built_ns < GROUPS_MIN_AGE_NS))) {
			gs->refs++;
			pthread_mutex_unlock(&v->lock);
			*out = gs;
			return 0;
		}
		if (!v->building[dup])
			break;
		pthread_cond_wait(&v->built, &v->lock);
		/* a view built meanwhile is as current as this request */
		if (v->groups[dup] && v->groups[dup]->generation > gen)
			gen = v->groups[dup]->generation;
	}
	v->building[dup] = 1;
	pthread_mutex_unlock(&v->lock);
	ret = gview_build(v, dup, &gs);
	pthread_mutex_lock(&v->lock);
	v->building[dup] = 0;
	pthread_cond_broadcast(&v->built);
	if (ret) {
		pthread_mutex_unlock(&v->lock);
		return ret;
	}
	gs->refs = 2;
	old = v->groups[dup];
	v->groups[dup] = gs;
	pthread_mutex_unlock(&v->lock);
	gview_put(v, old);
	*out = gs;
	return 0;
}

/* Finds "group" or "group/member" in gs: *g, *m (m = SIZE_MAX: the group). */
static int gview_find(const struct gview *gs, const char *rel, size_t *g, size_t *m)
{
	size_t glen = strcspn(rel, "/"), i, j;
	const char *mem = rel[glen] ? rel + glen + 1 : NULL;
	char name[NAME_MAX + 1];

	if ((mem && strchr(mem, '/')) || glen > NAME_MAX)
		return -ENOENT;
	memcpy(name, rel, glen);
	name[glen] = '\0';
	i = nameset_get(&gs->names, name);
	if (i >= gs->n)
		return -ENOENT;
	*g = i;
	*m = SIZE_MAX;
	if (!mem)
		return 0;
	for (j = 0; j < gs->g[i].n; j++)
		if (!strcmp(gs->g[i].m[j].name, mem)) {
			*m = j;
			return 0;
		}
	return -ENOENT;
}

static int grp_getattr(struct views *v, enum view_kind k, const char *rel, struct stat *st)
{
	struct gview *gs = NULL;
	char buf[PATH_MAX];
	struct stat tst;
	size_t g, m;
	int ret;

	if (!*rel) {
		fill_dir(v, st, view_ino(k, 0));
		return 0;
	}
	ret = gview_get(v, k == VK_DUPLICATES, &gs);
	if (ret)
		return ret;
	ret = gview_find(gs, rel, &g, &m);
	if (!ret && m == SIZE_MAX) {
		fill_dir(v, st, view_ino(k, hash_str(gs->g[g].name, 2)));
	} else if (!ret) {
		if (!target_ok(v, gs->g[g].m[m].path, &tst))
			ret = -ENOENT;
		else
			ret = simlist_link(buf, sizeof(buf), 2, gs->g[g].m[m].path);
		if (!ret)
			fill_entry(v, st, view_ino(k, hash_str(gs->g[g].m[m].path, 3)), strlen(buf), &tst);
	}
	gview_put(v, gs);
	return ret;
}

static int grp_readdir(struct views *v, enum view_kind k, const char *rel, void *buf,
		       fuse_fill_dir_t filler)
{
	struct gview *gs = NULL;
	struct stat st;
	size_t g, m, i;
	int ret;

	ret = gview_get(v, k == VK_DUPLICATES, &gs);
	if (ret)
		return ret;
	memset(&st, 0, sizeof(st));
	filler(buf, ".", NULL, 0, 0);
	filler(buf, "..", NULL, 0, 0);
	if (!*rel) {
		st.st_mode = S_IFDIR;
		for (i = 0; i < gs->n; i++) {
			st.st_ino = view_ino(k, hash_str(gs->g[i].name, 2));
			filler(buf, gs->g[i].name, &st, 0, 0);
		}
	} else {
		ret = gview_find(gs, rel, &g, &m);
		if (!ret && m != SIZE_MAX)
			ret = -ENOTDIR;
		st.st_mode = entry_type(v);
		for (i = 0; !ret && i < gs->g[g].n; i++) {
			if (!target_ok(v, gs->g[g].m[i].path, NULL))
				continue;
			st.st_ino = view_ino(k, hash_str(gs->g[g].m[i].path, 3));
			filler(buf, gs->g[g].m[i].name, &st, 0, 0);
		}
	}
	gview_put(v, gs);
	return ret;
}

static int grp_entry_target(struct views *v, enum view_kind k, const char *rel, char *buf,
			    size_t size, enum target_form f)
{
	struct gview *gs = NULL;
	size_t g, m;
	int ret;

	if (!*rel)
		return -EINVAL;
	ret = gview_get(v, k == VK_DUPLICATES, &gs);
	if (ret)
		return ret;
	ret = gview_find(gs, rel, &g, &m);
	if (!ret && m == SIZE_MAX)
		ret = -EINVAL;
	else if (!ret && !target_ok(v, gs->g[g].m[m].path, NULL))
		ret = -ENOENT;
	else if (!ret)
		ret = entry_target(buf, size, 2, gs->g[g].m[m].path, f);
	gview_put(v, gs);
	return ret;
}

/* ---- lookup/<id>/ ---- */

struct lk_entry {
	char *name;
	char *path;
	uint32_t dist;
};

static int lk_cmp(const void *pa, const void *pb)
{
	const struct lk_entry *a = pa, *b = pb;

	if (a->dist != b->dist)
		return a->dist < b->dist ? -1 : 1;
	return strcmp(a->path, b->path);
}

static void lk_free(struct lk_entry *e, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(e[i].name);
		free(e[i].path);
	}
	free(e);
}

/* The books within the threshold of the 32-hex-digit id, ranked and named
 * "RR dD - BASENAME" (D: differing bits). */
static int lk_list(struct views *v, const char *hex, struct lk_entry **out, size_t *nout)
{
	struct simhash_value sv;
	uint8_t sh[IDX_SH_BYTES];
	struct idx_hit *hits = NULL;
	struct lk_entry *e = NULL;
	struct idx_file f = { 0 };
	struct sbuf nm;
	size_t nh = 0, n = 0, i, digits = 2, lim = 100;
	int ret;

	*out = NULL;
	*nout = 0;
	if (strlen(hex) != 32 || simhash_parse_hex(hex, &sv))
		return -ENOENT;
	for (i = 0; i < 8; i++) {
		sh[i] = (uint8_t)(sv.hi >> (56 - 8 * i));
		sh[8 + i] = (uint8_t)(sv.lo >> (56 - 8 * i));
	}
	ret = idx_near(v->ix, sh, idx_max_d(v->ix), &hits, &nh);
	if (ret)
		return ret;
	e = calloc(nh ? nh : 1, sizeof(*e));
	if (!e) {
		free(hits);
		return -ENOMEM;
	}
	for (i = 0; i < nh; i++) {
		idx_file_release(&f);
		if (idx_get_id(v->ix, hits[i].id, &f) || views_skip(v, f.path))
			continue;
		e[n].path = f.path;
		e[n].dist = hits[i].dist;
		f.path = NULL;
		n++;
	}
	idx_file_release(&f);
	free(hits);
	qsort(e, n, sizeof(*e), lk_cmp);
	while (n >= lim) {
		digits++;
		lim *= 10;
	}
	sbuf_init(&nm);
	for (i = 0; i < n && !ret; i++) {
		const char *base = strrchr(e[i].path, '/');

		base = base ? base + 1 : e[i].path;
		sbuf_setlen(&nm, 0);
		ret = sbuf_addf(&nm, "%0*zu d%u - ", (int)digits, i + 1, e[i].dist);
		if (!ret)
			ret = simlist_fit(&nm, base, NAME_MAX - nm.len);
		if (!ret && !(e[i].name = strdup(nm.buf)))
			ret = -ENOMEM;
	}
	sbuf_release(&nm);
	if (ret) {
		lk_free(e, n);
		return ret;
	}
	*out = e;
	*nout = n;
	return 0;
}

static int lk_resolve(struct views *v, const char *rel, struct lk_entry **e, size_t *n,
		      size_t *which)
{
	char hex[33];
	size_t hl = strcspn(rel, "/"), i;
	const char *mem = rel[hl] ? rel + hl + 1 : NULL;
	int ret;

	if (hl != 32 || (mem && strchr(mem, '/')))
		return -ENOENT;
	memcpy(hex, rel, 32);
	hex[32] = '\0';
	ret = lk_list(v, hex, e, n);
	if (ret)
		return ret;
	*which = SIZE_MAX;
	if (!mem)
		return 0;
	for (i = 0; i < *n; i++)
		if (!strcmp((*e)[i].name, mem) && target_ok(v, (*e)[i].path, NULL)) {
			*which = i;
			return 0;
		}
	lk_free(*e, *n);
	*e = NULL;
	return -ENOENT;
}

static int lk_getattr(struct views *v, const char *rel, struct stat *st)
{
	struct lk_entry *e = NULL;
	size_t n = 0, w;
	char buf[PATH_MAX];
	struct stat tst;
	int ret;

	if (!*rel) {
		fill_dir(v, st, view_ino(VK_LOOKUP, 0));
		return 0;
	}
	ret = lk_resolve(v, rel, &e, &n, &w);
	if (ret)
		return ret;
	if (w == SIZE_MAX) {
		fill_dir(v, st, view_ino(VK_LOOKUP, hash_str(rel, 4)));
	} else {
		ret = simlist_link(buf, sizeof(buf), 2, e[w].path);
		if (!ret && !target_ok(v, e[w].path, &tst))
			ret = -ENOENT;
		if (!ret)
			fill_entry(v, st, view_ino(VK_LOOKUP, hash_str(rel, 5)), strlen(buf), &tst);
	}
	lk_free(e, n);
	return ret;
}

static int lk_readdir(struct views *v, const char *rel, void *buf, fuse_fill_dir_t filler)
{
	struct lk_entry *e = NULL;
	size_t n = 0, w, i;
	struct stat st;
	int ret = 0;

	filler(buf, ".", NULL, 0, 0);
	filler(buf, "..", NULL, 0, 0);
	if (!*rel)
		return 0;	/* any id can be looked up; none is listed */
	ret = lk_resolve(v, rel, &e, &n, &w);
	if (ret)
		return ret;
	if (w != SIZE_MAX)
		ret = -ENOTDIR;
	memset(&st, 0, sizeof(st));
	st.st_mode = entry_type(v);
	for (i = 0; !ret && i < n; i++) {
		char key[NAME_MAX + 40];

		if (!target_ok(v, e[i].path, NULL))
			continue;
		snprintf(key, sizeof(key), "%.32s/%s", rel, e[i].name);
		st.st_ino = view_ino(VK_LOOKUP, hash_str(key, 5));
		filler(buf, e[i].name, &st, 0, 0);
	}
	lk_free(e, n);
	return ret;
}

static int lk_entry_target(struct views *v, const char *rel, char *buf, size_t size,
			   enum target_form f)
{
	struct lk_entry *e = NULL;
	size_t n = 0, w;
	int ret;

	if (!*rel)
		return -EINVAL;
	ret = lk_resolve(v, rel, &e, &n, &w);
	if (ret)
		return ret;
	ret = w == SIZE_MAX ? -EINVAL : entry_target(buf, size, 2, e[w].path, f);
	lk_free(e, n);
	return ret;
}

/* ---- .simbookfs/ ---- */

/* The "index" member of the status: how the open went or how far it is. */
static int meta_open(const struct opener_info *oi, struct sbuf *out)
{
	int ret;

	ret = sbuf_addf(out, "\"index\":{\"state\":\"%s\",\"done\":%llu,\"total\":%llu,"
			"\"seconds\":%.3f", opener_state_name(oi->state),
			(unsigned long long)oi->done, (unsigned long long)oi->total, oi->seconds);
	if (!ret && oi->state == OPENER_FAILED)
		ret = sbuf_addf(out, ",\"error\":\"%s\"", idx_strerror(oi->error));
	return ret ? ret : sbuf_addstr(out, "}");
}

/* While the index is not open: its state, the counts zero. */
static int meta_status_closed(struct views *v, struct sbuf *out)
{
	struct opener_info oi = { .state = OPENER_OPENING };
	int ret;

	if (v->op)
		opener_info(v->op, &oi);
	ret = sbuf_addf(out, "{\"state\":\"%s\",\"books\":0,\"files\":0,\"queued\":0,"
			"\"failed\":0,\"not_books\":0,\"indexed_since_mount\":0,",
			opener_state_name(oi.state));
	if (!ret)
		ret = meta_open(&oi, out);
	return ret ? ret : sbuf_addstr(out, "}\n");
}

static int meta_status(struct views *v, struct sbuf *out)
{
	static const char *const rebuilt[] = { "no", "kept", "lost" };
	struct opener_info oi = { .state = OPENER_OPEN };
	struct indexer_status st;
	uint64_t kept_files, kept_marks;
	int how, ret;

	if (!views_open(v))
		return meta_status_closed(v, out);
	/* open, but the scan or the watch could not start */
	if (v->op)
		opener_info(v->op, &oi);
	how = idx_rebuilt(v->ix);
	indexer_status(v->ixr, &st);
	idx_rebuild_kept(v->ix, &kept_files, &kept_marks);
	ret = sbuf_addf(out,
			"{\"state\":\"%s\",\"books\":%llu,\"files\":%llu,\"queued\":%llu,"
			"\"failed\":%llu,\"not_books\":%llu,\"indexed_since_mount\":%llu,"
			"\"generation\":%llu,\"scan\":{\"running\":%s,\"runs\":%llu,"
			"\"files_seen\":%llu,\"files_queued\":%llu,\"removed\":%llu,"
			"\"renamed\":%llu,\"seconds\":%.3f},\"watch\":\"%s\",\"judging\":%s,"
			"\"rebuilt\":{\"how\":\"%s\",\"kept_files\":%llu,\"kept_marks\":%llu},",
			oi.state == OPENER_FAILED ? "failed" : st.scanning ? "scanning" : "idle",
			(unsigned long long)st.books,
			(unsigned long long)st.files, (unsigned long long)st.queued,
			(unsigned long long)st.failed, (unsigned long long)st.not_books,
			(unsigned long long)st.indexed, (unsigned long long)st.generation,
			st.scan_running ? "true" : "false", (unsigned long long)st.scan_runs,
			(unsigned long long)st.scan_files, (unsigned long long)st.scan_queued,
			(unsigned long long)st.scan_removed, (unsigned long long)st.scan_renamed,
			st.scan_seconds,
			!st.watching ? "off" : st.watch_incomplete ? "incomplete" : "on",
			st.judging ? "true" : "false",
			how >= 0 && how <= 2 ? rebuilt[how] : "no", (unsigned long long)kept_files,
			(unsigned long long)kept_marks);
	if (!ret)
		ret = meta_open(&oi, out);
	return ret ? ret : sbuf_addstr(out, "}\n");
}

/* One line per file that could not be indexed: path TAB reason. */
static int meta_errors(struct views *v, struct sbuf *out)
{
	struct idx_file *f = NULL;
	size_t n = 0, i;
	int ret = views_open(v) ? idx_errors(v->ix, &f, &n) : 0;

	for (i = 0; i < n && !ret; i++) {
		ret = simlist_escape(out, f[i].path);
		if (!ret)
			ret = sbuf_addch(out, '\t');
		if (!ret)
			ret = simlist_escape(out, f[i].error ? f[i].error : "unknown error");
		if (!ret)
			ret = sbuf_addch(out, '\n');
	}
	idx_files_free(f, n);
	return ret;
}

/* The files of .simbookfs/, in listing order; a file's index is its
 * slot in meta_stamp. */
static const char *const meta_names[] = { "status", "errors", "not-duplicates" };

static int meta_content(struct views *v, const char *rel, struct sbuf *out)
{
	if (!strcmp(rel, meta_names[0]))
		return meta_status(v, out);
	if (!strcmp(rel, meta_names[1]))
		return meta_errors(v, out);
	if (!strcmp(rel, meta_names[2]))
		return views_open(v) ? simlist_exemptions_tsv(v->ix, out) : 0;
	return -ENOENT;
}

/* The control file: write-only, one command per write(), not listed
 * (docs/VIEWS.md). */
#define META_CONTROL "control"
#define CONTROL_MAX 32768	/* longest command: two escaped IDX_PATH_MAX paths fit */

/* Applies the command in buf (size bytes, one line, the newline optional):
 * "not-duplicate TAB A TAB B" or "undo-not-duplicate TAB A TAB B", A and B
 * relative to the mount root, escaped as in not-duplicates.  0, -EINVAL
 * (not such a command, the same book twice), -ENOENT (a book the index
 * does not know), -EAGAIN (the index is not open yet), or -errno of the
 * index. */
static int views_control(struct views *v, const char *buf, size_t size)
{
	char *cmd = NULL, *a, *b;
	int ret = -EINVAL, on;

	if (size && buf[size - 1] == '\n')
		size--;
	if (!size || size > CONTROL_MAX || memchr(buf, '\n', size) || memchr(buf, '\0', size))
		return -EINVAL;
	cmd = strndup(buf, size);
	if (!cmd)
		return -ENOMEM;
	a = strchr(cmd, '\t');
	b = a ? strchr(a + 1, '\t') : NULL;
	if (!b || strchr(b + 1, '\t'))
		goto out;
	*a++ = '\0';
	*b++ = '\0';
	if (!strcmp(cmd, "not-duplicate"))
		on = 1;
	else if (!strcmp(cmd, "undo-not-duplicate"))
		on = 0;
	else
		goto out;
	ret = simlist_unescape(a);
	if (!ret)
		ret = simlist_unescape(b);
	if (!ret && !views_open(v))
		ret = -EAGAIN;
	if (!ret)
		ret = idx_exempt_set(v->ix, a, b, on);
	if (!ret)
		views_changed(v);
out:
	free(cmd);
	return ret;
}

static int meta_slot(const char *rel)
{
	int i;

	for (i = 0; i < (int)(sizeof(meta_names) / sizeof(meta_names[0])); i++)
		if (!strcmp(rel, meta_names[i]))
			return i;
	return -1;
}

/* ---- dispatch ---- */

static int v_getattr(void *arg, const char *rel, struct stat *st)
{
	struct view_node *nd = arg;
	struct views *v = nd->v;
	struct sbuf sb;
	int ret;

	if (nd->kind != VK_META && !views_open(v)) {
		if (*rel)
			return -ENOENT;
		fill_dir(v, st, view_ino(nd->kind, nd->kind == VK_SIMILAR ? hash_str("", 1) : 0));
		return 0;
	}
	switch (nd->kind) {
	case VK_SIMILAR:
		ret = sim_getattr(v, rel, st);
		break;
	case VK_CLUSTERS:
	case VK_DUPLICATES:
		ret = grp_getattr(v, nd->kind, rel, st);
		break;
	case VK_LOOKUP:
		ret = lk_getattr(v, rel, st);
		break;
	default:
		if (!*rel) {
			fill_dir(v, st, view_ino(VK_META, 0));
			return 0;
		}
		if (!strcmp(rel, META_CONTROL)) {
			fill_file(st, view_ino(VK_META, hash_str(rel, 6)), 0, file_time(v, -1, NULL));
			st->st_mode = S_IFREG | 0200;
			return 0;
		}
		/* Counted as served: the kernel keeps the size it is given,
		 * and cmp or rsync trust it; it must go when the index moves. */
		sbuf_init(&sb);
		ret = meta_content(v, rel, &sb);
		if (!ret)
			fill_file(st, view_ino(VK_META, hash_str(rel, 6)), sb.len,
				  file_time(v, meta_slot(rel), &sb));
		sbuf_release(&sb);
		break;
	}
	if (!ret && *rel)
		served_add(v, nd->kind, rel, NULL);
	return ret;
}

static int v_readdir(void *arg, const char *rel, void *buf, fuse_fill_dir_t filler)
{
	struct view_node *nd = arg;
	size_t i;

	if (nd->kind != VK_META && !views_open(nd->v)) {
		if (*rel)
			return -ENOENT;
		filler(buf, ".", NULL, 0, 0);
		filler(buf, "..", NULL, 0, 0);
		return 0;
	}
	switch (nd->kind) {
	case VK_SIMILAR:
		return sim_readdir(nd->v, rel, buf, filler);
	case VK_CLUSTERS:
	case VK_DUPLICATES:
		return grp_readdir(nd->v, nd->kind, rel, buf, filler);
	case VK_LOOKUP:
		return lk_readdir(nd->v, rel, buf, filler);
	default:
		if (*rel)
			return -ENOTDIR;
		filler(buf, ".", NULL, 0, 0);
		filler(buf, "..", NULL, 0, 0);
		/* not META_CONTROL: a backup or a search of the whole mount
		 * would fail to read it */
		for (i = 0; i < sizeof(meta_names) / sizeof(meta_names[0]); i++)
			filler(buf, meta_names[i], NULL, 0, 0);
		return 0;
	}
}

/* An entry's target in form f: entries are links (TF_LINK) in links mode
 * and files served from their book (TF_SOURCE) in real-file mode. */
static int v_target(struct view_node *nd, const char *rel, char *buf, size_t size,
		    enum target_form f)
{
	if (nd->v->files != (f == TF_SOURCE))
		return -EINVAL;
	if (!views_open(nd->v))
		return -ENOENT;
	switch (nd->kind) {
	case VK_SIMILAR:
		return sim_entry_target(nd->v, rel, buf, size, f);
	case VK_CLUSTERS:
	case VK_DUPLICATES:
		return grp_entry_target(nd->v, nd->kind, rel, buf, size, f);
	case VK_LOOKUP:
		return lk_entry_target(nd->v, rel, buf, size, f);
	default:
		return -EINVAL;
	}
}

static int v_readlink(void *arg, const char *rel, char *buf, size_t size)
{
	return v_target(arg, rel, buf, size, TF_LINK);
}

/* Real-file mode: the book an entry stands for (fsops opens it). */
static int v_source(void *arg, const char *rel, char *buf, size_t size)
{
	return v_target(arg, rel, buf, size, TF_SOURCE);
}

/* Regular view files (listings, status) are generated whole at open, so a
 * reader sees one consistent snapshot; direct I/O because the size can
 * change between getattr and open. */
struct vfile {
	char *data;
	size_t len;
};

static int v_open(void *arg, const char *rel, struct fuse_file_info *fi)
{
	struct view_node *nd = arg;
	struct views *v = nd->v;
	struct vfile *vf = NULL;
	struct sbuf sb;
	struct sim_res r;
	int ret;

	if (nd->kind == VK_META && !strcmp(rel, META_CONTROL)) {
		if ((fi->flags & O_ACCMODE) != O_WRONLY)
			return -EACCES;
		/* every write() reaches v_write() as it was made */
		fi->direct_io = 1;
		fi->fh = 0;
		return 0;
	}
	if ((fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & O_TRUNC))
		return -EROFS;
	sbuf_init(&sb);
	if (nd->kind == VK_META) {
		ret = meta_content(v, rel, &sb);
	} else if (!views_open(v)) {
		ret = -ENOENT;
	} else if (nd->kind == VK_SIMILAR) {
		ret = sim_resolve(v, rel, &r);
		if (!ret) {
			ret = r.node == SN_LISTING ? sim_listing(v, r.list->l, &sb) : -EACCES;
			sim_release(v, &r);
		}
	} else {
		ret = -EACCES;
	}
	if (ret)
		goto out;
	vf = malloc(sizeof(*vf));
	if (!vf) {
		ret = -ENOMEM;
		goto out;
	}
	vf->data = sbuf_detach(&sb, &vf->len);
	if (!vf->data) {
		free(vf);
		ret = -ENOMEM;
		goto out;
	}
	fi->fh = (uintptr_t)vf;
	fi->direct_io = 1;
out:
	sbuf_release(&sb);
	return ret;
}

static int v_read(void *arg, const char *rel, char *buf, size_t size, off_t off,
		  struct fuse_file_info *fi)
{
	struct vfile *vf = (struct vfile *)(uintptr_t)fi->fh;

	(void)arg;
	(void)rel;
	if (off < 0)
		return -EINVAL;
	if ((size_t)off >= vf->len)
		return 0;
	if (size > vf->len - (size_t)off)
		size = vf->len - (size_t)off;
	if (size > INT_MAX)
		size = INT_MAX;
	memcpy(buf, vf->data + off, size);
	return (int)size;
}

static void v_release(void *arg, const char *rel, struct fuse_file_info *fi)
{
	struct vfile *vf = (struct vfile *)(uintptr_t)fi->fh;

	(void)arg;
	(void)rel;
	if (vf) {
		free(vf->data);
		free(vf);
	}
}

static int v_write(void *arg, const char *rel, const char *buf, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	struct view_node *nd = arg;
	int ret;

	(void)off;
	(void)fi;
	if (nd->kind != VK_META || strcmp(rel, META_CONTROL))
		return -EBADF;
	if (size > INT_MAX)
		return -EINVAL;
	ret = views_control(nd->v, buf, size);
	return ret ? ret : (int)size;
}

static int v_unlink(void *arg, const char *rel)
{
	struct view_node *nd = arg;

	if (nd->kind != VK_SIMILAR)
		return -EROFS;
	return views_open(nd->v) ? sim_unlink(nd->v, rel) : -ENOENT;
}

static const struct fs_view_ops view_ops = {
	.getattr = v_getattr,
	.readdir = v_readdir,
	.readlink = v_readlink,
	.open = v_open,
	.read = v_read,
	.release = v_release,
	.unlink = v_unlink,
	.source = v_source,
	.write = v_write,
};

/* ---- xattr ---- */

static int x_id(struct views *v, const char *path, char hex[33])
{
	struct idx_file f = { 0 };
	int ret, i;

	if (!views_open(v))
		return -ENODATA;
	ret = idx_get(v->ix, path, &f);
	if (!ret && (!f.has_fp || f.state != IDX_INDEXED))
		ret = -ENODATA;
	if (!ret)
		for (i = 0; i < IDX_SH_BYTES; i++)
			snprintf(hex + 2 * i, 3, "%02x", f.simhash[i]);
	idx_file_release(&f);
	return ret == -ENOENT || ret == -EINVAL ? -ENODATA : ret;
}

static int x_get(void *arg, const char *path, const char *name, char *value, size_t size)
{
	char hex[33];
	int ret;

	if (strcmp(name, VIEWS_XATTR))
		return -ENODATA;
	ret = x_id(arg, path, hex);
	if (ret)
		return ret;
	if (!size)
		return 32;
	if (size < 32)
		return -ERANGE;
	memcpy(value, hex, 32);
	return 32;
}

static int x_list(void *arg, const char *path, char *list, size_t size)
{
	char hex[33];

	if (x_id(arg, path, hex))
		return 0;
	if (!size)
		return (int)sizeof(VIEWS_XATTR);
	if (size < sizeof(VIEWS_XATTR))
		return -ERANGE;
	memcpy(list, VIEWS_XATTR, sizeof(VIEWS_XATTR));
	return (int)sizeof(VIEWS_XATTR);
}

static const struct fs_xattr_ops xattr_ops = { .get = x_get, .list = x_list };

/* ---- invalidation thread ---- */

void views_changed(void *arg)
{
	struct views *v = arg;

	pthread_mutex_lock(&v->lock);
	v->dirty = 1;
	pthread_cond_signal(&v->cond);
	pthread_mutex_unlock(&v->lock);
}

/* Once the index is idle, builds the group views here rather than in the
 * next `ls clusters/` (a build reads every member's entry and titles). */
static void views_prebuild(struct views *v)
{
	struct indexer_status st;
	struct gview *gs = NULL;
	int dup;

	if (!views_open(v))
		return;
	indexer_status(v->ixr, &st);
	if (st.scanning)
		return;
	for (dup = 0; dup < 2; dup++)
		if (gview_get(v, dup, &gs) == 0)
			gview_put(v, gs);
}

static void *views_thread(void *arg)
{
	struct views *v = arg;
	uint64_t last_gen = views_open(v) ? idx_generation(v->ix) : 0, gen;
	struct timespec ts;
	char **paths;
	size_t n, i, k;
	char top[NAME_MAX + 2];

	pthread_mutex_lock(&v->lock);
	while (!v->stop) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += 1;
		while (!v->stop && !v->dirty &&
		       pthread_cond_timedwait(&v->cond, &v->lock, &ts) != ETIMEDOUT)
			;
		if (v->stop)
			break;
		v->dirty = 0;
		pthread_mutex_unlock(&v->lock);
		/* Let a burst of changes settle into one invalidation. */
		nanosleep(&(struct timespec){ 0, 5000000 }, NULL);
		gen = views_open(v) ? idx_generation(v->ix) : 0;
		snprintf(top, sizeof(top), "/%s/status", v->names[VK_META]);
		fuse_invalidate_path(v->fuse, top);
		pthread_mutex_lock(&v->lock);
		if (gen == last_gen)
			continue;
		last_gen = gen;
		paths = v->served;
		n = v->nserved;
		v->served = calloc(SERVED_MAX, sizeof(*v->served));
		v->nserved = 0;
		if (!v->served) {	/* keep the old set: it is invalidated again */
			v->served = paths;
			v->nserved = n;
			paths = NULL;
		} else {
			memset(v->seen, 0, SEEN_SLOTS * sizeof(*v->seen));
		}
		pthread_mutex_unlock(&v->lock);
		for (k = 0; k < VK_N; k++) {
			snprintf(top, sizeof(top), "/%s", v->names[k]);
			fuse_invalidate_path(v->fuse, top);
		}
		for (i = 0; paths && i < n; i++) {
			fuse_invalidate_path(v->fuse, paths[i]);
			free(paths[i]);
		}
		free(paths);
		views_prebuild(v);
		pthread_mutex_lock(&v->lock);
	}
	pthread_mutex_unlock(&v->lock);
	return NULL;
}

/* ---- lifecycle ---- */

int views_new(struct views **out, int rootfd, const char *prefix, const char *hidden)
{
	struct views *v = NULL;
	pthread_condattr_t ca;
	size_t k;

	*out = NULL;
	if (strchr(prefix, '/'))
		return -EINVAL;
	v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	v->serial = atomic_fetch_add(&views_serials, 1) + 1;	/* 0: the empty cache */
	v->rootfd = rootfd;
	v->hidden = hidden;
	v->prefix = strdup(prefix);
	v->served = calloc(SERVED_MAX, sizeof(*v->served));
	v->seen = calloc(SEEN_SLOTS, sizeof(*v->seen));
	v->pairs = judge_cache_new(0);
	if (!v->prefix || !v->served || !v->seen || !v->pairs)
		goto nomem;
	for (k = 0; k < VK_N; k++) {
		size_t len = strlen(prefix) + strlen(view_base[k]) + 1;

		v->names[k] = malloc(len);
		if (!v->names[k])
			goto nomem;
		snprintf(v->names[k], len, "%s%s", prefix, view_base[k]);
		v->nodes[k] = (struct view_node){ v, (enum view_kind)k };
	}
	pthread_mutex_init(&v->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&v->cond, &ca);
	pthread_condattr_destroy(&ca);
	pthread_cond_init(&v->built, NULL);
	*out = v;
	return 0;
nomem:
	for (k = 0; k < VK_N; k++)
		free(v->names[k]);
	judge_cache_free(v->pairs);
	free(v->served);
	free(v->seen);
	free(v->prefix);
	free(v);
	return -ENOMEM;
}

void views_set_files(struct views *v, int on)
{
	v->files = on;
}

void views_attach(struct views *v, struct opener *op)
{
	v->op = op;
}

int views_register(struct views *v, struct fs *fs)
{
	size_t k;
	int ret;

	for (k = 0; k < VK_N; k++) {
		ret = fs_add_view(fs, v->names[k], &view_ops, &v->nodes[k]);
		if (ret)
			return ret;
	}
	fs_set_xattr_hook(fs, &xattr_ops, v);
	return 0;
}

int views_start(struct views *v, struct fuse *f)
{
	int ret;

	v->fuse = f;
	ret = -pthread_create(&v->thread, NULL, views_thread, v);
	v->has_thread = !ret;
	return ret;
}

void views_stop(struct views *v)
{
	if (!v || !v->has_thread)
		return;
	pthread_mutex_lock(&v->lock);
	v->stop = 1;
	pthread_cond_signal(&v->cond);
	pthread_mutex_unlock(&v->lock);
	pthread_join(v->thread, NULL);
	v->has_thread = 0;
}

void views_free(struct views *v)
{
	size_t i;

	if (!v)
		return;
	views_stop(v);
	for (i = 0; i < LIST_SLOTS; i++)
		if (v->slots[i]) {
			simlist_free(v->slots[i]->l);
			free(v->slots[i]);
		}
	gview_free(v->groups[0]);
	gview_free(v->groups[1]);
	for (i = 0; i < v->nserved; i++)
		free(v->served[i]);
	free(v->served);
	free(v->seen);
	for (i = 0; i < VK_N; i++)
		free(v->names[i]);
	judge_cache_free(v->pairs);
	pthread_cond_destroy(&v->cond);
	pthread_cond_destroy(&v->built);
	pthread_mutex_destroy(&v->lock);
	free(v->prefix);
	free(v);
}
