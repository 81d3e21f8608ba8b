#!/usr/bin/env bash
# t6151-dedup-actions: every action of simbook dedup through a mount
# elsewhere than SRC; the sha256 and inode of every file in SRC before and
# after prove that only the copies that go changed, the kept ones not; the
# views follow; reflink fails cleanly where unsupported (FUSE: no FICLONE).
. "$(dirname "$0")/deduplib.sh"
dd_setup
cp "$SRC/base2.txt" "$T/gen-base2.txt"
cd "$MNT"

# act ARGS... then EXPECTED: the changes in SRC must be exactly EXPECTED
act_check() { # EXPECTED ARGS...
	local want=$1
	shift
	snap "$SRC" >"$T/before"
	run_dd "$@"
	snap "$SRC" >"$T/after"
	[ "$(changes "$T/before" "$T/after")" = "$want" ] ||
		fail "dedup $*: exit $RC, changes:
$(changes "$T/before" "$T/after")
expected:
$want
$(cat "$T/out" "$T/err")"
}

act_check "" --reflink a
[ "$RC" -eq 2 ] && grep -q "^failed	reflink	$MNT/a/wallpaper.txt	(reflinks are not supported here)" "$T/out" ||
	fail "reflink on FUSE: $RC $(cat "$T/out")"
say "reflink fails cleanly, nothing changed"

act_check "ino a/wallpaper.txt
ino x/y/wallpaper-second-copy.txt" --hardlink --keep oldest a
[ "$RC" -eq 0 ] || fail "hardlink exit $RC"
[ "$(stat -c %i "$SRC/a/wallpaper.txt")" = "$(stat -c %i "$SRC/copies/wallpaper.txt")" ] &&
	[ "$(stat -c %h "$SRC/copies/wallpaper.txt")" = 3 ] || fail "not hard links of the kept copy"
grep -q "^# 1 groups, 1 kept, 2 done (hardlink), 0 skipped, 0 failed, [0-9]* bytes reclaimed$" "$T/out" ||
	fail "hardlink summary: $(cat "$T/out")"
run_dd --hardlink a
[ "$RC" -eq 1 ] || fail "second hardlink run: exit $RC, not 1 (nothing left)"
say "hardlink"

act_check "link usher.txt -> keep/usher-copy.txt" --symlink --keep oldest usher.txt
[ "$(cat "$MNT/usher.txt" | sha256sum)" = "$(sha256sum <"$SRC/keep/usher-copy.txt")" ] ||
	fail "symlink does not read the kept copy"
say "symlink (relative)"

act_check "gone base2-copy.txt" --delete base2.txt
until_ok 20 sh -c "! ls '$MNT/duplicates'/*/ | grep -qE '(^| - )base2-copy[.]txt$'" || fail "duplicates/ still lists the deleted copy"
say "delete; the views follow"

mkdir -p "$T/moved"
act_check "gone base2.txt" --move-to "$T/moved" --relation same-text --yes-different-bytes \
	--prefer-format epub base2.epub
[ "$(sha256sum <"$T/moved/base2.txt")" = "$(sha256sum <"$T/gen-base2.txt")" ] || fail "moved file differs"
say "move-to (another filesystem: copied, checked, removed)"

cp "$SRC/tom.txt" "$MNT/c/tom-copy.txt"
touch -d 2000-01-01 "$MNT/c/tom-copy.txt"
mkdir -p "$MNT/attic"
until_ok 20 sh -c "ls '$MNT/duplicates'/*/ | grep -qE '(^| - )tom-copy[.]txt$'"
act_check "new attic/tom.txt
gone tom.txt" --move-to "$MNT/attic" tom.txt
say "move-to in the same filesystem (rename, relative path kept)"

act_check "gone a/base1.txt" --delete --relation near-duplicate --yes-different-bytes --keep newest \
	--prefer "$MNT/b" "$MNT/a"
grep -q "^keep	keep	$MNT/b/base1-near.txt$" "$T/out" || fail "near: $(cat "$T/out")"
[ "$RC" -eq 0 ] || fail "near-duplicate delete: exit $RC"
say "near-duplicate delete with --yes-different-bytes"
cd /
umount_fs
