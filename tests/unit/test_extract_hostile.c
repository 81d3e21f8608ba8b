/* test_extract_hostile.c - hostile inputs, generated here: each must be
 * refused with the expected code, or extracted within limits.
 *
 * Every case runs in a child process, so a crash or hang fails only that
 * case, and the child's peak RSS is measured (wait4) along with the time of
 * the extraction call.  Bounds are generous (3 s; 64 MB over the child's
 * baseline, not checked under AddressSanitizer, whose shadow memory inflates
 * RSS) so the test does not flake on a loaded machine; the measured numbers
 * are printed.  Children end with _exit(): what a case allocated dies
 * with it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "extract.h"
#include "sbuf.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

#define TIME_BOUND 3.0
#define RSS_BOUND_KB (64 * 1024)

static const char *tmpdir;	/* every file a case makes goes here */

/* ---- a raw zip writer, so sizes, CRCs, flags and offsets can lie ---- */

static uint32_t crc32_of(const void *data, size_t n)
{
	static uint32_t table[256];
	const unsigned char *p = data;
	uint32_t c = 0xFFFFFFFFu;
	size_t i;

	if (!table[1])
		for (i = 0; i < 256; i++) {
			uint32_t v = (uint32_t)i;
			int k;

			for (k = 0; k < 8; k++)
				v = v & 1 ? 0xEDB88320u ^ (v >> 1) : v >> 1;
			table[i] = v;
		}
	for (i = 0; i < n; i++)
		c = table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
	return c ^ 0xFFFFFFFFu;
}

static void le16(struct sbuf *b, uint32_t v)
{
	char x[2] = { (char)(v & 0xFF), (char)((v >> 8) & 0xFF) };

	sbuf_add(b, x, 2);
}

static void le32(struct sbuf *b, uint32_t v)
{
	le16(b, v & 0xFFFF);
	le16(b, v >> 16);
}

static void le64(struct sbuf *b, uint64_t v)
{
	le32(b, (uint32_t)v);
	le32(b, (uint32_t)(v >> 32));
}

struct zw {
	struct sbuf out, cd;
	uint32_t n;
	int zip64;
};

struct zent {
	const char *name;
	const void *data;	/* stored bytes as they go in the archive */
	size_t dlen;
	uint16_t method;	/* 0 stored, 8 deflate, anything else */
	uint16_t flags;		/* bit 0: encrypted */
	int crc_set;		/* use crc below instead of the data's */
	uint32_t crc;
	int usize_set;		/* use usize below instead of dlen */
	uint64_t usize;
};

static void zw_init(struct zw *z, int zip64)
{
	sbuf_init(&z->out);
	sbuf_init(&z->cd);
	z->n = 0;
	z->zip64 = zip64;
}

/* A central directory entry for a local header at offset. */
static void zw_central(struct zw *z, const struct zent *e, uint32_t crc, uint64_t csize,
		       uint64_t usize, uint64_t off)
{
	struct sbuf *c = &z->cd;

	le32(c, 0x02014b50);
	le16(c, z->zip64 ? 45 : 20);
	le16(c, z->zip64 ? 45 : 20);
	le16(c, e->flags);
	le16(c, e->method);
	le16(c, 0);
	le16(c, 0x21);
	le32(c, crc);
	le32(c, z->zip64 ? 0xFFFFFFFFu : (uint32_t)csize);
	le32(c, z->zip64 ? 0xFFFFFFFFu : (uint32_t)usize);
	le16(c, (uint32_t)strlen(e->name));
	le16(c, z->zip64 ? 28 : 0);
	le16(c, 0);
	le16(c, 0);
	le16(c, 0);
	le32(c, 0);
	le32(c, z->zip64 ? 0xFFFFFFFFu : (uint32_t)off);
	sbuf_addstr(c, e->name);
	if (z->zip64) {
		le16(c, 1);
		le16(c, 24);
		le64(c, usize);
		le64(c, csize);
		le64(c, off);
	}
	z->n++;
}

