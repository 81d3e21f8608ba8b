/* rcltest.c - drives the Redis client (rcl.h) for the integration tests
 * t7000-t7009 and bench/rclbench.sh.
 *
 *   rcltest URI repl             one command a line on stdin: KEY ARG...
 *                                (KEY "-": any node); one reply a line out;
 *                                "@open KEY", "@cmd ARG...", "@close": a session
 *   rcltest URI fill N PREFIX    SET PREFIX<i> i for i < N, then GET back
 *   rcltest URI pipeline TAG N   N SETs then N GETs in one pipeline each
 *   rcltest URI session TAG      WATCH/MULTI/EXEC, a conflict gives -EAGAIN
 *   rcltest URI eval TAG         EVALSHA, then again after SCRIPT FLUSH
 *   rcltest URI writer SECS PREFIX   SET PREFIX<i> i for SECS seconds;
 *                                prints ops, errors and the longest call
 *   rcltest URI verify N PREFIX  GET PREFIX<i> == i for i < N
 *   rcltest URI subtest DIR      a subscriber that must survive a restart
 *                                made between DIR/ready and DIR/go
 *   rcltest URI bench N          microseconds per command and per
 *                                pipelined command
 *   rcltest URI threads T N      T threads on one handle, each a fill of
 *                                N keys and a pipeline of its own tag
 *
 * RCL_TIMEOUT_MS and RCL_DEADLINE_MS set the handle's options.  Exit 0 on
 * success, 1 on a failed check, 2 on bad usage. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "monoclock.h"
#include "rcl.h"

static void print_reply(FILE *f, const struct rcl_reply *r)
{
	switch (r->type) {
	case RCL_STRING:
	case RCL_STATUS:
		fwrite(r->str, 1, r->len, f);
		break;
	case RCL_ERROR:
		fprintf(f, "(error) %s", r->str);
		break;
	case RCL_INTEGER:
		fprintf(f, "%lld", r->integer);
		break;
	case RCL_NIL:
		fputs("(nil)", f);
		break;
	case RCL_ARRAY:
		fputc('[', f);
		for (size_t i = 0; i < r->n; i++) {
			if (i)
				fputc(',', f);
			print_reply(f, r->elem[i]);
		}
		fputc(']', f);
		break;
	}
}

static void print_result(int rc, const struct rcl_reply *r)
{
	if (r)
		print_reply(stdout, r);
	else
		printf("(errno) %s", strerrorname_np(-rc) ? strerrorname_np(-rc) : "?");
	putchar('\n');
	fflush(stdout);
}

static int cmd(struct rcl *c, const char *key, int argc, const char **argv,
	       struct rcl_reply **out)
{
	size_t lens[16];

	for (int i = 0; i < argc; i++)
		lens[i] = strlen(argv[i]);
	return rcl_command(c, key, key ? strlen(key) : 0, argc, argv, lens, out);
}

/* A repl line for the session: "@open KEY", "@cmd ARG...", "@close". */
static void repl_session(struct rcl *c, struct rcl_session **s, const char *what,
			 int argc, const char **argv)
{
	struct rcl_reply *r = NULL;
	size_t lens[16];
	int rc = -EINVAL;

	for (int i = 0; i < argc; i++)
		lens[i] = strlen(argv[i]);
	if (!strcmp(what, "@open") && argc == 1 && !*s) {
		rc = rcl_session_open(c, argv[0], lens[0], s);
		if (rc == 0) {
			puts("OK");
			fflush(stdout);
			return;
		}
	} else if (!strcmp(what, "@cmd") && *s) {
		rc = rcl_session_command(*s, argc, argv, lens, &r);
	} else if (!strcmp(what, "@close") && *s) {
		rcl_session_close(*s);
		*s = NULL;
		puts("OK");
		fflush(stdout);
		return;
	}
	print_result(rc, r);
	rcl_reply_free(r);
}

