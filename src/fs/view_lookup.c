/* view_lookup.c - lookup/<32 hex digits>/: the books within the simhash
 * threshold of any id, nearest first, named by their metadata.opf names
 * or file names. */
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

#include "simhash.h"

struct lk_entry {
	char *name;
	char *path;
	uint64_t id;
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
 * "RR dD - BASENAME" (D: differing bits; BASENAME: simlist_entry_base()). */
static int lk_list(struct views *v, const char *hex, struct lk_entry **out, size_t *nout)
{
	struct simhash_value sv;
	uint8_t sh[IDX_SH_BYTES];
	struct idx_hit *hits = NULL;
	struct lk_entry *e = NULL;
	struct idx_file f = { 0 };
	struct sbuf nm, tb;
	char *title = NULL;
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
		/* ranked among the books the caller may reach only */
		if (idx_get_id(v->ix, hits[i].id, &f) || views_skip(v, f.path) ||
		    !views_reach(v, f.path))
			continue;
		e[n].path = f.path;
		e[n].id = f.id;
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
	sbuf_init(&tb);
	for (i = 0; i < n && !ret; i++) {
		sbuf_setlen(&nm, 0);
		ret = simlist_book_title(v->ix, e[i].id, &title);
		if (!ret)
			ret = simlist_entry_base(&tb, title, e[i].path);
		if (!ret)
			ret = sbuf_addf(&nm, "%0*zu d%u - ", (int)digits, i + 1, e[i].dist);
		if (!ret)
			ret = simlist_fit(&nm, tb.buf, NAME_MAX - nm.len);
		if (!ret && !(e[i].name = strdup(nm.buf)))
			ret = -ENOMEM;
		free(title);
		title = NULL;
	}
	sbuf_release(&nm);
	sbuf_release(&tb);
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
		if (!strcmp((*e)[i].name, mem) && views_target_ok(v, (*e)[i].path, NULL)) {
			*which = i;
			return 0;
		}
	lk_free(*e, *n);
	*e = NULL;
	return -ENOENT;
}

int lk_getattr(struct views *v, const char *rel, struct stat *st)
{
	struct lk_entry *e = NULL;
	size_t n = 0, w;
	char buf[PATH_MAX];
	struct stat tst;
	int ret;

	if (!*rel) {
		views_fill_dir(v, st, views_ino(VK_LOOKUP, 0));
		return 0;
	}
	ret = lk_resolve(v, rel, &e, &n, &w);
	if (ret)
		return ret;
	if (w == SIZE_MAX) {
		views_fill_dir(v, st, views_ino(VK_LOOKUP, views_hash(rel, 4)));
	} else {
		ret = simlist_link(buf, sizeof(buf), 2, e[w].path);
		if (!ret && !views_target_ok(v, e[w].path, &tst))
			ret = -ENOENT;
		if (!ret)
			views_fill_entry(v, st, views_ino(VK_LOOKUP, views_hash(rel, 5)), strlen(buf), &tst);
	}
	lk_free(e, n);
	return ret;
}

int lk_readdir(struct views *v, const char *rel, void *buf, fuse_fill_dir_t filler)
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
	st.st_mode = views_entry_type(v);
	for (i = 0; !ret && i < n; i++) {
		char key[NAME_MAX + 40];

		if (!views_target_ok(v, e[i].path, NULL))
			continue;
		snprintf(key, sizeof(key), "%.32s/%s", rel, e[i].name);
		st.st_ino = views_ino(VK_LOOKUP, views_hash(key, 5));
		filler(buf, e[i].name, &st, 0, 0);
	}
	lk_free(e, n);
	return ret;
}

int lk_entry_target(struct views *v, const char *rel, char *buf, size_t size,
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
	ret = w == SIZE_MAX ? -EINVAL : views_entry_target(buf, size, 2, e[w].path, f);
	lk_free(e, n);
	return ret;
}
