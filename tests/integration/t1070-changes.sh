#!/usr/bin/env bash
# The change hook: with -d the daemon registers a hook that logs every
# change, so this checks which operations report which paths (relative to
# SRC) -- and that reading reports nothing; a folder's chmod and chown
# report perm, a file's not.
. "$(dirname "$0")/lib.sh"

mount_fs -d
mkdir "$MNT/sub"
chmod 700 "$MNT/sub"
chown 0:0 "$MNT/sub" 2>/dev/null || chmod 755 "$MNT/sub"
echo one >"$MNT/sub/a"
chmod 600 "$MNT/sub/a"
mv "$MNT/sub/a" "$MNT/b"
ln "$MNT/b" "$MNT/c"
truncate -s 2 "$MNT/c"
cat "$MNT/c" "$MNT/b" >/dev/null
rm "$MNT/b"
echo two >"$MNT/d"
python3 -c '
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
os.chdir(sys.argv[1])
assert libc.renameat2(-100, b"c", -100, b"d", 2) == 0
os.copy_file_range(os.open("d", os.O_RDONLY), os.open("e", os.O_WRONLY | os.O_CREAT, 0o644), 100)
' "$MNT"
# Open files unlinked or renamed over live on under a .fuse_hidden name
# until closed: reported as the unlink of the name, the hidden name never.
python3 -c '
import os, sys
os.chdir(sys.argv[1])
with open("h", "w") as f:
    f.write("h\n")
f = os.open("f", os.O_WRONLY | os.O_CREAT, 0o644)
g = os.open("h", os.O_RDWR)
os.unlink("f")
os.write(f, b"after unlink\n")
os.fstat(f)
os.rename("e", "h")
os.write(g, b"after rename\n")
os.fstat(g)
os.close(f)
os.close(g)
' "$MNT"
for i in $(seq 1 50); do
	[ -z "$(ls -A "$SRC" | grep fuse_hidden)" ] && break
	sleep 0.1
done
umount_fs
grep -o "simbookfs: change .*" "$FS_LOG" >"$T/changes"
cat "$T/changes"
expect() { grep -qxF "simbookfs: change $1" "$T/changes" || fail "missing: change $1"; }
expect "write 'sub/a'"
expect "rename 'sub/a' 'b'"
expect "link 'b' 'c'"
expect "write 'c'"
expect "unlink 'b'"
expect "write 'd'"
expect "exchange 'c' 'd'"
expect "write 'e'"
expect "unlink 'f'"
expect "unlink 'h'"
expect "rename 'e' 'h'"
# a folder's mode or owner (who may search it), not a file's
[ "$(grep -c "^simbookfs: change perm 'sub'$" "$T/changes")" -eq 2 ] || fail "folder chmod/chown not reported"
! grep -q "perm 'sub/a'" "$T/changes" || fail "a file's chmod reported as perm"
! grep -q fuse_hidden "$T/changes" || fail "a hidden name was reported"
[ -z "$(ls -A "$SRC" | grep fuse_hidden)" ] || fail "hidden files left in SRC: $(ls -A "$SRC")"
# truncate(1) reports twice (ftruncate, then release of its fd); the reads
# of c and b that follow add nothing.
[ "$(grep -c "write 'c'" "$T/changes")" -eq 2 ] || fail "reading reported a write"
[ "$(grep -c "write 'b'" "$T/changes")" -eq 0 ] || fail "reading reported a write"
echo ok
