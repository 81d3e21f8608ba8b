/* kvs_redis_cur.c - the Redis store's cursors and dup tables (kvs.h,
 * kvs_redis_i.h).  A cursor merges the server's rows, fetched in growing
 * batches (RD_FETCH_LUA: keys and values in one round trip), with the
 * write's overlay, which wins on an equal key; a dup table's key is the
 * range of members key || value. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvs_redis_i.h"

#define BATCH_MIN 16
#define BATCH_MAX 1024
#define PF_ROWS 64	/* rows of a prefetched range */
#define RUN_MAX 256	/* dup values a kvs_dup_walk() call hands over at once */

struct rd_cur {
	const struct kvs_ops *ops;	/* first: kvs_ops.h */
	struct rd_tx *tx;
	int table;
	/* the server's rows: the batch (in a reply tx keeps) and where next */
	const struct rcl_reply *keys, *vals;
	size_t i, batch;
	int more;
	/* where the first batch starts: '-' or '[' / '(' and a key */
	uint8_t lo[KVS_KEY_MAX + 2];
	size_t lolen;
	/* where the rows end: "+" or '(' and a key (a dup key's range) */
	uint8_t hi[KVS_KEY_MAX + 2];
	size_t hilen;
	size_t oi;	/* the overlay's next entry */
	/* the key step() returned last (the overlay's place after a put) */
	uint8_t last[KVS_KEY_MAX];
	size_t lastlen;
	int haslast;
	/* the dup key kvs_dup_count() found; ready: c is on its first value */
	uint8_t dk[KVS_KEY_MAX];
	size_t dklen, dn;
	int ready;
	/* the prefetch (rd_prefetch()): its keys (npf of pfklen bytes), its
	 * kind, and two replies a key (kept by tx): a dup key's ZLEXCOUNT and
	 * ZRANGEBYLEX (NULL when not walked), or a range's keys and HMGET of
	 * their values (NULL when no key); pfi: the next key */
	uint8_t *pfkeys;
	const struct rcl_reply **pf;
	size_t npf, pfklen, pfplen, pfi;
	int pfdup;
};

int rd_cur_open(struct kvs_tx *t, int table, struct kvs_cur **out)
{
	struct rd_cur *c = calloc(1, sizeof(*c));

	*out = NULL;
	if (!c)
		return -ENOMEM;
	c->ops = &rd_ops;
	c->tx = (struct rd_tx *)t;
	c->table = table;
	*out = (struct kvs_cur *)c;
	return 0;
}

void rd_cur_close(struct kvs_cur *cur)
{
	struct rd_cur *c = (struct rd_cur *)cur;

	if (!c)
		return;
	free(c->pfkeys);
	free(c->pf);
	free(c);
}

/* Positions c at the first row >= k (incl) or > k, before hi ('+': no
 * end, else '(' + the bound's bytes). */
static void position(struct rd_cur *c, const void *k, size_t klen, int incl, const uint8_t *hi,
		     size_t hilen)
{
	struct rd_ovt *o = &c->tx->ov[c->table];

	c->keys = c->vals = NULL;
	c->i = 0;
	c->batch = BATCH_MIN;
	c->more = !o->cleared;
	if (k && klen) {
		c->lo[0] = incl ? '[' : '(';
		memcpy(c->lo + 1, k, klen);
		c->lolen = klen + 1;
	} else {
		c->lo[0] = '-';
		c->lolen = 1;
	}
	memcpy(c->hi, hi, hilen);
	c->hilen = hilen;
	c->haslast = 0;
	c->oi = k && klen ? rd_ov_find(o, k, klen) : 0;
	if (!incl && c->oi < o->n && rd_cmp(o->e[c->oi].k, o->e[c->oi].klen, k, klen) == 0)
		c->oi++;
}

/* The next batch of the server's rows after the current one; count (not
 * NULL: the first batch of a dup key) gets the range's size too. */
