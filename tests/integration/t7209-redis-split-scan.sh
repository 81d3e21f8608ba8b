#!/usr/bin/env bash
# t7209: mounts of one library started together on one Redis index split
# the start-up scan: each claims a book (a key with an expiry in the
# library's slot) before fingerprinting it and leaves the books another
# mount claimed, so three mounts of a new library of 120 books fingerprint
# 120 books in all (the sum of their "indexed_since_mount"), every mount
# sees every book and their views are the same.  Then the claims of a
# mount that died (keys left in Redis with no live holder) hold a fresh
# library's books off until they expire, and a mount takes them over.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/viewlib.sh"
REDIS_CASE_TIMEOUT=300
SIMBOOK_CASE_TIMEOUT=300
. "$(dirname "$0")/redislib.sh"
MNTS=("$MNT" "$T/mnt2" "$T/mnt3")
PIDS=()
trap '_rc=$?; set +e; for m in "${MNTS[@]:1}"; do fusermount3 -u -z "$m" 2>/dev/null; done
	for p in "${PIDS[@]:1}"; do kill -9 "$p" 2>/dev/null; done
	( (exit $_rc); lib_cleanup ); (exit $_rc); redis_cleanup' EXIT
command -v python3 >/dev/null || skip "no python3"
FS_ARGS=()
NB=120
mkdir -p "${MNTS[@]:1}" "$T/src2"
# 30 families of 4 near duplicates (2% of the words changed), in 3 folders
python3 - "$(dirname "$0")" "$SRC" "$T/src2" <<'PY'
import os, sys
sys.path.insert(0, sys.argv[1])
import wordgen
g = wordgen.Gen(7205)
for f in range(30):
    d = os.path.join(sys.argv[2], "d%d" % (f % 3))
    os.makedirs(d, exist_ok=True)
    for v in range(4):
        wordgen.put(d, "f%02d-%d.txt" % (f, v), g.text(100 + f, 3000, 1000 * f + v, 0.02))
for f in range(5):
    for v in range(2):
        wordgen.put(sys.argv[3], "g%d-%d.txt" % (f, v), g.text(200 + f, 3000, 50 + v, 0.02))
PY
redis_single
URI=$REDIS_URI/split

status() { cat "${MNTS[$1]}/.simbookfs/status"; }
field() { # mount field: a number of the status
	status "$1" | grep -o "\"$2\":[0-9]*" | head -n 1 | cut -d: -f2
}
# all mounts idle with every book
settled() { # n mounts...
	local n=$1 i
	shift
	for i in "$@"; do
		status "$i" | grep -q '"state":"idle"' || return 1
		[ "$(field "$i" books)" = "$n" ] || return 1
	done
}

# the three mounts started at once (A's pid for lib.sh's cleanup)
FS_LOG=$T/fs.log
for i in 0 1 2; do
	"$FS_BIN" "$SRC" "${MNTS[$i]}" -f -o "index=$URI" -o rescan=0 >>"$T/m$i.log" 2>&1 &
	PIDS[$i]=$!
done
FS_PID=${PIDS[0]} FS_MNT=$MNT
for i in 0 1 2; do
	wait_mounted "${MNTS[$i]}" "${PIDS[$i]}" || fail "mount $i: $(cat "$T/m$i.log")"
done
until_ok 120 settled $NB 0 1 2 || fail "not every mount idle with $NB books: $(status 0; status 1; status 2)"
echo "ok - three mounts started together each see the $NB books"

total=0
for i in 0 1 2; do
	n=$(field "$i" indexed_since_mount)
	say "mount $i fingerprinted $n books"
	total=$((total + n))
done
[ "$total" -eq "$NB" ] || fail "$total books fingerprinted for $NB books"
echo "ok - $NB books fingerprinted once in all ($total)"

views() { # mount: every book's similar/ folder and clusters/, listed
	(cd "${MNTS[$1]}" && for b in d?/*.txt; do echo "== $b"; ls "similar/$b"; done &&
		find clusters | sort)
}
views 0 >"$T/v0"
grep -c ' near duplicate - ' "$T/v0" >/dev/null || fail "no near duplicates listed: $(head "$T/v0")"
[ "$(grep -c ' near duplicate - ' "$T/v0")" -ge $((NB * 3)) ] ||
	fail "fewer than 3 near duplicates a book: $(grep -c ' near duplicate - ' "$T/v0")"
for i in 1 2; do
	views "$i" >"$T/v$i"
	diff "$T/v0" "$T/v$i" >&2 || fail "mount $i's views differ from A's"
done
echo "ok - the three mounts' similar/ and clusters/ are the same"
for i in 2 1; do
	fusermount3 -u "${MNTS[$i]}"
	wait "${PIDS[$i]}" || fail "mount $i exited with $?: $(tail "$T/m$i.log")"
	PIDS[$i]=
done
fusermount3 -u "$MNT"
wait "$FS_PID" || fail "mount 0 exited with $?: $(tail "$T/m0.log")"
FS_PID= FS_MNT=

# A dead mount's claims on books 1-12 (its id, no live holder), 3 s left:
# a mount of a new library leaves those books until then, then does them.
URI2=$REDIS_URI/split2
for id in $(seq 12); do
	rcli "$REDIS_PORT" SET "{split2}:c:book:$id" dead PX 3000 >/dev/null
done
t0=$(date +%s%N)
mount_fs "$T/src2" "$MNT" -o "index=$URI2" -o rescan=0
until_ok 60 settled 10 0 || fail "the books of a dead claimer never indexed: $(status 0)"
ms=$((($(date +%s%N) - t0) / 1000000))
say "the 10 books were all in after $ms ms"
[ "$ms" -ge 2500 ] || fail "indexed after $ms ms: the dead mount's claims were not respected"
[ "$(field 0 indexed_since_mount)" = 10 ] || fail "$(status 0)"
[ "$(rcli "$REDIS_PORT" --scan --pattern '{split2}:c:*' | wc -l)" = 0 ] ||
	fail "claims left behind: $(rcli "$REDIS_PORT" --scan --pattern '{split2}:c:*')"
echo "ok - a dead mount's claims expire and another mount takes its books over"
umount_fs
