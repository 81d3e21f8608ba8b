/* view_snap.c - the snapshots of the views' generated files (.similar.tsv,
 * .simbookfs/status, errors, not-duplicates).  The kernel keeps the size
 * a getattr gave it; a reader (rsync, cp, Syncthing) reads that many bytes
 * and checks the file did not change.  So the content a getattr measured
 * is kept, per file and caller, and is what the next open serves, until
 * the kernel is told to forget that size (the invalidation thread marks
 * the snapshots stale first).  Content generated again that is unchanged
 * keeps its snapshot (and its attributes).  An open snapshot stays the
 * file's content for every getattr and open until its last close; if the
 * kernel was given its size after it went stale, it is told to forget it
 * again then.
 */
#include "views_i.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct vsnap {
	uint64_t key;
	enum view_kind kind;
	uid_t uid;
	gid_t gid;
	char *rel;		/* NULL: a private snapshot, not in the table */
	char *data;
	size_t len;
	struct stat st;
	int refs;		/* the table's and each open's */
	int opens;
	bool stale;		/* the kernel was told to forget its size */
	bool told;		/* its size was given out after it went stale */
	bool fresh;		/* made since the kernel last forgot: it may still
				 * hold the size of the one before */
};

static void snap_caller(uid_t *uid, gid_t *gid)
{
	struct fuse_context *ctx = fuse_get_context();

	*uid = ctx ? ctx->uid : 0;
	*gid = ctx ? ctx->gid : 0;
}

/* The table slot of kind k's file rel for the caller (with v->snap_lock);
 * *id gets the identity a snapshot of it has, *match whether the slot
 * holds one. */
static struct vsnap **snap_slot(struct views *v, enum view_kind k, const char *rel,
				struct vsnap *id, bool *match)
{
	struct vsnap **pp, *s;

	*id = (struct vsnap){ .kind = k };
	snap_caller(&id->uid, &id->gid);
	id->key = views_hash(rel, (uint64_t)k + 1) ^
		  ((uint64_t)id->uid << 32 | id->gid) * 0x9e3779b97f4a7c15ULL;
	pp = &v->snaps[id->key % SNAP_SLOTS];
	s = *pp;
	*match = s && s->key == id->key && s->kind == k && s->uid == id->uid &&
		 s->gid == id->gid && !strcmp(s->rel, rel);
	return pp;
}

static void snap_unref(struct vsnap *s)
{
	if (--s->refs)
		return;
	free(s->rel);
	free(s->data);
	free(s);
}

int snap_current(struct views *v, enum view_kind k, const char *rel, struct stat *st)
{
	struct vsnap **pp, id;
	bool match;
	int ret = 0;

	pthread_mutex_lock(&v->snap_lock);
	pp = snap_slot(v, k, rel, &id, &match);
	if (match && (!(*pp)->stale || (*pp)->opens)) {
		*st = (*pp)->st;
		(*pp)->told |= (*pp)->stale;
		ret = 1;
	}
	pthread_mutex_unlock(&v->snap_lock);
	return ret;
}

void snap_offer(struct views *v, enum view_kind k, const char *rel, struct sbuf *content,
		struct stat *st)
{
	struct vsnap **pp, *s = NULL, *old, id;
	bool match;

	pthread_mutex_lock(&v->snap_lock);
	pp = snap_slot(v, k, rel, &id, &match);
	old = *pp;
	if (match && old->len == content->len && !memcmp(old->data, content->buf, old->len)) {
		old->stale = false;
		*st = old->st;
		goto out;
	}
	if (match && old->opens) {
		*st = old->st;
		old->told = true;
		goto out;
	}
	if (old && old->opens)
		goto out;	/* another file's, open: this one goes unkept */
	s = malloc(sizeof(*s));
	if (!s)
		goto out;
	*s = id;
	s->rel = strdup(rel);
	s->st = *st;
	s->refs = 1;
	s->fresh = true;
	if (!s->rel || !(s->data = sbuf_detach(content, &s->len))) {
		free(s->rel);
		free(s);
		goto out;
	}
	*pp = s;
	if (old)
		snap_unref(old);
out:
	pthread_mutex_unlock(&v->snap_lock);
}

/* The kernel forgets the attributes it holds for kind k's file rel. */
static void snap_tell(struct views *v, enum view_kind k, const char *rel)
{
	char path[PATH_MAX];

	if (v->fuse && snprintf(path, sizeof(path), "/%s/%s", v->names[k], rel) < (int)sizeof(path))
		fuse_invalidate_path(v->fuse, path);
}

struct vsnap *snap_open(struct views *v, enum view_kind k, const char *rel)
{
	struct vsnap **pp, *s = NULL, id;
	bool match, fresh = false;

	pthread_mutex_lock(&v->snap_lock);
	pp = snap_slot(v, k, rel, &id, &match);
	if (match) {
		s = *pp;
		s->refs++;
		s->opens++;
		fresh = s->fresh;
		s->fresh = false;
	}
	pthread_mutex_unlock(&v->snap_lock);
	/* The reader's fstat() must see this content's size, not one the
	 * kernel kept from before (the invalidation thread may not have
	 * reached this file yet). */
	if (fresh)
		snap_tell(v, k, rel);
	return s;
}

struct vsnap *snap_private(struct sbuf *content)
{
	struct vsnap *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->data = sbuf_detach(content, &s->len);
	if (!s->data) {
		free(s);
		return NULL;
	}
	s->refs = s->opens = 1;
	return s;
}

const char *snap_data(const struct vsnap *s, size_t *len)
{
	*len = s->len;
	return s->data;
}

void snap_close(struct views *v, struct vsnap *s)
{
	enum view_kind k = s->kind;
	char *rel = NULL;

	pthread_mutex_lock(&v->snap_lock);
	s->opens--;
	if (!s->opens && s->told && s->rel) {
		s->told = false;
		rel = strdup(s->rel);
	}
	snap_unref(s);
	pthread_mutex_unlock(&v->snap_lock);
	if (rel)
		snap_tell(v, k, rel);
	free(rel);
}

void snap_stale(struct views *v, bool status_only)
{
	size_t i;

	pthread_mutex_lock(&v->snap_lock);
	for (i = 0; i < SNAP_SLOTS; i++)
		if (v->snaps[i] && (!status_only || (v->snaps[i]->kind == VK_META &&
						     !strcmp(v->snaps[i]->rel, "status"))))
			v->snaps[i]->stale = true;
	pthread_mutex_unlock(&v->snap_lock);
}

void snap_free_all(struct views *v)
{
	size_t i;

	for (i = 0; i < SNAP_SLOTS; i++)
		if (v->snaps[i])
			snap_unref(v->snaps[i]);
}
