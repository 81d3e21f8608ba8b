/* Capitalised words that are common nouns by the text's own evidence
 * (nouns.h): after an article, after an inflected adjective, sharing a
 * head with another word, ending with another word, ending like many;
 * names are none. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "nouns.h"
#include "sbuf.h"

/* The tokens of a text of words between spaces ("." a sentence end): a
 * word with a capital first is NOUNS_CAP, or NOUNS_OTHER after ".". */
static size_t tokens(const char *text, struct nouns_tok *t, size_t max)
{
	size_t i = 0, n = 0, e;
	int start = 1;

	while (text[i] && n < max) {
		char low[64];
		size_t k;

		if (text[i] == ' ') {
			i++;
			continue;
		}
		if (text[i] == '.') {
			start = 1;
			i++;
			continue;
		}
		for (e = i; text[e] && text[e] != ' ' && text[e] != '.'; e++)
			;
		for (k = 0; k < e - i && k < sizeof(low); k++)
			low[k] = (char)(text[i + k] | 0x20);
		t[n].h = XXH3_64bits(low, k);
		t[n].off = (uint32_t)i;
		t[n].len = (uint32_t)(e - i);
		t[n].cls = text[i] >= 'a' ? NOUNS_LOWER : start ? NOUNS_OTHER : NOUNS_CAP;
		start = 0;
		n++;
		i = e;
	}
	return n;
}

static int marked(const uint64_t *nouns, size_t nn, const char *word)
{
	char low[64];
	size_t i, k = strlen(word);

	for (i = 0; i < k; i++)
		low[i] = (char)(word[i] | 0x20);
	for (i = 0; i < nn; i++)
		if (nouns[i] == XXH3_64bits(low, k))
			return 1;
	return 0;
}

static void test_rules(void)
{
	struct sbuf t;
	struct nouns_tok *tok = malloc(4096 * sizeof(*tok));
	uint64_t *nouns;
	size_t n, nn;
	int i;

	REQUIRE(tok != NULL);
	sbuf_init(&t);
	/* "der" is followed by a capital 12 times in 14: an article */
	for (i = 0; i < 12; i++)
		sbuf_addstr(&t, "so ging der Tisch und sah Morcar. ");
	sbuf_addstr(&t, "der ging der kam. ");
	/* 30 words ending in "ig", most followed by a capital */
	for (i = 0; i < 30; i++)
		sbuf_addf(&t, "sah q%c%cig %s. ", 'a' + i % 26, 'a' + i / 26,
			  i < 20 ? "Bergwerk" : "nie");
	sbuf_addstr(&t, "bei Edgar sah Wasser und Salzwasser. mit Garten und Gartens. "
		    "aus Mercia zu Northumbria. ");
	/* eight words ending in "ung", one of them inside a sentence */
	sbuf_addstr(&t, "Achtung. Bildung. Dichtung. Erfahrung. Fassung. Geltung. Haltung. "
		    "und Meinung. und Leitung. und Lung.");
	n = tokens(t.buf, tok, 4096);
	REQUIRE(nouns_mark(t.buf, tok, n, &nouns, &nn) == 0);
	CHECK(marked(nouns, nn, "Tisch"));	/* after an article */
	CHECK(marked(nouns, nn, "Bergwerk"));	/* after an inflected ending */
	CHECK(marked(nouns, nn, "Salzwasser"));	/* a compound */
	CHECK(marked(nouns, nn, "Garten"));	/* two forms */
	CHECK(marked(nouns, nn, "Gartens"));
	CHECK(marked(nouns, nn, "Meinung"));	/* an ending of eight words */
	CHECK(marked(nouns, nn, "Leitung"));
	CHECK(!marked(nouns, nn, "Lung"));	/* too short for the ending */
	CHECK(!marked(nouns, nn, "Wasser"));	/* one form, no article */
	CHECK(!marked(nouns, nn, "Morcar"));
	CHECK(!marked(nouns, nn, "Edgar"));
	CHECK(!marked(nouns, nn, "Mercia"));
	CHECK(!marked(nouns, nn, "Northumbria"));
	for (i = 1; i < (int)nn; i++)
		CHECK(nouns[i - 1] < nouns[i]);	/* sorted, each once */
	free(nouns);
	sbuf_release(&t);
	free(tok);
}

/* No tokens, one token, a lone capital: nothing, no crash. */
static void test_edges(void)
{
	struct nouns_tok tok[2];
	uint64_t *nouns;
	size_t nn;

	REQUIRE(nouns_mark("", tok, 0, &nouns, &nn) == 0);
	CHECK_EQ_INT((int)nn, 0);
	free(nouns);
	CHECK_EQ_INT((int)tokens("Haus", tok, 2), 1);
	REQUIRE(nouns_mark("Haus", tok, 1, &nouns, &nn) == 0);
	CHECK_EQ_INT((int)nn, 0);
	free(nouns);
}

int main(void)
{
	RUN(test_rules);
	RUN(test_edges);
	return CHECK_DONE();
}
