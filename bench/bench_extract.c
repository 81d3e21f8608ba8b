/* bench_extract.c - extraction + normalisation throughput (MB/s per core).
 *
 * Usage: build/bench/bench_extract [BOOKS_DIR]   (default $SIMBOOK_BOOKS)
 * Times are CPU time of this process (MB/s per core, insensitive to other
 * load on the machine).
 * Reads the .txt files of BOOKS_DIR/texts and the .epub files of BOOKS_DIR/epub (a
 * synthetic text and EPUB when absent), then times, over at least 1 s each:
 *   memcpy of the same bytes (the baseline, measured in the same run),
 *   txt: extract_buffer (decode) alone, norm_book alone, and both;
 *   epub: inflating every entry with libzip alone (baseline), and
 *         extract_buffer + norm_book, in MB/s of extracted text;
 *   per format, every file of BOOKS_DIR/formats and BOOKS_DIR/epub by the
 *         format it is read as: extract_buffer + norm_book, in MB/s of the
 *         files and of their extracted text.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zip.h>

#include <poppler.h>

#include "extract.h"
#include "memtune.h"
#include "norm.h"
#include "sbuf.h"

struct file {
	char *data;
	size_t len;
	char name[256];
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static size_t load_dir(const char *dir, const char *suffix, struct file *f, size_t max)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		char path[4096];
		size_t l = strlen(de->d_name);
		FILE *fp;
		long sz;

		if (de->d_name[0] == '.' || l < strlen(suffix) ||
		    strcmp(de->d_name + l - strlen(suffix), suffix))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		fp = fopen(path, "rb");
		if (!fp)
			continue;
		fseek(fp, 0, SEEK_END);
		sz = ftell(fp);
		fseek(fp, 0, SEEK_SET);
		f[n].data = malloc((size_t)sz + 1);
		if (f[n].data && fread(f[n].data, 1, (size_t)sz, fp) == (size_t)sz) {
			f[n].len = (size_t)sz;
			snprintf(f[n].name, sizeof(f[n].name), "%s", de->d_name);
			n++;
		} else {
			free(f[n].data);
		}
		fclose(fp);
	}
	closedir(d);
	return n;
}

/* About 2 MB of English-like text with some accents and CRLF. */
static void synth_text(struct file *f)
{
	static const char *const w[] = { "the", "whale", "Ahab", "sea", "caf\xC3\xA9", "don't",
		"and", "of", "ship", "\xE2\x80\x9C" "Call", "me", "Ishmael.\xE2\x80\x9D", "years", "ago" };
	struct sbuf sb;
	uint32_t s = 1;
	size_t i;

	sbuf_init(&sb);
	for (i = 0; sb.len < (2u << 20); i++) {
		s = s * 1103515245u + 12345u;
		sbuf_addstr(&sb, w[(s >> 16) % 14]);
		sbuf_addstr(&sb, i % 12 == 11 ? "\r\n" : " ");
	}
	f->data = sbuf_detach(&sb, &f->len);
	snprintf(f->name, sizeof(f->name), "synthetic.txt");
}

