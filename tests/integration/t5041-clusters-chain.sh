#!/usr/bin/env bash
# t5041-clusters-chain: clusters/ does not chain.  Three near duplicates of
# one text, one pair marked "not a duplicate": a~b, b~c, a and c apart is a
# chain, and clusters/ never holds all three (connected components did).
# The same library copied in the opposite order into a second, fresh mount
# (other book ids, other judging order) gives the same clusters.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/viewlib.sh"
command -v python3 >/dev/null || skip "no python3"
FS_ARGS=()

mkdir -p "$T/lib"
python3 - "$(dirname "$0")" "$T/lib" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import wordgen
d, g = sys.argv[2], wordgen.Gen(7)
gen = g.text
def put(p, t): wordgen.put(d, p, t)
put("a.txt", gen(1, 3000))
put("b.txt", gen(1, 3000, 100, 0.03))
put("c.txt", gen(1, 3000, 101, 0.03))
put("d.txt", gen(2, 3000))                   # unrelated
put("e.txt", gen(2, 3000, 102, 0.03))        # d's near duplicate: one cluster
PY

# copies the books named into MNT one by one, in that order, then marks a
# and c as not duplicates (a cluster of the three first)
fill() {
	local f
	for f in "$@"; do cp "$T/lib/$f" "$MNT/$f"; wait_idle; done
	until_ok 10 eval 'view_groups | grep -q "^a.txt b.txt c.txt $"' ||
		fail "a, b, c not one cluster: $(view_groups)"
	sbx "$SRC" not-duplicate "$SRC/a.txt" "$SRC/c.txt" >/dev/null || fail "not-duplicate"
}
chain_cut() { ! view_groups | grep -q "^a.txt b.txt c.txt $"; }

mount_fs -o rescan=0
say "a, b, c one cluster; then a and c marked: a chain"
fill a.txt b.txt c.txt d.txt e.txt
until_ok 10 chain_cut || fail "a chain in clusters/: $(view_groups)"
first=$(view_groups)
say "clusters after the mark: $(tr '\n' '|' <<<"$first")"
grep -q "^d.txt e.txt $" <<<"$first" || fail "d and e: $first"
[ "$(grep -c "b.txt" <<<"$first")" = 1 ] && grep -q "a.txt b.txt \|b.txt c.txt " <<<"$first" ||
	fail "b joins neither a nor c: $first"
umount_fs

say "the opposite order into a fresh library gives the same clusters"
SRC=$T/src2 MNT=$T/mnt2
mkdir -p "$SRC" "$MNT"
mount_fs -o rescan=0
fill e.txt d.txt c.txt b.txt a.txt
until_ok 10 chain_cut || fail "a chain in the second mount: $(view_groups)"
[ "$(view_groups)" = "$first" ] || fail "order matters: '$first' then '$(view_groups)'"
umount_fs
