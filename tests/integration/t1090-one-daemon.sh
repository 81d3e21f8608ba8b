#!/usr/bin/env bash
# One daemon per library and no mount that breaks a file: a second
# simbookfs on a served library, or on another library with the same
# index, is refused naming the first (status 3); so is `simbook index` on a
# served library or a path in its mount; a daemon killed with SIGKILL
# leaves no stale lock; SRC or MNT that is not a directory is refused
# before mounting; a bad option leaves no index folder behind; -o noindex
# takes no lock.
. "$(dirname "$0")/lib.sh"
SB=$SIMBOOK_BUILD/simbook
FS_ARGS=()
cp -r "$top/sample/." "$SRC/"
MNT2=$T/mnt2
mkdir -p "$MNT2"
real_src=$(cd "$SRC" && pwd -P)
real_mnt=$(cd "$MNT" && pwd -P)
lock=$SRC/.simbookfs-index/daemon.lock

say "a bad option leaves nothing in SRC"
rc=0; "$FS_BIN" "$SRC" "$MNT" -f -o bogus=1 2>"$T/err" || rc=$?
[ "$rc" -ne 0 ] || fail "bogus option accepted"
! is_mounted "$MNT" || fail "mounted with a bogus option"
[ ! -e "$SRC/.simbookfs-index" ] || fail "a bogus option left $SRC/.simbookfs-index"
rc=0; "$FS_BIN" "$SRC" "$MNT" -o viewmode=nope 2>"$T/err" || rc=$?
[ "$rc" -eq 2 ] && [ ! -e "$SRC/.simbookfs-index" ] || fail "bad viewmode: rc $rc or index left"

say "SRC or MNT not a directory is refused before mounting"
printf 'not a library\n' >"$T/file"
cp "$T/file" "$T/file.orig"
rc=0; "$FS_BIN" "$T/file" "$MNT" -f 2>"$T/err" || rc=$?
[ "$rc" -eq 1 ] && grep -qx "simbookfs: SRC $T/file: not a directory" "$T/err" ||
	fail "SRC a file: rc $rc: $(cat "$T/err")"
! is_mounted "$MNT" || fail "mounted with SRC a file"
rc=0; "$FS_BIN" "$SRC" "$T/file" -f 2>"$T/err" || rc=$?
[ "$rc" -eq 1 ] && grep -qx "simbookfs: MNT $T/file: not a directory" "$T/err" ||
	fail "MNT a file: rc $rc: $(cat "$T/err")"
! is_mounted "$T/file" || { fusermount3 -uz "$T/file"; fail "mounted over a file"; }
cmp -s "$T/file" "$T/file.orig" || fail "the file changed"
[ ! -e "$SRC/.simbookfs-index" ] || fail "a refused MNT left $SRC/.simbookfs-index"
rc=0; "$FS_BIN" "$SRC" "$MNT" -f -o index="$T/file" 2>"$T/err" || rc=$?
[ "$rc" -eq 1 ] && grep -qx "simbookfs: index $T/file: Not a directory" "$T/err" ||
	fail "index a file: rc $rc: $(cat "$T/err")"
! is_mounted "$MNT" || fail "mounted with the index a file"
rc=0; "$FS_BIN" "$SRC" "$T/nope" 2>"$T/err" || rc=$?
[ "$rc" -eq 1 ] && grep -q "MNT $T/nope: No such file" "$T/err" || fail "missing MNT: rc $rc"

say "a second daemon on the same SRC is refused, naming the first"
mount_fs
first=$FS_PID
grep -qx "pid $first" "$lock" || fail "lock record: $(cat "$lock")"
want="simbookfs: $real_src is already served by simbookfs (pid $first) at $real_mnt"
for args in "$MNT2 -f" "$MNT2" "$MNT -f"; do
	# shellcheck disable=SC2086
	rc=0; "$FS_BIN" "$SRC" $args 2>"$T/err" || rc=$?
	[ "$rc" -eq 3 ] && grep -qxF "$want" "$T/err" || fail "second daemon ($args): rc $rc: $(cat "$T/err")"
	! is_mounted "$MNT2" || fail "second daemon mounted"
done
[ "$(grep -c " $MNT " /proc/mounts)" -eq 1 ] || fail "a second mount over $MNT"
alive "$first" || fail "the first daemon died"
[ -f "$MNT/README.txt" ] && cmp -s "$MNT/README.txt" "$SRC/README.txt" || fail "first mount broken"
grep -qx "pid $first" "$lock" || fail "a refused daemon changed the record: $(cat "$lock")"

say "another SRC with the same index is refused"
mkdir -p "$T/src2"
rc=0; "$FS_BIN" "$T/src2" "$MNT2" -f -o index="$SRC/.simbookfs-index" 2>"$T/err" || rc=$?
[ "$rc" -eq 3 ] && grep -qxF "simbookfs: the index $real_src/.simbookfs-index is in use: ${want#simbookfs: }" "$T/err" ||
	fail "shared index: rc $rc: $(cat "$T/err")"
! is_mounted "$MNT2" || fail "shared index: mounted"

say "simbook index on a served library is refused"
rc=0; "$SB" index "$SRC" >"$T/out" 2>"$T/err" || rc=$?
[ "$rc" -eq 3 ] && grep -qxF "simbook index: ${want#simbookfs: }: the mount keeps its index up to date, nothing to do (simbook similar, clusters and duplicates read it)" "$T/err" ||
	fail "simbook index while served: rc $rc: $(cat "$T/err")"
[ ! -s "$T/out" ] || fail "simbook index printed a summary: $(cat "$T/out")"
# through the mount the index folder is hidden and the lock out of reach
rc=0; "$SB" index "$MNT/Short stories" >"$T/out" 2>"$T/err" || rc=$?
[ "$rc" -eq 3 ] && grep -qF "simbook index: $MNT/Short stories is inside the simbookfs mount at $real_mnt," "$T/err" ||
	fail "simbook index in the mount: rc $rc: $(cat "$T/err")"

say "-o noindex takes no lock"
"$FS_BIN" "$SRC" "$MNT2" -o noindex || fail "noindex mount beside the daemon refused"
is_mounted "$MNT2" || fail "noindex mount missing"
cmp -s "$MNT2/README.txt" "$SRC/README.txt" || fail "noindex mount broken"
fusermount3 -u "$MNT2"

say "kill -9 leaves no stale lock"
kill -9 "$first"
wait "$first" 2>/dev/null || true
fusermount3 -uz "$MNT"
FS_PID= FS_MNT=
mount_fs
grep -qx "pid $FS_PID" "$lock" || fail "record after restart: $(cat "$lock")"
umount_fs

say "after a clean unmount simbook index runs"
rc=0; "$SB" index "$SRC" --quiet >"$T/out" 2>"$T/err" || rc=$?
[ "$rc" -eq 0 ] || fail "simbook index after unmount: rc $rc: $(cat "$T/err")"
echo "ok"
