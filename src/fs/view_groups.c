/* view_groups.c - clusters/ and duplicates/: the groups of groups.h as
 * folders "Title (N)", each holding its members under unique names;
 * built at most once a second while the index changes. */
#include "views_i.h"
#include "judge.h"

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

#include "groups.h"
#include "monoclock.h"

#define GROUPS_MIN_AGE_NS 1000000000LL

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

/* A group view as one caller (not root) sees it: a group with fewer than
 * two members the caller may reach is not shown; one with hidden members
 * is named from the members the caller may reach only, and counts them
 * (its title could come from a book the caller may not know of).  Kept
 * per uid and gid for a second, for the same gview. */
struct gcaller {
	int refs;
	uid_t uid;
	gid_t gid;
	int64_t built_ns;
	struct gview *gs;	/* a reference */
	char **name;		/* per group of gs: NULL (hidden), its own name or owned */
	struct nameset names;	/* shown name -> index in gs->g */
};

#define GCALLER_TTL_NS 1000000000LL

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
	uint64_t h = views_hash(name, 0);
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

void grp_free(struct gview *gs)
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
		grp_free(gs);
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
 * the base names, made unique in the group; in duplicates/ (dup) each
 * after the first shows its relation to the first, "identical file - NAME"
 * or "same text - NAME", so a byte copy and a same-text file in another
 * format look different. */
