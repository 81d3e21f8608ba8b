#!/usr/bin/env bash
# Bad index URIs are refused with a reason before any connection; a good
# URI naming several seeds works when the first seed is dead.
source "$(dirname "$0")/redislib.sh"
for bad in 'redis://' 'redis://h:0' 'redis://h:70000' 'http://h' 'redis://u:p@h' \
	'redis://h/bad{ns}' 'redis://[::1' 'redis://h,,g' 'redis://1.2.3'; do
	set +e
	out=$("$RCLTEST" "$bad" repl </dev/null 2>&1)
	rc=$?
	set -e
	[ "$rc" -eq 2 ] || fail "$bad: exit $rc ($out)"
	grep -qF "rcltest: $bad: " <<<"$out" || fail "$bad: no reason: $out"
done
redis_single
dead=$(redis_free_port)
out=$(echo 'k SET k v' | "$RCLTEST" "redis://127.0.0.1:$dead,localhost:$REDIS_PORT/lib-1" repl)
[ "$out" = $'OK\ncluster=0' ] || fail "second seed: $out"
say "ok"
