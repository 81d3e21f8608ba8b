/* fprec.c - the stored fingerprint record (fprec.h): encode, and a decoder
 * that trusts no byte of its input. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "fprec.h"
#include "byteorder.h"

static int add_be(struct sbuf *sb, uint64_t v, unsigned n)
{
	uint8_t b[8];

	be_put(b, v, n);
	return sbuf_add(sb, b, n);
}

static int add_varint(struct sbuf *sb, uint32_t v)
{
	uint8_t b[5];
	unsigned n = 0;

	do {
		b[n] = v & 0x7f;
		v >>= 7;
		if (v)
			b[n] |= 0x80;
		n++;
	} while (v);
	return sbuf_add(sb, b, n);
}

static int add_chunks(struct sbuf *sb, const struct chunksketch_set *s, uint32_t nwords)
{
	uint64_t end = 0;
	uint32_t i;
	unsigned k;
	int ret;

	if ((ret = add_varint(sb, s->n)) < 0)
		return ret;
	for (i = 0; i < s->n; i++) {
		const struct chunksketch_chunk *c = &s->c[i];

		if (c->first < end || (uint64_t)c->first + c->nwords > nwords)
			return -EINVAL;
		if ((ret = add_varint(sb, (uint32_t)(c->first - end))) < 0 ||
		    (ret = add_varint(sb, c->nwords)) < 0)
			return ret;
		for (k = 0; k < CHUNKSKETCH_K; k++)
			if ((ret = add_be(sb, c->v[k], 4)) < 0)
				return ret;
		end = (uint64_t)c->first + c->nwords;
	}
	return 0;
}

int fprec_encode(const struct fp_book *b, struct sbuf *out)
{
	uint8_t h[FPREC_HEAD_LEN];
	size_t base = out->len;
	unsigned i;
	uint32_t k;
	int ret;

	if (b->dq.nwords != b->nwords || b->ck.nwords != b->nwords)
		return -EINVAL;
	for (k = 0; k < b->dq.n; k++)
		if (b->dq.pos[k] >= b->nwords || (k && b->dq.pos[k] <= b->dq.pos[k - 1]))
			return -EINVAL;
	memset(h, 0, sizeof(h));
	memcpy(h, FPREC_MAGIC, 4);
	h[4] = FPREC_VERSION;
	h[5] = 0;
	be_put(h + 6, FPREC_HEAD_LEN, 2);
	/* total length at 8 is filled in at the end */
	be_put(h + 12, b->nbytes, 8);
	be_put(h + 20, b->nwords, 4);
	be_put(h + 24, b->nchunks, 4);
	h[28] = b->size_class;
	be_put(h + 32, b->text.hi, 8);
	be_put(h + 40, b->text.lo, 8);
	be_put(h + 48, b->sim.hi, 8);
	be_put(h + 56, b->sim.lo, 8);
	for (i = 0; i < 8; i++) {
		be_put(h + 64 + 8 * i, b->rsim.mask[i], 8);
		be_put(h + 128 + 8 * i, b->rsim.sign[i], 8);
	}
	for (i = 0; i < MLSIMHASH_LEXICONS; i++)
		be_put(h + 192 + 8 * i, b->mlsh.fp[i], 8);
	be_put(h + 232, b->mh.nshingles, 8);
	for (i = 0; i < MINHASH_K; i++)
		be_put(h + 240 + 8 * i, b->mh.v[i], 8);
	if ((ret = sbuf_add(out, h, sizeof(h))) < 0)
		goto fail;
	if ((ret = add_varint(out, b->dq.n)) < 0 || (ret = add_varint(out, b->dq.nwords)) < 0)
		goto fail;
	if ((ret = sbuf_grow(out, (size_t)b->dq.n * 9)) < 0)
		goto fail;
	for (k = 0; k < b->dq.n; k++)
		if ((ret = add_be(out, b->dq.hash[k], 4)) < 0)
			goto fail;
	for (k = 0; k < b->dq.n; k++) {
		uint32_t d = k ? b->dq.pos[k] - b->dq.pos[k - 1] - 1 : b->dq.pos[0];

		if ((ret = add_varint(out, d)) < 0)
			goto fail;
	}
	if ((ret = add_chunks(out, &b->ck.spine, b->nwords)) < 0 ||
	    (ret = add_chunks(out, &b->ck.win, b->nwords)) < 0)
		goto fail;
	if (out->len - base + 4 > UINT32_MAX) {
		ret = -EINVAL;
		goto fail;
	}
	be_put((uint8_t *)out->buf + base + 8, out->len - base + 4, 4);
	if ((ret = add_be(out, XXH32(out->buf + base, out->len - base, 0), 4)) < 0)
		goto fail;
	return 0;
fail:
	sbuf_setlen(out, base);
	return ret;
}

/* Bounded reader over the variable part. */
struct rd {
	const uint8_t *p, *end;
};

static int rd_varint(struct rd *r, uint32_t *v)
{
	uint64_t x = 0;
	unsigned n;

	for (n = 0; n < 5; n++) {
		uint8_t c;

		if (r->p >= r->end)
			return -EBADMSG;
		c = *r->p++;
		x |= (uint64_t)(c & 0x7f) << (7 * n);
		if (!(c & 0x80)) {
			/* shortest form only: no zero high group after the first */
			if (n > 0 && c == 0)
				return -EBADMSG;
			if (x > UINT32_MAX)
				return -EBADMSG;
			*v = (uint32_t)x;
			return 0;
		}
	}
	return -EBADMSG;
}

