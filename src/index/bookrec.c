/* bookrec.c - the index's per-book record (see bookrec.h). */
#include "bookrec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fprec.h"
#include "byteorder.h"

/* Length of s cut to at most max bytes without splitting a UTF-8 sequence. */
static size_t meta_len(const char *s, size_t max)
{
	size_t n = s ? strlen(s) : 0;

	if (n <= max)
		return n;
	n = max;
	while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--;
	return n;
}

/* The header and the four metadata strings of a record. */
static int encode_meta(struct sbuf *out, const uint8_t *head, const char *const meta[4])
{
	uint8_t h[BOOKREC_HEAD_LEN];
	size_t len[4];
	int i, ret;

	memcpy(h, head, BOOKREC_HEAD_LEN);
	for (i = 0; i < 4; i++)
		len[i] = meta_len(meta[i], BOOKREC_META_MAX);
	be_put(h + 6, len[0], 2);
	be_put(h + 8, len[1], 2);
	be_put(h + 34, len[2], 2);
	be_put(h + 36, len[3], 2);
	ret = sbuf_add(out, h, sizeof(h));
	for (i = 0; i < 4 && !ret; i++)
		if (len[i])
			ret = sbuf_add(out, meta[i], len[i]);
	return ret;
}

int bookrec_encode(const struct book *b, struct sbuf *out)
{
	uint8_t head[BOOKREC_HEAD_LEN] = { 0 };
	const char *meta[4] = { b->title, b->author, b->opf_title, b->opf_author };
	int ret;

	memcpy(head, BOOKREC_MAGIC, 4);
	head[4] = BOOKREC_VERSION;
	head[5] = (uint8_t)b->format;
	be_put(head + 10, b->file_size, 8);
	be_put(head + 18, b->file_hash_hi, 8);
	be_put(head + 26, b->file_hash_lo, 8);
	head[38] = (uint8_t)b->lang[0];
	head[39] = b->lang[0] ? (uint8_t)b->lang[1] : 0;
	if (!b->opf_title || !*b->opf_title)
		meta[2] = meta[3] = NULL;
	ret = encode_meta(out, head, meta);
	if (!ret)
		ret = fprec_encode(&b->fp, out);
	return ret;
}

/* Checks the header; ml[]: the lengths of the title, author, metadata.opf
 * title and author; returns their total in *sum. */
static int bookrec_head(const uint8_t *p, size_t len, size_t ml[4], size_t *sum)
{
	if (len < BOOKREC_HEAD_LEN || memcmp(p, BOOKREC_MAGIC, 4))
		return -EBADMSG;
	if (p[4] != BOOKREC_VERSION)
		return -ENOTSUP;
	ml[0] = (size_t)be_get(p + 6, 2);
	ml[1] = (size_t)be_get(p + 8, 2);
	ml[2] = (size_t)be_get(p + 34, 2);
	ml[3] = (size_t)be_get(p + 36, 2);
	*sum = ml[0] + ml[1] + ml[2] + ml[3];
	if (ml[0] > BOOKREC_META_MAX || ml[1] > BOOKREC_META_MAX || ml[2] > BOOKREC_META_MAX ||
	    ml[3] > BOOKREC_META_MAX || len - BOOKREC_HEAD_LEN < *sum)
		return -EBADMSG;
	return 0;
}

static char *dup_n(const uint8_t *p, size_t n)
{
	char *s = malloc(n + 1);

	if (s) {
		memcpy(s, p, n);
		s[n] = '\0';
	}
	return s;
}

int bookrec_title(const void *buf, size_t len, char **title)
{
	const uint8_t *p = buf;
	size_t ml[4], sum;
	int ret;

	*title = NULL;
	ret = bookrec_head(p, len, ml, &sum);
	if (ret)
		return ret;
	if (ml[2])
		*title = dup_n(p + BOOKREC_HEAD_LEN + ml[0] + ml[1], ml[2]);
	else if (ml[0])
		*title = dup_n(p + BOOKREC_HEAD_LEN, ml[0]);
	else
		return 0;
	return *title ? 0 : -ENOMEM;
}

int bookrec_lang(const void *buf, size_t len, char lang[3])
{
	const uint8_t *p = buf;
	size_t ml[4], sum;
	int ret;

	lang[0] = '\0';
	ret = bookrec_head(p, len, ml, &sum);
	if (ret)
		return ret;
	if (p[38] >= 'a' && p[38] <= 'z' && p[39] >= 'a' && p[39] <= 'z') {
		lang[0] = (char)p[38];
		lang[1] = (char)p[39];
		lang[2] = '\0';
	}
	return 0;
}

int bookrec_opf_name(const void *buf, size_t len, char **name)
{
	const uint8_t *p = buf, *t;
	size_t ml[4], sum;
	int ret;

	*name = NULL;
	ret = bookrec_head(p, len, ml, &sum);
	if (ret || !ml[2])
		return ret;
	t = p + BOOKREC_HEAD_LEN + ml[0] + ml[1];
	*name = malloc(ml[2] + 3 + ml[3] + 1);
	if (!*name)
		return -ENOMEM;
	memcpy(*name, t, ml[2]);
	if (ml[3]) {
		memcpy(*name + ml[2], " - ", 3);
		memcpy(*name + ml[2] + 3, t + ml[2], ml[3]);
		(*name)[ml[2] + 3 + ml[3]] = '\0';
	} else {
		(*name)[ml[2]] = '\0';
	}
	return 0;
}