static uint64_t zw_add(struct zw *z, const struct zent *e)
{
	struct sbuf *o = &z->out;
	uint64_t off = o->len, usize = e->usize_set ? e->usize : e->dlen;
	uint32_t crc = e->crc_set ? e->crc : crc32_of(e->data, e->dlen);

	le32(o, 0x04034b50);
	le16(o, z->zip64 ? 45 : 20);
	le16(o, e->flags);
	le16(o, e->method);
	le16(o, 0);
	le16(o, 0x21);
	le32(o, crc);
	le32(o, z->zip64 ? 0xFFFFFFFFu : (uint32_t)e->dlen);
	le32(o, z->zip64 ? 0xFFFFFFFFu : (uint32_t)usize);
	le16(o, (uint32_t)strlen(e->name));
	le16(o, z->zip64 ? 20 : 0);
	sbuf_addstr(o, e->name);
	if (z->zip64) {
		le16(o, 1);
		le16(o, 16);
		le64(o, usize);
		le64(o, e->dlen);
	}
	sbuf_add(o, e->data, e->dlen);
	zw_central(z, e, crc, e->dlen, usize, off);
	return off;
}

static void zw_finish(struct zw *z)
{
	struct sbuf *o = &z->out;
	uint64_t cd_off = o->len, cd_len = z->cd.len;

	sbuf_add(o, z->cd.buf, z->cd.len);
	if (z->zip64) {
		uint64_t e64 = o->len;

		le32(o, 0x06064b50);
		le64(o, 44);
		le16(o, 45);
		le16(o, 45);
		le32(o, 0);
		le32(o, 0);
		le64(o, z->n);
		le64(o, z->n);
		le64(o, cd_len);
		le64(o, cd_off);
		le32(o, 0x07064b50);
		le32(o, 0);
		le64(o, e64);
		le32(o, 1);
	}
	le32(o, 0x06054b50);
	le16(o, 0);
	le16(o, 0);
	le16(o, z->zip64 ? 0xFFFF : z->n);
	le16(o, z->zip64 ? 0xFFFF : z->n);
	le32(o, z->zip64 ? 0xFFFFFFFFu : (uint32_t)cd_len);
	le32(o, z->zip64 ? 0xFFFFFFFFu : (uint32_t)cd_off);
	le16(o, 0);
}

/* A raw deflate stream (fixed Huffman) of 1 + 258 * k zero bytes: literal 0,
 * then k copies of length 258 at distance 1, 13 bits each (ratio ~159). */
static void deflate_zeros(struct sbuf *b, uint64_t k)
{
	uint64_t acc = 0;
	int nb = 0;
	uint64_t i;

#define PUT(v, n) do { acc |= (uint64_t)(v) << nb; nb += (n); \
		while (nb >= 8) { sbuf_addch(b, (char)(acc & 0xFF)); acc >>= 8; nb -= 8; } } while (0)
	PUT(1, 1);		/* BFINAL */
	PUT(1, 2);		/* BTYPE = fixed */
	PUT(0x0C, 8);		/* literal 0: code 00110000, bit-reversed */
	for (i = 0; i < k; i++) {
		PUT(0xA3, 8);	/* length 258: code 285 = 11000101, reversed */
		PUT(0, 5);	/* distance 1 */
	}
	PUT(0, 7);		/* end of block */
	if (nb)
		sbuf_addch(b, (char)(acc & 0xFF));
#undef PUT
}

static const char container[] =
	"<?xml version=\"1.0\"?><container version=\"1.0\" "
	"xmlns=\"urn:oasis:names:tc:opendocument:xmlns:container\"><rootfiles>"
	"<rootfile full-path=\"content.opf\" media-type=\"application/oebps-package+xml\"/>"
	"</rootfiles></container>";
static const char opf[] =
	"<?xml version=\"1.0\"?><package xmlns=\"http://www.idpf.org/2007/opf\" version=\"2.0\">"
	"<metadata/><manifest><item id=\"c1\" href=\"c1.xhtml\" media-type=\"application/xhtml+xml\"/>"
	"</manifest><spine><itemref idref=\"c1\"/></spine></package>";
static const char chapter[] = "<html><body><p>Good chapter text.</p></body></html>";

static struct zent ent(const char *name, const char *data)
{
	struct zent e;

	memset(&e, 0, sizeof(e));
	e.name = name;
	e.data = data;
	e.dlen = strlen(data);
	return e;
}

/* A small valid EPUB whose chapter entry is ch (NULL: the good one). */
static void epub_with(struct zw *z, const struct zent *ch, const char *opf_text, int zip64)
{
	struct zent e;

	zw_init(z, zip64);
	e = ent("mimetype", "application/epub+zip");
	zw_add(z, &e);
	e = ent("META-INF/container.xml", container);
	zw_add(z, &e);
	e = ent("content.opf", opf_text ? opf_text : opf);
	zw_add(z, &e);
	if (ch) {
		zw_add(z, ch);
	} else {
		e = ent("c1.xhtml", chapter);
		zw_add(z, &e);
	}
}

/* ---- running one case in a child ---- */

