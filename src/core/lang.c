/* lang.c - language of a text: script, then stop-word profiles (lang.h). */
#include "lang.h"

#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <utf8proc.h>

/* The most frequent function words of each language, lower case, written
 * from general knowledge of the languages (short words that carry no
 * subject, so any book in the language is full of them). */
struct profile {
	const char *code;
	const char *words;	/* space-separated */
};

static const struct profile profiles[] = {
	{ "en", "the and of to a in that is was he for it with as his on be at by had not are "
		"but from or have an they which you were her she there this all would" },
	{ "de", "der die und in den von zu das mit sich des auf für ist im dem nicht ein eine "
		"als auch es an er so dass sie ich wie war hat aus bei nach wenn noch" },
	{ "fr", "le la les de des et à en un une du est que qui dans pour pas au il elle ne se "
		"sur par ce je vous avec mais son sa ses plus nous lui était" },
	{ "es", "el la los las de del y en que a un una es por con no se su para al lo como más "
		"pero sus le ha me si sin sobre este ya entre cuando todo" },
	{ "it", "il la le di che e in un una per non è del della si con da al sono lo gli ma "
		"come anche nel alla dei delle ha mi se questo" },
	{ "pt", "o a os as de do da dos das e em um uma que não para com se por mais no na ao "
		"é foi ele ela seu sua mas como tem" },
	{ "nl", "de het een en van in is dat op te zijn met voor niet aan er die ook als maar "
		"bij hij zij was naar om dan wat" },
	{ "sv", "och i att det som en på är av för med till den har inte om ett han var jag de "
		"sig hon så men från när" },
	{ "da", "og i at det en den til er som på de med han af for ikke der var jeg har et sig "
		"hun så men fra efter" },
	{ "no", "og i det som en på er til av at for med han ikke den var jeg har de seg ble "
		"hun så men fra etter" },
	{ "fi", "ja on ei se että oli hän en ovat mutta kun niin kuin myös joka tai ole sen "
		"hänen minä mitä siitä hänet" },
	{ "pl", "i w na z się nie do to że jest o jak a co ale po tak za od jego przez dla "
		"już tylko jej był" },
	{ "cs", "a se na v je že to s z do o i jako ale by jsem není jsou tak pro od po jeho "
		"byl jen jak" },
	{ "hu", "a az és hogy nem is egy de van meg csak ez el már mint volt ki még azt sem "
		"lesz vagy" },
	{ "ro", "și de la în a cu nu se că o pe un care din mai pentru este sau ce lui fost "
		"una sunt" },
	{ "tr", "ve bir bu da de için ile ne çok gibi daha o ama en kadar sonra var olan mı "
		"diye ben sen onu" },
	{ "la", "et in est non ad ut cum quod qui sed quae esse enim per sunt se ab ex atque "
		"autem etiam nec eius" },
	{ "id", "yang dan di itu dengan untuk tidak ini dari dalam akan pada juga ke ada "
		"mereka saya adalah sudah kami" },
	{ "ca", "i de la el els les que a en un una per amb no es del al és són però més" },
	{ "ru", "и в не на что я с он как а то это по но все она так его к из у же было был "
		"мне бы вы" },
	{ "uk", "і в не на що я з він як а та це до але й її так його у від був була ми ви" },
	{ "bg", "и в не на да се че с от за това е като но по той тя са ще беше бе ги" },
};
#define NPROFILES (sizeof(profiles) / sizeof(profiles[0]))

enum script { SC_OTHER, SC_LATIN, SC_CYRILLIC, SC_GREEK, SC_ARABIC, SC_HEBREW, SC_HAN,
	      SC_KANA, SC_HANGUL, SC_DEVANAGARI, SC_THAI, SC_ARMENIAN, SC_GEORGIAN, SC_N };

