#!/usr/bin/env bash
# Ordinary tools through the mount: cp, mv, rsync, find, ln, touch, chmod,
# truncate, dd, python3 os.walk; the mount and SRC must agree throughout.
. "$(dirname "$0")/lib.sh"

cp -a "$top/sample/." "$SRC/"
mount_fs

listing() { # dir: names, types, modes, sizes, link counts, targets
	(cd "$1" && find . -printf '%p %y %m %s %n %l\n' | LC_ALL=C sort)
}
[ "$(listing "$SRC")" = "$(listing "$MNT")" ] || fail "listing differs from SRC"
diff -r "$SRC" "$MNT" >/dev/null || fail "contents differ from SRC"

say "cp -a into and within the mount"
cp -a "$top/sample" "$MNT/copy"
diff -r "$top/sample" "$MNT/copy" || fail "cp -a copy differs"
cp "$MNT/README.txt" "$MNT/copy/readme2"
cmp "$SRC/README.txt" "$SRC/copy/readme2"

say "mv file and directory, across directories"
mv "$MNT/copy/readme2" "$MNT/readme3"
mv "$MNT/copy" "$MNT/moved"
[ -d "$SRC/moved/Lewis Carroll" ] && [ ! -e "$SRC/copy" ] && [ -f "$SRC/readme3" ] || fail "mv"

say "rsync -aH into the mount, then a no-op second run"
mkdir "$T/rs"; cp -a "$top/sample/." "$T/rs/"; ln "$T/rs/README.txt" "$T/rs/hardlink"
rsync -aH "$T/rs/" "$MNT/rs/"
rsync -aHi "$T/rs/" "$MNT/rs/" >"$T/rsync2"
[ ! -s "$T/rsync2" ] || fail "second rsync not a no-op: $(head -3 "$T/rsync2")"
[ "$(stat -c %i "$MNT/rs/README.txt")" = "$(stat -c %i "$MNT/rs/hardlink")" ] || fail "hard link inode"
[ "$(stat -c %h "$MNT/rs/hardlink")" = 2 ] || fail "link count"
rsync -a --checksum "$MNT/rs/" "$T/back/"
diff -r "$T/rs" "$T/back" || fail "rsync back differs"

say "ln -s, readlink, dangling links"
ln -s "README.txt" "$MNT/sym"
ln -s "/nonexistent/target" "$MNT/dangling"
[ "$(readlink "$MNT/sym")" = README.txt ] && [ "$(readlink "$SRC/dangling")" = /nonexistent/target ] || fail readlink
cmp "$MNT/sym" "$SRC/README.txt"

say "touch -d, chmod, truncate, dd"
touch -d '2001-02-03 04:05:06.123456789' "$MNT/readme3"
[ "$(stat -c %y "$SRC/readme3")" = "$(stat -c %y "$MNT/readme3")" ] || fail "mtime"
case $(stat -c %y "$SRC/readme3") in 2001-02-03\ 04:05:06.123456789*) ;; *) fail "touch -d";; esac
touch -h -d '2002-01-01' "$MNT/sym"
[ "$(stat -c %Y "$SRC/sym")" = "$(date -d 2002-01-01 +%s)" ] || fail "touch -h on a symlink"
chmod 0640 "$MNT/readme3"; [ "$(stat -c %a "$SRC/readme3")" = 640 ] || fail chmod
chmod u+s,g+s "$MNT/readme3"; [ "$(stat -c %a "$SRC/readme3")" = 6640 ] || fail "chmod setid"
truncate -s 1M "$MNT/sparse"; [ "$(stat -c %s "$SRC/sparse")" = 1048576 ] || fail truncate
truncate -s 10 "$MNT/sparse"; [ "$(stat -c %s "$MNT/sparse")" = 10 ] || fail "truncate down"
dd if=/dev/urandom of="$T/rand" bs=64k count=40 status=none
dd if="$T/rand" of="$MNT/dd" bs=1M status=none conv=fsync
dd if="$T/rand" of="$MNT/dd" bs=4096 seek=3 count=5 skip=7 conv=notrunc status=none
dd if="$T/rand" of="$T/expect" bs=64k count=40 status=none
dd if="$T/rand" of="$T/expect" bs=4096 seek=3 count=5 skip=7 conv=notrunc status=none
cmp "$T/expect" "$SRC/dd" && cmp "$T/expect" "$MNT/dd" || fail "dd"

say "find and os.walk agree with SRC"
[ "$(cd "$SRC" && find . | LC_ALL=C sort)" = "$(cd "$MNT" && find . | LC_ALL=C sort)" ] || fail find
walk='import os,sys
for r, ds, fs in os.walk(sys.argv[1]):
    for n in sorted(ds + fs):
        p = os.path.join(r, n); st = os.lstat(p)
        print(os.path.relpath(p, sys.argv[1]), st.st_mode, st.st_size, st.st_ino, st.st_nlink, st.st_mtime_ns)'
python3 -c "$walk" "$SRC" | sort >"$T/w1"
python3 -c "$walk" "$MNT" | sort >"$T/w2"
cmp "$T/w1" "$T/w2" || { diff "$T/w1" "$T/w2" | head; fail "os.walk differs"; }

say "statfs matches SRC's filesystem"
[ "$(stat -f -c '%b %S' "$SRC")" = "$(stat -f -c '%b %S' "$MNT")" ] || fail statfs

say "repeated ls -l, then a file added behind the mount's back"
ls -l "$MNT" >"$T/ls1"; ls -l "$MNT" >"$T/ls2"
cmp "$T/ls1" "$T/ls2" || fail "ls -l changed between two runs"
printf 'behind\n' >"$SRC/behind.txt"
ls -l "$MNT" | grep -q " 7 .* behind.txt$" || fail "new file missing from ls -l: $(ls -l "$MNT")"
printf 'via mount\n' >"$MNT/via.txt"
ls -l "$MNT" | grep -q " 10 .* via.txt$" || fail "file created through the mount missing"

say "rm -rf through the mount"
rm -rf "$MNT/moved" "$MNT/rs"
[ ! -e "$SRC/moved" ] && [ ! -e "$SRC/rs" ] || fail "rm -rf"
umount_fs
[ "$(listing "$SRC" | wc -l)" -gt 10 ] || fail "SRC lost files"
echo ok
