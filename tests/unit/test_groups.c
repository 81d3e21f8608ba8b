/* test_groups.c - the one group resolver (groups.h): clusters/ and
 * duplicates/ of the views and `simbook clusters|duplicates` list the same
 * groups with the same members in the same order, on a library whose book
 * ids do not follow the byte order of the paths (copies indexed later with
 * names that sort first).  Group titles and entry names from calibre
 * metadata.opf files: the most common one titles a group, equal titles are
 * told apart by path, and the names do not depend on the order the books
 * were indexed in. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "groups.h"
#include "ixtest.h"
#include "opener.h"
#include "textgen.h"
#include "views_i.h"

#define WORDS 1500
#define VOCAB 5000
#define MAXROWS 64

static char vocab[VOCAB][TEXTGEN_WORD];

/* Writes the first words of base text base, one word in change_in
 * replaced with seed own's choice (0: none), to src/rel. */
static void put(const char *rel, uint32_t base, uint32_t own, unsigned change_in)
{
	char *t = malloc((size_t)WORDS * TEXTGEN_WORD + 2);

	if (!t)
		return;
	textgen_words(t, (const char (*)[TEXTGEN_WORD])vocab, VOCAB, base, own, change_in, WORDS,
		      100);
	ixtest_put(rel, t);
	free(t);
}

/* A listing: one row per member, its group's number and its path. */
struct rows {
	size_t n;
	size_t group[MAXROWS];
	char path[MAXROWS][PATH_MAX];
};

static void rows_add(struct rows *r, size_t group, const char *path)
{
	if (r->n < MAXROWS) {
		r->group[r->n] = group;
		snprintf(r->path[r->n], sizeof(r->path[r->n]), "%s", path);
	}
	r->n++;
}

/* The names a readdir hands out, "." and ".." left out. */
struct names {
	size_t n;
	char v[MAXROWS][NAME_MAX + 1];
};

static int fill(void *buf, const char *name, const struct stat *st, off_t off,
		enum fuse_fill_dir_flags flags)
{
	struct names *nm = buf;

	(void)st;
	(void)off;
	(void)flags;
	if (strcmp(name, ".") && strcmp(name, "..") && nm->n < MAXROWS)
		snprintf(nm->v[nm->n++], sizeof(nm->v[0]), "%s", name);
	return 0;
}

/* The view k as the mount lists it: groups and members in readdir order,
 * each member's book path (the source of its entry). */
static int view_rows(struct views *v, enum view_kind k, struct rows *r)
{
	struct names *groups = calloc(1, sizeof(*groups)), *mem = calloc(1, sizeof(*mem));
	char rel[2 * NAME_MAX + 2], path[PATH_MAX];
	size_t g, m;
	int ret = groups && mem ? grp_readdir(v, k, "", groups, fill) : -ENOMEM;

	for (g = 0; !ret && g < groups->n; g++) {
		mem->n = 0;
		ret = grp_readdir(v, k, groups->v[g], mem, fill);
		for (m = 0; !ret && m < mem->n; m++) {
			snprintf(rel, sizeof(rel), "%s/%s", groups->v[g], mem->v[m]);
			ret = grp_entry_target(v, k, rel, path, sizeof(path), TF_SOURCE);
			if (!ret)
				rows_add(r, g + 1, path);
		}
	}
	free(groups);
	free(mem);
	return ret;
}

/* `simbook clusters|duplicates SRC --tsv --index IXDIR`: its rows (group
 * number, path), from its output captured in a file. */