static int refill(struct rd_cur *c, size_t *count)
{
	struct kvs_redis *s = c->tx->s;
	const int dup = c->tx->ov[c->table].dup || c->dklen;
	const char *keys[2] = { s->zkey[c->table], s->hkey[c->table] };
	size_t keylens[2] = { strlen(keys[0]), strlen(keys[1]) };
	const char *args[4];
	size_t arglens[4];
	char lim[24];
	struct rcl_reply *r = NULL;
	int ret;

	if (c->keys && c->keys->n) {
		const struct rcl_reply *last = c->keys->elem[c->keys->n - 1];

		if (last->len > KVS_KEY_MAX)
			return -EIO;	/* not a key this store wrote */
		c->lo[0] = '(';
		memcpy(c->lo + 1, last->str, last->len);
		c->lolen = last->len + 1;
	}
	args[0] = (const char *)c->lo;
	arglens[0] = c->lolen;
	args[1] = (const char *)c->hi;
	arglens[1] = c->hilen;
	arglens[2] = (size_t)snprintf(lim, sizeof(lim), "%zu", c->batch);
	args[2] = lim;
	args[3] = count ? "c" : dup ? "0" : "1";
	arglens[3] = 1;
	ret = rcl_eval(s->c, s->fetch, 2, keys, keylens, 4, args, arglens, &r);
	if (ret) {
		rcl_reply_free(r);
		return ret;
	}
	ret = rd_keep(c->tx, r);
	if (ret)
		return ret;
	if (count) {
		if (r->type != RCL_ARRAY || r->n < 1 || r->elem[0]->type != RCL_INTEGER ||
		    r->elem[0]->integer < 0 || (r->n > 1 && r->elem[1]->type != RCL_ARRAY))
			return -EIO;
		*count = (size_t)r->elem[0]->integer;
		c->keys = r->n > 1 ? r->elem[1] : NULL;
		c->vals = NULL;
		c->i = 0;
		c->more = c->keys && c->keys->n == c->batch;
		c->batch *= 4;
		return 0;
	}
	if (r->type != RCL_ARRAY || r->n < 1 || r->elem[0]->type != RCL_ARRAY ||
	    (!dup && r->elem[0]->n && (r->n < 2 || r->elem[1]->n != r->elem[0]->n)))
		return -EIO;
	c->keys = r->elem[0];
	c->vals = r->n > 1 ? r->elem[1] : NULL;
	c->i = 0;
	c->more = c->keys->n == c->batch;
	if (c->batch < BATCH_MAX)
		c->batch *= 4;
	return 0;
}

/* Is overlay entry e before the cursor's end? */
static int before_hi(const struct rd_cur *c, const struct rd_ov *e)
{
	if (c->hilen == 1 && c->hi[0] == '+')
		return 1;
	return rd_cmp(e->k, e->klen, c->hi + 1, c->hilen - 1) < 0;
}

static int step_row(struct rd_cur *c, struct kvs_val *key, struct kvs_val *val);

/* The next row of the merge (put aside in c->last): 0 with key and val,
 * -ENOENT at the end. */
static int step(struct rd_cur *c, struct kvs_val *key, struct kvs_val *val)
{
	int ret = step_row(c, key, val);

	if (ret == 0 && key->len <= KVS_KEY_MAX) {
		memcpy(c->last, key->data, key->len);
		c->lastlen = key->len;
		c->haslast = 1;
	}
	return ret;
}

/* The row step() gives. */
static int step_row(struct rd_cur *c, struct kvs_val *key, struct kvs_val *val)
{
	struct rd_ovt *o = &c->tx->ov[c->table];
	const struct rd_ov *e;
	const struct rcl_reply *rk;
	int ret, cmp;

	if (o->sorted != o->n && c->haslast) {
		/* rows put since the last step: the next is after the last key */
		c->oi = rd_ov_find(o, c->last, c->lastlen);
		if (c->oi < o->n && rd_cmp(o->e[c->oi].k, o->e[c->oi].klen, c->last,
					   c->lastlen) == 0)
			c->oi++;
	}
	rd_ov_sort(o);

	for (;;) {
		rk = NULL;
		if ((!c->keys || c->i == c->keys->n) && c->more) {
			ret = refill(c, NULL);
			if (ret)
				return ret;
		}
		if (c->keys && c->i < c->keys->n)
			rk = c->keys->elem[c->i];
		e = c->oi < o->n && before_hi(c, &o->e[c->oi]) ? &o->e[c->oi] : NULL;
		if (!rk && !e)
			return -ENOENT;
		cmp = !rk ? 1 : !e ? -1 : rd_cmp(rk->str, rk->len, e->k, e->klen);
		if (cmp < 0) {
			const struct rcl_reply *rv = c->vals ? c->vals->elem[c->i] : NULL;

			if (rk->type != RCL_STRING || (c->vals && rv->type != RCL_STRING))
				return -EIO;	/* a key without its value: not ours */
			key->data = rk->str;
			key->len = rk->len;
			val->data = rv ? rv->str : "";
			val->len = rv ? rv->len : 0;
			c->i++;
			return 0;
		}
		if (cmp == 0)
			c->i++;
		c->oi++;
		if (e->del)
			continue;
		key->data = e->k;
		key->len = e->klen;
		val->data = e->v;
		val->len = e->vlen;
		return 0;
	}
}