/* A synthetic EPUB of the text, in chapters, built with libzip. */
static void synth_epub(const struct file *txt, struct file *f)
{
	zip_source_t *src = zip_source_buffer_create(NULL, 0, 0, NULL);
	zip_t *za;
	struct sbuf opf, spine, ch;
	size_t off = 0, k = 0;
	char name[64];

	zip_source_keep(src);
	za = zip_open_from_source(src, ZIP_TRUNCATE, NULL);
	sbuf_init(&opf);
	sbuf_init(&spine);
	sbuf_init(&ch);
	zip_file_add(za, "mimetype", zip_source_buffer(za, "application/epub+zip", 20, 0), 0);
	zip_set_file_compression(za, 0, ZIP_CM_STORE, 0);
	zip_file_add(za, "META-INF/container.xml", zip_source_buffer(za,
		"<?xml version=\"1.0\"?><container xmlns=\"urn:oasis:names:tc:opendocument:xmlns:container\" version=\"1.0\">"
		"<rootfiles><rootfile full-path=\"OEBPS/content.opf\" media-type=\"application/oebps-package+xml\"/>"
		"</rootfiles></container>", 199, 0), 0);
	sbuf_addstr(&opf, "<?xml version=\"1.0\"?><package xmlns=\"http://www.idpf.org/2007/opf\" version=\"2.0\">"
		    "<metadata xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><dc:title>S</dc:title></metadata><manifest>");
	while (off < txt->len) {
		size_t n = txt->len - off < 100000 ? txt->len - off : 100000;
		char *buf;

		sbuf_setlen(&ch, 0);
		sbuf_addstr(&ch, "<?xml version=\"1.0\" encoding=\"utf-8\"?><html xmlns=\"http://www.w3.org/1999/xhtml\">"
			    "<head><title>c</title><style>p{}</style></head><body><h1>Chapter</h1><p>");
		sbuf_add(&ch, txt->data + off, n);
		sbuf_addstr(&ch, "</p></body></html>");
		off += n;
		snprintf(name, sizeof(name), "OEBPS/c%zu.xhtml", k);
		buf = sbuf_detach(&ch, NULL);
		zip_file_add(za, name, zip_source_buffer(za, buf, strlen(buf), 1), 0);
		sbuf_addf(&opf, "<item id=\"c%zu\" href=\"c%zu.xhtml\" media-type=\"application/xhtml+xml\"/>", k, k);
		sbuf_addf(&spine, "<itemref idref=\"c%zu\"/>", k);
		k++;
	}
	sbuf_addf(&opf, "</manifest><spine>%s</spine></package>", spine.buf);
	zip_file_add(za, "OEBPS/content.opf", zip_source_buffer(za, sbuf_detach(&opf, NULL), opf.len ? opf.len : 0, 1), 0);
	zip_close(za);
	zip_source_open(src);
	zip_source_seek(src, 0, SEEK_END);
	f->len = (size_t)zip_source_tell(src);
	zip_source_seek(src, 0, SEEK_SET);
	f->data = malloc(f->len);
	zip_source_read(src, f->data, (zip_uint64_t)f->len);
	zip_source_close(src);
	zip_source_free(src);
	sbuf_release(&spine);
	snprintf(f->name, sizeof(f->name), "synthetic.epub");
}

static size_t inflate_all(const struct file *f)
{
	zip_source_t *src = zip_source_buffer_create(f->data, f->len, 0, NULL);
	zip_t *za = zip_open_from_source(src, ZIP_RDONLY, NULL);
	static char buf[65536];
	zip_int64_t i, n;
	size_t total = 0;

	if (!za) {
		zip_source_free(src);
		return 0;
	}
	for (i = 0; i < zip_get_num_entries(za, 0); i++) {
		const char *nm = zip_get_name(za, (zip_uint64_t)i, 0);
		zip_file_t *zf;
		size_t l = nm ? strlen(nm) : 0;

		/* only what extraction reads: markup and package files */
		if (!nm || !(strstr(nm, "htm") || (l > 4 && !strcmp(nm + l - 4, ".opf")) || strstr(nm, "META-INF")))
			continue;
		zf = zip_fopen_index(za, (zip_uint64_t)i, 0);
		while (zf && (n = zip_fread(zf, buf, sizeof(buf))) > 0)
			total += (size_t)n;
		if (zf)
			zip_fclose(zf);
	}
	zip_discard(za);
	return total;
}

enum mode { M_MEMCPY, M_DECODE, M_NORM, M_BOTH, M_INFLATE };

/* Runs mode over all files repeatedly for >= 1 s; returns MB/s of the
 * returned byte count per pass (*bytes). */
static double run(enum mode m, struct file *f, size_t n, struct extract_doc *pre, size_t *bytes)
{
	double t0 = now(), t;
	size_t passes = 0, i, per = 0;
	static char *sink;
	size_t maxlen = 0;

	for (i = 0; i < n; i++)
		maxlen = f[i].len > maxlen ? f[i].len : maxlen;
	if (m == M_MEMCPY)
		sink = realloc(sink, maxlen);
	do {
		per = 0;
		for (i = 0; i < n; i++) {
			struct extract_doc d;
			struct norm_doc nd;

			switch (m) {
			case M_MEMCPY:
				memcpy(sink, f[i].data, f[i].len);
				per += f[i].len;
				break;
			case M_INFLATE:
				per += inflate_all(&f[i]);
				break;
			case M_DECODE:
				extract_doc_init(&d);
				extract_buffer(f[i].data, f[i].len, f[i].name, NULL, &d, NULL);
				per += f[i].len;
				extract_doc_release(&d);
				break;
			case M_NORM:
				norm_doc_init(&nd);
				extract_normalize(&pre[i], &nd);
				per += pre[i].text.len;
				norm_doc_release(&nd);
				break;
			case M_BOTH:
				extract_doc_init(&d);
				norm_doc_init(&nd);
				if (!extract_buffer(f[i].data, f[i].len, f[i].name, NULL, &d, NULL))
					extract_normalize(&d, &nd);
				per += strstr(f[i].name, ".epub") ? d.text.len : f[i].len;
				norm_doc_release(&nd);
				extract_doc_release(&d);
				break;
			}
		}
		passes++;
		t = now() - t0;
	} while (t < 1.0);
	*bytes = per;
	return (double)per * (double)passes / t / 1e6;
}

