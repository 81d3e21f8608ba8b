#!/usr/bin/env bash
# t3200-formats-similar: every file of the shared formats/ (MOBI, AZW3,
# PDF, FB2, DOCX, RTF made by calibre) lists the book it was made from in
# similar/ as the same text or a near duplicate, through a real mount; the
# Tom Sawyer part 1 AZW3 is contained in the complete novel; the formats of
# War of the Worlds form one group in duplicates/.  Prints the relation and
# score of each file with its source.
export SIMBOOK_CASE_TIMEOUT=300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/viewlib.sh"
B=${SIMBOOK_BOOKS:-$top/../shared/books}
[ -d "$B/formats" ] && [ -d "$B/epub" ] && [ -d "$B/texts" ] || skip "shared books absent ($B)"
FS_ARGS=()

mkdir -p "$SRC/formats" "$SRC/epub" "$SRC/texts"
cp "$B"/formats/* "$SRC/formats/"
cp "$B/epub/pg36-war-of-the-worlds.epub" "$B/epub/idpf-moby-dick.epub" "$SRC/epub/"
for t in pg41445-frankenstein-1818 pg7193-tom-sawyer-part1 pg74-the-adventures-of-tom-sawyer \
	pg19033-alice-in-wonderland-storyland-abridged; do
	cp "$B/texts/$t.txt" "$SRC/texts/"
done

mount_fs -o rescan=0
# idle alone may come before the first scan: wait for every book
until_ok 240 grep -q '"state":"idle","books":16,' "$MNT/.simbookfs/status" ||
	fail "not idle with 16 books: $(cat "$MNT/.simbookfs/status")"

# relation_of BOOK OTHER: "relation score" of OTHER in BOOK's .similar.tsv
relation_of() {
	awk -F'\t' -v p="$2" 'NR > 1 && $9 == p { print $3, $2; exit }' \
		"$MNT/similar/$1/.similar.tsv"
}

# format file -> source it was made from (the shared books' README)
while read -r f src; do
	r=$(relation_of "formats/$f" "$src")
	printf '# %-34s %-48s %s\n' "$f" "$src" "${r:-not listed}"
	case ${r%% *} in
	same-text | near-duplicate) ;;
	*) fail "formats/$f does not list $src as the same text or a near duplicate: '${r}'
$(cat "$MNT/similar/formats/$f/.similar.tsv")" ;;
	esac
	# and the other way round
	r=$(relation_of "$src" "formats/$f")
	case ${r%% *} in
	same-text | near-duplicate) ;;
	*) fail "$src does not list formats/$f: '${r}'" ;;
	esac
done <<'EOF'
wotw.mobi epub/pg36-war-of-the-worlds.epub
wotw.azw3 epub/pg36-war-of-the-worlds.epub
wotw.pdf epub/pg36-war-of-the-worlds.epub
wotw.fb2 epub/pg36-war-of-the-worlds.epub
wotw.docx epub/pg36-war-of-the-worlds.epub
wotw.rtf epub/pg36-war-of-the-worlds.epub
moby-dick.mobi epub/idpf-moby-dick.epub
frankenstein-1818.pdf texts/pg41445-frankenstein-1818.txt
tom-sawyer-part1.azw3 texts/pg7193-tom-sawyer-part1.txt
alice-storyland-abridged.fb2 texts/pg19033-alice-in-wonderland-storyland-abridged.txt
EOF

say "the Tom Sawyer part 1 AZW3 is contained in the complete novel"
r=$(relation_of formats/tom-sawyer-part1.azw3 texts/pg74-the-adventures-of-tom-sawyer.txt)
printf '# %-34s %-48s %s\n' tom-sawyer-part1.azw3 texts/pg74-the-adventures-of-tom-sawyer.txt "$r"
case ${r%% *} in
a-contains-b | b-contains-a) ;;
*) fail "part 1 AZW3 vs the complete novel: '$r'" ;;
esac

say "War of the Worlds in seven formats is one group of duplicates/"
g=$(view_groups duplicates | grep "wotw.mobi") || fail "no duplicates/ group for wotw: $(view_groups duplicates)"
for f in epub/pg36-war-of-the-worlds.epub formats/wotw.mobi formats/wotw.azw3 formats/wotw.pdf \
	formats/wotw.fb2 formats/wotw.docx formats/wotw.rtf; do
	case " $g" in *" $f "*) ;; *) echo "# $f is not in the group: $g" ;; esac
done
n=$(wc -w <<<"$g")
echo "# duplicates/ group of War of the Worlds: $n members"
[ "$n" -ge 5 ] || fail "War of the Worlds group too small: $g"

say "nothing was skipped"
grep -q '"skipped":{}' "$MNT/.simbookfs/status" || fail "status: $(cat "$MNT/.simbookfs/status")"
[ ! -s "$MNT/.simbookfs/skipped" ] || fail "skipped: $(cat "$MNT/.simbookfs/skipped")"
umount_fs
echo "ok"