static int cli_rows(int text, struct rows *r)
{
	static char a_clusters[] = "clusters", a_duplicates[] = "duplicates", a_tsv[] = "--tsv",
		    a_index[] = "--index";
	char out[PATH_MAX + 16], line[4096], *argv[6], *f[11], *p;
	int (*cmd)(int, char **) = text ? cli_duplicates : cli_clusters;
	int fd, saved, status, i;
	FILE *in;

	snprintf(out, sizeof(out), "%s/../cli.tsv", src);
	argv[0] = text ? a_duplicates : a_clusters;
	argv[1] = src;
	argv[2] = a_tsv;
	argv[3] = a_index;
	argv[4] = ixdir;
	argv[5] = NULL;
	fflush(stdout);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	saved = dup(STDOUT_FILENO);
	if (fd < 0 || saved < 0 || dup2(fd, STDOUT_FILENO) < 0)
		return -1;
	status = cmd(5, argv);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	close(fd);
	in = fopen(out, "r");
	if (status != 0 || !in || !fgets(line, sizeof(line), in)) {	/* the header */
		if (in)
			fclose(in);
		return -1;
	}
	while (fgets(line, sizeof(line), in)) {
		line[strcspn(line, "\n")] = '\0';
		/* group count title relation score simhash_distance size mtime
		 * id simhash path */
		for (i = 0, p = line; i < 11 && p; i++) {
			f[i] = p;
			p = strchr(p, '\t');
			if (p)
				*p++ = '\0';
		}
		if (i == 11 && !p)
			rows_add(r, strtoul(f[0], NULL, 10), f[10]);
	}
	fclose(in);
	return 0;
}

/* groups_resolve() itself, every member kept. */
static int resolved_rows(struct idx *ix, enum groups_kind kind, struct rows *r, int *by_id)
{
	struct groups_set s = { 0, NULL };
	size_t g, m;
	int ret = groups_resolve(ix, kind, NULL, NULL, &s);

	*by_id = 1;
	for (g = 0; !ret && g < s.n; g++)
		for (m = 0; m < s.g[g].n; m++) {
			rows_add(r, g + 1, s.g[g].m[m].path);
			if (m && s.g[g].m[m - 1].id >= s.g[g].m[m].id)
				*by_id = 0;
		}
	groups_set_release(&s);
	return ret;
}

static int rows_equal(const struct rows *a, const struct rows *b)
{
	size_t i;

	if (a->n != b->n || a->n > MAXROWS)
		return 0;
	for (i = 0; i < a->n; i++)
		if (a->group[i] != b->group[i] || strcmp(a->path[i], b->path[i]))
			return 0;
	return 1;
}

/* 1 when some group lists its members out of the byte order of paths. */
static int not_path_order(const struct rows *r)
{
	size_t i;

	for (i = 1; i < r->n && i < MAXROWS; i++)
		if (r->group[i] == r->group[i - 1] && strcmp(r->path[i - 1], r->path[i]) > 0)
			return 1;
	return 0;
}

static void index_once(int fd)
{
	struct indexer_opts o = { 0 };
	struct indexer *ixr = NULL;

	o.index_dir = ixdir;
	o.threads = 2;
	o.no_watch = 1;
	REQUIRE(indexer_new(&ixr, fd, &o) == 0);
	REQUIRE(indexer_start(ixr) == 0);
	REQUIRE(indexer_wait_idle(ixr, 120000) == 0);
	indexer_free(ixr);
}

/* Opens the index of src (fd) with threads workers and its views, once
 * the index is idle. */
static void start_views(int fd, int threads, struct opener **op, struct views **v)
{
	struct opener_opts oo;
	int i;

	memset(&oo, 0, sizeof(oo));
	oo.io.index_dir = ixdir;
	oo.io.threads = threads;
	oo.io.no_watch = 1;
	REQUIRE(opener_new(op, fd, &oo) == 0);
	REQUIRE(opener_start(*op) == 0);
	for (i = 0; i < 600 && !opener_indexer(*op); i++)
		usleep(50000);
	REQUIRE(opener_indexer(*op) != NULL);
	REQUIRE(indexer_wait_idle(opener_indexer(*op), 120000) == 0);
	REQUIRE(views_new(v, fd, "", NULL) == 0);
	views_attach(*v, *op);
	REQUIRE(views_open(*v));
}