static int do_repl(struct rcl *c)
{
	struct rcl_session *s = NULL;
	char line[4096];

	while (fgets(line, sizeof(line), stdin)) {
		const char *argv[16], *key;
		struct rcl_reply *r = NULL;
		int argc = 0, rc;
		char *save = NULL, *tok;

		line[strcspn(line, "\n")] = '\0';
		key = strtok_r(line, " ", &save);
		if (!key)
			continue;
		while (argc < 16 && (tok = strtok_r(NULL, " ", &save)))
			argv[argc++] = tok;
		if (key[0] == '@') {
			repl_session(c, &s, key, argc, argv);
			continue;
		}
		if (argc == 0)
			continue;
		rc = cmd(c, strcmp(key, "-") ? key : NULL, argc, argv, &r);
		print_result(rc, r);
		rcl_reply_free(r);
	}
	rcl_session_close(s);
	return 0;
}

static int set_get(struct rcl *c, const char *prefix, long i, int set)
{
	char key[256], val[32];
	const char *argv[3] = { set ? "SET" : "GET", key, val };
	struct rcl_reply *r = NULL;
	int rc;

	snprintf(key, sizeof(key), "%s%ld", prefix, i);
	snprintf(val, sizeof(val), "%ld", i);
	rc = cmd(c, key, set ? 3 : 2, argv, &r);
	if (rc == 0 && !set && (r->type != RCL_STRING || strcmp(r->str, val) != 0))
		rc = -EBADMSG;
	if (rc != 0) {
		fprintf(stderr, "%s %s: ", argv[0], key);
		if (r)
			print_reply(stderr, r);
		fprintf(stderr, " rc=%d\n", rc);
	}
	rcl_reply_free(r);
	return rc;
}

static int do_fill(struct rcl *c, long n, const char *prefix, int set)
{
	for (long i = 0; i < n; i++)
		if ((set && set_get(c, prefix, i, 1) != 0) || set_get(c, prefix, i, 0) != 0)
			return 1;
	printf("ok %ld\n", n);
	fflush(stdout);
	return 0;
}

static int do_pipeline(struct rcl *c, const char *tag, long n)
{
	struct rcl_cmd *cmds = calloc((size_t)n, sizeof(*cmds));
	struct rcl_reply **rep = calloc((size_t)n, sizeof(*rep));
	char (*keys)[64] = calloc((size_t)n, 64), (*vals)[32] = calloc((size_t)n, 32);
	const char **argv = calloc((size_t)n * 3, sizeof(*argv));
	size_t *lens = calloc((size_t)n * 3, sizeof(*lens));
	int ret = 1;

	if (!cmds || !rep || !keys || !vals || !argv || !lens)
		goto out;
	for (int pass = 0; pass < 2; pass++) {
		for (long i = 0; i < n; i++) {
			snprintf(keys[i], 64, "{%s}:p%ld", tag, i);
			snprintf(vals[i], 32, "v%ld", i * 7);
			argv[3 * i] = pass ? "GET" : "SET";
			argv[3 * i + 1] = keys[i];
			argv[3 * i + 2] = vals[i];
			for (int k = 0; k < 3; k++)
				lens[3 * i + k] = strlen(argv[3 * i + k]);
			cmds[i] = (struct rcl_cmd){ pass ? 2 : 3, argv + 3 * i, lens + 3 * i };
		}
		char key[64];
		snprintf(key, sizeof(key), "{%s}", tag);
		int rc = rcl_pipeline(c, key, strlen(key), (size_t)n, cmds, rep);
		if (rc != 0) {
			fprintf(stderr, "pipeline: %d\n", rc);
			goto out;
		}
		for (long i = 0; i < n; i++) {
			const char *want = pass ? vals[i] : "OK";

			if (rep[i]->type == RCL_ERROR || strcmp(rep[i]->str ? rep[i]->str : "", want)) {
				fprintf(stderr, "reply %ld: ", i);
				print_reply(stderr, rep[i]);
				fprintf(stderr, " (want %s)\n", want);
				goto out;
			}
			rcl_reply_free(rep[i]);
			rep[i] = NULL;
		}
	}
	printf("ok pipeline %ld\n", n);
	fflush(stdout);
	ret = 0;
out:
	for (long i = 0; rep && i < n; i++)
		rcl_reply_free(rep[i]);
	free(cmds);
	free(rep);
	free(keys);
	free(vals);
	free(argv);
	free(lens);
	return ret;
}

