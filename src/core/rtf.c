/* rtf.c - RTF 1.x (Word, WordPad, LibreOffice, calibre) to UTF-8 text.
 *
 * Hand-written because Debian has no maintained C library that reads RTF
 * (unrtf is a program; librtf-* are writers in Perl).  The reader is a
 * single pass over the bytes with an explicit stack of group states, so
 * hostile nesting costs memory only up to max_depth and never recursion.
 * Destinations that are not body text (font and colour tables, style
 * sheets, pictures, objects, headers, footers, field instructions, every
 * unknown \* destination) are passed over by a scanner that only looks at
 * braces, escapes and \bin, so megabytes of picture hex cost one scan.
 * Footnotes are collected apart and appended after the body, so they do not
 * cut sentences of the text in two.  \page and \sect start chunks.
 */
#include "extract_i.h"
#include "grow.h"

#include <errno.h>
#include <iconv.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RTF_MAX_WORD 32		/* longest control word the spec allows */
#define RTF_META_BYTES 4096	/* title/author kept */
#define RTF_TIME_EVERY 4096	/* tokens between time checks */

enum rtf_dest {
	D_BODY,		/* document text */
	D_NOTE,		/* footnote text, appended after the body */
	D_TITLE,	/* \info's \title */
	D_AUTHOR,	/* \info's \author */
	D_DROP,		/* control words count, text is dropped (\info, \upr) */
	D_SKIP,		/* not text at all: scanned for braces and \bin only */
};

enum brk { BRK_NONE, BRK_SPACE, BRK_LINE, BRK_PARA };

/* The state a group inherits from its parent and restores on '}'. */
struct rtf_group {
	uint8_t dest;		/* enum rtf_dest */
	uint8_t upr_dest;	/* dest before \upr, for its \*\ud */
	uint8_t in_upr;		/* inside \upr but not its \*\ud: the ANSI
				 * twin of Unicode text, dropped */
	uint8_t star;		/* \* seen: the next control word names an
				 * ignorable destination */
	uint8_t in_info;	/* inside \info: \title and \author count */
	uint16_t uc;		/* fallback characters after each \uN */
};

/* One text output with white space collapsed and breaks held back until
 * text follows, so no output starts or ends with a break. */
struct rtf_out {
	struct sbuf *sb;
	size_t max;
	enum brk pending;
	int oneline;		/* metadata: every break is a space */
	int chunk;		/* body: the next text starts a chunk */
};

struct rtf {
	struct ex_ctx *ctx;
	const unsigned char *base, *p, *end;
	struct rtf_group *stack;
	size_t depth, cap;
	struct rtf_out out[4];	/* by dest D_BODY..D_AUTHOR */
	struct sbuf notes, title, author;
	unsigned skip;		/* \uN fallback characters still to skip */
	uint32_t hi_sur;	/* a high surrogate waiting for its pair */
	uint32_t cp_tab[128];	/* code page bytes 0x80..0xFF */
	iconv_t cd;		/* multi-byte code page, else (iconv_t)-1 */
	unsigned char mb[4];	/* bytes of an unfinished multi-byte char */
	size_t nmb;
	unsigned tokens;
	int lang_done;
};

/* Control words that do something; all others are formatting. */
enum rtf_act {
	A_NONE, A_SKIPDEST, A_INFO, A_TITLE, A_AUTHOR, A_FOOTNOTE, A_UPR, A_UD,
	A_PAR, A_LINE, A_PAGE, A_SPACE, A_CHAR, A_U, A_UC, A_BIN, A_ANSICPG,
	A_CHARSET, A_DEFLANG,
};

struct rtf_word {
	const char *name;
	uint8_t act;
	uint32_t arg;		/* A_CHAR: code point; A_CHARSET: code page */
};

