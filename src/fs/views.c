/* views.c - similar/, clusters/, duplicates/, lookup/ and .simbookfs/ (see
 * views.h): the instance, the helpers every view uses, the dispatch of the
 * filesystem operations to the view files (view_*.c) and the xattr.
 *
 * Per-entry cost: a similar/<book>/ listing hands each entry to the kernel
 * with its attributes (readdirplus), so a file manager's lstat() of an
 * entry needs no lookup; lookup, getattr and readlink of an entry are
 * answered from memory (the book of the folder remembered per thread under
 * the index generation, the cached list) plus one fstatat() that checks
 * the target exists; lists are read again only when the index generation
 * moved (the relations stored at indexing time, simlist_get(); the pair
 * cache of judge.h serves the books not judged yet).  Group views are
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

#include "judge.h"
#include "skipped.h"
#include "views_i.h"

static const char *const view_base[VK_N] = {
	"similar", "clusters", "duplicates", "lookup", ".simbookfs",
};

static _Atomic uint64_t views_serials;	/* instances made so far */

/* How long a folder's mode and owner are trusted (fsacc.h); the
 * invalidation thread also re-reads them every second. */
#define VIEWS_ACC_TTL_NS 1000000000LL

/* 1 once the index is open (v->ixr and v->ix set from then on), 0 while it
 * opens, upgrades or rebuilds, or after it failed, or while a shared
 * index's server is out of reach: the views then show their top folders
 * empty (docs/VIEWS.md), never a list the index could not finish. */
int views_open(struct views *v)
{
	struct indexer *ixr;

	if (v->ix)
		return !idx_health(v->ix, NULL, 0, NULL);
	ixr = v->op ? opener_indexer(v->op) : NULL;
	if (!ixr)
		return 0;
	v->ixr = ixr;
	v->ix = indexer_idx(ixr);
	return !idx_health(v->ix, NULL, 0, NULL);
}

/* ---- helpers ---- */

uint64_t views_hash_more(uint64_t h, const char *s)
{
	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3u;
	return h;
}

uint64_t views_hash(const char *s, uint64_t seed)
{
	uint64_t h = views_hash_more(0xcbf29ce484222325u ^ seed, s);

	return h ^ h >> 31;
}

/* Inode numbers of view nodes: the top bit set (away from most real
 * filesystems' numbers), the kind in the next 7 bits, a stable hash. */