/* extract_buffer + norm_book of the files of format fmt, over >= 1 s:
 * MB/s of the files (*in) and of their text (*out); 0 files: returns 0. */
static size_t format_rate(enum extract_format fmt, const struct file *f, size_t n, double *in,
			  double *out)
{
	double t0 = now(), t;
	size_t passes = 0, i, nf = 0, fin = 0, fout = 0;

	do {
		nf = fin = fout = 0;
		for (i = 0; i < n; i++) {
			struct extract_doc d;
			struct norm_doc nd;

			if (extract_sniff(f[i].data, f[i].len < 4096 ? f[i].len : 4096, f[i].name) != fmt)
				continue;
			extract_doc_init(&d);
			norm_doc_init(&nd);
			if (!extract_buffer(f[i].data, f[i].len, f[i].name, NULL, &d, NULL)) {
				extract_normalize(&d, &nd);
				nf++;
				fin += f[i].len;
				fout += d.text.len;
			}
			norm_doc_release(&nd);
			extract_doc_release(&d);
		}
		if (!nf)
			return 0;
		passes++;
		t = now() - t0;
	} while (t < 1.0);
	*in = (double)fin * (double)passes / t / 1e6;
	*out = (double)fout * (double)passes / t / 1e6;
	return nf;
}

/* Each file of format fmt alone, extract_buffer + extract_normalize, the
 * best of 40 runs in CPU time: on a loaded machine the best run is steadier
 * than an average.  Prints one line per file and the total. */
static void format_best(enum extract_format fmt, const struct file *f, size_t n)
{
	double sum = 0.0;
	size_t i, text = 0;
	int r;

	for (i = 0; i < n; i++) {
		double best = 1e9, t0, t;
		size_t tl = 0;

		if (extract_sniff(f[i].data, f[i].len < 4096 ? f[i].len : 4096, f[i].name) != fmt)
			continue;
		for (r = 0; r < 40; r++) {
			struct extract_doc d;
			struct norm_doc nd;

			extract_doc_init(&d);
			norm_doc_init(&nd);
			t0 = now();
			if (!extract_buffer(f[i].data, f[i].len, f[i].name, NULL, &d, NULL))
				extract_normalize(&d, &nd);
			t = now() - t0;
			tl = d.text.len;
			norm_doc_release(&nd);
			extract_doc_release(&d);
			if (t < best)
				best = t;
		}
		printf("    %-40.40s %8.2f ms %7.1f MB/s of text\n", f[i].name, best * 1e3,
		       (double)tl / best / 1e6);
		sum += best;
		text += tl;
	}
	if (sum > 0.0)
		printf("    best of 40, all files: %.2f ms, %.1f MB/s of text\n", sum * 1e3,
		       (double)text / sum / 1e6);
}

/* What pdf.c asks of poppler, alone: every page's text and its character
 * boxes, over >= 1 s.  The library's own cost is the floor of the PDF
 * reader's speed; MB/s of the PDF files, 0 without one. */
static double poppler_rate(const struct file *f, size_t n)
{
	double t0 = now(), t;
	size_t passes = 0, i, fin = 0;

	do {
		fin = 0;
		for (i = 0; i < n; i++) {
			GBytes *b;
			PopplerDocument *pd;
			int np, k;

			if (extract_sniff(f[i].data, f[i].len < 4096 ? f[i].len : 4096, f[i].name) !=
			    EXTRACT_FMT_PDF)
				continue;
			b = g_bytes_new_static(f[i].data, f[i].len);
			pd = poppler_document_new_from_bytes(b, NULL, NULL);
			g_bytes_unref(b);
			if (!pd)
				continue;
			np = poppler_document_get_n_pages(pd);
			for (k = 0; k < np; k++) {
				PopplerPage *pg = poppler_document_get_page(pd, k);
				PopplerRectangle *r = NULL;
				guint nr = 0;

				if (!pg)
					continue;
				g_free(poppler_page_get_text(pg));
				poppler_page_get_text_layout(pg, &r, &nr);
				g_free(r);
				g_object_unref(pg);
			}
			g_object_unref(pd);
			fin += f[i].len;
		}
		if (!fin)
			return 0.0;
		passes++;
		t = now() - t0;
	} while (t < 1.0);
	return (double)fin * (double)passes / t / 1e6;
}

