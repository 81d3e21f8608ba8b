/* rcluri.c - parsing redis://HOST:PORT[,HOST:PORT...][/NAMESPACE]. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rcluri.h"

static int is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* RFC 1123 host name, or a dotted IPv4 address (which passes the same
 * rule; inet_pton then tells a malformed all-digit one). */
static int valid_hostname(const char *s, size_t len)
{
	size_t label = 0;
	int all_digits = 1;

	if (len == 0 || len > 253)
		return 0;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (c == '.') {
			if (label == 0 || s[i - 1] == '-')
				return 0;
			label = 0;
			continue;
		}
		if (!is_alnum(c) && c != '-')
			return 0;
		if (c == '-' && label == 0)
			return 0;
		if (!(c >= '0' && c <= '9'))
			all_digits = 0;
		if (++label > 63)
			return 0;
	}
	if (label == 0 || s[len - 1] == '-')
		return 0;
	if (all_digits) {	/* digits and dots only: must be an IPv4 address */
		char tmp[254];
		struct in_addr a;

		memcpy(tmp, s, len);
		tmp[len] = '\0';
		return inet_pton(AF_INET, tmp, &a) == 1;
	}
	return 1;
}

/* One "HOST[:PORT]" of len bytes into h. */
static int parse_host(const char *s, size_t len, struct rcluri_host *h, const char **why)
{
	const char *port = NULL, *end = s + len;
	size_t hlen;

	if (len && s[0] == '[') {
		const char *close = memchr(s, ']', len);
		struct in6_addr a;

		if (!close || close == s + 1) {
			*why = "an IPv6 address needs closing brackets: [::1]:6379";
			return -EINVAL;
		}
		hlen = (size_t)(close - s - 1);
		if (hlen >= sizeof(h->name)) {
			*why = "IPv6 address too long";
			return -EINVAL;
		}
		memcpy(h->name, s + 1, hlen);
		h->name[hlen] = '\0';
		if (inet_pton(AF_INET6, h->name, &a) != 1) {
			*why = "not an IPv6 address between the brackets";
			return -EINVAL;
		}
		if (close + 1 < end) {
			if (close[1] != ':') {
				*why = "only ':PORT' may follow ']'";
				return -EINVAL;
			}
			port = close + 2;
		}
	} else {
		const char *colon = memchr(s, ':', len);

		hlen = colon ? (size_t)(colon - s) : len;
		if (!valid_hostname(s, hlen)) {
			*why = "not a host name or IPv4 address (IPv6 goes in brackets)";
			return -EINVAL;
		}
		memcpy(h->name, s, hlen);
		h->name[hlen] = '\0';
		if (colon)
			port = colon + 1;
	}
	h->port = RCLURI_DEFAULT_PORT;
	if (port) {
		unsigned long v = 0;

		if (port == end || end - port > 5) {
			*why = "the port must be 1 to 65535";
			return -EINVAL;
		}
		for (const char *p = port; p < end; p++) {
			if (*p < '0' || *p > '9') {
				*why = "the port must be decimal digits";
				return -EINVAL;
			}
			v = v * 10 + (unsigned long)(*p - '0');
		}
		if (v == 0 || v > 65535) {
			*why = "the port must be 1 to 65535";
			return -EINVAL;
		}
		h->port = (uint16_t)v;
	}
	return 0;
}

static int parse_ns(const char *s, struct rcluri *u, const char **why)
{
	size_t len = strlen(s);

	if (len == 0 || len > RCLURI_MAX_NS) {
		*why = "the namespace after '/' must be 1 to 64 bytes";
		return -EINVAL;
	}
	for (size_t i = 0; i < len; i++) {
		if (!is_alnum(s[i]) && s[i] != '.' && s[i] != '_' && s[i] != '-') {
			*why = "the namespace may hold only A-Z a-z 0-9 . _ -";
			return -EINVAL;
		}
	}
	memcpy(u->ns, s, len + 1);
	return 0;
}

int rcluri_parse(const char *text, struct rcluri *u, const char **why)
{
	static const char scheme[] = "redis://";
	const char *why_local = NULL, *p, *auth_end;
	int ret = -EINVAL;

	memset(u, 0, sizeof(*u));
	if (!why)
		why = &why_local;
	*why = NULL;
	if (strncasecmp(text, scheme, sizeof(scheme) - 1) != 0) {
		*why = "the URI must start with redis://";
		goto out;
	}
	p = text + sizeof(scheme) - 1;
	auth_end = p + strcspn(p, "/");
	if (memchr(p, '@', (size_t)(auth_end - p)) || strpbrk(p, "?#")) {
		*why = "user names, passwords, queries and fragments are not supported";
		goto out;
	}
	if (*auth_end == '/' && (ret = parse_ns(auth_end + 1, u, why)) != 0)
		goto out;
	ret = -EINVAL;
	while (p <= auth_end) {
		const char *comma = memchr(p, ',', (size_t)(auth_end - p));
		const char *stop = comma ? comma : auth_end;

		if (stop == p) {
			*why = "an empty host";
			goto out;
		}
		if (u->n == RCLURI_MAX_HOSTS) {
			*why = "more than 64 hosts";
			goto out;
		}
		if (u->n % 8 == 0) {
			struct rcluri_host *nh = realloc(u->hosts, (u->n + 8) * sizeof(*nh));

			if (!nh) {
				ret = -ENOMEM;
				goto out;
			}
			u->hosts = nh;
		}
		if (parse_host(p, (size_t)(stop - p), &u->hosts[u->n], why) != 0)
			goto out;
		u->n++;
		p = stop + 1;
	}
	ret = 0;
out:
	if (ret != 0)
		rcluri_release(u);
	return ret;
}

void rcluri_release(struct rcluri *u)
{
	free(u->hosts);
	memset(u, 0, sizeof(*u));
}

int rcluri_is_uri(const char *text)
{
	return text && strncasecmp(text, "redis://", 8) == 0;
}
