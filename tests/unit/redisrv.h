/* redisrv.h - a redis-server of a unit test's own: started on a free
 * 127.0.0.1 port with no persistence, stopped when the program exits
 * (atexit, and by the parent only).  redisrv_start() gives the port, 0 when
 * redis-server or redis-cli is missing (the caller skips: exit 77), -1 when
 * no server would start. */
#ifndef REDISRV_H
#define REDISRV_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pid_t redisrv_pid, redisrv_owner;

static void redisrv_stop(void)
{
	if (redisrv_pid > 0 && getpid() == redisrv_owner) {
		kill(redisrv_pid, SIGKILL);
		waitpid(redisrv_pid, NULL, 0);
		redisrv_pid = 0;
	}
}

static int redisrv_have(const char *prog)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", prog);
	return system(cmd) == 0;
}

/* Our server answers within about 5 s (0), or it died (-1).  It must say
 * it is our child: a server already on that port answers too, while ours
 * fails to bind. */
static int redisrv_wait(int port)
{
	struct timespec ts = { 0, 50 * 1000000L };
	char cmd[256];
	int i, st;

	snprintf(cmd, sizeof(cmd),
		 "timeout 2 redis-cli -h 127.0.0.1 -p %d info server 2>/dev/null | tr -d '\\r' | "
		 "grep -qx 'process_id:%d'", port, (int)redisrv_pid);
	for (i = 0; i < 100; i++) {
		if (waitpid(redisrv_pid, &st, WNOHANG) == redisrv_pid) {
			redisrv_pid = 0;
			return -1;
		}
		if (system(cmd) == 0)
			return 0;
		nanosleep(&ts, NULL);
	}
	return -1;
}

static int redisrv_start(void)
{
	int attempt, port;

	if (!redisrv_have("redis-server") || !redisrv_have("redis-cli"))
		return 0;
	srand((unsigned)getpid() ^ (unsigned)time(NULL));
	for (attempt = 0; attempt < 10; attempt++) {
		char ps[16];

		port = 20000 + rand() % 10000;
		snprintf(ps, sizeof(ps), "%d", port);
		redisrv_owner = getpid();
		redisrv_pid = fork();
		if (redisrv_pid < 0)
			return -1;
		if (redisrv_pid == 0) {
			freopen("/dev/null", "w", stdout);
			execlp("redis-server", "redis-server", "--port", ps, "--bind", "127.0.0.1",
			       "--save", "", "--appendonly", "no", "--protected-mode", "no",
			       (char *)NULL);
			_exit(127);
		}
		if (redisrv_wait(port) == 0) {
			atexit(redisrv_stop);
			return port;
		}
		redisrv_stop();
	}
	return -1;
}

/* redisrv_start()'s port, or the program ends: skipped (77) without
 * redis-server, failed when none would start. */
static int redisrv_need(void)
{
	int port = redisrv_start();

	if (port == 0) {
		printf("ok - all # SKIP no redis-server\n");
		exit(77);
	}
	if (port < 0) {
		printf("not ok - no redis-server would start\n");
		exit(1);
	}
	return port;
}

#endif
