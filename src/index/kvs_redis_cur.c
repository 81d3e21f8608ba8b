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
	/* the dup key kvs_dup_count() found; ready: c is on its first value */
	uint8_t dk[KVS_KEY_MAX];
	size_t dklen, dn;
	int ready;
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

void rd_cur_close(struct kvs_cur *c)
{
	free(c);
}

/* Positions c at the first row >= k (incl) or > k, before hi ('+': no
 * end, else '(' + the bound's bytes). */
static void position(struct rd_cur *c, const void *k, size_t klen, int incl, const uint8_t *hi,
		     size_t hilen)
{
	const struct rd_ovt *o = &c->tx->ov[c->table];

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

/* The next row of the merge: 0 with key and val, -ENOENT at the end. */
static int step(struct rd_cur *c, struct kvs_val *key, struct kvs_val *val)
{
	const struct rd_ovt *o = &c->tx->ov[c->table];
	const struct rd_ov *e;
	const struct rcl_reply *rk;
	int ret, cmp;

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

int rd_cur_seek(struct kvs_cur *cur, const void *k, size_t klen, struct kvs_val *key,
		struct kvs_val *val)
{
	struct rd_cur *c = (struct rd_cur *)cur;

	c->dklen = 0;
	c->ready = 0;
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

/* Puts c on dup key k: its members are [k, succ(k)), succ(k) the smallest
 * byte string above every string k prefixes ("+" when k is all 0xff). */
static void dup_position(struct rd_cur *c, const void *k, size_t klen)
{
	uint8_t hi[KVS_KEY_MAX + 1];
	size_t n = klen;

	memcpy(hi + 1, k, klen);
	while (n && hi[n] == 0xff)
		n--;
	if (n == 0) {
		hi[0] = '+';
		n = 0;
	} else {
		hi[0] = '(';
		hi[n]++;
	}
	position(c, k, klen, 1, hi, n + 1);
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
