#!/usr/bin/env bash
# One client handle used by 8 threads at once (the index calls it from many
# threads), on a single node and on a cluster: every key and every
# pipeline comes back right.
source "$(dirname "$0")/redislib.sh"
redis_single
"$RCLTEST" "$REDIS_URI" threads 8 300 | grep -x 'threads ok' >/dev/null || fail "single node"
[ "$(rcli "$REDIS_PORT" dbsize)" -eq 4800 ] || fail "dbsize $(rcli "$REDIS_PORT" dbsize)"
redis_cluster
"$RCLTEST" "$CLUSTER_URI" threads 8 300 | grep -x 'threads ok' >/dev/null || fail "cluster"
total=0
for p in $(redis_masters); do
	total=$((total + $(rcli "$p" dbsize)))
done
[ "$total" -eq 4800 ] || fail "the masters hold $total keys"
say "ok"
