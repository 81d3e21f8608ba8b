/* dedupplan.c - keep rules, relative link targets and group input of
 * `simbook dedup` (dedupplan.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dedupplan.h"

int dd_rules_keep(struct dd_rules *r, const char *name)
{
	static const char *const names[] = {
		[DD_KEEP_OLDEST] = "oldest", [DD_KEEP_NEWEST] = "newest",
		[DD_KEEP_LARGEST] = "largest", [DD_KEEP_SMALLEST] = "smallest",
		[DD_KEEP_SHORTEST] = "shortest-path",
	};
	int k;

	for (k = DD_KEEP_OLDEST; k <= DD_KEEP_SHORTEST; k++)
		if (!strcmp(name, names[k]))
			return dd_rules_add(r, (enum dd_rule_kind)k, name);
	return -EINVAL;
}

int dd_rules_add(struct dd_rules *r, enum dd_rule_kind kind, const char *arg)
{
	if (!arg || !*arg)
		return -EINVAL;
	if (r->n == DD_RULES_MAX)
		return -E2BIG;
	r->r[r->n].kind = kind;
	r->r[r->n].arg = arg;
	r->n++;
	return 0;
}

static int under(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);

	while (n > 1 && prefix[n - 1] == '/')
		n--;
	if (n == 1 && prefix[0] == '/')
		return path[0] == '/';
	return !strncmp(path, prefix, n) && (path[n] == '\0' || path[n] == '/');
}

/* Position of path's extension in the comma-separated list; past the end
 * when it is not listed. */
static size_t format_rank(const char *list, const char *path)
{
	const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.'), *p = list;
	size_t rank = 0, n;

	if (!dot || (slash && dot < slash))
		return (size_t)-1;
	dot++;
	while (*p) {
		n = strcspn(p, ",");
		if (n && strlen(dot) == n && !strncasecmp(p, dot, n))
			return rank;
		rank++;
		p += n + (p[n] == ',');
	}
	return (size_t)-1;
}

/* At or below prefix, as listed or as acted on (a library served by a
 * mount is named by either). */
static int prefer(const struct dd_member *m, const char *prefix)
{
	return under(m->abs, prefix) || (m->act && under(m->act, prefix));
}

static size_t depth(const char *p)
{
	size_t d = 0;

	for (; *p; p++)
		d += *p == '/';
	return d;
}

#define CMP(x, y) ((x) < (y) ? -1 : (x) > (y) ? 1 : 0)

static int shortest(const struct dd_member *a, const struct dd_member *b)
{
	int c = CMP(depth(a->path), depth(b->path));

	return c ? c : CMP(strlen(a->path), strlen(b->path));
}

int dd_cmp(const struct dd_rules *r, const struct dd_member *a, const struct dd_member *b)
{
	size_t i;
	int c = 0;

	for (i = 0; i < r->n && !c; i++) {
		const struct dd_rule *u = &r->r[i];

		switch (u->kind) {
		case DD_KEEP_OLDEST: c = CMP(a->mtime_ns, b->mtime_ns); break;
		case DD_KEEP_NEWEST: c = CMP(b->mtime_ns, a->mtime_ns); break;
		case DD_KEEP_LARGEST: c = CMP(b->size, a->size); break;
		case DD_KEEP_SMALLEST: c = CMP(a->size, b->size); break;
		case DD_KEEP_SHORTEST: c = shortest(a, b); break;
		case DD_PREFER_PREFIX: c = prefer(b, u->arg) - prefer(a, u->arg); break;
		case DD_PREFER_FORMAT:
			c = CMP(format_rank(u->arg, a->path), format_rank(u->arg, b->path));
			break;
		}
	}
	if (!c)
		c = shortest(a, b);
	return c ? c : strcmp(a->abs, b->abs);
}

static const struct dd_rules *sort_rules;

static int sort_cmp(const void *a, const void *b)
{
	return dd_cmp(sort_rules, a, b);
}

void dd_sort(const struct dd_rules *r, struct dd_group *g)
{
	sort_rules = r;
	qsort(g->m, g->n, sizeof(*g->m), sort_cmp);
	sort_rules = NULL;
}

