#!/usr/bin/env bash
# t3231-group-titles-shared: the shared calibre library through a real
# mount, with a second calibre copy of War of the Worlds' EPUB (another book
# folder, same metadata.opf) and Project Gutenberg's text beside it.
# clusters/ and duplicates/ name War of the Worlds' group "The War of the
# Worlds - H. G. Wells (N)" and its entries "The War of the Worlds - H. G.
# Wells.EXT", the second EPUB "... (2).epub" (its folder's path sorts
# last), the text by its file name; lookup/<id of the EPUB>/ names its
# entries the same way; Frankenstein 1818's group after its metadata.opf.
export SIMBOOK_CASE_TIMEOUT=300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/viewlib.sh"
B=${SIMBOOK_BOOKS:-$top/../shared/books}
[ -d "$B/calibre-library" ] && [ -f "$B/texts/pg36-the-war-of-the-worlds.txt" ] ||
	skip "shared books absent ($B)"
command -v getfattr >/dev/null || skip "no getfattr"
export LC_ALL=C
FS_ARGS=()
W="H. G. Wells/The War of the Worlds (1)"
W9="H. G. Wells/The War of the Worlds (9)"
N="The War of the Worlds - H. G. Wells"

cp -r "$B/calibre-library/." "$SRC/"
mkdir -p "$SRC/$W9" "$SRC/loose"
cp "$SRC/$W/$N.epub" "$SRC/$W/metadata.opf" "$SRC/$W9/"
cp "$B/texts/pg36-the-war-of-the-worlds.txt" "$SRC/loose/wotw.txt"
mount_fs -o rescan=0,idxattr
until_ok 180 grep -q '"state":"idle","books":9,' "$MNT/.simbookfs/status" ||
	fail "not idle with 9 books: $(cat "$MNT/.simbookfs/status")"

# target VIEW/GROUP/ENTRY: the path the entry's link leads to
target() { realpath --relative-to="$MNT" "$MNT/$1"; }

for v in clusters duplicates; do
	say "$v/"
	ls "$MNT/$v" | tee "$T/$v"
	g=$(grep -E "^$N \([0-9]+\)\$" "$T/$v") || fail "$v/: no group of War of the Worlds"
	ls "$MNT/$v/$g" | tee "$T/$v.w"
	# duplicates/: each after the first with its relation to the first,
	# which tells the two EPUBs apart already; clusters/: " (2)"
	P='^((identical file|same text) - )?'
	for x in epub mobi pdf; do
		grep -E "$P$N( \(2\))?\.$x\$" "$T/$v.w" >"$T/$v.$x" || fail "$v/: the $x by its title"
		want="$W/$N.$x"
		[ $x = epub ] && want="$W/$N.$x
$W9/$N.$x"
		[ "$(while read -r e; do target "$v/$g/$e"; done <"$T/$v.$x" | sort)" = "$want" ] ||
			fail "$v/: the ${x}s lead elsewhere"
	done
	! grep -q "metadata" "$T/$v.w" || fail "$v/: metadata listed"
done
g=$(grep -E "^$N \([0-9]+\)\$" "$T/clusters")
e=$(grep -E "^$N \(2\)\.epub\$" "$T/clusters.w") || fail "clusters/: the second EPUB"
[ "$(target "clusters/$g/$e")" = "$W9/$N.epub" ] || fail "clusters/$g/$e leads elsewhere"
e=$(grep -E "wotw\.txt\$" "$T/clusters.w") || fail "clusters/: the Gutenberg text by its file name"
[ "$(target "clusters/$g/$e")" = "loose/wotw.txt" ] || fail "clusters/$g/$e leads elsewhere"
grep -qx "Frankenstein (1818 text) - Mary Wollstonecraft Shelley (2)" "$T/duplicates" ||
	fail "duplicates/: Frankenstein 1818"

say "lookup/<id of the EPUB>/"
id=$(getfattr --only-values -n user.simbookfs.id "$MNT/$W/$N.epub")
ls "$MNT/lookup/$id" | tee "$T/lk"
for x in mobi pdf; do
	grep -Eq "^[0-9]{2} d[0-9]+ - $N\.$x\$" "$T/lk" || fail "lookup/: the $x"
done
[ "$(grep -Ec "^[0-9]{2} d0 - $N\.epub\$" "$T/lk")" -eq 2 ] || fail "lookup/: the two EPUBs"
umount_fs
echo "ok"
