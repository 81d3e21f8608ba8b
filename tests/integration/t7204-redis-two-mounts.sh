#!/usr/bin/env bash
# t7204: two mounts of one library sharing a Redis index.  Mount B runs
# with -o nowatch, so what it learns of a book written through mount A
# comes from the index alone: A fingerprints it and commits, and publishes
# the change; B, subscribed, drops what its kernel holds of the views.  B
# only stats similar/base.txt/.similar.tsv, an entry its kernel keeps
# (cache_timeout: an hour) and never asks B about again unless B drops it,
# so the size moves only when the message came through: the new size
# shows in B within 1 s of the book showing in A's similar/.  B
# fingerprints nothing itself.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/viewlib.sh"
REDIS_CASE_TIMEOUT=200
. "$(dirname "$0")/redislib.sh"
MNT2=$T/mnt2
BPID=
trap '_rc=$?; set +e; fusermount3 -u -z "$MNT2" 2>/dev/null || true; [ -z "$BPID" ] || kill -9 "$BPID" 2>/dev/null || true;
	( (exit $_rc); lib_cleanup ); (exit $_rc); redis_cleanup' EXIT
command -v python3 >/dev/null || skip "no python3"
FS_ARGS=()
mkdir -p "$MNT2" "$T/gen"
python3 - "$(dirname "$0")" "$T/gen" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import wordgen
d, g = sys.argv[2], wordgen.Gen(7204)
wordgen.put(d, "base.txt", g.text(1, 5000))
for i in range(3):
    wordgen.put(d, "near-%d.txt" % i, g.text(1, 5000, 10 + i, 0.02))
wordgen.put(d, "other.txt", g.text(2, 5000))
PY
redis_single
URI=$REDIS_URI/two
cp "$T/gen/base.txt" "$T/gen/other.txt" "$SRC/"
mount_fs -o "index=$URI" -o rescan=0
wait_idle 60
"$FS_BIN" "$SRC" "$MNT2" -f -o "index=$URI" -o rescan=0,nowatch >>"$T/b.log" 2>&1 &
BPID=$!
wait_mounted "$MNT2" "$BPID" || fail "mount B: $(cat "$T/b.log")"
for i in $(seq 100); do
	grep -q '"state":"idle"' "$MNT2/.simbookfs/status" && break
	sleep 0.1
done
grep -q '"books":2,' "$MNT2/.simbookfs/status" || fail "B does not see A's books: $(cat "$MNT2/.simbookfs/status")"
echo "ok - mount B opens the shared index with A's books"

listed() { # mount book
	local e
	for e in "$1/similar/base.txt"/*; do
		[ -L "$e" ] && [ "$(basename "$(readlink "$e")")" = "$2" ] && return 0
	done
	return 1
}
tsv_size() { stat -c %s "$MNT2/similar/base.txt/.similar.tsv"; }
worst=0
for i in 0 1 2; do
	s0=$(tsv_size)	# B's kernel keeps it from now on
	cp "$T/gen/near-$i.txt" "$MNT/" || fail "copy into A"
	ta= tb=
	t0=$(date +%s%N)
	for k in $(seq 400); do
		now=$(date +%s%N)
		[ -z "$ta" ] && listed "$MNT" "near-$i.txt" && ta=$now
		[ -z "$tb" ] && [ "$(tsv_size)" != "$s0" ] && tb=$now
		[ -n "$ta" ] && [ -n "$tb" ] && break
		sleep 0.02
	done
	[ -n "$ta" ] || fail "near-$i.txt never listed in A"
	[ -n "$tb" ] || fail "B's similar/base.txt/.similar.tsv still $s0 bytes after 8 s: the change never reached B"
	listed "$MNT2" "near-$i.txt" || fail "near-$i.txt not listed in B"
	lag=$(( (tb - ta) / 1000000 ))
	[ "$lag" -lt 0 ] && lag=0
	say "near-$i.txt: in A after $(( (ta - t0) / 1000000 )) ms, in B's cached entry $lag ms later"
	[ "$lag" -gt "$worst" ] && worst=$lag
done
[ "$worst" -le 1000 ] || fail "B saw a change $worst ms after A (more than 1 s)"
echo "ok - a book written through A is in B's (cached) similar/ at most $worst ms after A's"
grep -q '"indexed_since_mount":0,' "$MNT2/.simbookfs/status" ||
	fail "B fingerprinted books itself: $(cat "$MNT2/.simbookfs/status")"
echo "ok - B fingerprinted nothing"
grep -q '"books":5,' "$MNT2/.simbookfs/status" || fail "B's count: $(cat "$MNT2/.simbookfs/status")"
fusermount3 -u "$MNT2"
wait "$BPID" || fail "mount B exited with $?: $(tail "$T/b.log")"
BPID=
umount_fs
echo "ok - both unmounted cleanly"
