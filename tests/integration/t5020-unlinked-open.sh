#!/usr/bin/env bash
# t5020-unlinked-open: a file unlinked (or renamed over) through the mount
# while open stays fully usable through its fd: fstat() works (no ESTALE),
# reads see the old content, writes and ftruncate work.  Meanwhile it lives
# in SRC under a .fuse_hidden name that the mount does not list, that the
# index and the views never show, and that is gone once the last fd
# closes.  The book leaves the views at the unlink, not at the close.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "no python3"
FS_ARGS=()

LIB=$T/lib
python3 "$(dirname "$0")/genlib.py" "$LIB"
mount_fs -o rescan=0
cp -r "$LIB/." "$MNT/"
mkdir "$MNT/d"
cp "$LIB/base3.txt" "$MNT/d/inner.txt"
for i in $(seq 1 600); do
	grep -q '"state":"idle"' "$MNT/.simbookfs/status" && break
	sleep 0.1
done
grep -q '"state":"idle"' "$MNT/.simbookfs/status" || fail "not idle: $(cat "$MNT/.simbookfs/status")"
[ -d "$MNT/similar/base2-copy.txt" ] || fail "base2-copy.txt not in similar/ before the test"

timeout 60 python3 - "$SRC" "$MNT" <<'PY' || fail "unlinked-open checks failed"
import errno, os, sys, time

src, mnt = sys.argv[1], sys.argv[2]
VIEWS = ("similar", "clusters", "duplicates", "lookup")


def hidden_in(top):
    """Names under top (not following links) or link targets with .fuse_hidden."""
    bad = []
    for d, ds, fs in os.walk(top):
        for x in ds + fs:
            p = os.path.join(d, x)
            if ".fuse_hidden" in x or (os.path.islink(p) and ".fuse_hidden" in os.readlink(p)):
                bad.append(p)
    return bad


def check_views(when):
    for v in VIEWS:
        bad = hidden_in(os.path.join(mnt, v))
        if bad:
            sys.exit("%s: the views show a hidden file: %s" % (when, bad[:3]))


def src_hidden(d):
    return [x for x in os.listdir(os.path.join(src, d)) if x.startswith(".fuse_hidden")]


def until(cond, what, secs=10):
    end = time.time() + secs
    while time.time() < end:
        if cond():
            return
        time.sleep(0.05)
    sys.exit("timed out waiting: " + what)


# 1. unlink while open
path = os.path.join(mnt, "base2-copy.txt")
want = open(os.path.join(src, "base2-copy.txt"), "rb").read()
fd = os.open(path, os.O_RDWR)
os.unlink(path)
try:
    st = os.fstat(fd)
except OSError as e:
    sys.exit("fstat after unlink: %s" % e)
print("# fstat after unlink: size %d nlink %d (native: nlink 0)" % (st.st_size, st.st_nlink))
if st.st_size != len(want):
    sys.exit("fstat size %d, want %d" % (st.st_size, len(want)))
if os.path.exists(path):
    sys.exit("the unlinked name still resolves")
if os.pread(fd, len(want) + 10, 0) != want:
    sys.exit("read through the fd differs")
os.pwrite(fd, b"appended\n", len(want))
if os.fstat(fd).st_size != len(want) + 9:
    sys.exit("fstat after write: size %d" % os.fstat(fd).st_size)
if os.pread(fd, 9, len(want)) != b"appended\n":
    sys.exit("read back of the write differs")
os.ftruncate(fd, 100)
if os.fstat(fd).st_size != 100:
    sys.exit("fstat after ftruncate: size %d" % os.fstat(fd).st_size)
hid = src_hidden(".")
if len(hid) != 1:
    sys.exit("expected one .fuse_hidden file in SRC while open, found %s" % hid)
if [x for x in os.listdir(mnt) if x.startswith(".fuse_hidden")]:
    sys.exit("the mount lists the hidden file")
# The book left the views at the unlink, while the fd is still open.
until(lambda: not os.path.exists(os.path.join(mnt, "similar", "base2-copy.txt")),
      "base2-copy.txt to leave similar/")
check_views("while open")
time.sleep(0.5)	# give the watch and the workers a chance to misfile it
check_views("while open, later")
fd2 = os.open(os.path.join(mnt, "base2.txt"), os.O_RDONLY)	# another file open meanwhile
os.close(fd)
until(lambda: not src_hidden("."), "the hidden file to go from SRC")
os.close(fd2)

# 2. rename over an open file: the replaced file lives on through its fd
a, b = os.path.join(mnt, "d", "inner.txt"), os.path.join(mnt, "d", "new.txt")
old = open(a, "rb").read()
with open(b, "wb") as f:
    f.write(b"replacement text\n")
fd = os.open(a, os.O_RDONLY)
os.rename(b, a)
os.fstat(fd)
if os.pread(fd, len(old) + 10, 0) != old:
    sys.exit("read of the renamed-over file differs")
if open(a, "rb").read() != b"replacement text\n":
    sys.exit("the new name does not have the new content")
if len(src_hidden("d")) != 1:
    sys.exit("expected one hidden file in SRC/d, found %s" % src_hidden("d"))

# 3. the folder of an open unlinked file: listed empty, yet not removable
os.unlink(a)
if os.listdir(os.path.join(mnt, "d")):
    sys.exit("d lists %s" % os.listdir(os.path.join(mnt, "d")))
try:
    os.rmdir(os.path.join(mnt, "d"))
    sys.exit("rmdir of a folder holding an open unlinked file succeeded")
except OSError as e:
    if e.errno != errno.ENOTEMPTY:
        sys.exit("rmdir: %s, want ENOTEMPTY" % e)
check_views("folder")
os.close(fd)
until(lambda: not src_hidden("d"), "the hidden file to go from SRC/d")
os.rmdir(os.path.join(mnt, "d"))
PY

for i in $(seq 1 600); do
	grep -q '"state":"idle"' "$MNT/.simbookfs/status" && break
	sleep 0.1
done
if find "$MNT/similar" "$MNT/clusters" "$MNT/duplicates" "$MNT/lookup" -name '*.fuse_hidden*' | grep -q .; then
	fail "a view shows a hidden file after the close"
fi
[ -z "$(find "$SRC" -name '.fuse_hidden*')" ] || fail "hidden files left in SRC: $(find "$SRC" -name '.fuse_hidden*')"
[ ! -e "$MNT/similar/base2-copy.txt" ] || fail "the unlinked book is back in similar/"
! grep -q fuse_hidden "$MNT/.simbookfs/errors" || fail "errors lists a hidden file"
umount_fs
echo ok
