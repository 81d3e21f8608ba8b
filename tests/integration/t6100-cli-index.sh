#!/usr/bin/env bash
# simbook index: indexes the generated library without a mount; checks the
# summary line, the plain progress lines (stderr not a terminal), the bar on
# a terminal (util-linux script), the exit statuses (0 clean, 1 a file
# failed, 2 errors), incremental reruns, removals, an index outside the
# library, the placement rules, and an interrupted run.
. "$(dirname "$0")/clilib.sh"
real_lib=$(cd "$LIB" && pwd -P)
num='[0-9]+'
summary_re() { # files books failed notbooks read removed
	echo "^indexed $real_lib: $1 files, $2 books, $3 failed, $4 not books; $5 read, $6 removed, [0-9]+\.[0-9]{2} s$"
}

# ---- first run, not a terminal ----
"$SB" index "$LIB" --interval 0.05 >"$T/out" 2>"$T/err" </dev/null
rc=$?
check "first run exits 1 (broken.epub failed)" [ "$rc" -eq 1 ]
check "two summary lines on stdout" [ "$(wc -l <"$T/out")" -eq 2 ]
check "the skipped files by kind" grep -Eq "^skipped: 1 broken, 1 [a-z]" "$T/out"
check "summary counts" grep -Eq "$(summary_re 9 7 1 1 9 0)" "$T/out"
check "index in the default place" [ -f "$LIB/.simbookfs-index/data.mdb" ]
check "start line" grep -qx "simbook index: indexing $real_lib into $real_lib/.simbookfs-index" "$T/err"
check "failure named with its reason" grep -Eq '^simbook index: failed: broken\.epub: .+' "$T/err"
check "no terminal control characters in log output" bash -c "! grep -q \$'[\r\033]' '$T/out' '$T/err'"
# every other stderr line is a well-formed progress line
if grep -v -e '^simbook index: indexing ' -e '^simbook index: failed: ' "$T/err" |
	grep -Evq "^simbook index: (scanning: $num files seen, $num/$num queued files done|indexing: $num/$num files \($num%\)), $num\.[0-9] files/s(, ETA ([0-9]+s|[0-9]+m[0-9]{2}s|[0-9]+h[0-9]{2}m|--))?$"; then
	bad "progress lines well formed: $(cat "$T/err")"
else
	ok "progress lines well formed"
fi

# ---- rerun: nothing changed, nothing read ----
"$SB" index "$LIB" >"$T/out" 2>"$T/err"
rc=$?
check "rerun still exits 1 (the failure stays)" [ "$rc" -eq 1 ]
check "rerun reads nothing" grep -Eq "$(summary_re 9 7 1 1 0 0)" "$T/out"

# ---- a change, a removal ----
rm "$LIB/base3.txt" "$LIB/notbook.bin"
printf 'changed\n' >>"$LIB/a/base1.txt"
"$SB" index "$LIB" --quiet >"$T/out" 2>"$T/err"
check "changed + removed: counts" grep -Eq "$(summary_re 7 6 1 0 1 2)" "$T/out"
check "--quiet: only the failure on stderr" [ "$(grep -vc '^simbook index: failed: ' "$T/err")" -eq 0 ]

# ---- everything indexable: exit 0 ----
rm "$LIB/broken.epub"
"$SB" index "$LIB" >"$T/out" 2>"$T/err"
rc=$?
check "clean library exits 0" [ "$rc" -eq 0 ]
check "clean library counts" grep -Eq "$(summary_re 6 6 0 0 0 1)" "$T/out"

# ---- a bigger library for timing-dependent output ----
BIG=$T/big
mkdir -p "$BIG"
python3 - "$LIB/a/base1.txt" "$BIG" <<'PY'
import random, sys
words = open(sys.argv[1]).read().split()
r = random.Random(5)
for i in range(120):
    w = list(words)
    r.shuffle(w)
    open("%s/book%03d.txt" % (sys.argv[2], i), "w").write(" ".join(w[:6000]) + "\n")
PY
"$SB" index "$BIG" --index "$T/ext-index" --threads 1 --interval 0.05 >"$T/out" 2>"$T/err"
rc=$?
check "external index: exit 0" [ "$rc" -eq 0 ]
check "external index: used" [ -f "$T/ext-index/data.mdb" ] && [ ! -e "$BIG/.simbookfs-index" ]
check "external index: summary" grep -Eq "$(summary_re 120 120 0 0 120 0 | sed "s#$real_lib#$(cd "$BIG" && pwd -P)#")" "$T/out"
secs=$(sed -E 's/.* ([0-9.]+) s$/\1/' "$T/out")
nprog=$(grep -Ec '^simbook index: (scanning|indexing): ' "$T/err")
if awk -v s="$secs" 'BEGIN { exit !(s >= 0.3) }'; then
	check "periodic progress lines during a ${secs}s run ($nprog)" [ "$nprog" -ge 2 ]
