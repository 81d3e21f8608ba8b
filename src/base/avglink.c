/* avglink.c - average-linkage clustering of a sparse graph (avglink.h).
 *
 * Clusters keep their neighbours with the number of edges between them;
 * a heap holds the candidate merges above one half, entries going stale
 * (by a version per cluster) when either side changes.  A merge costs the
 * degrees it touches, so a sparse graph costs about its edges times the
 * merges they take part in. */
#include "avglink.h"

#include <errno.h>
#include <stdlib.h>

#include "grow.h"
#include "rsort.h"

struct nbr {
	uint32_t c;		/* the neighbouring cluster */
	uint64_t links;		/* edges between the two */
};

struct clu {
	struct nbr *v;
	size_t n, cap;
	uint64_t size;		/* items */
	uint32_t rank, ver;
	int alive;
};

/* A candidate merge of clusters a (the lower rank) and b at versions
 * va, vb. */
struct hent {
	double l;
	uint32_t ra, rb, a, b, va, vb;
};

struct al {
	struct clu *c;
	struct hent *h;
	size_t nh, caph;
};

/* 1 when x comes before y: higher linkage, then lower ranks. */
static int hent_before(const struct hent *x, const struct hent *y)
{
	if (x->l != y->l)
		return x->l > y->l;
	if (x->ra != y->ra)
		return x->ra < y->ra;
	return x->rb < y->rb;
}

static void heap_swap(struct hent *h, size_t i, size_t j)
{
	struct hent t = h[i];

	h[i] = h[j];
	h[j] = t;
}