struct result {
	int ret;
	int extra_ok;		/* the case's own checks on the output */
	double secs;
	char err[240];
};

typedef int (*case_fn)(struct result *r);

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Extracts a buffer (or a file when path is set), timing the call. */
static struct extract_doc doc;

static int ex_buf(struct result *r, const void *data, size_t len, const char *name,
		  const struct extract_limits *lim)
{
	struct sbuf err;
	double t0;

	sbuf_init(&err);
	extract_doc_init(&doc);
	t0 = now();
	r->ret = extract_buffer(data, len, name, lim, &doc, &err);
	r->secs = now() - t0;
	snprintf(r->err, sizeof(r->err), "%s", err.buf);
	sbuf_release(&err);
	return r->ret;
}

static int ex_file(struct result *r, const char *path)
{
	struct sbuf err;
	double t0;

	sbuf_init(&err);
	extract_doc_init(&doc);
	t0 = now();
	r->ret = extract_file(path, NULL, &doc, &err);
	r->secs = now() - t0;
	snprintf(r->err, sizeof(r->err), "%s", err.buf);
	sbuf_release(&err);
	return r->ret;
}

static int valid_utf8(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, j, k;

	while (i < n) {
		unsigned char c = p[i];

		k = c < 0x80 ? 1 : (c >= 0xC2 && c <= 0xDF) ? 2 : (c >= 0xE0 && c <= 0xEF) ? 3 :
		    (c >= 0xF0 && c <= 0xF4) ? 4 : 0;
		if (!k || i + k > n)
			return 0;
		for (j = 1; j < k; j++)
			if ((p[i + j] & 0xC0) != 0x80)
				return 0;
		i += k;
	}
	return 1;
}

static void run_case(const char *name, case_fn fn, int want)
{
	struct result r;
	struct rusage ru;
	int pfd[2], status = 0;
	pid_t pid;
	ssize_t got;

	memset(&r, 0, sizeof(r));
	if (pipe(pfd)) {
		CHECK(!"pipe");
		return;
	}
	pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		r.extra_ok = 1;
		fn(&r);
		if (write(pfd[1], &r, sizeof(r)) != (ssize_t)sizeof(r))
			_exit(3);
		extract_doc_release(&doc);
		_exit(0);
	}
	close(pfd[1]);
	got = read(pfd[0], &r, sizeof(r));
	close(pfd[0]);
	wait4(pid, &status, 0, &ru);
	printf("# %-22s ret %-4d %7.3f s %7ld KB  %s\n", name, r.ret, r.secs, ru.ru_maxrss, r.err);
	if (got != (ssize_t)sizeof(r) || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "  FAIL %s: child died (status %d)\n", name, status);
		check_cur_failed++;
		return;
	}
	if (r.ret != want) {
		fprintf(stderr, "  FAIL %s: ret %d, want %d (%s)\n", name, r.ret, want, r.err);
		check_cur_failed++;
	}
	if (!r.extra_ok) {
		fprintf(stderr, "  FAIL %s: output check failed\n", name);
		check_cur_failed++;
	}
	if (r.ret && strncmp(r.err, "", 1) == 0) {
		fprintf(stderr, "  FAIL %s: refusal without a reason\n", name);
		check_cur_failed++;
	}
	CHECK(r.secs < TIME_BOUND);
	if (!UNDER_ASAN)
		CHECK(ru.ru_maxrss < RSS_BOUND_KB);
}

/* ---- the cases ---- */

static int c_bomb_single(struct result *r)
{
	struct sbuf d;
	struct zent e;
	struct zw z;

	sbuf_init(&d);
	deflate_zeros(&d, 1040400);		/* 256 MiB of zeros in 1.7 MB */
	memset(&e, 0, sizeof(e));
	e.name = "c1.xhtml", e.data = d.buf, e.dlen = d.len, e.method = 8;
	e.crc_set = 1, e.usize_set = 1, e.usize = 1 + 258ull * 1040400;
	epub_with(&z, &e, NULL, 0);
	zw_finish(&z);
	return ex_buf(r, z.out.buf, z.out.len, "bomb.epub", NULL);
}

static int c_bomb_lying(struct result *r)
{
	struct sbuf d;
	struct zent e;
	struct zw z;

	sbuf_init(&d);
	deflate_zeros(&d, 1040400);
	memset(&e, 0, sizeof(e));
	e.name = "c1.xhtml", e.data = d.buf, e.dlen = d.len, e.method = 8;
	e.crc_set = 1, e.usize_set = 1, e.usize = 5000;	/* declares 5000 bytes */
	epub_with(&z, &e, NULL, 0);
	zw_finish(&z);
	return ex_buf(r, z.out.buf, z.out.len, "bomb.epub", NULL);
}

