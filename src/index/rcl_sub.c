/* rcl_sub.c - a channel subscriber on a thread of its own that outlives
 * lost connections and failovers: it reconnects to any node and
 * subscribes again, and pings an idle connection so that a server that
 * stops answering (no FIN: a stopped process, a dead host) is noticed. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "monoclock.h"
#include "rcl_i.h"

#define SUB_TICK_MS 200		/* how soon a stop is noticed */
#define SUB_IDLE_PING_NS 1000000000LL

struct rcl_sub {
	struct rcl *c;
	char *chan;
	size_t chanlen;
	rcl_sub_fn *fn;
	void *arg;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int stop;
};

static int stopping(struct rcl_sub *s)
{
	int v;

	pthread_mutex_lock(&s->lock);
	v = s->stop;
	pthread_mutex_unlock(&s->lock);
	return v;
}

/* Sleeps ms unless asked to stop first. */
static void nap(struct rcl_sub *s, int ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&s->lock);
	if (!s->stop)
		pthread_cond_timedwait(&s->wake, &s->lock, &ts);
	pthread_mutex_unlock(&s->lock);
}

static int flush(redisContext *ctx)
{
	int done = 0;

	while (!done)
		if (redisBufferWrite(ctx, &done) != REDIS_OK)
			return -1;
	return 0;
}

/* Handles one reply on the subscribed connection: 0, or -1 if it is bad. */
static int deliver(struct rcl_sub *s, const redisReply *r)
{
	const redisReply *kind;

	if (r->type != REDIS_REPLY_ARRAY || r->elements < 1)
		return -1;
	kind = r->element[0];
	if (kind->type != REDIS_REPLY_STRING)
		return -1;
	if (kind->len == 7 && memcmp(kind->str, "message", 7) == 0 && r->elements == 3 &&
	    r->element[2]->type == REDIS_REPLY_STRING)
		s->fn(s->arg, r->element[2]->str, r->element[2]->len);
	else if (kind->len == 9 && memcmp(kind->str, "subscribe", 9) == 0)
		s->fn(s->arg, NULL, 0);
	/* "pong" answers our idle pings */
	return 0;
}

/* Reads the subscription until the connection fails or a stop. */
static void listen_on(struct rcl_sub *s, redisContext *ctx)
{
	int64_t quiet_since = monoclock_ns(), ping_sent = 0;
	int timeout_ms = rcl_i_opts(s->c)->timeout_ms;

	while (!stopping(s)) {
		struct pollfd pfd = { .fd = ctx->fd, .events = POLLIN };
		void *r = NULL;
		int rc;

		if (redisGetReplyFromReader(ctx, &r) != REDIS_OK)
			return;
		if (r) {
			rc = deliver(s, r);
			freeReplyObject(r);
			if (rc != 0)
				return;
			quiet_since = monoclock_ns();
			ping_sent = 0;
			continue;
		}
		rc = poll(&pfd, 1, SUB_TICK_MS);
		if (rc < 0 && errno != EINTR)
			return;
		if (rc > 0) {
			if (redisBufferRead(ctx) != REDIS_OK)
				return;
			continue;
		}
		int64_t now = monoclock_ns();

		if (ping_sent && now - ping_sent > (int64_t)timeout_ms * 1000000)
			return;		/* no pong in time: the node is gone */
		if (!ping_sent && now - quiet_since > SUB_IDLE_PING_NS) {
			if (redisAppendCommand(ctx, "PING") != REDIS_OK || flush(ctx) != 0)
				return;
			ping_sent = now;
		}
	}
}

static void *sub_main(void *arg)
{
	struct rcl_sub *s = arg;
	int pause_ms = 10;

	while (!stopping(s)) {
		const char *argv[] = { "SUBSCRIBE", s->chan };
		size_t lens[] = { 9, s->chanlen };
		redisContext *ctx = NULL;

		if (rcl_i_connect_any(s->c, &ctx) != 0) {
			nap(s, pause_ms);
			pause_ms = pause_ms * 2 > 500 ? 500 : pause_ms * 2;
			continue;
		}
		pause_ms = 10;
		if (redisAppendCommandArgv(ctx, 2, argv, lens) == REDIS_OK && flush(ctx) == 0)
			listen_on(s, ctx);
		redisFree(ctx);
		nap(s, pause_ms);
	}
	return NULL;
}

int rcl_sub_start(struct rcl *c, const char *channel, size_t chanlen, rcl_sub_fn *fn,
		  void *arg, struct rcl_sub **out)
{
	struct rcl_sub *s = calloc(1, sizeof(*s));
	int ret;

	*out = NULL;
	if (!s || !(s->chan = malloc(chanlen + 1))) {
		free(s);
		return -ENOMEM;
	}
	memcpy(s->chan, channel, chanlen);
	s->chan[chanlen] = '\0';
	s->chanlen = chanlen;
	s->c = c;
	s->fn = fn;
	s->arg = arg;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->wake, NULL);
	ret = -pthread_create(&s->thread, NULL, sub_main, s);
	if (ret != 0) {
		pthread_cond_destroy(&s->wake);
		pthread_mutex_destroy(&s->lock);
		free(s->chan);
		free(s);
		return ret;
	}
	*out = s;
	return 0;
}

void rcl_sub_stop(struct rcl_sub *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	s->stop = 1;
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->thread, NULL);
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->lock);
	free(s->chan);
	free(s);
}
