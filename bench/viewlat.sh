#!/usr/bin/env bash
# viewlat.sh [-r RUNS] [-d DIR] [-- simbookfs options]
#
# How soon a book written through the mount shows in the views, after its
# writer's close():
#   SRC holds base.txt, 1 MiB of real text (the bodies of Project Gutenberg
#   books from $SIMBOOK_BOOKS, default ../shared/books, concatenated), and 10 other
#   real books.  Each run writes new-K.txt through the mount (base.txt with
#   0.5% of the words changed, seed K: a near duplicate; open, 1 MiB in
#   64 KiB writes, close), then polls every millisecond until
#     own     similar/ lists new-K.txt and similar/new-K.txt/ lists base.txt
#     reverse similar/base.txt/ lists new-K.txt (the kernel cached this
#             listing before the write: the views must invalidate it)
#   and deletes new-K.txt again.  Prints p50/p99/max over RUNS (default 20)
#   of the time from close() to each, and the close() time itself.
# Not a test; prints numbers.  Needs python3.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
RUNS=20
BOOKS=${SIMBOOK_BOOKS:-$top/../shared/books}
[ -d "$BOOKS/texts" ] || { echo "viewlat: no $BOOKS/texts" >&2; exit 1; }
bench_init viewlat "r:RUNS d:DIR" "$@"

python3 - "$BOOKS/texts" "$SRC" <<'PY'
import os, sys
src, dst = sys.argv[1], sys.argv[2]
texts = sorted(f for f in os.listdir(src) if f.endswith(".txt"))
def body(t):                  # without the Project Gutenberg header and
    a = t.find("*** START")   # licence, which the extractor strips at
    b = t.find("*** END")     # their markers (mutations must not hit them)
    a = t.find("\n", a) + 1 if a >= 0 else 0
    return t[a:b if b > a else len(t)]
base = ""
for name in texts:
    base += body(open(os.path.join(src, name), encoding="utf-8", errors="replace").read())
    if len(base.encode()) >= 1 << 20:
        break
base = base.encode()[: 1 << 20].decode("utf-8", "ignore")
open(os.path.join(dst, "base.txt"), "w", encoding="utf-8").write(base)
for name in texts[-10:]:
    with open(os.path.join(src, name), "rb") as f, open(os.path.join(dst, name), "wb") as g:
        g.write(f.read())
PY

bench_mount -o rescan=0 "${FSOPTS[@]}"
echo "# viewlat: $RUNS runs, 1 MiB book, options: ${FSOPTS[*]:-(defaults)}, load $(cut -d' ' -f1-3 /proc/loadavg)"

timeout 600 python3 - "$MNT" "$RUNS" <<'PY'
import os, random, sys, time
mnt, runs = sys.argv[1], int(sys.argv[2])
status = os.path.join(mnt, ".simbookfs", "status")
def wait_idle(limit=120):
    end = time.monotonic() + limit
    while '"state":"idle"' not in open(status).read():
        if time.monotonic() > end:
            sys.exit("viewlat: the index never became idle")
        time.sleep(0.01)
def lists(d, name):            # an entry of d links to the book name
    try:
        for e in os.listdir(d):
            q = os.path.join(d, e)
            if os.path.islink(q) and os.readlink(q).endswith("/" + name):
                return True
    except OSError:
        pass
    return False
wait_idle()
base = open(os.path.join(mnt, "base.txt"), encoding="utf-8").read().split(" ")
rev = os.path.join(mnt, "similar", "base.txt")
own_t, rev_t, close_t = [], [], []
for k in range(int(os.environ.get("VL_FIRST", "0")), int(os.environ.get("VL_FIRST", "0")) + runs):
    words = list(base)
    r = random.Random(k)
    for i in r.sample(range(len(words)), len(words) // 200):
        words[i] = "x" + words[i]
    data = " ".join(words).encode()
    name = "new-%02d.txt" % k
    os.listdir(rev)                       # the kernel caches this listing now
    fd = os.open(os.path.join(mnt, name), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    for off in range(0, len(data), 65536):
        os.write(fd, data[off:off + 65536])
    a = time.monotonic()
    os.close(fd)
    t0 = time.monotonic()
    close_t.append(t0 - a)
    own = revd = None
    while own is None or revd is None:
        now = time.monotonic()
        if now - t0 > 30:
            sys.exit("viewlat: %s did not show in 30 s (own %s, reverse %s; similar/base.txt: %s)"
                     % (name, own, revd, sorted(os.listdir(rev))))
        # as a file manager finds it: in the listing of similar/ first (a
        # lookup of the name before it exists would be cached as missing
        # for the mount's negative_timeout, 1 s)
        if own is None and name in os.listdir(os.path.join(mnt, "similar")) and \
           lists(os.path.join(mnt, "similar", name), "base.txt"):
            own = time.monotonic() - t0
        if revd is None and lists(rev, name):
            revd = time.monotonic() - t0
        time.sleep(0.001)
    own_t.append(own)
    rev_t.append(revd)
    os.unlink(os.path.join(mnt, name))
    wait_idle()
def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(p * (len(v) - 1))))] * 1e3
for label, v in (("close() of the 1 MiB write", close_t),
                 ("close -> similar/new/ lists base", own_t),
                 ("close -> similar/base/ lists new", rev_t)):
    print("%-34s p50 %7.1f ms  p99 %7.1f ms  max %7.1f ms" %
          (label, pct(v, 0.5), pct(v, 0.99), max(v) * 1e3))
PY
bench_umount
