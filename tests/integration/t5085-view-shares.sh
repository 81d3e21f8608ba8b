#!/usr/bin/env bash
# t5085-view-shares: the percentage in similar/ entry names is the share of
# text found in the other book, one meaning for every relation, and a
# name-sorted listing is sorted by it.  Real editions, abridgements and
# volumes from $SIMBOOK_BOOKS are copied in through the mount; each listed
# percentage must be within 10 points of the 5-gram share RELATIONS.tsv
# measures for that book ("NN% of X's 5-grams occur in Y"), and 100% only
# for a text that is whole in the other.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/viewlib.sh"
command -v python3 >/dev/null || skip "no python3"
B=${SIMBOOK_BOOKS:-}
[ -f "$B/RELATIONS.tsv" ] || skip "no RELATIONS.tsv in \$SIMBOOK_BOOKS"
# X (the measured book), Y, the measured share of X in Y
pairs=(
	"pg1228-origin-of-species-1st-ed.txt pg2009-origin-of-species-6th-ed.txt"
	"pg19033-alice-in-wonderland-storyland-abridged.txt pg11-alice-in-wonderland.txt"
	"pg4078-the-picture-of-dorian-gray-1890.txt pg174-the-picture-of-dorian-gray.txt"
	"pg7100-huckleberry-finn-part1-ch01-05.txt pg76-adventures-of-huckleberry-finn.txt"
)
for p in "${pairs[@]}"; do
	for f in $p; do [ -f "$B/texts/$f" ] || skip "no $f"; done
done
FS_ARGS=()
mount_fs -o rescan=0
mkdir "$MNT/lib"
for p in "${pairs[@]}"; do
	for f in $p; do [ -e "$MNT/lib/$f" ] || cp "$B/texts/$f" "$MNT/lib/"; done
done
wait_idle 180

# measured X Y: the share RELATIONS.tsv gives for X in Y (its first
# "NN% of ...'s 5-grams" figure; the row names X first)
measured() {
	awk -F'\t' -v x="texts/$1" -v y="texts/$2" '$1 == x && $2 == y {
		if (match($4, /[0-9.]+% of [^ ]+ 5-grams/)) { s = substr($4, RSTART, RLENGTH); sub(/%.*/, "", s); print s }
	}' "$B/RELATIONS.tsv"
}
pct() { sed 's/^[0-9]* \([0-9]*\)% .*/\1/' <<<"$1"; }

checked=0
for p in "${pairs[@]}"; do
	set -- $p
	m=$(measured "$1" "$2")
	[ -n "$m" ] || fail "no measured share for $1 in RELATIONS.tsv"
	# X's list shows X's share in Y unless Y is a part of X; Y's list shows
	# it when X is a part of Y ("part of this")
	until_ok 30 entry_for "lib/$1" "lib/$2" || fail "$2 not listed for $1"
	ex=$(entry_for "lib/$1" "lib/$2")
	ey=$(entry_for "lib/$2" "lib/$1") || fail "$1 not listed for $2"
	say "$1: '$ex' / $2: '$ey' (measured $m%)"
	case $ex in *"part of this"*) fail "$2 listed as part of $1: '$ex'" ;; esac
	v=$(pct "$ex")
	python3 - "$v" "$m" <<'PY' || fail "$1 in $2: listed $v%, measured $m%"
import sys
v, m = float(sys.argv[1]), float(sys.argv[2])
sys.exit(0 if abs(v - m) <= 10 and (v < 100 or m >= 99.5) else 1)
PY
	case $ey in
	*"part of this"*) [ "$(pct "$ey")" = "$v" ] || fail "the part's share differs: '$ex' vs '$ey'" ;;
	esac
	checked=$((checked + 1))
done
[ "$checked" -eq "${#pairs[@]}" ] || fail "checked $checked pairs"

say "a name-sorted listing is sorted by the percentage"
for d in "$MNT"/similar/lib/*/; do
	ls "$d" | sed 's/^[0-9]* \([0-9]*\)% .*/\1/' >"$T/p.lst"
	sort -s -n -r "$T/p.lst" | cmp -s - "$T/p.lst" || fail "not by percentage: $(ls "$d" | tr '\n' '|')"
done
say "ok"
