#!/usr/bin/env bash
# The Redis client on a single node: detection (no cluster), commands,
# errors from the server, pipelines, a WATCH/MULTI/EXEC session with its
# conflict, EVALSHA after SCRIPT FLUSH.
source "$(dirname "$0")/redislib.sh"
redis_single
out=$("$RCLTEST" "$REDIS_URI" fill 300 k)
grep -qx 'ok 300' <<<"$out" || fail "fill: $out"
grep -qx 'cluster=0' <<<"$out" || fail "a single node taken for a cluster: $out"
[ "$(rcli "$REDIS_PORT" dbsize)" -eq 300 ] || fail "dbsize $(rcli "$REDIS_PORT" dbsize)"
out=$(printf 'k1 GET k1\n- PING\nk1 LPUSH k1 a\nnone GET none\nc INCR c\nc INCR c\n' |
	"$RCLTEST" "$REDIS_URI" repl)
want=$'1\nPONG\n(error) WRONGTYPE Operation against a key holding the wrong kind of value\n(nil)\n1\n2\ncluster=0'
[ "$out" = "$want" ] || fail "repl: $out"
"$RCLTEST" "$REDIS_URI" pipeline lib 500 | grep -x 'ok pipeline 500' >/dev/null || fail pipeline
out=$("$RCLTEST" "$REDIS_URI" session lib) || fail "session: $out"
grep -qx 'conflict: EAGAIN' <<<"$out" || fail "session: $out"
"$RCLTEST" "$REDIS_URI" eval lib | grep -x 'ok eval' >/dev/null || fail eval
# three loads: the first script lazily and again after SCRIPT FLUSH
# (NOSCRIPT), the error script lazily; never on every call
rcli "$REDIS_PORT" info commandstats | grep '^cmdstat_script|load:calls=3,' >/dev/null ||
	fail "SCRIPT LOAD calls: $(rcli "$REDIS_PORT" info commandstats | grep script)"
say "ok"
