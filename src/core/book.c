/* book.c - file -> extract -> normalise -> fingerprints, and book pairs
 * (see book.h). */
#include "book.h"

#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "align.h"
#include "anchorshare.h"
#include "lang.h"
#include "norm.h"

static char *dup_or_null(const char *s)
{
	return s && *s ? strdup(s) : NULL;
}

/* Fingerprints an extracted doc into a new book. */
static int book_from_doc(const struct extract_doc *doc, const char *name,
			 struct book **out, struct sbuf *err)
{
	struct norm_doc nd;
	struct book *b = NULL;
	int ret;

	norm_doc_init(&nd);
	b = calloc(1, sizeof(*b));
	if (!b) {
		ret = -ENOMEM;
		goto out;
	}
	fp_book_init(&b->fp);
	b->format = doc->format;
	b->nwarnings = doc->warnings.n;
	b->title = dup_or_null(doc->title);
	b->author = doc->creators.n ? dup_or_null(doc->creators.v[0]) : NULL;
	if ((doc->title && *doc->title && !b->title) ||
	    (doc->creators.n && *doc->creators.v[0] && !b->author)) {
		ret = -ENOMEM;
		goto out;
	}
	ret = extract_normalize(doc, &nd);
	if (!ret)
		ret = fp_compute(&nd, &b->fp);
	if (!ret)
		ret = names_sketch(doc->text.buf, doc->text.len, &b->fp.names);
	if (!ret) {
		const char *l = lang_code(doc->language);

		snprintf(b->lang, sizeof(b->lang), "%s",
			 *l ? l : lang_detect(doc->text.buf, doc->text.len));
	}
	if (ret && err)
		sbuf_addf(err, "%s: %s", name ? name : "(buffer)",
			  ret == -ENOMEM ? "out of memory" : "cannot normalise the text");
out:
	norm_doc_release(&nd);
	if (ret) {
		book_free(b);
		b = NULL;
	}
	*out = b;
	return ret;
}

