# bench/lib.sh - what the benchmark scripts share: their options, a work
# folder of their own, one simbookfs mount of it, clean-up on every exit,
# waiting for the index to go idle.  Sourced by bench/*.sh, not run.
#
#   bench_init NAME SPEC "$@"
#       SPEC names the script's options, "LETTER:VARIABLE ..." (each takes
#       a value; the script sets the defaults before); what follows "--"
#       goes to FSOPTS (simbookfs options), a bad option exits 2.  Then
#       makes W, an empty folder under DIR (default $TMPDIR or /tmp), with
#       SRC=$W/src and MNT=$W/mnt, and sets the EXIT trap that unmounts
#       MNT, stops the daemon and removes W.
#   bench_mount [simbookfs options]
#       mounts SRC at MNT (daemon in the background, PID; its output in
#       $W/fs.log, new for each mount); exits 1 if no mount within 10 s.
#   bench_umount      unmounts MNT and waits for the daemon.
#   bench_wait_idle   waits until MNT/.simbookfs/status says idle.
#   bench_now         the time in seconds (for bc).
# Also sets top (the source tree), BUILD and FS (the simbookfs binary).
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${SIMBOOK_BUILD:-$top/build}
FS=$BUILD/simbookfs
DIR=${TMPDIR:-/tmp}
FSOPTS=() PID= W= SRC= MNT=

bench_init() {
	local name=$1 spec=$2 letters= o s var OPTIND=1 OPTARG
	shift 2
	for s in $spec; do letters+="${s%%:*}:"; done
	while getopts "$letters" o; do
		var=
		for s in $spec; do [ "${s%%:*}" = "$o" ] && var=${s#*:}; done
		[ -n "$var" ] || exit 2
		printf -v "$var" '%s' "$OPTARG"
	done
	shift $((OPTIND - 1))
	[ "${1:-}" = "--" ] && shift
	FSOPTS=("$@")
	[ -x "$FS" ] || { echo "$name: run 'make bench' first" >&2; exit 1; }
	W=$(mktemp -d "$DIR/simbookfs-$name.XXXXXX")
	SRC=$W/src MNT=$W/mnt
	mkdir -p "$SRC" "$MNT"
	trap bench_cleanup EXIT
	trap 'exit 1' INT TERM
}

bench_cleanup() {
	set +e
	grep -q " $MNT fuse" /proc/mounts && fusermount3 -u -z "$MNT"
	[ -n "$PID" ] && kill "$PID" 2>/dev/null
	rm -rf "$W"
}

bench_mount() {
	"$FS" "$SRC" "$MNT" -f "$@" >"$W/fs.log" 2>&1 &
	PID=$!
	for _ in $(seq 200); do grep -q " $MNT fuse" /proc/mounts && return 0; sleep 0.05; done
	echo "mount failed: $(cat "$W/fs.log")" >&2
	exit 1
}

bench_umount() {
	fusermount3 -u "$MNT"
	wait "$PID" || true
	PID=
}

bench_wait_idle() {
	while ! grep -q '"state":"idle"' "$MNT/.simbookfs/status" 2>/dev/null; do sleep 0.05; done
}

bench_now() { date +%s.%N; }
