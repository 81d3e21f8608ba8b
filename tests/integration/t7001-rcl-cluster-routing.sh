#!/usr/bin/env bash
# Routing on a 3-master cluster: keys without a tag land on all three
# masters (every slot range is reached), a library's hash-tagged keys all
# land in one slot, and every read comes back from the right node.
source "$(dirname "$0")/redislib.sh"
redis_cluster
out=$("$RCLTEST" "$CLUSTER_URI" fill 600 key)
grep -qx 'ok 600' <<<"$out" || fail "fill: $out"
grep -qx 'cluster=1' <<<"$out" || fail "the cluster taken for a single node: $out"
total=0
mapfile -t masters < <(redis_masters)
[ "${#masters[@]}" -eq 3 ] || fail "masters: ${masters[*]}"
for p in "${masters[@]}"; do
	n=$(rcli "$p" dbsize)
	say "master $p holds $n keys"
	[ "$n" -gt 100 ] || fail "master $p holds only $n of 600 keys"
	total=$((total + n))
done
[ "$total" -eq 600 ] || fail "the masters hold $total keys, not 600"
"$RCLTEST" "$CLUSTER_URI" verify 600 key | grep -x 'ok 600' >/dev/null || fail verify
# one library: one slot, on one master
"$RCLTEST" "$CLUSTER_URI" pipeline lib7 400 | grep -x 'ok pipeline 400' >/dev/null || fail pipeline
slot=$(rcli "${masters[0]}" cluster keyslot '{lib7}')
holders=0
for p in "${masters[@]}"; do
	n=$(rcli "$p" cluster countkeysinslot "$slot")
	[ "$n" -eq 400 ] && holders=$((holders + 1))
done
[ "$holders" -eq 1 ] || fail "the 400 tagged keys are not all in slot $slot of one master"
say "ok"
