#!/usr/bin/env bash
# On a cluster: a pipeline to one slot's master, a WATCH/MULTI/EXEC session
# (a conflicting write gives -EAGAIN, the rerun succeeds), EVALSHA loaded
# lazily and again after the node forgot it (NOSCRIPT).
source "$(dirname "$0")/redislib.sh"
redis_cluster
for tag in alpha beta gamma; do
	"$RCLTEST" "$CLUSTER_URI" pipeline "$tag" 1000 | grep -x 'ok pipeline 1000' >/dev/null ||
		fail "pipeline $tag"
	out=$("$RCLTEST" "$CLUSTER_URI" session "$tag") || fail "session $tag: $out"
	grep -qx 'conflict: EAGAIN' <<<"$out" || fail "session $tag: $out"
	"$RCLTEST" "$CLUSTER_URI" eval "$tag" | grep -x 'ok eval' >/dev/null || fail "eval $tag"
done
loads=0
for p in $(redis_masters); do
	n=$(rcli "$p" info commandstats | sed -n 's/^cmdstat_script|load:calls=\([0-9]*\),.*/\1/p')
	loads=$((loads + ${n:-0}))
done
# per tag: lazily, after SCRIPT FLUSH, and the error script
[ "$loads" -eq 9 ] || fail "SCRIPT LOAD ran $loads times, not 9"
say "ok"
