/* Tests for the fsops extension points with a real mount: a registered view
 * answers its top-level directory read-only (and hides the SRC entry of
 * the same name), and the change hook sees what the passthrough changed.
 * Skips when FUSE cannot be mounted here. */
#include "fsops.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static char src[PATH_MAX], mnt[PATH_MAX], hooklog[PATH_MAX];
static pid_t daemon_pid = -1;
static const char text[] = "a view file\n";

static int v_getattr(void *arg, const char *rel, struct stat *st)
{
	(void)arg;
	memset(st, 0, sizeof(*st));
	if (!*rel) {
		st->st_mode = S_IFDIR | 0555;
		st->st_nlink = 2;
	} else if (!strcmp(rel, "info.txt")) {
		st->st_mode = S_IFREG | 0444;
		st->st_nlink = 1;
		st->st_size = (off_t)strlen(text);
	} else if (!strcmp(rel, "book")) {
		st->st_mode = S_IFLNK | 0777;
		st->st_nlink = 1;
		st->st_size = 9;
	} else if (!strcmp(rel, "copy")) {
		st->st_mode = S_IFREG | 0444;
		st->st_nlink = 1;
		st->st_size = 4;
		st->st_ino = 4242;
	} else if (!strcmp(rel, "cmd")) {
		st->st_mode = S_IFREG | 0200;
		st->st_nlink = 1;
	} else {
		return -ENOENT;
	}
	return 0;
}

static int v_readdir(void *arg, const char *rel, void *buf, fuse_fill_dir_t filler)
{
	(void)arg;
	if (*rel)
		return -ENOTDIR;
	filler(buf, ".", NULL, 0, 0);
	filler(buf, "..", NULL, 0, 0);
	filler(buf, "info.txt", NULL, 0, 0);
	filler(buf, "book", NULL, 0, 0);
	filler(buf, "copy", NULL, 0, 0);
	return 0;
}

/* "copy" is a real-file entry for SRC's a.txt. */
static int v_source(void *arg, const char *rel, char *buf, size_t size)
{
	(void)arg;
	if (strcmp(rel, "copy"))
		return -EINVAL;
	snprintf(buf, size, "a.txt");
	return 0;
}

static int v_readlink(void *arg, const char *rel, char *buf, size_t size)
{
	(void)arg;
	if (strcmp(rel, "book"))
		return -EINVAL;
	snprintf(buf, size, "../a.txt");
	return 0;
}

/* "cmd" is write-only; the rest read-only. */
static int v_open(void *arg, const char *rel, struct fuse_file_info *fi)
{
	(void)arg;
	if (!strcmp(rel, "cmd")) {
		if ((fi->flags & O_ACCMODE) != O_WRONLY)
			return -EACCES;
		fi->direct_io = 1;
		fi->fh = 43;
		return 0;
	}
	if ((fi->flags & O_ACCMODE) != O_RDONLY)
		return -EROFS;
	if (strcmp(rel, "info.txt"))
		return -ENOENT;
	fi->fh = 42;
	return 0;
}

/* "cmd" takes "hello" (the whole write), nothing else. */
static int v_write(void *arg, const char *rel, const char *buf, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	(void)arg;
	(void)off;
	if (strcmp(rel, "cmd") || fi->fh != 43)
		return -EBADF;
	return size == 5 && !memcmp(buf, "hello", 5) ? 5 : -EINVAL;
}

static int v_read(void *arg, const char *rel, char *buf, size_t size, off_t off,
		  struct fuse_file_info *fi)
{
	size_t len = strlen(text);

	(void)arg;
	(void)rel;
	if (fi->fh != 42)
		return -EBADF;
	if ((size_t)off >= len)
		return 0;
	if (size > len - (size_t)off)
		size = len - (size_t)off;
	memcpy(buf, text + off, size);
	return (int)size;
}

static const struct fs_view_ops view_ops = {
	.getattr = v_getattr, .readdir = v_readdir, .readlink = v_readlink,
	.open = v_open, .read = v_read, .source = v_source, .write = v_write,
};

static void hook(void *arg, enum fs_change what, const char *path, const char *path2)
{
	FILE *fp = fopen(arg, "a");

	if (fp) {
		fprintf(fp, "%d %s %s\n", (int)what, path, path2 ? path2 : "-");
		fclose(fp);
	}
}

/* The child: mounts src at mnt with the view and the hook, serves until
 * unmounted. */
