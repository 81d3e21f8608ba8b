#!/usr/bin/env bash
# A subscriber on a cluster outlives the death of the node it listens on
# (it subscribes on the master of slot 0, which is killed): it reconnects to
# another node, subscribes again (the callback hears of it) and receives
# what is published afterwards, and stops cleanly.
source "$(dirname "$0")/redislib.sh"
redis_cluster
p0=${CLUSTER_PORTS[0]}
owner=
for p in $(redis_masters); do
	rcli "$p" cluster nodes | grep myself | grep -Eq ' 0-[0-9]+' && owner=$p
done
[ -n "$owner" ] || fail "no owner of slot 0"
mkdir "$RT/sub"
RCL_DEADLINE_MS=15000 "$RCLTEST" "$CLUSTER_URI" subtest "$RT/sub" >"$RT/sub.out" 2>&1 &
spid=$!
for i in $(seq 300); do
	[ -e "$RT/sub/ready" ] && break
	sleep 0.05
done
[ -e "$RT/sub/ready" ] || fail "the subscriber got no first message"
[ "$(rcli "$owner" pubsub numsub rcltest | tail -1)" -eq 1 ] || fail "not subscribed on $owner"
say "killing $owner, the subscriber's node"
redis_kill "$owner"
touch "$RT/sub/go"
wait "$spid" || { cat "$RT/sub.out"; fail "the subscriber did not come back"; }
cat "$RT/sub.out"
say "ok"
