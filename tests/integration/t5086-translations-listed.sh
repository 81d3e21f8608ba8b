#!/usr/bin/env bash
# t5086-translations-listed: the index proposes other translations (the
# names candidate source, names.h), so similar/ lists them as such.  A real
# book (Treasure Island) and a generated translation of it that keeps every
# name and number in its place and replaces every other word by a word of
# a made-up language; the real Alice and its French translation.  Each
# lists the other as "other translation" from both sides; an unrelated book
# (Dracula) is listed by neither, and no translation joins clusters/.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/viewlib.sh"
B=${SIMBOOK_BOOKS:-}
for f in texts/pg120-treasure-island.txt texts/pg345-dracula.txt \
	texts/pg11-alice-in-wonderland.txt translations/pg55456-alice-french-bue.txt; do
	[ -n "$B" ] && [ -f "$B/$f" ] || skip "shared books absent ($f)"
done
command -v python3 >/dev/null || skip "no python3"
FS_ARGS=()

mkdir "$T/in"
python3 - "$B/texts/pg120-treasure-island.txt" "$T/in/treasure-translated.txt" <<'PY'
import hashlib, re, sys
text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
def other(m):
    w = m.group(0)
    if w[0].isupper() or w[0].isdigit():
        return w                       # names, sentence starts, numbers kept
    h = hashlib.sha1(w.lower().encode()).digest()
    return "".join("kolmantirsu"[b % 11] for b in h[: 3 + len(w) % 5])
open(sys.argv[2], "w", encoding="utf-8").write(re.sub(r"\w+", other, text))
PY

mount_fs -o rescan=0
mkdir "$MNT/t" "$MNT/a"
cp "$B/texts/pg120-treasure-island.txt" "$T/in/treasure-translated.txt" \
	"$B/texts/pg345-dracula.txt" "$MNT/t/"
cp "$B/texts/pg11-alice-in-wonderland.txt" "$B/translations/pg55456-alice-french-bue.txt" "$MNT/a/"
wait_idle 120

say "similar/: the translations listed as such, both ways"
for p in "t/pg120-treasure-island.txt t/treasure-translated.txt" \
	"a/pg11-alice-in-wonderland.txt a/pg55456-alice-french-bue.txt"; do
	set -- $p
	for d in "$1 $2" "$2 $1"; do
		set -- $d
		e=$(entry_for "$1" "$2") || fail "$1 does not list $2: $(ls "$MNT/similar/$1" | tr '\n' '|')"
		case $e in *" other translation - "*) ;; *) fail "$1 lists $2 as '$e'" ;; esac
	done
done
for b in t/pg120-treasure-island.txt t/treasure-translated.txt; do
	! has_entry "$b" t/pg345-dracula.txt || fail "$b lists Dracula"
	! has_entry t/pg345-dracula.txt "$b" || fail "Dracula lists $b"
done
grep -q "	other-translation	.*	t/treasure-translated.txt	[^	]*	[a-z]*$" \
	"$MNT/similar/t/pg120-treasure-island.txt/.similar.tsv" ||
	fail "listing: $(cat "$MNT/similar/t/pg120-treasure-island.txt/.similar.tsv")"

say "clusters/ and duplicates/ hold no translation"
view_groups clusters >"$T/clusters"
view_groups duplicates >"$T/dups"
! grep -q "treasure\|pg55456" "$T/clusters" "$T/dups" || fail "grouped: $(cat "$T/clusters" "$T/dups")"
umount_fs
echo ok