static size_t dup_hi(const void *k, size_t klen, uint8_t hi[KVS_KEY_MAX + 1]);
static size_t pf_find(struct rd_cur *c, const void *k, size_t klen, int dup);

int rd_cur_seek(struct kvs_cur *cur, const void *k, size_t klen, struct kvs_val *key,
		struct kvs_val *val)
{
	struct rd_cur *c = (struct rd_cur *)cur;

	size_t i = c->npf ? pf_find(c, k, klen, 0) : 0;

	c->dklen = 0;
	c->ready = 0;
	if (i < c->npf) {
		/* the prefetched range: rows up to the end of the key's prefix */
		uint8_t hi[KVS_KEY_MAX + 1];

		position(c, k, klen, 1, hi, dup_hi(k, c->pfplen, hi));
		c->keys = c->pf[2 * i]->n ? c->pf[2 * i] : NULL;
		c->vals = c->pf[2 * i + 1];
		c->more = c->pf[2 * i]->n == PF_ROWS;
		c->batch = PF_ROWS;
		return step(c, key, val);
	}
	position(c, k, klen, 1, (const uint8_t *)"+", 1);
	return step(c, key, val);
}

int rd_cur_next(struct kvs_cur *cur, struct kvs_val *key, struct kvs_val *val)
{
	return step((struct rd_cur *)cur, key, val);
}

/* ---- dup tables ---- */

static int dup_change(struct kvs_tx *t, int table, const void *keys, size_t klen, size_t nkeys,
		      const void *v, size_t vlen, int del)
{
	struct rd_tx *tx = (struct rd_tx *)t;
	uint8_t m[KVS_KEY_MAX + 1];
	size_t i;
	int ret = 0;

	if (!tx->write)
		return -EACCES;
	if (klen == 0 || klen + vlen > KVS_KEY_MAX)
		return -EINVAL;
	tx->ov[table].dup = 1;
	for (i = 0; i < nkeys && ret == 0; i++) {
		memcpy(m, (const uint8_t *)keys + klen * i, klen);
		memcpy(m + klen, v, vlen);
		ret = rd_ov_set(tx, table, m, klen + vlen, NULL, 0, del);
	}
	return ret;
}

int rd_dup_add(struct kvs_tx *tx, int table, const void *keys, size_t klen, size_t nkeys,
	       const void *v, size_t vlen)
{
	return dup_change(tx, table, keys, klen, nkeys, v, vlen, 0);
}

int rd_dup_del(struct kvs_tx *tx, int table, const void *keys, size_t klen, size_t nkeys,
	       const void *v, size_t vlen)
{
	return dup_change(tx, table, keys, klen, nkeys, v, vlen, 1);
}

/* The upper bound of dup key k's members [k, succ(k)) into hi: succ(k)
 * the smallest byte string above every string k prefixes ("+" when k is
 * all 0xff).  Returns its length. */
static size_t dup_hi(const void *k, size_t klen, uint8_t hi[KVS_KEY_MAX + 1])
{
	size_t n = klen;

	memcpy(hi + 1, k, klen);
	while (n && hi[n] == 0xff)
		n--;
	if (n == 0) {
		hi[0] = '+';
		return 1;
	}
	hi[0] = '(';
	hi[n]++;
	return n + 1;
}

