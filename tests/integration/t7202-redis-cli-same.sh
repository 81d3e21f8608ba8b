#!/usr/bin/env bash
# t7202: simbook index of one generated library into LMDB and into a Redis
# node give the same similar --tsv list for every book, the same clusters
# and duplicates; simbook fingerprint --records | simbook import into Redis
# gives them too; a second simbook index of the Redis index reads nothing
# again; bad URIs are refused with a clear error.
. "$(dirname "$0")/clilib.sh"
REDIS_CASE_TIMEOUT=${REDIS_CASE_TIMEOUT:-600}
. "$(dirname "$0")/redislib.sh"
trap 'rc=$?; rm -rf "$T"; (exit $rc); redis_cleanup' EXIT
set +e
LIB=$(cd "$LIB" && pwd -P)
python3 - "$(dirname "$0")" "$LIB" <<'PY'
import os, shutil, sys
sys.path.insert(0, sys.argv[1]); import wordgen
root = sys.argv[2]
g = wordgen.Gen(7202)
for d in ("w/x", "w/y", "w/z"):
    os.makedirs(os.path.join(root, d), exist_ok=True)
for k in range(4):
    base = g.text(10 + k, 6000)
    wordgen.put(root, "w/x/work%d.txt" % k, base)
    wordgen.put(root, "w/y/work%d-near.txt" % k, g.text(10 + k, 6000, 50 + k, 0.02))
    wordgen.put(root, "w/z/work%d-part.txt" % k, g.text(10 + k, 2000))
    shutil.copy(os.path.join(root, "w/x/work%d.txt" % k), os.path.join(root, "w/z/work%d copy.txt" % k))
for k in range(4):
    wordgen.put(root, "w/alone%d.txt" % k, g.text(500 + k, 3000))
PY
redis_single

"$SB" index "$LIB" --index "$T/idx" --quiet >/dev/null 2>&1
[ $? -le 1 ] || bad "simbook index into LMDB"
"$SB" index "$LIB" --index "$REDIS_URI/same" --quiet >"$T/r.out" 2>&1
[ $? -le 1 ] || { cat "$T/r.out"; bad "simbook index into Redis"; }
(cd "$T" && find "$LIB" -type f -print0 | xargs -0 "$SB" fingerprint --records >"$T/rec" 2>/dev/null)
"$SB" import --index "$REDIS_URI/imp" --library "$LIB" "$T/rec" >"$T/imp.out" 2>&1
check "import into Redis: exit 0" grep -q "^imported $REDIS_URI/imp: .* 0 bad" "$T/imp.out"

q() { # index, then the query's arguments
	local ix=$1; shift
	"$SB" "$@" --index "$ix" --root "$LIB" 2>&1
}
same=0 differ=0 listed=0
while IFS= read -r -d '' f; do
	a=$(q "$T/idx" similar "$f" --tsv)
	b=$(q "$REDIS_URI/same" similar "$f" --tsv)
	c=$(q "$REDIS_URI/imp" similar "$f" --tsv | cut -f1-7,9-)
	case $a in *"not a book"*|*"could not be indexed"*|*"not in the index"*) continue ;; esac
	if [ "$a" = "$b" ] && [ "$(printf '%s\n' "$a" | cut -f1-7,9-)" = "$c" ]; then
		same=$((same + 1))
		[ "$(printf '%s\n' "$a" | wc -l)" -gt 1 ] && listed=$((listed + 1))
	else
		differ=$((differ + 1))
		echo "# differs: $f"; diff <(echo "$a") <(echo "$b") | head -10
		diff <(echo "$a" | cut -f1-7,9-) <(echo "$c") | head -10
	fi
done < <(find "$LIB" -type f -print0)
echo "# $same books with the same list ($listed not empty), $differ differ"
check "similar --tsv: every book's list the same in LMDB, Redis, Redis imported" \
	[ $differ -eq 0 ] && [ $same -ge 20 ]
check "similar: the lists are not all empty" [ $listed -ge 12 ]
if command -v jq >/dev/null; then
	groups() { q "$1" "$2" "$LIB" --json | jq -c '[.members[].path] | sort' | sort; }
	for kind in clusters duplicates; do
		a=$(groups "$T/idx" $kind)
		b=$(groups "$REDIS_URI/same" $kind)
		check "$kind: the same groups ($(printf '%s' "$a" | grep -c .))" [ -n "$a" ] && [ "$a" = "$b" ]
	done
fi
"$SB" index "$LIB" --index "$REDIS_URI/same" --quiet >"$T/again.out" 2>&1
check "index again: nothing read" grep -q "; 0 read, 0 removed" "$T/again.out"
check "the keys live in Redis under the namespace's tag" \
	[ "$(rcli "$REDIS_PORT" --scan --pattern '{same}:*' | wc -l)" -ge 10 ]

# bad URIs: a clear error, exit 2, nothing created
"$SB" index "$LIB" --index "redis://127.0.0.1:99999/x" >"$T/bad.out" 2>&1
rc=$?
check "a bad port: exit 2 ($rc)" [ $rc -eq 2 ]
check "a bad port: said so" grep -q "redis://127.0.0.1:99999/x" "$T/bad.out"
p=$(redis_free_port)
timeout 60 "$SB" index "$LIB" --index "redis://127.0.0.1:$p/x" >"$T/down.out" 2>&1
rc=$?
check "no server: exit 2 ($rc)" [ $rc -eq 2 ]
check "no server: refused, said so" grep -qi "refused" "$T/down.out"
exit $fail
