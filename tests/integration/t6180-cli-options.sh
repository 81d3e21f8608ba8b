#!/usr/bin/env bash
# t6180-cli-options: every simbook subcommand takes --opt=value and
# --opt value and options after the operands; a bad option is one line on
# stderr naming it and pointing to --help, exit 2; every --help states the
# exit status; compare prints the views' score and label and exits 0/1/2;
# simbookfs --help shows its own timeout defaults, not libfuse's.
. "$(dirname "$0")/clilib.sh"
FS=$(dirname "$SB")/simbookfs

"$SB" index "$LIB" --quiet >/dev/null 2>&1
[ $? -le 1 ] || { bad "index the generated library"; exit 1; }
for cmd in text meta fingerprint compare index similar clusters duplicates not-duplicate; do
	"$SB" $cmd --help >"$T/help" 2>&1
	check "$cmd --help exits 0" [ $? -eq 0 ]
	check "$cmd --help states the exit status" grep -q "^Exit status" "$T/help"
	rc=0; "$SB" $cmd --no-such-option x >"$T/out" 2>"$T/err" || rc=$?
	check "$cmd: unknown option exits 2" [ "$rc" -eq 2 ]
	check "$cmd: one line, naming the option and --help" \
		[ "$(wc -l <"$T/err")" -eq 1 -a "$(grep -c -- "'--no-such-option' (see simbook $cmd --help)" "$T/err")" -eq 1 ]
done
rc=0; "$SB" similar "$LIB/base2.txt" --json=1 2>"$T/err" >/dev/null || rc=$?
check "a value to a flag is refused in one line" [ "$rc" -eq 2 -a "$(wc -l <"$T/err")" -eq 1 ] && grep -q "'--json' takes no value" "$T/err"
rc=0; "$SB" similar "$LIB/base2.txt" --index 2>"$T/err" >/dev/null || rc=$?
check "a missing value is named" [ "$rc" -eq 2 ] && grep -q "'--index' needs a value" "$T/err"
"$SB" similar "$LIB/base2.txt" --tsv >"$T/a" 2>/dev/null
"$SB" similar --tsv --index="$LIB/.simbookfs-index" --root="$LIB" "$LIB/base2.txt" >"$T/b" 2>/dev/null
check "--opt=value and options before the operand give the same answer" cmp -s "$T/a" "$T/b"
"$SB" similar --tsv --index "$LIB/.simbookfs-index" --root "$LIB" "$LIB/base2.txt" >"$T/c" 2>/dev/null
check "--opt value: the same" cmp -s "$T/a" "$T/c"
rc=0; "$SB" >/dev/null 2>"$T/err" || rc=$?
check "no command: one line, exit 2" [ "$rc" -eq 2 -a "$(wc -l <"$T/err")" -eq 1 ]

# compare: the score and label of the views
row=$(grep -E $'\tbase2-copy.txt\t\t[a-z]+$' "$T/a")
out=$("$SB" compare "$LIB/base2.txt" "$LIB/base2-copy.txt"); rc=$?
check "compare of copies exits 0" [ "$rc" -eq 0 ]
check "compare prints the score and label" grep -qx "score: *100% identical file" <<<"$out"
j=$("$SB" compare --json "$LIB/base2.txt" "$LIB/base2-copy.txt")
check "compare --json: score and label as in the view" python3 -c '
import json, sys
j = json.loads(sys.argv[1]); row = sys.argv[2].split("\t")
assert j["score"] == int(row[1]) and j["relation"] == row[2] and j["label"] == "identical file", (j, row)
' "$j" "$row"
rc=0; "$SB" compare "$LIB/base2.txt" "$LIB/base3.txt" >/dev/null 2>&1 || rc=$?
check "compare of unrelated books exits 1" [ "$rc" -eq 1 ]
rc=0; "$SB" compare "$LIB/base2.txt" "$T/missing" >/dev/null 2>&1 || rc=$?
check "compare of a missing file exits 2" [ "$rc" -eq 2 ]

# a copy of a mount's status folder: reports, never books
mkdir -p "$T/m/.simbookfs"
cp "$LIB/base2.txt" "$T/m/.simbookfs/status"
rc=0; "$SB" fingerprint "$T/m/.simbookfs/status" >"$T/out" 2>"$T/err" || rc=$?
check "fingerprint refuses a status file" [ "$rc" -eq 1 -a ! -s "$T/out" ] && grep -q "status file, not a book" "$T/err"
rc=0; "$SB" text "$T/m/.simbookfs/status" >/dev/null 2>&1 || rc=$?
check "text refuses a status file" [ "$rc" -eq 1 ]
rc=0; "$SB" compare "$LIB/base2.txt" "$T/m/.simbookfs/status" >/dev/null 2>&1 || rc=$?
check "compare refuses a status file" [ "$rc" -eq 2 ]

# simbookfs --help: the project's defaults
if [ -x "$FS" ]; then
	"$FS" --help >"$T/fshelp" 2>&1
	check "simbookfs --help: entry_timeout default 3600 s" grep -q "entry_timeout=T .*3600 s" "$T/fshelp"
	check "simbookfs --help: attr_timeout default 3600 s" grep -q "attr_timeout=T .*3600 s" "$T/fshelp"
	check "simbookfs --help: negative_timeout 1 s" grep -q "negative_timeout=T .*1 s" "$T/fshelp"
	check "simbookfs --help: not libfuse's 1.0s/0.0s" bash -c "! grep -q '(1.0s)\|(0.0s)' '$T/fshelp'"
fi
exit $fail
