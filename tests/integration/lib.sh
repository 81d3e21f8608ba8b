# lib.sh - shared helpers for the mount tests (source it first).
#
# Makes a private temp dir $T with $SRC and $MNT, skips (exit 77) when FUSE
# is unavailable, arms a per-case watchdog (SIMBOOK_CASE_TIMEOUT seconds,
# default 120) and an EXIT trap that always unmounts (fusermount3 -u -z),
# kills the daemon and removes $T.  The binary under test is
# $SIMBOOK_BUILD/simbookfs, so the same scripts run the sanitizer build.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SIMBOOK_BUILD=${SIMBOOK_BUILD:-$top/build}
FS_BIN=$SIMBOOK_BUILD/simbookfs
FS_PID=
FS_MNT=
FS_LOG=
FS_WRAP=()	# command prefix for the daemon, e.g. (prlimit --nofile=256:256 --)
# Options every mount_fs gets first: the passthrough tests compare the mount
# with SRC, so by default no index and no views; view tests set FS_ARGS=().
FS_ARGS=(-o noindex)

skip() { echo "skip: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
say() { echo "# $*"; }

[ -c /dev/fuse ] || skip "no /dev/fuse"
command -v fusermount3 >/dev/null 2>&1 || skip "no fusermount3"
[ -x "$FS_BIN" ] || fail "$FS_BIN is not built"

T=$(mktemp -d "${TMPDIR:-/tmp}/simbookfs-test.XXXXXX")
SRC=$T/src
MNT=$T/mnt
mkdir -p "$SRC" "$MNT"

is_mounted() { # dir
	awk -v m="$1" '$2 == m && $3 ~ /^fuse/ { found = 1 } END { exit !found }' /proc/mounts
}

lib_cleanup() {
	local rc=$?
	set +e
	trap - EXIT TERM INT
	[ -n "${WATCHDOG:-}" ] && kill "$WATCHDOG" 2>/dev/null
	if [ -n "$FS_MNT" ] && is_mounted "$FS_MNT"; then
		fusermount3 -u -z "$FS_MNT" 2>/dev/null || umount -l "$FS_MNT" 2>/dev/null || true
	fi
	if [ -n "$FS_PID" ] && kill -0 "$FS_PID" 2>/dev/null; then
		kill "$FS_PID" 2>/dev/null
		sleep 0.2
		kill -9 "$FS_PID" 2>/dev/null || true
	fi
	if [ "$rc" -ne 0 ] && [ -n "$FS_LOG" ] && [ -s "$FS_LOG" ]; then
		echo "--- daemon log (tail)"; tail -n 30 "$FS_LOG"
	fi
	rm -rf "$T" 2>/dev/null || true
	exit "$rc"
}
trap lib_cleanup EXIT
trap 'echo "FAIL: interrupted or timed out" >&2; exit 124' TERM INT
# The watchdog takes its sleep with it when cleanup stops it.
(
	sleep "${SIMBOOK_CASE_TIMEOUT:-120}" &
	trap 'kill $! 2>/dev/null; exit 0' TERM
	wait $! && kill -TERM $$ 2>/dev/null
) >/dev/null 2>&1 &
WATCHDOG=$!

wait_mounted() { # dir pid
	local i
	for i in $(seq 1 200); do
		is_mounted "$1" && return 0
		[ -n "${2:-}" ] && ! kill -0 "$2" 2>/dev/null && return 1
		sleep 0.05
	done
	return 1
}

# SIMBOOK_TEST_INDEX=redis://HOST:PORT[,HOST:PORT...] (t7200, t7201): every
# mount with an index keeps it in Redis, in a namespace of this test and
# SRC (a remount finds it again), unless the test names an index itself.
test_index_args() { # src args...
	local ns
	TEST_INDEX_ARGS=()
	[ -n "${SIMBOOK_TEST_INDEX:-}" ] || return 0
	case " ${FS_ARGS[*]} $* " in *noindex*|*index=*) return 0 ;; esac
	ns=${T##*/}-$(printf %s "$1" | cksum | cut -d' ' -f1)
	TEST_INDEX_ARGS=(-o "index=${SIMBOOK_TEST_INDEX//,/\\,}/$ns")
}

# mount_fs [SRC MNT] [daemon args...]: runs the daemon in the foreground
# (in the background of this shell) and waits for the mount.
mount_fs() {
	local src=$SRC mnt=$MNT
	if [ $# -ge 2 ] && [ "${1#-}" = "$1" ]; then src=$1 mnt=$2; shift 2; fi
	FS_LOG=$T/fs.log
	test_index_args "$src" "$@"
	"${FS_WRAP[@]}" "$FS_BIN" "$src" "$mnt" -f "${FS_ARGS[@]}" "${TEST_INDEX_ARGS[@]}" "$@" \
		>>"$FS_LOG" 2>&1 &
	FS_PID=$!
	FS_MNT=$mnt
	wait_mounted "$mnt" "$FS_PID" || fail "mount of $src at $mnt failed: $(tail -n 5 "$FS_LOG")"
}

# alive pid: the process exists and is not a zombie (a child that ended
# stays visible to kill -0 until waited for).
alive() {
	local st
	st=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	st=${st##*) }
	[ "${st%% *}" != Z ]
}

# dump_threads pid: where each thread of pid waits, kernel and user side,
# so a hang found by a test says where it is.
dump_threads() {
	local t
	echo "--- threads of $1"
	for t in /proc/"$1"/task/*; do
		echo "thread ${t##*/} $(cat "$t/comm" 2>/dev/null) wchan=$(cat "$t/wchan" 2>/dev/null)"
		sed 's/^/    /' "$t/stack" 2>/dev/null
	done
	command -v gdb >/dev/null && timeout 30 gdb -p "$1" -batch -ex 'thread apply all bt' 2>/dev/null |
		grep -E '^(Thread|#)'
}

# wait_exit pid [secs]: waits (default 10 s) for pid to end, else shows
# its threads and fails; EXIT_RC is its status when it is our child.
wait_exit() {
	local i n=$((${2:-10} * 20))
	for ((i = 0; i < n; i++)); do alive "$1" || break; sleep 0.05; done
	if alive "$1"; then
		dump_threads "$1"
		fail "process $1 still running after ${2:-10} s"
	fi
	EXIT_RC=0
	wait "$1" 2>/dev/null || EXIT_RC=$?
}

# umount_fs: unmounts and checks the daemon exits 0 (sanitizer reports
# make it exit non-zero).
umount_fs() {
	local rc=0
	fusermount3 -u "$FS_MNT" || fail "fusermount3 -u $FS_MNT failed"
	wait "$FS_PID" || rc=$?
	FS_PID=
	FS_MNT=
	[ "$rc" -eq 0 ] || fail "daemon exited with $rc: $(tail -n 20 "$FS_LOG")"
}
