/* slog.c - stderr or syslog for the daemon's messages (slog.h). */
#include <stdio.h>
#include <string.h>

#include "slog.h"

static const char *slog_ident = "simbookfs";
static int slog_syslog;

void slog_open(const char *ident, int use_syslog)
{
	slog_ident = ident;
	slog_syslog = use_syslog;
	if (use_syslog)
		openlog(ident, LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

void slog_close(void)
{
	if (slog_syslog)
		closelog();
	slog_syslog = 0;
}

void slog_v(int prio, const char *fmt, va_list ap)
{
	char msg[2048];
	size_t n;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n && msg[n - 1] == '\n')	/* libfuse ends its messages with one */
		msg[--n] = '\0';
	if (slog_syslog)
		syslog(prio, "%s", msg);
	else
		fprintf(stderr, "%s: %s\n", slog_ident, msg);
}

void slog(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	slog_v(prio, fmt, ap);
	va_end(ap);
}

void slog_fuse(enum fuse_log_level level, const char *fmt, va_list ap)
{
	slog_v((int)level, fmt, ap);
}