static int scmd(struct rcl_session *s, int argc, const char **argv, struct rcl_reply **out)
{
	size_t lens[8];

	for (int i = 0; i < argc; i++)
		lens[i] = strlen(argv[i]);
	return rcl_session_command(s, argc, argv, lens, out);
}

/* One optimistic increment of key; `meddle` changes it from the shared
 * handle between WATCH and EXEC.  Returns the session's EXEC result. */
static int txn_incr(struct rcl *c, const char *key, int meddle, long long *now)
{
	struct rcl_session *s = NULL;
	struct rcl_reply *r = NULL;
	const char *watch[] = { "WATCH", key }, *get[] = { "GET", key }, *multi[] = { "MULTI" };
	const char *exec[] = { "EXEC" }, *other[] = { "INCRBY", key, "100" };
	char val[32];
	const char *set[] = { "SET", key, val };
	int rc;

	rc = rcl_session_open(c, key, strlen(key), &s);
	if (rc != 0)
		return rc;
	if ((rc = scmd(s, 2, watch, &r)) != 0)
		goto out;
	rcl_reply_free(r);
	if ((rc = scmd(s, 2, get, &r)) != 0)
		goto out;
	snprintf(val, sizeof(val), "%lld", (r->type == RCL_STRING ? atoll(r->str) : 0) + 1);
	rcl_reply_free(r);
	r = NULL;
	if (meddle) {
		if ((rc = cmd(c, key, 3, other, &r)) != 0)
			goto out;
		rcl_reply_free(r);
		r = NULL;
	}
	if ((rc = scmd(s, 1, multi, &r)) != 0)
		goto out;
	rcl_reply_free(r);
	if ((rc = scmd(s, 3, set, &r)) != 0)
		goto out;
	rcl_reply_free(r);
	r = NULL;
	rc = scmd(s, 1, exec, &r);
	*now = atoll(val);
out:
	rcl_reply_free(r);
	rcl_session_close(s);
	return rc;
}

static int do_session(struct rcl *c, const char *tag)
{
	char key[128];
	const char *del[] = { "DEL", key }, *get[] = { "GET", key };
	struct rcl_reply *r = NULL;
	long long v = 0;
	int rc, tries = 0;

	snprintf(key, sizeof(key), "{%s}:txn", tag);
	if (cmd(c, key, 2, del, &r) != 0)
		return 1;
	rcl_reply_free(r);
	if ((rc = txn_incr(c, key, 0, &v)) != 0 || v != 1) {
		fprintf(stderr, "plain transaction: rc=%d v=%lld\n", rc, v);
		return 1;
	}
	rc = txn_incr(c, key, 1, &v);
	printf("conflict: %s\n", rc == -EAGAIN ? "EAGAIN" : "none");
	if (rc != -EAGAIN)
		return 1;
	/* the caller's retry loop: runs again on a fresh session */
	while ((rc = txn_incr(c, key, 0, &v)) == -EAGAIN && ++tries < 5)
		;
	if (rc != 0 || cmd(c, key, 2, get, &r) != 0 || r->type != RCL_STRING ||
	    atoll(r->str) != 102) {
		fprintf(stderr, "after retry: rc=%d\n", rc);
		rcl_reply_free(r);
		return 1;
	}
	rcl_reply_free(r);
	printf("ok session 102\n");
	return 0;
}

