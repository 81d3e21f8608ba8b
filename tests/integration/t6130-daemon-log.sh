#!/usr/bin/env bash
# The daemon's log: with -f its messages go to stderr; daemonized they go to
# syslog (checked with a private listener on /dev/log when the machine has no
# syslog socket and we are root; skipped otherwise), including an error that
# happens after daemonizing (an index that cannot be opened).
source "$(dirname "$0")/lib.sh"
FS_ARGS=()
LISTENER=
log_cleanup() {
	local rc=$?
	set +e
	if [ -n "$LISTENER" ]; then
		kill "$LISTENER" 2>/dev/null
		rm -f /dev/log
	fi
	(exit "$rc")	# lib_cleanup reads the status from $?
	lib_cleanup
}
trap log_cleanup EXIT
wait_for() { # file pattern seconds
	local i
	for i in $(seq 1 $(($3 * 20))); do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

say "foreground: stderr"
printf 'Some words of a book.\n' >"$SRC/a.txt"
mount_fs
wait_for "$FS_LOG" "^simbookfs: serving $SRC at $MNT\$" 5 || fail "no serving line: $(cat "$FS_LOG")"
umount_fs
grep -q "^simbookfs: unmounted $MNT\$" "$FS_LOG" || fail "no unmounted line: $(cat "$FS_LOG")"

if [ -e /dev/log ]; then
	skip "a syslog socket exists (/dev/log): not replacing it"
fi
[ "$(id -u)" -eq 0 ] || skip "not root: cannot create /dev/log"
SYSLOG=$T/syslog
python3 - "$SYSLOG" <<'PY' &
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("/dev/log")
with open(sys.argv[1], "ab", buffering=0) as out:
    while True:
        out.write(s.recv(65536).rstrip(b"\0\n") + b"\n")
PY
LISTENER=$!
for i in $(seq 1 100); do [ -S /dev/log ] && break; sleep 0.05; done
[ -S /dev/log ] || fail "syslog listener did not start"

say "daemonized: syslog"
"$FS_BIN" "$SRC" "$MNT" >"$T/daemon.out" 2>&1 || fail "daemon start: $(cat "$T/daemon.out")"
FS_MNT=$MNT
wait_mounted "$MNT" || fail "not mounted"
wait_for "$SYSLOG" "simbookfs\[[0-9]*\]: serving $SRC at $MNT" 5 || fail "no serving line in syslog: $(cat "$SYSLOG")"
grep -q "^<30>" "$SYSLOG" || fail "not logged as daemon.info: $(cat "$SYSLOG")"
fusermount3 -u "$MNT"
FS_MNT=
wait_for "$SYSLOG" "simbookfs\[[0-9]*\]: unmounted $MNT" 5 || fail "no unmounted line in syslog: $(cat "$SYSLOG")"
[ ! -s "$T/daemon.out" ] || fail "daemon wrote to the terminal: $(cat "$T/daemon.out")"

say "daemonized: an error after daemonizing reaches syslog, SRC is still served"
# LMDB cannot open an index whose lock.mdb is a folder (an index folder
# that is a file is refused before mounting).
mkdir -p "$T/bad-index/lock.mdb"
"$FS_BIN" "$SRC" "$MNT" -o index="$T/bad-index" >"$T/daemon.out" 2>&1
FS_MNT=$MNT
wait_for "$SYSLOG" "simbookfs\[[0-9]*\]: cannot open the index in $T/bad-index" 5 ||
	fail "index error not in syslog: $(cat "$SYSLOG")"
grep -q "^<27>.*cannot open the index" "$SYSLOG" || fail "not logged as daemon.err: $(cat "$SYSLOG")"
is_mounted "$MNT" || fail "the index error unmounted SRC"
ls "$MNT" >/dev/null || fail "ls after the index error"
grep -q '"state":"failed",.*"index":{"state":"failed",.*"error":"' "$MNT/.simbookfs/status" ||
	fail "status: $(cat "$MNT/.simbookfs/status")"
fusermount3 -u "$MNT"
FS_MNT=
say "ok"
