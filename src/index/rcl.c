/* rcl.c - the Redis / Redis Cluster client: topology, routing by slot,
 * redirections, retries until a deadline, pipelines, sessions, scripts.
 * The subscriber lives in rcl_sub.c. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "keyslot.h"
#include "monoclock.h"
#include "rcl_i.h"

#define RCL_MAX_REDIRECTS 16
#define RCL_BACKOFF_MIN_NS 10000000LL
#define RCL_BACKOFF_MAX_NS 500000000LL

/* A server: its shared connection, used by one round trip at a time.
 * Nodes are only added while the handle lives, so pointers stay valid. */
struct rcl_node {
	char host[256];
	int port;
	redisContext *ctx;	/* NULL until connected or after a failure */
	pthread_mutex_t lock;	/* the connection */
	struct rcl_node *next;
};

struct rcl {
	struct rcl_opts o;
	struct rcluri seeds;
	int cluster;
	pthread_mutex_t topo;	/* nodes, slots, err */
	struct rcl_node *nodes;
	struct rcl_node *slots[KEYSLOT_COUNT];	/* NULL: unknown, ask any node */
	char err[256];
};

struct rcl_session {
	struct rcl *c;
	redisContext *ctx;
	int dead;
};

struct rcl_script {
	char *body;
	pthread_mutex_t lock;
	char sha[48];	/* "" until a node gave it */
};

static struct timeval ms_tv(int ms)
{
	struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };

	return tv;
}

int rcl_transport_error(int err)
{
	switch (-err) {
	case ECONNREFUSED:
	case ECONNRESET:
	case ECONNABORTED:
	case EHOSTUNREACH:
	case EHOSTDOWN:
	case ENETUNREACH:
	case ETIMEDOUT:
	case EPIPE:
	case ENOTCONN:
		return 1;
	default:
		return 0;
	}
}

const struct rcl_opts *rcl_i_opts(const struct rcl *c)
{
	return &c->o;
}

int rcl_i_ctx_errno(const redisContext *ctx)
{
	static const int known[] = { ECONNREFUSED, ETIMEDOUT, ECONNRESET, EHOSTUNREACH,
				     ENETUNREACH, EPIPE, ECONNABORTED, EADDRNOTAVAIL };

	if (!ctx)
		return -ENOMEM;
	if (ctx->err == REDIS_ERR_EOF)
		return -ECONNRESET;
	if (ctx->err == REDIS_ERR_OOM)
		return -ENOMEM;
	if (ctx->err != REDIS_ERR_IO)
		return -EIO;
	/* hiredis keeps the text of errno, not errno itself */
	if (strcmp(ctx->errstr, strerror(EAGAIN)) == 0 || strstr(ctx->errstr, "timed out"))
		return -ETIMEDOUT;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(ctx->errstr, strerror(known[i])) == 0)
			return -known[i];
	return -EIO;
}

static void set_err(struct rcl *c, const char *host, int port, const char *what)
{
	char msg[sizeof(c->err)];
	int n = snprintf(msg, sizeof(msg), "%.200s:%d: ", host, port);

	/* the reason is cut, never the address */
	snprintf(msg + n, sizeof(msg) - (size_t)n, "%s", what);
	pthread_mutex_lock(&c->topo);
	memcpy(c->err, msg, sizeof(msg));
	pthread_mutex_unlock(&c->topo);
}

void rcl_last_error(struct rcl *c, char *buf, size_t n)
{
	pthread_mutex_lock(&c->topo);
	snprintf(buf, n, "%s", c->err);
	pthread_mutex_unlock(&c->topo);
}

static int ctx_open(struct rcl *c, const char *host, int port, int read_timeout,
		    redisContext **out)
{
	redisContext *ctx = redisConnectWithTimeout(host, port, ms_tv(c->o.timeout_ms));
	int ret;

	*out = NULL;
	if (!ctx || ctx->err) {
		ret = rcl_i_ctx_errno(ctx);
		set_err(c, host, port, ctx ? ctx->errstr : "out of memory");
		if (ctx)
			redisFree(ctx);
		return ret;
	}
	if (read_timeout && redisSetTimeout(ctx, ms_tv(c->o.timeout_ms)) != REDIS_OK) {
		set_err(c, host, port, "cannot set the timeout");
		redisFree(ctx);
		return -EIO;
	}
	redisEnableKeepAlive(ctx);
	*out = ctx;
	return 0;
}

