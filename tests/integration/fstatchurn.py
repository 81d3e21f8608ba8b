#!/usr/bin/env python3
"""fstatchurn.py MNT SECS: opens books through the mount (by name, through
the similar/ links, and each book's .similar.tsv view file), then fstat()s
and reads each fd a few times, in three threads, while another thread
removes, writes back and renames the same books.  An open may fail (the
name is gone); an fstat() or read() of an open fd must not.  Prints the
counts and exits 1 on any fstat() or read() error."""
import collections, errno, os, sys, threading, time

mnt, secs = sys.argv[1], float(sys.argv[2])
names = ["copy1.txt", "copy2.txt", "copy3.txt"]
src_text = open(os.path.join(mnt, "a/base1.txt"), "rb").read()
stop = time.time() + secs
errs = collections.Counter()
opens = collections.Counter()

def churn():
    while time.time() < stop:
        for n in names:
            p = os.path.join(mnt, n)
            try: os.unlink(p)
            except OSError: pass
            try: os.rename(os.path.join(mnt, "b/base1-near.txt"), os.path.join(mnt, "b/moving.txt"))
            except OSError: pass
            with open(p, "wb") as f: f.write(src_text)
            try: os.rename(os.path.join(mnt, "b/moving.txt"), os.path.join(mnt, "b/base1-near.txt"))
            except OSError: pass

def targets():
    out = [os.path.join(mnt, n) for n in names] + [os.path.join(mnt, "b/base1-near.txt")]
    d = os.path.join(mnt, "similar/a/base1.txt")
    try:
        out += [os.path.join(d, e) for e in os.listdir(d) if not e.startswith(".")]
    except OSError: pass
    # the machine-readable listing of a book's folder: a view's own file
    out += [os.path.join(mnt, "similar", n, ".similar.tsv") for n in names]
    return out

def reader():
    while time.time() < stop:
        for p in targets():
            try: fd = os.open(p, os.O_RDONLY)
            except OSError as e:
                opens[errno.errorcode[e.errno]] += 1; continue
            opens["ok"] += 1
            try:
                for _ in range(20):
                    op = "fstat"
                    os.fstat(fd)
                    op = "read"
                    os.read(fd, 4096)
                    time.sleep(0.0005)
            except OSError as e:
                errs[op + " " + errno.errorcode[e.errno] + (" tsv" if p.endswith(".tsv") else "")] += 1
            finally:
                os.close(fd)

ts = [threading.Thread(target=churn)] + [threading.Thread(target=reader) for _ in range(3)]
for t in ts: t.start()
for t in ts: t.join()
print("opens", dict(opens), "fstat/read errors", dict(errs))
sys.exit(1 if errs else 0)
