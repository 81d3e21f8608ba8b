#!/usr/bin/env bash
# redisbench.sh - the index on Redis beside LMDB, in the same run: a
# generated library of N books (families of 4: a book, two near copies
# with 2% of the words changed, its first third; importbench.sh's) indexed
# by `simbook index` into an LMDB folder, a single Redis node and a
# 3-master 3-replica cluster on loopback (wall and CPU seconds of the
# simbook process; the servers' own CPU is not in it), then each index
# mounted (-o index=) and similar/ of Q distinct books listed once each
# (p50, p99, max in ms).  Not a test.
#   bench/redisbench.sh [BUILD] [N] [WORDS] [Q]     (default: build 1000 2000 200)
set -euo pipefail
export SIMBOOK_BUILD=$(cd "${1:-build}" && pwd)
N=${2:-1000} WORDS=${3:-2000} Q=${4:-200}
export REDIS_CASE_TIMEOUT=3000
source "$(dirname "$0")/../tests/integration/redislib.sh"
SB=$SIMBOOK_BUILD/simbook FS=$SIMBOOK_BUILD/simbookfs
SRC=$RT/src MNT=$RT/mnt
mkdir -p "$SRC" "$MNT"
trap 'fusermount3 -u -z "$MNT" 2>/dev/null || true; redis_cleanup' EXIT

python3 "$(dirname "$0")/famlib.py" "$SRC" "$N" "$WORDS"

index_one() { # label index
	local t0 t1
	t0=$(date +%s.%N)
	/usr/bin/time -o "$RT/$1.time" -f '%U %S' "$SB" index "$SRC" --index "$2" --quiet \
		>"$RT/$1.out" 2>&1 || true
	t1=$(date +%s.%N)
	printf '%s %.2f %.2f\n' "$1" "$(echo "$t1 - $t0" | bc)" \
		"$(awk '{ print $1 + $2 }' "$RT/$1.time")"
}

list_one() { # label index: p50 p99 max of listing similar/ of Q books
	local pid
	"$FS" "$SRC" "$MNT" -f -o "index=${2//,/\\,}" -o rescan=0 >"$RT/$1.fs" 2>&1 &
	pid=$!
	for _ in $(seq 200); do grep -q " $MNT fuse" /proc/mounts && break; sleep 0.05; done
	for _ in $(seq 600); do
		grep -q '"state":"idle"' "$MNT/.simbookfs/status" 2>/dev/null && break
		sleep 0.1
	done
	python3 - "$MNT" "$Q" <<'EOF2'
import os, random, sys, time
mnt, q = sys.argv[1], int(sys.argv[2])
books = sorted(os.path.join(d, f) for d in os.listdir(os.path.join(mnt, "similar"))
               if os.path.isdir(os.path.join(mnt, "similar", d))
               for f in os.listdir(os.path.join(mnt, "similar", d)))
random.Random(1).shuffle(books)
ts = []
for b in books[:q]:
    t0 = time.perf_counter()
    os.listdir(os.path.join(mnt, "similar", b))
    ts.append((time.perf_counter() - t0) * 1000)
ts.sort()
print("%.2f %.2f %.2f %d" % (ts[len(ts) // 2], ts[min(len(ts) - 1, int(len(ts) * 0.99))], ts[-1], len(ts)))
EOF2
	fusermount3 -u "$MNT"
	wait "$pid" || true
}

redis_single
redis_cluster
echo "# redisbench: $N books of $WORDS words, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
read -r _ lw lc < <(index_one lmdb "$RT/ix")
read -r _ sw sc < <(index_one single "$REDIS_URI/bench")
read -r _ cw cc < <(index_one cluster "$CLUSTER_URI/bench")
read -r l50 l99 lmax nq < <(list_one lmdb "$RT/ix")
read -r s50 s99 smax _ < <(list_one single "$REDIS_URI/bench")
read -r c50 c99 cmax _ < <(list_one cluster "$CLUSTER_URI/bench")
for f in single cluster; do
	cmp -s <(grep -o 'indexed.*books' "$RT/lmdb.out") <(grep -o 'indexed.*books' "$RT/$f.out") ||
		echo "# $f: $(cat "$RT/$f.out")"
done
echo "| index | simbook index wall s | CPU s | similar/ p50 ms | p99 ms | max ms |"
echo "|---|--:|--:|--:|--:|--:|"
echo "| LMDB | $lw | $lc | $l50 | $l99 | $lmax |"
echo "| Redis, one node | $sw | $sc | $s50 | $s99 | $smax |"
echo "| Redis Cluster 3+3 | $cw | $cc | $c50 | $c99 | $cmax |"
echo "# $nq listings each; Redis keys of the library: $(rcli "$REDIS_PORT" dbsize), used memory $(rcli "$REDIS_PORT" info memory | sed -n 's/^used_memory_human:\(.*\)\r*$/\1/p')"
