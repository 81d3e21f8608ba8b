#!/usr/bin/env bash
# t7203: a mount whose index is on the 3-master Redis Cluster, books
# copied in through it one after another while the master holding the
# library's slot is killed (kill -9): its replica takes over, the daemon
# carries on without a restart, and every book copied in, before and
# after the kill, ends up listed in similar/ of the one it is a near
# duplicate of.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/viewlib.sh"
REDIS_CASE_TIMEOUT=300
. "$(dirname "$0")/redislib.sh"
trap '_rc=$?; set +e; ( (exit $_rc); lib_cleanup ); (exit $_rc); redis_cleanup' EXIT
command -v python3 >/dev/null || skip "no python3"
FS_ARGS=()
N=16

mkdir -p "$T/gen"
python3 - "$(dirname "$0")" "$T/gen" "$N" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import wordgen
d, n, g = sys.argv[2], int(sys.argv[3]), wordgen.Gen(7203)
wordgen.put(d, "base.txt", g.text(1, 4000))
for i in range(n):
    wordgen.put(d, "near-%02d.txt" % i, g.text(1, 4000, 100 + i, 0.01 + 0.001 * i))
PY
redis_cluster
cp "$T/gen/base.txt" "$SRC/"
# a comma inside -o is escaped (libfuse splits options at bare commas)
mount_fs -o "index=${CLUSTER_URI//,/\\,}/fo" -o rescan=0
wait_idle 60
slot=$(rcli "${CLUSTER_PORTS[0]}" cluster keyslot '{fo}:v')
victim=
for p in $(redis_masters); do
	[ "$(rcli "$p" cluster countkeysinslot "$slot")" -gt 0 ] && victim=$p
done
[ -n "$victim" ] || fail "no master holds the library's slot $slot"
say "the library is on master $victim (slot $slot)"

for i in $(seq 0 $((N - 1))); do
	n=$(printf '%02d' "$i")
	cp "$T/gen/near-$n.txt" "$MNT/" || fail "copy $n into the mount"
	if [ "$i" -eq 4 ]; then
		say "killing master $victim"
		redis_kill "$victim"
	fi
	sleep 0.3
done
alive "$FS_PID" || fail "the daemon died"
wait_idle 120
mapfile -t now < <(redis_masters)
[ "${#now[@]}" -eq 3 ] || fail "no replica took over: ${now[*]}"
for i in $(seq 0 $((N - 1))); do
	n=$(printf '%02d' "$i")
	until_ok 30 has_entry base.txt "near-$n.txt" || fail "near-$n.txt not in similar/base.txt/"
done
grep -q '"failed":0' "$MNT/.simbookfs/status" || fail "books failed: $(cat "$MNT/.simbookfs/status")"
echo "ok - $N books copied in across the failover, all listed; the daemon carried on"
umount_fs