static int c_bomb_ratio(struct result *r)
{
	struct sbuf d;
	struct zent e;
	struct zw z;

	sbuf_init(&d);
	deflate_zeros(&d, 32000);		/* 8 MB, within the byte budget */
	memset(&e, 0, sizeof(e));
	e.name = "c1.xhtml", e.data = d.buf, e.dlen = d.len, e.method = 8;
	e.crc_set = 1, e.usize_set = 1, e.usize = 1 + 258ull * 32000;
	epub_with(&z, &e, NULL, 0);
	zw_finish(&z);
	return ex_buf(r, z.out.buf, z.out.len, "ratio.epub", NULL);
}

/* Many central entries sharing one local entry's data. */
static int c_bomb_overlap(struct result *r)
{
	struct sbuf d, spine, man, o;
	struct zent e;
	struct zw z;
	uint64_t off;
	int i;

	sbuf_init(&d);
	sbuf_init(&spine);
	sbuf_init(&man);
	sbuf_init(&o);
	deflate_zeros(&d, 4000);		/* 1 MB each */
	for (i = 0; i < 1000; i++) {
		sbuf_addf(&man, "<item id=\"c%d\" href=\"c%d.xhtml\" media-type=\"application/xhtml+xml\"/>", i, i);
		sbuf_addf(&spine, "<itemref idref=\"c%d\"/>", i);
	}
	sbuf_addf(&o, "<package xmlns=\"http://www.idpf.org/2007/opf\"><manifest>%s</manifest>"
		  "<spine>%s</spine></package>", man.buf, spine.buf);
	memset(&e, 0, sizeof(e));
	e.name = "c0.xhtml", e.data = d.buf, e.dlen = d.len, e.method = 8;
	e.crc_set = 1, e.usize_set = 1, e.usize = 1 + 258ull * 4000;
	epub_with(&z, &e, o.buf, 0);
	off = z.out.len - d.len - 30 - strlen("c0.xhtml");
	for (i = 1; i < 1000; i++) {
		char nm[32];

		snprintf(nm, sizeof(nm), "c%d.xhtml", i);
		e.name = nm;
		zw_central(&z, &e, 0, d.len, e.usize, off);
	}
	zw_finish(&z);
	return ex_buf(r, z.out.buf, z.out.len, "overlap.epub", NULL);
}

static int c_truncated(struct result *r)
{
	struct zw z;

	epub_with(&z, NULL, NULL, 0);
	zw_finish(&z);
	return ex_buf(r, z.out.buf, z.out.len * 6 / 10, "trunc.epub", NULL);
}

static int c_corrupt_deflate(struct result *r)
{
	static char junk[4096];
	struct zent e;
	struct zw z;
	size_t i;

	for (i = 0; i < sizeof(junk); i++)
		junk[i] = (char)(i * 2654435761u >> 13);
	e = ent("c1.xhtml", "");
	e.data = junk, e.dlen = sizeof(junk), e.method = 8, e.usize_set = 1, e.usize = 20000;
	epub_with(&z, &e, NULL, 0);
	zw_finish(&z);
	return ex_buf(r, z.out.buf, z.out.len, "corrupt.epub", NULL);
}

static int c_lying_crc(struct result *r)
{
	struct zent e = ent("c1.xhtml", chapter);
	struct zw z;

	e.crc_set = 1, e.crc = 0xDEADBEEF;
	epub_with(&z, &e, NULL, 0);
	zw_finish(&z);
	return ex_buf(r, z.out.buf, z.out.len, "crc.epub", NULL);
}

static int c_lying_size(struct result *r)
{
	struct zent e = ent("c1.xhtml", chapter);
	struct zw z;

	e.usize_set = 1, e.usize = 100000;	/* stored, but claims more */
	epub_with(&z, &e, NULL, 0);
	zw_finish(&z);
	return ex_buf(r, z.out.buf, z.out.len, "size.epub", NULL);
}

static int c_zip64(struct result *r)
{
	struct zw z;

	epub_with(&z, NULL, NULL, 1);
	zw_finish(&z);
	ex_buf(r, z.out.buf, z.out.len, "zip64.epub", NULL);
	r->extra_ok = !r->ret && !strcmp(doc.text.buf, "Good chapter text.");
	return r->ret;
}

