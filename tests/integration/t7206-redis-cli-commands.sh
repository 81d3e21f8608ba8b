#!/usr/bin/env bash
# t7206: every simbook command that takes an index works with a redis://
# one as with a folder: index (and again: nothing read), similar,
# clusters, duplicates, not-duplicate (mark, list, undo), import of
# fingerprint --records, dedup (dry run and --delete), and compare beside
# them.  None of them treats the URI as a folder: run from a folder where
# redis:/HOST:PORT/NS/ exists, none leaves a lock file (or anything) there
# (simbook dedup looked for the mount serving the library by taking the
# lock of a folder index).  The same answers as the LMDB index of a copy.
. "$(dirname "$0")/clilib.sh"
REDIS_CASE_TIMEOUT=${REDIS_CASE_TIMEOUT:-300}
. "$(dirname "$0")/redislib.sh"
trap 'rc=$?; rm -rf "$T"; (exit $rc); redis_cleanup' EXIT
set +e
LIB=$(cd "$LIB" && pwd -P)
cp -a "$LIB" "$T/lmdb"
L2=$T/lmdb
redis_single
U=$REDIS_URI/cmds
# the URI read as a relative folder name: "redis:/127.0.0.1:PORT/cmds"
mkdir -p "$T/cwd/redis:/127.0.0.1:$REDIS_PORT/cmds"
cd "$T/cwd" || exit 1

"$SB" index "$LIB" --index "$U" --quiet >"$T/i.out" 2>&1
rc=$?
check "index: exit 0 or 1 (a broken book) ($rc)" [ $rc -le 1 ]
"$SB" index "$L2" --index "$T/idx" --quiet >/dev/null 2>&1
"$SB" index "$LIB" --index "$U" --quiet >"$T/i2.out" 2>&1
check "index again: nothing read" grep -q "; 0 read, 0 removed" "$T/i2.out"

for f in a/base1.txt b/base1-near.txt base2.txt; do
	a=$("$SB" similar "$LIB/$f" --index "$U" --tsv 2>&1)
	b=$("$SB" similar "$L2/$f" --index "$T/idx" --tsv 2>&1)
	check "similar $f: as with LMDB" [ -n "$a" ] && [ "$a" = "$b" ]
done
check "similar: base1's near duplicate listed" \
	sh -c '"$1" similar "$2/a/base1.txt" --index "$3" | grep -q "near duplicate  b/base1-near.txt"' \
	_ "$SB" "$LIB" "$U"
for kind in clusters duplicates; do
	a=$("$SB" $kind "$LIB" --index "$U" --root "$LIB" --tsv 2>&1)
	b=$("$SB" $kind "$L2" --index "$T/idx" --root "$L2" --tsv 2>&1)
	check "$kind: as with LMDB" [ -n "$a" ] && [ "$a" = "$b" ]
done

"$SB" not-duplicate --index "$U" --src "$LIB" "$LIB/a/base1.txt" "$LIB/b/base1-near.txt" >"$T/nd.out" 2>&1
check "not-duplicate: exit 0" [ $? -eq 0 ]
check "not-duplicate --list: the mark" \
	sh -c '"$1" not-duplicate --index "$2" --src "$3" --list | grep -q "base1-near.txt"' _ "$SB" "$U" "$LIB"
check "similar: the marked pair gone" \
	sh -c '! "$1" similar "$2/a/base1.txt" --index "$3" | grep -q base1-near.txt' _ "$SB" "$LIB" "$U"
"$SB" not-duplicate --undo --index "$U" --src "$LIB" "$LIB/a/base1.txt" "$LIB/b/base1-near.txt" >/dev/null 2>&1
check "not-duplicate --undo: the pair back" \
	sh -c '"$1" similar "$2/a/base1.txt" --index "$3" | grep -q base1-near.txt' _ "$SB" "$LIB" "$U"

find "$LIB" -type f -print0 | xargs -0 "$SB" fingerprint --records >"$T/rec" 2>/dev/null
"$SB" import --index "$REDIS_URI/imp" --library "$LIB" "$T/rec" >"$T/imp.out" 2>&1
check "import: exit 0" grep -q "^imported $REDIS_URI/imp: .* 0 bad" "$T/imp.out"
check "import: similar from the imported index" \
	sh -c '"$1" similar "$2/a/base1.txt" --index "$3" | grep -q base1-near.txt' _ "$SB" "$LIB" "$REDIS_URI/imp"
check "compare: near duplicates" \
	sh -c '"$1" compare "$2/a/base1.txt" "$2/b/base1-near.txt" | grep -q "near duplicate"' _ "$SB" "$LIB"

"$SB" dedup "$LIB" --index "$U" >"$T/dd.out" 2>&1
rc=$?
check "dedup dry run: exit 0 ($rc)" [ $rc -eq 0 ]
check "dedup dry run: the copy would go" grep -q "^would	delete	$LIB/base2-copy.txt" "$T/dd.out"
"$SB" dedup "$LIB" --index "$U" --delete >"$T/dd2.out" 2>"$T/dd2.err"
rc=$?
check "dedup --delete: exit 0 ($rc)" [ $rc -eq 0 ]
check "dedup --delete: the copy gone, the kept one there" [ ! -e "$LIB/base2-copy.txt" ] && [ -f "$LIB/base2.txt" ]
check "dedup --delete: says how the index learns it" grep -q "index' with --index $U" "$T/dd2.err"
"$SB" index "$LIB" --index "$U" --quiet >"$T/i3.out" 2>&1
check "index after dedup: the copy removed" grep -q "; 0 read, 1 removed" "$T/i3.out"
check "duplicates: the copy's group gone" \
	sh -c '! "$1" duplicates "$2" --index "$3" --root "$2" --tsv | grep -q base2-copy' _ "$SB" "$LIB" "$U"
left=$(find "$T/cwd" -mindepth 1 ! -type d | head -3)
check "nothing made in the folder the URI names as a path (${left:-none})" [ -z "$left" ]
exit $fail