/* The node host:port, added when new.  Called with c->topo held. */
static struct rcl_node *node_get_locked(struct rcl *c, const char *host, int port)
{
	struct rcl_node *n;

	for (n = c->nodes; n; n = n->next)
		if (n->port == port && strcmp(n->host, host) == 0)
			return n;
	n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	snprintf(n->host, sizeof(n->host), "%s", host);
	n->port = port;
	pthread_mutex_init(&n->lock, NULL);
	n->next = c->nodes;
	c->nodes = n;
	return n;
}

static struct rcl_node *node_get(struct rcl *c, const char *host, int port)
{
	struct rcl_node *n;

	pthread_mutex_lock(&c->topo);
	n = node_get_locked(c, host, port);
	pthread_mutex_unlock(&c->topo);
	return n;
}

/* The master of slot (slot < 0: any node): the map's, or the newest node. */
static struct rcl_node *route(struct rcl *c, int slot)
{
	struct rcl_node *n;

	pthread_mutex_lock(&c->topo);
	n = slot >= 0 ? c->slots[slot] : NULL;
	if (!n)
		n = c->nodes;
	pthread_mutex_unlock(&c->topo);
	return n;
}

/* One round trip on node: cmds[idx[k]] for k < m, each after an ASKING when
 * asking[idx[k]], replies into rep[idx[k]].  On a transport failure the
 * connection is dropped, no reply is kept and a negative errno returned. */
static int node_exchange(struct rcl *c, struct rcl_node *node, const struct rcl_cmd *cmds,
			 const size_t *idx, size_t m, const char *asking, redisReply **rep)
{
	static const char *ask_argv[] = { "ASKING" };
	static const size_t ask_len[] = { 6 };
	size_t k = 0;
	int ret = 0;

	pthread_mutex_lock(&node->lock);
	if (!node->ctx && (ret = ctx_open(c, node->host, node->port, 1, &node->ctx)) != 0)
		goto out;
	for (k = 0; k < m; k++) {
		const struct rcl_cmd *cmd = &cmds[idx[k]];

		if (asking[idx[k]])
			redisAppendCommandArgv(node->ctx, 1, ask_argv, ask_len);
		redisAppendCommandArgv(node->ctx, cmd->argc, cmd->argv, cmd->argvlen);
	}
	for (k = 0; k < m; k++) {
		void *r = NULL;

		if (asking[idx[k]]) {
			if (redisGetReply(node->ctx, &r) != REDIS_OK)
				break;
			freeReplyObject(r);
		}
		if (redisGetReply(node->ctx, &r) != REDIS_OK)
			break;
		rep[idx[k]] = r;
	}
	if (k < m) {
		ret = rcl_i_ctx_errno(node->ctx);
		set_err(c, node->host, node->port, node->ctx->errstr);
		redisFree(node->ctx);
		node->ctx = NULL;
		while (k-- > 0) {
			freeReplyObject(rep[idx[k]]);
			rep[idx[k]] = NULL;
		}
	}
out:
	pthread_mutex_unlock(&node->lock);
	return ret;
}

static int is_err(const redisReply *r, const char *prefix)
{
	size_t n = strlen(prefix);

	return r && r->type == REDIS_REPLY_ERROR && r->len >= n && memcmp(r->str, prefix, n) == 0;
}

/* A server state that passes: a failover or a slot migration under way. */
static int is_transient(const redisReply *r)
{
	return is_err(r, "TRYAGAIN") || is_err(r, "CLUSTERDOWN") || is_err(r, "LOADING") ||
	       is_err(r, "MASTERDOWN") || is_err(r, "READONLY");
}

/* "MOVED 3999 127.0.0.1:6381" or "ASK ...": the target node, or NULL. */
static struct rcl_node *redirect_target(struct rcl *c, const redisReply *r, int *slot)
{
	char host[256];
	const char *sp, *colon;
	size_t hl;

