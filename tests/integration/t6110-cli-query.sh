#!/usr/bin/env bash
# simbook similar / clusters / duplicates against the generated library's
# known relations, in the three output formats, with file names holding a
# tab, a newline and bytes that are not UTF-8; the exit statuses (0 found,
# 1 nothing found, 2 error) and that a query never creates an index.
command -v jq >/dev/null || { echo "skip: jq missing"; exit 77; }
. "$(dirname "$0")/clilib.sh"
rc_of() { "$@" >"$T/out" 2>"$T/err"; echo $?; }
LIB=$(cd "$LIB" && pwd -P)
# two more byte copies of base2 with hostile names
cp "$LIB/base2.txt" "$LIB/"$'tab\there\nnewline.txt'
cp "$LIB/base2.txt" "$LIB/"$'latin1-\xe9t\xe9.txt'
"$SB" index "$LIB" --quiet >/dev/null 2>&1
[ $? -le 1 ] || { echo "FAIL: simbook index"; exit 1; }

# ---- similar: text ----
check "similar: found (exit 0)" [ "$(rc_of "$SB" similar "$LIB/a/base1.txt")" -eq 0 ]
check "similar: two lines" [ "$(wc -l <"$T/out")" -eq 2 ]
# ranked by the percentage (the share of text found in the other)
check "similar: the near duplicate" grep -Eq '^ [12] +[0-9]+% near duplicate  b/base1-near\.txt$' "$T/out"
check "similar: the volume is part of it" grep -Eq '^ [12] +[0-9]+% part of this    c/base1-vol1\.txt$' "$T/out"
check "similar: by percentage" [ "$(sed -E 's/^ *[0-9]+ +([0-9]+)%.*/\1/' "$T/out" | sort -s -n -r)" = \
	"$(sed -E 's/^ *[0-9]+ +([0-9]+)%.*/\1/' "$T/out")" ]
(cd "$LIB/c" && "$SB" similar base1-vol1.txt) >"$T/out" 2>"$T/err"
check "similar from inside a folder, relative path: contains this" grep -Eq '% contains this +a/base1\.txt$' "$T/out"

# ---- similar: JSON Lines ----
"$SB" similar "$LIB/a/base1.txt" --json >"$T/out"
check "json: one valid object per line" [ "$(jq -c . "$T/out" | wc -l)" -eq 2 ]
check "json: keys" [ "$(jq -r 'keys_unsorted | join(",")' "$T/out" | sort -u)" = \
	"book,rank,score,relation,label,path,abs,id,simhash,simhash_distance,jaccard,cover_this,cover_other,title,language" ]
check "json: near duplicate" [ "$(jq -r 'select(.path == "b/base1-near.txt") | [.relation, .label, .book] | join("|")' "$T/out")" = \
	"near-duplicate|near duplicate|a/base1.txt" ]
check "json: containment" [ "$(jq -r 'select(.path == "c/base1-vol1.txt") | .relation' "$T/out")" = "a-contains-b" ]
check "json: abs paths" [ "$(jq -r 'select(.path == "b/base1-near.txt") | .abs' "$T/out")" = "$LIB/b/base1-near.txt" ]
check "json: simhash is the 32-digit id" jq -e 'select((.simhash | test("^[0-9a-f]{32}$")) and (.id | test("^[0-9a-f]{16}$")) and .score >= 0 and .score <= 100)' "$T/out" >/dev/null
idn=$("$SB" fingerprint --json "$LIB/b/base1-near.txt" | jq -r '.id')
[ -n "$idn" ] && check "json: simhash equals simbook fingerprint's id" [ "$(jq -r 'select(.path == "b/base1-near.txt") | .simhash' "$T/out")" = "$idn" ]

