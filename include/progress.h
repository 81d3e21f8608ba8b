/* progress.h - the text of `simbook index`'s progress reports.
 *
 * Pure formatting, no I/O: the caller samples the indexer (files seen by the
 * scan, files queued for fingerprinting, files finished) into a struct
 * progress_snap and gets back either the one-line bar redrawn in place on a
 * terminal, or a plain line for logs.  The rate is the average since the
 * first file was queued; the ETA is the remaining work at that rate, shown
 * only once the scan has finished (before that the total is not known).
 */
#ifndef PROGRESS_H
#define PROGRESS_H

#include <stdint.h>

#include "sbuf.h"

struct progress_snap {
	double elapsed;		/* seconds since the start */
	int scanning;		/* the scan still runs: total not final */
	uint64_t seen;		/* files the scan has seen */
	uint64_t todo;		/* files queued for fingerprinting so far */
	uint64_t done;		/* of those, finished (indexed, failed or not a book) */
};

/* Files per second (0 when nothing is done or no time passed). */
double progress_rate(const struct progress_snap *s);
/* Seconds left, or a negative value when unknown (still scanning, no rate). */
double progress_eta(const struct progress_snap *s);
/* Appends a duration: "45s", "3m05s", "2h07m", or "--" for a negative one.
 * 0 or -ENOMEM. */
int progress_duration(struct sbuf *out, double secs);
/* Appends the terminal line: "[#####.....]  52%  1234/2345 files  45.2 files/s
 * ETA 25s"; while scanning the
 * bar is replaced by "scanning" and the count by "done/todo (N seen)".  The
 * line is cut to width - 1 columns (width < 20 is taken as 20); it holds
 * ASCII only, so bytes are columns.  0 or -ENOMEM. */
int progress_tty(struct sbuf *out, const struct progress_snap *s, unsigned width);
/* Appends a plain log line without the newline: "indexing: 1234/2345 files
 * (52%), 45.2 files/s, ETA 25s", or while scanning "scanning:
 * 3000 files seen, 1234/2000 queued files done, 45.2 files/s".
 * 0 or -ENOMEM. */
int progress_plain(struct sbuf *out, const struct progress_snap *s);

#endif
