/* filekind.c - naming non-books by their content (see filekind.h). */
#include "filekind.h"

#include <string.h>
#include <strings.h>

/* A signature: magic bytes at an offset. */
struct sig {
	size_t off;
	const char *magic;
	size_t n;
	const char *kind;
};

#define SIG(off, m, kind) { off, m, sizeof(m) - 1, kind }

/* Checked in order; containers whose kind depends on the name (zip, RAR,
 * 7z, RIFF, ISO media) are handled before the table. */
static const struct sig sigs[] = {
	SIG(0, "AT&TFORM", "DjVu document"),
	SIG(0, "\xFF\xD8\xFF", "JPEG image"),
	SIG(0, "\x89PNG\r\n\x1A\n", "PNG image"),
	SIG(0, "GIF87a", "GIF image"),
	SIG(0, "GIF89a", "GIF image"),
	SIG(0, "II*\0", "TIFF image"),
	SIG(0, "MM\0*", "TIFF image"),
	SIG(0, "8BPS", "Photoshop image"),
	SIG(0, "ID3", "MP3 audio"),
	SIG(0, "OggS", "Ogg audio"),
	SIG(0, "fLaC", "FLAC audio"),
	SIG(0, "\x1A\x45\xDF\xA3", "Matroska/WebM video"),
	SIG(0, "SQLite format 3", "SQLite database"),
	SIG(0, "ITSF", "CHM help file"),
	SIG(0, "ITOLITLS", "Microsoft LIT ebook"),
	SIG(0, "L\0R\0F\0", "Sony LRF ebook"),
	SIG(0, "\xEA\x44\x52\x4D\x49\x4F\x4E\xEE", "KFX ebook (DRM-protected)"),
	SIG(0, "CONT\x02\x00", "KFX ebook"),
	SIG(0, "%!PS", "PostScript document"),
	SIG(0, "\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1", "Microsoft Office 97-2003 document"),
	SIG(0, "\x1F\x8B", "gzip archive"),
	SIG(0, "BZh", "bzip2 archive"),
	SIG(0, "\xFD" "7zXZ\0", "xz archive"),
	SIG(0, "\x28\xB5\x2F\xFD", "zstd archive"),
	SIG(257, "ustar", "tar archive"),
	SIG(0, "\x7F" "ELF", "ELF executable"),
	SIG(0, "MZ", "Windows executable"),
	SIG(0, "\xCA\xFE\xBA\xBE", "Java class or Mach-O executable"),
	SIG(0, "wOFF", "web font"),
	SIG(0, "wOF2", "web font"),
	SIG(0, "OTTO", "OpenType font"),
	SIG(0, "\0\1\0\0\0", "TrueType font"),
	SIG(0, "{\"", "JSON data"),
};

static int has(const char *p, size_t len, size_t off, const char *m, size_t n)
{
	return len >= off + n && !memcmp(p + off, m, n);
}

/* Lower-case extension of name into buf ("" when none or too long). */
static const char *ext_of(const char *name, char *buf, size_t sz)
{
	const char *base, *dot;
	size_t i, n;

	buf[0] = '\0';
	if (!name)
		return buf;
	base = strrchr(name, '/');
	base = base ? base + 1 : name;
	dot = strrchr(base, '.');
	if (!dot || dot == base || (n = strlen(dot + 1)) >= sz)
		return buf;
	for (i = 0; i <= n; i++) {
		char c = dot[1 + i];

		buf[i] = (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
	}
	return buf;
}

static int ext_is(const char *ext, const char *a, const char *b)
{
	return !strcmp(ext, a) || (b && !strcmp(ext, b));
}

/* A zip: by the first entry's name or the mimetype entry, then the name. */
static const char *zip_kind(const char *p, size_t len, const char *ext)
{
	size_t n = len >= 30 ? ((size_t)(unsigned char)p[26] | (size_t)(unsigned char)p[27] << 8) : 0;
	const char *first = p + 30;
	size_t flen = 30 + n <= len ? n : 0;

	if (ext_is(ext, "cbz", NULL))
		return "CBZ comic archive";
	if (flen > 4 && (!strncasecmp(first + flen - 4, ".jpg", 4) ||
			 !strncasecmp(first + flen - 4, "jpeg", 4) ||
			 !strncasecmp(first + flen - 4, ".png", 4)))
		return "zip of images (a comic archive?)";
	if (memmem(p, len, "[Content_Types].xml", 19)) {
		if (memmem(p, len, "ppt/", 4))
			return "PowerPoint presentation";
		if (memmem(p, len, "xl/", 3))
			return "Excel spreadsheet";
	}
	if (memmem(p, len < 256 ? len : 256, "opendocument.spreadsheet", 24))
		return "OpenDocument spreadsheet";
	if (memmem(p, len < 256 ? len : 256, "opendocument.presentation", 25))
		return "OpenDocument presentation";
	if (ext_is(ext, "jar", "apk"))
		return "Java archive";
	return "zip archive (not an EPUB)";
}

/* ISO base media (MP4, M4A, M4B, MOV): by its brand. */
static const char *isomedia_kind(const char *p, size_t len)
{
	if (has(p, len, 8, "M4A ", 4) || has(p, len, 8, "M4B ", 4))
		return "MPEG-4 audio (audiobook?)";
	if (has(p, len, 8, "qt  ", 4))
		return "QuickTime video";
	return "MPEG-4 video";
}

const char *filekind_name(const void *prefix, size_t len, const char *name)
{
	const char *p = prefix;
	char ebuf[8];
	const char *ext = ext_of(name, ebuf, sizeof(ebuf));
	size_t i;

	if (has(p, len, 0, "PK\3\4", 4) || has(p, len, 0, "PK\5\6", 4))
		return zip_kind(p, len, ext);
	if (has(p, len, 0, "Rar!\x1A\x07", 6))
		return ext_is(ext, "cbr", NULL) ? "CBR comic archive" : "RAR archive";
	if (has(p, len, 0, "7z\xBC\xAF\x27\x1C", 6))
		return ext_is(ext, "cb7", NULL) ? "CB7 comic archive" : "7z archive";
	if (has(p, len, 0, "RIFF", 4)) {
		if (has(p, len, 8, "WEBP", 4))
			return "WebP image";
		if (has(p, len, 8, "WAVE", 4))
			return "WAV audio";
		if (has(p, len, 8, "AVI ", 4))
			return "AVI video";
	}
	if (has(p, len, 4, "ftyp", 4))
		return isomedia_kind(p, len);
	/* MPEG audio frame sync without an ID3 tag */
	if (len >= 2 && (unsigned char)p[0] == 0xFF && ((unsigned char)p[1] & 0xE0) == 0xE0 &&
	    ext_is(ext, "mp3", NULL))
		return "MP3 audio";
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (has(p, len, sigs[i].off, sigs[i].magic, sigs[i].n))
			return sigs[i].kind;
	/* text formats that hold no book text of their own */
	if (ext_is(ext, "opf", NULL))
		return "ebook metadata (OPF)";
	if (ext_is(ext, "ncx", NULL))
		return "ebook table of contents (NCX)";
	if (ext_is(ext, "css", NULL))
		return "style sheet";
	if (ext_is(ext, "svg", NULL))
		return "SVG image";
	if (ext_is(ext, "xml", "json"))
		return "data file";
	return NULL;
}