/* Sorted by name for bsearch. */
static const struct rtf_word words[] = {
	{ "aftncn", A_SKIPDEST, 0 }, { "aftnsep", A_SKIPDEST, 0 },
	{ "aftnsepc", A_SKIPDEST, 0 }, { "annotation", A_SKIPDEST, 0 },
	{ "ansi", A_CHARSET, 1252 }, { "ansicpg", A_ANSICPG, 0 },
	{ "atnauthor", A_SKIPDEST, 0 }, { "atnid", A_SKIPDEST, 0 },
	{ "author", A_AUTHOR, 0 }, { "bin", A_BIN, 0 },
	{ "bkmkend", A_SKIPDEST, 0 }, { "bkmkstart", A_SKIPDEST, 0 },
	{ "bullet", A_CHAR, 0x2022 }, { "buptim", A_SKIPDEST, 0 },
	{ "category", A_SKIPDEST, 0 }, { "cell", A_SPACE, 0 },
	{ "colortbl", A_SKIPDEST, 0 }, { "comment", A_SKIPDEST, 0 },
	{ "company", A_SKIPDEST, 0 }, { "creatim", A_SKIPDEST, 0 },
	{ "datastore", A_SKIPDEST, 0 }, { "deflang", A_DEFLANG, 0 },
	{ "do", A_SKIPDEST, 0 }, { "doccomm", A_SKIPDEST, 0 },
	{ "docvar", A_SKIPDEST, 0 }, { "emdash", A_CHAR, 0x2014 },
	{ "emspace", A_CHAR, 0x2003 }, { "endash", A_CHAR, 0x2013 },
	{ "enspace", A_CHAR, 0x2002 }, { "fldinst", A_SKIPDEST, 0 },
	{ "fonttbl", A_SKIPDEST, 0 }, { "footer", A_SKIPDEST, 0 },
	{ "footerf", A_SKIPDEST, 0 }, { "footerl", A_SKIPDEST, 0 },
	{ "footerr", A_SKIPDEST, 0 }, { "footnote", A_FOOTNOTE, 0 },
	{ "ftncn", A_SKIPDEST, 0 }, { "ftnsep", A_SKIPDEST, 0 },
	{ "ftnsepc", A_SKIPDEST, 0 }, { "generator", A_SKIPDEST, 0 },
	{ "header", A_SKIPDEST, 0 }, { "headerf", A_SKIPDEST, 0 },
	{ "headerl", A_SKIPDEST, 0 }, { "headerr", A_SKIPDEST, 0 },
	{ "hlinkbase", A_SKIPDEST, 0 }, { "info", A_INFO, 0 },
	{ "keywords", A_SKIPDEST, 0 }, { "latentstyles", A_SKIPDEST, 0 },
	{ "ldblquote", A_CHAR, 0x201C }, { "line", A_LINE, 0 },
	{ "listoverridetable", A_SKIPDEST, 0 }, { "listtable", A_SKIPDEST, 0 },
	{ "lquote", A_CHAR, 0x2018 }, { "mac", A_CHARSET, 10000 },
	{ "manager", A_SKIPDEST, 0 }, { "nestcell", A_SPACE, 0 },
	{ "nestrow", A_PAR, 0 }, { "nonshppict", A_SKIPDEST, 0 },
	{ "object", A_SKIPDEST, 0 }, { "operator", A_SKIPDEST, 0 },
	{ "page", A_PAGE, 0 }, { "par", A_PAR, 0 },
	{ "pc", A_CHARSET, 437 }, { "pca", A_CHARSET, 850 },
	{ "pict", A_SKIPDEST, 0 }, { "printim", A_SKIPDEST, 0 },
	{ "pntxta", A_SKIPDEST, 0 }, { "pntxtb", A_SKIPDEST, 0 },
	{ "private", A_SKIPDEST, 0 }, { "qmspace", A_CHAR, 0x2005 },
	{ "rdblquote", A_CHAR, 0x201D }, { "revtbl", A_SKIPDEST, 0 },
	{ "revtim", A_SKIPDEST, 0 }, { "row", A_PAR, 0 },
	{ "rquote", A_CHAR, 0x2019 }, { "rsidtbl", A_SKIPDEST, 0 },
	{ "rxe", A_SKIPDEST, 0 }, { "sect", A_PAGE, 0 },
	{ "sp", A_SKIPDEST, 0 }, { "stylesheet", A_SKIPDEST, 0 },
	{ "subject", A_SKIPDEST, 0 }, { "tab", A_SPACE, 0 },
	{ "tc", A_SKIPDEST, 0 }, { "template", A_SKIPDEST, 0 },
	{ "themedata", A_SKIPDEST, 0 }, { "title", A_TITLE, 0 },
	{ "txe", A_SKIPDEST, 0 }, { "u", A_U, 0 },
	{ "uc", A_UC, 0 }, { "ud", A_UD, 0 },
	{ "upr", A_UPR, 0 }, { "userprops", A_SKIPDEST, 0 },
	{ "xe", A_SKIPDEST, 0 }, { "xmlnstbl", A_SKIPDEST, 0 },
};

static int word_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct rtf_word *)elem)->name);
}

static const struct rtf_word *word_find(const char *name)
{
	return bsearch(name, words, sizeof(words) / sizeof(words[0]), sizeof(words[0]), word_cmp);
}