/* XXH3-128 and size of the file at path, read in blocks. */
static int hash_file(const char *path, uint64_t *size, XXH128_hash_t *h)
{
	XXH3_state_t *st = NULL;
	char *buf = NULL;
	ssize_t n;
	int fd = -1, ret = 0;

	*size = 0;
	st = XXH3_createState();
	buf = malloc(1 << 16);
	if (!st || !buf) {
		ret = -ENOMEM;
		goto out;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	XXH3_128bits_reset(st);
	while ((n = read(fd, buf, 1 << 16)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			goto out;
		}
		XXH3_128bits_update(st, buf, (size_t)n);
		*size += (uint64_t)n;
	}
	*h = XXH3_128bits_digest(st);
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	XXH3_freeState(st);
	return ret;
}

int book_load(const char *path, const struct extract_limits *lim,
	      struct book **out, struct sbuf *err)
{
	struct extract_doc doc;
	XXH128_hash_t h = { 0, 0 };
	uint64_t size = 0;
	int ret;

	*out = NULL;
	extract_doc_init(&doc);
	ret = extract_file(path, lim, &doc, err);
	if (ret)
		goto out;
	/* Hashed after extraction, which already refused what is not a
	 * regular file. */
	ret = hash_file(path, &size, &h);
	if (ret) {
		if (err)
			sbuf_addf(err, "%s: %s", path, strerror(-ret));
		goto out;
	}
	ret = book_from_doc(&doc, path, out, err);
	if (!ret) {
		(*out)->file_size = size;
		(*out)->file_hash_hi = h.high64;
		(*out)->file_hash_lo = h.low64;
	}
out:
	extract_doc_release(&doc);
	return ret;
}

int book_load_buffer(const void *data, size_t len, const char *name,
		     const struct extract_limits *lim, struct book **out, struct sbuf *err)
{
	struct extract_doc doc;
	XXH128_hash_t h;
	int ret;

	*out = NULL;
	extract_doc_init(&doc);
	ret = extract_buffer(data, len, name, lim, &doc, err);
	if (!ret)
		ret = book_from_doc(&doc, name, out, err);
	if (!ret) {
		h = XXH3_128bits(data, len);
		(*out)->file_size = len;
		(*out)->file_hash_hi = h.high64;
		(*out)->file_hash_lo = h.low64;
	}
	extract_doc_release(&doc);
	return ret;
}

void book_free(struct book *b)
{
	if (!b)
		return;
	fp_book_release(&b->fp);
	free(b->title);
	free(b->author);
	free(b->opf_title);
	free(b->opf_author);
	free(b);
}

void book_id(const struct book *b, char out[33])
{
	simhash_hex(&b->fp.sim, out);
}

/* Signals from two fingerprint sets and their raw scores. */
static int signals_fp(const struct fp_book *a, const struct fp_book *b, int same_file,
		      const struct fp_scores *sc, const struct dupniq_lcs *lcs,
		      struct relate_signals *sig)
{
	struct align_cover al;
	int ret;

	memset(sig, 0, sizeof(*sig));
	ret = align_blocks_lcs(&a->dq, &b->dq, lcs, 0, &al);
	sig->block_cover_a = al.cover_a;
	sig->block_cover_b = al.cover_b;
	sig->block_density = al.density;
	sig->same_file = same_file;
	sig->same_text = sc->same_text;
	sig->words_a = sc->a_nwords;
	sig->words_b = sc->b_nwords;
	sig->simhash_distance = (int)sc->simhash_distance;
	sig->rsimhash_distance = (int)sc->rsim_distance;
	sig->mlsimhash_distance = (int)sc->mlsimhash_distance;
	sig->jaccard = sc->jaccard;
	sig->bsim = (double)sc->minhash_bsim / MINHASH_K;
	sig->dupniq_cs = sc->dupniq.cs;
	sig->dupniq_its = sc->dupniq.its;
	sig->dupniq_common = sc->dupniq.common;
	sig->dupniq_lcs = sc->dupniq.lcs;
	sig->span_cover_a = sc->dupniq.lcs ? sc->dupniq.a_cover : 0.0;
	sig->span_cover_b = sc->dupniq.lcs ? sc->dupniq.b_cover : 0.0;
	sig->stretch_cover_a = sc->dupniq.lcs ? sc->dupniq.a_covered : 0.0;
	sig->stretch_cover_b = sc->dupniq.lcs ? sc->dupniq.b_covered : 0.0;
	sig->chunk_cover_a = sc->win_fit.a_matched;
	sig->chunk_cover_b = sc->win_fit.b_matched;
	if (!ret)
		ret = anchorshare(a->anchors, a->nanchors, a->nanchors >= FP_ANCHORS_MAX, b->anchors,
				  b->nanchors, b->nanchors >= FP_ANCHORS_MAX, &sig->share_a,
				  &sig->share_b);
	return ret;
}

/* book_compare_fp() with the two books' languages (NULL: unknown). */
static int compare(const struct fp_book *a, const struct fp_book *b, int same_file,
		   const char *lang_a, const char *lang_b, const struct relate_params *p,
		   struct book_cmp *out)
{
	struct dupniq_lcs lcs;
	int ret;

	memset(out, 0, sizeof(*out));
	/* the DUPNIQ scores and the blocks share one LCS */
	dupniq_lcs_init(&lcs);
	ret = fp_compare_lcs(a, b, &out->scores, &lcs);
	if (!ret)
		ret = signals_fp(a, b, same_file, &out->scores, &lcs, &out->sig);
	dupniq_lcs_release(&lcs);
	out->sig.lang_a = lang_a;
	out->sig.lang_b = lang_b;
	if (!ret)
		relate_decide(&out->sig, p, &out->rel);
	return ret;
}

int book_compare_fp(const struct fp_book *a, const struct fp_book *b, int same_file,
		    const struct relate_params *p, struct book_cmp *out)
{
	return compare(a, b, same_file, NULL, NULL, p, out);
}

int book_compare(const struct book *a, const struct book *b,
		 const struct relate_params *p, struct book_cmp *out)
{
	int same_file = a->file_size == b->file_size && a->file_hash_hi == b->file_hash_hi &&
			a->file_hash_lo == b->file_hash_lo;

	return compare(&a->fp, &b->fp, same_file, a->lang, b->lang, p, out);
}
