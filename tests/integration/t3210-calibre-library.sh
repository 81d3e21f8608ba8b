#!/usr/bin/env bash
# t3210-calibre-library: the shared calibre library through a real mount.
# War of the Worlds' EPUB, MOBI and PDF (one calibre book folder) are the
# same text and one group of clusters/ and duplicates/, titled from
# metadata.opf; Frankenstein 1818 and 1831 are related editions;
# metadata.opf, metadata.db, a cover, a comic archive, a DjVu file and
# COPYING are not books, and a DRM-protected MOBI, a scanned PDF and broken
# files are skipped, each counted by kind in .simbookfs/status, listed in
# .simbookfs/skipped and summed up by `simbook index`; .caltrash/ is left
# out (and a book moved there leaves the views) unless -o hidden, COPYING
# is a book only with -o extensionless.
export SIMBOOK_CASE_TIMEOUT=300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/viewlib.sh"
B=${SIMBOOK_BOOKS:-$top/../shared/books}
[ -d "$B/calibre-library" ] && [ -f "$B/formats/wotw.mobi" ] && [ -d "$B/texts" ] ||
	skip "shared books absent ($B)"
command -v python3 >/dev/null || skip "no python3"
FS_ARGS=()
SB=$SIMBOOK_BUILD/simbook
W="H. G. Wells/The War of the Worlds (1)"
F18="Mary Wollstonecraft Shelley/Frankenstein (1818 text) (4)"
F31="Mary Wollstonecraft Shelley/Frankenstein (1831 text) (3)"
WB="$W/The War of the Worlds - H. G. Wells"

cp -r "$B/calibre-library/." "$SRC/"
mkdir -p "$SRC/.caltrash/b/5" "$SRC/extra"
cp "$B/texts/pg84-frankenstein.txt" "$SRC/.caltrash/b/5/Frankenstein - Mary Shelley.txt"
printf 'Permission is hereby granted, free of charge, to any person obtaining a copy\n' \
	>"$SRC/COPYING"
# files of our own: a DRM-protected MOBI, a scanned PDF, broken books,
# and files that are not books
python3 - "$B/formats/wotw.mobi" "$B/epub/pg36-war-of-the-worlds.epub" "$SRC/extra" <<'PY'
import struct, sys, zipfile
mobi, epub, d = sys.argv[1:]
b = bytearray(open(mobi, 'rb').read())
r0 = struct.unpack('>I', b[78:82])[0]
b[r0 + 12:r0 + 14] = struct.pack('>H', 2)      # Mobipocket encryption type 2
open(d + '/drm.mobi', 'wb').write(b)
# one page holding a drawing and no text: a scan without OCR
objs = [b'<< /Type /Catalog /Pages 2 0 R >>',
        b'<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        b'<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>']
body = b'q 400 0 0 600 100 100 cm 0.5 g 0 0 1 1 re f Q'
objs.append(b'<< /Length %d >>\nstream\n' % len(body) + body + b'\nendstream')
out = bytearray(b'%PDF-1.4\n')
offs = []
for i, o in enumerate(objs):
    offs.append(len(out))
    out += b'%d 0 obj\n' % (i + 1) + o + b'\nendobj\n'
x = len(out)
out += b'xref\n0 %d\n0000000000 65535 f \n' % (len(objs) + 1)
for o in offs:
    out += b'%010d 00000 n \n' % o
out += b'trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n' % (len(objs) + 1, x)
open(d + '/scan.pdf', 'wb').write(out)
e = open(epub, 'rb').read()
open(d + '/cut.epub', 'wb').write(e[:len(e) // 2])
open(d + '/garbage.pdf', 'wb').write(b'%PDF-1.4\n' + bytes(range(256)) * 40)
z = zipfile.ZipFile(d + '/comic.cbz', 'w')
z.writestr('page01.jpg', b'\xff\xd8\xff\xe0' + b'\0' * 200)
z.close()
open(d + '/cover.jpg', 'wb').write(b'\xff\xd8\xff\xe0' + b'\0' * 200)
open(d + '/map.djvu', 'wb').write(b'AT&TFORM\0\0\0\x20DJVMDIRM' + b'\0' * 64)
PY

# kind_count KIND: its count in .simbookfs/status ("" when absent)
kind_count() {
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["skipped"].get(sys.argv[2], ""))' \
		"$MNT/.simbookfs/status" "$1"
}
relation_of() {
	awk -F'\t' -v p="$2" 'NR > 1 && $9 == p { print $3, $2; exit }' \
		"$MNT/similar/$1/.similar.tsv"
}

# wait_books N: idle with N books (idle alone may come before the first scan)
wait_books() {
	until_ok 180 grep -q "\"state\":\"idle\",\"books\":$1," "$MNT/.simbookfs/status" ||
		fail "not idle with $1 books: $(cat "$MNT/.simbookfs/status")"
}

mount_fs -o rescan=0
wait_books 7

say "War of the Worlds' three formats: the same text, one group titled from metadata.opf"
for a in epub mobi pdf; do
	for b in epub mobi pdf; do
		[ $a = $b ] && continue
		r=$(relation_of "$WB.$a" "$WB.$b")
		echo "# $a -> $b: $r"
		case $r in same-text* | near-duplicate*) ;; *) fail "$a vs $b: '$r'" ;; esac
	done
done
for v in clusters duplicates; do
	g=$(view_groups $v | grep "War of the Worlds") || fail "$v/: $(view_groups $v)"
	[ "$g" = "$WB.epub $WB.mobi $WB.pdf " ] || fail "$v/ group: '$g'"
	[ -d "$MNT/$v/The War of the Worlds - H. G. Wells (3)" ] || fail "$v/ names: $(ls "$MNT/$v")"
