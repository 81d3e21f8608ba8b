/* cli_notdup.c - `simbook not-duplicate`: marks and lists "not a duplicate" pairs,
 * on a library's index or through its mount (see cli.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cliopt.h"
#include "idx.h"
#include "libroot.h"
#include "sbuf.h"
#include "simlist.h"

static const char nd_usage[] =
	"usage: simbook not-duplicate [--undo] [--src SRC] [--index DIR] A B\n"
	"       simbook not-duplicate --list [--src SRC] [--index DIR] [PATH]\n"
	"Marks books A and B as not duplicates (--undo: removes the mark), in the\n"
	"index of their library, or through the mount's daemon when they are on a\n"
	"mount.  --list prints every mark of the library holding PATH (default:\n"
	"the current folder), one per line: path TAB path.\n"
	"  --src SRC    the library folder (default: found from the paths)\n"
	"  --index DIR  its index folder (default: SRC/" LIBROOT_INDEX_NAME ")\n"
	"Exit status: 0 done, 1 failed (a book not in the index, no index, the\n"
	"mount refused it), 2 bad arguments.\n";

/* path relative to root (both real paths), or NULL when outside. */
static const char *rel_to(const char *path, const char *root)
{
	size_t n = strlen(root);

	if (n == 1)
		return path + 1;
	if (strncmp(path, root, n) || path[n] != '/')
		return NULL;
	return path + n + 1;
}

/* On a mount: marks (or with undo unmarks) the pair ra, rb (relative to
 * the mount root) with one write() of the command to the mount's control
 * file (docs/VIEWS.md).  0 or -errno (the daemon's answer: -ENOENT a book
 * it does not know, -EINVAL the same book twice, -EAGAIN its index is not
 * open yet). */
static int nd_control(const char *mnt, const char *ra, const char *rb, int undo)
{
	char path[PATH_MAX + 32];
	struct sbuf cmd;
	ssize_t n;
	int fd, ret;

	sbuf_init(&cmd);
	ret = sbuf_addstr(&cmd, undo ? "undo-not-duplicate\t" : "not-duplicate\t");
	if (!ret)
		ret = simlist_escape(&cmd, ra);
	if (!ret)
		ret = sbuf_addch(&cmd, '\t');
	if (!ret)
		ret = simlist_escape(&cmd, rb);
	if (!ret)
		ret = sbuf_addch(&cmd, '\n');
	if (ret)
		goto out;
	snprintf(path, sizeof(path), "%s/.simbookfs/control", mnt);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	n = write(fd, cmd.buf, cmd.len);
	ret = n < 0 ? -errno : (size_t)n == cmd.len ? 0 : -EIO;
	if (close(fd) < 0 && !ret)
		ret = -errno;
out:
	sbuf_release(&cmd);
	return ret;
}

/* Copies the mount's .simbookfs/not-duplicates to stdout.  0 or -errno. */
static int nd_list_mount(const char *mnt)
{
	char path[PATH_MAX + 32], buf[65536];
	size_t n;
	FILE *in;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/.simbookfs/not-duplicates", mnt);
	in = fopen(path, "r");
	if (!in)
		return -errno;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, stdout) != n) {
			ret = -errno;
			break;
		}
	if (!ret && ferror(in))
		ret = -EIO;
	fclose(in);
	return ret;
}

/* --list: every "not a duplicate" pair of the library holding path (a
 * mount or SRC), one per line: path TAB path.  Returns the exit status. */
static int nd_list(const char *path, const char *src, const char *index)
{
	char p[PATH_MAX], srcbuf[PATH_MAX];
	struct libroot lr = { 0 };
	struct idx *ix = NULL;
	struct sbuf out;
	char *root = NULL;
	int ret, status = 1;

	sbuf_init(&out);
	if (!realpath(path, p)) {
		fprintf(stderr, "simbook: %s: %s\n", path, strerror(errno));
		goto out;
	}
	if (!src && !index && libroot_above(p, ".simbookfs/status", &root) == 0) {
		ret = nd_list_mount(root);
		if (ret)
			fprintf(stderr, "simbook: %s/.simbookfs/not-duplicates: %s\n", root,
				strerror(-ret));
		status = ret ? 1 : 0;
		goto out;
	}
	if (src && !realpath(src, srcbuf)) {
		fprintf(stderr, "simbook: %s: %s\n", src, strerror(errno));
		goto out;
	}
	ret = libroot_find(&lr, p, src ? index : NULL, src ? srcbuf : NULL, NULL, NULL);
	if (ret) {
		fprintf(stderr, "simbook: %s\n", ret == -ENOENT && !src ?
			"no " LIBROOT_INDEX_NAME " folder above the path (use --src SRC [--index DIR])" :
			strerror(-ret));
		goto out;
	}
	ret = idx_open(&ix, index ? index : lr.index, &(struct idx_opts){ .readonly = 1 });
	if (!ret)
		ret = simlist_exemptions_tsv(ix, &out);
	if (ret) {
		fprintf(stderr, "simbook: %s: %s\n", index ? index : lr.index, idx_strerror(ret));
		goto out;
	}
	if (out.len && fwrite(out.buf, 1, out.len, stdout) != out.len) {
		perror("simbook: stdout");
		goto out;
	}
	status = 0;
out:
	idx_close(ix);
	libroot_release(&lr);
	sbuf_release(&out);
	free(root);
	return status;
}

