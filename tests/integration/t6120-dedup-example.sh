#!/usr/bin/env bash
# docs/examples/dedup-dry-run.py: the dry run changes nothing (same bytes,
# same inodes); --apply hard-links byte copies to the kept copy and leaves
# same-text copies alone; --apply --remove deletes same-text copies, but not
# one whose text changed since it was indexed; the EPUB is kept.
top=$(cd "$(dirname "$0")/../.." && pwd)
DEDUP=$top/docs/examples/dedup-dry-run.py
. "$(dirname "$0")/clilib.sh"
export SIMBOOK=$SB
mkdir -p "$LIB/sub"
cp "$LIB/base3.txt" "$LIB/sub/base3 copy.txt"
cp "$LIB/base2.txt" "$LIB/sub/"$'odd\xffname.txt'
"$SB" index "$LIB" --quiet >/dev/null 2>&1
[ $? -le 1 ] || { echo "FAIL: simbook index"; exit 1; }
state() { (cd "$LIB" && find . -path ./.simbookfs-index -prune -o -type f -printf '%i %n %s %p\n' | sort -k4 && find . -path ./.simbookfs-index -prune -o -type f -exec sha1sum {} + | sort); }
state >"$T/before"

# ---- dry run ----
(cd "$LIB" && python3 "$DEDUP") >"$T/out" 2>"$T/err"
rc=$?
check "dry run exits 0" [ "$rc" -eq 0 ]
state >"$T/after"
check "dry run changes nothing (bytes, inodes, link counts)" cmp -s "$T/before" "$T/after"
check "EPUB kept over the text copies" grep -qx "keep    base2.epub" "$T/out"
check "text copies of the EPUB would be removed" grep -q "^remove  base2.txt  (same text as base2.epub)$" "$T/out"
check "odd name shown shell-quoted, bytes kept" grep -aq $'^remove  \'sub/odd\xffname.txt\'' "$T/out"
check "shallower copy kept" grep -qx "keep    base3.txt" "$T/out"
check "byte copy would be linked" grep -q "^link    'sub/base3 copy.txt'  (same bytes as base3.txt)$" "$T/out"
check "summary says dry run" grep -q "^2 groups: 2 kept, 1 to link, 3 to remove, [0-9]* bytes to free; dry run, nothing changed" "$T/out"

# ---- --keep-under ----
(cd "$LIB" && python3 "$DEDUP" --keep-under sub) >"$T/out" 2>&1
check "--keep-under prefers that folder" grep -qx "keep    'sub/base3 copy.txt'" "$T/out"
check "--remove alone is refused" bash -c "cd '$LIB' && ! python3 '$DEDUP' --remove >/dev/null 2>&1"

# ---- --apply: links only ----
(cd "$LIB" && python3 "$DEDUP" --apply) >"$T/out" 2>"$T/err"
rc=$?
check "--apply exits 0" [ "$rc" -eq 0 ]
check "byte copy is now a hard link to the kept copy" [ "$(stat -c %i "$LIB/base3.txt")" = "$(stat -c %i "$LIB/sub/base3 copy.txt")" ]
check "same-text copies still there without --remove" [ -f "$LIB/base2.txt" ] && [ -f "$LIB/base2-copy.txt" ]
check "--apply summary" grep -q "done: 1 linked, 0 removed, 0 skipped" "$T/out"
check "--apply says the index needs updating" grep -q "^run 'simbook index' on the library" "$T/out"
check "no temporary names left" [ -z "$(find "$LIB" -name '.*.dedup-*')" ]

# ---- --apply --remove, with one copy changed behind the index's back ----
python3 - "$LIB/base2-copy.txt" <<'PY'
import sys
open(sys.argv[1], "w").write("A different text entirely.\n" * 200)
PY
(cd "$LIB" && python3 "$DEDUP" --apply --remove) >"$T/out" 2>"$T/err"
rc=$?
check "a refused removal makes the exit 1" [ "$rc" -eq 1 ]
check "the changed copy is kept" [ -f "$LIB/base2-copy.txt" ]
check "... and the reason given" grep -q "skipped base2-copy.txt: the texts differ now" "$T/err"
check "verified same-text copies removed" [ ! -e "$LIB/base2.txt" ] && [ ! -e "$LIB/sub/"$'odd\xffname.txt' ]
check "the EPUB stays" [ -f "$LIB/base2.epub" ]
check "hard link seen as already done" grep -q "^same    'sub/base3 copy.txt'  (already a hard link to base3.txt)$" "$T/out"
check "unrelated books untouched" [ -f "$LIB/a/base1.txt" ] && [ -f "$LIB/b/base1-near.txt" ]

# ---- no duplicates, errors ----
"$SB" index "$LIB" --quiet >/dev/null 2>&1
rm -f "$LIB/base2-copy.txt"
"$SB" index "$LIB" --quiet >/dev/null 2>&1
(cd "$LIB/a" && python3 "$DEDUP") >"$T/out" 2>&1
check "no duplicates: exit 0 and says so" [ "$?" -eq 0 ] && grep -qx "no duplicates" "$T/out"
mkdir -p "$T/empty"
(cd "$T/empty" && python3 "$DEDUP") >/dev/null 2>&1
check "no index: exit 2" [ "$?" -eq 2 ]

exit $fail