/* Bytes that end a run of plain text (printable ASCII and spaces): markup,
 * control bytes (tab included), line ends and bytes that need decoding. */
static const unsigned char run_stop[256] = {
	[0 ... 0x1F] = 1, ['\\'] = 1, ['{'] = 1, ['}'] = 1, [0x7F ... 0xFF] = 1,
};

/* Bytes the skipping scanner stops at. */
static const unsigned char skip_stop[256] = { ['\\'] = 1, ['{'] = 1, ['}'] = 1 };

/* ---- output ---- */

static int out_prefix(struct rtf *r, struct rtf_out *o)
{
	static const char *const sep[] = { "", " ", "\n", "\n\n" };
	struct extract_doc *doc = r->ctx->doc;
	enum brk b = o->pending;
	size_t n;
	int ret;

	o->pending = BRK_NONE;
	if (!o->sb->len)
		b = BRK_NONE;
	if (o->chunk && b < BRK_PARA && o->sb->len)
		b = BRK_PARA;
	if (o->oneline && b)
		b = BRK_SPACE;
	n = strlen(sep[b]);
	if (o->sb->len + n > o->max)
		return -EFBIG;
	ret = sbuf_add(o->sb, sep[b], n);
	if (ret || !o->chunk)
		return ret;
	o->chunk = 0;
	if (!doc->nchunks && o->sb->len) {
		/* the text before the first break is chunk 0 */
		doc->chunk_off = malloc(sizeof(*doc->chunk_off));
		if (!doc->chunk_off)
			return -ENOMEM;
		doc->chunk_off[doc->nchunks++] = 0;
	}
	{
		size_t *p = realloc(doc->chunk_off, (doc->nchunks + 1) * sizeof(*p));

		if (!p)
			return -ENOMEM;
		doc->chunk_off = p;
		doc->chunk_off[doc->nchunks++] = o->sb->len;
	}
	return 0;
}

static struct rtf_out *cur_out(struct rtf *r)
{
	unsigned d = r->stack[r->depth - 1].dest;

	return d <= D_AUTHOR ? &r->out[d] : NULL;
}

/* Reports an output error: metadata that outgrows its bound is cut, the
 * text's bound is the file's. */
static int out_err(struct rtf *r, struct rtf_out *o, int ret)
{
	if (ret == -EFBIG && o->oneline)
		return 0;
	if (ret == -EFBIG)
		return ex_fail(r->ctx, -EFBIG, "text longer than %llu bytes",
			       (unsigned long long)r->ctx->lim->max_text_bytes);
	return ex_fail(r->ctx, ret, "out of memory");
}

static void set_break(struct rtf *r, enum brk b)
{
	struct rtf_out *o = cur_out(r);

	if (o && b == BRK_LINE && o->pending == BRK_LINE)
		b = BRK_PARA;	/* two line breaks leave a blank line */
	if (o && b > o->pending)
		o->pending = b;
}

static int put_cp(struct rtf *r, uint32_t c);

/* A high surrogate from \uN that no low one followed. */
static int sur_drop(struct rtf *r)
{
	if (!r->hi_sur)
		return 0;
	r->hi_sur = 0;
	return put_cp(r, 0xFFFD);
}

