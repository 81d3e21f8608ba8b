/* test_simlist.c - the pure parts of the similar views: entry names, their
 * order, scores, the listing file, link targets and path escaping. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "judge.h"
#include "simlist.h"

static void test_name(void)
{
	struct sbuf sb;

	sbuf_init(&sb);
	CHECK_EQ_INT(simlist_name(&sb, 1, 2, 100, "same text", "Book.epub"), 0);
	CHECK_EQ_STR(sb.buf, "01 100% same text - Book.epub");
	CHECK_EQ_INT(simlist_name(&sb, 7, 3, 93, "near duplicate", "x.txt"), 0);
	CHECK_EQ_STR(sb.buf, "007 93% near duplicate - x.txt");
	sbuf_release(&sb);
}

static void test_fit_long(void)
{
	char base[600];
	struct sbuf sb;
	size_t i;

	/* 2-byte UTF-8 letters so a cut could split one */
	for (i = 0; i + 2 < 500; i += 2) {
		base[i] = (char)0xC3;
		base[i + 1] = (char)0xA9;
	}
	strcpy(base + i, ".epub");
	sbuf_init(&sb);
	CHECK_EQ_INT(simlist_name(&sb, 1, 2, 50, "overlap", base), 0);
	CHECK(sb.len <= NAME_MAX);
	CHECK(sb.len > NAME_MAX - 4);
	CHECK(!strcmp(sb.buf + sb.len - 5, ".epub"));
	/* no split sequence before the extension */
	CHECK(((unsigned char)sb.buf[sb.len - 6] & 0xC0) == 0x80);
	CHECK((unsigned char)sb.buf[sb.len - 7] == 0xC3);
	sbuf_setlen(&sb, 0);
	CHECK_EQ_INT(simlist_fit(&sb, "short.txt", 100), 0);
	CHECK_EQ_STR(sb.buf, "short.txt");
	sbuf_setlen(&sb, 0);
	CHECK_EQ_INT(simlist_fit(&sb, "abcdefghij.txt", 8), 0);
	CHECK_EQ_STR(sb.buf, "abcd.txt");
	sbuf_release(&sb);
}

static struct simlist *mk(size_t n)
{
	struct simlist *l = calloc(1, sizeof(*l));

	l->v = calloc(n, sizeof(*l->v));
	l->n = n;
	return l;
}

static void set(struct simlist_entry *e, uint64_t id, const char *path, enum relate_class c,
		unsigned score)
{
	e->id = id;
	e->path = strdup(path);
	e->cls = c;
	e->score = score;
}

static void test_rank_order(void)
{
	struct simlist *l = mk(6);
	size_t i;

	/* another translation after every duplicate, whatever its score */
	set(&l->v[5], 6, "f/traduction.txt", RELATE_OTHER_TRANSLATION, 95);
	set(&l->v[0], 1, "d/overlap.txt", RELATE_OVERLAP, 90);
	set(&l->v[1], 2, "a/near-80.txt", RELATE_NEAR_DUPLICATE, 80);
	set(&l->v[2], 3, "b/same.epub", RELATE_SAME_TEXT, 100);
	set(&l->v[3], 4, "c/near-95.txt", RELATE_NEAR_DUPLICATE, 95);
	set(&l->v[4], 5, "e/vol1.txt", RELATE_A_CONTAINS_B, 99);
	REQUIRE(simlist_rank(l) == 0);
	/* by the share whatever the class (one meaning: text found in the other) */
	CHECK_EQ_STR(l->v[0].name, "01 100% same text - same.epub");
	CHECK_EQ_STR(l->v[1].name, "02 99% part of this - vol1.txt");
	CHECK_EQ_STR(l->v[2].name, "03 95% near duplicate - near-95.txt");
	CHECK_EQ_STR(l->v[3].name, "04 90% overlap - overlap.txt");
	CHECK_EQ_STR(l->v[4].name, "05 80% near duplicate - near-80.txt");
	/* after every duplicate, whatever its share */
	CHECK_EQ_STR(l->v[5].name, "06 95% other translation - traduction.txt");
	/* a name-sorted listing is the rank order */
	for (i = 1; i < l->n; i++)
		CHECK(strcmp(l->v[i - 1].name, l->v[i].name) < 0);
	simlist_free(l);
}

static void test_rank_wide(void)
{
	struct simlist *l = mk(120);
	char p[32];
	size_t i;

	for (i = 0; i < 120; i++) {
		snprintf(p, sizeof(p), "b%03zu.txt", i);
		set(&l->v[i], i + 1, p, RELATE_NEAR_DUPLICATE, (unsigned)(99 - i % 50));
	}
	REQUIRE(simlist_rank(l) == 0);
	CHECK(!strncmp(l->v[0].name, "001 ", 4));
	CHECK(!strncmp(l->v[119].name, "120 ", 4));
	for (i = 1; i < l->n; i++) {
		CHECK(strcmp(l->v[i - 1].name, l->v[i].name) < 0);
		CHECK(l->v[i - 1].score >= l->v[i].score);
	}
	simlist_free(l);
}