done

say "Frankenstein 1818 and 1831 are related editions; the 1818 group is titled from its OPF"
r=$(relation_of "$F18/Frankenstein (1818 text) - Mary Wollstonecraft Shelley.txt" \
	"$F31/Frankenstein (1831 text) - Mary Wollstonecraft Shelley.txt")
echo "# 1818 -> 1831: $r"
case $r in near-duplicate* | overlap* | a-contains-b* | b-contains-a*) ;; *) fail "1818 vs 1831: '$r'" ;; esac
ls "$MNT/duplicates" | grep -qx "Frankenstein (1818 text) - Mary Wollstonecraft Shelley (2)" ||
	fail "duplicates/ names: $(ls "$MNT/duplicates")"

say "skipped files counted by kind"
cat "$MNT/.simbookfs/status"
python3 - "$MNT/.simbookfs/status" <<'PY' || fail "status counts"
import json, sys
got = json.load(open(sys.argv[1]))["skipped"]
want = {"ebook metadata (OPF)": 4, "SQLite database": 1, "plain text without a file extension": 1,
        "CBZ comic archive": 1, "JPEG image": 1, "DjVu document": 1, "DRM-protected": 1,
        "no text layer": 1, "broken": 2}
if got != want:
    sys.exit("skipped counts %s, not %s" % (got, want))
PY

say ".simbookfs/skipped names each file with its kind and reason"
sk=$MNT/.simbookfs/skipped
cat "$sk"
[ "$(wc -l <"$sk")" -eq 13 ] || fail "skipped lines: $(wc -l <"$sk")"
grep -q "^extra/drm.mobi	DRM-protected	extra/drm.mobi: DRM-protected" "$sk" || fail "drm.mobi"
grep -q "^extra/scan.pdf	no text layer	" "$sk" || fail "scan.pdf"
grep -q "^extra/cut.epub	broken	" "$sk" || fail "cut.epub"
grep -q "^extra/garbage.pdf	broken	" "$sk" || fail "garbage.pdf"
grep -q "^metadata.db	SQLite database	" "$sk" || fail "metadata.db"
grep -q "^COPYING	plain text without a file extension	" "$sk" || fail "COPYING"
! grep -q "caltrash" "$sk" || fail ".caltrash listed"
# the failures are in errors too, the not-books are not
[ "$(wc -l <"$MNT/.simbookfs/errors")" -eq 4 ] || fail "errors: $(cat "$MNT/.simbookfs/errors")"

say ".caltrash is not indexed; a book moved there leaves the views"
[ ! -e "$MNT/similar/.caltrash/b/5/Frankenstein - Mary Shelley.txt" ] || fail "the .caltrash book in similar/"
[ ! -e "$MNT/similar/COPYING" ] || fail "COPYING in similar/"
! grep -q caltrash "$MNT/similar/$F31/Frankenstein (1831 text) - Mary Wollstonecraft Shelley.txt/.similar.tsv" ||
	fail ".caltrash book listed as similar"
mkdir -p "$MNT/.caltrash/b/1"
mv "$MNT/$W/The War of the Worlds - H. G. Wells.pdf" "$MNT/.caltrash/b/1/"
until_ok 30 test ! -e "$MNT/similar/.caltrash/b/1/The War of the Worlds - H. G. Wells.pdf" ||
	fail "the moved book is still in similar/"
until_ok 30 sh -c "! grep -q 'War of the Worlds - H. G. Wells.pdf' '$MNT/similar/$WB.epub/.similar.tsv'" ||
	fail "the moved book is still listed: $(cat "$MNT/similar/$WB.epub/.similar.tsv")"
mv "$MNT/.caltrash/b/1/The War of the Worlds - H. G. Wells.pdf" "$MNT/$W/"
until_ok 60 sh -c "grep -q 'War of the Worlds - H. G. Wells.pdf' '$MNT/similar/$WB.epub/.similar.tsv'" ||
	fail "the book moved back is not listed again"
umount_fs

say "simbook index prints the same summary"
IDX2=$T/idx2
out=$("$SB" index "$SRC" --index "$IDX2" --quiet 2>"$T/err") && fail "index exit 0 with failures"
echo "$out"
line=$(grep '^skipped: ' <<<"$out") || fail "no skipped line: $out"
for k in "4 ebook metadata (OPF)" "2 broken" "1 DRM-protected" "1 no text layer" "1 CBZ comic archive" \
	"1 plain text without a file extension"; do
	case "$line, " in *"$k, "*) ;; *) fail "summary lacks '$k': $line" ;; esac
done

say "-o hidden and -o extensionless: .caltrash and COPYING are indexed"
mount_fs -o rescan=0,hidden,extensionless
wait_books 9
[ -d "$MNT/similar/.caltrash/b/5/Frankenstein - Mary Shelley.txt" ] ||
	fail "the .caltrash book not in similar/ with -o hidden"
[ -d "$MNT/similar/COPYING" ] || fail "COPYING not a book with -o extensionless"
[ -z "$(kind_count "plain text without a file extension")" ] || fail "COPYING still skipped"
r=$(relation_of "$F31/Frankenstein (1831 text) - Mary Wollstonecraft Shelley.txt" \
	".caltrash/b/5/Frankenstein - Mary Shelley.txt")
[ -n "$r" ] || fail "the .caltrash copy not listed with -o hidden"
umount_fs
echo "ok"