static void test_one_order(void)
{
	struct opener *op = NULL;
	struct views *v = NULL;
	int fd, i, by_id;

	REQUIRE(ixtest_dirs() == 0);
	textgen_vocab(vocab, VOCAB, 4711);
	/* text 1: two copies and a near duplicate; text 2: a book and its
	 * near duplicate; text 3 alone */
	put("m1.txt", 101, 0, 0);
	put("m2.txt", 101, 0, 0);
	put("p-near1.txt", 101, 1001, 200);
	put("n1.txt", 102, 0, 0);
	put("q-near2.txt", 102, 1002, 200);
	put("z.txt", 103, 0, 0);
	REQUIRE((fd = open(src, O_RDONLY | O_DIRECTORY)) >= 0);
	index_once(fd);
	/* copies indexed later, their names sorting first: larger ids */
	put("a-late1.txt", 101, 0, 0);
	put("b-late2.txt", 102, 0, 0);
	start_views(fd, 2, &op, &v);
	REQUIRE(!check_cur_failed);

	for (i = 0; i < 2; i++) {
		struct rows *rv = calloc(1, sizeof(*rv)), *rc = calloc(1, sizeof(*rc));
		struct rows *rr = calloc(1, sizeof(*rr));

		REQUIRE(rv && rc && rr);
		CHECK_EQ_INT(view_rows(v, i ? VK_DUPLICATES : VK_CLUSTERS, rv), 0);
		CHECK_EQ_INT(cli_rows(i, rc), 0);
		CHECK_EQ_INT(resolved_rows(indexer_idx(opener_indexer(op)),
					   i ? GROUPS_TEXT : GROUPS_CLUSTERS, rr, &by_id), 0);
		/* clusters: texts 1 and 2 (4 and 3 books); duplicates: the
		 * copies of texts 1 and 2 (3 and 2 books) */
		CHECK_EQ_INT(rv->n, i ? 5 : 7);
		CHECK(rows_equal(rv, rc));
		CHECK(rows_equal(rv, rr));
		CHECK(by_id);
		/* the late copies make id order differ from path order */
		CHECK(not_path_order(rv));
		CHECK_EQ_STR(rv->path[0], "m1.txt");
		free(rv);
		free(rc);
		free(rr);
	}
	views_free(v);
	opener_free(op);
	close(fd);
}