static int do_eval(struct rcl *c, const char *tag)
{
	struct rcl_script *s = NULL;
	struct rcl_reply *r = NULL;
	char key[128], key2[128];
	const char *keys[2] = { key, key2 }, *args[1] = { "5" };
	const char *flush[] = { "SCRIPT", "FLUSH" };
	size_t klen[2], alen[1] = { 1 };
	int ret = 1, rc;

	snprintf(key, sizeof(key), "{%s}:ev1", tag);
	snprintf(key2, sizeof(key2), "{%s}:ev2", tag);
	klen[0] = strlen(key);
	klen[1] = strlen(key2);
	if (rcl_script_new("redis.call('INCRBY', KEYS[1], ARGV[1]) "
			   "return redis.call('INCRBY', KEYS[2], 2 * ARGV[1])", &s) != 0)
		return 1;
	for (int round = 0; round < 3; round++) {
		rc = rcl_eval(c, s, 2, keys, klen, 1, args, alen, &r);
		if (rc != 0 || r->type != RCL_INTEGER || r->integer != 10 * (round + 1)) {
			fprintf(stderr, "eval round %d: rc=%d\n", round, rc);
			goto out;
		}
		rcl_reply_free(r);
		r = NULL;
		/* the node forgets the script: NOSCRIPT must be handled */
		if (round == 1) {
			if (cmd(c, key, 2, flush, &r) != 0)
				goto out;
			rcl_reply_free(r);
			r = NULL;
		}
	}
	/* a script error comes back as -EIO with the server's message */
	rcl_script_free(s);
	s = NULL;
	if (rcl_script_new("return redis.error_reply('my failure')", &s) != 0)
		goto out;
	rc = rcl_eval(c, s, 1, keys, klen, 0, NULL, NULL, &r);
	if (rc != -EIO || !r || !strstr(r->str, "my failure")) {
		fprintf(stderr, "error script: rc=%d\n", rc);
		goto out;
	}
	printf("ok eval\n");
	ret = 0;
out:
	rcl_reply_free(r);
	rcl_script_free(s);
	return ret;
}

static int do_writer(struct rcl *c, double secs, const char *prefix)
{
	int64_t end = monoclock_ns() + (int64_t)(secs * 1e9), worst = 0;
	long i = 0, errors = 0;

	while (monoclock_ns() < end) {
		int64_t t0 = monoclock_ns(), dt;

		if (set_get(c, prefix, i, 1) != 0)
			errors++;
		dt = monoclock_ns() - t0;
		worst = dt > worst ? dt : worst;
		i++;
	}
	printf("ops=%ld errors=%ld longest_ms=%.1f\n", i, errors, (double)worst / 1e6);
	return errors != 0;
}

static atomic_int sub_events, sub_got_a, sub_got_b;

static void on_msg(void *arg, const char *msg, size_t len)
{
	(void)arg;
	if (!msg)
		atomic_fetch_add(&sub_events, 1);
	else if (len == 1 && msg[0] == 'a')
		atomic_store(&sub_got_a, 1);
	else if (len == 1 && msg[0] == 'b')
		atomic_store(&sub_got_b, 1);
}

/* Publishes msg every 50 ms until flag is set (up to 15 s). */
static int publish_until(struct rcl *c, const char *msg, atomic_int *flag)
{
	const char *argv[] = { "PUBLISH", "rcltest", msg };

	for (int i = 0; i < 300 && !atomic_load(flag); i++) {
		struct rcl_reply *r = NULL;

		cmd(c, NULL, 3, argv, &r);
		rcl_reply_free(r);
		usleep(50000);
	}
	return atomic_load(flag) ? 0 : 1;
}

static int do_subtest(struct rcl *c, const char *dir)
{
	struct rcl_sub *sub = NULL;
	char path[4096];
	struct stat st;
	int ret = 1;

	if (rcl_sub_start(c, "rcltest", 7, on_msg, NULL, &sub) != 0)
		return 1;
	if (publish_until(c, "a", &sub_got_a) != 0) {
		fprintf(stderr, "no first message\n");
		goto out;
	}
	snprintf(path, sizeof(path), "%s/ready", dir);
	fclose(fopen(path, "w"));
	snprintf(path, sizeof(path), "%s/go", dir);
	for (int i = 0; i < 400 && stat(path, &st) != 0; i++)
		usleep(50000);
	if (publish_until(c, "b", &sub_got_b) != 0) {
		fprintf(stderr, "no message after the restart\n");
		goto out;
	}
	printf("ok sub subscriptions=%d\n", atomic_load(&sub_events));
	ret = atomic_load(&sub_events) >= 2 ? 0 : 1;
out:
	rcl_sub_stop(sub);
	return ret;
}