static int put_cp(struct rtf *r, uint32_t c)
{
	struct rtf_out *o = cur_out(r);
	unsigned char b[4];
	size_t n;
	int ret;

	if (r->hi_sur && (ret = sur_drop(r)))
		return ret;
	if (!o)
		return 0;
	if (c == ' ' || c == '\t') {
		if (!o->pending)
			o->pending = BRK_SPACE;
		return 0;
	}
	if (c < 0x20 || (c >= 0x7F && c < 0xA0))
		return 0;
	if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		c = 0xFFFD;
	if (c < 0x80) {
		b[0] = (unsigned char)c;
		n = 1;
	} else if (c < 0x800) {
		b[0] = (unsigned char)(0xC0 | (c >> 6));
		b[1] = (unsigned char)(0x80 | (c & 0x3F));
		n = 2;
	} else if (c < 0x10000) {
		b[0] = (unsigned char)(0xE0 | (c >> 12));
		b[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
		b[2] = (unsigned char)(0x80 | (c & 0x3F));
		n = 3;
	} else {
		b[0] = (unsigned char)(0xF0 | (c >> 18));
		b[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3F));
		b[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
		b[3] = (unsigned char)(0x80 | (c & 0x3F));
		n = 4;
	}
	ret = o->pending || o->chunk ? out_prefix(r, o) : 0;
	if (!ret && o->sb->len + n > o->max)
		ret = -EFBIG;
	if (!ret)
		ret = sbuf_add(o->sb, b, n);
	return ret ? out_err(r, o, ret) : 0;
}

/* Plain ASCII text s[0..n) (printable bytes and spaces) to the current
 * output: copied whole unless it holds a run of spaces to collapse. */
static int put_ascii(struct rtf *r, const unsigned char *s, size_t n)
{
	struct rtf_out *o = cur_out(r);
	struct sbuf *sb;
	size_t i, len;
	int ret, trail = 0;
	char *d;

	if (r->hi_sur && (ret = sur_drop(r)))
		return ret;
	if (!o)
		return 0;
	sb = o->sb;
	for (i = 0; i < n && s[i] == ' '; i++)
		if (!o->pending)
			o->pending = BRK_SPACE;
	if (i == n)
		return 0;
	while (s[n - 1] == ' ') {
		n--;
		trail = 1;
	}
	if (o->pending || o->chunk) {
		ret = out_prefix(r, o);
		if (ret)
			return out_err(r, o, ret);
	}
	if (sb->len + (n - i) > o->max)
		return out_err(r, o, -EFBIG);
	ret = sbuf_grow(sb, n - i);
	if (ret)
		return out_err(r, o, ret);
	len = sb->len;
	d = sb->buf;
	if (!memmem(s + i, n - i, "  ", 2)) {
		memcpy(d + len, s + i, n - i);
		len += n - i;
	} else {
		for (; i < n; i++)
			if (s[i] != ' ' || s[i - 1] != ' ')
				d[len++] = (char)s[i];
	}
	d[len] = '\0';
	sb->len = len;
	if (trail)
		o->pending = BRK_SPACE;
	return 0;
}

/* ---- code page ---- */

static void cp_close(struct rtf *r)
{
	if (r->cd != (iconv_t)-1)
		iconv_close(r->cd);
	r->cd = (iconv_t)-1;
	r->nmb = 0;
}

/* Selects the code page \'hh and 8-bit bytes are decoded with. */
static int cp_set(struct rtf *r, long cp)
{
	char name[32];
	int ret;

	switch (cp) {
	case 10000:
		snprintf(name, sizeof(name), "MACINTOSH");
		break;
	case 10007:
		snprintf(name, sizeof(name), "MAC-CYRILLIC");
		break;
	case 20866:
		snprintf(name, sizeof(name), "KOI8-R");
		break;
	case 21866:
		snprintf(name, sizeof(name), "KOI8-U");
		break;
	case 65001:
		snprintf(name, sizeof(name), "UTF-8");
		break;
	default:
		if (cp >= 28591 && cp <= 28605)
			snprintf(name, sizeof(name), "ISO-8859-%ld", cp - 28590);
		else
			snprintf(name, sizeof(name), "CP%ld", cp);
		break;
	}
	cp_close(r);
	ret = txt_sbcs_table(cp == 1252 ? "WINDOWS-1252" : name, r->cp_tab);
	if (ret == 1) {
		r->cd = iconv_open("UTF-32LE", name);
		if (r->cd != (iconv_t)-1)
			return 0;
		ret = -EINVAL;
	}
	if (ret < 0) {
		txt_sbcs_table("WINDOWS-1252", r->cp_tab);
		return ex_warn(r->ctx, "unknown code page %ld, read as Windows-1252", cp);
	}
	return 0;
}

/* An unfinished multi-byte character interrupted by other input. */
static int mb_drop(struct rtf *r)
{
	if (!r->nmb)
		return 0;
	r->nmb = 0;
	return put_cp(r, 0xFFFD);
}

/* One byte of a multi-byte code page through iconv. */
static int mb_byte(struct rtf *r, unsigned char b)
{
	int ret = 0;

	r->mb[r->nmb++] = b;
	while (r->nmb && !ret) {
		char *ip = (char *)r->mb, *op;
		unsigned char o[8];
		size_t il = r->nmb, ol = sizeof(o), used;

		op = (char *)o;
		iconv(r->cd, NULL, NULL, NULL, NULL);
		if (iconv(r->cd, &ip, &il, &op, &ol) != (size_t)-1 || op != (char *)o) {
			size_t k;

			used = (size_t)(ip - (char *)r->mb);
			for (k = 0; k + 4 <= (size_t)(op - (char *)o) && !ret; k += 4)
				ret = put_cp(r, (uint32_t)o[k] | (uint32_t)o[k + 1] << 8 |
						(uint32_t)o[k + 2] << 16 | (uint32_t)o[k + 3] << 24);
		} else if (errno == EINVAL && r->nmb < sizeof(r->mb)) {
			return 0;	/* wait for the rest of the character */
		} else {
			used = 1;
			ret = put_cp(r, 0xFFFD);
		}
		if (!used)
			used = 1;
		memmove(r->mb, r->mb + used, r->nmb - used);
		r->nmb -= used;
	}
	return ret;
}

/* A byte of text in the document's code page (\'hh or raw 8-bit). */
static int cp_byte(struct rtf *r, unsigned char b)
{
	if (r->cd != (iconv_t)-1 && (r->nmb || b >= 0x80))
		return mb_byte(r, b);
	return put_cp(r, b < 0x80 ? b : r->cp_tab[b - 0x80]);
}

/* \uN: a signed 16-bit UTF-16 unit; pairs of surrogates are joined. */
static int put_unicode(struct rtf *r, long v)
{
	uint32_t u = v < 0 ? (uint32_t)(v + 65536) : (uint32_t)v;
	int ret;

	if (v < -32768 || v > 65535)
		u = 0xFFFD;
	if (u >= 0xDC00 && u <= 0xDFFF && r->hi_sur) {
		u = 0x10000 + ((r->hi_sur - 0xD800) << 10) + (u - 0xDC00);
		r->hi_sur = 0;
		return put_cp(r, u);
	}
	if (u >= 0xD800 && u <= 0xDBFF) {
		ret = sur_drop(r);
		r->hi_sur = u;
		return ret;
	}
	return put_cp(r, u);	/* a lone low surrogate becomes U+FFFD there */
}

/* ---- metadata ---- */

/* ISO 639-1 codes of the primary language ids of Windows LCIDs. */
static const char *lcid_lang(long lcid)
{
	static const char *const prim[0x40] = {
		[0x01] = "ar", [0x02] = "bg", [0x03] = "ca", [0x04] = "zh", [0x05] = "cs",
		[0x06] = "da", [0x07] = "de", [0x08] = "el", [0x09] = "en", [0x0A] = "es",
		[0x0B] = "fi", [0x0C] = "fr", [0x0D] = "he", [0x0E] = "hu", [0x0F] = "is",
		[0x10] = "it", [0x11] = "ja", [0x12] = "ko", [0x13] = "nl", [0x14] = "no",
		[0x15] = "pl", [0x16] = "pt", [0x18] = "ro", [0x19] = "ru", [0x1A] = "hr",
		[0x1B] = "sk", [0x1D] = "sv", [0x1E] = "th", [0x1F] = "tr", [0x21] = "id",
		[0x22] = "uk", [0x23] = "be", [0x24] = "sl", [0x25] = "et", [0x26] = "lv",
		[0x27] = "lt", [0x29] = "fa", [0x2A] = "vi", [0x2D] = "eu", [0x39] = "hi",
	};
	long p = lcid & 0x3FF;

	return lcid > 0 && p < 0x40 ? prim[p] : NULL;
}

/* ---- groups ---- */

static int push(struct rtf *r)
{
	uint32_t max = r->ctx->lim->max_depth;

	if (r->depth >= max)
		return ex_fail(r->ctx, -EFBIG, "groups nested deeper than %u", max);
	if (ARRAY_GROW(r->stack, r->cap, r->depth + 1))
		return ex_fail(r->ctx, -ENOMEM, "out of memory");
	r->stack[r->depth] = r->stack[r->depth - 1];
	r->stack[r->depth].star = 0;
	r->depth++;
	return 0;
}

static int pop(struct rtf *r)
{
	r->depth--;
	return 0;
}

/* Reads the control word at r->p (its first letter): name, optional
 * signed parameter, and the space that may delimit it. */
static void read_word(struct rtf *r, char *name, int *has_param, long *param)
{
	const unsigned char *p = r->p, *e = r->end;
	size_t n = 0;
	long v = 0;
	int neg = 0;

	while (p < e && ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'z')) {
		if (n < RTF_MAX_WORD)
			name[n] = (char)*p;
		n++;
		p++;
	}
	/* longer than any real word: unknown, never matched */
	name[n <= RTF_MAX_WORD ? n : 0] = '\0';
	*has_param = 0;
	if (p + 1 < e && *p == '-' && p[1] >= '0' && p[1] <= '9') {
		neg = 1;
		p++;
	}
	while (p < e && *p >= '0' && *p <= '9') {
		if (v < 100000000000L)
			v = v * 10 + (*p - '0');
		*has_param = 1;
		p++;
	}
	*param = neg ? -v : v;
	if (p < e && *p == ' ')
		p++;
	r->p = p;
}

