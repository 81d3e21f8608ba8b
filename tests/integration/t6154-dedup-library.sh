#!/usr/bin/env bash
# t6154-dedup-library: simbook dedup on an unmounted library (its index):
# a dry run changes nothing; names that are not UTF-8 survive; hard links;
# the EPUB kept with --prefer-format; a file changed since it was indexed is
# re-read; a hard link across filesystems is refused; exit 1 with nothing
# to do, 2 without an index.  (Replaces the Python example script's test.)
. "$(dirname "$0")/clilib.sh"
SNAP=$(cd "$(dirname "$0")" && pwd)/ddsnap.py
mkdir -p "$LIB/sub"
cp "$LIB/base3.txt" "$LIB/sub/base3 copy.txt"
cp "$LIB/base2.txt" "$LIB/sub/"$'odd\xffname.txt'
touch -d 2001-01-01 "$LIB/base3.txt"
touch -d 2002-01-01 "$LIB/base2-copy.txt"
touch -d 2003-01-01 "$LIB/base2.txt"
"$SB" index "$LIB" --quiet >/dev/null 2>&1
[ $? -le 1 ] || { echo "FAIL: simbook index"; exit 1; }
changes() { python3 "$SNAP" snap "$LIB" >"$T/after"; python3 "$SNAP" diff "$T/before" "$T/after"; }
python3 "$SNAP" snap "$LIB" >"$T/before"

(cd "$LIB" && "$SB" dedup) >"$T/out" 2>"$T/err"
check "dry run exits 0" [ $? -eq 0 ]
check "dry run changes nothing" [ -z "$(changes)" ]
check "odd name listed byte for byte" grep -aqx $'would\tdelete\t'"$LIB/sub/"$'odd\xffname.txt' "$T/out"
check "oldest copy kept" grep -qx $'keep\tkeep\t'"$LIB/base3.txt" "$T/out"

(cd "$LIB" && "$SB" dedup --relation same-text --prefer-format epub,txt --json) >"$T/out" 2>&1
check "the EPUB kept with --prefer-format epub" grep -q '"result":"keep","action":"keep","path":"base2.epub"' "$T/out"
check "odd name in JSON as \\udcff" grep -q 'odd\\udcffname.txt' "$T/out"

"$SB" dedup "$LIB" --hardlink >"$T/out" 2>"$T/err"
check "hardlink exits 0" [ $? -eq 0 ]
check "the byte copies are now hard links of the kept ones" \
	[ "$(stat -c %i "$LIB/base3.txt")" = "$(stat -c %i "$LIB/sub/base3 copy.txt")" ]
check "only the copies changed (inode), nothing else" [ "$(changes)" = "ino base2.txt
ino sub/base3 copy.txt
ino sub/"$'odd\xffname.txt' ]
check "not mounted: says to update the index" grep -q "run 'simbook index'" "$T/err"
check "no temporary names left" [ -z "$(find "$LIB" -name '.simbook-dedup-*')" ]
"$SB" dedup "$LIB" --hardlink >/dev/null 2>&1
check "nothing left to do: exit 1" [ $? -eq 1 ]

# a group whose copy lies on another filesystem (given with --from)
other=${DEDUP_OTHER_FS:-/dev/shm}
if [ -d "$other" ] && [ -w "$other" ] && [ "$(stat -f -c %i "$other")" != "$(stat -f -c %i "$T")" ]; then
	o=$(mktemp -d "$other/t6154.XXXXXX")
	cp "$LIB/base3.txt" "$o/base3.txt"
	touch -d 2010-01-01 "$o/base3.txt"
	printf '{"members":[{"path":"base3.txt","abs":"%s"},{"path":"base3.txt","abs":"%s"}]}\n' \
		"$LIB/base3.txt" "$o/base3.txt" >"$T/x.json"
	"$SB" dedup --from "$T/x.json" --hardlink >"$T/out" 2>"$T/err"
	rc=$?
	check "hard link across filesystems refused (exit 2)" [ $rc -eq 2 ]
	check "... with its reason" grep -qx $'failed\thardlink\t'"$o/base3.txt"$'\t(on another filesystem: no hard link)' "$T/out"
	check "... and the copy untouched" cmp -s "$o/base3.txt" "$LIB/base3.txt"
	rm -rf "$o"
else
	echo "ok - # skip: no second filesystem at $other"
fi

mkdir -p "$T/empty"
(cd "$T/empty" && "$SB" dedup) >/dev/null 2>&1
check "no index: exit 2" [ $? -eq 2 ]
exit $fail
