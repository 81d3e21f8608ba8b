/* idx_codec.c - keys and records of the LMDB index: path keys, file and book
 * records, band keys and the copy key. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "byteorder.h"
#include "idx_i.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

int idx_path_check(const char *path)
{
	const char *p = path, *seg;
	size_t len;

	if (!path)
		return -EINVAL;
	len = strlen(path);
	if (len == 0)
		return -EINVAL;
	if (len > IDX_PATH_MAX)
		return -ENAMETOOLONG;
	while (*p) {
		seg = p;
		while (*p && *p != '/')
			p++;
		if (p == seg || (p - seg == 1 && seg[0] == '.') ||
		    (p - seg == 2 && seg[0] == '.' && seg[1] == '.'))
			return -EINVAL;
		if (*p == '/' && !p[1])
			return -EINVAL;
		if (*p)
			p++;
	}
	return 0;
}

void idx_path_key(const char *path, size_t len, struct pkey *k)
{
	if (len <= KEY_INLINE) {
		memcpy(k->b, path, len);
		k->len = len;
		return;
	}
	memcpy(k->b, path, KEY_INLINE);
	k->b[KEY_INLINE] = 0;
	be_put(k->b + KEY_INLINE + 1, XXH3_64bits(path, len), 8);
	k->len = PKEY_MAX;
}

int idx_frec_decode(const struct kvs_val *v, struct frec *f)
{
	const uint8_t *p = v->data;

	if (v->len < FREC_HDR || p[0] != FREC_VERSION)
		return -EIO;
	f->state = p[1];
	f->pathlen = (size_t)be_get(p + 2, 2);
	f->errlen = (size_t)be_get(p + 4, 2);
	f->flags = p[6];
	if (f->state < IDX_QUEUED || f->state > IDX_NOT_BOOK || f->pathlen == 0 ||
	    f->pathlen > IDX_PATH_MAX || f->errlen > IDX_ERR_MAX ||
	    v->len != FREC_HDR + f->pathlen + f->errlen)
		return -EIO;
	f->id = be_get(p + 8, 8);
	f->st.size = be_get(p + 16, 8);
	f->st.mtime_ns = (int64_t)be_get(p + 24, 8);
	f->st.ctime_ns = (int64_t)be_get(p + 32, 8);
	f->st.ino = be_get(p + 40, 8);
	f->st.dev = be_get(p + 48, 8);
	memcpy(f->path, p + FREC_HDR, f->pathlen);
	f->path[f->pathlen] = '\0';
	memcpy(f->err, p + FREC_HDR + f->pathlen, f->errlen);
	f->err[f->errlen] = '\0';
	if (f->id == 0 || strlen(f->path) != f->pathlen || strlen(f->err) != f->errlen)
		return -EIO;
	return 0;
}

size_t idx_frec_encode(const struct frec *f, uint8_t *p)
{
	memset(p, 0, FREC_HDR);
	p[0] = FREC_VERSION;
	p[1] = f->state;
	be_put(p + 2, f->pathlen, 2);
	be_put(p + 4, f->errlen, 2);
	p[6] = f->flags;
	be_put(p + 8, f->id, 8);
	be_put(p + 16, f->st.size, 8);
	be_put(p + 24, (uint64_t)f->st.mtime_ns, 8);
	be_put(p + 32, (uint64_t)f->st.ctime_ns, 8);
	be_put(p + 40, f->st.ino, 8);
	be_put(p + 48, f->st.dev, 8);
	memcpy(p + FREC_HDR, f->path, f->pathlen);
	memcpy(p + FREC_HDR + f->pathlen, f->err, f->errlen);
	return FREC_HDR + f->pathlen + f->errlen;
}

void idx_frec_set_err(struct frec *f, const char *err)
{
	size_t len = err ? strlen(err) : 0;

	if (len > IDX_ERR_MAX)
		len = IDX_ERR_MAX;
	memcpy(f->err, err ? err : "", len);
	f->err[len] = '\0';
	f->errlen = len;
}

int idx_brec_decode(const struct kvs_val *v, struct brec *b)
{
	const uint8_t *p = v->data;
	size_t hdr;

	if (v->len < BOOK_HDR1 || (p[0] != BOOK_VERSION && p[0] != 1))
		return -EIO;
	b->version = p[0];
	hdr = p[0] == 1 ? BOOK_HDR1 : BOOK_HDR;
	b->n_mh = (uint32_t)be_get(p + 2, 2);
	if (b->n_mh > MH_MAX || v->len != hdr + (size_t)b->n_mh * 8)
		return -EIO;
	b->flags = p[0] == 1 ? 0 : p[1];
	b->rec_version = (uint32_t)be_get(p + 4, 4);
	memcpy(b->sh, p + 8, IDX_SH_BYTES);
	memcpy(b->th, p + 24, IDX_SH_BYTES);
	memset(b->key, 0, COPY_KEY);
	if (p[0] != 1)
		memcpy(b->key, p + 40, COPY_KEY);
	b->mh = p + hdr;
	return 0;
}

void idx_file_out(const struct frec *r, struct idx_file *f)
{
	memset(f, 0, sizeof(*f));
	f->id = r->id;
	f->st = r->st;
	f->state = (enum idx_state)r->state;
}

int idx_file_copy_strings(const struct frec *r, struct idx_file *f)
{
	f->path = strdup(r->path);
	if (!f->path)
		return -ENOMEM;
	if (r->errlen) {
		f->error = strdup(r->err);
		if (!f->error) {
			free(f->path);
			f->path = NULL;
			return -ENOMEM;
		}
	}
	return 0;
}

void idx_file_release(struct idx_file *f)
{
	if (!f)
		return;
	free(f->path);
	free(f->error);
	f->path = NULL;
	f->error = NULL;
}

void idx_shband_key(const struct band_layout *bl, const uint8_t sh[IDX_SH_BYTES], uint32_t b,
		       uint64_t id, uint8_t *key, size_t *klen)
{
	key[0] = (uint8_t)b;
	be_put(key + 1, band_value(bl, sh, b), bl->value_bytes);
	be_put(key + 1 + bl->value_bytes, id, 8);
	*klen = 1 + (size_t)bl->value_bytes + 8;
}

/* The copy key of a fingerprint: the XXH3-128 of everything the band
 * tables are written from (simhash, text hash, record version, min-hash
 * bands, pruning keys; the bands and keys as stored, big-endian), so two
 * books with one key find exactly the same candidates and compare alike
 * with every other book.  mh: n_mh * 8 bytes, uq: n_uq * 4 bytes. */
