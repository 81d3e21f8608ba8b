/* kvs_redis.c - the Redis backend of the index's key-value store (kvs.h,
 * kvs_redis.h; kvs.c routes the calls here through rd_ops): the handle,
 * transactions (a write's overlay and its commit, read snapshots checked
 * against the version key) and rows.  Cursors and dup tables are in
 * kvs_redis_cur.c (kvs_redis_i.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "kvs_redis_i.h"

/* ---- replies the transaction keeps (values point into them) ---- */

int rd_keep(struct rd_tx *tx, struct rcl_reply *r)
{
	if (tx->nkept == tx->capkept) {
		size_t cap = tx->capkept ? tx->capkept * 2 : 16;
		struct rcl_reply **k = realloc(tx->kept, cap * sizeof(*k));

		if (!k) {
			rcl_reply_free(r);
			return -ENOMEM;
		}
		tx->kept = k;
		tx->capkept = cap;
	}
	tx->kept[tx->nkept++] = r;
	return 0;
}

int rd_cmp(const void *a, size_t alen, const void *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	return c ? c : (alen > blen) - (alen < blen);
}

/* ---- the overlay: a write's rows, per table in key order ---- */

static int ov_cmp(const void *pa, const void *pb)
{
	const struct rd_ov *a = pa, *b = pb;
	int c = rd_cmp(a->k, a->klen, b->k, b->klen);

	return c ? c : (a->seq > b->seq) - (a->seq < b->seq);
}

void rd_ov_sort(struct rd_ovt *t)
{
	size_t i, o = 0;

	if (t->sorted == t->n)
		return;
	qsort(t->e, t->n, sizeof(*t->e), ov_cmp);
	for (i = 0; i < t->n; i++) {
		if (i + 1 < t->n && rd_cmp(t->e[i].k, t->e[i].klen, t->e[i + 1].k,
					   t->e[i + 1].klen) == 0) {
			free(t->e[i].k);	/* a later row of the key follows */
			free(t->e[i].v);
			continue;
		}
		t->e[o++] = t->e[i];
	}
	t->n = t->sorted = o;
}

static size_t ov_search(const struct rd_ovt *t, const void *k, size_t klen)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rd_cmp(t->e[mid].k, t->e[mid].klen, k, klen) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t rd_ov_find(struct rd_ovt *t, const void *k, size_t klen)
{
	rd_ov_sort(t);
	return ov_search(t, k, klen);
}

int rd_ov_set(struct rd_tx *tx, int table, const void *k, size_t klen, const void *v,
	      size_t vlen, int del)
{
	struct rd_ovt *t = &tx->ov[table];
	uint8_t *nv = malloc(vlen ? vlen : 1), *nk;
	struct rd_ov *e;
	size_t i = t->n;

	if (!nv)
		return -ENOMEM;
	if (vlen)
		memcpy(nv, v, vlen);
	if (t->sorted == t->n && t->n &&
	    rd_cmp(t->e[t->n - 1].k, t->e[t->n - 1].klen, k, klen) >= 0) {
		i = ov_search(t, k, klen);
		if (rd_cmp(t->e[i].k, t->e[i].klen, k, klen) != 0)
			i = t->n;	/* appended, sorted in later */
	}
	if (i < t->n) {
		e = &t->e[i];
		free(e->v);
	} else {
		nk = malloc(klen);
		if (t->n == t->cap) {
			size_t cap = t->cap ? t->cap * 2 : 16;
			struct rd_ov *ne = realloc(t->e, cap * sizeof(*ne));

			if (!ne) {
				free(nk);
				nk = NULL;
			} else {
				t->e = ne;
				t->cap = cap;
			}
		}
		if (!nk) {
			free(nv);
			return -ENOMEM;
		}
		memcpy(nk, k, klen);
		/* still in order when above every row and all were */
		if (t->sorted == t->n && (t->n == 0 || rd_cmp(t->e[t->n - 1].k,
							       t->e[t->n - 1].klen, k, klen) < 0))
			t->sorted++;
		e = &t->e[t->n++];
		e->k = nk;
		e->klen = klen;
		e->seq = t->seq++;
	}
	e->v = nv;
	e->vlen = vlen;
	e->del = del;
	tx->dirty = 1;
	return 0;
}