static void test_score(void)
{
	struct relate_signals sig;
	struct relate_result rel;

	memset(&sig, 0, sizeof(sig));
	rel.cls = RELATE_SAME_TEXT;
	rel.difference = -1;
	CHECK_EQ_INT(judge_score(&sig, &rel), 100);
	/* the anchor share decides, whatever the other covers say */
	rel.cls = RELATE_NEAR_DUPLICATE;
	rel.difference = 0.07;
	sig.share_a = 0.666;
	sig.share_b = 0.499;
	sig.span_cover_a = sig.span_cover_b = 1.0;
	sig.block_cover_a = sig.block_cover_b = 1.0;
	CHECK_EQ_INT(judge_score(&sig, &rel), 67);
	sig.share_a = 0.996;	/* 100 only when all of it was found */
	CHECK_EQ_INT(judge_score(&sig, &rel), 99);
	sig.share_a = 1.0;
	CHECK_EQ_INT(judge_score(&sig, &rel), 100);
	/* "part of this" from A's side: the share of the part, B, found in A */
	rel.cls = RELATE_A_CONTAINS_B;
	sig.share_a = 0.08;
	sig.share_b = 0.97;
	CHECK_EQ_INT(judge_score(&sig, &rel), 97);
	rel.cls = RELATE_B_CONTAINS_A;
	sig.share_a = 0.88;
	CHECK_EQ_INT(judge_score(&sig, &rel), 88);
	CHECK_EQ_INT(judge_share(RELATE_B_CONTAINS_A, 0.88, 0.08), 88);
	CHECK_EQ_INT(judge_share(RELATE_A_CONTAINS_B, 0.08, 0.88), 88);
	CHECK_EQ_INT(judge_share(RELATE_OVERLAP, 0.001, 0.5), 1);
	/* without anchors (a short book): the block cover, else the windows */
	sig.share_a = sig.share_b = -1;
	sig.block_cover_a = 0.42;
	sig.block_cover_b = 0.9;
	rel.cls = RELATE_OVERLAP;
	CHECK_EQ_INT(judge_score(&sig, &rel), 42);
	sig.block_cover_a = sig.block_cover_b = 0;
	sig.chunk_cover_a = 0.3;
	CHECK_EQ_INT(judge_score(&sig, &rel), 30);
	/* another translation: its share too, near nothing */
	rel.cls = RELATE_OTHER_TRANSLATION;
	sig.block_cover_a = 0.02;
	sig.block_cover_b = 0.03;
	CHECK_EQ_INT(judge_score(&sig, &rel), 2);
	rel.cls = RELATE_UNRELATED;
	CHECK_EQ_INT(judge_score(&sig, &rel), 0);
	CHECK_EQ_STR(simlist_label(RELATE_A_CONTAINS_B), "part of this");
	CHECK_EQ_STR(simlist_label(RELATE_B_CONTAINS_A), "contains this");
	CHECK_EQ_STR(simlist_label((enum relate_class)99), "?");
}

static void test_tsv(void)
{
	struct simlist *l = mk(2);
	struct sbuf sb;

	set(&l->v[0], 0x2a, "dir/a\tb.txt", RELATE_NEAR_DUPLICATE, 91);
	set(&l->v[1], 7, "x\\y\n.txt", RELATE_OVERLAP, 40);
	l->v[1].title = strdup("T\tx - A");
	memcpy(l->v[1].lang, "de", 3);
	l->v[0].simhash_distance = 3;
	l->v[0].jaccard = 0.5;
	REQUIRE(simlist_rank(l) == 0);
	sbuf_init(&sb);
	REQUIRE(simlist_tsv(l, &sb) == 0);
	CHECK_EQ_STR(sb.buf,
		     "rank\tscore\trelation\tsimhash_distance\tjaccard\tcover_this\tcover_other\tid\tpath\ttitle"
		     "\tlanguage\n"
		     "1\t91\tnear-duplicate\t3\t0.500\t0.000\t0.000\t000000000000002a\tdir/a\\tb.txt\t"
		     "\tunknown\n"
		     "2\t40\toverlap\t0\t0.000\t0.000\t0.000\t0000000000000007\tx\\\\y\\n.txt\t"
		     "T\\tx - A\tde\n");
	sbuf_release(&sb);
	simlist_free(l);
}

/* Entries with a metadata.opf title are named "TITLE - AUTHOR.EXT": the
 * formats of one book differ by the extension and the rank, a '/' or a
 * control character never reaches the name, a long title is cut within
 * NAME_MAX bytes on a UTF-8 boundary with the extension kept. */
