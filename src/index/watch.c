/* watch.c - inotify watches over SRC (see watch.h). */
#include "watch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fspath.h"
#include "grow.h"

#define WATCH_MASK (IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE | \
		    IN_ONLYDIR | IN_EXCL_UNLINK)
#define MOVE_WAIT_MS 20	/* how long a move out waits for its move in */

/* wd -> directory path relative to SRC ("" = SRC) */
struct wdent {
	int wd;
	char *path;
	struct wdent *next;
};

struct watch {
	int src_fd, ifd, stop_fd;
	int have_skip;
	dev_t skip_dev;
	ino_t skip_ino;
	watch_fn fn;
	void *arg;
	struct wdent **map;
	size_t mapsize;			/* power of two */
	pthread_mutex_t lock;		/* guards st */
	struct watch_stats st;
	pthread_t thread;
	int started;
	/* a move out waiting for its move in */
	uint32_t move_cookie;
	int move_isdir;
	char *move_from;
};

static struct wdent **map_slot(struct watch *w, int wd)
{
	struct wdent **pp = &w->map[(size_t)wd & (w->mapsize - 1)];

	while (*pp && (*pp)->wd != wd)
		pp = &(*pp)->next;
	return pp;
}

static const char *map_get(struct watch *w, int wd)
{
	struct wdent *e = *map_slot(w, wd);

	return e ? e->path : NULL;
}

static int map_set(struct watch *w, int wd, const char *path)
{
	struct wdent **pp = map_slot(w, wd), *e;
	char *p = strdup(path);

	if (!p)
		return -ENOMEM;
	if (*pp) {
		free((*pp)->path);
		(*pp)->path = p;
		return 0;
	}
	e = malloc(sizeof(*e));
	if (!e) {
		free(p);
		return -ENOMEM;
	}
	e->wd = wd;
	e->path = p;
	e->next = NULL;
	*pp = e;
	pthread_mutex_lock(&w->lock);
	w->st.watches++;
	pthread_mutex_unlock(&w->lock);
	return 0;
}

static void map_del(struct watch *w, int wd)
{
	struct wdent **pp = map_slot(w, wd), *e = *pp;

	if (!e)
		return;
	*pp = e->next;
	free(e->path);
	free(e);
	pthread_mutex_lock(&w->lock);
	w->st.watches--;
	pthread_mutex_unlock(&w->lock);
}