	sp = memchr(r->str, ' ', r->len);
	if (!sp)
		return NULL;
	*slot = atoi(sp + 1);
	sp = strchr(sp + 1, ' ');
	colon = sp ? strrchr(sp, ':') : NULL;
	if (!colon || *slot < 0 || *slot >= KEYSLOT_COUNT)
		return NULL;
	hl = (size_t)(colon - sp - 1);
	if (hl == 0 || hl >= sizeof(host))
		return NULL;
	memcpy(host, sp + 1, hl);
	host[hl] = '\0';
	return node_get(c, host, atoi(colon + 1));
}

/* Applies one CLUSTER SLOTS reply from node `from`. */
static int apply_slots(struct rcl *c, const struct rcl_node *from, const redisReply *r)
{
	if (r->type != REDIS_REPLY_ARRAY)
		return -EIO;
	pthread_mutex_lock(&c->topo);
	for (size_t i = 0; i < r->elements; i++) {
		const redisReply *e = r->element[i], *m;
		const char *host;
		struct rcl_node *n;

		if (e->type != REDIS_REPLY_ARRAY || e->elements < 3)
			continue;
		m = e->element[2];
		if (m->type != REDIS_REPLY_ARRAY || m->elements < 2 ||
		    m->element[0]->type != REDIS_REPLY_STRING ||
		    m->element[1]->type != REDIS_REPLY_INTEGER)
			continue;
		/* an empty address means "the node you asked" */
		host = m->element[0]->len ? m->element[0]->str : from->host;
		n = node_get_locked(c, host, (int)m->element[1]->integer);
		if (!n)
			continue;
		for (long long s = e->element[0]->integer; s <= e->element[1]->integer; s++)
			if (s >= 0 && s < KEYSLOT_COUNT)
				c->slots[s] = n;
	}
	pthread_mutex_unlock(&c->topo);
	return 0;
}

static int ask_slots(struct rcl *c, struct rcl_node *n, redisReply **out)
{
	static const char *argv[] = { "CLUSTER", "SLOTS" };
	static const size_t lens[] = { 7, 5 };
	struct rcl_cmd cmd = { 2, argv, lens };
	size_t zero = 0;
	char no = 0;

	*out = NULL;
	return node_exchange(c, n, &cmd, &zero, 1, &no, out);
}

/* Reloads the slot map from the first node that answers (known nodes, then
 * the seeds).  Single node: nothing to learn. */
static void refresh(struct rcl *c)
{
	struct rcl_node *cand[64];
	size_t nc = 0;

	if (!c->cluster)
		return;
	pthread_mutex_lock(&c->topo);
	for (struct rcl_node *n = c->nodes; n && nc < 64; n = n->next)
		cand[nc++] = n;
	pthread_mutex_unlock(&c->topo);
	for (size_t i = 0; i < c->seeds.n && nc < 64; i++) {
		struct rcl_node *n = node_get(c, c->seeds.hosts[i].name, c->seeds.hosts[i].port);

		if (n)
			cand[nc++] = n;
	}
	for (size_t i = 0; i < nc; i++) {
		redisReply *r;

		if (ask_slots(c, cand[i], &r) != 0)
			continue;
		if (r->type == REDIS_REPLY_ARRAY && r->elements > 0 && apply_slots(c, cand[i], r) == 0) {
			freeReplyObject(r);
			return;
		}
		freeReplyObject(r);
	}
}

static void pause_ns(int64_t ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000 };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* Waits before a retry: 0, or -1 when the deadline has passed. */
static int backoff(int64_t deadline, int64_t *pause)
{
	int64_t now = monoclock_ns();

	if (now >= deadline)
		return -1;
	pause_ns(*pause < deadline - now ? *pause : deadline - now);
	*pause = *pause * 2 > RCL_BACKOFF_MAX_NS ? RCL_BACKOFF_MAX_NS : *pause * 2;
	return 0;
}

/* One reply judged: 1 done, 0 to be resent after a pause (a transient
 * state), 2 to be resent now (redirected: target, asking updated). */