static int rd_chunks(struct rd *r, struct chunksketch_set *s, uint32_t nwords)
{
	uint64_t end = 0;
	uint32_t n, i, d;
	unsigned k;

	if (rd_varint(r, &n) < 0)
		return -EBADMSG;
	/* each chunk takes at least 2 + 4 * CHUNKSKETCH_K bytes */
	if (n > (size_t)(r->end - r->p) / (2 + 4 * CHUNKSKETCH_K))
		return -EBADMSG;
	if (!n)
		return 0;
	s->c = malloc((size_t)n * sizeof(*s->c));
	if (!s->c)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct chunksketch_chunk *c = &s->c[i];

		if (rd_varint(r, &d) < 0 || end + d > UINT32_MAX)
			return -EBADMSG;
		c->first = (uint32_t)(end + d);
		if (rd_varint(r, &c->nwords) < 0 || (uint64_t)c->first + c->nwords > nwords)
			return -EBADMSG;
		if ((size_t)(r->end - r->p) < 4 * CHUNKSKETCH_K)
			return -EBADMSG;
		for (k = 0; k < CHUNKSKETCH_K; k++, r->p += 4)
			c->v[k] = (uint32_t)be_get(r->p, 4);
		end = (uint64_t)c->first + c->nwords;
		s->n = i + 1;
	}
	return 0;
}

static int check_head(const uint8_t *p, size_t len)
{
	if (len < 8 || memcmp(p, FPREC_MAGIC, 4) != 0)
		return -EBADMSG;
	if (p[4] != FPREC_VERSION)
		return -ENOTSUP;
	if (p[5] != 0 || be_get(p + 6, 2) != FPREC_HEAD_LEN || len < FPREC_HEAD_LEN + 4)
		return -EBADMSG;
	return 0;
}

int fprec_peek_id(const void *buf, size_t len, struct simhash_value *id)
{
	const uint8_t *p = buf;
	int ret = check_head(p, len);

	if (ret < 0)
		return ret;
	id->hi = be_get(p + FPREC_ID_OFF, 8);
	id->lo = be_get(p + FPREC_ID_OFF + 8, 8);
	return 0;
}

int fprec_decode(const void *buf, size_t len, struct fp_book *out)
{
	const uint8_t *p = buf;
	struct fp_book b;
	struct rd r;
	uint32_t k, d, n;
	uint64_t pos;
	unsigned i;
	int ret;

	fp_book_init(&b);
	if ((ret = check_head(p, len)) < 0)
		goto fail;
	ret = -EBADMSG;
	if (be_get(p + 8, 4) != len || p[29] || p[30] || p[31])
		goto fail;
	if (XXH32(p, len - 4, 0) != be_get(p + len - 4, 4))
		goto fail;
	b.nbytes = be_get(p + 12, 8);
	b.nwords = (uint32_t)be_get(p + 20, 4);
	b.nchunks = (uint32_t)be_get(p + 24, 4);
	b.size_class = p[28];
	b.text.hi = be_get(p + 32, 8);
	b.text.lo = be_get(p + 40, 8);
	b.sim.hi = be_get(p + 48, 8);
	b.sim.lo = be_get(p + 56, 8);
	for (i = 0; i < 8; i++) {
		b.rsim.mask[i] = be_get(p + 64 + 8 * i, 8);
		b.rsim.sign[i] = be_get(p + 128 + 8 * i, 8);
	}
	for (i = 0; i < MLSIMHASH_LEXICONS; i++)
		b.mlsh.fp[i] = be_get(p + 192 + 8 * i, 8);
	b.mh.nshingles = be_get(p + 232, 8);
	for (i = 0; i < MINHASH_K; i++)
		b.mh.v[i] = be_get(p + 240 + 8 * i, 8);
	r.p = p + FPREC_HEAD_LEN;
	r.end = p + len - 4;
	if (rd_varint(&r, &n) < 0 || rd_varint(&r, &b.dq.nwords) < 0)
		goto fail;
	/* each entry takes at least 5 bytes; positions lie inside the text */
	if (b.dq.nwords != b.nwords || n > (size_t)(r.end - r.p) / 5 || n > b.nwords)
		goto fail;
	if (n) {
		b.dq.hash = malloc((size_t)n * sizeof(*b.dq.hash));
		b.dq.pos = malloc((size_t)n * sizeof(*b.dq.pos));
		if (!b.dq.hash || !b.dq.pos) {
			ret = -ENOMEM;
			goto fail;
		}
	}
	b.dq.n = n;
	for (k = 0; k < n; k++, r.p += 4)
		b.dq.hash[k] = (uint32_t)be_get(r.p, 4);
	for (k = 0, pos = 0; k < n; k++) {
		if (rd_varint(&r, &d) < 0)
			goto fail;
		pos = k ? pos + 1 + d : d;
		if (pos >= b.nwords)
			goto fail;
		b.dq.pos[k] = (uint32_t)pos;
	}
	b.ck.nwords = b.nwords;
	if ((ret = rd_chunks(&r, &b.ck.spine, b.nwords)) < 0 ||
	    (ret = rd_chunks(&r, &b.ck.win, b.nwords)) < 0)
		goto fail;
	ret = -EBADMSG;
	if (r.p != r.end)
		goto fail;
	fp_book_release(out);
	*out = b;
	return 0;
fail:
	fp_book_release(&b);
	return ret;
}
