#!/usr/bin/env bash
# viewsbench.sh [-n BOOKS] [-d DIR] [-- simbookfs options]
#
# Indexing through the mount and listing the views, in one run:
#   copy+index   BOOKS books (real texts from $SIMBOOK_BOOKS, default
#                ../shared/books, with deterministic word mutations so many
#                are near duplicates) copied into the mount with cp; time
#                until .simbookfs/status says idle: books/s and MB/s of book
#                text, and the daemon's CPU seconds (MB per CPU second: what
#                the machine's load does not change); baselines in the same
#                run: the same cp to a plain directory, `simbook fingerprint`
#                of the files (one process, one thread) and `simbook index`
#                of them (no mount, as many threads as the daemon)
#   ls similar   listing similar/<book>/ (readdir + lstat + readlink of
#                every entry, like ls -l) for every book, 5 rounds, first pass (cold) and
#                warm: p50/p99 per listing, against the same work on a native
#                directory holding as many symlinks
#   rescan       a remount with no change: time until idle
# -b 0: without the fingerprint and index baselines (the listings only).
# -p K: before the listings, K of the 20 shelves become 0700 through the
# mount (the listing then checks who may see each book, and drops the
# entries of those shelves from the kernel's cache once handed out).
# Not a test; prints numbers.  Needs python3.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
N=200
PRIV=0
BASE=1
BOOKS=${SIMBOOK_BOOKS:-$top/../shared/books}
[ -d "$BOOKS/texts" ] || { echo "viewsbench: no $BOOKS/texts" >&2; exit 1; }
bench_init viewsbench "n:N d:DIR p:PRIV b:BASE" "$@"
LIB=$W/lib
mkdir -p "$LIB"

python3 - "$BOOKS/texts" "$LIB" "$N" <<'PY'
import os, random, sys
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
texts = sorted(f for f in os.listdir(src) if f.endswith(".txt"))
for i in range(n):
    name = texts[i % len(texts)]
    words = open(os.path.join(src, name), encoding="utf-8", errors="replace").read().split(" ")
    r = random.Random(i)
    if i >= len(texts):           # a mutated copy: 0.5% of the words replaced
        for k in r.sample(range(len(words)), len(words) // 200):
            words[k] = "x" + words[k]
    d = os.path.join(dst, "shelf%02d" % (i % 20))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "%04d-%s" % (i, name)), "w", encoding="utf-8") as f:
        f.write(" ".join(words))
PY
MB=$(du -sm "$LIB" | cut -f1)
echo "# $N books, $MB MB, load $(cut -d' ' -f1-3 /proc/loadavg)"

t0=$(bench_now); cp -r "$LIB"/. "$W/native/" 2>/dev/null || { mkdir -p "$W/native"; cp -r "$LIB"/. "$W/native/"; }; sync; t1=$(bench_now)
native_cp=$(echo "$t1 - $t0" | bc)

SB=$BUILD/simbook
# timed CMD...: "wall_s cpu_s" of the command and its children
timed() {
	python3 -c 'import resource, subprocess, sys, time
t = time.monotonic(); subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.3f %.3f" % (time.monotonic() - t, r.ru_utime + r.ru_stime))' "$@"
}
rate() { # label wall cpu
	awk -v l="$1" -v w="$2" -v c="$3" -v n="$N" -v mb="$MB" 'BEGIN {
		printf "%-40s %7.2f s  %6.1f books/s  %6.1f MB/s   CPU %6.2f s: %5.1f MB per CPU s\n",
			l, w, n / w, mb / w, c, mb / c }'
}
cputicks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
if [ "$BASE" != 0 ]; then
	read -r w c < <(find "$LIB" -type f -print0 | timed xargs -0 "$SB" fingerprint)
	rate "baseline: simbook fingerprint, 1 thread" "$w" "$c"
	read -r w c < <(timed "$SB" index "$W/native" --quiet --index "$W/native.idx")
	rate "baseline: simbook index, no mount" "$w" "$c"
fi
bench_mount -o rescan=0 "${FSOPTS[@]}"
bench_wait_idle
c0=$(cputicks "$PID")
t0=$(bench_now); cp -r "$LIB"/. "$MNT/"; t1=$(bench_now); bench_wait_idle; t2=$(bench_now)
c1=$(cputicks "$PID")
cp_mnt=$(echo "$t1 - $t0" | bc); idx=$(echo "$t2 - $t0" | bc)
echo "copy into the mount      $cp_mnt s   (native cp: $native_cp s)"
rate "cp -r into the mount + index until idle" "$idx" "$(echo "scale=3; ($c1 - $c0) / $(getconf CLK_TCK)" | bc)"
grep -o '"books":[0-9]*' "$MNT/.simbookfs/status"
for ((k = 0; k < PRIV && k < 20; k++)); do chmod 700 "$MNT/$(printf 'shelf%02d' "$k")"; done

python3 - "$MNT" "$W/native" <<'PY'
import os, sys, time
mnt, nat = sys.argv[1], sys.argv[2]
books = []
for d, ds, fs in os.walk(os.path.join(mnt, "similar")):
    if "/.simbookfs" in d:
        continue
    for x in ds:
        p = os.path.join(d, x)
        if os.path.exists(os.path.join(p, ".similar.tsv")):
            books.append(p)
def lsl(p):
    for e in os.listdir(p):
        q = os.path.join(p, e)
        st = os.lstat(q)
        if (st.st_mode & 0o170000) == 0o120000:
            os.readlink(q)
# a native directory with as many symlinks as the largest listing
sizes = [len(os.listdir(b)) for b in books]
big = max(sizes) if sizes else 1
nd = os.path.join(nat, "links"); os.makedirs(nd, exist_ok=True)
for i in range(big):
    os.symlink("../shelf00/x%d" % i, os.path.join(nd, "%02d link" % i))
def bench(paths, rounds):
    t = []
    for _ in range(rounds):
        for p in paths:
            a = time.perf_counter(); lsl(p); t.append(time.perf_counter() - a)
    t.sort()
    return t[len(t) // 2] * 1e3, t[min(len(t) - 1, int(len(t) * 0.99))] * 1e3
cold = []
for p in books:          # first listing: lists and comparisons computed now
    a = time.perf_counter(); lsl(p); cold.append(time.perf_counter() - a)
cold.sort()
print("ls similar/<book>/ cold   p50 %.3f ms  p99 %.3f ms" %
      (cold[len(cold) // 2] * 1e3, cold[min(len(cold) - 1, int(len(cold) * 0.99))] * 1e3))
p50, p99 = bench(books, 5)
n50, n99 = bench([nd] * len(books), 5)
print("ls similar/<book>/        p50 %.3f ms  p99 %.3f ms  (%d books, entries avg %.1f max %d)" %
      (p50, p99, len(books), sum(sizes) / max(1, len(sizes)), big))
print("native dir of %3d links   p50 %.3f ms  p99 %.3f ms  ratio p50 %.1fx" % (big, n50, n99, p50 / n50))
PY
bench_umount
t0=$(bench_now); bench_mount -o rescan=0 "${FSOPTS[@]}"; bench_wait_idle; t1=$(bench_now)
echo "remount, no-change rescan until idle  $(echo "$t1 - $t0" | bc) s"
echo "daemon RSS after rescan  $(awk '/VmRSS|RssAnon|RssFile/ {printf "%s %s %s  ", $1, $2, $3}' /proc/$PID/status)"
