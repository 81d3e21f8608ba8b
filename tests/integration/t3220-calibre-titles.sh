#!/usr/bin/env bash
# t3220-calibre-titles: a generated calibre-style library (Author/Title (id)/
# with a metadata.opf per book folder) through a real mount.  The entries of
# similar/<book>/ are named "RR SSS% RELATION - Title - Author.ext" from the
# metadata.opf of the book they list ('/' and control characters made safe,
# the extension kept; a book without one keeps its file name), in links and
# in files mode, and .similar.tsv has the title as its last column.  A
# metadata.opf written, removed or renamed back through the mount, or
# written behind it, re-titles its folder's books in similar/ and clusters/
# without fingerprinting them again (indexed_since_mount stays); one removed
# while unmounted is seen by the start-up scan.
export SIMBOOK_CASE_TIMEOUT=240
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/viewlib.sh"
command -v python3 >/dev/null || skip "no python3"
FS_ARGS=()

A="Ann Author/Book One (1)"
BO="$A/Book One - Ann Author"
O="Bob Writer/Other (2)"


mkdir -p "$SRC/$A" "$SRC/$O" "$SRC/loose"
python3 - "$SRC" "$A" "$BO" "$O" <<'PY'
import random, sys
src, a, bo, o = sys.argv[1:]
rng = random.Random(3220)
vocab = [''.join(rng.choice('abcdefghijklmnoprstuvwy') for _ in range(rng.randint(2, 9)))
         for _ in range(4000)]
paras = [' '.join(rng.choice(vocab) for _ in range(rng.randint(40, 90))).capitalize() + '.'
         for _ in range(120)]
open(src + '/' + bo + '.txt', 'w').write('\n\n'.join(paras) + '\n')
open(src + '/' + bo + '.html', 'w').write(
    '<html><head><title>x</title></head><body>\n' +
    '\n'.join('<p>%s</p>' % p for p in paras) + '\n</body></html>\n')
def edit(seed, rate):
    r = random.Random(seed)
    out = []
    for p in paras:
        w = p.split(' ')
        for i in range(len(w)):
            if r.random() < rate:
                w[i] = r.choice(vocab)
        out.append(' '.join(w))
    return '\n\n'.join(out) + '\n'
open(src + '/' + o + '/Other - Bob Writer.txt', 'w').write(edit(1, 0.01))
open(src + '/loose/plain.txt', 'w').write(edit(2, 0.01))
PY
opf "$SRC/$A" "Book One" "Ann Author"
opf "$SRC/$O" $'A/B: Second\tBook' "Bob Writer"

status_num() {
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' \
		"$MNT/.simbookfs/status" "$1"
}
wait_books() {
	until_ok 120 grep -q "\"state\":\"idle\",\"books\":$1," "$MNT/.simbookfs/status" ||
		fail "not idle with $1 books: $(cat "$MNT/.simbookfs/status")"
}
# names BOOK: the entry names of similar/BOOK/, one a line
names() { ls "$MNT/similar/$1"; }
# has_name BOOK REGEX: an entry of similar/BOOK/ matches the extended regex
has_name() { names "$1" | grep -Eq "$2"; }
E='^[0-9]{2} [0-9]{1,3}% [a-z ]+ - '

mount_fs -o rescan=0
wait_books 4

say "similar/ entries are named from the listed book's metadata.opf"
names "$BO.txt"
has_name "$BO.txt" "${E}Book One - Ann Author\.html\$" || fail "the HTML of Book One: $(names "$BO.txt")"
has_name "$BO.txt" "${E}A_B: Second Book - Bob Writer\.txt\$" || fail "the sanitised title: $(names "$BO.txt")"
has_name "$BO.txt" "${E}plain\.txt\$" || fail "a book without metadata.opf keeps its file name"
[ "$(names "$BO.txt" | wc -l)" -eq 3 ] || fail "three entries: $(names "$BO.txt")"
# the other format of the same book: the names differ by the extension
has_name "$BO.html" "${E}Book One - Ann Author\.txt\$" || fail "the txt of Book One: $(names "$BO.html")"
has_name "loose/plain.txt" "${E}Book One - Ann Author\.txt\$" || fail "plain.txt's list"
has_name "loose/plain.txt" "${E}Book One - Ann Author\.html\$" || fail "plain.txt's list"
# the links still lead to the books
e=$(entry_for "$BO.txt" "$BO.html") || fail "no entry resolves to the HTML"
case $e in *"Book One - Ann Author.html") ;; *) fail "entry of the HTML: $e" ;; esac
e=$(entry_for "$BO.txt" "$O/Other - Bob Writer.txt") || fail "no entry resolves to Other"
cmp "$MNT/similar/$BO.txt/$e" "$SRC/$O/Other - Bob Writer.txt" || fail "reading through the entry"

