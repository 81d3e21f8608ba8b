#!/usr/bin/env bash
# t6152-dedup-served: simbook dedup given the library folder of a library
# served by a mount elsewhere acts through the mount (the records name the
# mount's paths); --from JSON lines of simbook duplicates (file and stdin);
# a bad input line changes nothing; then mounted over SRC itself (the
# index hidden under the mount): the groups come from the views; and over
# SRC with -o viewmode=files (entries are files, not links): the groups
# come from the mount's index, read through the mount.
. "$(dirname "$0")/deduplib.sh"
dd_setup

snap "$SRC" >"$T/before"
run_dd --json --delete "$SRC/a"
snap "$SRC" >"$T/after"
[ "$RC" -eq 0 ] || fail "served library: exit $RC: $(cat "$T/err")"
grep -q "\"result\":\"done\",\"action\":\"delete\",\"path\":\"x/y/wallpaper-second-copy.txt\",\"abs\":\"$MNT/x/y/wallpaper-second-copy.txt\"" "$T/out" ||
	fail "not acted through the mount: $(cat "$T/out")"
[ "$(changes "$T/before" "$T/after")" = "gone a/wallpaper.txt
gone x/y/wallpaper-second-copy.txt" ] || fail "changes: $(changes "$T/before" "$T/after")"
until_ok 20 sh -c "! ls '$MNT/duplicates'/*/ | grep -q wallpaper" || fail "views did not follow"
say "a served library is changed through its mount"

"$SB" duplicates --json "$SRC" >"$T/groups.json" || fail "simbook duplicates failed"
run_dd --from "$T/groups.json" --keep newest
grep -qx "keep	keep	$MNT/usher.txt" "$T/out" && grep -qx "would	delete	$MNT/keep/usher-copy.txt" "$T/out" ||
	fail "--from FILE: $(cat "$T/out" "$T/err")"
snap "$SRC" >"$T/before"
"$SB" dedup --from - --symlink --keep newest <"$T/groups.json" >"$T/out" 2>"$T/err" || fail "--from -: $(cat "$T/err")"
snap "$SRC" >"$T/after"
[ "$(changes "$T/before" "$T/after")" = "link base2.txt -> base2-copy.txt
link keep/usher-copy.txt -> ../usher.txt" ] || fail "--from - symlink: $(changes "$T/before" "$T/after")"
printf '%s\n' '{"members":[{"abs":"/x"}' >>"$T/groups.json"
run_dd --from "$T/groups.json" --delete
[ "$RC" -eq 2 ] && grep -q "groups.json:3: not a group line" "$T/err" || fail "bad line: $RC $(cat "$T/err")"
snap "$SRC" >"$T/after2"
[ -z "$(changes "$T/after" "$T/after2")" ] || fail "a bad input changed files"
say "--from FILE and stdin; a bad line is refused before anything changes"
umount_fs

say "mounted over SRC"
cp "$SRC/tom.txt" "$SRC/c/tom (2).txt"
touch -d 2000-01-01 "$SRC/tom.txt"
snap "$SRC" >"$T/before"
MNT=$SRC	# wait_idle reads MNT
mount_fs "$SRC" "$SRC"
wait_idle 60
until_ok 20 sh -c "ls '$SRC/duplicates'/*/ | grep -q 'tom (2).txt'" || fail "copy not in duplicates/"
(cd "$SRC/c" && "$SB" dedup --hardlink .) >"$T/out" 2>"$T/err" || fail "over SRC: $(cat "$T/out" "$T/err")"
grep -qx "done	hardlink	$SRC/c/tom (2).txt" "$T/out" || fail "over SRC: $(cat "$T/out")"
umount_fs
snap "$SRC" >"$T/after"
[ "$(changes "$T/before" "$T/after")" = "ino c/tom (2).txt" ] || fail "over SRC: $(changes "$T/before" "$T/after")"
[ "$(stat -c %i "$SRC/c/tom (2).txt")" = "$(stat -c %i "$SRC/tom.txt")" ] || fail "not a hard link"
say "a hard link over SRC"

cp "$SRC/usher.txt" "$SRC/c/usher (3).txt"
touch -d 2000-01-01 "$SRC/usher.txt"
snap "$SRC" >"$T/before"
mount_fs "$SRC" "$SRC" -o viewmode=files
wait_idle 60
until_ok 20 sh -c "ls '$SRC/duplicates'/*/ | grep -q 'usher (3).txt'" || fail "copy not in duplicates/ (files mode)"
(cd "$SRC/c" && "$SB" dedup --delete .) >"$T/out" 2>"$T/err" || fail "files mode: $(cat "$T/out" "$T/err")"
grep -qx "done	delete	$SRC/c/usher (3).txt" "$T/out" || fail "files mode: $(cat "$T/out")"
umount_fs
snap "$SRC" >"$T/after"
[ "$(changes "$T/before" "$T/after")" = "gone c/usher (3).txt" ] || fail "files mode: $(changes "$T/before" "$T/after")"
say "over SRC with -o viewmode=files: the groups from the index, through the mount"