static void ov_clear(struct rd_ovt *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		free(t->e[i].k);
		free(t->e[i].v);
	}
	t->n = t->sorted = 0;
}

static void tx_init(struct rd_tx *tx, struct kvs_redis *s, int write)
{
	memset(tx, 0, sizeof(*tx));
	tx->ops = &rd_ops;
	tx->s = s;
	tx->write = write;
}

static void tx_end(struct rd_tx *tx)
{
	size_t i;
	int t;

	for (i = 0; i < tx->nkept; i++)
		rcl_reply_free(tx->kept[i]);
	free(tx->kept);
	for (t = 0; t < KVS_TABLES; t++) {
		ov_clear(&tx->ov[t]);
		free(tx->ov[t].e);
	}
}

/* ---- commands ---- */

/* a server's error is -EIO */
int rd_cmd(struct kvs_redis *s, int argc, const char **argv, const size_t *argvlen,
	   struct rcl_reply **out)
{
	int ret = rd_gate(s);

	*out = NULL;
	if (!ret)
		ret = rcl_command(s->c, s->vkey, s->vkeylen, argc, argv, argvlen, out);
	if (ret && *out) {
		rcl_reply_free(*out);
		*out = NULL;
	}
	return ret;
}

/* The version key's value (0 when absent). */
static int version_get(struct kvs_redis *s, uint64_t *v)
{
	const char *argv[2] = { "GET", s->vkey };
	size_t argvlen[2] = { 3, s->vkeylen };
	struct rcl_reply *r = NULL;
	int ret = rd_cmd(s, 2, argv, argvlen, &r);

	if (ret)
		return ret;
	*v = 0;
	if (r->type == RCL_STRING)
		*v = strtoull(r->str, NULL, 10);
	else if (r->type != RCL_NIL)
		ret = -EIO;
	rcl_reply_free(r);
	return ret;
}

/* ---- the commit: MULTI, the overlay as batched commands, INCR, EXEC ---- */

#define BATCH 256

/* The commit's commands, sent in one round trip: argument vectors in one
 * array (cmd i is argc[i] arguments from first[i]). */
struct cmdq {
	const char **argv;
	size_t *argvlen, nargs, capargs;
	size_t *first;
	int *argc;
	size_t ncmd, capcmd;
};

static void q_start(struct cmdq *q, const char *cmd, const char *key, size_t keylen)
{
	q->first[q->ncmd] = q->nargs;
	q->argc[q->ncmd++] = 0;
	q->argv[q->nargs] = cmd;
	q->argvlen[q->nargs++] = strlen(cmd);
	q->argc[q->ncmd - 1]++;
	if (key) {
		q->argv[q->nargs] = key;
		q->argvlen[q->nargs++] = keylen;
		q->argc[q->ncmd - 1]++;
	}
}

static void q_add(struct cmdq *q, const void *p, size_t len)
{
	q->argv[q->nargs] = p;
	q->argvlen[q->nargs++] = len;
	q->argc[q->ncmd - 1]++;
}

/* Room for tx's commit: at most 4 arguments a row (ZADD's score and key,
 * HSET's key and value), a command per BATCH rows of each of the four
 * kinds of a table, the table's DEL, MULTI, INCR and EXEC. */
static int q_init(struct cmdq *q, const struct rd_tx *tx)
{
	size_t rows = 0;
	int t;

	memset(q, 0, sizeof(*q));
	for (t = 0; t < KVS_TABLES; t++)
		rows += tx->ov[t].n;
	q->capcmd = 3 + KVS_TABLES * 5 + 4 * (rows / BATCH + 1);
	q->capargs = 4 * rows + 3 * q->capcmd;
	q->argv = malloc(q->capargs * sizeof(*q->argv));
	q->argvlen = malloc(q->capargs * sizeof(*q->argvlen));
	q->first = malloc(q->capcmd * sizeof(*q->first));
	q->argc = malloc(q->capcmd * sizeof(*q->argc));
	return q->argv && q->argvlen && q->first && q->argc ? 0 : -ENOMEM;
}