/* \bin N: N raw bytes follow that are never text. */
static int skip_bin(struct rtf *r, long n)
{
	if (n < 0)
		return ex_fail(r->ctx, -EBADMSG, "\\bin with a negative length (%ld)", n);
	if ((uint64_t)n > (uint64_t)(r->end - r->p))
		return ex_fail(r->ctx, -EBADMSG, "\\bin of %ld bytes runs past the end of the file", n);
	r->p += n;
	return 0;
}

/* Passes over the rest of the current group (a destination that is not
 * text) and closes it.  Only braces, escapes and \bin matter here. */
static int skip_group(struct rtf *r)
{
	const unsigned char *p = r->p, *e = r->end;
	uint64_t nest = 0, max = r->ctx->lim->max_depth;
	char name[RTF_MAX_WORD + 1];
	int has, ret;
	long v;

	for (;;) {
		while (p < e && !skip_stop[*p])
			p++;
		if (p >= e)
			break;
		if (!(++r->tokens % RTF_TIME_EVERY) && (ret = ex_check_time(r->ctx)))
			return ret;
		switch (*p++) {
		case '{':
			if (r->depth + ++nest > max)
				return ex_fail(r->ctx, -EFBIG, "groups nested deeper than %u",
					       (unsigned)max);
			break;
		case '}':
			if (!nest--) {
				r->p = p;
				return pop(r);
			}
			break;
		default:	/* '\\' */
			if (p >= e)
				break;
			if ((*p | 0x20) < 'a' || (*p | 0x20) > 'z') {
				p++;	/* an escaped symbol, maybe a brace */
				break;
			}
			r->p = p;
			read_word(r, name, &has, &v);
			if (!strcmp(name, "bin") && (ret = skip_bin(r, has ? v : 0)))
				return ret;
			p = r->p;
			break;
		}
	}
	r->p = e;
	return ex_fail(r->ctx, -EBADMSG, "truncated: the file ends inside a group");
}

