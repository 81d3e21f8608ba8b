#!/usr/bin/env python3
"""fsx.py DIR EXPECT_DIR [--seed S] [--ops N] [--files K] [--maxsize BYTES]

Data-integrity exerciser: random writes, reads, truncates (by fd and by
path), reopen with O_TRUNC, mmap reads and writes, hole punching,
copy_file_range and fsync on K files in DIR, each checked against an
in-memory shadow copy.  The same seed gives the same operations.  At the
end every file is verified whole and its expected bytes are written to
EXPECT_DIR, so the caller can compare SRC byte for byte.  Exits 1 on the
first mismatch, printing the seed and the operation number."""
import argparse, ctypes, mmap, os, random, sys

ap = argparse.ArgumentParser()
ap.add_argument("dir"); ap.add_argument("expect")
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--ops", type=int, default=5000)
ap.add_argument("--files", type=int, default=4)
ap.add_argument("--maxsize", type=int, default=1 << 20)
a = ap.parse_args()
rng = random.Random(a.seed)
libc = ctypes.CDLL(None, use_errno=True)
libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_longlong, ctypes.c_longlong]
PAGE = mmap.PAGESIZE

paths = [os.path.join(a.dir, f"fsx{i}.bin") for i in range(a.files)]
shadow = [bytearray() for _ in paths]
fds = [os.open(p, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644) for p in paths]
opno = 0
counts = {}

def die(msg):
    print(f"fsx: seed {a.seed} op {opno}: {msg}", file=sys.stderr)
    sys.exit(1)

def check(i, off, got):
    want = bytes(shadow[i][off:off + len(got)])
    if got != want:
        for k in range(min(len(got), len(want))):
            if got[k] != want[k]:
                die(f"file {i} differs at {off + k}: got {got[k]:#x} want {want[k]:#x}")
        die(f"file {i} at {off}: got {len(got)} bytes, want {len(want)}")

def resize(i, size):
    s = shadow[i]
    if size < len(s):
        del s[size:]
    else:
        s.extend(bytes(size - len(s)))

def op_write(i):
    off = rng.randrange(0, a.maxsize)
    n = rng.choice([1, 7, 512, 4096, rng.randrange(1, 200000)])
    n = min(n, a.maxsize - off) or 1
    data = rng.randbytes(n)
    if os.pwrite(fds[i], data, off) != n:
        die("short write")
    if off > len(shadow[i]):
        resize(i, off)
    shadow[i][off:off + n] = data

def op_read(i):
    size = len(shadow[i])
    off = rng.randrange(0, size + 10)
    n = rng.randrange(1, 300000)
    got = os.pread(fds[i], n, off)
    check(i, off, got)
    if len(got) != max(0, min(n, size - off)):
        die(f"short read {len(got)} at {off} of {size}")

def op_truncate(i):
    size = rng.randrange(0, a.maxsize)
    if rng.random() < 0.5:
        os.ftruncate(fds[i], size)
    else:
        os.truncate(paths[i], size)
    resize(i, size)

def op_reopen(i):
    os.close(fds[i])
    flags = os.O_RDWR
    if rng.random() < 0.2:
        flags |= os.O_TRUNC
        resize(i, 0)
    fds[i] = os.open(paths[i], flags)

def op_mmap_read(i):
    size = len(shadow[i])
    if size == 0:
        return
    with mmap.mmap(fds[i], size, prot=mmap.PROT_READ) as m:
        off = rng.randrange(0, size)
        check(i, off, m[off:off + rng.randrange(1, 100000)])

def op_mmap_write(i):
    size = len(shadow[i])
    if size == 0:
        return
    off = rng.randrange(0, size)
    n = min(rng.randrange(1, 50000), size - off)
    data = rng.randbytes(n)
    with mmap.mmap(fds[i], size) as m:
        m[off:off + n] = data
        if rng.random() < 0.5:
            m.flush()
    shadow[i][off:off + n] = data

def op_punch(i):
    size = len(shadow[i])
    if size == 0:
        return
    off = rng.randrange(0, size)
    n = rng.randrange(1, 200000)
    if libc.fallocate(fds[i], 3, off, n) != 0:   # PUNCH_HOLE | KEEP_SIZE
        die(f"fallocate: {os.strerror(ctypes.get_errno())}")
    end = min(size, off + n)
    shadow[i][off:end] = bytes(end - off)

def op_copy(i):
    j = rng.randrange(len(paths))
    if j == i or not shadow[j]:
        return
    src_off = rng.randrange(0, len(shadow[j]))
    dst_off = rng.randrange(0, a.maxsize)
    n = min(rng.randrange(1, 300000), a.maxsize - dst_off)
    done = os.copy_file_range(fds[j], fds[i], n, src_off, dst_off)
    data = bytes(shadow[j][src_off:src_off + done])
    if len(data) != done:
        die("copy_file_range copied past source EOF")
    if done:
        if dst_off > len(shadow[i]):
            resize(i, dst_off)
        shadow[i][dst_off:dst_off + done] = data

def op_fsync(i):
    os.fsync(fds[i])

ops = [(op_write, 30), (op_read, 25), (op_truncate, 6), (op_reopen, 5), (op_mmap_read, 8),
       (op_mmap_write, 8), (op_punch, 5), (op_copy, 5), (op_fsync, 2)]
names, weights = [o[0] for o in ops], [o[1] for o in ops]
for opno in range(1, a.ops + 1):
    i = rng.randrange(len(paths))
    fn = rng.choices(names, weights)[0]
    counts[fn.__name__] = counts.get(fn.__name__, 0) + 1
    try:
        fn(i)
    except OSError as e:
        die(f"{fn.__name__} on file {i}: {e}")
    if opno % 500 == 0:
        if os.fstat(fds[i]).st_size != len(shadow[i]):
            die(f"file {i} size {os.fstat(fds[i]).st_size} want {len(shadow[i])}")
for i, fd in enumerate(fds):
    os.close(fd)
    with open(paths[i], "rb") as f:
        check(i, 0, f.read())
    if os.stat(paths[i]).st_size != len(shadow[i]):
        die(f"final size of file {i}")
    with open(os.path.join(a.expect, os.path.basename(paths[i])), "wb") as f:
        f.write(shadow[i])
print(f"fsx: seed {a.seed}: {a.ops} ops on {a.files} files verified:",
      " ".join(f"{k[3:]}={v}" for k, v in sorted(counts.items())))