int cli_not_duplicate(int argc, char **argv)
{
	const char *src = NULL, *index = NULL, *files[2] = { NULL, NULL }, *ra, *rb;
	char pa[PATH_MAX], pb[PATH_MAX], srcbuf[PATH_MAX];
	struct libroot lr = { 0 };
	char *root = NULL;
	struct idx *ix = NULL;
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' }, { "undo", no_argument, NULL, 'u' },
		{ "list", no_argument, NULL, 'l' }, { "src", required_argument, NULL, 's' },
		{ "index", required_argument, NULL, 'i' }, { NULL, 0, NULL, 0 }
	};
	int undo = 0, list = 0, nf = 0, i, c, first = 1, ret, status = 2;

	while ((c = cliopt_next("not-duplicate", first, argc, argv, ":h", longopts)) != -1) {
		first = 0;
		switch (c) {
		case 'h':
			fputs(nd_usage, stdout);
			return 0;
		case 'u':
			undo = 1;
			break;
		case 'l':
			list = 1;
			break;
		case 's':
			src = optarg;
			break;
		case 'i':
			index = optarg;
			break;
		default:
			return 2;
		}
	}
	for (i = optind; i < argc; i++) {
		if (nf == 2)
			return cliopt_usage("not-duplicate", "two books at most, not also '%s'",
					    argv[i]);
		files[nf++] = argv[i];
	}
	if (list && !undo && nf < 2)
		return nd_list(nf ? files[0] : src ? src : ".", src, index);
	if (nf != 2 || list)
		return cliopt_usage("not-duplicate", list ? "--list takes one PATH at most, "
				    "without --undo" : "two books A and B are needed");
	status = 1;
	if (!realpath(files[0], pa) || !realpath(files[1], pb)) {
		fprintf(stderr, "simbook: %s: %s\n", realpath(files[0], pa) ? files[1] : files[0],
			strerror(errno));
		goto out;
	}
	if (!src && !index && libroot_above(pa, ".simbookfs/status", &root) == 0) {
		/* Paths inside a mount: the daemon records it (its index may
		 * be hidden under the mount). */
		ra = rel_to(pa, root);
		rb = rel_to(pb, root);
		if (!ra || !rb) {
			fprintf(stderr, "simbook: both books must be inside the mount %s\n", root);
			goto out;
		}
		ret = nd_control(root, ra, rb, undo);
		if (ret) {
			fprintf(stderr, "simbook: %s/.simbookfs/control: %s\n", root,
				ret == -ENOENT ? "a book is not in the index" :
				ret == -EINVAL ? "the same book twice" :
				ret == -EAGAIN ? "the index is still opening (see .simbookfs/status), "
						 "try again later" : strerror(-ret));
			goto out;
		}
		printf("%s: %s and %s\n", undo ? "duplicates again" : "not duplicates", ra, rb);
		status = 0;
		goto out;
	}
	if (src && !realpath(src, srcbuf)) {
		fprintf(stderr, "simbook: %s: %s\n", src, strerror(errno));
		goto out;
	}
	/* Without --src the library is the nearest folder above A holding the
	 * default index; a given --index then only replaces that index. */
	ret = libroot_find(&lr, pa, src ? index : NULL, src ? srcbuf : NULL, NULL, NULL);
	if (ret == -ENOENT && !src) {
		fprintf(stderr, "simbook: no %s folder above %s (use --src SRC [--index DIR])\n",
			LIBROOT_INDEX_NAME, files[0]);
		goto out;
	}
	ra = ret ? NULL : rel_to(pa, lr.root);
	rb = ret ? NULL : rel_to(pb, lr.root);
	if (ret == -EXDEV || (!ret && (!ra || !rb))) {
		fprintf(stderr, "simbook: both books must be inside %s\n", ret ? srcbuf : lr.root);
		goto out;
	}
	if (ret) {
		fprintf(stderr, "simbook: index %s: %s\n", index ? index : "SRC/" LIBROOT_INDEX_NAME,
			ret == -EINVAL ? "must be outside SRC or directly in it" : strerror(-ret));
		goto out;
	}
	if (!index)
		index = lr.index;
	ret = idx_open(&ix, index, NULL);
	if (!ret && idx_rebuilt(ix) == IDX_REBUILT_LOST)
		fprintf(stderr, "simbook: the index in %s was unreadable and has been reset: its "
			"\"not a duplicate\" marks are lost (the old file is kept as %s/"
			IDX_DAMAGED_NAME ")\n", index, index);
	if (!ret)
		ret = idx_exempt_set(ix, ra, rb, !undo);
	if (ret) {
		fprintf(stderr, "simbook: %s: %s\n", index,
			ret == -ENOENT ? "a book is not in the index" :
			ret == -EINVAL ? "the same book twice" : idx_strerror(ret));
		goto out;
	}
	printf("%s: %s and %s\n", undo ? "duplicates again" : "not duplicates", ra, rb);
	status = 0;
	goto out;
out:
	idx_close(ix);
	libroot_release(&lr);
	free(root);
	return status;
}
