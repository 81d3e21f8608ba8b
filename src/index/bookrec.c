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

int bookrec_encode(const struct book *b, struct sbuf *out)
{
	uint8_t head[BOOKREC_HEAD_LEN];
	size_t tl = meta_len(b->title, BOOKREC_META_MAX);
	size_t al = meta_len(b->author, BOOKREC_META_MAX);
	int ret;

	memcpy(head, BOOKREC_MAGIC, 4);
	head[4] = BOOKREC_VERSION;
	head[5] = (uint8_t)b->format;
	be_put(head + 6, tl, 2);
	be_put(head + 8, al, 2);
	be_put(head + 10, b->file_size, 8);
	be_put(head + 18, b->file_hash_hi, 8);
	be_put(head + 26, b->file_hash_lo, 8);
	head[34] = (uint8_t)b->lang[0];
	head[35] = b->lang[0] ? (uint8_t)b->lang[1] : 0;
	ret = sbuf_add(out, head, sizeof(head));
	if (!ret && tl)
		ret = sbuf_add(out, b->title, tl);
	if (!ret && al)
		ret = sbuf_add(out, b->author, al);
	if (!ret)
		ret = fprec_encode(&b->fp, out);
	return ret;
}

/* Checks the header; *tl, *al: metadata lengths. */
static int bookrec_head(const uint8_t *p, size_t len, size_t *tl, size_t *al)
{
	if (len < BOOKREC_HEAD_LEN || memcmp(p, BOOKREC_MAGIC, 4))
		return -EBADMSG;
	if (p[4] != BOOKREC_VERSION)
		return -ENOTSUP;
	*tl = (size_t)be_get(p + 6, 2);
	*al = (size_t)be_get(p + 8, 2);
	if (*tl > BOOKREC_META_MAX || *al > BOOKREC_META_MAX ||
	    len - BOOKREC_HEAD_LEN < *tl + *al)
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
	size_t tl, al;
	int ret;

	*title = NULL;
	ret = bookrec_head(p, len, &tl, &al);
	if (ret || !tl)
		return ret;
	*title = dup_n(p + BOOKREC_HEAD_LEN, tl);
	return *title ? 0 : -ENOMEM;
}

int bookrec_decode(const void *buf, size_t len, struct book **out)
{
	const uint8_t *p = buf;
	struct book *b = NULL;
	size_t tl, al, off;
	int ret;

	*out = NULL;
	ret = bookrec_head(p, len, &tl, &al);
	if (ret)
		return ret;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	fp_book_init(&b->fp);
	b->format = (enum extract_format)p[5];
	if (p[34] >= 'a' && p[34] <= 'z' && p[35] >= 'a' && p[35] <= 'z') {
		b->lang[0] = (char)p[34];
		b->lang[1] = (char)p[35];
	}
	b->file_size = be_get(p + 10, 8);
	b->file_hash_hi = be_get(p + 18, 8);
	b->file_hash_lo = be_get(p + 26, 8);
	off = BOOKREC_HEAD_LEN;
	if ((tl && !(b->title = dup_n(p + off, tl))) ||
	    (al && !(b->author = dup_n(p + off + tl, al)))) {
		ret = -ENOMEM;
		goto out;
	}
	off += tl + al;
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
