#!/usr/bin/env bash
# Bulk fingerprinting (docs/BULK.md): a generated library (near duplicates,
# parts, byte copies in several folders, not-books; plus the shared books
# when present) fingerprinted by GNU parallel over 4 shards with simbook
# fingerprint --records, the 4 record files imported into a fresh index
# with simbook import, and compared with simbook index of the same library
# in one process: every book's similar list and the clusters and
# duplicates groups are the same.  Then the next scan reads nothing the
# records held again.
command -v parallel >/dev/null || { echo "skip: GNU parallel missing"; exit 77; }
command -v jq >/dev/null || { echo "skip: jq missing"; exit 77; }
. "$(dirname "$0")/clilib.sh"
LIB=$(cd "$LIB" && pwd -P)
python3 - "$(dirname "$0")" "$LIB" <<'EOF'
import os, shutil, sys
sys.path.insert(0, sys.argv[1]); import wordgen
root = sys.argv[2]
g = wordgen.Gen(7100)
for d in ("w/x", "w/y", "w/z/deep", "w/sp ace"):
    os.makedirs(os.path.join(root, d), exist_ok=True)
for k in range(4):
    base = g.text(10 + k, 6000)
    wordgen.put(root, "w/x/work%d.txt" % k, base)
    wordgen.put(root, "w/y/work%d-near.txt" % k, g.text(10 + k, 6000, 50 + k, 0.02))
    wordgen.put(root, "w/z/deep/work%d-part.txt" % k, g.text(10 + k, 2000))
    shutil.copy(os.path.join(root, "w/x/work%d.txt" % k), os.path.join(root, "w/sp ace/work%d copy.txt" % k))
for k in range(6):
    wordgen.put(root, "w/alone%d.txt" % k, g.text(500 + k, 3000))
EOF
books=${SIMBOOK_BOOKS:-}
if [ -n "$books" ] && [ -d "$books/texts" ]; then
	mkdir -p "$LIB/shared"
	sets="texts epub formats translations calibre-library"
	# the sanitizer pass: the kinds of books without the bulk (time)
	case $BUILD in *-san) sets="translations calibre-library" ;; esac
	for d in $sets; do
		[ -d "$books/$d" ] && cp -r "$books/$d" "$LIB/shared/"
	done
	echo "# with the shared books: $sets"
fi

# ---- 4 shards under GNU parallel, one record file each ----
(cd "$T" && find "$LIB" -type f -print0 | sort -z |
	parallel -0 -j4 -X "'$SB' fingerprint --records {} > '$T'/rec.{#}" 2>"$T/map.err")
check "parallel: 4 record files" [ "$(ls "$T"/rec.* | wc -l)" -eq 4 ]
nrec=$(cat "$T"/rec.* | wc -l)
for f in "$T"/rec.*; do
	[ -s "$f" ] || bad "shard $f is empty"
done
check "mapper: one stderr line per not-book (notbook.bin)" grep -q 'notbook.bin: not a book' "$T/map.err"
check "mapper: the broken EPUB is an error line" grep -q 'broken.epub' "$T/map.err"
cat "$T"/rec.* | cut -f2 | while read -r p; do printf '%s\n' "$p" | base64 -d; echo; done >"$T/paths"
check "mapper: no record for them" [ "$(grep -c 'notbook.bin\|broken.epub' "$T/paths")" -eq 0 ]
check "mapper: the paths as given" grep -qx "$LIB/w/sp ace/work0 copy.txt" "$T/paths"
check "mapper: every line a record (11 tab-separated fields)" \
	[ "$(cat "$T"/rec.* | awk -F'\t' 'NF != 11 || $1 != "SBFP/1"' | wc -l)" -eq 0 ]

# ---- the same paths as lines on stdin (Hadoop/Spark) give the same records ----
find "$LIB" -type f | sort | "$SB" fingerprint --records >"$T/lines.rec" 2>/dev/null
check "stdin lines: the same records as the shards" [ "$(sort "$T/lines.rec" | md5sum)" = "$(cat "$T"/rec.* | sort | md5sum)" ]

# ---- import the 4 files, index in one process ----
"$SB" import --index "$T/idx-bulk" --library "$LIB" "$T"/rec.1 "$T"/rec.2 "$T"/rec.3 "$T"/rec.4 \
	>"$T/imp.out" 2>"$T/imp.err"
rc=$?
check "import: exit 0" [ $rc -eq 0 ]
cat "$T/imp.out" "$T/imp.err"
check "import: every record stored" grep -q "imported $T/idx-bulk: $nrec records, $nrec books stored, 0 bad, 0 left out" "$T/imp.out"
"$SB" index "$LIB" --index "$T/idx-one" --quiet >/dev/null 2>&1
[ $? -le 1 ] || bad "simbook index"

# ---- every book's similar list, the clusters, the duplicates ----
q() { # index, then the query's arguments: output without the index's own ids
	local ix=$1; shift
	"$SB" "$@" --index "$ix" --root "$LIB" 2>&1
}
same=0 differ=0 listed=0
while IFS= read -r -d '' f; do
	a=$(q "$T/idx-one" similar "$f" --tsv | cut -f1-7,9-)
	b=$(q "$T/idx-bulk" similar "$f" --tsv | cut -f1-7,9-)
	case $a in *"not a book"*|*"could not be indexed"*|*"not in the index"*) continue ;; esac
	if [ "$a" = "$b" ]; then
		same=$((same + 1))
		[ "$(printf '%s\n' "$a" | wc -l)" -gt 1 ] && listed=$((listed + 1))
	else
		differ=$((differ + 1))
		echo "# differs: $f"; diff <(echo "$a") <(echo "$b") | head -10
	fi
done < <(find "$LIB" -type f -print0)
echo "# $same books with the same list ($listed not empty), $differ differ"
check "similar: every book's list is the same" [ $differ -eq 0 ] && [ $same -ge 20 ]
check "similar: the lists are not all empty" [ $listed -ge 12 ]
groups() { # index kind: each group as its sorted member paths, groups sorted
	q "$1" "$2" "$LIB" --json | jq -c '[.members[].path] | sort' | sort
}
for kind in clusters duplicates; do
	a=$(groups "$T/idx-one" $kind)
	b=$(groups "$T/idx-bulk" $kind)
	check "$kind: the same groups ($(printf '%s' "$a" | grep -c .))" [ -n "$a" ] && [ "$a" = "$b" ]
done

# ---- the imported books keep their stat: a scan reads only the rest ----
"$SB" index "$LIB" --index "$T/idx-bulk" --quiet >"$T/scan.out" 2>/dev/null
nfiles=$(find "$LIB" -type f | wc -l)
check "scan after import: only the $((nfiles - nrec)) files without a record read" \
	grep -q "; $((nfiles - nrec)) read, 0 removed" "$T/scan.out"
exit $fail
