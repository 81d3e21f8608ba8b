#!/usr/bin/env bash
# t5080-translations: other translations of one work through the mount.
# The real translations of the shared books (Alice in English, in an
# illustrated English edition and in French; the Iliad in Butler's prose
# and Pope's verse): `simbook compare` calls them other translations with
# the numbers it rests on; copied in through a mount, similar/ never calls
# a translation a duplicate (another translation is listed as one, when
# the index proposes it) and neither clusters/ nor duplicates/ holds one.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/viewlib.sh"
B=${SIMBOOK_BOOKS:-}
for f in texts/pg11-alice-in-wonderland.txt texts/pg28885-alice-in-wonderland-rackham.txt \
	translations/pg55456-alice-french-bue.txt translations/pg2199-iliad-butler.txt \
	translations/pg6130-iliad-pope.txt; do
	[ -n "$B" ] && [ -f "$B/$f" ] || skip "shared books absent ($f)"
done
command -v jq >/dev/null || skip "no jq"
FS_ARGS=()

say "compare: another translation, with its numbers"
r=$("$SIMBOOK_BUILD/simbook" compare --json "$B/translations/pg2199-iliad-butler.txt" \
	"$B/translations/pg6130-iliad-pope.txt" | jq -r .relation)
[ "$r" = other-translation ] || fail "Iliad translations: $r"
"$SIMBOOK_BUILD/simbook" compare "$B/texts/pg11-alice-in-wonderland.txt" \
	"$B/translations/pg55456-alice-french-bue.txt" >"$T/cmp.txt"
grep -q "^relation: *other-translation (no wording shared; [0-9]* of [0-9]* common" "$T/cmp.txt" ||
	fail "compare: $(head -n 3 "$T/cmp.txt")"

mount_fs -o rescan=0
mkdir "$MNT/alice" "$MNT/iliad"
cp "$B/texts/pg11-alice-in-wonderland.txt" "$B/texts/pg28885-alice-in-wonderland-rackham.txt" \
	"$B/translations/pg55456-alice-french-bue.txt" "$MNT/alice/"
cp "$B/translations/pg2199-iliad-butler.txt" "$B/translations/pg6130-iliad-pope.txt" "$MNT/iliad/"
wait_idle 120

say "similar/: no translation is called a duplicate"
# (the index's candidate sources seldom propose another translation: when
# one is listed, it must be as one)
for b in alice/pg11-alice-in-wonderland.txt alice/pg55456-alice-french-bue.txt \
	iliad/pg2199-iliad-butler.txt iliad/pg6130-iliad-pope.txt; do
	for e in "$MNT/similar/$b"/*; do
		[ -L "$e" ] || continue
		case $b/$(basename "$e") in
		*pg11*pg28885*) ;;
		*" other translation - "*) ;;
		*) fail "$b lists $(basename "$e")" ;;
		esac
	done
done
e=$(entry_for alice/pg11-alice-in-wonderland.txt alice/pg28885-alice-in-wonderland-rackham.txt) ||
	fail "Rackham edition not listed"
case $e in 01\ *near\ duplicate\ -\ *) ;; *) fail "Rackham entry: '$e'" ;; esac

say "clusters/ and duplicates/ hold no translation"
view_groups clusters >"$T/clusters"
view_groups duplicates >"$T/dups"
! grep -q "pg55456\|iliad" "$T/clusters" "$T/dups" || fail "a translation grouped: $(cat "$T/clusters" "$T/dups")"
grep -q "pg11-alice.*pg28885\|pg28885.*pg11-alice" "$T/clusters" || fail "clusters: $(cat "$T/clusters")"
umount_fs
echo ok