static int judge_reply(struct rcl *c, redisReply *r, struct rcl_node **target, char *asking)
{
	int slot;
	struct rcl_node *n;

	if (is_err(r, "MOVED ") && (n = redirect_target(c, r, &slot))) {
		pthread_mutex_lock(&c->topo);
		c->slots[slot] = n;
		pthread_mutex_unlock(&c->topo);
		*target = n;
		*asking = 0;
		return 2;
	}
	if (is_err(r, "ASK ") && (n = redirect_target(c, r, &slot))) {
		*target = n;
		*asking = 1;
		return 2;
	}
	if (is_transient(r)) {
		*target = NULL;
		*asking = 0;
		return 0;
	}
	return 1;
}

/* The engine of rcl_command and rcl_pipeline: n commands for one slot
 * (-1: any node), redirections followed, retries until the deadline.
 * On success every rep[i] is set; on failure none is. */
static int run(struct rcl *c, int slot, size_t n, const struct rcl_cmd *cmds, redisReply **rep)
{
	struct rcl_node **target = calloc(n, sizeof(*target));
	size_t *idx = calloc(n, sizeof(*idx));
	char *asking = calloc(n, 1), *done = calloc(n, 1);
	int64_t deadline = monoclock_ns() + (int64_t)c->o.deadline_ms * 1000000, pause = RCL_BACKOFF_MIN_NS;
	int ret = 0, redirects = 0;

	if (!target || !idx || !asking || !done) {
		ret = -ENOMEM;
		goto out;
	}
	memset(rep, 0, n * sizeof(*rep));
	for (;;) {
		struct rcl_node *node = NULL;
		size_t m = 0, first = n;
		int transient = 0, redirected = 0;

		for (size_t i = 0; i < n; i++)
			if (!done[i] && first == n)
				first = i;
		if (first == n)
			break;
		node = target[first] ? target[first] : route(c, slot);
		/* this round: every pending command going to the same place */
		for (size_t i = first; i < n; i++)
			if (!done[i] && target[i] == target[first] && asking[i] == asking[first])
				idx[m++] = i;
		ret = node_exchange(c, node, cmds, idx, m, asking, rep);
		if (ret != 0) {
			memset(target, 0, n * sizeof(*target));
			memset(asking, 0, n);
			if (backoff(deadline, &pause) != 0)
				goto out;
			refresh(c);
			continue;
		}
		for (size_t k = 0; k < m; k++) {
			size_t i = idx[k];

			int v = judge_reply(c, rep[i], &target[i], &asking[i]);

			/* the last transient answer stays if the deadline passes */
			if (v == 1 || (v == 0 && monoclock_ns() >= deadline)) {
				done[i] = 1;
				continue;
			}
			transient |= v == 0;
			redirected |= v == 2;
			freeReplyObject(rep[i]);
			rep[i] = NULL;
		}
		/* slots moving back and forth faster than we follow */
		if (redirected && ++redirects > RCL_MAX_REDIRECTS) {
			ret = -EIO;
			set_err(c, node->host, node->port, "too many redirections");
			goto out;
		}
		if (transient) {
			backoff(deadline, &pause);
			refresh(c);
		}
	}
	ret = 0;
out:
	if (ret != 0 && target)
		for (size_t i = 0; i < n; i++) {
			freeReplyObject(rep[i]);
			rep[i] = NULL;
		}
	free(target);
	free(idx);
	free(asking);
	free(done);
	return ret;
}

static struct rcl_reply *convert(const redisReply *r)
{
	struct rcl_reply *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->type = (enum rcl_type)r->type;
	o->integer = r->integer;
	if (r->type == REDIS_REPLY_STRING || r->type == REDIS_REPLY_STATUS ||
	    r->type == REDIS_REPLY_ERROR) {
		o->str = malloc(r->len + 1);
		if (!o->str)
			goto fail;
		memcpy(o->str, r->str, r->len);
		o->str[r->len] = '\0';
		o->len = r->len;
	} else if (r->type == REDIS_REPLY_ARRAY && r->elements) {
		o->elem = calloc(r->elements, sizeof(*o->elem));
		if (!o->elem)
			goto fail;
		for (; o->n < r->elements; o->n++)
			if (!(o->elem[o->n] = convert(r->element[o->n])))
				goto fail;
	}
	return o;
fail:
	rcl_reply_free(o);
	return NULL;
}