int main(int argc, char **argv)
{
	const char *books = argc > 1 ? argv[1] : getenv("SIMBOOK_BOOKS");
	const char *only = argc > 2 ? argv[2] : NULL;	/* one format (for profiling) */
	static struct file txt[256], epub[64];
	struct extract_doc *pre = NULL;
	char dir[4096];
	size_t nt = 0, ne = 0, i, bytes;
	double base, dec, nrm, both, infl, ep;

	memtune_init();		/* as the programs read books */
	if (books) {
		snprintf(dir, sizeof(dir), "%s/texts", books);
		nt = load_dir(dir, ".txt", txt, 256);
		snprintf(dir, sizeof(dir), "%s/epub", books);
		ne = load_dir(dir, ".epub", epub, 64);
	}
	if (!nt)
		synth_text(&txt[nt++]);
	if (!ne)
		synth_epub(&txt[0], &epub[ne++]);
	if (only && books)
		goto formats;
	pre = calloc(nt, sizeof(*pre));
	for (i = 0; i < nt; i++) {
		extract_doc_init(&pre[i]);
		extract_buffer(txt[i].data, txt[i].len, txt[i].name, NULL, &pre[i], NULL);
	}
	base = run(M_MEMCPY, txt, nt, NULL, &bytes);
	printf("txt:  %zu files, %.1f MB\n", nt, bytes / 1e6);
	printf("  memcpy (baseline)          %8.0f MB/s\n", base);
	dec = run(M_DECODE, txt, nt, NULL, &bytes);
	printf("  decode (extract_buffer)    %8.0f MB/s  (%.3f of memcpy)\n", dec, dec / base);
	nrm = run(M_NORM, txt, nt, pre, &bytes);
	printf("  normalise (norm_book)      %8.0f MB/s  (%.3f of memcpy)\n", nrm, nrm / base);
	both = run(M_BOTH, txt, nt, NULL, &bytes);
	printf("  decode + normalise         %8.0f MB/s  (%.3f of memcpy)  target >= 300\n", both, both / base);
	infl = run(M_INFLATE, epub, ne, NULL, &bytes);
	printf("epub: %zu files, %.1f MB inflated per pass (markup + package files)\n", ne, bytes / 1e6);
	printf("  inflate only (baseline)    %8.0f MB/s of inflated bytes\n", infl);
	ep = run(M_BOTH, epub, ne, NULL, &bytes);
	printf("  extract + normalise        %8.0f MB/s of extracted text (%.1f MB)  target >= 60\n",
	       ep, bytes / 1e6);
formats:
	if (books) {
		static struct file fm[64 + 64];
		static const enum extract_format fmts[] = {
			EXTRACT_FMT_EPUB, EXTRACT_FMT_MOBI, EXTRACT_FMT_PDF, EXTRACT_FMT_FB2,
			EXTRACT_FMT_DOCX, EXTRACT_FMT_ODT, EXTRACT_FMT_RTF,
		};
		size_t nf, nown, k;

		snprintf(dir, sizeof(dir), "%s/formats", books);
		nf = nown = load_dir(dir, "", fm, 64);
		for (i = 0; i < ne && nf < sizeof(fm) / sizeof(fm[0]); i++)
			fm[nf++] = epub[i];
		printf("per format (%s/formats and epub): extract + normalise\n", books);
		for (k = 0; k < sizeof(fmts) / sizeof(fmts[0]); k++) {
			double in, out;
			size_t c;

			if (only && strcmp(only, extract_format_name(fmts[k])))
				continue;
			c = format_rate(fmts[k], fm, nf, &in, &out);

			if (c)
				printf("  %-5s %2zu files  %8.1f MB/s of files  %8.1f MB/s of text\n",
				       extract_format_name(fmts[k]), c, in, out);
			if (c && only)
				format_best(fmts[k], fm, nf);
			if (c && fmts[k] == EXTRACT_FMT_PDF) {
				double floor = poppler_rate(fm, nf);

				printf("  pdf: poppler's page text + boxes alone (baseline) %6.1f MB/s"
				       " of files; the reader runs at %.2f of it\n",
				       floor, floor > 0.0 ? in / floor : 0.0);
			}
		}
		for (i = 0; i < nown; i++)	/* the rest are epub[]'s */
			free(fm[i].data);
	}
	for (i = 0; i < nt; i++) {
		if (pre)
			extract_doc_release(&pre[i]);
		free(txt[i].data);
	}
	for (i = 0; i < ne; i++)
		free(epub[i].data);
	free(pre);
	return 0;
}