/* ---- control words and symbols ---- */

static int set_dest(struct rtf *r, enum rtf_dest d)
{
	r->stack[r->depth - 1].dest = (uint8_t)d;
	return 0;
}

static int word_action(struct rtf *r, const struct rtf_word *w, int has, long v)
{
	struct rtf_group *g = &r->stack[r->depth - 1];
	struct extract_doc *doc = r->ctx->doc;
	const char *lang;

	switch (w->act) {
	case A_SKIPDEST:
		return set_dest(r, D_SKIP);
	case A_INFO:
		g->in_info = 1;
		return set_dest(r, D_DROP);
	case A_TITLE:
	case A_AUTHOR:
		if (!g->in_info || g->in_upr)
			return set_dest(r, D_SKIP);
		return set_dest(r, w->act == A_TITLE ? D_TITLE : D_AUTHOR);
	case A_FOOTNOTE:
		if (g->in_upr)
			return set_dest(r, D_SKIP);
		if (g->dest == D_BODY || g->dest == D_NOTE)
			r->out[D_NOTE].pending = BRK_PARA;
		return set_dest(r, g->dest == D_BODY || g->dest == D_NOTE ? D_NOTE : D_SKIP);
	case A_UPR:
		g->upr_dest = g->dest;
		g->in_upr = 1;
		return set_dest(r, D_DROP);
	case A_UD:
		if (!g->in_upr)
			return 0;
		g->in_upr = 0;
		return set_dest(r, (enum rtf_dest)g->upr_dest);
	case A_PAR:
		set_break(r, BRK_PARA);
		return 0;
	case A_LINE:
		set_break(r, BRK_LINE);
		return 0;
	case A_PAGE:
		set_break(r, BRK_PARA);
		if (g->dest == D_BODY)
			r->out[D_BODY].chunk = 1;
		return 0;
	case A_SPACE:
		return put_cp(r, ' ');
	case A_CHAR:
		return put_cp(r, w->arg);
	case A_U:
		if (!has)
			return 0;
		r->skip = g->uc;
		return put_unicode(r, v);
	case A_UC:
		g->uc = (uint16_t)(has && v > 0 ? (v < 16 ? v : 16) : 0);
		return 0;
	case A_BIN:
		return skip_bin(r, has ? v : 0);
	case A_ANSICPG:
		return has ? cp_set(r, v) : 0;
	case A_CHARSET:
		return cp_set(r, w->arg);
	case A_DEFLANG:
		if (!r->lang_done && !doc->language && has && (lang = lcid_lang(v))) {
			r->lang_done = 1;
			return ex_str_set(&doc->language, lang, strlen(lang)) ?
				       ex_fail(r->ctx, -ENOMEM, "out of memory") : 0;
		}
		return 0;
	default:
		return 0;
	}
}

