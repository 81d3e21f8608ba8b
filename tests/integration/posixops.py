#!/usr/bin/env python3
"""posixops.py DIR - runs a fixed script of POSIX operations in DIR and
prints one line per step: the result or the errno name.  Run on a native
directory and on the mount, the two outputs must be identical (that is how
t1010 checks exact errnos and semantics).  Inode numbers and times that
differ between runs are never printed, only compared within the run."""
import ctypes, errno, fcntl, mmap, os, stat, sys

libc = ctypes.CDLL(None, use_errno=True)
libc.renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_longlong, ctypes.c_longlong]
AT_FDCWD = -100
RENAME_NOREPLACE, RENAME_EXCHANGE = 1, 2
FALLOC_FL_KEEP_SIZE, FALLOC_FL_PUNCH_HOLE = 1, 2
UTIME_NOW, UTIME_OMIT = (1 << 30) - 1, (1 << 30) - 2

def renameat2(a, b, flags):
    if libc.renameat2(AT_FDCWD, a.encode(), AT_FDCWD, b.encode(), flags) != 0:
        e = ctypes.get_errno(); raise OSError(e, os.strerror(e))

def fallocate(fd, mode, off, length):
    if libc.fallocate(fd, mode, off, length) != 0:
        e = ctypes.get_errno(); raise OSError(e, os.strerror(e))

def step(name, fn):
    try:
        r = fn()
        print(f"{name}: ok{'' if r is None else ' ' + repr(r)}")
    except OSError as e:
        print(f"{name}: {errno.errorcode.get(e.errno, e.errno)}")

def wr(p, data, flags=os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode=0o644):
    fd = os.open(p, flags, mode)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)

def rd(p):
    with open(p, 'rb') as f:
        return f.read()

