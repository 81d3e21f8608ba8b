#!/usr/bin/env bash
# fmbench.sh [-n ENTRIES] [-r ROUNDS] [-d DIR] [-- simbookfs options]
#
# What a file manager costs on a similar/<book>/ folder of ENTRIES entries
# (default 200): the library of tests/integration/genlib.py with ENTRIES-2
# near variants of one book, so similar/a/base1.txt/ lists ENTRIES entries.
# The client does what pcmanfm does per entry (traced in t6300): lstat,
# stat, readlink, access, lstat, stat, readlink after one readdir.
#   listing time   cold: the first listing after the mount went idle (the
#                  list read from the index, no entry known to the kernel);
#                  after a change: the first listing after an unrelated book was
#                  added (index generation moved, the views invalidated
#                  what the kernel cached), ROUNDS times, median; warm:
#                  ROUNDS more listings, median.
#                  Baseline: the same client on a native directory of as
#                  many relative symlinks, same run.
#   FUSE requests  per entry, by opcode, for the same three listings, from
#                  a second mount with -d (debug output is slow: not timed).
# Not a test; prints numbers.  Needs python3.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
N=200 ROUNDS=11
bench_init fmbench "n:N r:ROUNDS d:DIR" "$@"
mkdir -p "$W/native"

python3 "$top/tests/integration/genlib.py" "$SRC" --variants $((N - 2)) >/dev/null
BOOKDIR=similar/a/base1.txt
cat >"$W/client.py" <<'PY'
import os, sys, time
d, rounds = sys.argv[1], int(sys.argv[2])
for _ in range(rounds):
    t0 = time.perf_counter()
    names = [n for n in os.listdir(d) if not n.startswith(".")]
    for n in names:
        p = os.path.join(d, n)
        os.lstat(p); os.stat(p); os.readlink(p); os.access(p, os.R_OK)
        os.lstat(p); os.stat(p); os.readlink(p)
    print("%.3f %d" % ((time.perf_counter() - t0) * 1000, len(names)))
PY
client() { python3 "$W/client.py" "$@"; }
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

# A change elsewhere in the library: one more unrelated book.
change() { # n
	python3 - "$SRC/other-$1.txt" "$1" <<'PY'
import random, sys
r = random.Random(int(sys.argv[2]))
open(sys.argv[1], "w").write(" ".join("w%d" % r.randrange(50000) for _ in range(5000)) + "\n")
PY
}
echo "# $N entries, load $(cut -d' ' -f1-3 /proc/loadavg)"

# Native baseline: as many relative symlinks to real files.
mkdir -p "$W/native/similar/a/base1.txt"
i=0
for f in "$SRC"/near/*.txt "$SRC"/b/*.txt "$SRC"/c/*.txt; do
	i=$((i + 1))
	ln -s "../../../../src/${f#"$SRC"/}" "$W/native/similar/a/base1.txt/$(printf '%03d' $i) link - ${f##*/}"
done
nat=$(client "$W/native/$BOOKDIR" $((ROUNDS + 1)) | tail -n "$ROUNDS" | median)

say_ms() { printf '%-48s %8s ms  (%s entries)\n' "$1" "$2" "$3"; }
# CPU time of the daemon's live threads, ns.
cpu_ns() { cat /proc/"$PID"/task/*/schedstat 2>/dev/null | awk '{s += $1} END {printf "%d", s}'; }
# Waits until the daemon is quiet (under 1 ms of CPU in 0.2 s, at most
# 20 s): the views' thread builds the group views after each change, which
# is not the listing's work.
settle() {
	local a b i
	for i in $(seq 100); do
		a=$(cpu_ns); sleep 0.2; b=$(cpu_ns)
		[ $((b - a)) -lt 1000000 ] && return
	done
}
bench_mount -o rescan=0 "${FSOPTS[@]}"
bench_wait_idle
settle
read -r cold n < <(client "$MNT/$BOOKDIR" 1)
for r in $(seq 1 "$ROUNDS"); do
	change "$r"
	bench_wait_idle
	settle	# and the views' thread invalidates ~5 ms after the change
	client "$MNT/$BOOKDIR" 1 >>"$W/chg"
done
warm=$(client "$MNT/$BOOKDIR" "$ROUNDS" | median)
say_ms "listing, cold (first after mount)" "$cold" "$n"
say_ms "listing, first after an index change (median)" "$(median <"$W/chg")" "$n"
say_ms "listing, warm (median of $ROUNDS)" "$warm" "$n"
say_ms "baseline: native folder of symlinks, warm" "$nat" "$n"
bench_umount
rm -f "$SRC"/other-*.txt

# FUSE requests: the same three listings on a -d mount, between markers
# (lookups of names that do not exist; the request line comes before the
# path line in -d output).
bench_mount -o rescan=0 -d "${FSOPTS[@]}"
bench_wait_idle
stat "$MNT/.mark-cold" >/dev/null 2>&1 || true
client "$MNT/$BOOKDIR" 1 >/dev/null
stat "$MNT/.mark-change" >/dev/null 2>&1 || true
change 2
bench_wait_idle
sleep 0.1
stat "$MNT/.mark-changed" >/dev/null 2>&1 || true
client "$MNT/$BOOKDIR" 1 >/dev/null
stat "$MNT/.mark-warm" >/dev/null 2>&1 || true
client "$MNT/$BOOKDIR" 1 >/dev/null
stat "$MNT/.mark-end" >/dev/null 2>&1 || true
bench_umount
awk -v n="$n" '
	/LOOKUP \/\.mark-cold/ { ph = "cold" ; next }
	/LOOKUP \/\.mark-change$/ { ph = "" ; next }
	/LOOKUP \/\.mark-changed/ { ph = "after-change" ; next }
	/LOOKUP \/\.mark-warm/ { ph = "warm" ; next }
	/LOOKUP \/\.mark-end/ { ph = "" ; next }
	ph != "" && /opcode:/ { op = $5; c[ph, op]++; t[ph]++; ops[op] = 1 }
	END {
		# Each phase ends with the next marker'"'"'s own LOOKUP: not the client'"'"'s.
		split("cold after-change warm", phs, " ")
		for (i = 1; i <= 3; i++) { t[phs[i]]--; c[phs[i], "LOOKUP"]-- }
		split("cold after-change warm", phs, " ")
		for (i = 1; i <= 3; i++) {
			p = phs[i]; s = ""
			for (op in ops) if (c[p, op]) s = s sprintf(" %s %d", op, c[p, op])
			printf "FUSE requests, %-13s %5d = %.2f per entry:%s\n", p, t[p], t[p] / n, s
		}
	}' "$W/fs.log"
