#!/usr/bin/env python3
"""snapread.py MNT SECONDS: reads the views' generated files (every
.similar.tsv under similar/, .simbookfs/status, errors, not-duplicates)
again and again for SECONDS, each as stat, open, fstat, read to the end,
stat: the bytes read must be as many as the open file's fstat says, and as
many as the stat before the open said whenever that stat and the fstat
agree (same size and mtime: the file was not replaced in between, as a
copying client checks).  Prints the counts; exits 1 on a mismatch."""
import errno
import os
import sys
import time

mnt, secs = sys.argv[1], float(sys.argv[2])
meta = [os.path.join(mnt, ".simbookfs", n) for n in ("status", "errors", "not-duplicates")]


def listings():
    out = []
    for d, _, fs in os.walk(os.path.join(mnt, "similar")):
        if ".similar.tsv" in fs:
            out.append(os.path.join(d, ".similar.tsv"))
    return out


pairs = changed = gone = 0
end = time.monotonic() + secs
paths = listings() + meta
while time.monotonic() < end:
    for p in paths:
        try:
            st = os.stat(p)
            fd = os.open(p, os.O_RDONLY)
        except OSError as e:
            if e.errno != errno.ENOENT:
                raise
            gone += 1
            continue
        try:
            fst = os.fstat(fd)
            data = b""
            while True:
                b = os.read(fd, 7)   # small reads: many requests per file
                if not b:
                    break
                data += b
        finally:
            os.close(fd)
        pairs += 1
        if len(data) != fst.st_size:
            sys.exit("FAIL: %s: read %d bytes, fstat of the open file says %d" % (p, len(data), fst.st_size))
        if (st.st_size, st.st_mtime_ns) != (fst.st_size, fst.st_mtime_ns):
            changed += 1
        elif len(data) != st.st_size:
            sys.exit("FAIL: %s: read %d bytes, stat said %d (same mtime at open)" % (p, len(data), st.st_size))
    paths = listings() + meta
print("pairs %d changed-between %d gone %d" % (pairs, changed, gone))
if pairs < 100:
    sys.exit("FAIL: only %d reads" % pairs)
