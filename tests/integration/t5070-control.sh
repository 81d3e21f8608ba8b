#!/usr/bin/env bash
# t5070-control: "not a duplicate" marks made and undone through the mount,
# mounted over SRC itself (the index is hidden under the mount, so only the
# daemon can reach it): a mark by rm of a similar/ entry is undone with
# `simbook not-duplicate --undo` on the mount, and the entry comes back;
# the same through .simbookfs/control written from a shell, with its
# errors (unknown book, bad command, the same book twice, a read, the
# index still opening) and a name that needs escaping.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/viewlib.sh"
command -v python3 >/dev/null || skip "no python3"
SB=$SIMBOOK_BUILD/simbook
FS_ARGS=()
TAB=$'\t'
CTL=.simbookfs/control

python3 "$(dirname "$0")/genlib.py" "$SRC"
cp "$SRC/base2.txt" "$SRC/tab${TAB}name.txt"
MNT=$SRC

# ctl TEXT: writes TEXT to the control file in one write(); its stderr
# (the shell's message for the write's errno) in $T/ctl.err.
ctl() { printf '%s' "$1" 2>"$T/ctl.err" >"$MNT/$CTL"; }
ctl_fails() { # ERRNO-TEXT TEXT
	! ctl "$2" || fail "control accepted '$2'"
	grep -q "$1" "$T/ctl.err" || fail "control '$2': $(cat "$T/ctl.err"), not $1"
}

mount_fs "$SRC" "$MNT" -o rescan=0
wait_idle
has_entry a/base1.txt b/base1-near.txt || fail "near pair not listed"
has_entry base2.txt "tab${TAB}name.txt" || fail "copy with a tab in its name not listed"

say "mark with rm, undo with simbook on the mount"
rm "$MNT/similar/a/base1.txt/$(entry_for a/base1.txt b/base1-near.txt)"
until_ok 3 no_entry a/base1.txt b/base1-near.txt || fail "rm did not exempt the pair"
grep -qx "a/base1.txt${TAB}b/base1-near.txt" "$MNT/.simbookfs/not-duplicates" ||
	fail "mark not listed: $(cat "$MNT/.simbookfs/not-duplicates")"
out=$("$SB" not-duplicate --undo "$MNT/a/base1.txt" "$MNT/b/base1-near.txt") || fail "--undo on the mount"
[ "$out" = "duplicates again: a/base1.txt and b/base1-near.txt" ] || fail "--undo said: $out"
until_ok 3 has_entry a/base1.txt b/base1-near.txt || fail "entry not back after --undo"
until_ok 3 has_entry b/base1-near.txt a/base1.txt || fail "reverse entry not back after --undo"
[ ! -s "$MNT/.simbookfs/not-duplicates" ] || fail "mark still listed: $(cat "$MNT/.simbookfs/not-duplicates")"

say "simbook on the mount: mark and undo a name that needs escaping"
"$SB" not-duplicate "$MNT/base2.txt" "$MNT/tab${TAB}name.txt" >/dev/null || fail "mark on the mount"
until_ok 3 no_entry base2.txt "tab${TAB}name.txt" || fail "mark on the mount not applied"
grep -qxF "base2.txt${TAB}tab\\tname.txt" "$MNT/.simbookfs/not-duplicates" ||
	fail "escaped mark not listed: $(cat "$MNT/.simbookfs/not-duplicates")"
"$SB" not-duplicate --undo "$MNT/tab${TAB}name.txt" "$MNT/base2.txt" >/dev/null || fail "undo on the mount"
until_ok 3 has_entry base2.txt "tab${TAB}name.txt" || fail "undo of the escaped name not applied"
rc=0; "$SB" not-duplicate "$MNT/base2.txt" "$MNT/./base2.txt" 2>"$T/err" || rc=$?
[ "$rc" -eq 1 ] && grep -q "the same book twice" "$T/err" || fail "the same book: rc $rc, $(cat "$T/err")"

say "the control file from a shell"
ctl "not-duplicate${TAB}a/base1.txt${TAB}c/base1-vol1.txt"$'\n' || fail "control: $(cat "$T/ctl.err")"
until_ok 3 no_entry a/base1.txt c/base1-vol1.txt || fail "control mark not applied"
ctl "undo-not-duplicate${TAB}c/base1-vol1.txt${TAB}a/base1.txt" || fail "control undo: $(cat "$T/ctl.err")"
until_ok 3 has_entry a/base1.txt c/base1-vol1.txt || fail "control undo not applied"
ctl_fails "No such file" "not-duplicate${TAB}a/base1.txt${TAB}nope.txt"
ctl_fails "Invalid argument" "forget${TAB}a/base1.txt${TAB}base2.txt"
ctl_fails "Invalid argument" "not-duplicate${TAB}a/base1.txt"
ctl_fails "Invalid argument" "not-duplicate${TAB}a/base1.txt${TAB}a/base1.txt"
# two lines in one write() (a shell's printf writes line by line)
python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
try:
    os.write(fd, sys.argv[2].encode())
except OSError as e:
    sys.exit(e.errno)
sys.exit(0)' "$MNT/$CTL" "not-duplicate${TAB}a/base1.txt${TAB}base2.txt"$'\n'"not-duplicate${TAB}a/base1.txt${TAB}base3.txt" &&
	fail "two commands in one write accepted"
[ $? -eq 22 ] || fail "two commands in one write: not EINVAL"
ctl_fails "Invalid argument" "not-duplicate${TAB}a/b\\qd${TAB}base2.txt"
[ ! -s "$MNT/.simbookfs/not-duplicates" ] || fail "a failed command left a mark: $(cat "$MNT/.simbookfs/not-duplicates")"
! cat "$MNT/$CTL" >/dev/null 2>&1 || fail "the control file can be read"
[ "$(stat -c %A "$MNT/$CTL")" = "--w-------" ] || fail "control mode: $(stat -c %A "$MNT/$CTL")"
ls -A "$MNT/.simbookfs" >"$T/meta.ls" || fail "ls of .simbookfs/"
! grep -q control "$T/meta.ls" || fail "control listed in .simbookfs/"
echo x >"$MNT/.simbookfs/status" 2>/dev/null && fail "status writable"
umount_fs

say "while the index opens: EAGAIN"
mount_fs "$SRC" "$MNT" -o rescan=0 -o test_open_delay_ms=3000
grep -q '"state":"opening"' "$MNT/.simbookfs/status" || fail "not opening: $(cat "$MNT/.simbookfs/status")"
ctl_fails "Resource temporarily unavailable" "not-duplicate${TAB}a/base1.txt${TAB}base2.txt"
rc=0; "$SB" not-duplicate "$MNT/a/base1.txt" "$MNT/base2.txt" 2>"$T/err" || rc=$?
[ "$rc" -eq 1 ] && grep -q "still opening" "$T/err" || fail "simbook while opening: rc $rc, $(cat "$T/err")"
wait_idle
ctl "not-duplicate${TAB}a/base1.txt${TAB}b/base1-near.txt" || fail "control once open: $(cat "$T/ctl.err")"
until_ok 3 no_entry a/base1.txt b/base1-near.txt || fail "mark once open not applied"
umount_fs
echo "ok"
