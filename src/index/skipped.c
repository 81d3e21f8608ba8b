/* skipped.c - the skipped files of an index, by kind (see skipped.h). */
#include "skipped.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "jsonw.h"
#include "monoclock.h"
#include "simlist.h"

#define KIND_MAX 128

/* A failure's kind from the words of its reason (extract.h's reasons and
 * the indexer's own), the most specific first: a time limit is worded
 * "took longer than", which the size rules would take too. */
static const struct {
	const char *word, *kind;
} fail_words[] = {
	{ "DRM", "DRM-protected" },
	{ "encrypted", "DRM-protected" },
	{ "password", "DRM-protected" },
	{ "no text layer", "no text layer" },
	{ "took longer than", "too slow" },
	{ "too large", "too large" },
	{ "over the limit", "too large" },
	{ "over the unpacking", "too large" },
	{ "longer than", "too large" },
	{ "larger than", "too large" },
	{ "deeper than", "too large" },
	{ "more than", "too large" },
	{ "zip bomb", "too large" },
	{ "Permission denied", "unreadable" },
	{ "cannot open", "unreadable" },
	{ "Input/output error", "unreadable" },
};

const char *skipped_kind(enum idx_state state, const char *error, char *buf, size_t sz)
{
	const char *kind = state == IDX_NOT_BOOK ? "not a book" : "broken", *p, *end;
	size_t i, n;

	if (error && state == IDX_NOT_BOOK) {
		p = strstr(error, ": not a book (");
		end = p ? strrchr(p, ')') : NULL;
		if (end && end > p + 14) {
			n = (size_t)(end - (p + 14));
			n = n < sz ? n : sz - 1;
			memcpy(buf, p + 14, n);
			buf[n] = '\0';
			return buf;
		}
	} else if (error) {
		/* the reason follows the path: look past it, a file name may
		 * hold any word */
		p = strstr(error, ": ");
		p = p ? p + 2 : error;
		for (i = 0; i < sizeof(fail_words) / sizeof(fail_words[0]); i++)
			if (strstr(p, fail_words[i].word)) {
				kind = fail_words[i].kind;
				break;
			}
	}
	n = strlen(kind);
	n = n < sz ? n : sz - 1;
	memcpy(buf, kind, n);
	buf[n] = '\0';
	return buf;
}

struct count_arg {
	struct skipped *s;
	size_t cap;
};

static int count_fn(void *arg, const char *path, enum idx_state state, const char *error)
{
	struct count_arg *a = arg;
	struct skipped *s = a->s;
	char buf[KIND_MAX];
	const char *kind = skipped_kind(state, error, buf, sizeof(buf));
	size_t i;

	(void)path;
	s->total++;
	/* few kinds: a linear look-up */
	for (i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].kind, kind)) {
			s->v[i].n++;
			return 0;
		}
	if (ARRAY_GROW(s->v, a->cap, s->n + 1))
		return -ENOMEM;
	s->v[s->n].kind = strdup(kind);
	if (!s->v[s->n].kind)
		return -ENOMEM;
	s->v[s->n++].n = 1;
	return 0;
}

static int count_cmp(const void *pa, const void *pb)
{
	const struct skipped_count *a = pa, *b = pb;

	if (a->n != b->n)
		return a->n > b->n ? -1 : 1;
	return strcmp(a->kind, b->kind);
}

int skipped_count(struct idx *ix, struct skipped *s)
{
	struct count_arg a = { s, 0 };
	int ret;

	memset(s, 0, sizeof(*s));
	ret = idx_skipped_walk(ix, count_fn, &a);
	if (ret) {
		skipped_release(s);
		return ret;
	}
	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), count_cmp);
	return 0;
}

void skipped_release(struct skipped *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i].kind);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

struct skipped_cache {
	pthread_mutex_t lock;
	const struct idx *ix;	/* whose counts s holds; NULL: none yet */
	uint64_t generation;	/* of ix when they were counted (or before) */
	uint64_t when_ns;	/* monoclock_ns() then */
	struct skipped s;
};

struct skipped_cache *skipped_cache_new(void)
{
	struct skipped_cache *c = calloc(1, sizeof(*c));

	if (c)
		pthread_mutex_init(&c->lock, NULL);
	return c;
}

