/* fuzz_rcluri.c - libFuzzer target: rcluri_parse() on arbitrary bytes
 * must never crash or leak; what it accepts must hold its promises (at
 * least one host, ports 1..65535, names and namespace within their
 * limits and alphabets), and what it refuses must come with a reason.
 *
 *   make fuzz && build-fuzz/fuzz/fuzz_rcluri -max_total_time=60 \
 *       CORPUS_DIR tests/fuzz/corpus_rcluri */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rcluri.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct rcluri u;
	const char *why = NULL;
	int rc;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	rc = rcluri_parse(text, &u, &why);
	if (rc == 0) {
		if (u.n == 0 || u.n > RCLURI_MAX_HOSTS)
			abort();
		for (size_t i = 0; i < u.n; i++)
			if (u.hosts[i].port == 0 || !u.hosts[i].name[0] ||
			    strlen(u.hosts[i].name) > 253)
				abort();
		if (strlen(u.ns) > RCLURI_MAX_NS ||
		    strspn(u.ns, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
			    strlen(u.ns))
			abort();
		rcluri_release(&u);
	} else if (rc != -ENOMEM && (rc != -EINVAL || !why || u.hosts)) {
		abort();
	}
	free(text);
	return 0;
}