# ---- similar: TSV (the mount's .similar.tsv format) ----
"$SB" similar "$LIB/base2.txt" --tsv >"$T/out"
check "tsv: header" [ "$(head -1 "$T/out")" = $'rank\tscore\trelation\tsimhash_distance\tjaccard\tcover_this\tcover_other\tid\tpath\ttitle\tlanguage' ]
check "tsv: five similar rows (copies, EPUB, hostile names)" [ "$(tail -n +2 "$T/out" | wc -l)" -eq 4 ]
check "tsv: eleven columns each" [ "$(awk -F'\t' 'NF != 11' "$T/out" | wc -l)" -eq 0 ]
check "tsv: tab and newline escaped" grep -qF 'tab\there\nnewline.txt' "$T/out"
check "tsv: identical file" grep -Eq $'\tidentical-file\t.*\tbase2-copy\\.txt\t\t[a-z]+$' "$T/out"
check "tsv: EPUB same text" grep -Eq $'\tsame-text\t.*\tbase2\\.epub\t\t[a-z]+$' "$T/out"
check "tsv: the language last, a code or unknown" [ "$(tail -n +2 "$T/out" | awk -F'\t' '$11 !~ /^([a-z][a-z]|unknown)$/' | wc -l)" -eq 0 ]

# ---- similar: nothing found ----
check "similar: unrelated book exits 1" [ "$(rc_of "$SB" similar "$LIB/base3.txt")" -eq 1 ]
check "similar: nothing on stdout" [ ! -s "$T/out" ]
check "similar --json: nothing found exits 1, empty" [ "$(rc_of "$SB" similar "$LIB/base3.txt" --json)" -eq 1 ] && [ ! -s "$T/out" ]
check "similar --tsv: nothing found exits 1, header only" [ "$(rc_of "$SB" similar "$LIB/base3.txt" --tsv)" -eq 1 ] && [ "$(wc -l <"$T/out")" -eq 1 ]

# ---- similar: errors ----
check "similar: missing file exits 2" [ "$(rc_of "$SB" similar "$LIB/missing.txt")" -eq 2 ] && grep -q "No such file" "$T/err"
check "similar: not a book exits 2" [ "$(rc_of "$SB" similar "$LIB/notbook.bin")" -eq 2 ] && grep -q "not a book" "$T/err"
check "similar: failed file exits 2 with the reason" [ "$(rc_of "$SB" similar "$LIB/broken.epub")" -eq 2 ] && grep -q "could not be indexed: .*zip" "$T/err"
cp "$LIB/base3.txt" "$LIB/new.txt"
check "similar: file not indexed yet exits 2" [ "$(rc_of "$SB" similar "$LIB/new.txt")" -eq 2 ] && grep -q "not in the index" "$T/err"
check "similar: a folder exits 2" [ "$(rc_of "$SB" similar "$LIB/a")" -eq 2 ]
mkdir -p "$T/noindex"
cp "$LIB/base3.txt" "$T/noindex/x.txt"
check "similar: no index anywhere exits 2" [ "$(rc_of "$SB" similar "$T/noindex/x.txt")" -eq 2 ] && grep -q "no index found" "$T/err"
check "similar: --index that does not exist exits 2" [ "$(rc_of "$SB" similar "$LIB/base3.txt" --index "$T/nothing")" -eq 2 ]
check "similar: empty --index folder exits 2" [ "$(rc_of "$SB" similar "$T/noindex/x.txt" --index "$T/noindex" --root "$T/noindex")" -eq 2 ] && grep -q "no index in" "$T/err"
check "queries never create an index" [ ! -e "$T/noindex/.simbookfs-index" ] && [ ! -e "$T/noindex/data.mdb" ] && [ ! -e "$T/nothing" ]
check "similar: unknown option exits 2" [ "$(rc_of "$SB" similar --bogus "$LIB/base3.txt")" -eq 2 ]
check "similar: --json with --tsv exits 2" [ "$(rc_of "$SB" similar --json --tsv "$LIB/base3.txt")" -eq 2 ]
check "similar: no FILE exits 2" [ "$(rc_of "$SB" similar)" -eq 2 ]
printf 'more words\n' >>"$LIB/a/base1.txt"
check "similar: a changed file still answers" [ "$(rc_of "$SB" similar "$LIB/a/base1.txt")" -eq 0 ]
check "similar: ... with a warning" grep -q "changed since it was indexed" "$T/err"