else
	ok "periodic progress lines # SKIP run too short (${secs}s)"
fi

# ---- on a terminal: a bar redrawn in place ----
if command -v script >/dev/null 2>&1; then
	rm -rf "$T/ext-index"
	script -qec "'$SB' index '$BIG' --index '$T/ext-index' --threads 1" /dev/null >"$T/tty" 2>&1 </dev/null
	rc=$?
	check "terminal: exit 0" [ "$rc" -eq 0 ]
	check "terminal: bar drawn with carriage return and erase-line" grep -aq $'\r\\[[#.]\\{24\\}\\] \\+[0-9]\\+%\\|\rscanning ' "$T/tty"
	check "terminal: rate and ETA shown" grep -aq 'files/s  ETA ' "$T/tty"
	check "terminal: line erased before the summary" grep -aq $'\r\033\\[Kindexed ' "$T/tty"
	check "terminal: no log-style progress lines" bash -c "! grep -aq '^simbook index: indexing' '$T/tty'"
else
	ok "terminal mode # SKIP util-linux script not installed"
fi

# ---- interrupted ----
rm -rf "$T/ext-index"
"$SB" index "$BIG" --index "$T/ext-index" --threads 1 --quiet >"$T/out" 2>"$T/err" &
pid=$!
sleep 0.15
kill -INT "$pid" 2>/dev/null
wait "$pid"
rc=$?
if [ "$rc" -eq 130 ]; then
	check "interrupted: says so" grep -q '^simbook index: interrupted after ' "$T/err"
	"$SB" index "$BIG" --index "$T/ext-index" --quiet >"$T/out" 2>"$T/err"
	check "after an interruption the next run completes" grep -Eq "^indexed .*: 120 files, 120 books, 0 failed" "$T/out"
else
	check "run finished before the signal: exit 0 ($rc)" [ "$rc" -eq 0 ]
fi

# ---- errors: exit 2 ----
"$SB" index "$T/missing" >/dev/null 2>"$T/err"; rc=$?
check "missing DIR: exit 2" [ "$rc" -eq 2 ]
check "missing DIR: message" grep -q "missing (index .*): No such file or directory" "$T/err"
mkdir -p "$T/ro"
cp "$LIB/base2.txt" "$T/ro/"
chmod 555 "$T/ro"
if [ ! -w "$T/ro" ] || [ "$(id -u)" -ne 0 ]; then
	"$SB" index "$T/ro" >/dev/null 2>"$T/err"; rc=$?
	check "read-only DIR: exit 2 with a hint" [ "$rc" -eq 2 ] && grep -q -- "use --index IDXDIR for a read-only DIR" "$T/err"
else
	ok "read-only DIR # SKIP root writes anywhere"
fi
"$SB" index "$T/ro" --index "$T/ro-index" --quiet >"$T/out" 2>&1; rc=$?
check "read-only DIR with --index elsewhere: exit 0" [ "$rc" -eq 0 ]
chmod 755 "$T/ro"
"$SB" index "$LIB/a/base1.txt" >/dev/null 2>&1; rc=$?
check "DIR is a file: exit 2" [ "$rc" -eq 2 ]
mkdir -p "$LIB/sub"
"$SB" index "$LIB" --index "$LIB/sub/idx" >/dev/null 2>"$T/err"; rc=$?
check "index deep inside DIR: exit 2" [ "$rc" -eq 2 ]
check "index deep inside DIR: message" grep -q "must be outside DIR or directly in it" "$T/err"
"$SB" index "$LIB" --threads x >/dev/null 2>&1; rc=$?
check "bad --threads: exit 2" [ "$rc" -eq 2 ]
"$SB" index >/dev/null 2>&1; rc=$?
check "no DIR: exit 2" [ "$rc" -eq 2 ]
"$SB" index --help | grep -q '^Exit status: 0 every file is indexed'
check "--help documents the exit status" [ "$?" -eq 0 ]
# an index directly inside DIR under another name is not indexed itself
rm -rf "$LIB/.simbookfs-index" "$LIB/sub"
"$SB" index "$LIB" --index "$LIB/.other-index" --quiet >"$T/out" 2>&1; rc=$?
check "index directly inside DIR under another name: exit 0" [ "$rc" -eq 0 ]
check "its files are not indexed" grep -Eq "$(summary_re 6 6 0 0 6 0)" "$T/out"

exit $fail
