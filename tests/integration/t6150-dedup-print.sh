#!/usr/bin/env bash
# t6150-dedup-print: simbook dedup on a mount (elsewhere than SRC) as a dry
# run: nothing changes (sha256 and inode of every file), each keep rule
# chooses the copy it names, -0 and --json, grep-like exit status, and
# one-line errors for bad options.
. "$(dirname "$0")/deduplib.sh"
dd_setup
snap "$SRC" >"$T/before"

cd "$MNT"
run_dd
[ "$RC" -eq 0 ] || fail "dry run: exit $RC: $(cat "$T/err")"
grep -q '^# 3 groups, 3 kept, 4 would go (delete), 0 skipped, 0 failed, [0-9]* bytes would be reclaimed; dry run, nothing changed$' "$T/out" ||
	fail "dry run summary: $(cat "$T/out")"
grep -qx "keep	keep	$MNT/copies/wallpaper.txt" "$T/out" || fail "default keeps the oldest: $(cat "$T/out")"
grep -qx "would	delete	$MNT/a/wallpaper.txt" "$T/out" || fail "dry run lists what would go"
for a in --hardlink --symlink --delete "--move-to=$T"; do
	run_dd --pause-before-act --relation=same-text "$a" --print
	[ "$RC" -eq 2 ] || fail "two actions accepted ($a)"
done
snap "$SRC" >"$T/after"
[ -z "$(changes "$T/before" "$T/after")" ] || fail "the dry run changed: $(changes "$T/before" "$T/after")"
say "dry run changes nothing"

# keep rules: identical-file groups (equal sizes), same-text (other sizes)
rule() { # EXPECTED PATTERN ARGS...: the kept path of the group matching PATTERN
	local want=$1 pat=$2
	shift 2
	run_dd --json "$@"
	[ "$RC" -eq 0 ] || fail "dedup $*: exit $RC: $(cat "$T/err")"
	[ "$(kept_of "$T/out" "$pat")" = "$want" ] ||
		fail "dedup $*: kept $(kept_of "$T/out" "$pat"), not $want"
}
rule copies/wallpaper.txt wallpaper --keep oldest
rule keep/usher-copy.txt usher --keep=oldest
rule x/y/wallpaper-second-copy.txt wallpaper --keep newest
rule usher.txt usher --keep newest
rule a/wallpaper.txt wallpaper --keep shortest-path
rule usher.txt usher --keep shortest-path
rule usher.txt usher --prefer "$MNT/x" --keep shortest-path
rule keep/usher-copy.txt usher --prefer keep --keep newest
rule x/y/wallpaper-second-copy.txt wallpaper --prefer "$MNT/x/" --keep oldest
rule base2.epub base2 --relation same-text --keep smallest
rule base2.txt base2 --relation same-text --keep largest
rule base2.epub base2 --relation same-text --prefer-format epub,txt --keep largest
rule base2.txt base2 --relation=same-text --prefer-format txt,epub
rule base2-copy.txt base2 --relation same-text --prefer-format=txt --keep largest --keep newest
rule a/base1.txt base1 --relation near-duplicate --keep shortest-path
say "keep rules choose as documented"

run_dd --json --relation same-text
python3 - "$T/out" <<'PY' || fail "--json: $(cat "$T/out")"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
s = recs[-1]["summary"]
assert s["dry_run"] and s["groups"] == 3 and s["would"] == 4 + 1, s
assert all(r["result"] in ("keep", "would") for r in recs[:-1])
PY
run_dd -0 a
[ "$RC" -eq 0 ] || fail "-0: exit $RC"
[ "$(tr '\0' '\n' <"$T/out" | grep -c .)" -eq 3 ] || fail "-0: $(tr '\0' '|' <"$T/out")"
tr '\0' '\n' <"$T/out" | grep -qx "would	delete	$MNT/a/wallpaper.txt" || fail "-0 records"
grep -q "dry run" "$T/err" || fail "-0: summary on stderr"
say "--json and -0"

run_dd "$MNT/b"
[ "$RC" -eq 1 ] || fail "no group in scope: exit $RC, not 1"
run_dd --keep=biggest
[ "$RC" -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "'biggest'.*see simbook dedup --help" "$T/err" ||
	fail "bad rule: $RC $(cat "$T/err")"
run_dd --frobnicate
[ "$RC" -eq 2 ] && grep -qx "simbook dedup: unknown option '--frobnicate' (see simbook dedup --help)" "$T/err" ||
	fail "bad option: $(cat "$T/err")"
run_dd --relation same-text --delete
[ "$RC" -eq 2 ] && grep -q -- "--yes-different-bytes" "$T/err" || fail "same-text acts without --yes-different-bytes"
run_dd /nonexistent
[ "$RC" -eq 2 ] || fail "missing path: exit $RC"
"$SB" dedup --help | grep -q "Exit status (grep's convention)" || fail "--help has no exit status"
snap "$SRC" >"$T/after"
[ -z "$(changes "$T/before" "$T/after")" ] || fail "queries changed: $(changes "$T/before" "$T/after")"
say "exit status and errors"
cd /
umount_fs