say ".similar.tsv: the title is the last column"
tsv=$MNT/similar/$BO.txt/.similar.tsv
cat "$tsv"
[ "$(head -n 1 "$tsv" | cut -f9-)" = $'path\ttitle\tlanguage' ] || fail "header: $(head -n 1 "$tsv")"
[ "$(awk -F'\t' 'NF != 11' "$tsv" | wc -l)" -eq 0 ] || fail "eleven columns"
[ "$(awk -F'\t' -v p="$BO.html" '$9 == p { print $10 }' "$tsv")" = "Book One - Ann Author" ] ||
	fail "title of the HTML"
[ "$(awk -F'\t' '$9 == "loose/plain.txt" { print "<" $10 ">" }' "$tsv")" = "<>" ] ||
	fail "no title for plain.txt"
[ "$(awk -F'\t' -v p="$O/Other - Bob Writer.txt" '$9 == p { print $10 }' "$tsv")" = \
	'A/B: Second Book - Bob Writer' ] || fail "the title of Other (white space folded)"
ls "$MNT/clusters"
[ -d "$MNT/clusters/Book One - Ann Author (4)" ] || fail "clusters/: $(ls "$MNT/clusters")"
n0=$(status_num indexed_since_mount)

say "a metadata.opf rewritten through the mount re-titles at once, nothing fingerprinted"
opf "$MNT/$A" "Renamed Book" "Ann Author"
until_ok 30 has_name "$BO.txt" "${E}Renamed Book - Ann Author\.html\$" ||
	fail "not re-titled: $(names "$BO.txt")"
until_ok 30 test -d "$MNT/clusters/Renamed Book - Ann Author (4)" || fail "clusters/: $(ls "$MNT/clusters")"
has_name "loose/plain.txt" "${E}Renamed Book - Ann Author\.txt\$" || fail "plain.txt's list"
! has_name "loose/plain.txt" "Book One" || fail "the old title is still listed: $(names loose/plain.txt)"
wait_idle
[ "$(status_num indexed_since_mount)" = "$n0" ] || fail "books fingerprinted again: $(cat "$MNT/.simbookfs/status")"

say "removed: the file names again; renamed back: the title again"
mv "$MNT/$A/metadata.opf" "$MNT/$A/metadata.opf.bak"
until_ok 30 has_name "$BO.txt" "${E}Book One - Ann Author\.html\$" ||
	fail "renamed away, still titled: $(names "$BO.txt")"
has_name "loose/plain.txt" "${E}Book One - Ann Author\.txt\$" || fail "plain.txt's list"
mv "$MNT/$A/metadata.opf.bak" "$MNT/$A/metadata.opf"
until_ok 30 has_name "$BO.txt" "${E}Renamed Book - Ann Author\.html\$" ||
	fail "renamed back, not titled: $(names "$BO.txt")"
rm "$MNT/$O/metadata.opf"
until_ok 30 has_name "$BO.txt" "${E}Other - Bob Writer\.txt\$" ||
	fail "removed, still titled: $(names "$BO.txt")"

say "written behind the mount: re-titled once the change is seen"
opf "$SRC/$O" "Third Title" ""
until_ok 30 has_name "$BO.txt" "${E}Third Title\.txt\$" || fail "behind the mount: $(names "$BO.txt")"

say "a long UTF-8 title is cut within NAME_MAX bytes, the extension kept"
long=$(python3 -c 'print("Ü" * 300)')
opf "$MNT/$O" "$long" "Bob Writer"
until_ok 30 has_name "$BO.txt" "${E}ÜÜ+\.txt\$" || fail "long title: $(names "$BO.txt")"
n=$(names "$BO.txt" | grep 'ÜÜ')
[ "$(printf %s "$n" | wc -c)" -le 255 ] || fail "name over NAME_MAX: $(printf %s "$n" | wc -c)"
printf %s "$n" | iconv -f UTF-8 -t UTF-8 >/dev/null || fail "a UTF-8 character cut"
wait_idle
[ "$(status_num indexed_since_mount)" = "$n0" ] || fail "books fingerprinted again"
umount_fs

say "removed while unmounted: the start-up scan re-titles; files mode: the same names"
rm "$SRC/$O/metadata.opf"
mount_fs -o rescan=0,viewmode=files
wait_books 4
until_ok 30 has_name "$BO.txt" "${E}Other - Bob Writer\.txt\$" ||
	fail "removed while unmounted, still titled: $(names "$BO.txt")"
has_name "$BO.txt" "${E}Renamed Book - Ann Author\.html\$" || fail "files mode: $(names "$BO.txt")"
e=$(names "$BO.txt" | grep "Renamed Book - Ann Author\.html\$")
[ -f "$MNT/similar/$BO.txt/$e" ] && [ ! -L "$MNT/similar/$BO.txt/$e" ] || fail "not a regular file"
cmp "$MNT/similar/$BO.txt/$e" "$SRC/$BO.html" || fail "files mode content"
umount_fs
echo "ok"