static int c_zip64_huge(struct result *r)
{
	struct zent e = ent("c1.xhtml", chapter);
	struct zw z;

	e.usize_set = 1, e.usize = 1ull << 62, e.method = 8;
	epub_with(&z, &e, NULL, 1);
	zw_finish(&z);
	return ex_buf(r, z.out.buf, z.out.len, "zip64.epub", NULL);
}

static int c_traversal(struct result *r)
{
	static const char o[] =
		"<package xmlns=\"http://www.idpf.org/2007/opf\"><manifest>"
		"<item id=\"a\" href=\"../evil.xhtml\" media-type=\"application/xhtml+xml\"/>"
		"<item id=\"b\" href=\"/etc/passwd\" media-type=\"application/xhtml+xml\"/>"
		"<item id=\"c\" href=\"file:///etc/passwd\" media-type=\"application/xhtml+xml\"/>"
		"<item id=\"c1\" href=\"c1.xhtml\" media-type=\"application/xhtml+xml\"/></manifest>"
		"<spine><itemref idref=\"a\"/><itemref idref=\"b\"/><itemref idref=\"c\"/>"
		"<itemref idref=\"c1\"/></spine></package>";
	struct zent e;
	struct zw z;

	epub_with(&z, NULL, o, 0);
	e = ent("../evil.xhtml", "<p>EVIL</p>");
	zw_add(&z, &e);
	e = ent("/etc/passwd", "<p>EVIL</p>");
	zw_add(&z, &e);
	zw_finish(&z);
	ex_buf(r, z.out.buf, z.out.len, "trav.epub", NULL);
	r->extra_ok = !r->ret && !strcmp(doc.text.buf, "Good chapter text.") && doc.warnings.n >= 2;
	return r->ret;
}

static int c_traversal_fallback(struct result *r)
{
	struct zent e;
	struct zw z;

	zw_init(&z, 0);
	e = ent("mimetype", "application/epub+zip");
	zw_add(&z, &e);
	e = ent("../../evil.xhtml", "<p>EVIL</p>");
	zw_add(&z, &e);
	e = ent("/abs.html", "<p>EVIL</p>");
	zw_add(&z, &e);
	e = ent("ok.html", "<p>fine</p>");
	zw_add(&z, &e);
	zw_finish(&z);
	ex_buf(r, z.out.buf, z.out.len, "trav2.epub", NULL);
	r->extra_ok = !r->ret && !strcmp(doc.text.buf, "fine");
	return r->ret;
}

static int c_encrypted_entry(struct result *r)
{
	struct zent e = ent("c1.xhtml", chapter);
	struct zw z;

	e.flags = 1;
	epub_with(&z, &e, NULL, 0);
	zw_finish(&z);
	return ex_buf(r, z.out.buf, z.out.len, "enc.epub", NULL);
}

static int encryption_xml(struct result *r, const char *alg)
{
	struct sbuf x;
	struct zent e;
	struct zw z;

	sbuf_init(&x);
	sbuf_addf(&x, "<encryption xmlns=\"urn:oasis:names:tc:opendocument:xmlns:container\" "
		  "xmlns:enc=\"http://www.w3.org/2001/04/xmlenc#\"><enc:EncryptedData>"
		  "<enc:EncryptionMethod Algorithm=\"%s\"/><enc:CipherData>"
		  "<enc:CipherReference URI=\"c1.xhtml\"/></enc:CipherData></enc:EncryptedData></encryption>", alg);
	epub_with(&z, NULL, NULL, 0);
	e = ent("META-INF/encryption.xml", x.buf);
	zw_add(&z, &e);
	zw_finish(&z);
	return ex_buf(r, z.out.buf, z.out.len, "drm.epub", NULL);
}

static int c_drm(struct result *r)
{
	return encryption_xml(r, "http://www.w3.org/2001/04/xmlenc#aes128-cbc");
}

static int c_font_obfuscation(struct result *r)
{
	return encryption_xml(r, "http://www.idpf.org/2008/embedding");
}

static int c_bad_method(struct result *r)
{
	struct zent e = ent("c1.xhtml", chapter);
	struct zw z;

	e.method = 97;
	epub_with(&z, &e, NULL, 0);
	zw_finish(&z);
	return ex_buf(r, z.out.buf, z.out.len, "method.epub", NULL);
}

static const char laughs[] =
	"<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\">"
	"<!ENTITY lol1 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">"
	"<!ENTITY lol2 \"&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;\">"
	"<!ENTITY lol3 \"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;\">"
	"<!ENTITY lol4 \"&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;\">"
	"<!ENTITY lol5 \"&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;\">"
	"<!ENTITY lol6 \"&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;\">"
	"<!ENTITY lol7 \"&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;\">"
	"<!ENTITY lol8 \"&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;\">"
	"<!ENTITY lol9 \"&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;\">]>";