void skipped_cache_free(struct skipped_cache *c)
{
	if (!c)
		return;
	skipped_release(&c->s);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* A deep copy of from into *to (zeroed first).  0 or -ENOMEM. */
static int skipped_copy(const struct skipped *from, struct skipped *to)
{
	memset(to, 0, sizeof(*to));
	to->total = from->total;
	if (!from->n)
		return 0;
	to->v = calloc(from->n, sizeof(*to->v));
	if (!to->v)
		return -ENOMEM;
	for (to->n = 0; to->n < from->n; to->n++) {
		to->v[to->n].n = from->v[to->n].n;
		to->v[to->n].kind = strdup(from->v[to->n].kind);
		if (!to->v[to->n].kind) {
			skipped_release(to);
			return -ENOMEM;
		}
	}
	return 0;
}

int skipped_cache_count(struct skipped_cache *c, struct idx *ix, int fresh, uint64_t max_age_ns,
			struct skipped *s)
{
	/* read before the walk: the counts are at least this new */
	uint64_t gen = idx_generation(ix), now = (uint64_t)monoclock_ns();
	struct skipped n;
	int ret;

	/* one walk at a time: readers that queue behind it take its counts */
	pthread_mutex_lock(&c->lock);
	if (c->ix == ix && (c->generation == gen || (!fresh && now - c->when_ns < max_age_ns))) {
		ret = skipped_copy(&c->s, s);
		goto out;
	}
	ret = skipped_count(ix, &n);
	if (ret)
		goto out;
	ret = skipped_copy(&n, s);
	skipped_release(&c->s);
	c->s = n;
	c->ix = ix;
	c->generation = gen;
	c->when_ns = now;
out:
	pthread_mutex_unlock(&c->lock);
	return ret;
}

int skipped_json(const struct skipped *s, struct sbuf *out)
{
	size_t i;
	int ret = sbuf_addch(out, '{');

	for (i = 0; i < s->n && !ret; i++) {
		if (i)
			ret = sbuf_addch(out, ',');
		if (!ret)
			ret = jsonw_str(out, s->v[i].kind);
		if (!ret)
			ret = sbuf_addf(out, ":%llu", (unsigned long long)s->v[i].n);
	}
	return ret ? ret : sbuf_addch(out, '}');
}

int skipped_text(const struct skipped *s, struct sbuf *out)
{
	size_t i;
	int ret = 0;

	if (!s->n)
		return sbuf_addstr(out, "none");
	for (i = 0; i < s->n && !ret; i++)
		ret = sbuf_addf(out, "%s%llu %s", i ? ", " : "", (unsigned long long)s->v[i].n,
				s->v[i].kind);
	return ret;
}

/* One listed file (the walk's strings die with its call). */
struct line {
	char *path, *text;
};

struct tsv_arg {
	struct line *v;
	size_t n, cap;
};

static int tsv_fn(void *arg, const char *path, enum idx_state state, const char *error)
{
	struct tsv_arg *a = arg;
	struct sbuf t;
	char buf[KIND_MAX];
	int ret;

	sbuf_init(&t);
	ret = simlist_escape(&t, path);
	if (!ret)
		ret = sbuf_addch(&t, '\t');
	if (!ret)
		ret = simlist_escape(&t, skipped_kind(state, error, buf, sizeof(buf)));
	if (!ret)
		ret = sbuf_addch(&t, '\t');
	if (!ret)
		ret = simlist_escape(&t, error ? error : "");
	if (!ret)
		ret = sbuf_addch(&t, '\n');
	if (!ret && ARRAY_GROW(a->v, a->cap, a->n + 1))
		ret = -ENOMEM;
	if (!ret) {
		a->v[a->n].path = strdup(path);
		a->v[a->n].text = sbuf_detach(&t, NULL);
		if (a->v[a->n].path && a->v[a->n].text)
			a->n++;
		else {
			free(a->v[a->n].path);
			free(a->v[a->n].text);
			ret = -ENOMEM;
		}
	}
	sbuf_release(&t);
	return ret;
}

static int line_cmp(const void *pa, const void *pb)
{
	return strcmp(((const struct line *)pa)->path, ((const struct line *)pb)->path);
}

int skipped_tsv(struct idx *ix, struct sbuf *out)
{
	struct tsv_arg a = { NULL, 0, 0 };
	size_t i;
	int ret = idx_skipped_walk(ix, tsv_fn, &a);

	/* key order is path order except around long (hashed) keys */
	if (!ret && a.n)
		qsort(a.v, a.n, sizeof(*a.v), line_cmp);
	for (i = 0; i < a.n; i++) {
		if (!ret)
			ret = sbuf_addstr(out, a.v[i].text);
		free(a.v[i].path);
		free(a.v[i].text);
	}
	free(a.v);
	return ret;
}