int dd_relpath(const char *from_dir, const char *to, struct sbuf *out)
{
	size_t common = 0, i;
	int ret = 0;

	/* the longest common prefix that ends at a component boundary */
	for (i = 0; from_dir[i] && from_dir[i] == to[i]; i++)
		if (from_dir[i] == '/')
			common = i;
	if (!from_dir[i] && (to[i] == '/' || (!to[i] && i)))
		common = i;
	if (from_dir[common] == '/' && !from_dir[common + 1])
		common++;	/* from_dir is "/" */
	for (i = common; from_dir[i] && !ret; i++)
		if (from_dir[i] == '/' && from_dir[i + 1])
			ret = sbuf_addstr(out, "../");
	if (!ret && from_dir[common] && from_dir[common] != '/')
		ret = sbuf_addstr(out, "../");
	if (!ret)
		ret = sbuf_addstr(out, to + common + (to[common] == '/'));
	return ret;
}

/* ---- JSON group lines ---- */

struct jp {
	const char *p, *end;
};

static void ws(struct jp *j)
{
	while (j->p < j->end && strchr(" \t\r\n", *j->p))
		j->p++;
}

static int eat(struct jp *j, char c)
{
	ws(j);
	if (j->p < j->end && *j->p == c) {
		j->p++;
		return 1;
	}
	return 0;
}

static int hex4(struct jp *j, unsigned *v)
{
	int i, d;

	if (j->end - j->p < 4)
		return -EINVAL;
	for (*v = 0, i = 0; i < 4; i++) {
		char c = j->p[i];

		d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return -EINVAL;
		*v = *v << 4 | (unsigned)d;
	}
	j->p += 4;
	return 0;
}

