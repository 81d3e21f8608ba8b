/* rcluri.h - the index URI of a Redis server or cluster:
 *
 *   redis://HOST[:PORT][,HOST[:PORT]...][/NAMESPACE]
 *
 * HOST is an IPv4 address (1.2.3.4), an IPv6 address in brackets
 * ([::1]) or a host name (RFC 1123: labels of letters, digits and '-',
 * not starting or ending with '-', at most 63 bytes each, 253 in all).
 * PORT is 1..65535 in decimal, 6379 when left out.  Several hosts are
 * the seeds of a cluster (any reachable one gives the whole topology).
 * NAMESPACE (optional) prefixes every key of one library so that one
 * server holds many: 1..64 bytes of [A-Za-z0-9._-] (no '{', '}' or ':'
 * so it can sit inside a hash tag and a key's separators).  The scheme is
 * matched without regard to case; user names, passwords, queries and
 * fragments are refused.  Pure: no I/O, no name resolution.
 */
#ifndef RCLURI_H
#define RCLURI_H

#include <stddef.h>
#include <stdint.h>

#define RCLURI_DEFAULT_PORT 6379
#define RCLURI_MAX_HOSTS 64
#define RCLURI_MAX_NS 64

struct rcluri_host {
	char name[254];	/* an address without brackets, or a host name */
	uint16_t port;
};

struct rcluri {
	struct rcluri_host *hosts;	/* owned; n >= 1 after a successful parse */
	size_t n;
	char ns[RCLURI_MAX_NS + 1];	/* "" when the URI names none */
};

/* Parses the NUL-terminated text into u (overwritten).  Returns 0, -EINVAL
 * (u empty; *why, when why is not NULL, points to a static English reason)
 * or -ENOMEM.  Release u with rcluri_release() after success. */
int rcluri_parse(const char *text, struct rcluri *u, const char **why);

/* 1 when text starts with the redis:// scheme (any case): an index named
 * so is a Redis one, whatever the rest says (rcluri_parse() judges it). */
int rcluri_is_uri(const char *text);

/* Frees the host list; u is empty afterwards (releasing twice is harmless). */
void rcluri_release(struct rcluri *u);

#endif