static int do_bench(struct rcl *c, long n)
{
	const char *argv[] = { "SET", "{bench}:k", "v" };
	size_t lens[] = { 3, 9, 1 };
	struct rcl_cmd cmds[100];
	struct rcl_reply *rep[100];
	int64_t t0 = monoclock_ns(), t1;

	for (long i = 0; i < n; i++) {
		if (rcl_command(c, "{bench}", 7, 3, argv, lens, rep) != 0)
			return 1;
		rcl_reply_free(rep[0]);
	}
	t1 = monoclock_ns();
	for (int i = 0; i < 100; i++)
		cmds[i] = (struct rcl_cmd){ 3, argv, lens };
	for (long i = 0; i < n / 100; i++) {
		if (rcl_pipeline(c, "{bench}", 7, 100, cmds, rep) != 0)
			return 1;
		for (int k = 0; k < 100; k++)
			rcl_reply_free(rep[k]);
	}
	printf("command_us=%.1f pipelined_us=%.2f\n", (double)(t1 - t0) / 1e3 / (double)n,
	       (double)(monoclock_ns() - t1) / 1e3 / (double)(n / 100 * 100));
	return 0;
}

struct worker {
	struct rcl *c;
	int id;
	long n;
	pthread_t t;
	int ret;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	char prefix[32], tag[32];

	snprintf(prefix, sizeof(prefix), "t%d-", w->id);
	snprintf(tag, sizeof(tag), "thr%d", w->id);
	w->ret = do_fill(w->c, w->n, prefix, 1) || do_pipeline(w->c, tag, w->n);
	return NULL;
}

static int do_threads(struct rcl *c, int nt, long n)
{
	struct worker w[64];
	int ret = 0;

	if (nt < 1 || nt > 64)
		return 2;
	for (int i = 0; i < nt; i++) {
		w[i] = (struct worker){ .c = c, .id = i, .n = n };
		if (pthread_create(&w[i].t, NULL, worker_main, &w[i]) != 0)
			return 1;
	}
	for (int i = 0; i < nt; i++) {
		pthread_join(w[i].t, NULL);
		ret |= w[i].ret;
	}
	printf("threads %s\n", ret ? "failed" : "ok");
	return ret;
}

static int env_int(const char *name)
{
	const char *v = getenv(name);

	return v ? atoi(v) : 0;
}

int main(int argc, char **argv)
{
	struct rcl_opts o = { env_int("RCL_TIMEOUT_MS"), env_int("RCL_DEADLINE_MS") };
	struct rcluri u;
	struct rcl *c = NULL;
	const char *why = NULL, *what;
	int rc, ret = 2;

	if (argc < 3) {
		fprintf(stderr, "usage: rcltest URI repl|fill|pipeline|session|eval|writer|verify|subtest|bench ...\n");
		return 2;
	}
	if (rcluri_parse(argv[1], &u, &why) != 0) {
		fprintf(stderr, "rcltest: %s: %s\n", argv[1], why);
		return 2;
	}
	rc = rcl_open(&u, &o, &c);
	rcluri_release(&u);
	if (rc != 0) {
		fprintf(stderr, "rcltest: cannot connect: %s\n", strerrorname_np(-rc));
		return 1;
	}
	what = argv[2];
	if (!strcmp(what, "repl"))
		ret = do_repl(c);
	else if (!strcmp(what, "fill") && argc == 5)
		ret = do_fill(c, atol(argv[3]), argv[4], 1);
	else if (!strcmp(what, "verify") && argc == 5)
		ret = do_fill(c, atol(argv[3]), argv[4], 0);
	else if (!strcmp(what, "pipeline") && argc == 5)
		ret = do_pipeline(c, argv[3], atol(argv[4]));
	else if (!strcmp(what, "session") && argc == 4)
		ret = do_session(c, argv[3]);
	else if (!strcmp(what, "eval") && argc == 4)
		ret = do_eval(c, argv[3]);
	else if (!strcmp(what, "writer") && argc == 5)
		ret = do_writer(c, atof(argv[3]), argv[4]);
	else if (!strcmp(what, "subtest") && argc == 4)
		ret = do_subtest(c, argv[3]);
	else if (!strcmp(what, "threads") && argc == 5)
		ret = do_threads(c, atoi(argv[3]), atol(argv[4]));
	else if (!strcmp(what, "bench") && argc == 4)
		ret = do_bench(c, atol(argv[3]));
	else
		fprintf(stderr, "rcltest: bad arguments for %s\n", what);
	printf("cluster=%d\n", rcl_is_cluster(c));
	rcl_free(c);
	return ret;
}