static int serve(void)
{
	char arg0[] = "test_fsview", arg1[] = "-odefault_permissions";
	char *argv[] = { arg0, arg1, NULL };
	struct fuse_args args = FUSE_ARGS_INIT(2, argv);
	struct fs_options opt = { 0 };
	struct fuse_operations ops;
	struct fs *fs = NULL;
	struct fuse *f;
	int rootfd = open(src, O_RDONLY | O_DIRECTORY);

	if (rootfd < 0 || fs_new(&fs, rootfd, &opt) != 0)
		return 1;
	if (fs_add_view(fs, "similar", &view_ops, NULL) != 0)
		return 1;
	fs_set_change_hook(fs, hook, hooklog);
	fs_get_operations(fs, &ops);
	f = fuse_new(&args, &ops, sizeof(ops), fs);
	if (!f || fuse_mount(f, mnt) != 0)
		return 3;
	fuse_loop(f);
	fuse_unmount(f);
	fuse_destroy(f);
	fs_free(fs);
	close(rootfd);
	return 0;
}

static int mounted(void)
{
	struct stat a, b;

	return stat(src, &a) == 0 && stat(mnt, &b) == 0 && a.st_dev != b.st_dev;
}

static void test_register(void)
{
	struct fs_options opt = { 0 };
	struct fs *fs = NULL;
	char name[8];
	unsigned int i;

	REQUIRE(fs_new(&fs, -1, &opt) == 0);
	CHECK_EQ_INT(fs_add_view(fs, "", &view_ops, NULL), -EINVAL);
	CHECK_EQ_INT(fs_add_view(fs, "a/b", &view_ops, NULL), -EINVAL);
	CHECK_EQ_INT(fs_add_view(fs, "..", &view_ops, NULL), -EINVAL);
	CHECK_EQ_INT(fs_add_view(fs, "similar", &view_ops, NULL), 0);
	CHECK_EQ_INT(fs_add_view(fs, "similar", &view_ops, NULL), -EEXIST);
	for (i = 1; i < FS_MAX_VIEWS; i++) {
		static char names[FS_MAX_VIEWS][16];
		snprintf(names[i], sizeof(names[i]), "v%u", i);
		CHECK_EQ_INT(fs_add_view(fs, names[i], &view_ops, NULL), 0);
	}
	snprintf(name, sizeof(name), "full");
	CHECK_EQ_INT(fs_add_view(fs, name, &view_ops, NULL), -ENOSPC);
	fs_free(fs);
}