/* Puts c on dup key k. */
static void dup_position(struct rd_cur *c, const void *k, size_t klen)
{
	uint8_t hi[KVS_KEY_MAX + 1];
	size_t n = dup_hi(k, klen, hi);

	position(c, k, klen, 1, hi, n);
}

/* Keys a pipeline of the prefetch asks for at once. */
#define PF_BATCH 256

/* Argument vectors of one pipeline of up to PF_BATCH commands of up to 8
 * arguments, with room for a range's bounds. */
struct pfq {
	struct rcl_cmd cmds[PF_BATCH];
	struct rcl_reply *out[PF_BATCH];
	const char *argv[PF_BATCH][8];
	size_t argvlen[PF_BATCH][8];
	uint8_t lo[PF_BATCH][KVS_KEY_MAX + 1], hi[PF_BATCH][KVS_KEY_MAX + 1];
	char lim[PF_BATCH][24];
	size_t n;
};

static const char **pfq_cmd(struct pfq *q, size_t **lens, int argc)
{
	struct rcl_cmd *c = &q->cmds[q->n];

	c->argc = argc;
	c->argv = q->argv[q->n];
	c->argvlen = q->argvlen[q->n];
	*lens = q->argvlen[q->n];
	return q->argv[q->n++];
}

/* Queues ZLEXCOUNT (count) or ZRANGEBYLEX ... LIMIT 0 lim of key i's range. */
static void pfq_range(struct pfq *q, struct rd_cur *c, size_t i, int count, size_t lim)
{
	struct kvs_redis *s = c->tx->s;
	const uint8_t *k = c->pfkeys + i * c->pfklen;
	uint8_t *lo = q->lo[q->n], *hi = q->hi[q->n];
	size_t *al, hilen;
	const char **a = pfq_cmd(q, &al, count ? 4 : 7);

	lo[0] = '[';
	memcpy(lo + 1, k, c->pfklen);
	hilen = dup_hi(k, c->pfplen, hi);
	a[0] = count ? "ZLEXCOUNT" : "ZRANGEBYLEX";
	al[0] = strlen(a[0]);
	a[1] = s->zkey[c->table], al[1] = strlen(a[1]);
	a[2] = (const char *)lo, al[2] = c->pfklen + 1;
	a[3] = (const char *)hi, al[3] = hilen;
	if (!count) {
		a[4] = "LIMIT", al[4] = 5;
		a[5] = "0", al[5] = 1;
		a[6] = q->lim[q->n - 1];
		al[6] = (size_t)snprintf(q->lim[q->n - 1], sizeof(q->lim[0]), "%zu", lim);
	}
}

/* Sends q's commands; the replies kept, out[j] into c->pf[idx[j]]
 * (checked to be of type want[j]). */
static int pfq_run(struct pfq *q, struct rd_cur *c, const size_t *idx,
		   const enum rcl_type *want)
{
	struct kvs_redis *s = c->tx->s;
	size_t j;
	int ret;

	if (!q->n)
		return 0;
	ret = rcl_pipeline(s->c, s->vkey, s->vkeylen, q->n, q->cmds, q->out);
	for (j = 0; j < q->n; j++) {
		if (ret == 0 && q->out[j]->type != want[j])
			ret = -EIO;
		if (ret == 0) {
			ret = rd_keep(c->tx, q->out[j]);
			if (ret == 0)
				c->pf[idx[j]] = q->out[j];
		} else {
			rcl_reply_free(q->out[j]);
		}
		q->out[j] = NULL;
	}
	q->n = 0;
	return ret;
}

/* The first phase: each key's ZLEXCOUNT (dup) or range of at most PF_ROWS
 * keys; then a dup key's values when it has at most max, in one pipeline
 * a PF_BATCH keys. */
