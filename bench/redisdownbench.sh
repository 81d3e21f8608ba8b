#!/usr/bin/env bash
# redisdownbench.sh - a mount on a Redis index whose server goes away
# (docs/BENCHMARKS.md "The Redis server away"): the passthrough's speed
# with and without the server in the same run (reading a 64 MiB file
# through the mount, best of 3; copying M books in through the mount,
# which with the server away costs a journal record each), and the time
# from the server's return (it answers PING) to every book copied in while
# it was away listing its family in similar/.  N books are indexed first;
# the M new ones are whole families (famlib.py's last M of N + M).  The
# server keeps an append-only file, so it comes back with the index.
# Not a test.
#   bench/redisdownbench.sh [BUILD] [N] [M] [ROUNDS]   (default: build 400 100 3)
set -euo pipefail
export SIMBOOK_BUILD=$(cd "${1:-build}" && pwd)
N=${2:-400} M=${3:-100} ROUNDS=${4:-3}
export REDIS_CASE_TIMEOUT=3000
source "$(dirname "$0")/../tests/integration/redislib.sh"
FS=$SIMBOOK_BUILD/simbookfs
SRC=$RT/src MNT=$RT/mnt
mkdir -p "$SRC" "$MNT"
trap 'fusermount3 -u -z "$MNT" 2>/dev/null || true; redis_cleanup' EXIT

python3 "$(dirname "$0")/famlib.py" "$RT/gen" $((N + M * ROUNDS)) 2000
head -c $((64 << 20)) /dev/urandom >"$SRC/big.bin"
# books 0..N-1 in SRC; each round's M after them wait in new.R/
python3 - "$RT/gen" "$SRC" "$RT" "$N" "$M" <<'PY'
import os, shutil, sys
gen, src, rt, n, m = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
for d in os.listdir(gen):
    for f in os.listdir(os.path.join(gen, d)):
        i = int(f[1:7])
        dest = src if i < n else os.path.join(rt, "new.%d" % ((i - n) // m))
        os.makedirs(os.path.join(dest, d), exist_ok=True)
        shutil.move(os.path.join(gen, d, f), os.path.join(dest, d, f))
PY

REDIS_PORT=$(redis_free_port)
redis_start_node "$REDIS_PORT" --cluster-enabled no --appendonly yes --appendfsync always
"$FS" "$SRC" "$MNT" -f -o "index=redis://127.0.0.1:$REDIS_PORT/bench" \
	-o "state_dir=$RT/state" -o rescan=0 >"$RT/fs.log" 2>&1 &
for _ in $(seq 200); do grep -q " $MNT fuse" /proc/mounts && break; sleep 0.05; done
ST=$MNT/.simbookfs/status
for _ in $(seq 1200); do grep -q '"state":"idle"' "$ST" 2>/dev/null && break; sleep 0.1; done

read_best() { # best of 3 reads of big.bin through the mount, in s
	local i t0 t1 best=999
	for i in 1 2 3; do
		t0=$(date +%s.%N)
		cat "$MNT/big.bin" >/dev/null
		t1=$(date +%s.%N)
		best=$(echo "if ($t1 - $t0 < $best) $t1 - $t0 else $best" | bc -l)
	done
	printf '%.3f' "$best"
}

copy_in() { # dir: seconds to copy its books into the mount
	local t0 t1
	t0=$(date +%s.%N)
	cp -r "$1/." "$MNT/"
	t1=$(date +%s.%N)
	printf '%.3f' "$(echo "$t1 - $t0" | bc -l)"
}

# every book of dir lists at least one other book in similar/
listed() { # dir
	python3 - "$1" "$MNT" <<'PY'
import os, sys
d, mnt = sys.argv[1], sys.argv[2]
for sub in os.listdir(d):
    for f in os.listdir(os.path.join(d, sub)):
        try:
            if not [e for e in os.listdir(os.path.join(mnt, "similar", sub, f))
                    if e != ".similar.tsv"]:
                sys.exit(1)
        except OSError:
            sys.exit(1)
PY
}

echo "# N=$N books indexed, M=$M books copied in per round, $ROUNDS rounds"
echo "round read-up-s read-down-s copy-up-s copy-down-s back-to-listed-s"
for r in $(seq 0 $((ROUNDS - 1))); do
	up=$(read_best)
	# a round's books copied with the server there: the same count, other
	# names (removed again before the outage)
	mkdir -p "$RT/up.$r"
	cp -r "$RT/new.$r/." "$RT/up.$r/"
	(cd "$RT/up.$r" && for f in */*.txt; do mv "$f" "${f%.txt}.up.txt"; done)
	cup=$(copy_in "$RT/up.$r")
	(cd "$RT/up.$r" && for f in */*.txt; do rm "$MNT/$f"; done)
	redis_kill "$REDIS_PORT"
	for _ in $(seq 300); do grep -q '"state":"unavailable"' "$ST" && break; sleep 0.1; done
	down=$(read_best)
	cdown=$(copy_in "$RT/new.$r")
	sleep 5		# the prober at its longest pause
	redis_restart "$REDIS_PORT"
	t0=$(date +%s.%N)
	until listed "$RT/new.$r"; do sleep 0.05; done
	t1=$(date +%s.%N)
	printf '%d %s %s %s %s %.2f\n' "$r" "$up" "$down" "$cup" "$cdown" "$(echo "$t1 - $t0" | bc -l)"
	for _ in $(seq 1200); do grep -q '"state":"idle"' "$ST" 2>/dev/null && break; sleep 0.1; done
done
fusermount3 -u "$MNT"
