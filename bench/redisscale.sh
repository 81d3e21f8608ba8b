#!/usr/bin/env bash
# redisscale.sh - the Redis index at scale beside LMDB, in the same run:
# a generated library of N books (famlib.py: families of 4) fingerprinted
# once by `simbook fingerprint --records` (kept in CACHE for the next run),
# the records imported by `simbook import` into an LMDB folder, a single
# Redis node and a 3-master 3-replica cluster on loopback (records/s of
# the loading and of the whole import), the server memory the library
# takes (used_memory after the import less before, over the masters; per
# book; and MEMORY USAGE of each key of the single node), then each index
# mounted (-o index=, -o rescan=0) and similar/ of Q distinct books listed
# once each (p50, p99, max in ms).  Not a test.
#   bench/redisscale.sh [BUILD] [N] [WORDS] [Q] [CACHE]
#   (default: build 1000 1000 200, CACHE a temporary folder)
set -euo pipefail
export SIMBOOK_BUILD=$(cd "${1:-build}" && pwd)
N=${2:-1000} WORDS=${3:-1000} Q=${4:-200} CACHE=${5:-}
export REDIS_CASE_TIMEOUT=${REDIS_CASE_TIMEOUT:-20000}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../tests/integration/redislib.sh"
SB=$SIMBOOK_BUILD/simbook FS=$SIMBOOK_BUILD/simbookfs
[ -n "$CACHE" ] || CACHE=$RT/cache
CACHE=$CACHE/famlib-$N-$WORDS
SRC=$CACHE/src MNT=$RT/mnt
mkdir -p "$CACHE" "$MNT"
trap 'fusermount3 -u -z "$MNT" 2>/dev/null || true; redis_cleanup' EXIT

if [ ! -s "$CACHE/records.done" ]; then
	rm -rf "$SRC" "$CACHE/records"
	python3 "$here/famlib.py" "$SRC" "$N" "$WORDS"
	t0=$(date +%s.%N)
	(cd "$SRC" && find . -type f -print0 | xargs -0 -P"$(nproc)" -n 256 "$SB" fingerprint --records \
		>>"$CACHE/records" 2>"$CACHE/records.err")
	printf 'fingerprinted %s books in %.1f s\n' "$N" "$(echo "$(date +%s.%N) - $t0" | bc)" \
		>"$CACHE/records.done"
fi
cat "$CACHE/records.done"
nrec=$(wc -l <"$CACHE/records")

used() { # ports...: used_memory summed
	local p s=0
	for p in "$@"; do
		s=$((s + $(rcli "$p" info memory | sed -n 's/^used_memory:\([0-9]*\).*/\1/p')))
	done
	echo "$s"
}

import_one() { # label index: "wall_s load_s"
	local t0 t1
	t0=$(date +%s.%N)
	(cd "$SRC" && "$SB" import --index "$2" --library . "$CACHE/records") >"$RT/$1.out" 2>"$RT/$1.err" ||
		{ echo "# $1: import failed: $(tail -n 3 "$RT/$1.err")" >&2; }
	t1=$(date +%s.%N)
	printf '%.2f %s\n' "$(echo "$t1 - $t0" | bc)" \
		"$(sed -n 's/.*(\([0-9.]*\) s loading).*/\1/p' "$RT/$1.out")"
}

list_one() { # label index: p50 p99 max of listing similar/ of Q books
	local pid
	"$FS" "$SRC" "$MNT" -f -o "index=${2//,/\\,}" -o rescan=0 >"$RT/$1.fs" 2>&1 &
	pid=$!
	for _ in $(seq 600); do grep -q " $MNT fuse" /proc/mounts && break; sleep 0.05; done
	for _ in $(seq 6000); do
		grep -q '"state":"idle"' "$MNT/.simbookfs/status" 2>/dev/null && break
		sleep 0.1
	done
	python3 - "$MNT" "$Q" "$RT/$1.lists" <<'EOF2'
import os, random, sys, time
mnt, q = sys.argv[1], int(sys.argv[2])
sim = os.path.join(mnt, "similar")
books = sorted(os.path.join(d, f) for d in os.listdir(sim)
               if os.path.isdir(os.path.join(sim, d)) for f in os.listdir(os.path.join(sim, d)))
random.Random(1).shuffle(books)
ts, out = [], []
for b in books[:q]:
    t0 = time.perf_counter()
    names = os.listdir(os.path.join(sim, b))
    ts.append((time.perf_counter() - t0) * 1000)
    out.append("%s\t%s" % (b, " ".join(sorted(names))))
open(sys.argv[3], "w").write("\n".join(out) + "\n")
ts.sort()
print("%.2f %.2f %.2f %d" % (ts[len(ts) // 2], ts[min(len(ts) - 1, int(len(ts) * 0.99))], ts[-1], len(ts)))
EOF2
	fusermount3 -u "$MNT"
	wait "$pid" || true
}

echo "# redisscale: $N books of $WORDS words, $nrec records, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
read -r lw ll < <(import_one lmdb "$RT/ix")
read -r l50 l99 lmax nq < <(list_one lmdb "$RT/ix")
rm -rf "$RT/ix"

redis_single
m0=$(used "$REDIS_PORT")
read -r sw sl < <(import_one single "$REDIS_URI/bench")
m1=$(used "$REDIS_PORT")
read -r s50 s99 smax _ < <(list_one single "$REDIS_URI/bench")
echo "# one node: keys of the library (MEMORY USAGE bytes, rows):"
for k in $(rcli "$REDIS_PORT" --scan --pattern '{bench}:*' | sort); do
	t=$(rcli "$REDIS_PORT" type "$k")
	case $t in
	zset) rows=$(rcli "$REDIS_PORT" zcard "$k") ;;
	hash) rows=$(rcli "$REDIS_PORT" hlen "$k") ;;
	*) rows=1 ;;
	esac
	echo "#   $k $t $(rcli "$REDIS_PORT" memory usage "$k" samples 0) $rows"
done
kill -9 "${REDIS_PIDS[$REDIS_PORT]}"; wait "${REDIS_PIDS[$REDIS_PORT]}" 2>/dev/null || true
unset "REDIS_PIDS[$REDIS_PORT]"

redis_cluster
mapfile -t masters < <(redis_masters)
c0=$(used "${masters[@]}")
read -r cw cl < <(import_one cluster "$CLUSTER_URI/bench")
c1=$(used "${masters[@]}")
read -r c50 c99 cmax _ < <(list_one cluster "$CLUSTER_URI/bench")

for f in single cluster; do
	cmp -s "$RT/lmdb.lists" "$RT/$f.lists" || echo "# $f: similar/ lists differ from LMDB's"
done
rs() { echo "scale=0; $nrec / $1" | bc; }
echo "| index | import wall s | records/s | loading s | records/s | similar/ p50 ms | p99 ms | max ms | server bytes/book |"
echo "|---|--:|--:|--:|--:|--:|--:|--:|--:|"
echo "| LMDB | $lw | $(rs "$lw") | $ll | $(rs "$ll") | $l50 | $l99 | $lmax | |"
echo "| Redis, one node | $sw | $(rs "$sw") | $sl | $(rs "$sl") | $s50 | $s99 | $smax | $(((m1 - m0) / N)) |"
echo "| Redis Cluster 3+3 | $cw | $(rs "$cw") | $cl | $(rs "$cl") | $c50 | $c99 | $cmax | $(((c1 - c0) / N)) |"
echo "# $nq listings each"