static void q_free(struct cmdq *q)
{
	free(q->argv);
	free(q->argvlen);
	free(q->first);
	free(q->argc);
}

/* Queues table t's entries of one kind: what 0 (ZADD), 1 (HSET), 2 (ZREM),
 * 3 (HDEL), in commands of BATCH rows. */
static void queue_kind(struct kvs_redis *s, const struct rd_ovt *t, int table, int what,
		       struct cmdq *q)
{
	static const char *const cmds[] = { "ZADD", "HSET", "ZREM", "HDEL" };
	const char *key = what == 1 || what == 3 ? s->hkey[table] : s->zkey[table];
	size_t i, rows = 0;

	for (i = 0; i < t->n; i++) {
		const struct rd_ov *e = &t->e[i];

		if (e->del != (what >= 2))
			continue;
		if (rows++ % BATCH == 0)
			q_start(q, cmds[what], key, strlen(key));
		if (what == 0)
			q_add(q, "0", 1);
		q_add(q, e->k, e->klen);
		if (what == 1)
			q_add(q, e->v, e->vlen);
	}
}

static void queue_table(struct kvs_redis *s, const struct rd_tx *tx, int table, struct cmdq *q)
{
	const struct rd_ovt *t = &tx->ov[table];
	int what;

	if (t->cleared) {
		q_start(q, "DEL", s->zkey[table], strlen(s->zkey[table]));
		q_add(q, s->hkey[table], strlen(s->hkey[table]));
	}
	for (what = 0; what < 4; what++)
		if (!(t->dup && (what == 1 || what == 3)))
			queue_kind(s, t, table, what, q);
}

/* MULTI ... EXEC of tx's changes on the WATCHing session, in one round
 * trip: 0, -EAGAIN (run the write again), or -errno. */
static int commit(struct kvs_redis *s, struct rd_tx *tx)
{
	struct rcl_reply **out = NULL, *r;
	struct rcl_cmd *cmds = NULL;
	struct cmdq q;
	size_t i;
	int ret = q_init(&q, tx), t;

	if (ret)
		goto out;
	q_start(&q, "MULTI", NULL, 0);
	for (t = 0; t < KVS_TABLES; t++) {
		rd_ov_sort(&tx->ov[t]);
		if (tx->ov[t].n || tx->ov[t].cleared)
			queue_table(s, tx, t, &q);
	}
	q_start(&q, "INCR", s->vkey, s->vkeylen);
	q_start(&q, "EXEC", NULL, 0);
	cmds = malloc(q.ncmd * sizeof(*cmds));
	out = malloc(q.ncmd * sizeof(*out));
	if (!cmds || !out) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < q.ncmd; i++)
		cmds[i] = (struct rcl_cmd){ q.argc[i], q.argv + q.first[i], q.argvlen + q.first[i] };
	/* a read's late runs see no EXEC of this handle while they run */
	pthread_rwlock_wrlock(&s->clock);
	ret = rcl_session_pipeline(s->sess, q.ncmd, cmds, out);
	pthread_rwlock_unlock(&s->clock);
	if (ret == -EIO) {
		/* a command the server refused: EXEC aborted the transaction */
		for (i = 0; i < q.ncmd; i++)
			rcl_reply_free(out[i]);
		goto out;
	}
	if (ret)
		goto out;
	r = out[q.ncmd - 1];
	if (r->type == RCL_NIL)
		ret = -EAGAIN;	/* the WATCHed version moved: another writer */
	else if (r->type != RCL_ARRAY || r->n == 0)
		ret = -EIO;
	for (i = 0; ret == 0 && i < r->n; i++)
		if (r->elem[i]->type == RCL_ERROR)
			ret = -EIO;
	if (ret == 0 && r->elem[r->n - 1]->type == RCL_INTEGER)
		atomic_store(&s->gen, (uint64_t)r->elem[r->n - 1]->integer);
	for (i = 0; i < q.ncmd; i++)
		rcl_reply_free(out[i]);
out:
	free(cmds);
	free(out);
	q_free(&q);
	return ret;
}