void rcl_reply_free(struct rcl_reply *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		rcl_reply_free(r->elem[i]);
	free(r->elem);
	free(r->str);
	free(r);
}

/* Hands rep[0..n-1] over as rcl replies (rep freed).  Returns 0 or -ENOMEM. */
static int hand_over(redisReply **rep, size_t n, struct rcl_reply **out)
{
	int ret = 0;

	for (size_t i = 0; i < n; i++) {
		out[i] = ret == 0 ? convert(rep[i]) : NULL;
		if (!out[i])
			ret = -ENOMEM;
		freeReplyObject(rep[i]);
	}
	if (ret != 0)
		for (size_t i = 0; i < n; i++) {
			rcl_reply_free(out[i]);
			out[i] = NULL;
		}
	return ret;
}

static int slot_of(const void *key, size_t keylen)
{
	return key ? (int)keyslot_of(key, keylen) : -1;
}

int rcl_pipeline(struct rcl *c, const void *key, size_t keylen, size_t n,
		 const struct rcl_cmd *cmds, struct rcl_reply **out)
{
	redisReply **rep;
	int ret;

	memset(out, 0, n * sizeof(*out));
	if (n == 0)
		return 0;
	rep = calloc(n, sizeof(*rep));
	if (!rep)
		return -ENOMEM;
	ret = run(c, slot_of(key, keylen), n, cmds, rep);
	if (ret == 0)
		ret = hand_over(rep, n, out);
	free(rep);
	return ret;
}

int rcl_command(struct rcl *c, const void *key, size_t keylen, int argc,
		const char **argv, const size_t *argvlen, struct rcl_reply **out)
{
	struct rcl_cmd cmd = { argc, argv, argvlen };
	int ret = rcl_pipeline(c, key, keylen, 1, &cmd, out);

	if (ret == 0 && (*out)->type == RCL_ERROR)
		ret = -EIO;
	return ret;
}

/* Learns what the seeds are: the first that answers CLUSTER SLOTS decides. */
static int discover(struct rcl *c)
{
	int64_t deadline = monoclock_ns() + (int64_t)c->o.deadline_ms * 1000000, pause = RCL_BACKOFF_MIN_NS;
	int ret = -ECONNREFUSED;

	for (;;) {
		for (size_t i = 0; i < c->seeds.n; i++) {
			struct rcl_node *n = node_get(c, c->seeds.hosts[i].name, c->seeds.hosts[i].port);
			redisReply *r;

			if (!n)
				return -ENOMEM;
			ret = ask_slots(c, n, &r);
			if (ret != 0)
				continue;
			if (r->type == REDIS_REPLY_ERROR && strstr(r->str, "cluster support disabled")) {
				freeReplyObject(r);
				for (size_t s = 0; s < KEYSLOT_COUNT; s++)
					c->slots[s] = n;
				c->cluster = 0;
				return 0;
			}
			if (r->type == REDIS_REPLY_ARRAY && r->elements > 0) {
				c->cluster = 1;
				ret = apply_slots(c, n, r);
				freeReplyObject(r);
				return ret;
			}
			set_err(c, n->host, n->port, r->type == REDIS_REPLY_ERROR ? r->str :
				"no slots assigned yet");
			freeReplyObject(r);
			ret = -EAGAIN;
		}
		if (backoff(deadline, &pause) != 0)
			return ret;
	}
}

int rcl_open(const struct rcluri *u, const struct rcl_opts *opts, struct rcl **out)
{
	struct rcl *c;
	int ret;

	*out = NULL;
	if (!u || u->n == 0)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	pthread_mutex_init(&c->topo, NULL);
	c->o.timeout_ms = opts && opts->timeout_ms > 0 ? opts->timeout_ms : 1000;
	c->o.deadline_ms = opts && opts->deadline_ms > 0 ? opts->deadline_ms : 5000;
	c->seeds.n = u->n;
	c->seeds.hosts = malloc(u->n * sizeof(*u->hosts));
	if (!c->seeds.hosts) {
		ret = -ENOMEM;
		goto out;
	}
	memcpy(c->seeds.hosts, u->hosts, u->n * sizeof(*u->hosts));
	memcpy(c->seeds.ns, u->ns, sizeof(u->ns));
	ret = discover(c);
out:
	if (ret != 0)
		rcl_free(c);
	else
		*out = c;
	return ret;
}