static enum script script_of(int32_t c)
{
	if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= 0xC0 && c <= 0x24F && c != 0xD7 &&
	    c != 0xF7) || (c >= 0x1E00 && c <= 0x1EFF))
		return SC_LATIN;
	if (c >= 0x400 && c <= 0x52F)
		return SC_CYRILLIC;
	if ((c >= 0x370 && c <= 0x3FF) || (c >= 0x1F00 && c <= 0x1FFF))
		return SC_GREEK;
	if ((c >= 0x600 && c <= 0x6FF) || (c >= 0x750 && c <= 0x77F) || (c >= 0xFB50 && c <= 0xFDFF) ||
	    (c >= 0xFE70 && c <= 0xFEFF))
		return SC_ARABIC;
	if (c >= 0x590 && c <= 0x5FF)
		return SC_HEBREW;
	if ((c >= 0x3040 && c <= 0x30FF) || (c >= 0x31F0 && c <= 0x31FF))
		return SC_KANA;
	if ((c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2FFFF))
		return SC_HAN;
	if ((c >= 0xAC00 && c <= 0xD7AF) || (c >= 0x1100 && c <= 0x11FF) || (c >= 0x3130 && c <= 0x318F))
		return SC_HANGUL;
	if (c >= 0x900 && c <= 0x97F)
		return SC_DEVANAGARI;
	if (c >= 0xE00 && c <= 0xE7F)
		return SC_THAI;
	if (c >= 0x530 && c <= 0x58F)
		return SC_ARMENIAN;
	if (c >= 0x10A0 && c <= 0x10FF)
		return SC_GEORGIAN;
	return SC_OTHER;
}

/* ---- stop-word table: word hash -> languages (bit i: profiles[i]) ---- */

#define TABLE_SLOTS 2048u	/* > 2 x the words of all profiles */

struct table {
	uint64_t h[TABLE_SLOTS];
	uint32_t mask[TABLE_SLOTS];
};

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	while (n--)
		h = (h ^ *s++) * 0x100000001B3u;
	return h;
}

#define FNV0 0xCBF29CE484222325u

static void table_add(struct table *t, uint64_t h, unsigned lang)
{
	uint32_t i = (uint32_t)(h ^ h >> 29) & (TABLE_SLOTS - 1);

	while (t->mask[i] && t->h[i] != h)
		i = (i + 1) & (TABLE_SLOTS - 1);
	t->h[i] = h;
	t->mask[i] |= 1u << lang;
}

static uint32_t table_get(const struct table *t, uint64_t h)
{
	uint32_t i = (uint32_t)(h ^ h >> 29) & (TABLE_SLOTS - 1);

	while (t->mask[i]) {
		if (t->h[i] == h)
			return t->mask[i];
		i = (i + 1) & (TABLE_SLOTS - 1);
	}
	return 0;
}

static void table_fill(struct table *t)
{
	unsigned l;

	memset(t, 0, sizeof(*t));
	for (l = 0; l < NPROFILES; l++) {
		const char *w = profiles[l].words, *e;

		while (*w) {
			e = strchr(w, ' ');
			if (!e)
				e = w + strlen(w);
			table_add(t, fnv(FNV0, w, (size_t)(e - w)), l);
			w = *e ? e + 1 : e;
		}
	}
}

/* ---- detection ---- */

struct counts {
	unsigned long letters[SC_N];
	unsigned long words;		/* words of Latin or Cyrillic letters */
	unsigned long hits[NPROFILES];
	unsigned long persian;		/* letters only Persian uses of the Arabic script */
};

static void word_end(const struct table *t, uint64_t h, int cased, struct counts *k)
{
	uint32_t m;
	unsigned l;

	if (!cased)
		return;
	k->words++;
	m = table_get(t, h);
	for (l = 0; m; l++, m >>= 1)
		if (m & 1)
			k->hits[l]++;
}

