#!/usr/bin/env bash
# t3230-group-titles: a generated calibre-style library through a real
# mount.  clusters/, duplicates/ and lookup/<id>/ name their entries
# "Title - Author.ext" from the metadata.opf of the book's folder (a book
# without one keeps its file name), and a group folder after the metadata.opf
# name most of its books have; two calibre books with one title are told
# apart by " (2)" in the order of their paths; '/' and control characters
# are made safe.  The same names in links and files mode, after a remount,
# and in a library whose books arrived in the other order.  A metadata.opf
# rewritten through the mount re-titles the entries and the group at once,
# without fingerprinting anything again.
export SIMBOOK_CASE_TIMEOUT=300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/viewlib.sh"
command -v python3 >/dev/null || skip "no python3"
command -v getfattr >/dev/null || skip "no getfattr"
export LC_ALL=C
FS_ARGS=()

B1="Ann Author/Book One (1)"
B7="Ann Author/Book One (7)"
O="Bob Writer/Other (2)"
F="Book One - Ann Author"


# books DIR WHICH...: writes the books named (b1 b1html b7 other plain)
# into the library DIR, with their metadata.opf files
books() {
	local d=$1
	shift
	mkdir -p "$d/$B1" "$d/$B7" "$d/$O" "$d/loose"
	python3 - "$d" "$B1" "$B7" "$O" "$F" "$@" <<'PY'
import random, sys
d, b1, b7, o, f = sys.argv[1:6]
rng = random.Random(3230)
vocab = [''.join(rng.choice('abcdefghijklmnoprstuvwy') for _ in range(rng.randint(2, 9)))
         for _ in range(4000)]
paras = [' '.join(rng.choice(vocab) for _ in range(rng.randint(40, 90))).capitalize() + '.'
         for _ in range(120)]
text = '\n\n'.join(paras) + '\n'
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
files = {
    'b1': (b1 + '/' + f + '.txt', text),
    'b1html': (b1 + '/' + f + '.html', '<html><head><title>x</title></head><body>\n' +
               '\n'.join('<p>%s</p>' % p for p in paras) + '\n</body></html>\n'),
    # the same text in other bytes: files mode's entries tell them apart
    'b7': (b7 + '/' + f + '.txt', text + '\n\n'),
    'other': (o + '/Other - Bob Writer.txt', edit(1, 0.01)),
    'plain': ('loose/plain.txt', edit(2, 0.01)),
}
for w in sys.argv[6:]:
    p, t = files[w]
    open(d + '/' + p, 'w').write(t)
PY
	opf "$d/$B1" "Book One" "Ann Author"
	opf "$d/$B7" "Book One" "Ann Author"
	opf "$d/$O" $'A/B: Second\tBook' "Bob Writer"
}