static void test_mounted_view(void)
{
	char path[PATH_MAX + 32], buf[PATH_MAX + 32], line[PATH_MAX + 64];
	struct dirent *e;
	struct stat st;
	int fd, i, names = 0, hidden = 0;
	ssize_t n;
	DIR *d;
	FILE *fp;

	if (access("/dev/fuse", R_OK | W_OK) != 0)
		SKIP("no /dev/fuse");
	fflush(NULL);
	daemon_pid = fork();
	REQUIRE(daemon_pid >= 0);
	if (daemon_pid == 0) {
		alarm(60);
		exit(serve());	/* not _exit: the sanitizers check the daemon too */
	}
	for (i = 0; i < 200 && !mounted(); i++)
		usleep(20000);
	if (!mounted())
		SKIP("could not mount (no FUSE permission here?)");

	/* The root lists the view once and hides SRC's "similar". */
	d = opendir(mnt);
	REQUIRE(d);
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, "similar"))
			hidden++;
		if (!strcmp(e->d_name, "a.txt"))
			names++;
	}
	closedir(d);
	CHECK_EQ_INT(hidden, 1);
	CHECK_EQ_INT(names, 1);
	snprintf(path, sizeof(path), "%s/similar", mnt);
	CHECK(stat(path, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0555);
	snprintf(path, sizeof(path), "%s/similar/hidden-src-file", mnt);
	CHECK(stat(path, &st) < 0 && errno == ENOENT);

	snprintf(path, sizeof(path), "%s/similar/info.txt", mnt);
	fd = open(path, O_RDONLY);
	REQUIRE(fd >= 0);
	n = read(fd, buf, sizeof(buf));
	CHECK_EQ_INT(n, (long long)strlen(text));
	CHECK(n > 0 && !memcmp(buf, text, (size_t)n));
	CHECK_EQ_INT(lseek(fd, 0, SEEK_HOLE), (long long)strlen(text));
	close(fd);
	CHECK(open(path, O_WRONLY) < 0);
	snprintf(path, sizeof(path), "%s/similar/book", mnt);
	n = readlink(path, buf, sizeof(buf));
	CHECK(n == 8 && !memcmp(buf, "../a.txt", 8));
	/* Following the view's symlink reaches the passthrough file. */
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0 && read(fd, buf, sizeof(buf)) == 4 && !memcmp(buf, "src\n", 4));
	/* A waiting poll() reaches the daemon once (a leak there shows under
	 * the sanitizers); a file is always ready. */
	if (fd >= 0) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		CHECK(poll(&pfd, 1, 100) == 1 && (pfd.revents & POLLIN));
		close(fd);
	}

	/* A real-file entry reads the SRC file through the passthrough and
	 * keeps the entry's identity when fstat()ed. */
	snprintf(path, sizeof(path), "%s/similar/copy", mnt);
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0 && read(fd, buf, sizeof(buf)) == 4 && !memcmp(buf, "src\n", 4));
	CHECK(fd >= 0 && fstat(fd, &st) == 0 && st.st_ino == 4242 && S_ISREG(st.st_mode) &&
	      st.st_size == 4);
	CHECK(fd >= 0 && lseek(fd, 1, SEEK_SET) == 1 && read(fd, buf, sizeof(buf)) == 3);
	if (fd >= 0)
		close(fd);
	CHECK(open(path, O_RDWR) < 0 && errno == EROFS);
	CHECK(readlink(path, buf, sizeof(buf)) < 0);

	/* A view's own writable file: each write() reaches the view whole,
	 * its error is the write's. */
	snprintf(path, sizeof(path), "%s/similar/cmd", mnt);
	fd = open(path, O_WRONLY | O_TRUNC);
	CHECK(fd >= 0);
	CHECK(fd >= 0 && write(fd, "hello", 5) == 5);
	CHECK(fd >= 0 && write(fd, "hullo", 5) < 0 && errno == EINVAL);
	CHECK(fd >= 0 && write(fd, "hello", 5) == 5);
	if (fd >= 0)
		close(fd);
	CHECK(open(path, O_RDONLY) < 0 && errno == EACCES);

	snprintf(path, sizeof(path), "%s/similar/new", mnt);
	CHECK(mkdir(path, 0755) < 0 && errno == EROFS);
	CHECK(open(path, O_CREAT | O_WRONLY, 0644) < 0 && errno == EROFS);
	snprintf(path, sizeof(path), "%s/similar/info.txt", mnt);
	CHECK(unlink(path) < 0 && errno == EROFS);
	snprintf(buf, sizeof(buf), "%s/b.txt", mnt);
	CHECK(rename(path, buf) < 0 && errno == EROFS);

	/* The hook sees passthrough changes, with paths relative to SRC. */
	snprintf(path, sizeof(path), "%s/c.txt", mnt);
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	CHECK(fd >= 0 && write(fd, "c", 1) == 1);
	if (fd >= 0)
		close(fd);
	snprintf(buf, sizeof(buf), "%s/d.txt", mnt);
	CHECK(rename(path, buf) == 0);
	CHECK(unlink(buf) == 0);

	snprintf(line, sizeof(line), "fusermount3 -u '%s'", mnt);
	CHECK(system(line) == 0);
	CHECK(waitpid(daemon_pid, &i, 0) == daemon_pid && WIFEXITED(i) && WEXITSTATUS(i) == 0);
	daemon_pid = -1;

	fp = fopen(hooklog, "r");
	REQUIRE(fp);
	n = 0;
	while (fgets(line, sizeof(line), fp)) {
		if (!strcmp(line, "0 c.txt -\n"))
			n |= 1;
		if (!strcmp(line, "2 c.txt d.txt\n"))
			n |= 2;
		if (!strcmp(line, "1 d.txt -\n"))
			n |= 4;
	}
	fclose(fp);
	CHECK_EQ_INT(n, 7);
}

int main(void)
{
	const char *dir = check_tmpdir();
	char cmd[PATH_MAX + 64];
	int ret, fd;

	if (!dir)
		return 1;
	snprintf(src, sizeof(src), "%s/src", dir);
	snprintf(mnt, sizeof(mnt), "%s/mnt", dir);
	snprintf(hooklog, sizeof(hooklog), "%s/hook.log", dir);
	snprintf(cmd, sizeof(cmd), "%s/similar", src);
	if (mkdir(src, 0755) || mkdir(mnt, 0755) || mkdir(cmd, 0755))
		return 1;
	snprintf(cmd, sizeof(cmd), "%s/similar/hidden-src-file", src);
	fd = open(cmd, O_CREAT | O_WRONLY, 0644);
	if (fd >= 0)
		close(fd);
	snprintf(cmd, sizeof(cmd), "%s/a.txt", src);
	fd = open(cmd, O_CREAT | O_WRONLY, 0644);
	if (fd < 0 || write(fd, "src\n", 4) != 4)
		return 1;
	close(fd);

	RUN(test_register);
	RUN(test_mounted_view);
	if (daemon_pid > 0) {
		snprintf(cmd, sizeof(cmd), "fusermount3 -u -z '%s' 2>/dev/null", mnt);
		ret = system(cmd);
		kill(daemon_pid, SIGKILL);
		waitpid(daemon_pid, NULL, 0);
		(void)ret;
	}
	return CHECK_DONE();
}