# ---- duplicates ----
check "duplicates: found" [ "$(rc_of "$SB" duplicates "$LIB")" -eq 0 ]
check "duplicates: text title line" grep -qx "The Second Book (5 books)" "$T/out"
check "duplicates: text member lines" grep -qx "  base2.epub  (same text, 100%)" "$T/out"
"$SB" duplicates "$LIB" --json >"$T/out"
check "duplicates json: one group" [ "$(jq -c . "$T/out" | wc -l)" -eq 1 ]
check "duplicates json: group fields" [ "$(jq -r '[.kind, .group, .title, .count, (.members | length)] | map(tostring) | join("|")' "$T/out")" = \
	"duplicates|1|The Second Book|5|5" ]
check "duplicates json: one reference member, with no relation" [ "$(jq -r '[.members[] | select(.relation == null)] | length' "$T/out")" = 1 ]
check "duplicates json: others identical file or same text" [ "$(jq -r '.members[] | select(.relation != null) | .relation' "$T/out" | sort -u | tr '\n' ' ')" = "identical-file same-text " ]
# Names that are not UTF-8 or hold control characters round-trip exactly.
python3 - "$T/out" "$LIB" <<'PY' && ok "duplicates json: every path names the real file, byte for byte" || bad "json file names round trip"
import json, os, sys
g = json.loads(open(sys.argv[1], encoding="utf-8").read())
names = set(os.listdir(os.fsencode(sys.argv[2])))
for m in g["members"]:
    p = os.fsencode(m["path"])
    assert p in names, p
    assert os.fsencode(m["abs"]) == os.path.join(os.fsencode(sys.argv[2]), p)
    assert os.path.getsize(os.fsencode(m["abs"])) == m["size"]
assert b"latin1-\xe9t\xe9.txt" in [os.fsencode(m["path"]) for m in g["members"]]
assert b"tab\there\nnewline.txt" in [os.fsencode(m["path"]) for m in g["members"]]
PY
check "duplicates json: the raw line is valid UTF-8" iconv -f UTF-8 -t UTF-8 "$T/out" -o /dev/null
check "duplicates json: invalid bytes as \\udcXX" grep -qF 'latin1-\udce9t\udce9.txt' "$T/out"
"$SB" duplicates "$LIB" --tsv >"$T/out"
check "duplicates tsv: header" [ "$(head -1 "$T/out")" = $'group\tcount\ttitle\trelation\tscore\tsimhash_distance\tsize\tmtime\tid\tsimhash\tpath' ]
check "duplicates tsv: a row per member" [ "$(tail -n +2 "$T/out" | wc -l)" -eq 5 ]
check "duplicates tsv: eleven columns" [ "$(awk -F'\t' 'NF != 11' "$T/out" | wc -l)" -eq 0 ]
check "duplicates tsv: one reference member, relation -" [ "$(tail -n +2 "$T/out" | cut -f4 | grep -cx -- -)" -eq 1 ]
check "duplicates: a folder without members exits 1" [ "$(rc_of "$SB" duplicates "$LIB/a")" -eq 1 ]
check "duplicates: scope by a member file" [ "$(rc_of "$SB" duplicates "$LIB/base2.epub" --json)" -eq 0 ] && [ "$(jq -r .count "$T/out")" = 5 ]
(cd "$LIB" && "$SB" duplicates --tsv) >"$T/out"
check "duplicates: default scope is the current folder" [ "$(tail -n +2 "$T/out" | wc -l)" -eq 5 ]
check "duplicates: missing DIR exits 2" [ "$(rc_of "$SB" duplicates "$LIB/missing")" -eq 2 ]
check "duplicates: no index exits 2" [ "$(rc_of "$SB" duplicates "$T/noindex")" -eq 2 ]

