#!/usr/bin/env bash
# Lifecycle: --help/--version/bad arguments; daemon mode unmounted with
# fusermount3 -u; SIGTERM and SIGINT unmount cleanly; mounting over SRC
# itself; the mount scripts, including the idempotent sample mount.
. "$(dirname "$0")/lib.sh"

say "command line"
"$FS_BIN" --help >"$T/help"
for w in cache_timeout xattr max_threads allow_other; do grep -q "$w" "$T/help" || fail "--help lacks $w"; done
"$FS_BIN" --version | grep -q "^simbookfs $(cat "$top/VERSION")" || fail "--version"
rc=0; "$FS_BIN" "$SRC" >/dev/null 2>&1 || rc=$?; [ "$rc" -eq 2 ] || fail "missing MNT gave $rc"
rc=0; "$FS_BIN" "$T/nope" "$MNT" 2>"$T/err" || rc=$?
[ "$rc" -ne 0 ] && grep -q "No such file" "$T/err" || fail "missing SRC: rc $rc: $(cat "$T/err")"
rc=0; "$FS_BIN" "$SRC" "$MNT" -f -o bogus_option 2>"$T/err" || rc=$?
[ "$rc" -ne 0 ] && ! is_mounted "$MNT" || fail "unknown option accepted"

daemon_pid() { # mnt: the pid serving it (argv holds our unique temp path)
	local p
	for p in /proc/[0-9]*; do
		tr '\0' ' ' <"$p/cmdline" 2>/dev/null | grep -qF "simbookfs $SRC $1" && { echo "${p#/proc/}"; return 0; }
	done
	return 1
}
say "daemon mode, fusermount3 -u"
"$FS_BIN" "$SRC" "$MNT"
FS_MNT=$MNT
is_mounted "$MNT" || fail "not mounted after the daemon returned"
FS_PID=$(daemon_pid "$MNT") || fail "daemon not found"
echo hi >"$MNT/a"
fusermount3 -u "$MNT"
for _ in $(seq 100); do kill -0 "$FS_PID" 2>/dev/null || break; sleep 0.05; done
! kill -0 "$FS_PID" 2>/dev/null || fail "daemon still running after unmount"
FS_PID= FS_MNT=
[ "$(cat "$SRC/a")" = hi ] || fail "write lost"

for sig in TERM INT; do
	say "SIG$sig unmounts"
	mount_fs
	kill -"$sig" "$FS_PID"
	wait_exit "$FS_PID"
	[ "$EXIT_RC" -eq 0 ] || fail "exit $EXIT_RC after SIG$sig: $(tail -5 "$FS_LOG")"
	! is_mounted "$MNT" || fail "still mounted after SIG$sig"
	FS_PID= FS_MNT=
done

# With indexing on, the index's threads run beside libfuse's: a stop signal
# the kernel hands to one of them must still end the loop.  Sent the moment
# the mount appears (the index is being opened, the scan starting), and
# while a reader walks the views.
cp -r "$top/sample/." "$SRC/"
saved_args=("${FS_ARGS[@]}")
FS_ARGS=()
say "SIGTERM/SIGINT right after the mount appears, indexing on (20 rounds)"
# Stopped in the middle of a walk, libfuse 3.14 leaves some of its own
# nodes unfreed at exit (LeakSanitizer can report names strdup'ed inside
# libfuse).  These rounds test the stop, so leak checking is off
# for them only; every other mount of the suite keeps it.
saved_asan=${ASAN_OPTIONS-}
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
for i in $(seq 20); do
	sig=TERM; [ $((i % 2)) -eq 0 ] && sig=INT
	mount_fs
	[ $((i % 4)) -lt 2 ] || (ls -lR "$MNT" >/dev/null 2>&1 &)
	kill -"$sig" "$FS_PID"
	wait_exit "$FS_PID"
	[ "$EXIT_RC" -eq 0 ] || fail "round $i: exit $EXIT_RC after SIG$sig: $(tail -5 "$FS_LOG")"
	! is_mounted "$MNT" || fail "round $i: still mounted after SIG$sig"
	FS_PID= FS_MNT=