/* Queues the merge of a and x when their linkage is above one half. */
static int heap_push(struct al *s, uint32_t a, uint32_t x, uint64_t links)
{
	const struct clu *ca = &s->c[a], *cx = &s->c[x];
	struct hent e;
	size_t i;

	if (2 * links <= ca->size * cx->size)
		return 0;
	if (ARRAY_GROW(s->h, s->caph, s->nh + 1))
		return -ENOMEM;
	if (cx->rank < ca->rank) {
		uint32_t t = a;

		a = x;
		x = t;
	}
	e = (struct hent){ (double)links / ((double)s->c[a].size * (double)s->c[x].size),
			   s->c[a].rank, s->c[x].rank, a, x, s->c[a].ver, s->c[x].ver };
	i = s->nh++;
	s->h[i] = e;
	while (i && hent_before(&s->h[i], &s->h[(i - 1) / 2])) {
		heap_swap(s->h, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	return 0;
}

static struct hent heap_pop(struct al *s)
{
	struct hent top = s->h[0];
	size_t i = 0, k;

	s->h[0] = s->h[--s->nh];
	for (;;) {
		k = 2 * i + 1;
		if (k >= s->nh)
			break;
		if (k + 1 < s->nh && hent_before(&s->h[k + 1], &s->h[k]))
			k++;
		if (!hent_before(&s->h[k], &s->h[i]))
			break;
		heap_swap(s->h, i, k);
		i = k;
	}
	return top;
}

static int nbr_add(struct clu *c, uint32_t x, uint64_t links)
{
	if (ARRAY_GROW(c->v, c->cap, c->n + 1))
		return -ENOMEM;
	c->v[c->n++] = (struct nbr){ x, links };
	return 0;
}

/* Merges cluster b into a; pos (one slot per cluster, all 0) is scratch
 * and left all 0. */
static int merge(struct al *s, uint32_t a, uint32_t b, uint32_t *pos)
{
	struct clu *ca = &s->c[a], *cb = &s->c[b];
	size_t k, j;
	int ret = 0;

	for (k = 0; k < ca->n; k++)
		if (ca->v[k].c == b) {
			ca->v[k] = ca->v[--ca->n];
			break;
		}
	for (k = 0; k < ca->n; k++)
		pos[ca->v[k].c] = (uint32_t)k + 1;
	for (k = 0; k < cb->n && !ret; k++) {
		uint32_t x = cb->v[k].c;

		if (x == a)
			continue;
		if (pos[x]) {
			ca->v[pos[x] - 1].links += cb->v[k].links;
		} else {
			ret = nbr_add(ca, x, cb->v[k].links);
			pos[x] = (uint32_t)ca->n;
		}
	}
	for (k = 0; k < ca->n; k++)
		pos[ca->v[k].c] = 0;
	if (ret)
		return ret;
	ca->size += cb->size;
	ca->ver++;
	cb->alive = 0;
	free(cb->v);
	cb->v = NULL;
	cb->n = cb->cap = 0;
	/* each neighbour now sees a where it saw a and b */
	for (k = 0; k < ca->n && !ret; k++) {
		struct clu *cx = &s->c[ca->v[k].c];
		size_t ia = SIZE_MAX, ib = SIZE_MAX;

		for (j = 0; j < cx->n; j++) {
			if (cx->v[j].c == a)
				ia = j;
			else if (cx->v[j].c == b)
				ib = j;
		}
		if (ia != SIZE_MAX)
			cx->v[ia].links = ca->v[k].links;
		if (ib != SIZE_MAX) {
			if (ia == SIZE_MAX)
				cx->v[ib] = (struct nbr){ a, ca->v[k].links };
			else
				cx->v[ib] = cx->v[--cx->n];
		}
		ret = heap_push(s, a, ca->v[k].c, ca->v[k].links);
	}
	return ret;
}

static uint32_t root_of(uint32_t *label, uint32_t x)
{
	while (label[x] != x) {
		label[x] = label[label[x]];
		x = label[x];
	}
	return x;
}

int avglink_cluster(size_t n, const uint32_t *rank, const uint32_t (*edges)[2], size_t ne,
		    uint32_t *label)
{
	struct al s = { NULL, NULL, 0, 0 };
	uint64_t *ek = NULL;
	uint32_t *pos = NULL;
	size_t i, m = 0;
	int ret = -ENOMEM;

	if (n > UINT32_MAX - 1)
		return -EINVAL;
	for (i = 0; i < ne; i++)
		if (edges[i][0] >= n || edges[i][1] >= n)
			return -EINVAL;
	s.c = calloc(n ? n : 1, sizeof(*s.c));
	pos = calloc(n ? n : 1, sizeof(*pos));
	ek = malloc((ne ? ne : 1) * sizeof(*ek));
	if (!s.c || !pos || !ek)
		goto out;
	for (i = 0; i < n; i++) {
		s.c[i] = (struct clu){ NULL, 0, 0, 1, rank ? rank[i] : (uint32_t)i, 0, 1 };
		label[i] = (uint32_t)i;
	}
	/* each pair once, whichever way and however often it was given */
	for (i = 0; i < ne; i++) {
		uint64_t a = edges[i][0], b = edges[i][1];

		if (a != b)
			ek[m++] = a < b ? a << 32 | b : b << 32 | a;
	}
	if (m)
		rsort_u64(ek, m);
	for (i = 0, ret = 0; i < m && !ret; i++) {
		uint32_t a = (uint32_t)(ek[i] >> 32), b = (uint32_t)ek[i];

		if (i && ek[i] == ek[i - 1])
			continue;
		ret = nbr_add(&s.c[a], b, 1);
		if (!ret)
			ret = nbr_add(&s.c[b], a, 1);
		if (!ret)
			ret = heap_push(&s, a, b, 1);
	}
	while (!ret && s.nh) {
		struct hent e = heap_pop(&s);

		if (!s.c[e.a].alive || !s.c[e.b].alive || s.c[e.a].ver != e.va ||
		    s.c[e.b].ver != e.vb)
			continue;
		ret = merge(&s, e.a, e.b, pos);
		if (!ret)
			label[e.b] = e.a;
	}
	for (i = 0; !ret && i < n; i++)
		label[i] = root_of(label, (uint32_t)i);
out:
	for (i = 0; s.c && i < n; i++)
		free(s.c[i].v);
	free(s.c);
	free(s.h);
	free(pos);
	free(ek);
	return ret;
}
