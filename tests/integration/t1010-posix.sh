#!/usr/bin/env bash
# Exact semantics and errnos: posixops.py runs the same script of POSIX
# operations (rename flags, fallocate/punch hole, SEEK_DATA/HOLE,
# copy_file_range, flock, xattrs, utimens NOW/OMIT, unlinked open files...)
# on a native directory and through the mount; the outputs must be equal.
. "$(dirname "$0")/lib.sh"

here=$(dirname "$0")
mkdir "$T/native"
python3 "$here/posixops.py" "$T/native" >"$T/native.out" 2>&1 || fail "native run: $(tail -3 "$T/native.out")"
mount_fs -o xattr
python3 "$here/posixops.py" "$MNT" >"$T/mount.out" 2>&1 || fail "mount run: $(tail -3 "$T/mount.out")"
diff -u "$T/native.out" "$T/mount.out" || fail "mount differs from native"
say "$(wc -l <"$T/mount.out") steps agree"
# What the mount wrote is what SRC holds.
python3 - "$SRC" "$MNT" <<'PY' || fail "SRC and mount disagree after the run"
import os, sys
a, b = sys.argv[1:]
for n in sorted(os.listdir(a)):
    pa, pb = os.path.join(a, n), os.path.join(b, n)
    sa, sb = os.lstat(pa), os.lstat(pb)
    assert (sa.st_mode, sa.st_ino, sa.st_nlink, sa.st_uid, sa.st_gid) == \
           (sb.st_mode, sb.st_ino, sb.st_nlink, sb.st_uid, sb.st_gid), n
    if os.path.isfile(pa) and not os.path.islink(pa):
        assert sa.st_size == sb.st_size and sa.st_mtime_ns == sb.st_mtime_ns, n
        assert open(pa, 'rb').read() == open(pb, 'rb').read(), n
assert sorted(os.listdir(a)) == sorted(os.listdir(b))
PY
say "setfattr/getfattr with -o xattr"
touch "$MNT/xa"
setfattr -n user.colour -v blue "$MNT/xa"
[ "$(getfattr --only-values -n user.colour "$SRC/xa")" = blue ] || fail "setfattr did not reach SRC"
setfattr -n user.size -v 42 "$SRC/xa"
getfattr -d "$MNT/xa" 2>/dev/null | grep -q 'user.size="42"' || fail "getfattr -d through the mount"
setfattr -x user.colour "$MNT/xa"
! getfattr -n user.colour "$SRC/xa" >/dev/null 2>&1 || fail "setfattr -x"
umount_fs

say "without -o xattr, xattrs fail with ENOTSUP and nothing reaches SRC"
mount_fs
touch "$MNT/nx"
if setfattr -n user.k -v v "$MNT/nx" 2>"$T/err"; then fail "setfattr succeeded without -o xattr"; fi
grep -q "Operation not supported" "$T/err" || fail "unexpected error: $(cat "$T/err")"
getfattr -d "$MNT/nx" >/dev/null 2>&1 || true
[ -z "$(getfattr -d "$SRC/nx" 2>/dev/null)" ] || fail "xattr reached SRC"
umount_fs
echo ok