int bookrec_retitle(const void *buf, size_t len, const char *title, const char *author,
		    struct sbuf *out)
{
	const uint8_t *p = buf;
	size_t ml[4], sum;
	char *own[2] = { NULL, NULL };
	const char *meta[4];
	int ret = bookrec_head(p, len, ml, &sum);

	if (ret)
		return ret;
	own[0] = dup_n(p + BOOKREC_HEAD_LEN, ml[0]);
	own[1] = dup_n(p + BOOKREC_HEAD_LEN + ml[0], ml[1]);
	if (!own[0] || !own[1]) {
		ret = -ENOMEM;
		goto out;
	}
	meta[0] = own[0];
	meta[1] = own[1];
	meta[2] = title && *title ? title : NULL;
	meta[3] = meta[2] ? author : NULL;
	ret = encode_meta(out, p, meta);
	if (!ret)
		ret = sbuf_add(out, p + BOOKREC_HEAD_LEN + sum, len - BOOKREC_HEAD_LEN - sum);
out:
	free(own[0]);
	free(own[1]);
	return ret;
}

int bookrec_decode(const void *buf, size_t len, struct book **out)
{
	const uint8_t *p = buf;
	char **dst[4];
	struct book *b = NULL;
	size_t ml[4], sum, off;
	int i, ret;

	*out = NULL;
	ret = bookrec_head(p, len, ml, &sum);
	if (ret)
		return ret;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	fp_book_init(&b->fp);
	b->format = (enum extract_format)p[5];
	if (p[38] >= 'a' && p[38] <= 'z' && p[39] >= 'a' && p[39] <= 'z') {
		b->lang[0] = (char)p[38];
		b->lang[1] = (char)p[39];
	}
	b->file_size = be_get(p + 10, 8);
	b->file_hash_hi = be_get(p + 18, 8);
	b->file_hash_lo = be_get(p + 26, 8);
	dst[0] = &b->title;
	dst[1] = &b->author;
	dst[2] = &b->opf_title;
	dst[3] = &b->opf_author;
	off = BOOKREC_HEAD_LEN;
	for (i = 0; i < 4; i++) {
		if (ml[i] && !(*dst[i] = dup_n(p + off, ml[i]))) {
			ret = -ENOMEM;
			goto out;
		}
		off += ml[i];
	}
	ret = fprec_decode(p + off, len - off, &b->fp);
out:
	if (ret) {
		book_free(b);
		b = NULL;
	}
	*out = b;
	return ret;
}

static int key_cmp(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

int bookrec_fp_make(const struct book *b, struct bookrec_fp *out)
{
	uint32_t *uq = NULL, nuq = 0;
	int i, ret;

	memset(out, 0, sizeof(*out));
	sbuf_init(&out->rec);
	ret = bookrec_encode(b, &out->rec);
	if (!ret)
		ret = minhash_bands(&b->fp.mh, BOOKREC_MH_BANDS, BOOKREC_MH_ROWS, out->bands);
	if (!ret)
		ret = dupniq_keys(&b->fp.dq, DUPNIQ_KEYS_MAX, &uq, &nuq);
	if (!ret && nuq + b->fp.nanchors) {
		/* words without IDX_UQ_HI, anchors with it: counted apart */
		uint32_t n = 0, k, j;

		out->uq = malloc(((size_t)nuq + b->fp.nanchors) * sizeof(*out->uq));
		if (out->uq) {
			for (k = 0; k < nuq; k++)
				out->uq[n++] = uq[k] & ~IDX_UQ_HI;
			for (k = 0; k < b->fp.nanchors; k++)
				out->uq[n++] = b->fp.anchors[k] | IDX_UQ_HI;
			qsort(out->uq, n, sizeof(*out->uq), key_cmp);
			for (k = j = 0; k < n; k++)
				if (!j || out->uq[j - 1] != out->uq[k])
					out->uq[j++] = out->uq[k];
			nuq = j;
		} else {
			ret = -ENOMEM;
		}
	}
	free(uq);
	if (ret)
		return ret;
	for (i = 0; i < 8; i++) {
		out->fp.simhash[i] = (uint8_t)(b->fp.sim.hi >> (56 - 8 * i));
		out->fp.simhash[8 + i] = (uint8_t)(b->fp.sim.lo >> (56 - 8 * i));
		out->fp.text_hash[i] = (uint8_t)(b->fp.text.hi >> (56 - 8 * i));
		out->fp.text_hash[8 + i] = (uint8_t)(b->fp.text.lo >> (56 - 8 * i));
	}
	out->fp.mh_bands = out->bands;
	out->fp.n_mh_bands = BOOKREC_MH_BANDS;
	if (b->fp.names.nkeys >= NAMES_MIN_KEYS) {
		memcpy(out->bands + BOOKREC_MH_BANDS, b->fp.names.slot, sizeof(b->fp.names.slot));
		out->fp.n_mh_bands += BOOKREC_NAME_BANDS;
	}
	out->fp.rec_version = BOOKREC_IDX_VERSION;
	out->fp.rec = out->rec.buf;
	out->fp.rec_len = out->rec.len;
	out->fp.uq_keys = out->uq;
	out->fp.n_uq_keys = nuq;
	return 0;
}

void bookrec_fp_release(struct bookrec_fp *f)
{
	sbuf_release(&f->rec);
	free(f->uq);
	memset(f, 0, sizeof(*f));
}
