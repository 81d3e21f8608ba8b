#!/usr/bin/env bash
# bench/importbench.sh - bulk fingerprinting (docs/BULK.md) against the
# one-process index, in the same run: a generated library of N books
# (families of near duplicates and parts, so the judging has work) indexed
# by `simbook index` (the baseline), then fingerprinted by `simbook
# fingerprint --records` under xargs -P, and the records loaded by
# `simbook import`.  Prints wall and CPU seconds of each step and the
# import's records/s, loading alone and with the judging.  Not a test.
#
#   bench/importbench.sh [-n BOOKS] [-w WORDS] [-t THREADS]
set -u
N=2000 WORDS=3000 THREADS=2
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_init import "n:N w:WORDS t:THREADS" "$@"
SB=$BUILD/simbook
[ -x "$SB" ] || { echo "importbench: $SB not built" >&2; exit 1; }

python3 "$(dirname "$0")/famlib.py" "$SRC" "$N" "$WORDS"

# timed LABEL CMD...: runs CMD, prints "LABEL wall_s cpu_s"
timed() {
	local label=$1 t0 t1 cpu
	shift
	t0=$(bench_now)
	/usr/bin/time -o "$W/$label.time" -f '%U %S' "$@" >"$W/$label.out" 2>/dev/null
	cpu=$(tail -1 "$W/$label.time")
	t1=$(bench_now)
	echo "$label $(echo "$t1 - $t0" | bc) $(echo "$cpu" | awk '{ print $1 + $2 }')"
}

echo "importbench: $N books of $WORDS words, $THREADS threads ($(nproc) CPUs)"
read -r _ iw ic < <(timed index "$SB" index "$SRC" --index "$W/ix-one" --threads "$THREADS" --quiet)
read -r _ fw fc < <(cd "$SRC" && timed records sh -c "find . -type f -print0 | xargs -0 -P$THREADS -n 64 '$SB' fingerprint --records >>'$W/records'")
nrec=$(wc -l <"$W/records")
read -r _ mw mc < <(timed import "$SB" import --index "$W/ix-bulk" --library "$SRC" --threads "$THREADS" "$W/records")
load=$(sed -n 's/.*(\([0-9.]*\) s loading).*/\1/p' "$W/import.out")
printf '%-36s %8s %8s\n' "step" "wall s" "CPU s"
printf '%-36s %8.2f %8.2f\n' "simbook index (baseline)" "$iw" "$ic"
printf '%-36s %8.2f %8.2f\n' "fingerprint --records (xargs -P$THREADS)" "$fw" "$fc"
printf '%-36s %8.2f %8.2f\n' "import: load + judge" "$mw" "$mc"
printf '%-36s %8.2f\n' "import: loading alone" "$load"
echo "records: $nrec ($(du -m "$W/records" | cut -f1) MB)"
echo "import records/s: loading $(echo "$nrec / $load" | bc), with the judging $(echo "$nrec / $mw" | bc)"
echo "simbook index books/s: $(echo "$N / $iw" | bc); index / (records + import) wall: $(echo "scale=2; $iw / ($fw + $mw)" | bc)"
