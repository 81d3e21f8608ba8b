/* rcl.h - a Redis and Redis Cluster client for the index (over hiredis,
 * which has no cluster support of its own).
 *
 * One handle serves every thread of the daemon.  It connects to the seeds
 * of a redis:// URI (rcluri.h), finds out whether they are a single node or
 * a cluster (CLUSTER SLOTS, or the "cluster support disabled" error),
 * keeps the slot -> master map and sends each command to the master of its
 * key's slot (keyslot.h).  It follows MOVED (the map is updated and
 * refreshed) and ASK (ASKING then the command on the target, for that one
 * command).  On a lost or refused connection, a timeout, or a server
 * answering CLUSTERDOWN, TRYAGAIN, LOADING, MASTERDOWN or READONLY (a
 * master being replaced), it refreshes the map from any reachable node and
 * retries with a growing pause (10 ms doubling up to 500 ms) until the
 * handle's deadline: a master killed and replaced by its replica costs the
 * caller a delay, not an error.
 *
 * Retries resend the command, so a command sent outside a session may run
 * twice when a connection drops after the server ran it and before the
 * reply arrived: keep those idempotent (SET, HSET, SADD, DEL...), and put
 * anything else in a session (MULTI/EXEC) or a script.
 *
 * Keys and arguments are binary-safe (argv/argvlen).  Every command names
 * its routing key explicitly (NULL for "any node", e.g. PUBLISH, PING).
 *
 * Errors (negative errno):
 *   -ECONNREFUSED, -ECONNRESET, -EHOSTUNREACH...  no node could be reached
 *                  until the deadline (the last connection error);
 *   -ETIMEDOUT     a node accepted but did not answer within timeout_ms
 *                  (a stopped or overloaded server), until the deadline;
 *   -EAGAIN        (sessions only) the session ended under the caller:
 *                  MOVED, ASK, a lost connection, or EXEC aborted by WATCH:
 *                  run the whole transaction again on a new session;
 *   -EIO           the server answered with an error (its message is in
 *                  the RCL_ERROR reply handed back), or a protocol error;
 *   -ENOMEM, -EINVAL.
 * rcl_last_error() gives the text of the last transport error, and
 * rcl_transport_error() tells such errors from the others.
 *
 * Threads: every function may be called from any thread at the same time
 * (a session is the one exception: one thread at a time).  Commands to one
 * node share that node's connection, one round trip at a time; sessions and
 * subscribers have connections of their own.
 */
#ifndef RCL_H
#define RCL_H

#include <stddef.h>

#include "rcluri.h"

struct rcl;
struct rcl_session;
struct rcl_script;
struct rcl_sub;

/* A reply, owned by the caller once handed over: free with rcl_reply_free(). */
enum rcl_type { RCL_STRING = 1, RCL_ARRAY, RCL_INTEGER, RCL_NIL, RCL_STATUS, RCL_ERROR };
struct rcl_reply {
	enum rcl_type type;
	long long integer;		/* RCL_INTEGER */
	char *str;			/* RCL_STRING, RCL_STATUS, RCL_ERROR: len bytes + NUL */
	size_t len;
	struct rcl_reply **elem;	/* RCL_ARRAY: n replies */
	size_t n;
};

void rcl_reply_free(struct rcl_reply *r);

struct rcl_opts {
	int timeout_ms;		/* connect and per-reply timeout; default 1000 */
	int deadline_ms;	/* total time a command may spend retrying; default 5000 */
};

/* One command of a pipeline. */
struct rcl_cmd {
	int argc;
	const char **argv;
	const size_t *argvlen;
};

/* Connects to the seeds of u (copied: u may be released after the call);
 * opts may be NULL (defaults).  Fails when no seed answers within the
 * deadline.  *out is owned by the caller: rcl_free(). */
int rcl_open(const struct rcluri *u, const struct rcl_opts *opts, struct rcl **out);

/* Closes every connection.  No session, script call or subscriber of c may
 * be running or remain (stop and close them first). */
void rcl_free(struct rcl *c);

/* 1 when the seeds are a cluster, 0 for a single node. */
int rcl_is_cluster(struct rcl *c);

/* 1 for an -errno that says a server could not be reached or a connection
 * broke (worth trying again later: -ECONNREFUSED, -ETIMEDOUT, -EPIPE...,
 * and -EHOSTDOWN, the index's own word for a server found out of reach),
 * 0 for any other. */
