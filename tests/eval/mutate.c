/* mutate.c - deterministic mutations and synthetic books (see mutate.h). */
#include "mutate.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

#include "grow.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

void mut_rng_seed(struct mut_rng *r, uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t mut_rng_next(struct mut_rng *r)
{
	uint64_t *s = r->s;
	uint64_t res = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

uint64_t mut_rng_below(struct mut_rng *r, uint64_t n)
{
	uint64_t x, lim;

	if (n == 0)
		return 0;
	/* Reject the top partial block so every residue is equally likely. */
	lim = UINT64_MAX - UINT64_MAX % n;
	do
		x = mut_rng_next(r);
	while (x >= lim);
	return x % n;
}

double mut_rng_unit(struct mut_rng *r)
{
	return (double)(mut_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Bytes of the UTF-8 character starting at p (1 for a stray byte). */
static size_t char_len(const char *p, size_t left)
{
	unsigned char c = (unsigned char)*p;
	size_t n = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
	size_t i;

	if (n > left)
		return 1;
	for (i = 1; i < n; i++)
		if (((unsigned char)p[i] & 0xc0) != 0x80)
			return 1;
	return n;
}

/* OCR look-alikes: a character read as one to three others. */
static const struct {
	char from;
	const char *to[3];
} ocr_subst[] = {
	{ 'm', { "rn", "nn", "in" } }, { 'd', { "cl", "ol", "d" } },
	{ 'w', { "vv", "w", "v" } }, { 'h', { "li", "b", "n" } },
	{ 'e', { "c", "o", "e" } }, { 'c', { "e", "o", "(" } },
	{ 'l', { "1", "I", "i" } }, { 'i', { "l", "1", "j" } },
	{ 'o', { "0", "a", "c" } }, { 'a', { "o", "e", "u" } },
	{ 'n', { "ri", "u", "h" } }, { 'u', { "ii", "n", "v" } },
	{ 't', { "f", "l", "I" } }, { 'f', { "t", "l", "r" } },
	{ 's', { "5", "a", "e" } }, { 'b', { "h", "lo", "6" } },
	{ 'g', { "q", "9", "y" } }, { 'r', { "n", "t", "i" } },
	{ 'I', { "l", "1", "|" } }, { 'O', { "0", "Q", "D" } },
	{ 'S', { "5", "8", "s" } }, { 'B', { "8", "R", "E" } },
};

/* OCR merges: two characters read as one. */
static const struct {
	char a, b;
	char to;
} ocr_merge[] = {
	{ 'r', 'n', 'm' }, { 'c', 'l', 'd' }, { 'v', 'v', 'w' }, { 'l', 'i', 'h' },
	{ 'r', 'i', 'n' }, { 'i', 'n', 'm' }, { 'n', 'n', 'm' }, { 'i', 'i', 'u' },
	{ 'l', 'l', 'U' }, { 'c', 'o', 'a' }, { 'f', 'i', 'h' }, { 't', 'i', 'd' },
};

static char random_letter(struct mut_rng *r, int upper)
{
	return (char)((upper ? 'A' : 'a') + (int)mut_rng_below(r, 26));
}

static int is_upper(char c)
{
	return c >= 'A' && c <= 'Z';
}

static int ocr_substitute(struct mut_rng *r, char c, struct sbuf *out)
{
	size_t i;

	for (i = 0; i < sizeof(ocr_subst) / sizeof(ocr_subst[0]); i++)
		if (ocr_subst[i].from == c)
			return sbuf_addstr(out, ocr_subst[i].to[mut_rng_below(r, 3)]);
	if (c == ' ')
		return sbuf_addch(out, '.');
	return sbuf_addch(out, random_letter(r, is_upper(c)));
}

int mut_ocr(struct mut_rng *r, const char *in, size_t len, double rate,
	    struct sbuf *out, struct mut_ocr_stats *st)
{
	struct mut_ocr_stats s = { 0, 0, 0, 0, 0, 0 };
	size_t i = 0, n, k;
	int ret = 0;
	char c;

	if ((!in && len) || !(rate >= 0.0 && rate <= 1.0))
		return -EINVAL;
	while (i < len && !ret) {
		n = char_len(in + i, len - i);
		c = in[i];
		s.chars++;
		if (mut_rng_unit(r) >= rate) {
			ret = sbuf_add(out, in + i, n);
			i += n;
			continue;
		}
		k = mut_rng_below(r, 100);
		if (n > 1 || c == '\n' || c == '\r' || (unsigned char)c >= 0x80 || c == '\0')
			k = 0;	/* only a space can go before these safely */
		if (k < 40) {
			s.space_ins++;
			ret = sbuf_addch(out, ' ');
			if (!ret)
				ret = sbuf_add(out, in + i, n);
		} else if (k < 60) {
			s.insert++;
			ret = sbuf_addch(out, c);
			if (!ret)
				ret = sbuf_addch(out, random_letter(r, 0));
		} else if (k < 85) {
			s.subst++;
			ret = ocr_substitute(r, c, out);
		} else if (k < 95 && i + 1 < len && (unsigned char)in[i + 1] < 0x80 &&
			   in[i + 1] != '\n' && in[i + 1] != '\r' && in[i + 1] != '\0') {
			char to = random_letter(r, is_upper(c));

			for (k = 0; k < sizeof(ocr_merge) / sizeof(ocr_merge[0]); k++)
				if (ocr_merge[k].a == c && ocr_merge[k].b == in[i + 1])
					to = ocr_merge[k].to;
			s.merge++;
			s.chars++;
			ret = sbuf_addch(out, to);
			n = 2;
		} else {
			s.del++;
		}
		i += n;
	}
	if (st)
		*st = s;
	return ret;
}

/* End (exclusive) of the sentence starting at p, trailing white space
 * included: after [.!?] (and closing quotes or brackets) followed by white
 * space, or after a blank line. */
static size_t sentence_end(const char *in, size_t len, size_t p)
{
	size_t i = p, j;

	while (i < len) {
		char c = in[i];

		if (c == '.' || c == '!' || c == '?') {
			j = i + 1;
			while (j < len && (in[j] == '"' || in[j] == '\'' || in[j] == ')' || in[j] == ']'))
				j++;
			if (j == len || is_space(in[j])) {
				while (j < len && is_space(in[j]))
					j++;
				return j;
			}
			i = j;
			continue;
		}
		if (c == '\n') {
			j = i + 1;
			while (j < len && (in[j] == ' ' || in[j] == '\t' || in[j] == '\r'))
				j++;
			if (j < len && in[j] == '\n') {
				while (j < len && is_space(in[j]))
					j++;
				return j;
			}
		}
		i++;
	}
	return len;
}

struct span {
	size_t off, len;
};

/* All sentences of text, in order; *out is malloc'd (free() it). */
static int split_sentences(const char *text, size_t len, struct span **out, size_t *n)
{
	struct span *v = NULL;
	size_t cap = 0, cnt = 0, p = 0, e;

	while (p < len) {
		e = sentence_end(text, len, p);
		if (ARRAY_GROW(v, cap, cnt + 1)) {
			free(v);
			return -ENOMEM;
		}
		v[cnt].off = p;
		v[cnt].len = e - p;
		cnt++;
		p = e;
	}
	*out = v;
	*n = cnt;
	return 0;
}

int mut_sentences(struct mut_rng *r, const char *in, size_t len,
		  const char *donor, size_t dlen, double rate,
		  struct sbuf *out, size_t *removed, size_t *added)
{
	struct span *sv = NULL, *dv = NULL;
	size_t ns = 0, nd = 0, i, nrem = 0, nadd = 0;
	long long deficit = 0;
	int ret;

	if ((!in && len) || (!donor && dlen) || !(rate >= 0.0 && rate <= 1.0))
		return -EINVAL;
	ret = split_sentences(in, len, &sv, &ns);
	if (!ret)
		ret = split_sentences(donor, dlen, &dv, &nd);
	for (i = 0; !ret && i < ns; i++) {
		if (mut_rng_unit(r) >= rate) {
			ret = sbuf_add(out, in + sv[i].off, sv[i].len);
			continue;
		}
		nrem++;
		deficit += (long long)sv[i].len;
		/* Refill at the same place; an overshoot is carried over to the
		 * next removal so the totals stay balanced. */
		while (!ret && nd && deficit > 0) {
			const struct span *d = &dv[mut_rng_below(r, nd)];

			ret = sbuf_add(out, donor + d->off, d->len);
			if (!ret && (d->len == 0 || !is_space(donor[d->off + d->len - 1])))
				ret = sbuf_addch(out, ' ');
			deficit -= (long long)d->len;
			nadd++;
		}
	}
	free(sv);
	free(dv);
	if (removed)
		*removed = nrem;
	if (added)
		*added = nadd;
	return ret;
}

/* First white-space byte at or after p (len if none). */
static size_t to_space(const char *t, size_t len, size_t p)
{
	while (p < len && !is_space(t[p]))
		p++;
	return p;
}

int mut_replace(struct mut_rng *r, const char *in, size_t len,
		const char *donor, size_t dlen, double frac,
		struct sbuf *out, size_t *replaced)
{
	size_t want, a, b, da, db;
	int ret;

	if ((!in && len) || (!donor && dlen) || !(frac > 0.0 && frac < 1.0))
		return -EINVAL;
	want = (size_t)(frac * (double)len);
	a = to_space(in, len, (size_t)mut_rng_below(r, len - want + 1));
	b = to_space(in, len, a + want < len ? a + want : len);
	if (dlen > b - a) {
		da = to_space(donor, dlen, (size_t)mut_rng_below(r, dlen - (b - a) + 1));
		db = to_space(donor, dlen, da + (b - a) < dlen ? da + (b - a) : dlen);
	} else {
		da = 0;
		db = dlen;
	}
	ret = sbuf_add(out, in, a);
	if (!ret)
		ret = sbuf_addch(out, ' ');
	if (!ret)
		ret = sbuf_add(out, donor + da, db - da);
	if (!ret)
		ret = sbuf_addch(out, ' ');
	if (!ret)
		ret = sbuf_add(out, in + b, len - b);
	if (replaced)
		*replaced = b - a;
	return ret;
}

/* Nearest paragraph start at or after p, within a window; else the next
 * white space.  A paragraph starts after a line holding only white space. */
static size_t to_paragraph(const char *t, size_t len, size_t p)
{
	size_t win = len / 20 > 20000 ? 20000 : len / 20, i, j;

	for (i = p; i < len && i < p + win; i++) {
		if (t[i] != '\n')
			continue;
		j = i + 1;
		while (j < len && (t[j] == ' ' || t[j] == '\t' || t[j] == '\r'))
			j++;
		if (j < len && t[j] == '\n')
			return j + 1;
	}
	return to_space(t, len, p);
}

int mut_slice(const char *in, size_t len, double from, double to, struct sbuf *out)
{
	size_t a, b;

	if ((!in && len) || !(from >= 0.0 && from < to && to <= 1.0))
		return -EINVAL;
	a = from == 0.0 ? 0 : to_paragraph(in, len, (size_t)(from * (double)len));
	b = to == 1.0 ? len : to_paragraph(in, len, (size_t)(to * (double)len));
	if (b < a)
		b = a;
	return sbuf_add(out, in + a, b - a);
}

int mut_join(const char *const *parts, const size_t *lens, size_t n, struct sbuf *out)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		if (!parts[i] && lens[i])
			return -EINVAL;
		ret = sbuf_add(out, parts[i], lens[i]);
		if (!ret)
			ret = sbuf_addstr(out, "\n\n");
	}
	return ret;
}

static int add_escaped(struct sbuf *out, const char *t, size_t len)
{
	size_t i, start = 0;
	int ret = 0;

	for (i = 0; i < len && !ret; i++) {
		const char *rep = t[i] == '&' ? "&amp;" : t[i] == '<' ? "&lt;" :
				  t[i] == '>' ? "&gt;" : t[i] == '\0' ? " " : NULL;

		if (!rep)
			continue;
		ret = sbuf_add(out, t + start, i - start);
		if (!ret)
			ret = sbuf_addstr(out, rep);
		start = i + 1;
	}
	if (!ret)
		ret = sbuf_add(out, t + start, len - start);
	return ret;
}

/* <p> elements for text, split at blank lines. */
static int add_paragraphs(struct sbuf *out, const char *t, size_t len)
{
	size_t p = 0, e;
	int ret = 0;

	while (p < len && !ret) {
		while (p < len && is_space(t[p]))
			p++;
		if (p == len)
			break;
		e = to_paragraph(t, len, p);
		/* to_paragraph() stops at a window: go on to the real break. */
		while (e < len && e > p && t[e - 1] != '\n')
			e = to_paragraph(t, len, e + 1);
		ret = sbuf_addstr(out, "<p>");
		if (!ret)
			ret = add_escaped(out, t + p, e - p);
		if (!ret)
			ret = sbuf_addstr(out, "</p>\n");
		p = e;
	}
	return ret;
}

static int add_page(struct sbuf *out, const char *title, const char *t, size_t len)
{
	int ret;

	ret = sbuf_addstr(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE html>\n"
			  "<html xmlns=\"http://www.w3.org/1999/xhtml\">\n<head>\n"
			  "<meta charset=\"utf-8\"/>\n<title>");
	if (!ret)
		ret = add_escaped(out, title, strlen(title));
	if (!ret)
		ret = sbuf_addstr(out, "</title>\n</head>\n<body>\n");
	if (!ret)
		ret = add_paragraphs(out, t, len);
	if (!ret)
		ret = sbuf_addstr(out, "</body>\n</html>\n");
	return ret;
}

int mut_html(const char *title, const char *text, size_t len, struct sbuf *out)
{
	if (!title || (!text && len))
		return -EINVAL;
	return add_page(out, title, text, len);
}

static int zip_add_buf(zip_t *za, const char *name, const struct sbuf *sb, int store)
{
	zip_source_t *src;
	zip_int64_t idx;

	src = zip_source_buffer(za, sb->buf, sb->len, 0);
	if (!src)
		return -EIO;
	idx = zip_file_add(za, name, src, ZIP_FL_ENC_UTF_8);
	if (idx < 0) {
		zip_source_free(src);
		return -EIO;
	}
	/* A fixed time keeps the archive bytes a function of the input. */
	if (zip_file_set_mtime(za, (zip_uint64_t)idx, 946684800, 0) < 0)
		return -EIO;
	if (store && zip_set_file_compression(za, (zip_uint64_t)idx, ZIP_CM_STORE, 0) < 0)
		return -EIO;
	return 0;
}

int mut_epub_write(const char *path, const char *title, const char *text, size_t len,
		   unsigned nchapters)
{
	struct sbuf *bufs = NULL;
	size_t nb = 4 + (size_t)nchapters, i, a, b;
	zip_t *za = NULL;
	int ret = 0, zerr;
	char name[32];

	if (!path || !title || (!text && len) || nchapters < 1 || nchapters > 1000)
		return -EINVAL;
	bufs = calloc(nb, sizeof(*bufs));
	if (!bufs)
		return -ENOMEM;
	for (i = 0; i < nb; i++)
		sbuf_init(&bufs[i]);
	/* 0 mimetype, 1 container, 2 opf, 3 nav, 4.. chapters */
	ret = sbuf_addstr(&bufs[0], "application/epub+zip");
	if (!ret)
		ret = sbuf_addstr(&bufs[1], "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
				  "<container version=\"1.0\" xmlns=\"urn:oasis:names:tc:opendocument:xmlns:container\">\n"
				  "<rootfiles><rootfile full-path=\"OEBPS/content.opf\" "
				  "media-type=\"application/oebps-package+xml\"/></rootfiles>\n</container>\n");
	if (!ret)
		ret = sbuf_addstr(&bufs[2], "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
				  "<package xmlns=\"http://www.idpf.org/2007/opf\" version=\"3.0\" unique-identifier=\"uid\">\n"
				  "<metadata xmlns:dc=\"http://purl.org/dc/elements/1.1/\">\n"
				  "<dc:identifier id=\"uid\">urn:simbook:test</dc:identifier>\n<dc:title>");
	if (!ret)
		ret = add_escaped(&bufs[2], title, strlen(title));
	if (!ret)
		ret = sbuf_addstr(&bufs[2], "</dc:title>\n<dc:language>en</dc:language>\n"
				  "<meta property=\"dcterms:modified\">2000-01-01T00:00:00Z</meta>\n</metadata>\n<manifest>\n"
				  "<item id=\"nav\" href=\"nav.xhtml\" media-type=\"application/xhtml+xml\" properties=\"nav\"/>\n");
	for (i = 0; !ret && i < nchapters; i++)
		ret = sbuf_addf(&bufs[2], "<item id=\"c%zu\" href=\"ch%03zu.xhtml\" "
				"media-type=\"application/xhtml+xml\"/>\n", i + 1, i + 1);
	if (!ret)
		ret = sbuf_addstr(&bufs[2], "</manifest>\n<spine>\n");
	for (i = 0; !ret && i < nchapters; i++)
		ret = sbuf_addf(&bufs[2], "<itemref idref=\"c%zu\"/>\n", i + 1);
	if (!ret)
		ret = sbuf_addstr(&bufs[2], "</spine>\n</package>\n");
	if (!ret)
		ret = sbuf_addstr(&bufs[3], "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE html>\n"
				  "<html xmlns=\"http://www.w3.org/1999/xhtml\" xmlns:epub=\"http://www.idpf.org/2007/ops\">\n"
				  "<head><title>Contents</title></head>\n<body>\n<nav epub:type=\"toc\"><ol>\n");
	for (i = 0; !ret && i < nchapters; i++)
		ret = sbuf_addf(&bufs[3], "<li><a href=\"ch%03zu.xhtml\">%zu</a></li>\n", i + 1, i + 1);
	if (!ret)
		ret = sbuf_addstr(&bufs[3], "</ol></nav>\n</body>\n</html>\n");
	for (i = 0, a = 0; !ret && i < nchapters; i++) {
		b = i + 1 == nchapters ? len : to_paragraph(text, len, len / nchapters * (i + 1));
		if (b < a)
			b = a;
		ret = add_page(&bufs[4 + i], title, text + a, b - a);
		a = b;
	}
	if (ret)
		goto out;
	za = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &zerr);
	if (!za) {
		ret = -EIO;
		goto out;
	}
	ret = zip_add_buf(za, "mimetype", &bufs[0], 1);
	if (!ret)
		ret = zip_add_buf(za, "META-INF/container.xml", &bufs[1], 0);
	if (!ret)
		ret = zip_add_buf(za, "OEBPS/content.opf", &bufs[2], 0);
	if (!ret)
		ret = zip_add_buf(za, "OEBPS/nav.xhtml", &bufs[3], 0);
	for (i = 0; !ret && i < nchapters; i++) {
		snprintf(name, sizeof(name), "OEBPS/ch%03zu.xhtml", i + 1);
		ret = zip_add_buf(za, name, &bufs[4 + i], 0);
	}
	if (ret) {
		zip_discard(za);
		za = NULL;
		goto out;
	}
	if (zip_close(za) < 0) {
		zip_discard(za);
		ret = -EIO;
	}
	za = NULL;
out:
	for (i = 0; i < nb; i++)
		sbuf_release(&bufs[i]);
	free(bufs);
	return ret;
}

/* The most frequent English words, in rough frequency order: the head of
 * the synthetic vocabulary. */
static const char *const common_words[] = {
	"the", "of", "and", "to", "a", "in", "that", "he", "was", "it", "his", "i",
	"is", "with", "as", "for", "had", "you", "be", "her", "on", "not", "at",
	"but", "she", "by", "which", "have", "him", "from", "they", "all", "this",
	"were", "my", "so", "there", "one", "me", "said", "we", "no", "been", "an",
	"would", "their", "or", "if", "them", "what", "when", "who", "will", "are",
	"more", "out", "up", "into", "could", "then", "do", "now", "little", "very",
	"upon", "some", "man", "time", "about", "like", "than", "only", "did",
	"any", "before", "great", "should", "may", "must", "over", "such", "these",
	"know", "after", "other", "see", "good", "old", "well", "never", "how",
	"much", "down", "made", "came", "where", "your", "day", "long", "first",
	"again", "here", "thought", "us", "two", "can", "our", "away", "still",
	"come", "through", "most", "eyes", "way", "hand", "own", "might", "last",
	"house", "too", "night", "life", "nothing", "even", "go", "without",
	"young", "took", "just", "once", "heart", "place", "ever", "face", "while",
	"under", "head", "asked", "found", "every", "looked", "left", "same",
	"mind", "back", "many", "yet", "felt", "seemed", "three", "side", "moment",
};
#define NCOMMON (sizeof(common_words) / sizeof(common_words[0]))
#define SYNTH_VOCAB 30000

static const char *const onsets[] = {
	"b", "c", "d", "f", "g", "h", "j", "l", "m", "n", "p", "r", "s", "t", "v",
	"w", "br", "ch", "cl", "dr", "fl", "gr", "pl", "pr", "sh", "st", "th", "tr", "",
};
static const char *const vowels[] = {
	"a", "e", "i", "o", "u", "ea", "ou", "ai", "ee", "oo", "y", "ie",
};
static const char *const codas[] = {
	"", "", "", "n", "r", "s", "t", "l", "m", "nd", "st", "ng", "ck", "rt", "ll",
};
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Word of vocabulary rank w, into buf (at least 64 bytes). */
static void vocab_word(size_t w, char *buf)
{
	uint64_t h = (uint64_t)w * UINT64_C(0x9e3779b97f4a7c15) + 12345;
	size_t nsyl, i, n = 0;

	if (w < NCOMMON) {
		strcpy(buf, common_words[w]);
		return;
	}
	h = splitmix64(&h);
	nsyl = 1 + (size_t)(h % 2) + (w > 2000) + (w > 15000);
	h >>= 2;
	for (i = 0; i < nsyl; i++) {
		const char *o = onsets[h % NELEM(onsets)], *v, *c;

		h /= NELEM(onsets);
		v = vowels[h % NELEM(vowels)];
		h /= NELEM(vowels);
		c = codas[h % NELEM(codas)];
		h /= NELEM(codas);
		if (h < 1000)
			h = splitmix64(&h);
		n += (size_t)snprintf(buf + n, 64 - n, "%s%s%s", o, v, c);
	}
}

struct synth {
	struct mut_rng rng;
	double cdf[SYNTH_VOCAB];
	uint32_t perm[SYNTH_VOCAB];	/* the author's reordering of ranks */
	size_t phrase_start[24];	/* ranks making the author's stock phrases */
	size_t col;			/* column for line wrapping */
};

static int synth_word(struct synth *s, struct sbuf *out, size_t rank, int cap)
{
	char w[64];
	int ret;

	vocab_word(s->perm[rank], w);
	if (cap)
		w[0] = (char)(w[0] - 'a' + 'A');
	if (s->col > 0 && s->col + strlen(w) > 70) {
		ret = sbuf_addch(out, '\n');
		s->col = 0;
	} else if (s->col > 0) {
		ret = sbuf_addch(out, ' ');
		s->col++;
	} else {
		ret = 0;
	}
	if (!ret)
		ret = sbuf_addstr(out, w);
	s->col += strlen(w);
	return ret;
}

static size_t zipf_rank(struct synth *s)
{
	double u = mut_rng_unit(&s->rng);
	size_t lo = 0, hi = SYNTH_VOCAB - 1, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (s->cdf[mid] > u)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

int mut_synth(uint64_t author, uint64_t seed, size_t nwords, struct sbuf *out)
{
	struct synth *s;
	struct mut_rng ar;
	size_t i, j, words = 0, nsent, slen, t;
	double sum = 0;
	int ret = 0;

	s = malloc(sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (i = 0; i < SYNTH_VOCAB; i++) {
		sum += 1.0 / (double)(i + 1);
		s->cdf[i] = sum;
	}
	for (i = 0; i < SYNTH_VOCAB; i++)
		s->cdf[i] /= sum;
	/* The author keeps the function words and shuffles the rest. */
	mut_rng_seed(&ar, author ^ UINT64_C(0xa5a5a5a5a5a5a5a5));
	for (i = 0; i < SYNTH_VOCAB; i++)
		s->perm[i] = (uint32_t)i;
	for (i = SYNTH_VOCAB - 1; i > NCOMMON; i--) {
		j = NCOMMON + (size_t)mut_rng_below(&ar, i - NCOMMON + 1);
		t = s->perm[i];
		s->perm[i] = s->perm[j];
		s->perm[j] = (uint32_t)t;
	}
	for (i = 0; i < NELEM(s->phrase_start); i++)
		s->phrase_start[i] = (size_t)mut_rng_below(&ar, 2000);
	mut_rng_seed(&s->rng, seed);
	s->col = 0;
	while (!ret && words < nwords) {
		nsent = 2 + (size_t)mut_rng_below(&s->rng, 7);
		for (i = 0; !ret && i < nsent && words < nwords; i++) {
			slen = 5 + (size_t)mut_rng_below(&s->rng, 26);
			for (j = 0; !ret && j < slen; j++, words++) {
				if (j > 0 && j + 6 < slen && mut_rng_below(&s->rng, 40) == 0) {
					/* a stock phrase of this author: 6 ranks in a row */
					size_t p = s->phrase_start[mut_rng_below(&s->rng, NELEM(s->phrase_start))];

					for (t = 0; !ret && t < 6; t++)
						ret = synth_word(s, out, NCOMMON + p + t * 37, 0);
					j += 5;
					words += 5;
					continue;
				}
				ret = synth_word(s, out, zipf_rank(s), j == 0);
				if (!ret && j + 1 < slen && mut_rng_below(&s->rng, 12) == 0) {
					ret = sbuf_addch(out, ',');
					s->col++;
				}
			}
			if (!ret) {
				t = mut_rng_below(&s->rng, 100);
				ret = sbuf_addch(out, t < 5 ? '?' : t < 8 ? '!' : '.');
				s->col++;
			}
		}
		if (!ret)
			ret = sbuf_addstr(out, "\n\n");
		s->col = 0;
	}
	free(s);
	return ret;
}

/* The counterpart of word w[0..n) (lower-cased) in pseudo-language lang,
 * variant v: syllables drawn from a hash of the three, about as long as
 * w, so a given word always becomes the same word (buf: 64 bytes). */
static void counterpart(const char *w, size_t n, uint64_t lang, unsigned v, char *buf)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325) ^ lang * UINT64_C(0x9e3779b97f4a7c15) ^ v;
	size_t i, k = 0, nsyl;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)w[i];

		h = (h ^ (c >= 'A' && c <= 'Z' ? c + 32 : c)) * UINT64_C(0x100000001b3);
	}
	h = splitmix64(&h);
	nsyl = 1 + n / 4 + (h & 1);
	if (nsyl > 5)
		nsyl = 5;
	h >>= 1;
	for (i = 0; i < nsyl; i++) {
		if (h < 1000)
			h = splitmix64(&h);
		k += (size_t)snprintf(buf + k, 64 - k, "%s%s%s", onsets[h % NELEM(onsets)],
				      vowels[h / NELEM(onsets) % NELEM(vowels)],
				      codas[h / NELEM(onsets) / NELEM(vowels) % NELEM(codas)]);
		h /= NELEM(onsets) * NELEM(vowels) * NELEM(codas);
	}
}