static int prefetch_keys(struct rd_cur *c, struct pfq *q, int phase, size_t max)
{
	size_t idx[PF_BATCH], i;
	enum rcl_type want[PF_BATCH];
	int ret = 0;

	for (i = 0; i < c->npf && ret == 0; i++) {
		const struct rcl_reply *r = c->pf[2 * i];

		if (phase == 0) {
			pfq_range(q, c, i, c->pfdup, PF_ROWS);
			want[q->n - 1] = c->pfdup ? RCL_INTEGER : RCL_ARRAY;
		} else {
			if (r->integer <= 0 || (size_t)r->integer > max)
				continue;
			pfq_range(q, c, i, 0, (size_t)r->integer);
			want[q->n - 1] = RCL_ARRAY;
		}
		idx[q->n - 1] = 2 * i + (size_t)phase;
		if (q->n == PF_BATCH)
			ret = pfq_run(q, c, idx, want);
	}
	return ret ? ret : pfq_run(q, c, idx, want);
}

/* The values of the ranges' keys: HMGET of each range with keys, in one
 * pipeline. */
static int prefetch_vals(struct rd_cur *c)
{
	struct kvs_redis *s = c->tx->s;
	const char *hk = s->hkey[c->table];
	size_t i, j, m = 0, nargs = 0, *idx = NULL, *argvlen = NULL;
	struct rcl_cmd *cmds = NULL;
	struct rcl_reply **out = NULL;
	const char **argv = NULL;
	int ret = -ENOMEM;

	for (i = 0; i < c->npf; i++)
		if (c->pf[2 * i]->n) {
			m++;
			nargs += 2 + c->pf[2 * i]->n;
		}
	if (m == 0)
		return 0;
	cmds = calloc(m, sizeof(*cmds));
	out = calloc(m, sizeof(*out));
	idx = calloc(m, sizeof(*idx));
	argv = calloc(nargs, sizeof(*argv));
	argvlen = calloc(nargs, sizeof(*argvlen));
	if (!cmds || !out || !idx || !argv || !argvlen)
		goto out;
	m = nargs = 0;
	for (i = 0; i < c->npf; i++) {
		const struct rcl_reply *r = c->pf[2 * i];

		if (!r->n)
			continue;
		cmds[m] = (struct rcl_cmd){ (int)(2 + r->n), argv + nargs, argvlen + nargs };
		idx[m++] = 2 * i + 1;
		argv[nargs] = "HMGET", argvlen[nargs++] = 5;
		argv[nargs] = hk, argvlen[nargs++] = strlen(hk);
		for (j = 0; j < r->n; j++) {
			if (r->elem[j]->type != RCL_STRING)
				ret = -EIO;
			argv[nargs] = r->elem[j]->str, argvlen[nargs++] = r->elem[j]->len;
		}
	}
	if (ret == -EIO)
		goto out;
	ret = rcl_pipeline(s->c, s->vkey, s->vkeylen, m, cmds, out);
	for (i = 0; i < m; i++) {
		if (ret == 0 && (out[i]->type != RCL_ARRAY ||
				 out[i]->n != c->pf[idx[i] - 1]->n))
			ret = -EIO;
		if (ret == 0) {
			ret = rd_keep(c->tx, out[i]);
			if (ret == 0)
				c->pf[idx[i]] = out[i];
		} else {
			rcl_reply_free(out[i]);
		}
	}
out:
	free(cmds);
	free(out);
	free(idx);
	free(argv);
	free(argvlen);
	return ret;
}

int rd_prefetch(struct kvs_cur *cur, const void *keys, size_t klen, size_t nkeys, size_t max,
		int dup)
{
	struct rd_cur *c = (struct rd_cur *)cur;
	const struct rd_ovt *o = &c->tx->ov[c->table];
	struct pfq *q = NULL;
	int ret;

	free(c->pfkeys);
	free(c->pf);
	c->pfkeys = NULL;
	c->pf = NULL;
	c->npf = c->pfi = 0;
	/* a write's own rows of the table: the lookups merge them one by one */
	if (nkeys == 0 || klen == 0 || klen > KVS_KEY_MAX || o->n || o->cleared)
		return 0;
	c->pfkeys = malloc(nkeys * klen);
	c->pf = calloc(2 * nkeys, sizeof(*c->pf));
	q = malloc(sizeof(*q));
	if (!c->pfkeys || !c->pf || !q) {
		free(q);
		return -ENOMEM;
	}
	memcpy(c->pfkeys, keys, nkeys * klen);
	c->pfklen = klen;
	c->pfplen = dup ? klen : max;
	c->pfdup = dup;
	c->npf = nkeys;
	q->n = 0;
	ret = prefetch_keys(c, q, 0, max);
	if (ret == 0)
		ret = dup ? prefetch_keys(c, q, 1, max) : prefetch_vals(c);
	free(q);
	if (ret)
		c->npf = 0;
	return ret;
}