int rcl_transport_error(int err);

/* The last transport error's text (e.g. "127.0.0.1:7000: Connection
 * refused"), "" if none, copied into buf of size n. */
void rcl_last_error(struct rcl *c, char *buf, size_t n);

/* Runs one command on the master of key's slot (key NULL: any node).
 * Returns 0 with *out the reply, -EIO with *out the server's RCL_ERROR
 * reply (NULL after a protocol error or endless redirections), or another
 * negative errno with *out NULL. */
int rcl_command(struct rcl *c, const void *key, size_t keylen, int argc,
		const char **argv, const size_t *argvlen, struct rcl_reply **out);

/* Sends n commands whose keys all live in key's slot (one hash tag) to its
 * master in one round trip and reads the n replies into out[0..n-1], in
 * order.  Commands redirected by MOVED/ASK are resent to their target, the
 * others are not (so they may run out of order with the redirected ones:
 * pipelines are not transactions).  Returns 0 when every command has a
 * reply (some may be RCL_ERROR replies: check each), or a negative errno
 * with every out[i] NULL. */
int rcl_pipeline(struct rcl *c, const void *key, size_t keylen, size_t n,
		 const struct rcl_cmd *cmds, struct rcl_reply **out);

/* An exclusive connection to the master of key's slot, for WATCH ... MULTI
 * ... EXEC: the same connection for its whole life, never retried
 * underneath.  One thread at a time per session.  *out: rcl_session_close(). */
int rcl_session_open(struct rcl *c, const void *key, size_t keylen, struct rcl_session **out);

/* Runs one command on the session's connection.  Returns as rcl_command(),
 * and -EAGAIN when the transaction must be run again: a MOVED or ASK
 * redirection, CLUSTERDOWN/TRYAGAIN, a lost connection or timeout (the
 * session is then dead: close it and open another) or an EXEC that
 * returned nil because a WATCHed key changed (the session stays usable). */
int rcl_session_command(struct rcl_session *s, int argc, const char **argv,
			const size_t *argvlen, struct rcl_reply **out);

/* Runs n commands on the session's connection in one round trip (all sent,
 * then the n replies read into out[0..n-1], each the caller's): for the
 * commands queued between MULTI and EXEC.  0, or -EIO when some reply is
 * an RCL_ERROR (every reply still handed back), or -EAGAIN as
 * rcl_session_command() (the session is then dead; every out[i] NULL),
 * or -ENOMEM.  An EXEC among them that a WATCH aborted gives its nil reply
 * (RCL_NIL) back: the caller runs its transaction again. */
int rcl_session_pipeline(struct rcl_session *s, size_t n, const struct rcl_cmd *cmds,
			 struct rcl_reply **out);

/* Closes the session's connection (discarding any WATCH or open MULTI). */
void rcl_session_close(struct rcl_session *s);

/* A Lua script run with EVALSHA; the body is loaded on a node only when it
 * answers NOSCRIPT (first use, restart, failover).  The body is copied.
 * One script object may be used by many threads.  *out: rcl_script_free(). */
int rcl_script_new(const char *body, struct rcl_script **out);
void rcl_script_free(struct rcl_script *s);

/* EVALSHA on the master of keys[0]'s slot (all keys must share it;
 * nkeys 0: any node).  Returns as rcl_command(). */
int rcl_eval(struct rcl *c, struct rcl_script *s, int nkeys, const char **keys,
	     const size_t *keylens, int nargs, const char **args, const size_t *arglens,
	     struct rcl_reply **out);

/* Called on the subscriber's thread for each message on its channel; and
 * with msg NULL each time the subscription is (re)established: messages
 * published while it was down are lost, so a caller resynchronises then. */
typedef void rcl_sub_fn(void *arg, const char *msg, size_t len);

/* Subscribes (SUBSCRIBE: in a cluster, messages reach every node, so any
 * reachable node serves) to the channel on a thread of its own, which
 * reconnects to any node after a failure and pings an idle connection to
 * notice a silent death.  Publish with rcl_command(c, NULL, 0, PUBLISH...).
 * *out: rcl_sub_stop(). */
int rcl_sub_start(struct rcl *c, const char *channel, size_t chanlen, rcl_sub_fn *fn,
		  void *arg, struct rcl_sub **out);

/* Stops the thread (within about 200 ms), closes its connection, frees sub. */
void rcl_sub_stop(struct rcl_sub *sub);

#endif