static int add_utf8(struct sbuf *o, unsigned cp)
{
	char b[4];
	size_t n;

	if (cp < 0x80) {
		b[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | cp >> 6);
		b[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | cp >> 12);
		b[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		b[0] = (char)(0xf0 | cp >> 18);
		b[1] = (char)(0x80 | (cp >> 12 & 0x3f));
		b[2] = (char)(0x80 | (cp >> 6 & 0x3f));
		b[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	return sbuf_add(o, b, n);
}

/* A \u escape after the "\u": lone \udc80..\udcff is the raw byte. */
static int uesc(struct jp *j, struct sbuf *o)
{
	unsigned v, lo;

	if (hex4(j, &v))
		return -EINVAL;
	if (v >= 0xdc80 && v <= 0xdcff) {
		char c = (char)(v & 0xff);

		return sbuf_add(o, &c, 1);
	}
	if (v >= 0xd800 && v <= 0xdbff && j->end - j->p >= 6 && j->p[0] == '\\' &&
	    j->p[1] == 'u') {
		j->p += 2;
		if (hex4(j, &lo) || lo < 0xdc00 || lo > 0xdfff)
			return -EINVAL;
		v = 0x10000 + ((v - 0xd800) << 10) + (lo - 0xdc00);
	} else if (v >= 0xd800 && v <= 0xdfff) {
		return -EINVAL;
	}
	return add_utf8(o, v);
}

/* A string into o (NUL-terminated; o may be NULL to skip it). */
static int jstr(struct jp *j, struct sbuf *o)
{
	struct sbuf skip;
	int ret = 0;

	if (!eat(j, '"'))
		return -EINVAL;
	sbuf_init(&skip);
	if (!o)
		o = &skip;
	sbuf_setlen(o, 0);
	while (!ret) {
		const char *s = j->p;

		while (j->p < j->end && *j->p != '"' && *j->p != '\\')
			j->p++;
		ret = sbuf_add(o, s, (size_t)(j->p - s));
		if (ret || j->p >= j->end)
			break;
		if (*j->p++ == '"') {
			ret = sbuf_addch(o, '\0');	/* keeps o->buf a C string */
			if (!ret)
				sbuf_setlen(o, o->len - 1);
			sbuf_release(&skip);
			return ret;
		}
		if (j->p >= j->end)
			break;
		switch (*j->p++) {
		case '"': ret = sbuf_addch(o, '"'); break;
		case '\\': ret = sbuf_addch(o, '\\'); break;
		case '/': ret = sbuf_addch(o, '/'); break;
		case 'b': ret = sbuf_addch(o, '\b'); break;
		case 'f': ret = sbuf_addch(o, '\f'); break;
		case 'n': ret = sbuf_addch(o, '\n'); break;
		case 'r': ret = sbuf_addch(o, '\r'); break;
		case 't': ret = sbuf_addch(o, '\t'); break;
		case 'u': ret = uesc(j, o); break;
		default: ret = -EINVAL;
		}
	}
	sbuf_release(&skip);
	return ret ? ret : -EINVAL;
}

static int jnum(struct jp *j, uint64_t *v)
{
	const char *s;

	ws(j);
	s = j->p;
	*v = 0;
	while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
		*v = *v * 10 + (uint64_t)(*j->p++ - '0');
	while (j->p < j->end && strchr("+-.eE0123456789", *j->p))
		j->p++;
	return j->p > s ? 0 : -EINVAL;
}

/* Skips any value, nested at most 64 deep. */
static int jskip(struct jp *j, int depth)
{
	uint64_t v;
	char close;

	ws(j);
	if (j->p >= j->end || depth > 64)
		return -EINVAL;
	if (*j->p == '"')
		return jstr(j, NULL);
	if (*j->p != '{' && *j->p != '[') {
		static const char *const words[] = { "null", "true", "false" };
		size_t i, n;

		for (i = 0; i < 3; i++) {
			n = strlen(words[i]);
			if ((size_t)(j->end - j->p) >= n && !strncmp(j->p, words[i], n)) {
				j->p += n;
				return 0;
			}
		}
		return jnum(j, &v);
	}
	close = *j->p++ == '{' ? '}' : ']';
	if (eat(j, close))
		return 0;
	do {
		if (close == '}' && (jstr(j, NULL) || !eat(j, ':')))
			return -EINVAL;
		if (jskip(j, depth + 1))
			return -EINVAL;
	} while (eat(j, ','));
	return eat(j, close) ? 0 : -EINVAL;
}

static int jmember(struct jp *j, struct dd_member *m, struct sbuf *key, struct sbuf *val)
{
	int ret;

	if (!eat(j, '{'))
		return -EINVAL;
	if (eat(j, '}'))
		return -EINVAL;
	do {
		ret = jstr(j, key);
		if (!ret && !eat(j, ':'))
			ret = -EINVAL;
		if (ret)
			return ret;
		ws(j);
		if ((!strcmp(key->buf, "path") || !strcmp(key->buf, "abs")) && j->p < j->end &&
		    *j->p == '"') {
			char **dst = key->buf[0] == 'p' ? &m->path : &m->abs;

			ret = jstr(j, val);
			if (!ret && !*dst && !(*dst = strdup(val->buf)))
				ret = -ENOMEM;
		} else if (!strcmp(key->buf, "size") && j->p < j->end && *j->p != 'n') {
			ret = jnum(j, &m->size);
		} else {
			ret = jskip(j, 1);
		}
		if (ret)
			return ret;
	} while (eat(j, ','));
	return eat(j, '}') && m->abs ? 0 : -EINVAL;
}

int dd_json_group(const char *line, size_t len, struct dd_group *g)
{
	struct jp j = { line, line + len };
	struct sbuf key, val;
	struct dd_member *m;
	int ret = -EINVAL, seen = 0;

	memset(g, 0, sizeof(*g));
	sbuf_init(&key);
	sbuf_init(&val);
	if (!eat(&j, '{') || eat(&j, '}'))
		goto out;
	do {
		ret = jstr(&j, &key);
		if (!ret && !eat(&j, ':'))
			ret = -EINVAL;
		if (ret)
			goto out;
		if (strcmp(key.buf, "members")) {
			ret = jskip(&j, 1);
			if (ret)
				goto out;
			continue;
		}
		ret = -EINVAL;
		if (seen++ || !eat(&j, '['))
			goto out;
		if (eat(&j, ']'))
			continue;
		do {
			m = realloc(g->m, (g->n + 1) * sizeof(*m));
			if (!m) {
				ret = -ENOMEM;
				goto out;
			}
			g->m = m;
			memset(&m[g->n], 0, sizeof(*m));
			g->n++;
			ret = jmember(&j, &m[g->n - 1], &key, &val);
			if (ret)
				goto out;
			if (!m[g->n - 1].path && !(m[g->n - 1].path = strdup(m[g->n - 1].abs))) {
				ret = -ENOMEM;
				goto out;
			}
		} while (eat(&j, ','));
		ret = -EINVAL;
		if (!eat(&j, ']'))
			goto out;
	} while (eat(&j, ','));
	ret = -EINVAL;
	if (!eat(&j, '}') || !seen)
		goto out;
	ws(&j);
	ret = j.p == j.end ? 0 : -EINVAL;
out:
	sbuf_release(&key);
	sbuf_release(&val);
	if (ret)
		dd_group_release(g);
	return ret;
}

void dd_group_release(struct dd_group *g)
{
	size_t i;

	for (i = 0; i < g->n; i++) {
		free(g->m[i].path);
		free(g->m[i].abs);
		free(g->m[i].act);
	}
	free(g->m);
	g->n = 0;
	g->m = NULL;
}