static int sess_cmd(struct kvs_redis *s, int argc, const char **argv, const size_t *argvlen)
{
	struct rcl_reply *r = NULL;
	int ret = rcl_session_command(s->sess, argc, argv, argvlen, &r);

	rcl_reply_free(r);
	return ret;
}

/* WATCHes the version key on the handle's session (opened when there is
 * none): 0, -EAGAIN (the session died: run again) or -errno. */
static int watch(struct kvs_redis *s)
{
	const char *argv[2] = { "WATCH", s->vkey };
	size_t argvlen[2] = { 5, s->vkeylen };
	int ret;

	if (!s->sess) {
		ret = rcl_session_open(s->c, s->vkey, s->vkeylen, &s->sess);
		if (ret)
			return ret;
	}
	ret = sess_cmd(s, 2, argv, argvlen);
	if (ret == -EAGAIN) {
		rcl_session_close(s->sess);
		s->sess = NULL;
	}
	return ret;
}

static void unwatch(struct kvs_redis *s)
{
	const char *argv[1] = { "UNWATCH" };
	size_t argvlen[1] = { 7 };

	if (s->sess && sess_cmd(s, 1, argv, argvlen) == -EAGAIN) {
		rcl_session_close(s->sess);
		s->sess = NULL;
	}
}

static int changed(const struct rd_tx *tx)
{
	return tx->dirty;
}

/* A short pause before run n again: a few ms, growing, so two writers
 * that keep colliding drift apart. */
static void rerun_pause(int n)
{
	struct timespec ts = { 0, (long)(n < 10 ? n : 10) * 1000000L };

	if (n)
		nanosleep(&ts, NULL);
}

/* Tells the handles watching the store (kvs_watch()) of a commit.  A
 * message lost or sent twice costs nothing: it only says to look. */
static void publish(struct kvs_redis *s)
{
	char msg[48];
	const char *argv[3] = { "PUBLISH", s->chan, msg };
	size_t argvlen[3] = { 7, s->chan_len, 0 };
	struct rcl_reply *r = NULL;

	argvlen[2] = (size_t)snprintf(msg, sizeof(msg), "%llu %llx",
				      (unsigned long long)atomic_load(&s->gen),
				      (unsigned long long)s->self);
	rcl_command(s->c, NULL, 0, 3, argv, argvlen, &r);
	rcl_reply_free(r);
}

static int rd_write(struct kvs *kv, kvs_fn fn, void *arg)
{
	struct kvs_redis *s = (struct kvs_redis *)kv;
	struct rd_tx tx;
	int ret = rd_gate(s), n;

	if (ret)
		return ret;
	ret = -EAGAIN;
	pthread_mutex_lock(&s->wlock);
	for (n = 0; n < KVS_REDIS_WRITES; n++) {
		rerun_pause(n);
		ret = watch(s);
		if (ret == -EAGAIN)
			continue;
		if (ret)
			break;
		tx_init(&tx, s, 1);
		ret = fn((struct kvs_tx *)&tx, arg);
		if (ret >= 0 && changed(&tx)) {
			int c = commit(s, &tx);

			if (c == -EAGAIN) {
				/* a conflict, or the session died: close it either way */
				rcl_session_close(s->sess);
				s->sess = NULL;
				tx_end(&tx);
				continue;
			}
			if (c)
				ret = c;
			else
				publish(s);
		} else {
			unwatch(s);
		}
		tx_end(&tx);
		break;
	}
	pthread_mutex_unlock(&s->wlock);
	return rd_seen(s, ret);
}

