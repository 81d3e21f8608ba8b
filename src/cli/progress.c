/* progress.c - progress bar and log lines of `simbook index` (progress.h). */
#include <errno.h>
#include <math.h>

#include "progress.h"

#define BAR_WIDTH 24

double progress_rate(const struct progress_snap *s)
{
	if (s->done == 0 || !(s->elapsed > 0))
		return 0;
	return (double)s->done / s->elapsed;
}

double progress_eta(const struct progress_snap *s)
{
	double rate = progress_rate(s);

	if (s->scanning)
		return -1;
	if (s->done >= s->todo)
		return 0;
	if (!(rate > 0))
		return -1;
	return (double)(s->todo - s->done) / rate;
}

int progress_duration(struct sbuf *out, double secs)
{
	uint64_t t;

	if (!(secs >= 0) || secs > 1e9)
		return sbuf_addstr(out, "--");
	t = (uint64_t)llround(secs);
	if (t < 60)
		return sbuf_addf(out, "%llus", (unsigned long long)t);
	if (t < 3600)
		return sbuf_addf(out, "%llum%02llus", (unsigned long long)(t / 60),
				 (unsigned long long)(t % 60));
	return sbuf_addf(out, "%lluh%02llum", (unsigned long long)(t / 3600),
			 (unsigned long long)(t / 60 % 60));
}

/* Percentage of the known work done, 0..100. */
static unsigned percent(const struct progress_snap *s)
{
	if (s->todo == 0 || s->done >= s->todo)
		return s->scanning && s->todo == 0 ? 0 : 100;
	return (unsigned)(100 * s->done / s->todo);
}

static int add_rate(struct sbuf *out, const struct progress_snap *s, const char *sep)
{
	return sbuf_addf(out, "%s%.1f files/s", sep, progress_rate(s));
}

int progress_tty(struct sbuf *out, const struct progress_snap *s, unsigned width)
{
	size_t start = out->len, fill, i;
	unsigned pct = percent(s);
	int ret;

	if (width < 20)
		width = 20;
	if (s->scanning) {
		ret = sbuf_addf(out, "scanning  %llu/%llu files (%llu seen)",
				(unsigned long long)s->done, (unsigned long long)s->todo,
				(unsigned long long)s->seen);
	} else {
		fill = (size_t)pct * BAR_WIDTH / 100;
		ret = sbuf_addch(out, '[');
		for (i = 0; i < BAR_WIDTH && !ret; i++)
			ret = sbuf_addch(out, i < fill ? '#' : '.');
		if (!ret)
			ret = sbuf_addf(out, "] %3u%%  %llu/%llu files", pct,
					(unsigned long long)s->done, (unsigned long long)s->todo);
	}
	if (!ret)
		ret = add_rate(out, s, "  ");
	if (!ret)
		ret = sbuf_addstr(out, "  ETA ");
	if (!ret)
		ret = progress_duration(out, progress_eta(s));
	if (ret) {
		sbuf_setlen(out, start);
		return ret;
	}
	if (out->len - start > width - 1)
		sbuf_setlen(out, start + width - 1);
	return 0;
}

int progress_plain(struct sbuf *out, const struct progress_snap *s)
{
	size_t start = out->len;
	int ret;

	if (s->scanning)
		ret = sbuf_addf(out, "scanning: %llu files seen, %llu/%llu queued files done",
				(unsigned long long)s->seen, (unsigned long long)s->done,
				(unsigned long long)s->todo);
	else
		ret = sbuf_addf(out, "indexing: %llu/%llu files (%u%%)", (unsigned long long)s->done,
				(unsigned long long)s->todo, percent(s));
	if (!ret)
		ret = add_rate(out, s, ", ");
	if (!ret && !s->scanning) {
		ret = sbuf_addstr(out, ", ETA ");
		if (!ret)
			ret = progress_duration(out, progress_eta(s));
	}
	if (ret)
		sbuf_setlen(out, start);
	return ret;
}
