#!/usr/bin/env bash
# A master killed (kill -9) under a writer: its replica is promoted and the
# writer carries on without one failed call; the longest call is the pause
# the caller saw (reported, and bounded by the client's deadline).
source "$(dirname "$0")/redislib.sh"
redis_cluster
mapfile -t masters < <(redis_masters)
RCL_DEADLINE_MS=15000 "$RCLTEST" "$CLUSTER_URI" writer 10 w >"$RT/writer.out" 2>&1 &
wpid=$!
sleep 2
victim=${masters[1]}
say "killing master $victim"
redis_kill "$victim"
wait "$wpid" || { cat "$RT/writer.out"; fail "the writer failed"; }
cat "$RT/writer.out"
grep -q ' errors=0 ' "$RT/writer.out" || fail "errors under the failover"
pause=$(sed -n 's/.*longest_ms=\([0-9.]*\).*/\1/p' "$RT/writer.out")
say "failover pause seen by the writer: $pause ms"
mapfile -t now < <(redis_masters)
[ "${#now[@]}" -eq 3 ] || fail "a replica was not promoted: ${now[*]}"
# the new master serves the killed one's slots: every slot reachable
"$RCLTEST" "$CLUSTER_URI" fill 300 after | grep -x 'ok 300' >/dev/null || fail "after the failover"
say "ok"