wait_books() {
	until_ok 120 grep -q "\"state\":\"idle\",\"books\":$1," "$MNT/.simbookfs/status" ||
		fail "not idle with $1 books: $(cat "$MNT/.simbookfs/status")"
}
# entries VIEW: "group/entry -> book" of every entry of the view, sorted
entries() {
	local g e
	for g in "$MNT/$1"/*/; do
		for e in "$g"*; do
			[ -e "$e" ] || continue
			if [ -L "$e" ]; then
				echo "$(basename "$g")/$(basename "$e") -> $(realpath --relative-to="$MNT" "$e")"
			else	# files mode: the book with the same bytes
				echo "$(basename "$g")/$(basename "$e") -> $(cd "$SRC" && for b in \
					"$B1/$F.txt" "$B1/$F.html" "$B7/$F.txt" "$O/Other - Bob Writer.txt" \
					loose/plain.txt; do cmp -s "$b" "$e" && echo "$b" && break; done)"
			fi
		done
	done | sort
}
status_num() {
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' \
		"$MNT/.simbookfs/status" "$1"
}

CL="$F (5)/A_B: Second Book - Bob Writer.txt -> $O/Other - Bob Writer.txt
$F (5)/$F (2).txt -> $B7/$F.txt
$F (5)/$F.html -> $B1/$F.html
$F (5)/$F.txt -> $B1/$F.txt
$F (5)/plain.txt -> loose/plain.txt"

books "$SRC" b1 b1html b7 other plain
mount_fs -o rescan=0,idxattr
wait_books 5

say "clusters/: one group titled from the most common metadata.opf, entries by title"
entries clusters | tee "$T/cl1"
[ "$(cat "$T/cl1")" = "$CL" ] || fail "clusters/ differs from: $CL"

say "duplicates/: the same text, named by title after the relation to the first"
entries duplicates | tee "$T/dup1"
[ "$(ls "$MNT/duplicates")" = "$F (3)" ] || fail "duplicates/: $(ls "$MNT/duplicates")"
# with the relation prefix taken off, the names of clusters/
sed -E 's#/(identical file|same text) - #/#' "$T/dup1" | sed "s#^$F (3)/#$F (5)/#" |
	sort >"$T/dup1.bare"
[ "$(cat "$T/dup1.bare")" = "$(grep -v -e plain -e Other <<<"$CL")" ] ||
	fail "duplicates/ names: $(cat "$T/dup1")"

say "simbook clusters --json: each member's own metadata.opf name"
"$SIMBOOK_BUILD/simbook" clusters "$MNT" --json >"$T/cl.json" || fail "simbook clusters failed"
jq -r '.members[] | "\(.path)|\(.title)"' "$T/cl.json" | sort | tee "$T/cl.titles"
[ "$(cat "$T/cl.titles")" = "$B1/$F.html|$F
$B1/$F.txt|$F
$B7/$F.txt|$F
$O/Other - Bob Writer.txt|A/B: Second Book - Bob Writer
loose/plain.txt|null" ] || fail "clusters --json titles"

say "lookup/<id>/: ranked entries named by title"
id=$(getfattr --only-values -n user.simbookfs.id "$MNT/$B1/$F.txt")
[ ${#id} -eq 32 ] || fail "no id"
ls "$MNT/lookup/$id" | tee "$T/lk1"
grep -Eq "^[0-9]{2} d0 - $F\.txt\$" "$T/lk1" || fail "lookup: the txt"
grep -Eq "^[0-9]{2} d0 - $F\.html\$" "$T/lk1" || fail "lookup: the html"
grep -Eq "^[0-9]{2} d[0-9]+ - plain\.txt\$" "$T/lk1" || fail "lookup: plain.txt"
[ "$(grep -c " - $F\.txt\$" "$T/lk1")" -eq 2 ] || fail "lookup: both txt copies"
e=$(grep -E " - plain\.txt\$" "$T/lk1")
[ "$(readlink "$MNT/lookup/$id/$e")" = "../../loose/plain.txt" ] || fail "lookup link"
n0=$(status_num indexed_since_mount)

say "a metadata.opf rewritten through the mount re-titles clusters/ and lookup/ at once"
ls -la "$MNT/clusters/$F (5)/" >/dev/null	# in the kernel's cache
opf "$MNT/$B7" "Book One Revised" "Ann Author"
until_ok 30 test -L "$MNT/clusters/$F (5)/Book One Revised - Ann Author.txt" ||
	fail "not re-titled: $(ls "$MNT/clusters"/*)"
[ ! -e "$MNT/clusters/$F (5)/$F (2).txt" ] || fail "the old name is still there"
[ "$(realpath --relative-to="$MNT" "$MNT/clusters/$F (5)/Book One Revised - Ann Author.txt")" = \
	"$B7/$F.txt" ] || fail "re-titled entry's target"
until_ok 10 sh -c "ls '$MNT/lookup/$id' | grep -q ' - Book One Revised - Ann Author.txt\$'" ||
	fail "lookup/ not re-titled: $(ls "$MNT/lookup/$id")"
# a tie of two titles (Book One (1)'s metadata.opf gone): the first in
# byte order names the group
mv "$MNT/$B1/metadata.opf" "$MNT/$B1/metadata.opf.bak"
until_ok 30 test -d "$MNT/clusters/A_B: Second Book - Bob Writer (5)" ||
	fail "the tie: $(ls "$MNT/clusters")"
ls "$MNT/clusters/A_B: Second Book - Bob Writer (5)"
mv "$MNT/$B1/metadata.opf.bak" "$MNT/$B1/metadata.opf"
opf "$MNT/$B7" "Book One" "Ann Author"
until_ok 30 test -L "$MNT/clusters/$F (5)/$F (2).txt" || fail "back: $(ls "$MNT/clusters"/*)"

say "long titles: cut within NAME_MAX, the group's as a title, equal ones told apart within it"
long=$(python3 -c 'print("\u00dc" * 300)')
opf "$MNT/$B1" "$long" "H. G. Wells"
opf "$MNT/$B7" "$long" "H. G. Wells"
lg=$(python3 -c 'print("\u00dc" * 100 + " (5)")')
until_ok 30 test -d "$MNT/clusters/$lg" || fail "long group: $(ls "$MNT/clusters")"
ls "$MNT/clusters/$lg" | grep "$(python3 -c 'print("\u00dc")')" >"$T/long"
cat "$T/long"
[ "$(wc -l <"$T/long")" -eq 3 ] || fail "three long entries"
[ "$(grep -c ' (2)\.txt$' "$T/long")" -eq 1 ] || fail "the second txt: $(cat "$T/long")"
while read -r e; do
	[ "$(printf %s "$e" | wc -c)" -le 255 ] || fail "over NAME_MAX: $e"
	printf %s "$e" | iconv -f UTF-8 -t UTF-8 >/dev/null || fail "a UTF-8 character cut: $e"
	test -L "$MNT/clusters/$lg/$e" || fail "not reachable: $e"
done <"$T/long"
opf "$MNT/$B1" "Book One" "Ann Author"
opf "$MNT/$B7" "Book One" "Ann Author"
until_ok 30 test -L "$MNT/clusters/$F (5)/$F (2).txt" || fail "back: $(ls "$MNT/clusters"/*)"
wait_idle
[ "$(status_num indexed_since_mount)" = "$n0" ] || fail "books fingerprinted again"
entries clusters >"$T/cl2"
[ "$(cat "$T/cl2")" = "$CL" ] || fail "clusters/ after the round trip: $(cat "$T/cl2")"
umount_fs

say "files mode, remounted: the same names, regular files with the books' bytes"
mount_fs -o rescan=0,idxattr,viewmode=files
wait_books 5
[ -f "$MNT/clusters/$F (5)/$F (2).txt" ] && [ ! -L "$MNT/clusters/$F (5)/$F (2).txt" ] ||
	fail "not a regular file"
entries clusters >"$T/cl3"
[ "$(cat "$T/cl3")" = "$CL" ] || fail "files mode clusters/: $(cat "$T/cl3")"
entries duplicates >"$T/dup3"
cmp "$T/dup1" "$T/dup3" || fail "files mode duplicates/: $(cat "$T/dup3")"
ls "$MNT/lookup/$id" >"$T/lk3"
cmp "$T/lk1" "$T/lk3" || fail "files mode lookup/: $(cat "$T/lk3")"
umount_fs

say "the books arriving in the other order: the same names"
rm -rf "$SRC"
mkdir "$SRC"
books "$SRC" b7 other plain
mount_fs -o rescan=0
wait_books 3
books "$MNT" b1 b1html
wait_books 5
entries clusters >"$T/cl4"
[ "$(cat "$T/cl4")" = "$CL" ] || fail "other order clusters/: $(cat "$T/cl4")"
# duplicates/: the relation prefix is to the group's first book, which is
# the first to arrive, and the prefix already tells the two txt apart; the
# titles under it are the same
bare() { sed -E 's#/(identical file|same text) - #/#; s# \(2\)\.txt -> #.txt -> #' "$@" | sort; }
entries duplicates >"$T/dup4"
[ "$(bare "$T/dup1")" = "$(bare "$T/dup4")" ] || fail "other order duplicates/: $(cat "$T/dup4")"
[ "$(ls "$MNT/duplicates")" = "$F (3)" ] || fail "other order duplicates/: $(ls "$MNT/duplicates")"
umount_fs
echo "ok"