static int c_laughs_opf(struct result *r)
{
	struct sbuf o;
	struct zw z;

	sbuf_init(&o);
	sbuf_addf(&o, "%s<package xmlns=\"http://www.idpf.org/2007/opf\"><metadata><title>&lol9;</title>"
		  "</metadata><manifest><item id=\"c1\" href=\"c1.xhtml\" media-type=\"application/xhtml+xml\"/>"
		  "</manifest><spine><itemref idref=\"c1\"/></spine></package>", laughs);
	epub_with(&z, NULL, o.buf, 0);
	zw_finish(&z);
	ex_buf(r, z.out.buf, z.out.len, "lol.epub", NULL);
	r->extra_ok = !r->ret && !strcmp(doc.text.buf, "Good chapter text.") && !doc.title;
	return r->ret;
}

static int c_laughs_xhtml(struct result *r)
{
	struct sbuf c;
	struct zent e;
	struct zw z;

	sbuf_init(&c);
	sbuf_addf(&c, "%s<html><body><p>a &lol9; b</p></body></html>", laughs);
	e = ent("c1.xhtml", c.buf);
	epub_with(&z, &e, NULL, 0);
	zw_finish(&z);
	ex_buf(r, z.out.buf, z.out.len, "lol.epub", NULL);
	r->extra_ok = !r->ret && doc.text.len < 4096;
	return r->ret;
}

static int c_laughs_html(struct result *r)
{
	struct sbuf c;

	sbuf_init(&c);
	sbuf_addf(&c, "%s<html><body><p>a &lol9; b</p></body></html>", laughs);
	ex_buf(r, c.buf, c.len, "lol.html", NULL);
	r->extra_ok = !r->ret && doc.text.len < 4096;
	return r->ret;
}

static const char xxe[] =
	"<?xml version=\"1.0\"?><!DOCTYPE x [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">"
	"<!ENTITY % pe SYSTEM \"http://127.0.0.1:9/evil.dtd\"> %pe;]>";

static int c_xxe_xhtml(struct result *r)
{
	struct sbuf c;
	struct zent e;
	struct zw z;

	sbuf_init(&c);
	sbuf_addf(&c, "%s<html><body><p>x &xxe; y</p></body></html>", xxe);
	e = ent("c1.xhtml", c.buf);
	epub_with(&z, &e, NULL, 0);
	zw_finish(&z);
	ex_buf(r, z.out.buf, z.out.len, "xxe.epub", NULL);
	r->extra_ok = !r->ret && !strstr(doc.text.buf, "root:");
	return r->ret;
}

static int c_xxe_opf(struct result *r)
{
	struct sbuf o;
	struct zw z;

	sbuf_init(&o);
	sbuf_addf(&o, "%s<package xmlns=\"http://www.idpf.org/2007/opf\"><metadata><title>&xxe;</title>"
		  "</metadata><manifest><item id=\"c1\" href=\"c1.xhtml\" media-type=\"application/xhtml+xml\"/>"
		  "</manifest><spine><itemref idref=\"c1\"/></spine></package>", xxe);
	epub_with(&z, NULL, o.buf, 0);
	zw_finish(&z);
	ex_buf(r, z.out.buf, z.out.len, "xxe.epub", NULL);
	r->extra_ok = !r->ret && !(doc.title && strstr(doc.title, "root:")) &&
		      !strstr(doc.text.buf, "root:");
	return r->ret;
}

static void nest(struct sbuf *s, const char *open, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sbuf_addstr(s, open);
}

static int c_deep_html(struct result *r)
{
	struct sbuf c;

	sbuf_init(&c);
	sbuf_addstr(&c, "<html><body>");
	nest(&c, "<div>", 1000000);
	sbuf_addstr(&c, "deep");
	return ex_buf(r, c.buf, c.len, "deep.html", NULL);
}

static int c_deep_xhtml(struct result *r)
{
	struct sbuf c;
	struct zent e;
	struct zw z;

	sbuf_init(&c);
	sbuf_addstr(&c, "<html><body>");
	nest(&c, "<span>", 1000000);
	e = ent("c1.xhtml", c.buf);
	epub_with(&z, &e, NULL, 0);
	zw_finish(&z);
	return ex_buf(r, z.out.buf, z.out.len, "deep.epub", NULL);
}