ino_t views_ino(enum view_kind k, uint64_t h)
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
void views_fill_entry(const struct views *v, struct stat *st, ino_t ino, size_t linklen,
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
mode_t views_entry_type(const struct views *v)
{
	return v->files ? S_IFREG : S_IFLNK;
}

/* The target path (relative to SRC) of an entry depth folders below the
 * mount's root, in form f, into buf. */
int views_entry_target(char *buf, size_t size, int depth, const char *path,
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

void views_fill_file(struct stat *st, ino_t ino, size_t size, struct timespec mtime)
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
struct timespec views_file_time(struct views *v, int slot, const struct sbuf *content)
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
		h = views_hash(content->buf, 8);
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
void views_fill_dir(struct views *v, struct stat *st, ino_t ino)
{
	memset(st, 0, sizeof(*st));
	st->st_mode = S_IFDIR | 0555;
	st->st_nlink = 2;
	st->st_ino = ino;
	st->st_uid = getuid();
	st->st_gid = getgid();
	st->st_mtim = views_file_time(v, -1, NULL);
	st->st_ctim = st->st_mtim;
	st->st_atim = st->st_mtim;
}

/* The target exists as a regular file in SRC (*st filled) and the caller
 * may reach it. */
int views_target_ok(struct views *v, const char *path, struct stat *st)
{
	struct stat tmp;

	if (!st)
		st = &tmp;
	return fstatat(v->rootfd, path, st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st->st_mode) &&
	       views_reach(v, path);
}

/* Set when an answer depended on the caller (views_private_take()). */
static _Thread_local int private_seen;

int views_who(struct fsacc_who *who)
{
	struct fuse_context *ctx = fuse_get_context();

	if (ctx && ctx->fuse) {
		*who = (struct fsacc_who){ ctx->uid, ctx->gid, ctx->pid };
	} else {
		*who = (struct fsacc_who){ geteuid(), getegid(), 0 };
	}
	return who->uid == 0;
}

/* Books every caller may reach need no caller (the common case, and the
 * same answer for all); the others are remembered as private answers. */
int views_reach(struct views *v, const char *path)
{
	struct fsacc_who who;

	if (fsacc_public(v->acc, path))
		return 1;
	private_seen = 1;
	/* no request outside a mount: the daemon asks for itself */
	if (!v->fuse)
		return 1;
	return views_who(&who) || fsacc_reach(v->acc, &who, path);
}

void views_shield(struct views *v, const char *guard, const char *const *paths, size_t n)
{
	size_t i;

	if (!private_seen || !v->shared || !v->has_thread || views_acc_unsettled(v))
		return;
	for (i = 0; i < n; i++)
		if (!fsacc_covers(v->acc, guard, paths[i]))
			return;
	private_seen = 0;
}

int views_acc_unsettled(struct views *v)
{
	uint64_t seen;

	pthread_mutex_lock(&v->lock);
	seen = v->acc_seen;
	pthread_mutex_unlock(&v->lock);
	return fsacc_changes(v->acc) != seen;
}

int views_private_take(void)
{
	int seen = private_seen;

	private_seen = 0;
	return seen;
}

/* 1 when path's top-level name is not visible in the mount (a view name or
 * the hidden index folder): the views cannot link to it. */
int views_skip(void *arg, const char *path)
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

int views_components(const char *rel)
{
	int n = 1;

	for (; *rel; rel++)
		n += *rel == '/';
	return n;
}

/* ---- dispatch ---- */

static int v_getattr(void *arg, const char *rel, struct stat *st)
{
	struct view_node *nd = arg;
	struct views *v = nd->v;
	struct sbuf sb;
	int ret;

	views_private_take();
	if (nd->kind != VK_META && !views_open(v)) {
		if (*rel)
			return -ENOENT;
		views_fill_dir(v, st, views_ino(nd->kind, nd->kind == VK_SIMILAR ? views_hash("", 1) : 0));
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
			views_fill_dir(v, st, views_ino(VK_META, 0));
			return 0;
		}
		if (!strcmp(rel, META_CONTROL)) {
			views_fill_file(st, views_ino(VK_META, views_hash(rel, 6)), 0, views_file_time(v, -1, NULL));
			st->st_mode = S_IFREG | 0200;
			return 0;
		}
		/* Counted as served: the kernel keeps the size it is given,
		 * and cmp or rsync trust it; it must go when the index moves.
		 * The content measured is the one the next open serves. */
		if (snap_current(v, VK_META, rel, st)) {
			ret = 0;
			break;
		}
		sbuf_init(&sb);
		ret = meta_content(v, rel, &sb);
		if (!ret) {
			views_fill_file(st, views_ino(VK_META, views_hash(rel, 6)), sb.len,
				  views_file_time(v, meta_slot(rel), &sb));
			snap_offer(v, VK_META, rel, &sb, st);
		}
		sbuf_release(&sb);
		break;
	}
	if (!ret && *rel)
		views_served_add(v, nd->kind, rel, NULL);
	if (!ret && *rel && views_private_take())
		views_private_add(v, nd->kind, rel, NULL);
	return ret;
}

static int v_readdir(void *arg, const char *rel, void *buf, fuse_fill_dir_t filler)
{
	struct view_node *nd = arg;

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
		meta_list(buf, filler);
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

/* Regular view files (listings, status) are served from the snapshot
 * their getattr measured (view_snap.c; fsops asks for the attributes just
 * before the open), so a reader sees the content and size stat gave it;
 * direct I/O because a later open may see another. */
static int v_open(void *arg, const char *rel, struct fuse_file_info *fi)
{
	struct view_node *nd = arg;
	struct views *v = nd->v;
	struct vsnap *s;
	struct sbuf sb;
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
	if (nd->kind != VK_META && !views_open(v))
		return -ENOENT;
	if (nd->kind != VK_META && nd->kind != VK_SIMILAR)
		return -EACCES;
	s = snap_open(v, nd->kind, rel);
	if (!s) {	/* not kept (another file's snapshot is open in its slot) */
		sbuf_init(&sb);
		ret = nd->kind == VK_META ? meta_content(v, rel, &sb) : sim_open(v, rel, &sb);
		s = ret ? NULL : snap_private(&sb);
		sbuf_release(&sb);
		if (ret)
			return ret;
		if (!s)
			return -ENOMEM;
	}
	fi->fh = (uintptr_t)s;
	fi->direct_io = 1;
	return 0;
}

static int v_read(void *arg, const char *rel, char *buf, size_t size, off_t off,
		  struct fuse_file_info *fi)
{
	size_t len;
	const char *data = snap_data((struct vsnap *)(uintptr_t)fi->fh, &len);

	(void)arg;
	(void)rel;
	if (off < 0)
		return -EINVAL;
	if ((size_t)off >= len)
		return 0;
	if (size > len - (size_t)off)
		size = len - (size_t)off;
	if (size > INT_MAX)
		size = INT_MAX;
	memcpy(buf, data + off, size);
	return (int)size;
}

static void v_release(void *arg, const char *rel, struct fuse_file_info *fi)
{
	struct view_node *nd = arg;

	(void)rel;
	if (fi->fh)
		snap_close(nd->v, (struct vsnap *)(uintptr_t)fi->fh);
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
	ret = meta_control(nd->v, buf, size);
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
	v->priv = calloc(PRIV_MAX, sizeof(*v->priv));
	v->skipped = skipped_cache_new();
	if (!v->prefix || !v->served || !v->seen || !v->pairs || !v->priv || !v->skipped ||
	    fsacc_new(&v->acc, rootfd, VIEWS_ACC_TTL_NS))
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
	pthread_mutex_init(&v->snap_lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&v->cond, &ca);
	pthread_condattr_destroy(&ca);
	pthread_cond_init(&v->built, NULL);
	pthread_cond_init(&v->perm_cond, NULL);
	*out = v;
	return 0;
nomem:
	for (k = 0; k < VK_N; k++)
		free(v->names[k]);
	judge_cache_free(v->pairs);
	skipped_cache_free(v->skipped);
	fsacc_free(v->acc);
	free(v->priv);
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

void views_set_shared(struct views *v, int on)
{
	v->shared = on;
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

void views_set_library(struct views *v, const char *src, const char *index)
{
	v->src = src;
	v->index = index;
}

void views_set_journal(struct views *v, struct ijr *jr)
{
	if (v)
		v->jr = jr;
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
	grp_callers_free(v);
	grp_free(v->groups[0]);
	grp_free(v->groups[1]);
	for (i = 0; i < v->npriv; i++)
		free(v->priv[i]);
	free(v->priv);
	fsacc_free(v->acc);
	snap_free_all(v);
	pthread_mutex_destroy(&v->snap_lock);
	for (i = 0; i < v->nserved; i++)
		free(v->served[i]);
	free(v->served);
	free(v->seen);
	for (i = 0; i < VK_N; i++)
		free(v->names[i]);
	judge_cache_free(v->pairs);
	skipped_cache_free(v->skipped);
	pthread_cond_destroy(&v->cond);
	pthread_cond_destroy(&v->built);
	pthread_cond_destroy(&v->perm_cond);
	pthread_mutex_destroy(&v->lock);
	free(v->prefix);
	free(v);
}
