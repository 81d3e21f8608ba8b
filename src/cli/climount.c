/* climount.c - which simbookfs mount holds a path, and where its daemon
 * keeps the index (climount.h). */
#include "climount.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fspath.h"
#include "sbuf.h"

#define STATUS_MAX (1 << 20)	/* a status is a few hundred bytes */

int climount_find(const char *path, char *mnt, size_t size)
{
	char real[PATH_MAX], line[PATH_MAX * 2], point[PATH_MAX], *type;
	size_t n, best = 0;
	FILE *fp;

	if (!realpath(path, real))
		return 0;
	fp = fopen("/proc/self/mountinfo", "r");
	if (!fp)
		return 0;
	while (fgets(line, sizeof(line), fp)) {
		type = strstr(line, " - ");
		if (!type || strncmp(type + 3, "fuse.simbookfs ", 15) ||
		    sscanf(line, "%*s %*s %*s %*s %4095s", point) != 1)
			continue;
		fspath_unescape_mountinfo(point);
		n = strlen(point);
		if (n > best && !strncmp(real, point, n) &&
		    (real[n] == '\0' || real[n] == '/' || n == 1)) {
			best = n;
			snprintf(mnt, size, "%s", point);
		}
	}
	fclose(fp);
	return best > 0;
}

/* Appends code point u as UTF-8; a \udcXX escape is the byte XX of a name
 * that is not UTF-8 (jsonw.h). */
static int put_code(struct sbuf *o, unsigned u)
{
	if (u >= 0xdc80 && u <= 0xdcff)
		return sbuf_addch(o, (char)(u & 0xff));
	if (u < 0x80)
		return sbuf_addch(o, (char)u);
	if (u < 0x800)
		return sbuf_addf(o, "%c%c", 0xc0 | (u >> 6), 0x80 | (u & 0x3f));
	return sbuf_addf(o, "%c%c%c", 0xe0 | (u >> 12), 0x80 | ((u >> 6) & 0x3f),
			 0x80 | (u & 0x3f));
}

/* The string value of the first "key" in JSON text js: *out malloc'd.
 * 0, -ENOENT, -EINVAL (not a string), -ENOMEM. */
static int json_get(const char *js, const char *key, char **out)
{
	struct sbuf o;
	char pat[32];
	const char *p;
	unsigned u;
	int ret = 0, n;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(js, pat);
	if (!p)
		return -ENOENT;
	p += strlen(pat);
	if (*p++ != '"')
		return -EINVAL;
	sbuf_init(&o);
	while (!ret && *p && *p != '"') {
		if (*p != '\\') {
			ret = sbuf_addch(&o, *p++);
			continue;
		}
		p++;
		switch (*p) {
		case 'b': ret = sbuf_addch(&o, '\b'); break;
		case 'f': ret = sbuf_addch(&o, '\f'); break;
		case 'n': ret = sbuf_addch(&o, '\n'); break;
		case 'r': ret = sbuf_addch(&o, '\r'); break;
		case 't': ret = sbuf_addch(&o, '\t'); break;
		case 'u':
			if (sscanf(p + 1, "%4x%n", &u, &n) != 1 || n != 4 || !u) {
				ret = -EINVAL;
				break;
			}
			ret = put_code(&o, u);
			p += 4;
			break;
		case '"': case '\\': case '/':
			ret = sbuf_addch(&o, *p);
			break;
		default:
			ret = -EINVAL;
		}
		if (!ret)
			p++;
	}
	if (!ret && *p != '"')
		ret = -EINVAL;
	if (!ret)
		ret = (*out = strdup(o.buf ? o.buf : "")) ? 0 : -ENOMEM;
	sbuf_release(&o);
	return ret;
}

/* Reads file path (at most STATUS_MAX bytes) into sb.  0 or -errno. */
static int read_small(const char *path, struct sbuf *sb)
{
	char buf[4096];
	size_t n;
	FILE *fp = fopen(path, "r");
	int ret = 0;

	if (!fp)
		return -errno;
	while (!ret && (n = fread(buf, 1, sizeof(buf), fp)) > 0)
		ret = sb->len + n > STATUS_MAX ? -EFBIG : sbuf_add(sb, buf, n);
	if (!ret && ferror(fp))
		ret = -EIO;
	fclose(fp);
	return ret;
}

/* Fills m from the status file of folder name in mnt; 0 or -errno. */
static int try_status(const char *mnt, const char *name, struct climount *m)
{
	struct sbuf path, js;
	const char *lib;
	int ret;

	sbuf_init(&path);
	sbuf_init(&js);
	ret = sbuf_addf(&path, "%s%s%s/status", mnt, strcmp(mnt, "/") ? "/" : "", name);
	if (!ret)
		ret = read_small(path.buf, &js);
	lib = !ret && js.buf ? strstr(js.buf, "\"library\":{") : NULL;
	if (!ret && !lib)
		ret = -ENOENT;
	if (!ret)
		ret = json_get(lib, "src", &m->src);
	if (!ret)
		ret = json_get(lib, "index", &m->index);
	if (!ret)
		ret = json_get(lib, "reader", &m->reader);
	if (!ret)
		ret = (m->mnt = strdup(mnt)) ? 0 : -ENOMEM;
	if (ret == -EINVAL)
		ret = -ENOENT;
	sbuf_release(&path);
	sbuf_release(&js);
	return ret;
}

int climount_library(const char *mnt, struct climount *m)
{
	static const char base[] = ".simbookfs";
	struct dirent *de;
	DIR *d;
	int ret;

	memset(m, 0, sizeof(*m));
	ret = try_status(mnt, base, m);
	if (ret != -ENOENT)
		goto out;
	climount_release(m);
	/* -o viewprefix=: the status folder is PREFIX.simbookfs */
	d = opendir(mnt);
	if (!d)
		return -errno;
	while (ret == -ENOENT && (de = readdir(d)) != NULL) {
		if (!fspath_status_dir(de->d_name) || !strcmp(de->d_name, base))
			continue;
		ret = try_status(mnt, de->d_name, m);
		if (ret)
			climount_release(m);
		if (ret && ret != -ENOMEM)
			ret = -ENOENT;
	}
	closedir(d);
out:
	if (ret)
		climount_release(m);
	return ret;
}

void climount_release(struct climount *m)
{
	free(m->mnt);
	free(m->src);
	free(m->index);
	free(m->reader);
	memset(m, 0, sizeof(*m));
}

int climount_report(const char *path)
{
	const char *end = path + strlen(path), *slash, *start;
	char name[NAME_MAX + 1];

	while (end > path && end[-1] == '/')
		end--;
	slash = end;
	while (slash > path && slash[-1] != '/')
		slash--;
	/* the parent's name: the component before the last */
	while (slash > path && slash[-1] == '/')
		slash--;
	start = slash;
	while (start > path && start[-1] != '/')
		start--;
	if (slash == start || (size_t)(slash - start) > NAME_MAX)
		return 0;
	memcpy(name, start, (size_t)(slash - start));
	name[slash - start] = '\0';
	return fspath_status_dir(name);
}