int idx_copy_key(const uint8_t sh[IDX_SH_BYTES], const uint8_t th[IDX_SH_BYTES],
		    uint32_t rec_version, const uint8_t *mh, uint32_t n_mh, const uint8_t *uq,
		    uint32_t n_uq, uint8_t key[COPY_KEY])
{
	size_t len = 2 * IDX_SH_BYTES + 4 + 2 + (size_t)n_mh * 8 + 4 + (size_t)n_uq * 4;
	uint8_t *buf = malloc(len), *p = buf;
	XXH128_hash_t h;

	if (!buf)
		return -ENOMEM;
	memcpy(p, sh, IDX_SH_BYTES);
	memcpy(p + IDX_SH_BYTES, th, IDX_SH_BYTES);
	p += 2 * IDX_SH_BYTES;
	be_put(p, rec_version, 4);
	be_put(p + 4, n_mh, 2);
	p += 6;
	if (n_mh)
		memcpy(p, mh, (size_t)n_mh * 8);
	p += (size_t)n_mh * 8;
	be_put(p, n_uq, 4);
	if (n_uq)
		memcpy(p + 4, uq, (size_t)n_uq * 4);
	h = XXH3_128bits(buf, len);
	free(buf);
	be_put(key, h.high64, 8);
	be_put(key + 8, h.low64, 8);
	return 0;
}
