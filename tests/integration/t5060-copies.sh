#!/usr/bin/env bash
# t5060-copies: many copies of one text (220 identical small notices, and a
# book with 3 copies and a near duplicate) copied in through the mount:
# similar/, clusters/ and duplicates/ list every copy under its own path;
# removing each group's representative (the copy indexed first, which alone
# has band entries and links) keeps the views right.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/viewlib.sh"
command -v python3 >/dev/null || skip "no python3"
FS_ARGS=()
NCOPIES=220

mkdir -p "$T/lib/copies" "$T/lib/books"
python3 - "$(dirname "$0")" "$T/lib" "$NCOPIES" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import wordgen
d, n, g = sys.argv[2], int(sys.argv[3]), wordgen.Gen(7)
gen = g.text
def put(p, t): wordgen.put(d, p, t)
notice = "Permission is granted to copy this notice verbatim; changing it is not allowed.\n"
for i in range(n):
    put("copies/n-%03d.txt" % i, notice)
base = gen(1, 3000)
for p in ("books/base.txt", "books/base-1.txt", "books/base-2.txt", "books/base-3.txt"):
    put(p, base)
put("books/near.txt", gen(1, 3000, 100, 0.03))
put("books/other.txt", gen(2, 3000))
PY

# members PATH...: the sorted line of view_groups for those paths
members() { printf '%s\n' "$@" | sort | tr '\n' ' '; }
notices() { # FROM: the notices n-FROM .. n-(NCOPIES-1)
	local i
	for ((i = $1; i < NCOPIES; i++)); do printf 'copies/n-%03d.txt\n' "$i"; done
}
groups_are() { [ "$(view_groups "$1")" = "$2" ]; }
# listed BOOK: the paths similar/BOOK/ lists, sorted
listed() { tail -n +2 "$MNT/similar/$1/.similar.tsv" | cut -f9 | sort; }
# rep_of BOOK...: the path with the smallest id among the books the lists
# of BOOK... name (a group's representative, named in its copies' lists)
rep_of() {
	local b
	# ids are 16 hex digits: string order is number order
	for b in "$@"; do tail -n +2 "$MNT/similar/$b/.similar.tsv"; done |
		awk -F'\t' 'NR == 1 || $8 < m { m = $8; p = $9 } END { print p }'
}

mount_fs -o rescan=0
cp -r "$T/lib/." "$MNT/"
wait_idle 120

say "clusters/: the book's copies with its near duplicate; the notices, all of them"
want_base=$(members books/base.txt books/base-1.txt books/base-2.txt books/base-3.txt books/near.txt)
want_notes=$(notices 0 | sort | tr '\n' ' ')
want=$(printf '%s\n%s\n' "$want_base" "$want_notes" | sort)
groups_are clusters "$want" || fail "clusters/: $(view_groups clusters | cut -c1-300)"
ls "$MNT/clusters" | grep -x "n-[0-9]* ($NCOPIES)" >/dev/null || fail "group name: $(ls "$MNT/clusters")"

say "duplicates/: the same text, every copy"
want_dup=$(printf '%s\n%s\n' "$(members books/base.txt books/base-1.txt books/base-2.txt \
	books/base-3.txt)" "$want_notes" | sort)
groups_are duplicates "$want_dup" || fail "duplicates/: $(view_groups duplicates | cut -c1-300)"

say "similar/: the near duplicate lists every copy of its book; a notice lists the others"
[ "$(listed books/near.txt)" = "$(printf '%s\n' books/base-1.txt books/base-2.txt \
	books/base-3.txt books/base.txt)" ] || fail "near.txt lists: $(listed books/near.txt)"
[ "$(listed copies/n-005.txt)" = "$(notices 0 | grep -vx copies/n-005.txt)" ] ||
	fail "n-005 lists $(listed copies/n-005.txt | wc -l) books"
has_entry books/near.txt books/base-2.txt || fail "no link to base-2.txt"
[ "$(ls "$MNT/similar/copies/n-010.txt" | grep -c " identical file - ")" = $((NCOPIES - 1)) ] ||
	fail "n-010 entries: $(ls "$MNT/similar/copies/n-010.txt" | head -3)"

say "the representatives go: the views keep every other copy"
rb=$(rep_of books/near.txt)
rn=$(rep_of copies/n-000.txt copies/n-001.txt)
[ -n "$rb" ] && [ -n "$rn" ] || fail "no representative found"
rm "$MNT/$rb" "$MNT/$rn"
wait_idle 60
want_base=$(members books/base.txt books/base-1.txt books/base-2.txt books/base-3.txt \
	books/near.txt | tr ' ' '\n' | grep -vx "$rb" | tr '\n' ' ')
want_notes=$(notices 0 | grep -vx "$rn" | tr '\n' ' ')
want=$(printf '%s\n%s\n' "$want_base" "$want_notes" | sort)
until_ok 5 groups_are clusters "$want" ||
	fail "clusters/ after removing $rb and $rn: $(view_groups clusters | cut -c1-300)"
[ "$(listed books/near.txt | wc -l)" = 3 ] && ! listed books/near.txt | grep -x "$rb" >/dev/null ||
	fail "near.txt lists after removing $rb: $(listed books/near.txt)"
[ "$(listed copies/n-100.txt | wc -l)" = $((NCOPIES - 2)) ] ||
	fail "n-100 lists $(listed copies/n-100.txt | wc -l) books"

say "the new representative rewritten as a copy of another book changes groups"
rb2=$(rep_of books/near.txt)
cp "$T/lib/books/other.txt" "$MNT/$rb2"
wait_idle 60
until_ok 5 eval '[ "$(listed books/near.txt | wc -l)" = 2 ]' ||
	fail "near.txt lists after rewriting $rb2: $(listed books/near.txt)"
want_base=$(printf '%s\n' $want_base | grep -vx "$rb2" | tr '\n' ' ')
want=$(printf '%s\n%s\n%s\n' "$want_base" "$want_notes" "$(members "$rb2" books/other.txt)" | sort)
until_ok 5 groups_are clusters "$want" ||
	fail "clusters/ after rewriting $rb2: $(view_groups clusters | cut -c1-300)"
umount_fs