static int control_word(struct rtf *r)
{
	static const struct rtf_word none = { "", A_NONE, 0 };
	struct rtf_group *g = &r->stack[r->depth - 1];
	char name[RTF_MAX_WORD + 1];
	const struct rtf_word *w;
	int has;
	long v;

	read_word(r, name, &has, &v);
	w = word_find(name);
	if (!w)
		w = &none;
	if (g->star) {
		/* \* before a destination we do not read: skip it whole */
		g->star = 0;
		if (w->act != A_UD)
			return set_dest(r, D_SKIP);
	}
	if (r->skip && w->act != A_U) {
		r->skip--;	/* a fallback of the last \uN */
		return w->act == A_BIN ? skip_bin(r, has ? v : 0) : 0;
	}
	return word_action(r, w, has, v);
}

static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* After a backslash. */
static int control(struct rtf *r)
{
	unsigned char c;
	int hi, lo, ret;

	if (r->p >= r->end)
		return ex_fail(r->ctx, -EBADMSG, "truncated: the file ends after a backslash");
	c = *r->p;
	if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') {
		if (r->nmb && (ret = mb_drop(r)))
			return ret;
		return control_word(r);
	}
	r->p++;
	if (c == '\'') {
		if (r->end - r->p < 2)
			return ex_fail(r->ctx, -EBADMSG, "truncated: the file ends inside \\'hh");
		hi = hexval(r->p[0]);
		lo = hexval(r->p[1]);
		if (hi < 0 || lo < 0)
			return ex_fail(r->ctx, -EBADMSG, "bad hex digits after \\' at byte %zu",
				       (size_t)(r->p - r->base));
		r->p += 2;
		if (r->skip) {
			r->skip--;
			return 0;
		}
		return cp_byte(r, (unsigned char)(hi << 4 | lo));
	}
	if (r->nmb && (ret = mb_drop(r)))
		return ret;
	if (c == '*') {
		r->stack[r->depth - 1].star = 1;
		return 0;
	}
	if (r->skip) {
		r->skip--;
		return 0;
	}
	switch (c) {
	case '\\':
	case '{':
	case '}':
		return put_cp(r, c);
	case '~':
		return put_cp(r, 0xA0);
	case '_':
		return put_cp(r, 0x2011);
	case '\r':
	case '\n':
		set_break(r, BRK_PARA);	/* a backslash before a line end is \par */
		return 0;
	case '\t':
		return put_cp(r, ' ');
	default:		/* \- optional hyphen, \: \| and unknown symbols */
		return 0;
	}
}

/* A run of text bytes at r->p. */
static int text(struct rtf *r)
{
	const unsigned char *s = r->p, *p = s, *e = r->end;
	int ret;

	if (r->nmb && *p < 0x80 && (ret = mb_drop(r)))
		return ret;
	if (run_stop[*p]) {
		unsigned char c = *p;

		r->p++;
		if (c == '\r' || c == '\n')
			return 0;	/* line ends in RTF are not text */
		if (r->skip) {
			r->skip--;
			return 0;
		}
		return c >= 0x80 ? cp_byte(r, c) : put_cp(r, c);
	}
	while (p < e && !run_stop[*p])
		p++;
	if (r->skip) {
		size_t k = (size_t)(p - s) < r->skip ? (size_t)(p - s) : r->skip;

		r->skip -= (unsigned)k;
		s += k;
	}
	r->p = p;
	return s < p ? put_ascii(r, s, (size_t)(p - s)) : 0;
}

/* The body of the document: every token up to the '}' that closes the
 * outermost group. */
