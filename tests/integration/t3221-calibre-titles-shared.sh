#!/usr/bin/env bash
# t3221-calibre-titles-shared: the shared calibre library through a real
# mount: the entries of similar/ name War of the Worlds' other formats
# "The War of the Worlds - H. G. Wells.EXT" from its metadata.opf, and a
# book without one (a text dropped beside the library) by its file name;
# .similar.tsv's last column holds the title.
export SIMBOOK_CASE_TIMEOUT=300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/viewlib.sh"
B=${SIMBOOK_BOOKS:-$top/../shared/books}
[ -d "$B/calibre-library" ] && [ -f "$B/texts/pg36-the-war-of-the-worlds.txt" ] ||
	skip "shared books absent ($B)"
FS_ARGS=()
W="H. G. Wells/The War of the Worlds (1)"
WB="$W/The War of the Worlds - H. G. Wells"

cp -r "$B/calibre-library/." "$SRC/"
mkdir -p "$SRC/loose"
cp "$B/texts/pg36-the-war-of-the-worlds.txt" "$SRC/loose/wotw-gutenberg.txt"
mount_fs -o rescan=0
until_ok 180 grep -q '"state":"idle","books":8,' "$MNT/.simbookfs/status" ||
	fail "not idle with 8 books: $(cat "$MNT/.simbookfs/status")"

ls "$MNT/similar/$WB.epub"
for x in mobi pdf; do
	e=$(entry_for "$WB.epub" "$WB.$x") || fail "no entry for the $x"
	echo "$e" | grep -Eq "^[0-9]{2} [0-9]{1,3}% [a-z ]+ - The War of the Worlds - H\. G\. Wells\.$x\$" ||
		fail "the $x's entry: $e"
done
e=$(entry_for "$WB.epub" "loose/wotw-gutenberg.txt") || fail "no entry for the loose text"
case $e in *" - wotw-gutenberg.txt") ;; *) fail "the loose text's entry: $e" ;; esac
e=$(entry_for "loose/wotw-gutenberg.txt" "$WB.pdf") || fail "no entry for the pdf"
case $e in *" - The War of the Worlds - H. G. Wells.pdf") ;; *) fail "from the loose text: $e" ;; esac
tsv=$MNT/similar/$WB.epub/.similar.tsv
[ "$(awk -F'\t' -v p="$WB.mobi" '$9 == p { print $10 }' "$tsv")" = "The War of the Worlds - H. G. Wells" ] ||
	fail "title column: $(cat "$tsv")"
[ "$(awk -F'\t' '$9 == "loose/wotw-gutenberg.txt" { print "<" $10 ">" }' "$tsv")" = "<>" ] ||
	fail "a title for the loose text: $(cat "$tsv")"
umount_fs
echo "ok"