static int c_deep_opf(struct result *r)
{
	struct sbuf o;
	struct zw z;

	sbuf_init(&o);
	sbuf_addstr(&o, "<package xmlns=\"http://www.idpf.org/2007/opf\"><metadata>");
	nest(&o, "<x>", 1000000);
	epub_with(&z, NULL, o.buf, 0);
	zw_finish(&z);
	ex_buf(r, z.out.buf, z.out.len, "deep.epub", NULL);
	r->extra_ok = !r->ret && !strcmp(doc.text.buf, "Good chapter text.");
	return r->ret;
}

static int c_invalid_utf8(struct result *r)
{
	static char b[200000];
	size_t i;
	uint32_t s = 7;

	for (i = 0; i < sizeof(b); i++) {
		s = s * 1103515245u + 12345u;
		b[i] = (char)((s >> 16) % 3 ? 'a' + (s >> 20) % 26 : 0x80 + (s >> 20) % 128);
	}
	ex_buf(r, b, sizeof(b), "bad.txt", NULL);
	r->extra_ok = !r->ret && valid_utf8(doc.text.buf, doc.text.len);
	return r->ret;
}

static int c_invalid_utf16(struct result *r)
{
	static char b[100001];
	size_t i;
	uint32_t s = 9;

	b[0] = (char)0xFF, b[1] = (char)0xFE;
	for (i = 2; i < sizeof(b); i++) {
		s = s * 1103515245u + 12345u;
		b[i] = (char)(i & 1 ? (s >> 16) % 5 ? 0xD8 + (s >> 20) % 8 : 0 : (s >> 16));
	}
	ex_buf(r, b, sizeof(b), "bad16.txt", NULL);
	r->extra_ok = !r->ret && valid_utf8(doc.text.buf, doc.text.len);
	return r->ret;
}

static void path_in_tmp(char *p, size_t n, const char *name)
{
	snprintf(p, n, "%s/%s", tmpdir, name);
}

static int c_zero_byte(struct result *r)
{
	char p[256];
	int fd;

	path_in_tmp(p, sizeof(p), "empty.txt");
	fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	close(fd);
	return ex_file(r, p);
}

static int c_binary_txt(struct result *r)
{
	static unsigned char b[65536];
	char p[256];
	size_t i;
	int fd;

	memcpy(b, "\x7f" "ELF\2\1\1\0", 8);
	for (i = 8; i < sizeof(b); i++)
		b[i] = (unsigned char)(i * 131 + (i >> 7));
	path_in_tmp(p, sizeof(p), "binary.txt");
	fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (write(fd, b, sizeof(b)) != (ssize_t)sizeof(b))
		r->extra_ok = 0;
	close(fd);
	return ex_file(r, p);
}

static int sparse(struct result *r, const char *name, const char *prefix)
{
	char p[256];
	int fd;

	path_in_tmp(p, sizeof(p), name);
	fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	for (int i = 0; prefix && i < 200; i++)	/* more than the sniffed prefix */
		if (write(fd, prefix, strlen(prefix)) != (ssize_t)strlen(prefix))
			r->extra_ok = 0;
	if (ftruncate(fd, 2ll << 30))
		r->extra_ok = 0;
	close(fd);
	ex_file(r, p);
	unlink(p);
	return r->ret;
}

static int c_sparse_2g(struct result *r)
{
	return sparse(r, "huge.txt", NULL);
}

static int c_sparse_2g_text(struct result *r)
{
	return sparse(r, "huge2.txt", "Chapter one. It was a dark and stormy night.\n");
}

static int c_fifo(struct result *r)
{
	char p[256];

	path_in_tmp(p, sizeof(p), "fifo.txt");
	if (mkfifo(p, 0644))
		r->extra_ok = 0;
	return ex_file(r, p);
}

static int c_device(struct result *r)
{
	char p[256];

	path_in_tmp(p, sizeof(p), "zero.epub");
	if (symlink("/dev/zero", p))
		r->extra_ok = 0;
	return ex_file(r, p);
}

static int c_symlink_loop(struct result *r)
{
	char a[256], b[256];

	path_in_tmp(a, sizeof(a), "loop-a.txt");
	path_in_tmp(b, sizeof(b), "loop-b.txt");
	if (symlink(b, a) || symlink(a, b))
		r->extra_ok = 0;
	return ex_file(r, a);
}

static int c_directory(struct result *r)
{
	char p[256];

	path_in_tmp(p, sizeof(p), "dir.epub");
	if (mkdir(p, 0755))
		r->extra_ok = 0;
	return ex_file(r, p);
}

