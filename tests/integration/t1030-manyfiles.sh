#!/usr/bin/env bash
# No fd per inode: with the daemon's fd limit at 256, 30000 files are
# created, listed, stat'ed, read and removed through the mount, while the
# daemon keeps only a handful of fds open.
. "$(dirname "$0")/lib.sh"

command -v prlimit >/dev/null 2>&1 || skip "no prlimit"
N=${SIMBOOK_MANY:-30000}
FS_WRAP=(prlimit --nofile=256:256 --)
mount_fs
python3 - "$MNT" "$N" "$FS_PID" <<'PY' || fail "many files"
import os, sys
mnt, n, pid = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def nfds():
    return len(os.listdir(f"/proc/{pid}/fd"))
for d in range(10):
    os.mkdir(os.path.join(mnt, f"dir{d}"))
for i in range(n):
    fd = os.open(os.path.join(mnt, f"dir{i % 10}", f"book{i:06d}.txt"), os.O_WRONLY | os.O_CREAT, 0o644)
    os.write(fd, b"%d\n" % i)
    os.close(fd)
seen = 0
for root, dirs, files in os.walk(mnt):
    for f in files:
        st = os.stat(os.path.join(root, f))
        seen += 1
assert seen == n, seen
peak = nfds()
# Hold 200 files open at once: each costs one fd only while open.
held = [os.open(os.path.join(mnt, f"dir{i % 10}", f"book{i:06d}.txt"), os.O_RDONLY) for i in range(200)]
for i, fd in enumerate(held):
    assert os.pread(fd, 16, 0) == b"%d\n" % i
    os.close(fd)
for i in range(0, n, 7):
    with open(os.path.join(mnt, f"dir{i % 10}", f"book{i:06d}.txt"), "rb") as f:
        assert f.read() == b"%d\n" % i
print("files", n, "daemon fds after walking them all:", peak, "now:", nfds())
assert peak < 64, peak
PY
[ "$(ls -l "$MNT/dir3" | wc -l)" -eq $((N / 10 + 1)) ] || fail "ls -l count"
[ "$(find "$MNT" -type f | wc -l)" -eq "$N" ] || fail "find count"
[ "$(find "$SRC" -type f | wc -l)" -eq "$N" ] || fail "SRC count"
rm -rf "$MNT"/dir*
[ -z "$(ls -A "$SRC")" ] || fail "rm -rf left files"
umount_fs
echo ok
