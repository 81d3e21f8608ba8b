/* slog.h - the mount daemon's log: stderr in the foreground, syslog when
 * daemonized.
 *
 * Until slog_open() (and after slog_close()) messages go to stderr as
 * "IDENT: message".  slog_open(ident, 1) sends them to syslog (facility
 * daemon, the pid in each line) instead, where a daemon's stderr, which
 * points at /dev/null, would lose them.  Priorities are syslog's (LOG_ERR,
 * LOG_WARNING, LOG_INFO, ...).  Thread-safe: each message is written with one
 * call (one write() or one syslog()).
 */
#ifndef SLOG_H
#define SLOG_H

#include <stdarg.h>
#include <syslog.h>

#include <fuse_log.h>

/* ident is kept (not copied): a string literal or one that outlives the log. */
void slog_open(const char *ident, int use_syslog);
void slog_close(void);
void slog(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void slog_v(int prio, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* For fuse_set_log_func(): libfuse's own messages into the same log (its
 * levels are syslog's priorities). */
void slog_fuse(enum fuse_log_level level, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

#endif
