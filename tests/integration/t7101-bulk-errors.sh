#!/usr/bin/env bash
# Bulk fingerprinting's bad input (docs/BULK.md): a missing file in the
# mapper's path list is one error line, the others go on; bad record lines
# are reported with their numbers and the good ones imported; a record line
# of another format version and a fingerprint record of another version
# are refused; records outside the library and under hidden folders; a
# redis:// index no server answers; an index in use; bad arguments.
. "$(dirname "$0")/clilib.sh"
LIB=$(cd "$LIB" && pwd -P)
rc_of() { "$@" >"$T/out" 2>"$T/err"; echo $?; }

# ---- the mapper: a missing file among good ones, NUL-separated input ----
check "mapper: exit 1 with a missing file" [ "$(rc_of "$SB" fingerprint --records \
	"$LIB/a/base1.txt" "$LIB/nope.txt" "$LIB/base3.txt")" -eq 1 ]
check "mapper: the others written" [ "$(wc -l <"$T/out")" -eq 2 ]
check "mapper: one line naming the missing file" [ "$(grep -c 'nope.txt: No such file' "$T/err")" -eq 1 ] &&
	[ "$(wc -l <"$T/err")" -eq 1 ]
cp "$T/out" "$T/good.rec"
printf '%s\0' "$LIB/base2.txt" "$LIB/notbook.bin" >"$T/list0"
check "mapper -0: a not-book is no failure (exit 0)" [ "$(rc_of "$SB" fingerprint --records -0 <"$T/list0")" -eq 0 ]
check "mapper -0: one record, one not-book line" [ "$(wc -l <"$T/out")" -eq 1 ] &&
	grep -q 'notbook.bin: not a book' "$T/err"
cp "$T/out" "$T/base2.rec"
check "mapper: --records with --json is a usage error" [ "$(rc_of "$SB" fingerprint --records --json x)" -eq 2 ]
ln -s "$LIB/base3.txt" "$LIB/link.txt"
check "mapper: a symbolic link is left out as the scan does" [ "$(rc_of "$SB" fingerprint --records "$LIB/link.txt")" -eq 0 ] &&
	[ ! -s "$T/out" ] && grep -q 'link.txt: not a book (a symbolic link' "$T/err"
rm "$LIB/link.txt"

# ---- bad lines: numbers on stderr, the good ones imported ----
python3 - "$T/good.rec" "$T/base2.rec" "$T/mixed.rec" <<'EOF'
import sys
good = open(sys.argv[1]).read().splitlines()
base2 = open(sys.argv[2]).read().splitlines()[0]

def xxh32(data, seed=0):
    P1, P2, P3, P4, P5, M = 2654435761, 2246822519, 3266489917, 668265263, 374761393, 0xffffffff
    rotl = lambda x, r: ((x << r) | (x >> (32 - r))) & M
    n, i = len(data), 0
    if n >= 16:
        v = [(seed + P1 + P2) & M, (seed + P2) & M, seed, (seed - P1) & M]
        while i + 16 <= n:
            for k in range(4):
                lane = int.from_bytes(data[i + 4 * k:i + 4 * k + 4], "little")
                v[k] = (rotl((v[k] + lane * P2) & M, 13) * P1) & M
            i += 16
        h = (rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18)) & M
    else:
        h = (seed + P5) & M
    h = (h + n) & M
    while i + 4 <= n:
        h = (rotl((h + int.from_bytes(data[i:i + 4], "little") * P3) & M, 17) * P4) & M
        i += 4
    while i < n:
        h = (rotl((h + data[i] * P5) & M, 11) * P1) & M
        i += 1
    h ^= h >> 15; h = (h * P2) & M; h ^= h >> 13; h = (h * P3) & M; h ^= h >> 16
    return h

def resum(fields):
    body = "\t".join(fields[:10])
    return body + "\t%08x" % xxh32(body.encode("latin-1"))