static int under(const char *dir, const char *path)
{
	size_t n = strlen(dir);

	return strncmp(dir, path, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* A directory moved within SRC: its watches stay, their paths change. */
static int map_rename(struct watch *w, const char *from, const char *to)
{
	size_t i, fl = strlen(from), tl = strlen(to);
	struct wdent *e;

	for (i = 0; i < w->mapsize; i++) {
		for (e = w->map[i]; e; e = e->next) {
			size_t rest;
			char *p;

			if (!under(from, e->path))
				continue;
			rest = strlen(e->path) - fl;
			p = malloc(tl + rest + 1);
			if (!p)
				return -ENOMEM;
			memcpy(p, to, tl);
			memcpy(p + tl, e->path + fl, rest + 1);
			free(e->path);
			e->path = p;
		}
	}
	return 0;
}

/* A directory left SRC: stop watching it and everything below. */
static void map_drop_tree(struct watch *w, const char *dir)
{
	size_t i;
	struct wdent *e, *next;

	for (i = 0; i < w->mapsize; i++) {
		for (e = w->map[i]; e; e = next) {
			next = e->next;
			if (under(dir, e->path)) {
				inotify_rm_watch(w->ifd, e->wd);
				map_del(w, e->wd);
			}
		}
	}
}

static void emit(struct watch *w, enum watch_what what, const char *path, const char *path2)
{
	pthread_mutex_lock(&w->lock);
	w->st.events++;
	pthread_mutex_unlock(&w->lock);
	w->fn(w->arg, what, path, path2);
}

/* Watches rel and every directory below it.  Returns 0 or -ENOMEM; other
 * failures (a directory gone meanwhile, the watch limit) are not fatal. */
static int add_tree(struct watch *w, const char *rel)
{
	char **stack = NULL, *dir, proc[64];
	size_t n = 0, cap = 0;
	int ret = 0;

	dir = strdup(rel);
	if (!dir)
		return -ENOMEM;
	for (;;) {
		struct dirent *de;
		struct stat st;
		DIR *d = NULL;
		int fd, wd;

		fd = *dir ? openat(w->src_fd, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
			  : openat(w->src_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) ||
		    (w->have_skip && st.st_dev == w->skip_dev && st.st_ino == w->skip_ino))
			goto next;
		/* watch the directory the fd holds, not whatever a path names now
		 * (so no IN_DONT_FOLLOW: the magic link must be followed) */
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		wd = inotify_add_watch(w->ifd, proc, WATCH_MASK);
		if (wd < 0) {
			if (errno == ENOSPC) {
				pthread_mutex_lock(&w->lock);
				w->st.incomplete = 1;
				pthread_mutex_unlock(&w->lock);
			}
			goto next;
		}
		ret = map_set(w, wd, dir);
		if (ret)
			goto next;
		d = fdopendir(fd);
		if (!d)
			goto next;
		fd = -1;
		while ((de = readdir(d)) != NULL) {
			char *sub;

			if (de->d_name[0] == '.' &&
			    (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
				continue;
			if (de->d_type == DT_UNKNOWN) {
				if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
				    !S_ISDIR(st.st_mode))
					continue;
			} else if (de->d_type != DT_DIR) {
				continue;
			}
			sub = fspath_join(dir, de->d_name);
			if (!sub) {
				ret = -ENOMEM;
				break;
			}
			if (ARRAY_GROW(stack, cap, n + 1)) {
				free(sub);
				ret = -ENOMEM;
				break;
			}
			stack[n++] = sub;
		}
next:
		if (d)
			closedir(d);
		else if (fd >= 0)
			close(fd);
		free(dir);
		if (ret || !n)
			break;
		dir = stack[--n];
	}
	while (n)
		free(stack[--n]);
	free(stack);
	return ret;
}

/* A move out with no move in: the path left SRC. */
static void flush_move(struct watch *w)
{
	if (!w->move_from)
		return;
	if (w->move_isdir)
		map_drop_tree(w, w->move_from);
	emit(w, WATCH_GONE, w->move_from, NULL);
	free(w->move_from);
	w->move_from = NULL;
}

static void handle(struct watch *w, const struct inotify_event *ev)
{
	const char *dir;
	char *path = NULL;
	int isdir = (ev->mask & IN_ISDIR) != 0;

	if (ev->mask & IN_Q_OVERFLOW) {
		flush_move(w);
		pthread_mutex_lock(&w->lock);
		w->st.overflows++;
		pthread_mutex_unlock(&w->lock);
		/* directories created meanwhile have no watch yet: walk again
		 * (a directory already watched keeps its wd) */
		(void)add_tree(w, "");	/* -ENOMEM: the rescan still covers the files */
		emit(w, WATCH_RESCAN, "", NULL);
		return;
	}
	if (ev->mask & IN_IGNORED) {
		map_del(w, ev->wd);
		return;
	}
	dir = map_get(w, ev->wd);
	if (!dir || !ev->len)
		return;
	path = fspath_join(dir, ev->name);
	if (!path) {
		emit(w, WATCH_RESCAN, "", NULL);	/* cannot tell what changed */
		return;
	}
	if ((ev->mask & IN_MOVED_TO) && w->move_from && ev->cookie == w->move_cookie) {
		if (w->move_isdir && map_rename(w, w->move_from, path))
			emit(w, WATCH_RESCAN, "", NULL);
		emit(w, WATCH_RENAMED, w->move_from, path);
		free(w->move_from);
		w->move_from = NULL;
		free(path);
		return;
	}
	flush_move(w);
	if (ev->mask & IN_MOVED_FROM) {
		w->move_from = path;
		w->move_cookie = ev->cookie;
		w->move_isdir = isdir;
		return;
	}
	if (isdir && (ev->mask & (IN_CREATE | IN_MOVED_TO))) {
		/* its contents may have arrived before the watch did */
		if (add_tree(w, path))
			emit(w, WATCH_RESCAN, "", NULL);
		else
			emit(w, WATCH_RESCAN, path, NULL);
	} else if (!isdir && (ev->mask & (IN_CLOSE_WRITE | IN_MOVED_TO))) {
		emit(w, WATCH_FILE, path, NULL);
	} else if (ev->mask & IN_DELETE) {
		emit(w, WATCH_GONE, path, NULL);
	}
	free(path);
}

static void *watch_thread(void *p)
{
	struct watch *w = p;
	char buf[64 * 1024] __attribute__((aligned(__alignof__(struct inotify_event))));
	struct pollfd pfd[2];

	pfd[0].fd = w->ifd;
	pfd[0].events = POLLIN;
	pfd[1].fd = w->stop_fd;
	pfd[1].events = POLLIN;
	for (;;) {
		ssize_t len, off;
		int rc = poll(pfd, 2, w->move_from ? MOVE_WAIT_MS : -1);

		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0 || (pfd[1].revents & POLLIN))
			break;
		if (rc == 0) {
			flush_move(w);
			continue;
		}
		len = read(w->ifd, buf, sizeof(buf));
		if (len <= 0)
			continue;
		for (off = 0; off < len;) {
			const struct inotify_event *ev = (const void *)(buf + off);

			handle(w, ev);
			off += (ssize_t)(sizeof(*ev) + ev->len);
		}
	}
	flush_move(w);
	return NULL;
}

int watch_new(struct watch **out, const struct watch_opts *opts)
{
	struct watch *w = NULL;
	struct stat st;
	int ret;

	*out = NULL;
	if (!opts || !opts->fn || opts->src_fd < 0)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->src_fd = w->ifd = w->stop_fd = -1;
	pthread_mutex_init(&w->lock, NULL);
	w->fn = opts->fn;
	w->arg = opts->arg;
	w->mapsize = 4096;
	w->map = calloc(w->mapsize, sizeof(*w->map));
	if (!w->map) {
		ret = -ENOMEM;
		goto fail;
	}
	if (opts->skip_dir && stat(opts->skip_dir, &st) == 0) {
		w->have_skip = 1;
		w->skip_dev = st.st_dev;
		w->skip_ino = st.st_ino;
	}
	w->src_fd = fcntl(opts->src_fd, F_DUPFD_CLOEXEC, 3);
	w->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	w->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (w->src_fd < 0 || w->ifd < 0 || w->stop_fd < 0) {
		ret = -errno;
		goto fail;
	}
	ret = add_tree(w, "");
	if (ret)
		goto fail;
	ret = -pthread_create(&w->thread, NULL, watch_thread, w);
	if (ret)
		goto fail;
	w->started = 1;
	*out = w;
	return 0;
fail:
	watch_free(w);
	return ret;
}

void watch_stats(struct watch *w, struct watch_stats *st)
{
	pthread_mutex_lock(&w->lock);
	*st = w->st;
	pthread_mutex_unlock(&w->lock);
}

void watch_free(struct watch *w)
{
	size_t i;

	if (!w)
		return;
	if (w->started) {
		eventfd_write(w->stop_fd, 1);
		pthread_join(w->thread, NULL);
	}
	for (i = 0; w->map && i < w->mapsize; i++) {
		struct wdent *e, *next;

		for (e = w->map[i]; e; e = next) {
			next = e->next;
			free(e->path);
			free(e);
		}
	}
	free(w->map);
	free(w->move_from);
	if (w->ifd >= 0)
		close(w->ifd);
	if (w->stop_fd >= 0)
		close(w->stop_fd);
	if (w->src_fd >= 0)
		close(w->src_fd);
	pthread_mutex_destroy(&w->lock);
	free(w);
}