static int gview_members(struct views *v, int dup, struct group *gr, struct groups_group *rg)
{
	struct nameset mset = { NULL, NULL, 0 };
	enum relate_class cls;
	struct sbuf nm;
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
		sbuf_init(&nm);
		/* the name kept within NAME_MAX, its extension kept */
		if (dup && j && judge_relation(v->ix, v->pairs, rg->m[0].id, rg->m[j].id, &cls) == 0 &&
		    sbuf_addf(&nm, "%s - ", simlist_label(cls)) == 0 &&
		    simlist_fit(&nm, base, NAME_MAX - nm.len) == 0)
			base = nm.buf;
		gr->m[gr->n].name = uniq_name(&mset, base, gr->n);
		sbuf_release(&nm);
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
		ret = gview_members(v, dup, gr, &rs.g[g]);
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
		grp_free(gs);
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

static void gcaller_free(struct gcaller *gc)
{
	size_t i;

	if (!gc)
		return;
	for (i = 0; gc->name && i < gc->gs->n; i++)
		if (gc->name[i] != gc->gs->g[i].name)
			free(gc->name[i]);
	free(gc->name);
	nameset_release(&gc->names);
	free(gc);
}

/* Drops a reference taken with v->lock held by gcaller_get(); frees the
 * caller view and its gview reference when it was the last. */
static void gcaller_put(struct views *v, struct gcaller *gc)
{
	struct gview *gs = NULL;
	int last;

	if (!gc)
		return;
	pthread_mutex_lock(&v->lock);
	last = --gc->refs == 0;
	pthread_mutex_unlock(&v->lock);
	if (last) {
		gs = gc->gs;
		gcaller_free(gc);
		gview_put(v, gs);
	}
}

/* The name of group g of gs for the caller, from the members it may
 * reach (vis of them, ids in order): NULL on -ENOMEM. */
static char *gcaller_name(struct views *v, const struct group *gr, size_t vis,
			  struct nameset *names, size_t g)
{
	uint64_t ids[GROUPS_TITLE_MEMBERS];
	const char *first = NULL;
	char *title = NULL, *name = NULL;
	struct sbuf sb;
	size_t j, n = 0;

	for (j = 0; j < gr->n; j++) {
		if (!views_reach(v, gr->m[j].path))
			continue;
		if (!first)
			first = gr->m[j].path;
		if (n < GROUPS_TITLE_MEMBERS)
			ids[n++] = gr->m[j].id;
	}
	sbuf_init(&sb);
	if (!groups_title(v->ix, ids, n, first, &title) && !simlist_fit(&sb, title, 200) &&
	    !sbuf_addf(&sb, " (%zu)", vis)) {
		clean_name(sb.buf);
		name = uniq_name(names, sb.buf, g);
	}
	free(title);
	sbuf_release(&sb);
	return name;
}

static int gcaller_build(struct views *v, struct gview *gs, const struct fsacc_who *who,
			 struct gcaller **out)
{
	struct gcaller *gc = calloc(1, sizeof(*gc));
	size_t *vis = NULL, i, j;
	int ret = -ENOMEM;

	*out = NULL;
	if (!gc)
		return -ENOMEM;
	gc->uid = who->uid;
	gc->gid = who->gid;
	gc->gs = gs;
	gc->built_ns = monoclock_ns();
	gc->name = calloc(gs->n ? gs->n : 1, sizeof(*gc->name));
	vis = calloc(gs->n ? gs->n : 1, sizeof(*vis));
	if (!gc->name || !vis || nameset_init(&gc->names, gs->n))
		goto out;
	/* groups shown whole keep their names; the others are named after */
	for (i = 0; i < gs->n; i++) {
		for (j = 0; j < gs->g[i].n; j++)
			vis[i] += (size_t)views_reach(v, gs->g[i].m[j].path);
		if (vis[i] == gs->g[i].n) {
			size_t k = nameset_slot(&gc->names, gs->g[i].name);

			gc->name[i] = gs->g[i].name;
			gc->names.slot[k] = gc->name[i];
			gc->names.val[k] = i;
		}
	}
	for (i = 0; i < gs->n; i++)
		if (vis[i] >= 2 && vis[i] < gs->g[i].n &&
		    !(gc->name[i] = gcaller_name(v, &gs->g[i], vis[i], &gc->names, i)))
			goto out;
	ret = 0;
out:
	free(vis);
	if (ret) {
		gcaller_free(gc);
		return ret;
	}
	*out = gc;
	return 0;
}

/* The group view gs as the caller sees it: *out NULL for root (gs as it
 * is), else a reference to drop with gcaller_put().  gs stays referenced
 * by the caller; the caller view holds its own reference. */
static int gcaller_get(struct views *v, int dup, struct gview *gs, struct gcaller **out)
{
	struct fsacc_who who;
	struct gcaller *gc, *old, **slot;
	int ret;

	*out = NULL;
	if (!v->fuse || views_who(&who))
		return 0;
	slot = &v->gcallers[dup][(size_t)(who.uid * 31u + who.gid) % GCALLER_SLOTS];
	pthread_mutex_lock(&v->lock);
	gc = *slot;
	if (gc && gc->gs == gs && gc->uid == who.uid && gc->gid == who.gid &&
	    monoclock_ns() - gc->built_ns < GCALLER_TTL_NS) {
		gc->refs++;
		pthread_mutex_unlock(&v->lock);
		*out = gc;
		return 0;
	}
	gs->refs++;	/* the caller view's */
	pthread_mutex_unlock(&v->lock);
	ret = gcaller_build(v, gs, &who, &gc);
	if (ret) {
		gview_put(v, gs);
		return ret;
	}
	gc->refs = 2;	/* the slot's and the caller's */
	pthread_mutex_lock(&v->lock);
	old = *slot;
	*slot = gc;
	pthread_mutex_unlock(&v->lock);
	gcaller_put(v, old);
	*out = gc;
	return 0;
}

/* Forgets every caller view: the next request names the groups again
 * for its caller (a folder's permissions changed). */
void grp_callers_drop(struct views *v)
{
	struct gcaller *gone[2 * GCALLER_SLOTS];
	size_t d, i, n = 0;

	pthread_mutex_lock(&v->lock);
	for (d = 0; d < 2; d++)
		for (i = 0; i < GCALLER_SLOTS; i++) {
			if (v->gcallers[d][i])
				gone[n++] = v->gcallers[d][i];
			v->gcallers[d][i] = NULL;
		}
	pthread_mutex_unlock(&v->lock);
	for (i = 0; i < n; i++)
		gcaller_put(v, gone[i]);
}

/* At the views' end, before their gviews are freed: the caller views and
 * their references (a gview no longer current goes with its last). */
void grp_callers_free(struct views *v)
{
	struct gview *gs;
	size_t d, i;

	for (d = 0; d < 2; d++)
		for (i = 0; i < GCALLER_SLOTS; i++) {
			if (!v->gcallers[d][i])
				continue;
			gs = v->gcallers[d][i]->gs;
			gcaller_free(v->gcallers[d][i]);
			v->gcallers[d][i] = NULL;
			if (--gs->refs == 0)
				grp_free(gs);
		}
}

/* The name group g of gs shows (NULL: hidden from the caller of gc). */
static const char *gview_name(const struct gview *gs, const struct gcaller *gc, size_t g)
{
	return gc ? gc->name[g] : gs->g[g].name;
}

/* Finds "group" or "group/member" in gs as the caller of gc (NULL: root)
 * sees it: *g, *m (m = SIZE_MAX: the group). */
static int gview_find(const struct gview *gs, const struct gcaller *gc, const char *rel,
		      size_t *g, size_t *m)
{
	size_t glen = strcspn(rel, "/"), i, j;
	const char *mem = rel[glen] ? rel + glen + 1 : NULL;
	char name[NAME_MAX + 1];

	if ((mem && strchr(mem, '/')) || glen > NAME_MAX)
		return -ENOENT;
	memcpy(name, rel, glen);
	name[glen] = '\0';
	i = nameset_get(gc ? &gc->names : &gs->names, name);
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

int grp_getattr(struct views *v, enum view_kind k, const char *rel, struct stat *st)
{
	struct gcaller *gc = NULL;
	struct gview *gs = NULL;
	char buf[PATH_MAX];
	struct stat tst;
	size_t g, m, j;
	int ret;

	if (!*rel) {
		views_fill_dir(v, st, views_ino(k, 0));
		return 0;
	}
	ret = gview_get(v, k == VK_DUPLICATES, &gs);
	if (!ret)
		ret = gcaller_get(v, k == VK_DUPLICATES, gs, &gc);
	views_private_take();	/* only this node's books count */
	if (!ret)
		ret = gview_find(gs, gc, rel, &g, &m);
	if (!ret && m == SIZE_MAX) {
		/* its name depends on the caller when a member is private */
		for (j = 0; j < gs->g[g].n; j++)
			views_reach(v, gs->g[g].m[j].path);
		views_fill_dir(v, st, views_ino(k, views_hash(gview_name(gs, gc, g), 2)));
	} else if (!ret) {
		if (!views_target_ok(v, gs->g[g].m[m].path, &tst))
			ret = -ENOENT;
		else
			ret = simlist_link(buf, sizeof(buf), 2, gs->g[g].m[m].path);
		if (!ret)
			views_fill_entry(v, st, views_ino(k, views_hash(gs->g[g].m[m].path, 3)), strlen(buf), &tst);
	}
	gcaller_put(v, gc);
	gview_put(v, gs);
	return ret;
}

int grp_readdir(struct views *v, enum view_kind k, const char *rel, void *buf,
		       fuse_fill_dir_t filler)
{
	struct gcaller *gc = NULL;
	struct gview *gs = NULL;
	struct stat st;
	size_t g, m, i;
	int ret;

	ret = gview_get(v, k == VK_DUPLICATES, &gs);
	if (ret)
		return ret;
	ret = gcaller_get(v, k == VK_DUPLICATES, gs, &gc);
	if (ret) {
		gview_put(v, gs);
		return ret;
	}
	memset(&st, 0, sizeof(st));
	filler(buf, ".", NULL, 0, 0);
	filler(buf, "..", NULL, 0, 0);
	if (!*rel) {
		st.st_mode = S_IFDIR;
		for (i = 0; i < gs->n; i++) {
			const char *name = gview_name(gs, gc, i);

			if (!name)
				continue;
			st.st_ino = views_ino(k, views_hash(name, 2));
			filler(buf, name, &st, 0, 0);
		}
	} else {
		ret = gview_find(gs, gc, rel, &g, &m);
		if (!ret && m != SIZE_MAX)
			ret = -ENOTDIR;
		st.st_mode = views_entry_type(v);
		for (i = 0; !ret && i < gs->g[g].n; i++) {
			if (!views_target_ok(v, gs->g[g].m[i].path, NULL))
				continue;
			st.st_ino = views_ino(k, views_hash(gs->g[g].m[i].path, 3));
			filler(buf, gs->g[g].m[i].name, &st, 0, 0);
		}
	}
	gcaller_put(v, gc);
	gview_put(v, gs);
	return ret;
}

int grp_entry_target(struct views *v, enum view_kind k, const char *rel, char *buf,
			    size_t size, enum target_form f)
{
	struct gcaller *gc = NULL;
	struct gview *gs = NULL;
	size_t g, m;
	int ret;

	if (!*rel)
		return -EINVAL;
	ret = gview_get(v, k == VK_DUPLICATES, &gs);
	if (ret)
		return ret;
	ret = gcaller_get(v, k == VK_DUPLICATES, gs, &gc);
	if (!ret)
		ret = gview_find(gs, gc, rel, &g, &m);
	if (!ret && m == SIZE_MAX)
		ret = -EINVAL;
	else if (!ret && !views_target_ok(v, gs->g[g].m[m].path, NULL))
		ret = -ENOENT;
	else if (!ret)
		ret = views_entry_target(buf, size, 2, gs->g[g].m[m].path, f);
	gcaller_put(v, gc);
	gview_put(v, gs);
	return ret;
}

/* Once the index is idle, builds the group views here rather than in the
 * next `ls clusters/` (a build reads every member's entry and titles). */
void grp_prebuild(struct views *v)
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
