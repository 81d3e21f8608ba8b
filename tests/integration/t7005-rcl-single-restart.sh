#!/usr/bin/env bash
# A single server down and back: a writer waits through the outage (within
# its deadline), and a subscriber reconnects and subscribes again.
source "$(dirname "$0")/redislib.sh"
redis_single
RCL_DEADLINE_MS=10000 "$RCLTEST" "$REDIS_URI" writer 6 w >"$RT/writer.out" 2>&1 &
wpid=$!
mkdir "$RT/sub"
"$RCLTEST" "$REDIS_URI" subtest "$RT/sub" >"$RT/sub.out" 2>&1 &
spid=$!
for i in $(seq 200); do
	[ -e "$RT/sub/ready" ] && break
	sleep 0.05
done
[ -e "$RT/sub/ready" ] || fail "the subscriber got no first message"
sleep 1
redis_kill "$REDIS_PORT"
sleep 1.5
redis_restart "$REDIS_PORT"
touch "$RT/sub/go"
wait "$wpid" || { cat "$RT/writer.out"; fail "the writer failed"; }
cat "$RT/writer.out"
grep -q ' errors=0 ' "$RT/writer.out" || fail "errors across the restart"
pause=$(sed -n 's/.*longest_ms=\([0-9.]*\).*/\1/p' "$RT/writer.out")
say "outage seen by the writer: $pause ms (server down about 1500 ms)"
awk -v p="$pause" 'BEGIN { exit !(p >= 1000) }' || fail "the writer saw no outage?"
wait "$spid" || { cat "$RT/sub.out"; fail "the subscriber did not come back"; }
cat "$RT/sub.out"
say "ok"
