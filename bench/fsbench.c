/* fsbench.c - times metadata operations on N small files in a directory,
 * for bench/fsbench.sh (native vs through the mount).
 *
 *   fsbench create DIR N   create N files of 100 bytes (open, write, close)
 *   fsbench stat DIR N     stat them (run twice: the second pass is cached)
 *   fsbench unlink DIR N   unlink them
 *
 * Prints the elapsed seconds of the operation alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	char buf[100], name[64];
	struct stat st;
	double t0;
	long i, n;
	int dfd, fd;

	if (argc != 4 || (n = strtol(argv[3], NULL, 10)) <= 0) {
		fprintf(stderr, "usage: fsbench create|stat|unlink DIR N\n");
		return 2;
	}
	dfd = open(argv[2], O_RDONLY | O_DIRECTORY);
	if (dfd < 0) {
		perror(argv[2]);
		return 1;
	}
	memset(buf, 'x', sizeof(buf));
	t0 = now();
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "f%07ld", i);
		if (!strcmp(argv[1], "create")) {
			fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd < 0 || write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf) || close(fd) < 0)
				goto fail;
		} else if (!strcmp(argv[1], "stat")) {
			if (fstatat(dfd, name, &st, 0) < 0)
				goto fail;
		} else if (!strcmp(argv[1], "unlink")) {
			if (unlinkat(dfd, name, 0) < 0)
				goto fail;
		} else {
			fprintf(stderr, "fsbench: unknown operation %s\n", argv[1]);
			return 2;
		}
	}
	printf("%.6f\n", now() - t0);
	close(dfd);
	return 0;
fail:
	fprintf(stderr, "fsbench: %s %s: %s\n", argv[1], name, strerror(errno));
	return 1;
}
