/* mutate_parts.c - partial replacement and insertion in several parts (see
 * mutate.h, mut_parts()). */
#include "mutate.h"

#include <errno.h>

static int is_space(char c)
{
	return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

/* First white space at or after p (len when none): cuts never split a
 * word, nor a UTF-8 sequence. */
static size_t to_space(const char *t, size_t len, size_t p)
{
	while (p < len && !is_space(t[p]))
		p++;
	return p;
}

/* Appends n bytes of donor text from *dpos on (wrapping round to its
 * start), cut at white space, between two spaces. */
static int add_donor(const char *donor, size_t dlen, size_t *dpos, size_t n, struct sbuf *out)
{
	size_t a, b;
	int ret = sbuf_addch(out, ' ');

	while (!ret && n > 0) {
		if (*dpos >= dlen)
			*dpos = 0;
		a = to_space(donor, dlen, *dpos);
		b = to_space(donor, dlen, a + n < dlen ? a + n : dlen);
		if (b <= a) {	/* nothing left after the last space */
			if (*dpos == 0)
				break;	/* a donor without white space */
			*dpos = dlen;
			continue;
		}
		ret = sbuf_add(out, donor + a, b - a);
		n -= b - a < n ? b - a : n;
		*dpos = b;
	}
	return ret ? ret : sbuf_addch(out, ' ');
}

int mut_parts(struct mut_rng *r, const char *in, size_t len, const char *donor, size_t dlen,
	      const struct mut_parts_spec *sp, struct sbuf *out, size_t *other)
{
	size_t seg, want, k, a, b, pos = 0, dpos, added = 0, before;
	int ret = 0;

	if ((!in && len) || !donor || !dlen || !sp || !(sp->frac > 0.0 && sp->frac < 1.0) ||
	    sp->nparts == 0 || sp->where > 1.0)
		return -EINVAL;
	seg = len / sp->nparts;
	/* replaced: frac of each segment; inserted: as much as makes frac of
	 * the result */
	want = (size_t)((sp->insert ? sp->frac / (1.0 - sp->frac) : sp->frac) * (double)seg);
	dpos = (size_t)mut_rng_below(r, dlen);
	for (k = 0; k < sp->nparts && !ret; k++) {
		size_t s0 = k * seg, room = sp->insert ? seg : seg - (want < seg ? want : seg);
		double w = sp->where >= 0.0 ? sp->where : mut_rng_unit(r);

		a = to_space(in, len, s0 + (size_t)(w * (double)room));
		if (a < pos)
			a = pos;
		b = sp->insert ? a : to_space(in, len, a + want < len ? a + want : len);
		ret = sbuf_add(out, in + pos, a - pos);
		before = out->len;
		if (!ret)
			ret = add_donor(donor, dlen, &dpos, want, out);
		added += out->len - before;
		pos = b;
	}
	if (!ret)
		ret = sbuf_add(out, in + pos, len - pos);
	if (other)
		*other = added;
	return ret;
}