static int rd_read(struct kvs *kv, kvs_fn fn, void *arg)
{
	struct kvs_redis *s = (struct kvs_redis *)kv;
	struct rd_tx tx;
	uint64_t g0 = 0, g1 = 0;
	int n, ret = rd_gate(s), vr;

	if (ret)
		return ret;
	for (n = 0; n < KVS_REDIS_READS; n++) {
		/* from the fourth run on, no commit of this handle overlaps */
		int locked = n >= 3;

		if (locked)
			pthread_rwlock_rdlock(&s->clock);
		vr = version_get(s, &g0);
		if (vr == 0) {
			tx_init(&tx, s, 0);
			ret = fn((struct kvs_tx *)&tx, arg);
			tx_end(&tx);
			vr = version_get(s, &g1);
		}
		if (locked)
			pthread_rwlock_unlock(&s->clock);
		if (vr)
			return rd_seen(s, vr);
		if (g0 == g1) {
			atomic_store(&s->gen, g1);
			return rd_seen(s, ret);
		}
		rerun_pause(n > 3 ? n - 3 : 0);
	}
	return -EAGAIN;
}

/* ---- rows ---- */

/* HGET of k in table: 0 with *r (a string), -ENOENT, or -errno. */
static int hget(struct kvs_redis *s, int table, const void *k, size_t klen,
		struct rcl_reply **r)
{
	const char *argv[3] = { "HGET", s->hkey[table], k };
	size_t argvlen[3] = { 4, strlen(s->hkey[table]), klen };
	int ret = rd_cmd(s, 3, argv, argvlen, r);

	if (ret == 0 && (*r)->type != RCL_STRING) {
		ret = (*r)->type == RCL_NIL ? -ENOENT : -EIO;
		rcl_reply_free(*r);
		*r = NULL;
	}
	return ret;
}

static int rd_get(struct kvs_tx *t, int table, const void *k, size_t klen, struct kvs_val *v)
{
	struct rd_tx *tx = (struct rd_tx *)t;
	struct rd_ovt *o = &tx->ov[table];
	struct rcl_reply *r = NULL;
	size_t i = rd_ov_find(o, k, klen);
	int ret;

	if (i < o->n && rd_cmp(o->e[i].k, o->e[i].klen, k, klen) == 0) {
		if (o->e[i].del)
			return -ENOENT;
		v->data = o->e[i].v;
		v->len = o->e[i].vlen;
		return 0;
	}
	if (o->cleared)
		return -ENOENT;
	ret = hget(tx->s, table, k, klen, &r);
	if (ret == 0)
		ret = rd_keep(tx, r);
	if (ret == 0) {
		v->data = r->str;
		v->len = r->len;
	}
	return ret;
}

static int rd_read_get(struct kvs *kv, int table, const void *k, size_t klen, kvs_get_fn fn,
		       void *arg)
{
	struct kvs_redis *s = (struct kvs_redis *)kv;
	struct kvs_val v = { NULL, 0 };
	struct rcl_reply *r = NULL;
	int ret = hget(s, table, k, klen, &r);

	if (ret && ret != -ENOENT)
		return rd_seen(s, ret);
	if (ret == 0) {
		v.data = r->str;
		v.len = r->len;
	}
	ret = fn(ret, &v, arg);
	rcl_reply_free(r);
	return ret;
}

static int key_ok(const struct rd_tx *tx, size_t klen)
{
	if (!tx->write)
		return -EACCES;
	return klen >= 1 && klen <= KVS_KEY_MAX ? 0 : -EINVAL;
}

static int rd_put(struct kvs_tx *t, int table, const void *k, size_t klen, const void *v,
		  size_t vlen)
{
	struct rd_tx *tx = (struct rd_tx *)t;
	int ret = key_ok(tx, klen);

	return ret ? ret : rd_ov_set(tx, table, k, klen, v, vlen, 0);
}

static int rd_del(struct kvs_tx *t, int table, const void *k, size_t klen)
{
	struct rd_tx *tx = (struct rd_tx *)t;
	int ret = key_ok(tx, klen);

	return ret ? ret : rd_ov_set(tx, table, k, klen, NULL, 0, 1);
}

static int rd_clear(struct kvs_tx *t, int table)
{
	struct rd_tx *tx = (struct rd_tx *)t;

	if (!tx->write)
		return -EACCES;
	ov_clear(&tx->ov[table]);
	tx->ov[table].cleared = 1;
	tx->dirty = 1;
	return 0;
}

/* How many of o's entries [from, to) are in the server's table: ZSCORE of
 * each, pipelined. */
