#!/usr/bin/env bash
# fsbench.sh [-s SIZE_MIB] [-n FILES] [-d DIR] [-- simbookfs options]
#
# Native vs through simbookfs on the same files, in one run, each row as a
# ratio (time through the mount / native time; < 1 means faster):
#   read first     SIZE MiB sequential read through a fresh mount (SRC's
#                  pages cached, the mount's not) vs a cached native read
#   re-read        the same read again through the mount
#   write+fsync    SIZE MiB overwrite in 1 MiB writes, then fsync
#   create/stat/unlink  FILES small files (stat: second, cached pass)
#   ls -l cold/warm     ls -l of a FILES-entry directory right after
#                  mounting, then again; native is a cached ls -l
# Best of 3 for every row (the machine is shared: the load average is
# printed).  Uses DIR (default: a temp dir under $TMPDIR or /tmp) for
# about SIZE MiB.  Run as root for the read-ahead setting.  Not a test.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
SIZE=1024 FILES=10000
bench_init fsbench "s:SIZE n:FILES d:DIR" "$@"
FSB=$BUILD/bench/fsbench
[ -x "$FSB" ] || { echo "fsbench: run 'make bench' first" >&2; exit 1; }
secs() { # cmd...: wall seconds
	local t0=$EPOCHREALTIME
	"$@" >/dev/null
	awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.6f\n", b - a }'
}
best() { printf '%s\n' "$@" | sort -g | head -n1; }
row() { # name native mount target
	awk -v n="$1" -v a="$2" -v b="$3" -v t="$4" \
		'BEGIN { printf "%-14s %10.4f %10.4f %7.2f   %s\n", n, a, b, b / a, t }'
}
rd() { dd if="$1" of=/dev/null bs=1M status=none; }
wr() { dd if=/dev/zero of="$1" bs=1M count="$SIZE" conv=notrunc,fsync status=none; }

echo "simbookfs fsbench: $SIZE MiB file, $FILES files, $(nproc) CPUs, $(uname -r)"
echo "options: ${FSOPTS[*]:-(defaults)}; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
dd if=/dev/urandom of="$SRC/big" bs=1M count="$SIZE" status=none
rd "$SRC/big"
mkdir "$SRC/many"
"$FSB" create "$SRC/many" "$FILES" >/dev/null

n=() f=() r=()
for _ in 1 2 3; do
	n+=("$(secs rd "$SRC/big")")
	bench_mount "${FSOPTS[@]}"
	f+=("$(secs rd "$MNT/big")")
	r+=("$(secs rd "$MNT/big")")
	bench_umount
done
nat_read=$(best "${n[@]}")
printf '%-14s %10s %10s %7s   %s\n' test native mount ratio target
row "read first" "$nat_read" "$(best "${f[@]}")" "<= 4 (hp 6.2)"
row "re-read" "$nat_read" "$(best "${r[@]}")" "<= 1.2 (hp 1.34)"

n=() m=()
bench_mount "${FSOPTS[@]}"
for _ in 1 2 3; do
	n+=("$(secs wr "$SRC/big")")
	m+=("$(secs wr "$MNT/big")")
done
row "write+fsync" "$(best "${n[@]}")" "$(best "${m[@]}")" "<= 4 (hp 5.8)"

mkdir "$SRC/small"
nc=() ns=() nu=() mc=() ms=() mu=()
for _ in 1 2 3; do
	nc+=("$("$FSB" create "$SRC/small" "$FILES")")
	"$FSB" stat "$SRC/small" "$FILES" >/dev/null
	ns+=("$("$FSB" stat "$SRC/small" "$FILES")")
	nu+=("$("$FSB" unlink "$SRC/small" "$FILES")")
	mc+=("$("$FSB" create "$MNT/small" "$FILES")")
	"$FSB" stat "$MNT/small" "$FILES" >/dev/null
	ms+=("$("$FSB" stat "$MNT/small" "$FILES")")
	mu+=("$("$FSB" unlink "$MNT/small" "$FILES")")
done
row "create" "$(best "${nc[@]}")" "$(best "${mc[@]}")" "<= 8 (hp 9.4)"
row "stat (cached)" "$(best "${ns[@]}")" "$(best "${ms[@]}")" "<= 2 (hp 6.6)"
row "unlink" "$(best "${nu[@]}")" "$(best "${mu[@]}")" "<= 5.1 (hp)"
bench_umount

n=() c=() w=()
for _ in 1 2 3; do
	ls -l "$SRC/many" >/dev/null
	n+=("$(secs ls -l "$SRC/many")")
	bench_mount "${FSOPTS[@]}"
	c+=("$(secs ls -l "$MNT/many")")
	w+=("$(secs ls -l "$MNT/many")")
	bench_umount
done
row "ls -l cold" "$(best "${n[@]}")" "$(best "${c[@]}")" "<= 1.5 (hp 1.74)"
row "ls -l warm" "$(best "${n[@]}")" "$(best "${w[@]}")" "<= 1 (hp 0.60)"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