done
export ASAN_OPTIONS="$saved_asan"

say "detached daemon (no -f), relative MNT: SIGTERM unmounts (5 rounds)"
for i in $(seq 5); do
	(cd "$T" && "$FS_BIN" "$SRC" mnt) || fail "detached mount failed"
	FS_MNT=$MNT
	is_mounted "$MNT" || fail "not mounted after the daemon returned"
	pid=$(daemon_pid mnt) || fail "detached daemon not found"
	kill -TERM "$pid"
	wait_exit "$pid"
	! is_mounted "$MNT" || fail "round $i: detached daemon left its mount after SIGTERM"
	FS_MNT=
done
FS_ARGS=("${saved_args[@]}")
rm -rf "${SRC:?}"/* "$SRC"/.simbookfs-index
echo hi >"$SRC/a"

if [ "$(id -u)" -eq 0 ]; then
	say "read-ahead raised to readahead_kb, and a umount right after mounting is not busy"
	for i in 1 2 3; do
		mount_fs -o readahead_kb=512
		dev=$(awk -v m="$MNT" '$5 == m { d = $3 } END { print d }' /proc/self/mountinfo)
		[ -n "$dev" ] || fail "no mountinfo line for $MNT"
		if [ "$i" -lt 3 ]; then
			umount "$MNT" || fail "round $i: umount right after mounting failed"
		else
			for _ in $(seq 100); do
				[ "$(cat "/sys/class/bdi/$dev/read_ahead_kb")" = 512 ] && break
				sleep 0.05
			done
			[ "$(cat "/sys/class/bdi/$dev/read_ahead_kb")" = 512 ] ||
				fail "read_ahead_kb is $(cat "/sys/class/bdi/$dev/read_ahead_kb"), not 512"
			fusermount3 -u "$MNT"
		fi
		wait_exit "$FS_PID"
		[ "$EXIT_RC" -eq 0 ] || fail "exit $EXIT_RC after unmount"
		FS_PID= FS_MNT=
	done
fi

say "mount over SRC itself"
mount_fs "$SRC" "$SRC"
[ "$(cat "$SRC/a")" = hi ] || fail "old content not visible through the mount"
echo over >"$SRC/b"; mkdir "$SRC/dir"; mv "$SRC/b" "$SRC/dir/b"
umount_fs
[ "$(cat "$SRC/dir/b")" = over ] || fail "write through the mount over SRC lost"

say "mount scripts"
export SIMBOOKFS=$FS_BIN
"$top/mount-scripts/simbookfs-mount" "$SRC" "$MNT"
FS_MNT=$MNT
is_mounted "$MNT" || fail "simbookfs-mount"
[ -f "$MNT/dir/b" ] || fail "content via simbookfs-mount"
"$top/mount-scripts/simbookfs-umount" "$MNT"
! is_mounted "$MNT" || fail "simbookfs-umount"
FS_MNT=
export SIMBOOK_SAMPLE_DIR=$T/sample
"$top/mount-scripts/simbookfs-sample" >"$T/out1"
FS_MNT=$T/sample/mnt
is_mounted "$FS_MNT" || fail "sample not mounted"
grep -q "$FS_MNT" "$T/out1" && grep -q "simbookfs-umount" "$T/out1" || fail "sample output: $(cat "$T/out1")"
diff -r -x similar -x clusters -x duplicates -x lookup -x .simbookfs "$top/sample" "$FS_MNT" || fail "sample content"
"$top/mount-scripts/simbookfs-sample" >"$T/out2"
grep -q "already mounted" "$T/out2" || fail "second run not idempotent"
[ "$(grep -c " $FS_MNT " /proc/mounts)" -eq 1 ] || fail "mounted twice"
"$top/mount-scripts/simbookfs-umount" "$FS_MNT"
FS_MNT=
echo ok
