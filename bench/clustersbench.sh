#!/usr/bin/env bash
# clustersbench.sh [-n BOOKS] [-w WORDS]
#
# clusters/ listed through a mount at scale: bench_views (make bench) writes
# and indexes BOOKS synthetic books (groups of 5 near duplicates) and keeps
# them; then simbookfs mounts them with that index and this times
#   ls clusters/          the first listing (the group view is built now:
#                         stored links, members' entries, titles, names)
#   ls clusters/ again    served from the group view
#   after a rename        a rename through the mount moves the index
#                         generation; the next listing rebuilds the view
#   find clusters/        every group folder listed (readdir + lstat)
# against the same `ls` of a native directory holding as many folders.
# Not a test; prints numbers.  bench_views' own output comes first.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
N=100000 WORDS=1000
while getopts "n:w:" o; do
	case $o in n) N=$OPTARG;; w) WORDS=$OPTARG;; *) exit 2;; esac
done
B=${SIMBOOK_BUILD:-$top/build}
OUT=$(mktemp)
SRC= IDX= MNT= NAT= PID=
cleanup() {
	set +e
	[ -n "$MNT" ] && grep -q " $MNT fuse" /proc/mounts && fusermount3 -u -z "$MNT"
	[ -n "$PID" ] && kill "$PID" 2>/dev/null
	[ -n "$SRC" ] && rm -rf "$SRC" "$IDX"
	[ -n "$MNT" ] && rmdir "$MNT"
	[ -n "$NAT" ] && rm -rf "$NAT"
	rm -f "$OUT"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

"$B/bench/bench_views" --n "$N" --words "$WORDS" --queries 200 --keep 1 | tee "$OUT"
read -r SRC IDX < <(sed -n 's/^# kept //p' "$OUT")
[ -d "$SRC" ] && [ -d "$IDX" ] || { echo "clustersbench: bench_views kept nothing" >&2; exit 1; }
MNT=$(mktemp -d) NAT=$(mktemp -d)
"$B/simbookfs" "$SRC" "$MNT" -f -o "index=$IDX,rescan=0,nowatch" >"$OUT.fs" 2>&1 &
PID=$!
for _ in $(seq 200); do grep -q " $MNT fuse" /proc/mounts && break; sleep 0.05; done
grep -q " $MNT fuse" /proc/mounts || { echo "mount failed: $(cat "$OUT.fs")" >&2; exit 1; }
while ! grep -q '"state":"idle"' "$MNT/.simbookfs/status" 2>/dev/null; do sleep 0.1; done
now() { date +%s.%N; }
t0=$(now); ng=$(ls "$MNT/clusters" | wc -l); t1=$(now)
echo "ls clusters/, first listing (view built)   $(echo "$t1 - $t0" | bc) s  ($ng groups, load $(cut -d' ' -f1 /proc/loadavg))"
t0=$(now); ls "$MNT/clusters" >/dev/null; t1=$(now)
echo "ls clusters/ again                          $(echo "$t1 - $t0" | bc) s"
mv "$MNT/d000/book000001.txt" "$MNT/d000/book000001-renamed.txt"
t0=$(now); ls "$MNT/clusters" >/dev/null; t1=$(now)
echo "ls clusters/ after a rename                 $(echo "$t1 - $t0" | bc) s"
t0=$(now); nf=$(find "$MNT/clusters" | wc -l); t1=$(now)
echo "find clusters/ (every group folder)         $(echo "$t1 - $t0" | bc) s  ($nf entries)"
for i in $(seq "$ng"); do echo "g$i"; done | (cd "$NAT" && xargs mkdir)
t0=$(now); ls "$NAT" >/dev/null; t1=$(now)
echo "baseline: ls of a native dir of $ng folders  $(echo "$t1 - $t0" | bc) s"
echo "daemon RSS                                  $(awk '/^(VmRSS|RssAnon|RssFile)/ {printf "%s %s %s  ", $1, $2, $3}' /proc/$PID/status)(RssFile: the LMDB map and files)"
