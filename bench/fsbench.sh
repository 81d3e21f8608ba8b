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
top=$(cd "$(dirname "$0")/.." && pwd)
SIZE=1024 FILES=10000 DIR=${TMPDIR:-/tmp}
while getopts "s:n:d:" o; do
	case $o in s) SIZE=$OPTARG;; n) FILES=$OPTARG;; d) DIR=$OPTARG;; *) exit 2;; esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
FSOPTS=("$@")
BUILD=${SIMBOOK_BUILD:-$top/build}
FS=$BUILD/simbookfs FSB=$BUILD/bench/fsbench
[ -x "$FS" ] && [ -x "$FSB" ] || { echo "fsbench: run 'make bench' first" >&2; exit 1; }
W=$(mktemp -d "$DIR/simbookfs-bench.XXXXXX")
SRC=$W/src MNT=$W/mnt PID=
mkdir -p "$SRC" "$MNT"
cleanup() {
	set +e
	grep -q " $MNT fuse" /proc/mounts && fusermount3 -u -z "$MNT"
	[ -n "$PID" ] && kill "$PID" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

mount_fs() {
	"$FS" "$SRC" "$MNT" -f "${FSOPTS[@]}" 2>>"$W/fs.log" &
	PID=$!
	for _ in $(seq 200); do grep -q " $MNT fuse" /proc/mounts && return 0; sleep 0.05; done
	echo "fsbench: mount failed: $(cat "$W/fs.log")" >&2; exit 1
}
umount_fs() { fusermount3 -u "$MNT"; wait "$PID" || true; PID=; }
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
	mount_fs
	f+=("$(secs rd "$MNT/big")")
	r+=("$(secs rd "$MNT/big")")
	umount_fs
done
nat_read=$(best "${n[@]}")
printf '%-14s %10s %10s %7s   %s\n' test native mount ratio target
row "read first" "$nat_read" "$(best "${f[@]}")" "<= 4 (hp 6.2)"
row "re-read" "$nat_read" "$(best "${r[@]}")" "<= 1.2 (hp 1.34)"

n=() m=()
mount_fs
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
umount_fs

n=() c=() w=()
for _ in 1 2 3; do
	ls -l "$SRC/many" >/dev/null
	n+=("$(secs ls -l "$SRC/many")")
	mount_fs
	c+=("$(secs ls -l "$MNT/many")")
	w+=("$(secs ls -l "$MNT/many")")
	umount_fs
done
row "ls -l cold" "$(best "${n[@]}")" "$(best "${c[@]}")" "<= 1.5 (hp 1.74)"
row "ls -l warm" "$(best "${n[@]}")" "$(best "${w[@]}")" "<= 1 (hp 0.60)"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
