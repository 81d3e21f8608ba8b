#!/usr/bin/env python3
"""hardlinks.py MNT SRC CASE: checks that every name of a hard-linked file
shows the same attributes through the mount as soon as a change made
through any one name returns (what pjdfstest's link/00.t, link/03.t,
unlink/00.t and rename/23.t check).  Before each change every name is
stat'ed, so the kernel holds (and would keep, for cache_timeout) the
attributes of each; after it, every name must show the file as SRC has it.

CASE: ops (link, chmod, chown, utime, write, unlink, rename over a name,
for each file type), listed (names handed out by a listing, not looked
up; a folder renamed under a name; long paths), single (a file with one
name keeps its long attribute cache).  Exits 1 with a message on the
first difference."""
import os
import socket
import stat
import sys
import time

MNT, SRC, CASE = sys.argv[1], sys.argv[2], sys.argv[3]
FIELDS = ("st_nlink", "st_mode", "st_uid", "st_gid", "st_ctime_ns", "st_size", "st_mtime_ns")


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def warm(*names):
    for n in names:
        os.lstat(os.path.join(MNT, n))


def same(what, *names):
    """Every name shows what lstat in SRC shows for it."""
    for n in names:
        got = os.lstat(os.path.join(MNT, n))
        want = os.lstat(os.path.join(SRC, n))
        for f in FIELDS:
            if f == "st_size" and not stat.S_ISREG(want.st_mode):
                continue
            if getattr(got, f) != getattr(want, f):
                fail("%s: %s through %s is %r, SRC has %r" % (what, f, n, getattr(got, f), getattr(want, f)))


def tick():
    # ctime must move between two changes on a coarse clock
    time.sleep(0.02)


def make(kind, name):
    p = os.path.join(MNT, name)
    if kind == "regular":
        with open(p, "w") as f:
            f.write("x")
    elif kind == "fifo":
        os.mkfifo(p, 0o644)
    elif kind == "char":
        os.mknod(p, 0o644 | stat.S_IFCHR, os.makedev(1, 3))
    elif kind == "socket":
        s = socket.socket(socket.AF_UNIX)
        s.bind(p)
        s.close()


def ops(kind):
    d = "ops-" + kind
    os.mkdir(os.path.join(MNT, d))
    n0, n1, n2, n3 = (d + "/n%d" % i for i in range(4))
    make(kind, n0)
    # link/00.t: link count and ctime through both names
    warm(n0)
    tick()
    os.link(os.path.join(MNT, n0), os.path.join(MNT, n1))
    same(kind + ": link", n0, n1)
    warm(n0, n1)
    tick()
    os.link(os.path.join(MNT, n1), os.path.join(MNT, n2))
    same(kind + ": second link", n0, n1, n2)
    # mode and owner through one name, seen through the others
    warm(n0, n1, n2)
    tick()
    os.chmod(os.path.join(MNT, n1), 0o201)
    same(kind + ": chmod", n0, n1, n2)
    warm(n0, n1, n2)
    tick()
    os.chown(os.path.join(MNT, n2), 65534, 65533)
    same(kind + ": chown", n0, n1, n2)
    warm(n0, n1, n2)
    tick()
    os.utime(os.path.join(MNT, n0), ns=(1_000_000_000, 2_000_000_000))
    same(kind + ": utime", n0, n1, n2)
    if kind == "regular":
        warm(n0, n1, n2)
        tick()
        with open(os.path.join(MNT, n2), "a") as f:
            f.write("more")
        same(kind + ": write", n0, n1, n2)
        warm(n0, n1, n2)
        tick()
        os.truncate(os.path.join(MNT, n1), 2)
        same(kind + ": truncate", n0, n1, n2)
        with open(os.path.join(MNT, n0)) as f:
            if f.read() != "xm":
                fail("regular: content through another name after truncate")
    # unlink/00.t: the other names lose a link, their ctime moves
    warm(n0, n1, n2)
    tick()
    os.unlink(os.path.join(MNT, n0))
    same(kind + ": unlink", n1, n2)
    # rename/23.t: a rename over a name takes a link from the file it named
    make("regular", n3)
    warm(n1, n2, n3)
    tick()
    os.rename(os.path.join(MNT, n3), os.path.join(MNT, n1))
    same(kind + ": rename over a name", n1, n2)
    if os.lstat(os.path.join(MNT, n2)).st_nlink != 1:
        fail(kind + ": rename over a name: the last name keeps two links")


def listed():
    # names the kernel got from a listing with attributes (ls -l), no lookup
    os.mkdir(os.path.join(SRC, "l"))
    with open(os.path.join(SRC, "l/a"), "w") as f:
        f.write("a")
    os.link(os.path.join(SRC, "l/a"), os.path.join(SRC, "l/b"))
    for e in os.scandir(os.path.join(MNT, "l")):
        e.stat(follow_symlinks=False)
    tick()
    os.chmod(os.path.join(MNT, "l/b"), 0o600)
    same("listed: chmod", "l/a", "l/b")
    # a folder renamed above a name: the name follows it
    os.mkdir(os.path.join(MNT, "d1"))
    os.link(os.path.join(MNT, "l/a"), os.path.join(MNT, "d1/c"))
    warm("l/a", "l/b", "d1/c")
    os.rename(os.path.join(MNT, "d1"), os.path.join(MNT, "d2"))
    warm("d2/c")
    tick()
    os.chmod(os.path.join(MNT, "l/a"), 0o640)
    same("listed: chmod after a folder rename", "l/a", "l/b", "d2/c")
    # link/03.t: names at the length limits
    deep = "/".join(["p" * 200] * 18)
    os.makedirs(os.path.join(MNT, deep))
    long1 = deep + "/" + "q" * 255
    long2 = deep + "/" + "r" * 255
    make("regular", long1)
    warm(long1)
    tick()
    os.link(os.path.join(MNT, long1), os.path.join(MNT, long2))
    same("long names: link", long1, long2)
    warm(long1, long2)
    tick()
    os.unlink(os.path.join(MNT, long2))
    same("long names: unlink", long1)


def single():
    # one name: the kernel keeps its attributes for cache_timeout, so a
    # change made behind the mount is not seen (the cache is still long)
    with open(os.path.join(MNT, "one"), "w") as f:
        f.write("1")
    warm("one")
    os.chmod(os.path.join(SRC, "one"), 0o600)
    if stat.S_IMODE(os.lstat(os.path.join(MNT, "one")).st_mode) == 0o600:
        fail("single: a file with one name lost its cached attributes")


if CASE == "ops":
    kinds = ["regular", "fifo", "socket"] + (["char"] if os.geteuid() == 0 else [])
    for k in kinds:
        ops(k)
elif CASE == "listed":
    listed()
elif CASE == "single":
    single()
else:
    fail("unknown case " + CASE)
print("ok " + CASE)
