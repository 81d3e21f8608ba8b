#!/usr/bin/env bash
# bench/copiesbench.sh - many copies of one text: `simbook index` of a
# folder of N identical 100-byte text files, for each N given, timed (wall
# and CPU) with the index's size, for this build and, with -b, a baseline
# build (another checkout's build folder) in the same run, alternated, so
# the ratio cancels the machine's load.  Not a test: it prints numbers.
#
#   bench/copiesbench.sh [-n "1000 2000 4000"] [-b BASELINE_BUILD_DIR] [-m MAXBASE]
#                        [-t THREADS]
#
# -m: the baseline only for N <= MAXBASE (a quadratic baseline at 16,000
# copies would take most of an hour).
# A group of copies should cost about linear time and space in N (only
# its first book has band entries and links, docs/INDEX.md).
set -u
NS="1000 2000 4000" BASE= THREADS=2 MAXBASE=1000000
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_init copies "n:NS b:BASE t:THREADS m:MAXBASE" "$@"

# 99 bytes and a newline
TEXT="The quick brown fox jumps over the lazy dog while the old cat watches it all from the window sills."

# run BUILD_DIR N: indexes $W/cN with BUILD_DIR's simbook into a fresh
# index; prints "wall_s cpu_s index_MB links"
run() {
	local b=$1 n=$2 src=$W/c$2 ix=$W/ix t0 t1 cpu
	rm -rf "$ix"
	t0=$(bench_now)
	cpu=$( { /usr/bin/time -f '%U %S' "$b/simbook" index "$src" --index "$ix" --quiet \
		--threads "$THREADS" >/dev/null; } 2>&1 | tail -n 1)
	t1=$(bench_now)
	printf '%.2f %.2f %.1f' "$(echo "$t1 - $t0" | bc)" \
		"$(echo "$cpu" | awk '{print $1 + $2}')" \
		"$(du -sk "$ix" | awk '{print $1 / 1024}')"
}

printf '%6s  %-9s %8s %8s %9s\n' N build wall_s cpu_s index_MB
for n in $NS; do
	mkdir -p "$W/c$n"
	for i in $(seq -w 1 "$n"); do printf '%s\n' "$TEXT" >"$W/c$n/copy-$i.txt"; done
	base=
	if [ -n "$BASE" ] && [ "$n" -le "$MAXBASE" ]; then
		base=1
		read -r bw bc bm <<<"$(run "$BASE" "$n")"
		printf '%6s  %-9s %8s %8s %9s\n' "$n" baseline "$bw" "$bc" "$bm"
	fi
	read -r nw nc nm <<<"$(run "$BUILD" "$n")"
	printf '%6s  %-9s %8s %8s %9s' "$n" this "$nw" "$nc" "$nm"
	[ -n "$base" ] && printf '   wall %.2fx faster, index %.1fx smaller' \
		"$(echo "$bw / $nw" | bc -l)" "$(echo "$bm / $nm" | bc -l)"
	printf '\n'
	rm -rf "$W/c$n" "$W/ix"
done