os.chdir(sys.argv[1])
os.umask(0o022)
step("mkdir d", lambda: os.mkdir("d", 0o755))
step("mkdir d again", lambda: os.mkdir("d"))
step("mkdir mode", lambda: (os.mkdir("m", 0o1777), oct(os.stat("m").st_mode))[1])
step("create f", lambda: wr("f", b"hello world\n"))
step("create excl", lambda: os.open("f", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
step("open missing", lambda: os.open("nope", os.O_RDONLY))
step("open missing parent", lambda: os.open("nope/x", os.O_RDONLY))
step("open file as dir", lambda: os.open("f/x", os.O_RDONLY))
step("open O_DIRECTORY file", lambda: os.open("f", os.O_RDONLY | os.O_DIRECTORY))
step("open dir for write", lambda: os.open("d", os.O_WRONLY))
step("name too long", lambda: os.open("x" * 256, os.O_CREAT | os.O_WRONLY))
step("name 255 ok", lambda: (wr("y" * 255, b""), os.unlink("y" * 255))[1])
step("unlink dir", lambda: os.unlink("d"))
step("rmdir file", lambda: os.rmdir("f"))
step("rmdir missing", lambda: os.rmdir("nope"))
step("create in d", lambda: wr("d/g", b"g"))
step("rmdir nonempty", lambda: os.rmdir("d"))
step("rename dir onto file", lambda: os.rename("d", "f"))
step("rename file onto dir", lambda: os.rename("f", "d"))
step("rename dir into itself", lambda: os.rename("d", "d/sub"))
step("rename missing", lambda: os.rename("nope", "x"))
step("symlink", lambda: os.symlink("f", "s"))
step("symlink exists", lambda: os.symlink("f", "s"))
step("readlink", lambda: os.readlink("s"))
step("readlink file", lambda: os.readlink("f"))
step("open O_NOFOLLOW symlink", lambda: os.open("s", os.O_RDONLY | os.O_NOFOLLOW))
step("symlink loop", lambda: (os.symlink("loop", "loop"), os.open("loop", os.O_RDONLY))[1])
step("read via symlink", lambda: rd("s"))
step("link", lambda: os.link("f", "hl"))
step("link count", lambda: (os.stat("f").st_nlink, os.stat("hl").st_nlink))
step("link same inode", lambda: os.stat("f").st_ino == os.stat("hl").st_ino)
step("link dir", lambda: os.link("d", "dl"))
step("link exists", lambda: os.link("f", "hl"))
step("rename noreplace exists", lambda: renameat2("f", "d/g", RENAME_NOREPLACE))
step("rename noreplace ok", lambda: (renameat2("d/g", "g2", RENAME_NOREPLACE), sorted(os.listdir(".")))[1])
step("rename exchange", lambda: (wr("e1", b"one"), wr("e2", b"two"), renameat2("e1", "e2", RENAME_EXCHANGE), rd("e1"), rd("e2"))[3:])
step("rename exchange file/dir", lambda: (renameat2("e1", "d", RENAME_EXCHANGE), os.path.isdir("e1"), rd("d"))[1:])
step("rename exchange back", lambda: renameat2("e1", "d", RENAME_EXCHANGE))
step("rename exchange missing", lambda: renameat2("e1", "nope", RENAME_EXCHANGE))
step("rename both flags", lambda: renameat2("e1", "e2", RENAME_EXCHANGE | RENAME_NOREPLACE))
step("rename over file", lambda: (os.rename("e1", "e2"), rd("e2"), os.path.exists("e1"))[1:])
step("rename hardlink onto itself", lambda: (os.rename("f", "hl"), os.path.exists("f"))[1])
step("chmod", lambda: (os.chmod("f", 0o600), oct(os.stat("f").st_mode))[1])
step("chmod symlink target", lambda: (os.chmod("s", 0o640), oct(os.stat("f").st_mode), stat.S_ISLNK(os.lstat("s").st_mode))[1:])
step("utime set", lambda: (os.utime("f", ns=(1_000_000_123, 2_000_000_456)), os.stat("f").st_atime_ns, os.stat("f").st_mtime_ns)[1:])
def utimens_special():
    before = os.stat("f").st_mtime_ns
    t = (ctypes.c_long * 4)(5, UTIME_OMIT, 0, UTIME_NOW)
    if libc.utimensat(AT_FDCWD, b"f", t, 0) != 0:
        raise OSError(ctypes.get_errno(), "utimensat")
    st = os.stat("f")
    return (st.st_atime_ns, st.st_mtime_ns > before)
step("utimens omit/now", utimens_special)
step("utime symlink nofollow", lambda: (os.utime("s", ns=(3_000_000_000, 4_000_000_000), follow_symlinks=False), os.lstat("s").st_mtime_ns, os.stat("s").st_mtime_ns == 4_000_000_000)[1:])
step("truncate grow", lambda: (os.truncate("f", 100), os.stat("f").st_size, rd("f")[-3:])[1:])
step("truncate shrink", lambda: (os.truncate("f", 5), rd("f"))[1])
step("truncate dir", lambda: os.truncate("d", 0))
step("truncate negative", lambda: os.truncate("f", -1))
def append():
    fd = os.open("f", os.O_WRONLY | os.O_APPEND)
    os.write(fd, b"++"); os.lseek(fd, 0, os.SEEK_SET); os.write(fd, b"--"); os.close(fd)
    return rd("f")
step("append", append)
def rdwr():
    fd = os.open("rw", os.O_RDWR | os.O_CREAT, 0o644)
    os.pwrite(fd, b"abcdef", 0); os.pwrite(fd, b"XY", 10)
    r = os.pread(fd, 100, 0); os.close(fd); return r
step("pwrite past end", rdwr)
step("read dir", lambda: os.read(os.open("d", os.O_RDONLY), 10))
step("write to O_RDONLY", lambda: os.write(os.open("f", os.O_RDONLY), b"x"))
def holes():
    fd = os.open("h", os.O_RDWR | os.O_CREAT, 0o644)
    os.pwrite(fd, b"x" * 4096, 0)
    os.pwrite(fd, b"y" * 4096, 1 << 20)
    r = [os.lseek(fd, 0, os.SEEK_DATA), os.lseek(fd, 0, os.SEEK_HOLE),
         os.lseek(fd, 8192, os.SEEK_DATA), os.lseek(fd, 1 << 20, os.SEEK_HOLE)]
    try:
        os.lseek(fd, (1 << 20) + 4096, os.SEEK_DATA)
    except OSError as e:
        r.append(errno.errorcode[e.errno])
    fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 4096)
    r += [os.lseek(fd, 0, os.SEEK_DATA), os.fstat(fd).st_size, os.pread(fd, 4, 0)]
    fallocate(fd, 0, 0, 3 << 20)
    r.append(os.fstat(fd).st_size)
    fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 4 << 20)
    r.append(os.fstat(fd).st_size)
    os.close(fd)
    return r