int rd_ov_stored(struct rd_tx *tx, int table, size_t from, size_t to, uint64_t *n)
{
	struct kvs_redis *s = tx->s;
	const struct rd_ovt *o = &tx->ov[table];
	struct rcl_cmd cmds[BATCH];
	struct rcl_reply *out[BATCH];
	const char *argv[BATCH][3];
	size_t argvlen[BATCH][3], i, j, m;
	int ret;

	*n = 0;
	if (o->cleared)
		return 0;
	for (i = from; i < to; i += m) {
		m = to - i < BATCH ? to - i : BATCH;
		for (j = 0; j < m; j++) {
			argv[j][0] = "ZSCORE";
			argv[j][1] = s->zkey[table];
			argv[j][2] = (const char *)o->e[i + j].k;
			argvlen[j][0] = 6;
			argvlen[j][1] = strlen(s->zkey[table]);
			argvlen[j][2] = o->e[i + j].klen;
			cmds[j].argc = 3;
			cmds[j].argv = argv[j];
			cmds[j].argvlen = argvlen[j];
		}
		ret = rcl_pipeline(s->c, s->vkey, s->vkeylen, m, cmds, out);
		if (ret)
			return ret;
		for (j = 0; j < m; j++) {
			if (out[j]->type == RCL_ERROR)
				ret = -EIO;
			else if (out[j]->type != RCL_NIL)
				(*n)++;
			rcl_reply_free(out[j]);
		}
		if (ret)
			return ret;
	}
	return 0;
}

static int rd_rows(struct kvs_tx *t, int table, uint64_t *n)
{
	struct rd_tx *tx = (struct rd_tx *)t;
	struct kvs_redis *s = tx->s;
	struct rd_ovt *o = &tx->ov[table];
	const char *argv[2] = { "ZCARD", s->zkey[table] };
	size_t argvlen[2] = { 5, strlen(s->zkey[table]) }, i;
	struct rcl_reply *r = NULL;
	uint64_t stored = 0, total = 0;
	int ret = 0;

	*n = 0;
	rd_ov_sort(o);
	if (!o->cleared) {
		ret = rd_cmd(s, 2, argv, argvlen, &r);
		if (ret)
			return ret;
		if (r->type != RCL_INTEGER)
			ret = -EIO;
		total = (uint64_t)r->integer;
		rcl_reply_free(r);
	}
	if (ret == 0 && o->n)
		ret = rd_ov_stored(tx, table, 0, o->n, &stored);
	if (ret)
		return ret;
	total -= stored;
	for (i = 0; i < o->n; i++)
		total += !o->e[i].del;
	*n = total;
	return 0;
}

/* ---- the store ---- */

static int rd_sync(struct kvs *kv)
{
	(void)kv;
	return 0;
}

static uint64_t rd_generation(struct kvs *kv)
{
	return atomic_load(&((struct kvs_redis *)kv)->gen);
}

/* A message on the channel (msg NULL: subscribed again, news may be lost). */
static void heard(void *arg, const char *msg, size_t len)
{
	struct kvs_redis *s = arg;
	unsigned long long gen = 0, who = 0;
	char buf[64];
	uint64_t g;

	if (msg) {
		if (len >= sizeof(buf))
			return;
		memcpy(buf, msg, len);
		buf[len] = 0;
		if (sscanf(buf, "%llu %llx", &gen, &who) != 2 || who == s->self)
			return;
		g = atomic_load(&s->gen);
		while (g < gen && !atomic_compare_exchange_weak(&s->gen, &g, (uint64_t)gen))
			;
	} else if (version_get(s, &g) == 0) {
		atomic_store(&s->gen, g);
	}
	s->watch_fn(s->watch_arg);
}

static int rd_watch(struct kvs *kv, void (*fn)(void *arg), void *arg)
{
	struct kvs_redis *s = (struct kvs_redis *)kv;

	if (s->sub)
		return -EBUSY;
	pthread_mutex_lock(&s->hlock);
	s->watch_fn = fn;
	s->watch_arg = arg;
	pthread_mutex_unlock(&s->hlock);
	return rcl_sub_start(s->c, s->chan, s->chan_len, heard, s, &s->sub);
}