static void count(const struct table *t, const char *s, size_t len, struct counts *k)
{
	size_t i = 0;
	uint64_t h = FNV0;
	int in_word = 0, cased = 0;

	memset(k, 0, sizeof(*k));
	while (i < len) {
		utf8proc_int32_t c = (unsigned char)s[i];
		utf8proc_ssize_t n;
		utf8proc_uint8_t enc[4];
		enum script sc;

		if (c < 0x80) {
			/* ASCII, most of most samples: what the code point
			 * path below does, without its table look-ups (an
			 * ASCII letter is Latin, lower-cased by setting 0x20;
			 * anything else ends a word) */
			i++;
			if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') {
				k->letters[SC_LATIN]++;
				if (!in_word) {
					h = FNV0;
					cased = 1;
					in_word = 1;
				}
				h = (h ^ (uint64_t)(c | 0x20)) * 0x100000001B3u;
			} else if (in_word) {
				word_end(t, h, cased, k);
				in_word = 0;
			}
			continue;
		}
		n = utf8proc_iterate((const utf8proc_uint8_t *)s + i, (utf8proc_ssize_t)(len - i), &c);
		if (n < 1) {
			n = 1;
			c = -1;
		}
		i += (size_t)n;
		sc = c >= 0 ? script_of(c) : SC_OTHER;
		if (c >= 0 && sc == SC_OTHER && (utf8proc_category(c) == UTF8PROC_CATEGORY_MN ||
						  utf8proc_category(c) == UTF8PROC_CATEGORY_MC) && in_word) {
			continue;	/* a combining mark inside a word */
		}
		if (sc == SC_OTHER) {
			if (in_word)
				word_end(t, h, cased, k);
			in_word = 0;
			continue;
		}
		k->letters[sc]++;
		if (c == 0x67E || c == 0x686 || c == 0x698 || c == 0x6AF || c == 0x6CC)
			k->persian++;
		if (!in_word) {
			h = FNV0;
			cased = 1;
			in_word = 1;
		}
		if (sc != SC_LATIN && sc != SC_CYRILLIC)
			cased = 0;
		h = fnv(h, enc, (size_t)utf8proc_encode_char(utf8proc_tolower(c), enc));
	}
	if (in_word)
		word_end(t, h, cased, k);
}

const char *lang_detect(const char *utf8, size_t len)
{
	struct table t;
	struct counts k;
	unsigned long total = 0, best_n = 0;
	enum script best = SC_OTHER;
	unsigned l, b = 0, second = 0;
	int s;

	if (len > LANG_SAMPLE)
		len = LANG_SAMPLE;
	table_fill(&t);
	count(&t, utf8, len, &k);
	for (s = SC_LATIN; s < SC_N; s++) {
		unsigned long m = k.letters[s] * (s == SC_HAN || s == SC_KANA || s == SC_HANGUL ?
						  LANG_SYLLABLE_LETTERS : 1);

		total += m;
		/* Japanese writes Han and kana together: one mass */
		if (s == SC_KANA)
			m += k.letters[SC_HAN] * LANG_SYLLABLE_LETTERS;
		if (m > best_n && s != SC_HAN) {
			best_n = m;
			best = (enum script)s;
		}
	}
	if (!total || best_n * 2 < total)
		return "";
	/* Han with a tenth kana or more is Japanese, Han alone Chinese */
	if (best == SC_KANA)
		return k.letters[SC_KANA] * 10 >= k.letters[SC_HAN] + k.letters[SC_KANA] ? "ja" : "zh";
	switch (best) {
	case SC_GREEK: return "el";
	case SC_HEBREW: return "he";
	case SC_HANGUL: return "ko";
	case SC_DEVANAGARI: return "hi";
	case SC_THAI: return "th";
	case SC_ARMENIAN: return "hy";
	case SC_GEORGIAN: return "ka";
	case SC_ARABIC: return k.persian * 50 >= k.letters[SC_ARABIC] ? "fa" : "ar";
	default: break;
	}
	if (k.words < LANG_MIN_WORDS)
		return "";
	for (l = 1; l < NPROFILES; l++)
		if (k.hits[l] > k.hits[b])
			b = l;
	second = b ? 0 : 1;
	for (l = 0; l < NPROFILES; l++)
		if (l != b && k.hits[l] > k.hits[second])
			second = l;
	if ((double)k.hits[b] < LANG_MIN_SHARE * (double)k.words ||
	    (double)k.hits[b] < LANG_MARGIN * (double)k.hits[second])
		return "";
	return profiles[b].code;
}