f = good[1].split("\t")
assert resum(f) == good[1], "the test's XXH32 is not the codec's"
other_rec = list(f); other_rec[4] = str(int(f[4]) + 1)
out = [good[0],                      # 1 good
       "hello world",                # 2 not a record
       good[1][:len(good[1]) // 2],  # 3 cut
       "SBFP/2" + good[1][6:],       # 4 another line format
       resum(other_rec),             # 5 another fingerprint record version
       good[1].replace("\t", "\t\t", 1),  # 6 a field too many
       base2]                        # 7 good
open(sys.argv[3], "w").write("\n".join(out) + "\n")
EOF
check "import: exit 1 with bad lines" [ "$(rc_of "$SB" import --index "$T/idx" --library "$LIB" "$T/mixed.rec")" -eq 1 ]
cat "$T/out" "$T/err"
for n in 2 3 6; do
	check "import: line $n reported" grep -q "^simbook import: $T/mixed.rec:$n: not a record line" "$T/err"
done
check "import: line 4, another line format named" grep -q "mixed.rec:4: a record line of format version 2; this simbook reads version 1" "$T/err"
check "import: line 5, another record version refused" grep -q "mixed.rec:5: .*base3.txt: a fingerprint record of version" "$T/err"
check "import: five bad lines, nothing else on stderr" [ "$(wc -l <"$T/err")" -eq 5 ]
check "import: the summary counts them" grep -q "7 records, 2 books stored, 5 bad, 0 left out" "$T/out"
"$SB" similar "$LIB/a/base1.txt" --index "$T/idx" --root "$LIB" >"$T/q" 2>&1
check "import: the good first line is in the index" [ $? -le 1 ]
"$SB" similar "$LIB/base3.txt" --index "$T/idx" --root "$LIB" >"$T/q" 2>&1
check "import: the refused one is not" grep -q 'not in the index' "$T/q"

# ---- paths: relative ones from here, outside the library, hidden folders ----
mkdir -p "$T/other" "$LIB/.hid/x"
cp "$LIB/base3.txt" "$T/other/"
cp "$LIB/base3.txt" "$LIB/.hid/x/"
(cd "$LIB" && "$SB" fingerprint --records base3.txt "$T/other/base3.txt" .hid/x/base3.txt) >"$T/p.rec" 2>/dev/null
check "import: exit 1 for a record outside the library" \
	[ "$(cd "$LIB" && rc_of "$SB" import --index "$T/idx" --library . <"$T/p.rec")" -eq 1 ]
check "import: outside the library, named" grep -q "(stdin):2: $T/other/base3.txt: outside the library folder $LIB" "$T/err"
check "import: a hidden folder is left out" grep -q "(stdin):3: .hid/x/base3.txt: left out: under a hidden folder" "$T/err"
check "import: the relative one imported" grep -q "3 records, 1 books stored, 1 bad, 1 left out" "$T/out"
check "import --from: the library as the mappers saw it" \
	[ "$(rc_of "$SB" import --index "$T/idx" --library "$LIB" --from "$T/other" "$T/p.rec")" -eq 1 ] &&
	grep -q "3 records, 2 books stored, 0 bad, 1 left out" "$T/out"

# ---- refusals ----
check "import redis:// without a server: exit 2" [ "$(rc_of "$SB" import --index redis://127.0.0.1:1/x --library "$LIB" "$T/good.rec")" -eq 2 ]
check "import redis:// without a server: the reason named" grep -q 'cannot open the index in redis://127.0.0.1:1/x: Connection refused' "$T/err"
check "import: no --index is a usage error" [ "$(rc_of "$SB" import --library "$LIB")" -eq 2 ] &&
	grep -q 'see simbook import --help' "$T/err"
check "import: an index not named .simbookfs-index needs --library" [ "$(rc_of "$SB" import --index "$T/idx" "$T/good.rec")" -eq 2 ]
check "import: a missing input file is an error" [ "$(rc_of "$SB" import --index "$T/idx" --library "$LIB" "$T/none.rec")" -eq 2 ]
# the lock a daemon or simbook index holds, taken by one process of ours
python3 -c 'import fcntl, sys, time
f = open(sys.argv[1], "a"); fcntl.flock(f, fcntl.LOCK_EX)
open(sys.argv[2], "w").close(); time.sleep(60)' "$T/idx/daemon.lock" "$T/locked" &
holder=$!
for _ in $(seq 50); do [ -e "$T/locked" ] && break; sleep 0.1; done
check "import: an index in use (exit 3)" [ "$(rc_of "$SB" import --index "$T/idx" --library "$LIB" "$T/good.rec")" -eq 3 ] &&
	grep -q 'in use' "$T/err"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
# the default index place: DIR/.simbookfs-index names its library
check "import into DIR/.simbookfs-index without --library" \
	[ "$(rc_of "$SB" import --index "$LIB/.simbookfs-index" "$T/good.rec")" -eq 0 ] &&
	grep -q "2 records, 2 books stored, 0 bad" "$T/out"
exit $fail
