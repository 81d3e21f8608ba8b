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
. "$(dirname "$0")/lib.sh"
N=100000 WORDS=1000
bench_init clustersbench "n:N w:WORDS" "$@"
OUT=$W/out NAT=$W/native
mkdir "$NAT"

# the library and index it keeps go into W with the rest
TMPDIR=$W "$BUILD/bench/bench_views" --n "$N" --words "$WORDS" --queries 200 --keep 1 | tee "$OUT"
read -r SRC IDX < <(sed -n 's/^# kept //p' "$OUT")
[ -d "$SRC" ] && [ -d "$IDX" ] || { echo "clustersbench: bench_views kept nothing" >&2; exit 1; }
bench_mount -o "index=$IDX,rescan=0,nowatch"
bench_wait_idle
t0=$(bench_now); ng=$(ls "$MNT/clusters" | wc -l); t1=$(bench_now)
echo "ls clusters/, first listing (view built)   $(echo "$t1 - $t0" | bc) s  ($ng groups, load $(cut -d' ' -f1 /proc/loadavg))"
t0=$(bench_now); ls "$MNT/clusters" >/dev/null; t1=$(bench_now)
echo "ls clusters/ again                          $(echo "$t1 - $t0" | bc) s"
mv "$MNT/d000/book000001.txt" "$MNT/d000/book000001-renamed.txt"
t0=$(bench_now); ls "$MNT/clusters" >/dev/null; t1=$(bench_now)
echo "ls clusters/ after a rename                 $(echo "$t1 - $t0" | bc) s"
t0=$(bench_now); nf=$(find "$MNT/clusters" | wc -l); t1=$(bench_now)
echo "find clusters/ (every group folder)         $(echo "$t1 - $t0" | bc) s  ($nf entries)"
for i in $(seq "$ng"); do echo "g$i"; done | (cd "$NAT" && xargs mkdir)
t0=$(bench_now); ls "$NAT" >/dev/null; t1=$(bench_now)
echo "baseline: ls of a native dir of $ng folders  $(echo "$t1 - $t0" | bc) s"
echo "daemon RSS                                  $(awk '/^(VmRSS|RssAnon|RssFile)/ {printf "%s %s %s  ", $1, $2, $3}' /proc/$PID/status)(RssFile: the LMDB map and files)"