# ---- clusters ----
check "clusters: found" [ "$(rc_of "$SB" clusters "$LIB")" -eq 0 ]
check "clusters: base1 with its near duplicate" grep -qxE "  b/base1-near\.txt  \(near duplicate, [0-9]+%\)" "$T/out"
"$SB" clusters "$LIB" --json >"$T/out"
check "clusters json: base1 group" [ "$(jq -r 'select(any(.members[]; .path == "a/base1.txt")) | [.members[].path] | sort | join(" ")' "$T/out")" = "a/base1.txt b/base1-near.txt" ]
check "clusters json: kind" [ "$(jq -r .kind "$T/out" | sort -u)" = clusters ]
check "clusters json: no unrelated book" [ "$(jq -r '.members[].path' "$T/out" | grep -c '^base3.txt$')" -eq 0 ]
check "clusters tsv: header + rows" [ "$(rc_of "$SB" clusters "$LIB" --tsv)" -eq 0 ] && [ "$(head -1 "$T/out" | cut -f1-4)" = $'group\tcount\ttitle\trelation' ]
check "clusters: scope b/ keeps the base1 group" [ "$(rc_of "$SB" clusters "$LIB/b" --json)" -eq 0 ] && [ "$(wc -l <"$T/out")" -eq 1 ]

# ---- "not a duplicate" applies as in the mount's views ----
"$SB" not-duplicate "$LIB/a/base1.txt" "$LIB/b/base1-near.txt" >/dev/null 2>&1
check "not-duplicate: the pair leaves similar" bash -c "! '$SB' similar '$LIB/a/base1.txt' --tsv 2>/dev/null | grep -q base1-near"
check "not-duplicate: and clusters" bash -c "! '$SB' clusters '$LIB' --tsv | grep -q base1-near"
"$SB" not-duplicate --undo "$LIB/a/base1.txt" "$LIB/b/base1-near.txt" >/dev/null 2>&1
check "not-duplicate --undo: back in similar" bash -c "'$SB' similar '$LIB/a/base1.txt' --tsv 2>/dev/null | grep -q base1-near"
"$SB" not-duplicate "$LIB/base2.epub" "$LIB/base2.txt" >/dev/null 2>&1
"$SB" duplicates "$LIB" --json >"$T/out"
check "not-duplicate: a same-text group keeps its other pairs" [ "$(jq -r .count "$T/out")" = 5 ]
"$SB" not-duplicate --undo "$LIB/base2.epub" "$LIB/base2.txt" >/dev/null 2>&1

# ---- a deleted file disappears from the answers ----
rm "$LIB/base2-copy.txt"
"$SB" duplicates "$LIB" --json >"$T/out"
check "deleted member left out" [ "$(jq -r .count "$T/out")" = 4 ]
"$SB" similar "$LIB/base2.txt" --tsv >"$T/out"
check "deleted similar book left out" bash -c "! grep -q base2-copy '$T/out'"

# ---- an index outside the library ----
"$SB" index "$LIB" --index "$T/ext" --quiet >/dev/null 2>&1
check "external index: library found by probing" [ "$(rc_of "$SB" similar "$LIB/a/base1.txt" --index "$T/ext" --json)" -eq 0 ] && \
	[ "$(jq -r 'select(.rank == 1) | .path' "$T/out")" = b/base1-near.txt ]
check "external index from a sub-folder" [ "$(cd "$LIB/b" && rc_of "$SB" clusters --index "$T/ext" --json)" -eq 0 ]
check "external index with --root" [ "$(rc_of "$SB" duplicates "$LIB" --index "$T/ext" --root "$LIB")" -eq 0 ]
check "external index, path outside the library: exit 2" [ "$(rc_of "$SB" similar "$T/noindex/x.txt" --index "$T/ext")" -eq 2 ] && grep -q -- "--root" "$T/err"
check "--root that does not hold the path: exit 2" [ "$(rc_of "$SB" similar "$T/noindex/x.txt" --index "$T/ext" --root "$LIB")" -eq 2 ] && grep -q "not inside the library" "$T/err"

# ---- help ----
check "similar --help documents the exit status" bash -c "'$SB' similar --help | grep -q '^Exit status (grep.s convention): 0 found, 1 nothing found, 2 error'"
check "duplicates --help documents the JSON" bash -c "'$SB' duplicates --help | grep -q 'members'"

exit $fail