step("seek data/hole, punch hole, fallocate", holes)
def cfr():
    a = os.open("h", os.O_RDONLY); b = os.open("cfr", os.O_WRONLY | os.O_CREAT, 0o644)
    n = os.copy_file_range(a, b, 8192, 1 << 20, 100)
    os.close(a); os.close(b)
    return (n, rd("cfr")[100:104], os.stat("cfr").st_size)
step("copy_file_range", cfr)
def locks():
    a = os.open("f", os.O_RDWR); b = os.open("f", os.O_RDWR)
    fcntl.flock(a, fcntl.LOCK_EX)
    try:
        fcntl.flock(b, fcntl.LOCK_EX | fcntl.LOCK_NB); r = "second flock granted"
    except OSError as e:
        r = errno.errorcode[e.errno]
    fcntl.flock(a, fcntl.LOCK_UN); fcntl.flock(b, fcntl.LOCK_SH | fcntl.LOCK_NB)
    fcntl.lockf(a, fcntl.LOCK_EX | fcntl.LOCK_NB, 10, 0)
    os.close(a); os.close(b)
    return r
step("flock", locks)
def fsyncs():
    fd = os.open("f", os.O_RDWR); os.fsync(fd); os.fdatasync(fd); os.close(fd)
    fd = os.open("d", os.O_RDONLY | os.O_DIRECTORY); os.fsync(fd); os.close(fd)
step("fsync file and dir", fsyncs)
def mm():
    wr("mm", b"\0" * 8192)
    fd = os.open("mm", os.O_RDWR)
    m = mmap.mmap(fd, 8192)
    m[100:105] = b"mmap!"; m.flush(); m.close(); os.close(fd)
    return rd("mm")[98:107]
step("mmap write", mm)
def unlinked_open():
    fd = os.open("u", os.O_RDWR | os.O_CREAT, 0o644)
    os.write(fd, b"still here"); os.unlink("u")
    st = os.fstat(fd)
    r = (os.path.exists("u"), os.pread(fd, 20, 0), st.st_size, st.st_nlink)
    os.ftruncate(fd, 5); os.pwrite(fd, b"!", 7); r += (os.pread(fd, 20, 0), os.fstat(fd).st_size)
    os.close(fd)
    return r
step("unlinked open file", unlinked_open)
step("mkfifo", lambda: (os.mkfifo("fifo", 0o600), stat.S_ISFIFO(os.stat("fifo").st_mode))[1])
step("mknod sock", lambda: (os.mknod("sock", 0o600 | stat.S_IFSOCK), stat.S_ISSOCK(os.lstat("sock").st_mode))[1])
step("xattr user set", lambda: os.setxattr("f", "user.k", b"v"))
step("xattr user get", lambda: os.getxattr("f", "user.k"))
step("xattr list", lambda: sorted(x for x in os.listxattr("f") if x.startswith("user.")))
step("xattr missing", lambda: os.getxattr("f", "user.none"))
step("xattr remove", lambda: os.removexattr("f", "user.k"))
step("xattr symlink user", lambda: os.setxattr("s", "user.k", b"v", follow_symlinks=False))
step("access", lambda: (os.access("f", os.R_OK), os.access("nope", os.F_OK)))
step("listdir", lambda: sorted(os.listdir(".")))
step("listdir d", lambda: sorted(os.listdir("d")))
step("statvfs namemax", lambda: os.statvfs(".").f_namemax)
for n in sorted(os.listdir(".")):
    st = os.lstat(n)
    print(f"final {n} mode={oct(st.st_mode)} size={st.st_size if not stat.S_ISDIR(st.st_mode) else '-'} nlink={st.st_nlink}")
