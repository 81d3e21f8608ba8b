/* kvs_redis_claim.c - the Redis store's claims (kvs_claim()): one key per
 * piece of work, {NS}:c:NAME, in the library's slot, holding the claiming
 * handle's id until given up or expired. */
#include "kvs_redis_i.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* key = {NS}:c:NAME (the version key {NS}:v gives the tag); 0 or -ENAMETOOLONG */
static int claim_key(const struct kvs_redis *s, const void *name, size_t len,
		     char key[RD_NAME_MAX + 64], size_t *klen)
{
	size_t tag = s->vkeylen - 1;	/* "{NS}:" */

	if (tag + 2 + len > RD_NAME_MAX + 64)
		return -ENAMETOOLONG;
	memcpy(key, s->vkey, tag);
	memcpy(key + tag, "c:", 2);
	memcpy(key + tag + 2, name, len);
	*klen = tag + 2 + len;
	return 0;
}

int rd_claim(struct kvs *kv, const void *name, size_t len, unsigned ttl_ms, unsigned *left_ms)
{
	struct kvs_redis *s = (struct kvs_redis *)kv;
	char key[RD_NAME_MAX + 64], who[24], ttl[16];
	const char *keys[1] = { key }, *args[2] = { who, ttl };
	size_t klen, alen[2];
	struct rcl_reply *r = NULL;
	int ret;

	ret = claim_key(s, name, len, key, &klen);
	if (ret)
		return ret;
	alen[0] = (size_t)snprintf(who, sizeof(who), "%" PRIx64, s->self);
	alen[1] = (size_t)snprintf(ttl, sizeof(ttl), "%u", ttl_ms ? ttl_ms : 1);
	ret = rcl_eval(s->c, s->claim, 1, keys, &klen, 2, args, alen, &r);
	if (ret == 0 && r->type != RCL_INTEGER)
		ret = -EPROTO;
	if (ret == 0 && r->integer < 0) {
		ret = 1;
	} else if (ret == 0) {
		*left_ms = (unsigned long long)r->integer > ttl_ms ? ttl_ms : (unsigned)r->integer;
	}
	rcl_reply_free(r);
	return ret;
}

void rd_unclaim(struct kvs *kv, const void *name, size_t len)
{
	struct kvs_redis *s = (struct kvs_redis *)kv;
	char key[RD_NAME_MAX + 64], who[24];
	const char *keys[1] = { key }, *args[1] = { who };
	size_t klen, alen[1];
	struct rcl_reply *r = NULL;

	if (claim_key(s, name, len, key, &klen))
		return;
	alen[0] = (size_t)snprintf(who, sizeof(who), "%" PRIx64, s->self);
	/* a failure leaves the claim to expire */
	rcl_eval(s->c, s->unclaim, 1, keys, &klen, 1, args, alen, &r);
	rcl_reply_free(r);
}
