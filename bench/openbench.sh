#!/usr/bin/env bash
# openbench.sh - how soon a mount answers when its index needs an upgrade.
#
# Makes a library of N small generated books, indexes it (simbook index),
# then mounts it twice: once as it is (the baseline) and once with the
# stored schema set back to 3, so the mount upgrades the index in place.
# For each mount it prints the time from starting the daemon to the mount,
# to the first stat() of a book through the mount that succeeds, and to
# .simbookfs/status saying the index is open, and the ratios of the
# upgrade mount to the baseline.  Needs python3 and mdb_load (lmdb-utils).
#
#   bench/openbench.sh [-n BOOKS] [-- simbookfs options]
. "$(dirname "$0")/lib.sh"
N=20000
bench_init openbench "n:N" "$@"
command -v mdb_load >/dev/null || { echo "openbench: needs mdb_load (lmdb-utils)" >&2; exit 1; }
IDX=$SRC/.simbookfs-index

python3 - "$SRC" "$N" <<'EOF'
import os, random, sys
src, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(5)
syl = ["ka", "lo", "mi", "ra", "te", "su", "no", "vi", "da", "pe", "zu", "ri", "fen", "tor"]
vocab = ["".join(rng.choice(syl) for _ in range(rng.randint(2, 4))) for _ in range(20000)]
for i in range(n):
    d = os.path.join(src, "%03d" % (i // 1000))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "book%06d.txt" % i), "w") as f:
        f.write("Book %d\n\n%s\n" % (i, " ".join(rng.choice(vocab) for _ in range(300))))
EOF
t0=$(bench_now)
"$BUILD/simbook" index "$SRC" >"$W/index.log" 2>&1 ||
	{ echo "openbench: simbook index failed: $(tail -n 3 "$W/index.log")" >&2; exit 1; }
echo "library: $N books, indexed in $(echo "$(bench_now) - $t0" | bc) s"

# one_mount: mounts, sets MOUNTED, FIRST and OPEN (ms from the daemon's
# start to the mount, to the first stat of a book through the mount that
# succeeds, and to the status saying the index is open), waits for idle and
# unmounts.  The loop forks nothing ([ -e ] and read are the shell's own),
# so a loaded machine delays the probe itself as little as possible.
ms_since() { local now=${EPOCHREALTIME/[.,]/}; echo $(((now - $1) / 1000)); }
one_mount() {
	local t0=${EPOCHREALTIME/[.,]/} line
	FIRST= OPEN= MOUNTED=
	bench_mount -o rescan=0 "${FSOPTS[@]}"
	MOUNTED=$(ms_since "$t0")
	while [ -z "$OPEN" ]; do
		[ -z "$FIRST" ] && [ -e "$MNT/000/book000000.txt" ] && FIRST=$(ms_since "$t0")
		line=
		read -r line <"$MNT/.simbookfs/status" 2>/dev/null || true
		case $line in
		*'"state":"scanning"'* | *'"state":"idle"'*) OPEN=$(ms_since "$t0") ;;
		*) sleep 0.002 ;;
		esac
	done
	bench_wait_idle
	bench_umount
}

set_schema() {
	printf 'VERSION=3\nformat=bytevalue\ntype=btree\nHEADER=END\n 736368656d61\n %08x\nDATA=END\n' \
		"$1" | mdb_load -s meta "$IDX"
}

one_mount
b_mounted=$MOUNTED b_first=$FIRST b_open=$OPEN
set_schema 3
one_mount
printf '%-26s %10s %10s %10s\n' "(ms from the daemon's start)" "mounted" "first stat" "index open"
printf '%-26s %10d %10d %10d\n' "as it is (baseline)" "$b_mounted" "$b_first" "$b_open"
printf '%-26s %10d %10d %10d\n' "schema 3: upgrade" "$MOUNTED" "$FIRST" "$OPEN"
printf '%-26s %10s %9.2fx %9.2fx\n' "upgrade / baseline" "" "$(echo "$FIRST / $b_first" | bc -l)" \
	"$(echo "$OPEN / $b_open" | bc -l)"