void rcl_free(struct rcl *c)
{
	struct rcl_node *n, *next;

	if (!c)
		return;
	for (n = c->nodes; n; n = next) {
		next = n->next;
		if (n->ctx)
			redisFree(n->ctx);
		pthread_mutex_destroy(&n->lock);
		free(n);
	}
	rcluri_release(&c->seeds);
	pthread_mutex_destroy(&c->topo);
	free(c);
}

int rcl_is_cluster(struct rcl *c)
{
	return c->cluster;
}

int rcl_i_connect_any(struct rcl *c, redisContext **out)
{
	struct rcl_node *n;
	int ret = -ECONNREFUSED;

	/* masters of the map first: the seeds may be long gone */
	for (unsigned s = 0; s < KEYSLOT_COUNT; s += KEYSLOT_COUNT / 16) {
		n = route(c, (int)s);
		if (n && (ret = ctx_open(c, n->host, n->port, 0, out)) == 0)
			return 0;
	}
	for (size_t i = 0; i < c->seeds.n; i++)
		if ((ret = ctx_open(c, c->seeds.hosts[i].name, c->seeds.hosts[i].port, 0, out)) == 0)
			return 0;
	return ret;
}

int rcl_session_open(struct rcl *c, const void *key, size_t keylen, struct rcl_session **out)
{
	int64_t deadline = monoclock_ns() + (int64_t)c->o.deadline_ms * 1000000, pause = RCL_BACKOFF_MIN_NS;
	struct rcl_session *s = calloc(1, sizeof(*s));
	int ret;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->c = c;
	for (;;) {
		struct rcl_node *n = route(c, slot_of(key, keylen));

		ret = ctx_open(c, n->host, n->port, 1, &s->ctx);
		if (ret == 0)
			break;
		if (backoff(deadline, &pause) != 0) {
			free(s);
			return ret;
		}
		refresh(c);
	}
	*out = s;
	return 0;
}

static int is_exec(int argc, const char **argv, const size_t *argvlen)
{
	return argc == 1 && argvlen[0] == 4 && strncasecmp(argv[0], "EXEC", 4) == 0;
}

int rcl_session_command(struct rcl_session *s, int argc, const char **argv,
			const size_t *argvlen, struct rcl_reply **out)
{
	void *v = NULL;
	redisReply *r;
	int ret;

	*out = NULL;
	if (s->dead)
		return -EAGAIN;
	if (redisAppendCommandArgv(s->ctx, argc, argv, argvlen) != REDIS_OK ||
	    redisGetReply(s->ctx, &v) != REDIS_OK) {
		set_err(s->c, s->ctx->tcp.host ? s->ctx->tcp.host : "?", s->ctx->tcp.port,
			s->ctx->errstr);
		s->dead = 1;
		return -EAGAIN;
	}
	r = v;
	if (is_err(r, "MOVED ") || is_err(r, "ASK ") || is_transient(r)) {
		freeReplyObject(r);
		s->dead = 1;
		refresh(s->c);
		return -EAGAIN;
	}
	if (r->type == REDIS_REPLY_NIL && is_exec(argc, argv, argvlen)) {
		freeReplyObject(r);
		return -EAGAIN;
	}
	ret = hand_over(&r, 1, out);
	if (ret == 0 && (*out)->type == RCL_ERROR)
		ret = -EIO;
	return ret;
}

int rcl_session_pipeline(struct rcl_session *s, size_t n, const struct rcl_cmd *cmds,
			 struct rcl_reply **out)
{
	redisReply **rep;
	size_t i, got = 0;
	int ret = 0, moved = 0;

