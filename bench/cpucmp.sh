#!/usr/bin/env bash
# cpucmp.sh [-r ROUNDS] LIBRARY SIMBOOK...
#
# The CPU seconds (user + system, /usr/bin/time) of `simbook fingerprint`
# of every file under LIBRARY and of `simbook index` of LIBRARY into a
# fresh index, for each simbook binary given (builds made apart, e.g. of
# two commits), the binaries alternated in every round so that the load of
# a shared machine falls on all of them alike.  Prints per binary and
# command the best and the worst of the rounds (default 5) and MB of the
# library per best CPU second.  Not a test; prints numbers.
set -euo pipefail
ROUNDS=5
while getopts r: o; do
	case $o in
	r) ROUNDS=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || { echo "usage: cpucmp.sh [-r ROUNDS] LIBRARY SIMBOOK..." >&2; exit 2; }
LIB=$1
shift
W=$(mktemp -d "${TMPDIR:-/tmp}/cpucmp.XXXXXX")
trap 'rm -rf "$W"' EXIT
find "$LIB" -type f | sort >"$W/files"
MB=$(du -sm "$LIB" | cut -f1)
echo "# $(wc -l <"$W/files") files, $MB MB, $ROUNDS rounds, load $(cut -d' ' -f1-3 /proc/loadavg)"

for ((r = 1; r <= ROUNDS; r++)); do
	i=0
	for b in "$@"; do
		i=$((i + 1))
		rm -rf "$W/ix"
		/usr/bin/time -o "$W/t" -f '%U %S' "$b" fingerprint --stdin <"$W/files" >/dev/null
		echo "$i fingerprint $(cat "$W/t")" >>"$W/times"
		/usr/bin/time -o "$W/t" -f '%U %S' "$b" index "$LIB" --index "$W/ix" --quiet >/dev/null
		echo "$i index $(cat "$W/t")" >>"$W/times"
	done
done
i=0
for b in "$@"; do
	i=$((i + 1))
	for c in fingerprint index; do
		awk -v i="$i" -v c="$c" -v b="$b" -v mb="$MB" '
			$1 == i && $2 == c { t = $3 + $4; if (!n++ || t < lo) lo = t; if (t > hi) hi = t }
			END { printf "%-40s %-11s best %6.2f s  worst %6.2f s  %6.1f MB/CPU s\n", b, c, lo, hi, mb / lo }' "$W/times"
	done
done