/* A calibre metadata.opf in src/dir with title and author. */
static void put_opf(const char *dir, const char *title, const char *author)
{
	char rel[PATH_MAX], *t = NULL;

	snprintf(rel, sizeof(rel), "%s/metadata.opf", dir);
	if (asprintf(&t, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
		     "<package xmlns=\"http://www.idpf.org/2007/opf\" version=\"2.0\">\n"
		     "<metadata xmlns:dc=\"http://purl.org/dc/elements/1.1/\" "
		     "xmlns:opf=\"http://www.idpf.org/2007/opf\">\n"
		     "<dc:title>%s</dc:title><dc:creator opf:role=\"aut\">%s</dc:creator>\n"
		     "</metadata></package>\n", title, author) < 0)
		return;
	ixtest_put(rel, t);
	free(t);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* The view k as "GROUP/ENTRY -> PATH" lines, sorted, into out (size
 * bytes). */
static int view_names(struct views *v, enum view_kind k, char *out, size_t size)
{
	struct names *groups = calloc(1, sizeof(*groups)), *mem = calloc(1, sizeof(*mem));
	static char line[MAXROWS][2 * NAME_MAX + PATH_MAX + 8];
	char rel[2 * NAME_MAX + 2], path[PATH_MAX];
	size_t g, m, n = 0, i, len = 0;
	int ret = groups && mem ? grp_readdir(v, k, "", groups, fill) : -ENOMEM;

	for (g = 0; !ret && g < groups->n; g++) {
		mem->n = 0;
		ret = grp_readdir(v, k, groups->v[g], mem, fill);
		for (m = 0; !ret && m < mem->n && n < MAXROWS; m++) {
			snprintf(rel, sizeof(rel), "%s/%s", groups->v[g], mem->v[m]);
			ret = grp_entry_target(v, k, rel, path, sizeof(path), TF_SOURCE);
			if (!ret)
				snprintf(line[n++], sizeof(line[0]), "%s -> %s", rel, path);
		}
	}
	qsort(line, n, sizeof(line[0]), str_cmp);
	out[0] = '\0';
	for (i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(out + len, size - len, "%s\n", line[i]);
	free(groups);
	free(mem);
	return ret;
}

/* One calibre-like library indexed in two rounds, the books of round
 * `late` first: the names of clusters/ then duplicates/ into out, the
 * group's title checked. */
static void titles_in_order(int late, char *out, size_t size)
{
	static const char *const book[4] = { "x/b.txt", "y/c.txt", "w/d.txt", "e.txt" };
	struct groups_set rs = { 0, NULL };
	struct groups_group sub;
	struct opener *op = NULL;
	struct views *v = NULL;
	char *title = NULL;
	int fd, i, r;
	size_t j;

	out[0] = '\0';
	REQUIRE(ixtest_dirs() == 0);
	textgen_vocab(vocab, VOCAB, 4711);
	for (i = 0; i < 3; i++) {
		char d[PATH_MAX + 8];

		snprintf(d, sizeof(d), "%s/%c", src, "xyw"[i]);
		REQUIRE(mkdir(d, 0700) == 0);
	}
	put_opf("x", "Zeta", "Ann");
	put_opf("y", "Alpha", "Bob");
	put_opf("w", "Zeta", "Ann");
	REQUIRE((fd = open(src, O_RDONLY | O_DIRECTORY)) >= 0);
	/* one text four times; ids in the order of the rounds */
	for (r = 0; r < 2; r++) {
		for (i = 0; i < 4; i++)
			if ((i < 2) == (r == late))
				put(book[i], 201, 0, 0);
		index_once(fd);
	}
	start_views(fd, 1, &op, &v);
	REQUIRE(!check_cur_failed);
	CHECK_EQ_INT(view_names(v, VK_CLUSTERS, out, size), 0);
	CHECK_EQ_INT(view_names(v, VK_DUPLICATES, out + strlen(out), size - strlen(out)), 0);

	/* the most common metadata.opf name; a tie goes by byte order; no
	 * metadata.opf: the file's name */
	REQUIRE(groups_resolve(indexer_idx(opener_indexer(op)), GROUPS_CLUSTERS, NULL, NULL,
			       &rs) == 0);
	REQUIRE(rs.n == 1 && rs.g[0].n == 4);
	REQUIRE(groups_title(indexer_idx(opener_indexer(op)), &rs.g[0], &title) == 0);
	CHECK_EQ_STR(title, "Zeta - Ann");
	free(title);
	sub.m = calloc(4, sizeof(*sub.m));
	REQUIRE(sub.m);
	for (sub.n = 0, j = 0; j < 4; j++)
		if (strcmp(rs.g[0].m[j].path, "w/d.txt"))
			sub.m[sub.n++] = rs.g[0].m[j];
	CHECK_EQ_INT(groups_title(indexer_idx(opener_indexer(op)), &sub, &title), 0);
	CHECK_EQ_STR(title, "Alpha - Bob");
	free(title);
	for (sub.n = 0, j = 0; j < 4; j++)
		if (!strcmp(rs.g[0].m[j].path, "e.txt"))
			sub.m[sub.n++] = rs.g[0].m[j];
	CHECK_EQ_INT(groups_title(indexer_idx(opener_indexer(op)), &sub, &title), 0);
	CHECK_EQ_STR(title, "e");
	free(title);
	free(sub.m);
	groups_set_release(&rs);
	views_free(v);
	opener_free(op);
	close(fd);
}

static char names_early[8192], names_late[8192];

static void test_titles_early(void)
{
	titles_in_order(0, names_early, sizeof(names_early));
	printf("%s", names_early);
	CHECK_EQ_STR(names_early,
		     "Zeta - Ann (4)/Alpha - Bob.txt -> y/c.txt\n"
		     "Zeta - Ann (4)/Zeta - Ann (2).txt -> x/b.txt\n"
		     "Zeta - Ann (4)/Zeta - Ann.txt -> w/d.txt\n"
		     "Zeta - Ann (4)/e.txt -> e.txt\n"
		     /* relations to the smallest path, whichever came first */
		     "Zeta - Ann (4)/e.txt -> e.txt\n"
		     "Zeta - Ann (4)/identical file - Alpha - Bob.txt -> y/c.txt\n"
		     "Zeta - Ann (4)/identical file - Zeta - Ann (2).txt -> x/b.txt\n"
		     "Zeta - Ann (4)/identical file - Zeta - Ann.txt -> w/d.txt\n");
}

/* The other books first: other ids, the same names (in duplicates/ the
 * relations were given to the first book by id). */
static void test_titles_late(void)
{
	titles_in_order(1, names_late, sizeof(names_late));
	CHECK_EQ_STR(names_late, names_early);
}

int main(void)
{
	RUN(test_one_order);
	RUN(test_titles_early);
	RUN(test_titles_late);
	return CHECK_DONE();
}