	memset(out, 0, n * sizeof(*out));
	if (s->dead)
		return -EAGAIN;
	rep = calloc(n ? n : 1, sizeof(*rep));
	if (!rep)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (redisAppendCommandArgv(s->ctx, cmds[i].argc, cmds[i].argv,
					   cmds[i].argvlen) != REDIS_OK)
			break;
	for (; i == n && got < n; got++) {
		void *v = NULL;

		if (redisGetReply(s->ctx, &v) != REDIS_OK)
			break;
		rep[got] = v;
		moved |= is_err(rep[got], "MOVED ") || is_err(rep[got], "ASK ") ||
			 is_transient(rep[got]);
	}
	if (got < n || moved) {
		if (got < n)
			set_err(s->c, s->ctx->tcp.host ? s->ctx->tcp.host : "?", s->ctx->tcp.port,
				s->ctx->errstr);
		s->dead = 1;
		if (moved)
			refresh(s->c);
		for (i = 0; i < got; i++)
			freeReplyObject(rep[i]);
		free(rep);
		return -EAGAIN;
	}
	ret = hand_over(rep, n, out);
	free(rep);
	for (i = 0; ret == 0 && i < n; i++)
		if (out[i]->type == RCL_ERROR)
			ret = -EIO;
	return ret;
}

void rcl_session_close(struct rcl_session *s)
{
	if (!s)
		return;
	redisFree(s->ctx);
	free(s);
}

int rcl_script_new(const char *body, struct rcl_script **out)
{
	struct rcl_script *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s || !(s->body = strdup(body))) {
		free(s);
		return -ENOMEM;
	}
	pthread_mutex_init(&s->lock, NULL);
	*out = s;
	return 0;
}

void rcl_script_free(struct rcl_script *s)
{
	if (!s)
		return;
	pthread_mutex_destroy(&s->lock);
	free(s->body);
	free(s);
}

/* SCRIPT LOAD on the node of slot; remembers the SHA1 it answers. */
static int script_load(struct rcl *c, struct rcl_script *s, const void *key, size_t keylen)
{
	const char *argv[] = { "SCRIPT", "LOAD", s->body };
	size_t lens[] = { 6, 4, strlen(s->body) };
	struct rcl_reply *r;
	int ret = rcl_command(c, key, keylen, 3, argv, lens, &r);

	if (ret == 0 && (r->type != RCL_STRING || r->len >= sizeof(s->sha)))
		ret = -EIO;
	if (ret == 0) {
		pthread_mutex_lock(&s->lock);
		memcpy(s->sha, r->str, r->len + 1);
		pthread_mutex_unlock(&s->lock);
	}
	rcl_reply_free(r);
	return ret;
}

int rcl_eval(struct rcl *c, struct rcl_script *s, int nkeys, const char **keys,
	     const size_t *keylens, int nargs, const char **args, const size_t *arglens,
	     struct rcl_reply **out)
{
	int argc = 3 + nkeys + nargs, ret = -ENOMEM;
	const char **argv = calloc((size_t)argc, sizeof(*argv));
	size_t *lens = calloc((size_t)argc, sizeof(*lens));
	const void *key = nkeys ? keys[0] : NULL;
	size_t keylen = nkeys ? keylens[0] : 0;
	char sha[48], num[16];

	*out = NULL;
	if (!argv || !lens)
		goto out;
	for (int attempt = 0; attempt < 3; attempt++) {
		pthread_mutex_lock(&s->lock);
		memcpy(sha, s->sha, sizeof(sha));
		pthread_mutex_unlock(&s->lock);
		if (!sha[0]) {
			if ((ret = script_load(c, s, key, keylen)) != 0)
				goto out;
			continue;
		}
		snprintf(num, sizeof(num), "%d", nkeys);
		argv[0] = "EVALSHA", lens[0] = 7;
		argv[1] = sha, lens[1] = strlen(sha);
		argv[2] = num, lens[2] = strlen(num);
		for (int i = 0; i < nkeys; i++)
			argv[3 + i] = keys[i], lens[3 + i] = keylens[i];
		for (int i = 0; i < nargs; i++)
			argv[3 + nkeys + i] = args[i], lens[3 + nkeys + i] = arglens[i];
		ret = rcl_command(c, key, keylen, argc, argv, lens, out);
		if (ret != -EIO || !*out || strncmp((*out)->str, "NOSCRIPT", 8) != 0)
			goto out;
		/* this node has not seen it (new, restarted, promoted) */
		rcl_reply_free(*out);
		*out = NULL;
		if ((ret = script_load(c, s, key, keylen)) != 0)
			goto out;
	}
	ret = -EIO;
out:
	free(argv);
	free(lens);
	return ret;
}