static int parse(struct rtf *r)
{
	int ret = 0;

	while (!ret && r->depth) {
		if (r->stack[r->depth - 1].dest == D_SKIP) {
			ret = skip_group(r);
			continue;
		}
		if (r->p >= r->end)
			return ex_fail(r->ctx, -EBADMSG,
				       "truncated: %zu group(s) still open at the end of the file",
				       r->depth);
		if (!(++r->tokens % RTF_TIME_EVERY) && (ret = ex_check_time(r->ctx)))
			return ret;
		switch (*r->p) {
		case '{':
		case '}':
			if (r->nmb && (ret = mb_drop(r)))
				return ret;
			if (r->hi_sur && (ret = sur_drop(r)))
				return ret;
			r->skip = 0;
			ret = *r->p++ == '{' ? push(r) : pop(r);
			break;
		case '\\':
			r->p++;
			ret = control(r);
			break;
		default:
			ret = text(r);
			break;
		}
	}
	return ret;
}

/* What may follow the last '}': white space and NULs (padding); anything
 * else is ignored with a warning, but another '}' means the braces do not
 * balance. */
static int trailer(struct rtf *r)
{
	const unsigned char *p = r->p;

	while (p < r->end && (*p == ' ' || *p == '\r' || *p == '\n' || *p == '\t' || !*p))
		p++;
	if (p == r->end)
		return 0;
	if (*p == '}')
		return ex_fail(r->ctx, -EBADMSG, "unbalanced braces: '}' after the end of the document");
	return ex_warn(r->ctx, "ignored %zu bytes after the end of the document",
		       (size_t)(r->end - p));
}

static int finish(struct rtf *r)
{
	struct extract_doc *doc = r->ctx->doc;
	struct rtf_out *b = &r->out[D_BODY];
	int ret = 0;

	if (r->notes.len) {
		b->pending = BRK_PARA;
		b->chunk = 0;
		ret = out_prefix(r, b);
		if (!ret && b->sb->len + r->notes.len > b->max)
			ret = -EFBIG;
		if (!ret)
			ret = sbuf_add(b->sb, r->notes.buf, r->notes.len);
		if (ret)
			return out_err(r, b, ret);
	}
	if (r->title.len && !doc->title)
		ret = ex_str_set(&doc->title, r->title.buf, r->title.len);
	if (!ret && r->author.len)
		ret = ex_strv_add(&doc->creators, r->author.buf, r->author.len);
	if (ret)
		return ex_fail(r->ctx, ret, "out of memory");
	if (!doc->text.len)
		return ex_warn(r->ctx, "no text in the document");
	return 0;
}

/* Where "{\rtf" starts after a UTF-8 BOM and white space, or NULL. */
static const char *rtf_start(const char *data, size_t len)
{
	size_t i = 0;

	if (len >= 3 && !memcmp(data, "\xEF\xBB\xBF", 3))
		i = 3;
	while (i < len && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n'))
		i++;
	return len - i >= 5 && !memcmp(data + i, "{\\rtf", 5) ? data + i : NULL;
}

int rtf_extract(struct ex_ctx *ctx, const char *data, size_t len)
{
	struct extract_doc *doc = ctx->doc;
	const char *start = rtf_start(data, len);
	struct rtf r;
	int ret, i;

	if (!start)
		return ex_fail(ctx, -EBADMSG, "not RTF (does not start with {\\rtf)");
	memset(&r, 0, sizeof(r));
	r.ctx = ctx;
	r.cd = (iconv_t)-1;
	r.base = (const unsigned char *)data;
	r.p = (const unsigned char *)start + 1;
	r.end = (const unsigned char *)data + len;
	sbuf_init(&r.notes);
	sbuf_init(&r.title);
	sbuf_init(&r.author);
	r.out[D_BODY].sb = &doc->text;
	r.out[D_NOTE].sb = &r.notes;
	r.out[D_TITLE].sb = &r.title;
	r.out[D_AUTHOR].sb = &r.author;
	for (i = 0; i < 4; i++) {
		r.out[i].max = i <= D_NOTE ? ctx->lim->max_text_bytes : RTF_META_BYTES;
		r.out[i].oneline = i > D_NOTE;
	}
	ret = txt_sbcs_table("WINDOWS-1252", r.cp_tab);
	if (!ret && ARRAY_GROW(r.stack, r.cap, 16))
		ret = ex_fail(ctx, -ENOMEM, "out of memory");
	if (ret)
		goto out;
	r.stack[0] = (struct rtf_group){ .dest = D_BODY, .upr_dest = D_BODY, .uc = 1 };
	r.depth = 1;
	ret = parse(&r);
	if (!ret)
		ret = trailer(&r);
	if (!ret)
		ret = finish(&r);
out:
	cp_close(&r);
	free(r.stack);
	sbuf_release(&r.notes);
	sbuf_release(&r.title);
	sbuf_release(&r.author);
	return ret;
}
