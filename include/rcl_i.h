/* rcl_i.h - what the client's files (rcl.c, rcl_sub.c) share; private. */
#ifndef RCL_I_H
#define RCL_I_H

#include <hiredis/hiredis.h>

#include "rcl.h"

/* A connection to any reachable node (known masters first, then the
 * seeds), with the handle's connect timeout and no read timeout.  Returns
 * 0 or a negative errno (and sets the last error). */
int rcl_i_connect_any(struct rcl *c, redisContext **out);

/* The errno of a failed hiredis context (-ETIMEDOUT for a read timeout). */
int rcl_i_ctx_errno(const redisContext *ctx);

/* The handle's options. */
const struct rcl_opts *rcl_i_opts(const struct rcl *c);

#endif