static int c_many_entries(struct result *r)
{
	struct zent e;
	struct zw z;
	char nm[32];
	int i;

	epub_with(&z, NULL, NULL, 0);
	for (i = 0; i < 10001; i++) {
		snprintf(nm, sizeof(nm), "f%d", i);
		e = ent(nm, "x");
		zw_add(&z, &e);
	}
	zw_finish(&z);
	return ex_buf(r, z.out.buf, z.out.len, "many.epub", NULL);
}

static int c_time_limit(struct result *r)
{
	struct extract_limits lim;
	struct zw z;

	extract_limits_default(&lim);
	lim.max_millis = 0;
	epub_with(&z, NULL, NULL, 0);
	zw_finish(&z);
	return ex_buf(r, z.out.buf, z.out.len, "slow.epub", &lim);
}

static int c_text_limit(struct result *r)
{
	struct extract_limits lim;
	static char b[5000];

	memset(b, 'a', sizeof(b));
	extract_limits_default(&lim);
	lim.max_text_bytes = 1000;
	return ex_buf(r, b, sizeof(b), "long.txt", &lim);
}

static int c_not_zip_epub(struct result *r)
{
	static const char t[] = "this is not a zip archive at all";

	return ex_buf(r, t, sizeof(t) - 1, "fake.epub", NULL);
}

static void test_archives(void)
{
	run_case("zip bomb (one entry)", c_bomb_single, -EFBIG);
	run_case("zip bomb (lying size)", c_bomb_lying, -EBADMSG);
	run_case("zip bomb (ratio)", c_bomb_ratio, -EFBIG);
	run_case("zip bomb (overlapping)", c_bomb_overlap, -EBADMSG);
	run_case("truncated zip", c_truncated, -EBADMSG);
	run_case("corrupt deflate data", c_corrupt_deflate, -EBADMSG);
	run_case("lying CRC", c_lying_crc, -EBADMSG);
	run_case("lying size", c_lying_size, -EBADMSG);
	run_case("ZIP64 archive", c_zip64, 0);
	run_case("ZIP64 2^62 bytes", c_zip64_huge, -EFBIG);
	run_case("../ and absolute hrefs", c_traversal, 0);
	run_case("../ and absolute names", c_traversal_fallback, 0);
	run_case("encrypted entry", c_encrypted_entry, -EACCES);
	run_case("DRM encryption.xml", c_drm, -EACCES);
	run_case("font obfuscation only", c_font_obfuscation, 0);
	run_case("unsupported method", c_bad_method, -EBADMSG);
	run_case("10001 entries", c_many_entries, -EFBIG);
	run_case("not a zip, named .epub", c_not_zip_epub, -EBADMSG);
	run_case("time limit", c_time_limit, -ETIMEDOUT);
}

static void test_markup(void)
{
	run_case("billion laughs (OPF)", c_laughs_opf, 0);
	run_case("billion laughs (XHTML)", c_laughs_xhtml, 0);
	run_case("billion laughs (HTML)", c_laughs_html, 0);
	run_case("external entity (XHTML)", c_xxe_xhtml, 0);
	run_case("external entity (OPF)", c_xxe_opf, 0);
	run_case("10^6 nesting (HTML)", c_deep_html, -EFBIG);
	run_case("10^6 nesting (XHTML)", c_deep_xhtml, -EFBIG);
	run_case("10^6 nesting (OPF)", c_deep_opf, 0);
}

static void test_text_and_files(void)
{
	run_case("invalid UTF-8", c_invalid_utf8, 0);
	run_case("invalid UTF-16", c_invalid_utf16, 0);
	run_case("text over the limit", c_text_limit, -EFBIG);
	run_case("zero-byte file", c_zero_byte, EXTRACT_NOTBOOK);
	run_case("binary named .txt", c_binary_txt, EXTRACT_NOTBOOK);
	run_case("2 GB sparse .txt", c_sparse_2g, EXTRACT_NOTBOOK);
	run_case("2 GB .txt, text head", c_sparse_2g_text, -EFBIG);
	run_case("FIFO named .txt", c_fifo, EXTRACT_NOTBOOK);
	run_case("device named .epub", c_device, EXTRACT_NOTBOOK);
	run_case("symlink loop", c_symlink_loop, -ELOOP);
	run_case("directory named .epub", c_directory, EXTRACT_NOTBOOK);
}

int main(void)
{
	tmpdir = check_tmpdir();
	if (!tmpdir)
		return 1;
	RUN(test_archives);
	RUN(test_markup);
	RUN(test_text_and_files);
	return CHECK_DONE();
}
