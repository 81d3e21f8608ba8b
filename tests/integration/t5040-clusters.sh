#!/usr/bin/env bash
# t5040-clusters: clusters/ holds the near duplicates that similar/ shows,
# including a pair too far apart in simhash for the simhash bands (found by
# min-hash); containment does not join a cluster; `simbook clusters` agrees
# with the view; "not a duplicate" and its undo, renames and deletes are
# followed (a book joins only near duplicates of most of a cluster).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/viewlib.sh"
command -v python3 >/dev/null || skip "no python3"
FS_ARGS=()

mkdir -p "$T/lib/x" "$T/lib/y"
python3 - "$(dirname "$0")" "$T/lib" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import wordgen
d, g = sys.argv[2], wordgen.Gen(5)
gen = g.text
def put(p, t): wordgen.put(d, p, t)
put("x/base.txt", gen(1, 3000))
put("y/far.txt", gen(1, 3000, 101, 0.05))    # near duplicate, 12 simhash bits away
put("y/close.txt", gen(1, 3000, 100, 0.03))  # near duplicate, within 7 bits
put("x/volume.txt", gen(1, 1000))            # contained in base: not a cluster member
put("other.txt", gen(2, 3000))               # unrelated
PY

cli_groups() {
	sbx "$SRC" clusters "$SRC" --json | python3 -c '
import json, sys
for line in sys.stdin:
    g = json.loads(line)
    print(" ".join(sorted(m["path"] for m in g["members"])) + " ")' | sort
}
groups_are() { [ "$(view_groups)" = "$1" ]; }

mount_fs -o rescan=0
cp -r "$T/lib/." "$MNT/"
wait_idle

say "the far pair is a near duplicate beyond the simhash threshold"
tsv=$MNT/similar/x/base.txt/.similar.tsv
row=$(grep -E "	y/far.txt		[a-z]+$" "$tsv") || fail "far.txt not in similar/: $(cat "$tsv")"
[ "$(cut -f3 <<<"$row")" = near-duplicate ] || fail "far.txt relation: $row"
[ "$(cut -f4 <<<"$row")" -gt 7 ] || fail "far.txt within the simhash threshold: $row"
grep -Eq "	(b-contains-a|a-contains-b)	.*	x/volume.txt		[a-z]+$" "$tsv" ||
	fail "volume not listed as contained: $(cat "$tsv")"

say "clusters/ holds base, close and far; not the volume, not the unrelated book"
want="x/base.txt y/close.txt y/far.txt "
[ "$(view_groups)" = "$want" ] || fail "clusters/: $(view_groups)"
[ "$(ls "$MNT/clusters")" = "$(ls "$MNT/clusters" | grep -x "[a-z]* (3)")" ] ||
	fail "group name: $(ls "$MNT/clusters")"

say "simbook clusters agrees with the view"
[ "$(cli_groups)" = "$(view_groups)" ] || fail "cli: $(cli_groups) view: $(view_groups)"

say "not a duplicate with both others: far leaves the cluster; undo brings it back"
e=$(ls "$MNT/similar/x/base.txt" | grep " - far.txt$")
rm "$MNT/similar/x/base.txt/$e"
e=$(ls "$MNT/similar/y/close.txt" | grep " - far.txt$") || fail "close does not list far"
rm "$MNT/similar/y/close.txt/$e"
until_ok 5 groups_are "x/base.txt y/close.txt " || fail "exempted: $(view_groups)"
[ "$(cli_groups)" = "$(view_groups)" ] || fail "cli after exemption: $(cli_groups)"
sbx "$SRC" not-duplicate --undo "$SRC/x/base.txt" "$SRC/y/far.txt" >/dev/null ||
	fail "not-duplicate --undo"
# far is a near duplicate of base now, not of close: a chain, no cluster
until_ok 5 groups_are "x/base.txt y/close.txt " || fail "one undone: $(view_groups)"
sbx "$SRC" not-duplicate --undo "$SRC/y/close.txt" "$SRC/y/far.txt" >/dev/null ||
	fail "not-duplicate --undo"
until_ok 5 groups_are "$want" || fail "undo: $(view_groups)"

say "rename and delete through the mount"
mv "$MNT/y/far.txt" "$MNT/x/far-moved.txt"
until_ok 5 groups_are "x/base.txt x/far-moved.txt y/close.txt " || fail "rename: $(view_groups)"
rm "$MNT/y/close.txt"
until_ok 5 groups_are "x/base.txt x/far-moved.txt " || fail "delete: $(view_groups)"
[ "$(cli_groups)" = "$(view_groups)" ] || fail "cli after changes: $(cli_groups)"

say "a member rewritten into another text leaves; the unrelated book rewritten as a copy joins"
cp "$T/lib/other.txt" "$MNT/x/far-moved.txt"
cp "$T/lib/y/close.txt" "$MNT/other.txt"
until_ok 10 groups_are "other.txt x/base.txt " || fail "rewrite: $(view_groups)"
umount_fs