/* ISO 639-2 (bibliographic and terminology) codes of the known languages. */
static const char *const three[][2] = {
	{ "eng", "en" }, { "ger", "de" }, { "deu", "de" }, { "fre", "fr" }, { "fra", "fr" },
	{ "spa", "es" }, { "ita", "it" }, { "por", "pt" }, { "dut", "nl" }, { "nld", "nl" },
	{ "swe", "sv" }, { "dan", "da" }, { "nor", "no" }, { "nob", "no" }, { "nno", "no" },
	{ "fin", "fi" }, { "pol", "pl" }, { "cze", "cs" }, { "ces", "cs" }, { "hun", "hu" },
	{ "rum", "ro" }, { "ron", "ro" }, { "tur", "tr" }, { "lat", "la" }, { "ind", "id" },
	{ "cat", "ca" }, { "rus", "ru" }, { "ukr", "uk" }, { "bul", "bg" }, { "gre", "el" },
	{ "ell", "el" }, { "ara", "ar" }, { "heb", "he" }, { "chi", "zh" }, { "zho", "zh" },
	{ "jpn", "ja" }, { "kor", "ko" }, { "hin", "hi" }, { "tha", "th" }, { "arm", "hy" },
	{ "hye", "hy" }, { "geo", "ka" }, { "kat", "ka" }, { "per", "fa" }, { "fas", "fa" },
};

static const char *const two[] = {
	"en", "de", "fr", "es", "it", "pt", "nl", "sv", "da", "no", "fi", "pl", "cs", "hu", "ro",
	"tr", "la", "id", "ca", "ru", "uk", "bg", "el", "ar", "he", "zh", "ja", "ko", "hi", "th",
	"hy", "ka", "fa",
};

/* English names of the languages, as Project Gutenberg's "Language:" line
 * and some metadata write them. */
static const char *const names[][2] = {
	{ "english", "en" }, { "german", "de" }, { "french", "fr" }, { "spanish", "es" },
	{ "italian", "it" }, { "portuguese", "pt" }, { "dutch", "nl" }, { "swedish", "sv" },
	{ "danish", "da" }, { "norwegian", "no" }, { "finnish", "fi" }, { "polish", "pl" },
	{ "czech", "cs" }, { "hungarian", "hu" }, { "romanian", "ro" }, { "turkish", "tr" },
	{ "latin", "la" }, { "indonesian", "id" }, { "catalan", "ca" }, { "russian", "ru" },
	{ "ukrainian", "uk" }, { "bulgarian", "bg" }, { "greek", "el" }, { "arabic", "ar" },
	{ "hebrew", "he" }, { "chinese", "zh" }, { "japanese", "ja" }, { "korean", "ko" },
	{ "hindi", "hi" }, { "thai", "th" }, { "armenian", "hy" }, { "georgian", "ka" },
	{ "persian", "fa" },
};

const char *lang_code(const char *declared)
{
	char c[4] = { 0 };
	size_t i, n = 0;

	if (!declared)
		return "";
	while (*declared == ' ')
		declared++;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcasecmp(declared, names[i][0]))
			return names[i][1];
	while (n < 4 && declared[n] && declared[n] != '-' && declared[n] != '_' && declared[n] != ' ') {
		char ch = declared[n];

		if (ch >= 'A' && ch <= 'Z')
			ch = (char)(ch - 'A' + 'a');
		if (ch < 'a' || ch > 'z')
			return "";
		c[n++] = ch;
	}
	if (n == 2) {
		if (!strcmp(c, "nb") || !strcmp(c, "nn"))
			return "no";
		for (i = 0; i < sizeof(two) / sizeof(two[0]); i++)
			if (!strcmp(c, two[i]))
				return two[i];
	} else if (n == 3) {
		for (i = 0; i < sizeof(three) / sizeof(three[0]); i++)
			if (!strcmp(c, three[i][0]))
				return three[i][1];
	}
	return "";
}

int lang_differ(const char *a, const char *b)
{
	return a && b && *a && *b && strcmp(a, b) != 0;
}