/* The prefetch's index of key k (npf when not fetched), the next first. */
static size_t pf_find(struct rd_cur *c, const void *k, size_t klen, int dup)
{
	size_t i = c->pfi;

	if (klen != c->pfklen || dup != c->pfdup || c->tx->ov[c->table].n ||
	    c->tx->ov[c->table].cleared)
		return c->npf;
	if (i >= c->npf || memcmp(c->pfkeys + i * klen, k, klen) != 0)
		for (i = 0; i < c->npf && memcmp(c->pfkeys + i * klen, k, klen) != 0; i++)
			;
	if (i < c->npf)
		c->pfi = i + 1;
	return i;
}

/* The prefetched answer of dup key k: c on k as refill(c, n) would leave
 * it; 1, or 0 when not fetched. */
static int prefetched(struct rd_cur *c, const void *k, size_t klen, size_t *n)
{
	const struct rcl_reply *keys;
	size_t i = pf_find(c, k, klen, 1);

	if (i == c->npf || c->pf[2 * i]->integer < 0)
		return 0;
	*n = (size_t)c->pf[2 * i]->integer;
	keys = c->pf[2 * i + 1];
	c->keys = keys && keys->n ? keys : NULL;
	c->vals = NULL;
	c->i = 0;
	c->more = *n > (keys ? keys->n : 0);
	return 1;
}

int rd_dup_count(struct kvs_cur *cur, const void *k, size_t klen, size_t *n)
{
	struct rd_cur *c = (struct rd_cur *)cur;
	const struct rd_ovt *o = &c->tx->ov[c->table];
	struct kvs_val key, val;
	int ret;

	*n = 0;
	if (klen == 0 || klen > KVS_KEY_MAX)
		return -EINVAL;
	memcpy(c->dk, k, klen);
	c->dklen = klen;
	c->ready = 0;
	dup_position(c, k, klen);
	if (prefetched(c, k, klen, n)) {
		c->dn = *n;
		c->ready = 1;
		return 0;
	}
	if (!o->cleared && !(c->oi < o->n && before_hi(c, &o->e[c->oi]))) {
		/* the server's rows alone: counted there, with the first
		 * values that kvs_dup_walk() would fetch next */
		ret = refill(c, n);
		c->dn = ret ? 0 : *n;
		c->ready = ret == 0;
		return ret;
	}
	while ((ret = step(c, &key, &val)) == 0)
		(*n)++;
	c->dn = *n;
	return ret == -ENOENT ? 0 : ret;
}

int rd_dup_walk(struct kvs_cur *cur, kvs_dup_fn fn, void *arg)
{
	struct rd_cur *c = (struct rd_cur *)cur;
	struct kvs_val key, val;
	uint8_t *buf = NULL;
	size_t vlen = 0, n = 0;
	int ret;

	if (!c->dklen || !c->dn)
		return 0;
	if (!c->ready)
		dup_position(c, c->dk, c->dklen);
	c->ready = 0;
	while ((ret = step(c, &key, &val)) == 0) {
		if (!buf) {
			vlen = key.len - c->dklen;
			if (vlen == 0)
				return 0;
			buf = malloc(vlen * RUN_MAX);
			if (!buf)
				return -ENOMEM;
		}
		if (key.len != c->dklen + vlen) {
			ret = -EIO;
			break;
		}
		memcpy(buf + n * vlen, (const uint8_t *)key.data + c->dklen, vlen);
		if (++n == RUN_MAX) {
			ret = fn(buf, n, vlen, arg);
			n = 0;
			if (ret)
				break;
		}
	}
	if (ret == -ENOENT)
		ret = n ? fn(buf, n, vlen, arg) : 0;
	free(buf);
	return ret < 0 ? ret : 0;
}
