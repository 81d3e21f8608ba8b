#!/usr/bin/env bash
# Paths longer than PATH_MAX: a tree deeper than 4096 bytes is built through
# the mount (each step relative to the previous directory, like any program
# must), then used through the mount: stat, write, rename, symlink, xattrs,
# find, rm -rf.  SRC must hold exactly the same tree.
. "$(dirname "$0")/lib.sh"

mount_fs -o xattr
python3 - "$MNT" "$SRC" <<'PY' || fail "deep tree"
import os, sys
mnt, src = sys.argv[1:]
comp = "d" * 200
depth = 30                     # 30 * 201 bytes: ~6000, beyond PATH_MAX
os.chdir(mnt)
for i in range(depth):
    os.mkdir(comp)
    os.chdir(comp)
with open("book.txt", "w") as f:
    f.write("deep text\n")
os.rename("book.txt", "moved.txt")
os.symlink("moved.txt", "link")
os.link("moved.txt", "hard")
os.setxattr("moved.txt", "user.deep", b"yes")
os.chmod("moved.txt", 0o600)
os.truncate("moved.txt", 4)
os.utime("moved.txt", ns=(1, 2))
assert open("link").read() == "deep"
assert os.stat("hard").st_nlink == 2
assert os.getxattr("moved.txt", "user.deep") == b"yes"
os.mkdir("sub"); os.rmdir("sub")
cwd_len = len(os.getcwd())
assert cwd_len > 4096, cwd_len
# SRC side, walked with dir fds.
fd = os.open(src, os.O_RDONLY)
for i in range(depth):
    nfd = os.open(comp, os.O_RDONLY, dir_fd=fd); os.close(fd); fd = nfd
st = os.stat("moved.txt", dir_fd=fd)
assert st.st_size == 4 and st.st_mtime_ns == 2 and (st.st_mode & 0o777) == 0o600, st
assert os.readlink("link", dir_fd=fd) == "moved.txt"
assert sorted(os.listdir(fd)) == ["hard", "link", "moved.txt"], os.listdir(fd)
print("depth", depth, "cwd length", cwd_len)
PY
n=$(cd "$MNT" && find . | wc -l)
[ "$n" -eq 34 ] || fail "find through the mount saw $n entries"
rm -rf "$MNT/$(printf 'd%.0s' $(seq 200))"
[ -z "$(ls -A "$SRC")" ] || fail "rm -rf left something"
umount_fs
echo ok