static void rd_free(struct kvs *kv)
{
	struct kvs_redis *s = (struct kvs_redis *)kv;

	rd_health_stop(s);
	if (s->sub)
		rcl_sub_stop(s->sub);
	rcl_session_close(s->sess);
	rcl_script_free(s->fetch);
	rcl_script_free(s->claim);
	rcl_script_free(s->unclaim);
	rcl_free(s->c);
	pthread_rwlock_destroy(&s->clock);
	pthread_mutex_destroy(&s->wlock);
	pthread_cond_destroy(&s->hcond);
	pthread_mutex_destroy(&s->hlock);
	free(s->uri);
	free(s);
}

const struct kvs_ops rd_ops = {
	rd_write, rd_read, rd_read_get, rd_get, rd_put, rd_del, rd_rows, rd_clear, rd_cur_open,
	rd_cur_close, rd_cur_seek, rd_cur_next, rd_dup_add, rd_dup_del, rd_dup_count,
	rd_dup_walk, rd_sync, rd_generation, rd_watch, rd_free, rd_health, rd_claim, rd_unclaim,
	rd_prefetch
};

/* why = "URI: reason" */
static void why_set(char *why, size_t n, const char *uri, const char *reason)
{
	if (why && n)
		snprintf(why, n, "%s: %s", uri, reason);
}

static int names_init(struct kvs_redis *s, const char *ns)
{
	int t;

	snprintf(s->vkey, sizeof(s->vkey), "{%s}:v", ns);
	s->vkeylen = strlen(s->vkey);
	for (t = 0; t < KVS_TABLES; t++) {
		snprintf(s->zkey[t], sizeof(s->zkey[t]), "{%s}:z:%d", ns, t);
		snprintf(s->hkey[t], sizeof(s->hkey[t]), "{%s}:h:%d", ns, t);
	}
	s->chan_len = (size_t)snprintf(s->chan, sizeof(s->chan), "{%s}:changes", ns);
	if (rcl_script_new(RD_CLAIM_LUA, &s->claim) || rcl_script_new(RD_UNCLAIM_LUA, &s->unclaim))
		return -ENOMEM;
	return rcl_script_new(RD_FETCH_LUA, &s->fetch);
}

int kvs_redis_open(const char *uri, struct kvs **out, char *why, size_t n)
{
	struct rcluri u = { 0 };
	struct kvs_redis *s = NULL;
	const char *reason = NULL;
	int ret;

	*out = NULL;
	ret = rcluri_parse(uri, &u, &reason);
	if (ret) {
		why_set(why, n, uri, reason ? reason : strerror(-ret));
		return ret;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		rcluri_release(&u);
		return -ENOMEM;
	}
	s->ops = &rd_ops;
	/* tells this handle's own messages from others' */
	s->self = ((uint64_t)getpid() << 32 ^ (uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)s) | 1;
	pthread_mutex_init(&s->wlock, NULL);
	pthread_rwlock_init(&s->clock, NULL);
	pthread_mutex_init(&s->hlock, NULL);
	ret = rd_health_init(s);
	if (ret) {
		pthread_mutex_destroy(&s->hlock);
		pthread_rwlock_destroy(&s->clock);
		pthread_mutex_destroy(&s->wlock);
		free(s);
		rcluri_release(&u);
		return ret;
	}
	s->uri = strdup(uri);
	ret = s->uri ? names_init(s, u.ns[0] ? u.ns : KVS_REDIS_NS) : -ENOMEM;
	if (ret == 0) {
		ret = rcl_open(&u, NULL, &s->c);
		if (ret)
			why_set(why, n, uri, strerror(-ret));
	}
	if (ret == 0) {
		uint64_t g = 0;

		ret = version_get(s, &g);
		atomic_store(&s->gen, g);
		if (ret)
			why_set(why, n, uri, strerror(-ret));
	}
	if (ret == 0)
		ret = rd_health_start(s);
	rcluri_release(&u);
	if (ret) {
		rd_free((struct kvs *)s);
		return ret;
	}
	*out = (struct kvs *)s;
	return 0;
}