/* 1 when word w[0..n) is kept by mut_reword(): a name (capital first) or
 * a number (any digit). */
static int identity_word(const char *w, size_t n)
{
	size_t i;

	if (w[0] >= 'A' && w[0] <= 'Z')
		return 1;
	for (i = 0; i < n; i++)
		if (w[i] >= '0' && w[i] <= '9')
			return 1;
	return 0;
}

/* 1 for a byte of a word: a letter, a digit, any byte of a multi-byte
 * character; inner apostrophes with quote 1. */
static int word_byte(unsigned char c, int quote)
{
	return c >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || (quote && c == '\'');
}

int mut_nouns(struct mut_rng *r, const char *in, size_t len, double share, struct sbuf *out)
{
	static const char *const article[] = { "dar ", "dis ", "dan ", "einu " };
	size_t i = 0, j;
	int ret = 0;

	if (share < 0 || share > 1)
		return -EINVAL;
	while (i < len && !ret) {
		unsigned char c = (unsigned char)in[i];

		if (!word_byte(c, 0)) {
			ret = sbuf_addch(out, (char)c);
			i++;
			continue;
		}
		for (j = i; j < len && word_byte((unsigned char)in[j], 1); j++)
			;
		if (c >= 'a' && c <= 'z' && mut_rng_unit(r) < share) {
			ret = sbuf_addstr(out, article[mut_rng_below(r, 4)]);
			if (!ret)
				ret = sbuf_addch(out, (char)(c - 'a' + 'A'));
			if (!ret)
				ret = sbuf_add(out, in + i + 1, j - i - 1);
		} else {
			ret = sbuf_add(out, in + i, j - i);
		}
		i = j;
	}
	return ret;
}

int mut_reword(struct mut_rng *r, const char *in, size_t len, double rate, uint64_t lang,
	       unsigned variants, struct sbuf *out)
{
	size_t i = 0, j;
	char buf[64];
	int ret = 0;

	if (rate < 0 || rate > 1 || variants < 1)
		return -EINVAL;
	while (i < len && !ret) {
		unsigned char c = (unsigned char)in[i];

		if (!word_byte(c, 0)) {
			ret = sbuf_addch(out, (char)c);
			i++;
			continue;
		}
		for (j = i; j < len && word_byte((unsigned char)in[j], 1); j++)
			;
		/* one draw per word, kept or not, so the rate alone decides */
		if (mut_rng_unit(r) < rate && !identity_word(in + i, j - i)) {
			counterpart(in + i, j - i, lang,
				    (unsigned)mut_rng_below(r, variants), buf);
			ret = sbuf_addstr(out, buf);
		} else {
			ret = sbuf_add(out, in + i, j - i);
		}
		i = j;
	}
	return ret;
}
