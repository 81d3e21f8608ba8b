/* view_groups.c - clusters/ and duplicates/: the groups of groups.h as
 * folders "Title (N)", each holding its members under unique names (a
 * member's metadata.opf name, else its file name); built at most once a
 * second while the index changes. */
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
	char *title;		/* its metadata.opf name, or NULL */
	uint64_t id;
};

struct group {
	char *name;		/* "Title (N)", unique */
	char *base;		/* that name before it was made unique */
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
 * (its title could come from a book the caller may not know of), and its
 * members are named among themselves.  When anything is hidden, every
 * name is made unique among what the caller sees only: "X (2)" must not
 * tell of a hidden "X".  Kept per uid and gid for a second, for the same
 * gview. */
struct gcaller {
	int refs;
	uid_t uid;
	gid_t gid;
	int64_t built_ns;
	struct gview *gs;	/* a reference */
	char **name;		/* per group of gs: NULL (hidden), its own name or owned */
	char ***mname;		/* per group of gs: NULL (its members' own names),
				 * or owned names per member, NULL (hidden) */
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

/* The bytes of s[0..len) to keep so that they fit max, not splitting a
 * UTF-8 sequence. */
static size_t utf8_cut(const char *s, size_t len, size_t max)
{
	if (len <= max)
		return len;
	while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
		max--;
	return max;
}

/* A name not in s, added to it with value val (at most the n of
 * nameset_init() names): base itself, else "stem (k).ext" (ext: base's
 * extension is kept at the end; else "base (k)"), its stem cut to keep
 * the name within NAME_MAX.  malloc'd, or NULL on -ENOMEM; the caller
 * keeps it alive while s is used. */
static char *uniq_name(struct nameset *s, const char *base, size_t val, int ext)
{
	const char *dot = ext ? strrchr(base, '.') : NULL;
	struct sbuf sb;
	char *name = NULL, sfx[32];
	size_t stem, tail;
	int k;

	if (!s->slot[nameset_slot(s, base)]) {
		name = strdup(base);
	} else {
		stem = dot && dot != base ? (size_t)(dot - base) : strlen(base);
		tail = strlen(base + stem);
		sbuf_init(&sb);
		for (k = 2; !name; k++) {
			snprintf(sfx, sizeof(sfx), " (%d)", k);
			sbuf_setlen(&sb, 0);
			if (sbuf_add(&sb, base, utf8_cut(base, stem, NAME_MAX - tail - strlen(sfx))) ||
			    sbuf_addstr(&sb, sfx) || sbuf_add(&sb, base + stem, tail))
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

/* A name wanted in a folder, and what orders it among the others wanting
 * the same name. */
struct uname {
	char *base;		/* the name wanted, owned */
	const char *key;	/* the tie-break: a path of SRC */
	size_t idx;		/* whose name it is */
	char *name;		/* the name given (uniq_all()) */
};

static int uname_cmp(const void *pa, const void *pb)
{
	const struct uname *a = pa, *b = pb;
	int c = strcmp(a->base, b->base);

	return c ? c : strcmp(a->key, b->key);
}

/* Names u[0..n) uniquely in s (uniq_name(), value idx): the ones wanting
 * one name in the order of their keys, so the names depend on the names
 * and paths only, not on the order books arrived in (ids).  u is sorted.
 * 0 or -ENOMEM. */
static int uniq_all(struct nameset *s, struct uname *u, size_t n, int ext)
{
	size_t i;

	qsort(u, n, sizeof(*u), uname_cmp);
	for (i = 0; i < n; i++)
		if (!(u[i].name = uniq_name(s, u[i].base, u[i].idx, ext)))
			return -ENOMEM;
	return 0;
}

static void unames_free(struct uname *u, size_t n)
{
	size_t i;

	for (i = 0; u && i < n; i++)
		free(u[i].base);
	free(u);
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
			free(gs->g[i].m[j].title);
		}
		free(gs->g[i].m);
		free(gs->g[i].name);
		free(gs->g[i].base);
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

/* Replaces characters a folder name cannot or should not hold, as
 * simlist_title_base() does in entry names. */
static void clean_name(char *s)
{
	for (; *s; s++)
		if (*s == '/')
			*s = '_';
		else if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = ' ';
}

/* The folder name a group of vis members takes from the members m[0..n)
 * (groups_title() of them, cut to fit), "Title (vis)", made safe;
 * malloc'd, NULL on -ENOMEM. */
static char *gview_title(struct views *v, const struct gmember *m, size_t n, size_t vis)
{
	struct groups_group sub = { 0, NULL };
	char *title = NULL, *name = NULL;
	struct sbuf sb;
	size_t j;

	sbuf_init(&sb);
	sub.m = calloc(n ? n : 1, sizeof(*sub.m));
	for (j = 0; sub.m && j < n; j++) {
		sub.m[j].id = m[j].id;
		sub.m[j].path = m[j].path;
		sub.m[j].title = m[j].title;
	}
	sub.n = n;
	/* cut as a title, not as a file name: ". Wells" is no extension */
	if (sub.m && !groups_title(v->ix, &sub, &title) &&
	    !sbuf_add(&sb, title, utf8_cut(title, strlen(title), 200)) &&
	    !sbuf_addf(&sb, " (%zu)", vis)) {
		clean_name(sb.buf);
		name = sbuf_detach(&sb, NULL);
	}
	free(title);
	free(sub.m);
	sbuf_release(&sb);
	return name;
}

/* groups_resolve() leaves out the members the views cannot link to. */
static int gview_skip(void *arg, const struct idx_file *f)
{
	return views_skip(arg, f->path);
}

/* The member of m[0..n) with the smallest path among those shown (show
 * NULL: all): the one the others' relations in duplicates/ are given to,
 * so the names depend on the paths, not on the order books arrived in. */
static size_t members_ref(const struct gmember *m, size_t n, const unsigned char *show)
{
	size_t j, ref = SIZE_MAX;

	for (j = 0; j < n; j++)
		if ((!show || show[j]) && (ref == SIZE_MAX || strcmp(m[j].path, m[ref].path) < 0))
			ref = j;
	return ref;
}

/* Names the members m[0..n) that show (show NULL: all) into names[0..n)
 * (NULL for the others; malloc'd): their metadata.opf names or file names
 * (simlist_entry_base()), made unique among the shown (uniq_all()), so a
 * caller's names say nothing of the members hidden from it; in
 * duplicates/ (dup) each but the reference (members_ref()) shows its
 * relation to it, "identical file - NAME" or "same text - NAME", so a
 * byte copy and a same-text file in another format look different.
 * 0 or -ENOMEM (names then as they were). */
static int members_name(struct views *v, int dup, const struct gmember *m, size_t n,
			const unsigned char *show, char **names)
{
	struct nameset mset = { NULL, NULL, 0 };
	size_t j, nu = 0, ref = members_ref(m, n, show);
	struct uname *u = calloc(n ? n : 1, sizeof(*u));
	enum relate_class cls;
	struct sbuf nm, tb;
	int ret = -ENOMEM;

	sbuf_init(&nm);
	sbuf_init(&tb);
	if (!u || nameset_init(&mset, n))
		goto out;
	for (j = 0; j < n; j++) {
		if (show && !show[j])
			continue;
		sbuf_setlen(&nm, 0);
		/* the name kept within NAME_MAX, its extension kept */
		if (simlist_entry_base(&tb, m[j].title, m[j].path) ||
		    (dup && j != ref && judge_relation(v->ix, v->pairs, m[ref].id, m[j].id, &cls) == 0 &&
		     sbuf_addf(&nm, "%s - ", simlist_label(cls))) ||
		    simlist_fit(&nm, tb.buf, NAME_MAX - nm.len) || !(u[nu].base = strdup(nm.buf)))
			goto out;
		u[nu].key = m[j].path;
		u[nu++].idx = j;
	}
	ret = uniq_all(&mset, u, nu, 1);
	for (j = 0; !ret && j < nu; j++)
		names[u[j].idx] = u[j].name;
	for (j = 0; ret && j < nu; j++)
		free(u[j].name);
out:
	unames_free(u, nu);
	nameset_release(&mset);
	sbuf_release(&nm);
	sbuf_release(&tb);
	return ret;
}

/* Takes the members of the resolved group rg (their paths and titles)
 * into gr and names them (members_name()). */
static int gview_members(struct views *v, int dup, struct group *gr, struct groups_group *rg)
{
	char **names = calloc(rg->n ? rg->n : 1, sizeof(*names));
	size_t j;
	int ret = -ENOMEM;

	gr->m = calloc(rg->n ? rg->n : 1, sizeof(*gr->m));
	if (!gr->m || !names)
		goto out;
	for (j = 0; j < rg->n; j++) {
		gr->m[j].path = rg->m[j].path;
		gr->m[j].title = rg->m[j].title;
		gr->m[j].id = rg->m[j].id;
		rg->m[j].path = NULL;
		rg->m[j].title = NULL;
	}
	gr->n = rg->n;
	ret = members_name(v, dup, gr->m, gr->n, NULL, names);
	for (j = 0; !ret && j < gr->n; j++)
		gr->m[j].name = names[j];
out:
	free(names);
	return ret;
}

/* The smallest path of the members m[0..n) that count (all when reach is
 * 0, else those the caller may reach): what orders groups wanting one
 * name. */
static const char *gview_key(struct views *v, const struct gmember *m, size_t n, int reach)
{
	const char *key = NULL;
	size_t j;

	for (j = 0; j < n; j++)
		if ((!reach || views_reach(v, m[j].path)) && (!key || strcmp(m[j].path, key) < 0))
			key = m[j].path;
	return key ? key : "";
}

static int gview_build(struct views *v, int dup, struct gview **out)
{
	struct groups_set rs = { 0, NULL };
	struct gview *gs = NULL;
	struct uname *u = NULL;
	size_t g;
	int ret;

	gs = calloc(1, sizeof(*gs));
	if (!gs)
		return -ENOMEM;
	gs->generation = idx_generation(v->ix);
	gs->built_ns = monoclock_ns();
	ret = groups_resolve(v->ix, dup ? GROUPS_TEXT : GROUPS_CLUSTERS, gview_skip, v, &rs);
	if (ret)
		goto out;
	gs->g = calloc(rs.n ? rs.n : 1, sizeof(*gs->g));
	u = calloc(rs.n ? rs.n : 1, sizeof(*u));
	if (!gs->g || !u || nameset_init(&gs->names, rs.n)) {
		ret = -ENOMEM;
		goto out;
	}
	for (g = 0; g < rs.n; g++) {
		struct group *gr = &gs->g[g];

		/* counted before its members: freed with gs when naming fails */
		gs->n++;
		ret = gview_members(v, dup, gr, &rs.g[g]);
		if (!ret && (!(u[g].base = gview_title(v, gr->m, gr->n, gr->n)) ||
			     !(gr->base = strdup(u[g].base))))
			ret = -ENOMEM;
		if (ret)
			goto out;
		u[g].key = gview_key(v, gr->m, gr->n, 0);
		u[g].idx = g;
	}
	ret = uniq_all(&gs->names, u, rs.n, 0);
	for (g = 0; g < rs.n; g++)
		gs->g[u[g].idx].name = u[g].name;
out:
	unames_free(u, rs.n);
	groups_set_release(&rs);
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
	size_t i, j;

	if (!gc)
		return;
	for (i = 0; gc->name && i < gc->gs->n; i++)
		if (gc->name[i] != gc->gs->g[i].name)
			free(gc->name[i]);
	for (i = 0; gc->mname && i < gc->gs->n; i++) {
		for (j = 0; gc->mname[i] && j < gc->gs->g[i].n; j++)
			free(gc->mname[i][j]);
		free(gc->mname[i]);
	}
	free(gc->name);
	free(gc->mname);
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

/* The name group gr would have if it held only the members the caller
 * may reach (vis of them): NULL on -ENOMEM. */
static char *gcaller_title(struct views *v, const struct group *gr, size_t vis)
{
	struct gmember *m = calloc(gr->n ? gr->n : 1, sizeof(*m));
	char *name = NULL;
	size_t j, n = 0;

	if (!m)
		return NULL;
	for (j = 0; j < gr->n; j++)
		if (views_reach(v, gr->m[j].path))
			m[n++] = gr->m[j];
	name = gview_title(v, m, n, vis);
	free(m);
	return name;
}

/* Names the members of gr the caller may reach among themselves
 * (members_name()): per member its name (NULL: hidden), all owned; NULL
 * on -ENOMEM. */
static char **gcaller_members(struct views *v, int dup, const struct group *gr)
{
	unsigned char *show = calloc(gr->n ? gr->n : 1, 1);
	char **names = calloc(gr->n ? gr->n : 1, sizeof(*names));
	size_t j;

	for (j = 0; show && j < gr->n; j++)
		show[j] = (unsigned char)views_reach(v, gr->m[j].path);
	if (!show || !names || members_name(v, dup, gr->m, gr->n, show, names)) {
		free(names);
		names = NULL;
	}
	free(show);
	return names;
}

static int gcaller_build(struct views *v, int dup, struct gview *gs, const struct fsacc_who *who,
			 struct gcaller **out)
{
	struct gcaller *gc = calloc(1, sizeof(*gc));
	struct uname *u = NULL;
	size_t *vis = NULL, i, j, nu = 0;
	int ret = -ENOMEM, whole = 1;

	*out = NULL;
	if (!gc)
		return -ENOMEM;
	gc->uid = who->uid;
	gc->gid = who->gid;
	gc->gs = gs;
	gc->built_ns = monoclock_ns();
	gc->name = calloc(gs->n ? gs->n : 1, sizeof(*gc->name));
	gc->mname = calloc(gs->n ? gs->n : 1, sizeof(*gc->mname));
	vis = calloc(gs->n ? gs->n : 1, sizeof(*vis));
	u = calloc(gs->n ? gs->n : 1, sizeof(*u));
	if (!gc->name || !gc->mname || !vis || !u || nameset_init(&gc->names, gs->n))
		goto out;
	for (i = 0; i < gs->n; i++) {
		for (j = 0; j < gs->g[i].n; j++)
			vis[i] += (size_t)views_reach(v, gs->g[i].m[j].path);
		whole &= vis[i] == gs->g[i].n;
	}
	/* the common case, nothing hidden: gs's names as they are */
	for (i = 0; whole && i < gs->n; i++) {
		size_t k = nameset_slot(&gc->names, gs->g[i].name);

		gc->name[i] = gs->g[i].name;
		gc->names.slot[k] = gc->name[i];
		gc->names.val[k] = i;
	}
	for (i = 0; !whole && i < gs->n; i++) {
		if (vis[i] < 2)
			continue;
		if (vis[i] < gs->g[i].n && !(gc->mname[i] = gcaller_members(v, dup, &gs->g[i])))
			goto out;
		u[nu].base = vis[i] == gs->g[i].n ? strdup(gs->g[i].base)
						  : gcaller_title(v, &gs->g[i], vis[i]);
		if (!u[nu].base)
			goto out;
		u[nu].key = gview_key(v, gs->g[i].m, gs->g[i].n, 1);
		u[nu++].idx = i;
	}
	ret = uniq_all(&gc->names, u, nu, 0);
	for (i = 0; i < nu; i++)
		gc->name[u[i].idx] = u[i].name;
out:
	unames_free(u, nu);
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
	ret = gcaller_build(v, dup, gs, &who, &gc);
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

/* The name member m of group g shows (NULL: hidden from the caller of
 * gc). */
static const char *gview_mname(const struct gview *gs, const struct gcaller *gc, size_t g,
			       size_t m)
{
	return gc && gc->mname[g] ? gc->mname[g][m] : gs->g[g].m[m].name;
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
	for (j = 0; j < gs->g[i].n; j++) {
		const char *nm = gview_mname(gs, gc, i, j);

		if (nm && !strcmp(nm, mem)) {
			*m = j;
			return 0;
		}
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
			const char *nm = gview_mname(gs, gc, g, i);

			if (!nm || !views_target_ok(v, gs->g[g].m[i].path, NULL))
				continue;
			st.st_ino = views_ino(k, views_hash(gs->g[g].m[i].path, 3));
			filler(buf, nm, &st, 0, 0);
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