static void test_titles(void)
{
	struct simlist *l = mk(4);
	struct sbuf sb;
	char longt[400];
	size_t i;

	set(&l->v[0], 1, "W/War (3)/The War - Wells.epub", RELATE_SAME_TEXT, 100);
	set(&l->v[1], 2, "W/War (3)/The War - Wells.azw3", RELATE_SAME_TEXT, 100);
	set(&l->v[2], 3, "x/plain.txt", RELATE_NEAR_DUPLICATE, 90);
	set(&l->v[3], 4, "y/noext", RELATE_OVERLAP, 30);
	l->v[0].title = strdup("The War of the Worlds - H. G. Wells");
	l->v[1].title = strdup("The War of the Worlds - H. G. Wells");
	l->v[3].title = strdup("AC/DC\nLive");
	REQUIRE(simlist_rank(l) == 0);
	CHECK_EQ_STR(l->v[0].name, "01 100% same text - The War of the Worlds - H. G. Wells.azw3");
	CHECK_EQ_STR(l->v[1].name, "02 100% same text - The War of the Worlds - H. G. Wells.epub");
	CHECK_EQ_STR(l->v[2].name, "03 90% near duplicate - plain.txt");
	CHECK_EQ_STR(l->v[3].name, "04 30% overlap - AC_DC Live");
	simlist_free(l);

	/* 'é' (2 bytes) repeated: the cut never splits it */
	for (i = 0; i + 2 < sizeof(longt); i += 2)
		memcpy(longt + i, "\xc3\xa9", 2);
	longt[i] = '\0';
	l = mk(1);
	set(&l->v[0], 9, "a/b.pdf", RELATE_OVERLAP, 5);
	l->v[0].title = strdup(longt);
	REQUIRE(simlist_rank(l) == 0);
	CHECK(strlen(l->v[0].name) <= NAME_MAX);
	CHECK(strlen(l->v[0].name) >= NAME_MAX - 1);
	CHECK(!strcmp(l->v[0].name + strlen(l->v[0].name) - 4, ".pdf"));
	CHECK(((unsigned char)l->v[0].name[strlen(l->v[0].name) - 5] & 0xC0) == 0x80);
	CHECK(!strncmp(l->v[0].name, "01 5% overlap - \xc3\xa9", 18));
	simlist_free(l);

	sbuf_init(&sb);
	CHECK_EQ_INT(simlist_title_base(&sb, "T", "dir/.hidden"), 0);
	CHECK_EQ_STR(sb.buf, "T");
	CHECK_EQ_INT(simlist_title_base(&sb, "T", "dir.d/x.averyveryverylongext"), 0);
	CHECK_EQ_STR(sb.buf, "T");
	CHECK_EQ_INT(simlist_title_base(&sb, "T", "x.tar.gz"), 0);
	CHECK_EQ_STR(sb.buf, "T.gz");
	sbuf_release(&sb);
}

static void test_link(void)
{
	char buf[64];

	CHECK_EQ_INT(simlist_link(buf, sizeof(buf), 3, "a/b.txt"), 0);
	CHECK_EQ_STR(buf, "../../../a/b.txt");
	CHECK_EQ_INT(simlist_link(buf, sizeof(buf), 0, "b.txt"), 0);
	CHECK_EQ_STR(buf, "b.txt");
	CHECK_EQ_INT(simlist_link(buf, 10, 3, "a/b.txt"), -ENAMETOOLONG);
	CHECK_EQ_INT(simlist_link(buf, 17, 3, "a/b.txt"), 0);
	CHECK_EQ_INT(simlist_link(buf, 16, 3, "a/b.txt"), -ENAMETOOLONG);
}

/* simlist_unescape() undoes simlist_escape(); other escapes are refused. */
static void test_unescape(void)
{
	static const char name[] = "a\tb\\c\nd\\t";
	char bad1[] = "a\\qb", bad2[] = "end\\", *copy;
	struct sbuf sb;

	sbuf_init(&sb);
	REQUIRE(simlist_escape(&sb, name) == 0);
	CHECK_EQ_STR(sb.buf, "a\\tb\\\\c\\nd\\\\t");
	copy = strdup(sb.buf);
	REQUIRE(copy);
	CHECK_EQ_INT(simlist_unescape(copy), 0);
	CHECK_EQ_STR(copy, name);
	free(copy);
	sbuf_release(&sb);
	CHECK_EQ_INT(simlist_unescape(bad1), -EINVAL);
	CHECK_EQ_INT(simlist_unescape(bad2), -EINVAL);
}

int main(void)
{
	RUN(test_name);
	RUN(test_fit_long);
	RUN(test_rank_order);
	RUN(test_rank_wide);
	RUN(test_score);
	RUN(test_tsv);
	RUN(test_titles);
	RUN(test_link);
	RUN(test_unescape);
	return CHECK_DONE();
}
