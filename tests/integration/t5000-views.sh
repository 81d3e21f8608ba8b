#!/usr/bin/env bash
# t5000-views: the index and the views end to end.  A generated library with
# known relations is copied in through the mount (cp and rsync); the views
# must show the relations, follow overwrites, renames and deletes within a
# couple of seconds, survive a remount, see changes made while unmounted,
# and never dangle or loop (find -L, rsync -aL, du -L).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/viewlib.sh"
command -v python3 >/dev/null || skip "no python3"
command -v rsync >/dev/null || skip "no rsync"
FS_ARGS=()

LIB=$T/lib
python3 "$(dirname "$0")/genlib.py" "$LIB"


mount_fs -o rescan=0,idxattr
say "copy in with cp and rsync"
cp -r "$LIB/a" "$LIB/b" "$MNT/"
rsync -a "$LIB/" "$MNT/"
wait_idle 60
cat "$MNT/.simbookfs/status"

say "the index folder is hidden, the views are listed"
ls -a "$MNT" >"$T/root.lst"
! grep -q simbookfs-index "$T/root.lst" || fail "index folder visible"
for v in similar clusters duplicates lookup .simbookfs; do
	grep -qx "$v" "$T/root.lst" || fail "view $v not listed"
done
if [ -n "${SIMBOOK_TEST_INDEX:-}" ]; then	# kept in Redis (t7200, t7201)
	[ ! -e "$SRC/.simbookfs-index" ] || fail "an index folder in SRC beside the Redis index"
else
	[ -d "$SRC/.simbookfs-index" ] || fail "no index folder in SRC"
fi

say "similar/: relations, order, targets"
has_entry a/base1.txt b/base1-near.txt || fail "near duplicate missing"
has_entry a/base1.txt c/base1-vol1.txt || fail "contained volume missing"
has_entry c/base1-vol1.txt a/base1.txt || fail "whole missing from the volume's list"
has_entry base2.txt base2-copy.txt || fail "identical file missing"
# ranked by the share of text found in the other (VIEWS.md, "The percentage")
case $(entry_for a/base1.txt b/base1-near.txt) in *"near duplicate - base1-near.txt") ;;
*) fail "near duplicate not named so: $(ls "$MNT/similar/a/base1.txt" | tr '\n' '|')" ;; esac
ls "$MNT/similar/a/base1.txt" | sed 's/^[0-9]* \([0-9]*\)% .*/\1/' >"$T/pct.lst"
sort -s -n -r "$T/pct.lst" | cmp -s - "$T/pct.lst" || fail "not ranked by percentage: $(ls "$MNT/similar/a/base1.txt" | tr '\n' '|')"
case $(entry_for base2.txt base2-copy.txt) in *"100% identical file"*) ;; *) fail "identical file not named so" ;; esac
[ -z "$(ls "$MNT/similar/base3.txt")" ] || fail "base3 has similar books: $(ls "$MNT/similar/base3.txt")"
[ ! -e "$MNT/similar/notbook.bin" ] || fail "a non-book has a similar folder"
for e in "$MNT/similar/a/base1.txt"/*; do
	t=$(readlink "$e")
	case $t in ../../../*) ;; *) fail "not a relative link to the mount root: $t" ;; esac
	[ -f "$e" ] || fail "dangling: $e"
	cmp -s "$e" "$SRC/${t#../../../}" || fail "link content differs: $e"
done
tsv=$MNT/similar/a/base1.txt/.similar.tsv
head -n 1 "$tsv" | grep -q "^rank	score	relation	" || fail "listing header: $(head -n 1 "$tsv")"
grep -Eq "	near-duplicate	.*	b/base1-near.txt		[a-z]+$" "$tsv" || fail "listing row missing: $(cat "$tsv")"
[ "$(wc -l <"$tsv")" -eq 3 ] || fail "listing rows: $(cat "$tsv")"

say "clusters/ and duplicates/"
grep -l . /dev/null >/dev/null 2>&1 || true
ls -R "$MNT/clusters" >"$T/clusters.lst"
grep -qx "base1-near.txt" "$T/clusters.lst" || fail "clusters: $(cat "$T/clusters.lst")"
ls -R "$MNT/duplicates" >"$T/dups.lst"
# every member after the first says its relation to the first
dup_re() { echo "^((identical file|same text) - )?$1\$"; }
grep -qE "$(dup_re base2-copy.txt)" "$T/dups.lst" && grep -qE "$(dup_re base2.txt)" "$T/dups.lst" ||
	fail "duplicates: $(cat "$T/dups.lst")"
[ "$(grep -cE '^(identical file|same text) - ' "$T/dups.lst")" -ge 2 ] || fail "duplicates: no relation in the names: $(cat "$T/dups.lst")"
! grep -qx "base1.txt" "$T/dups.lst" || fail "near duplicate listed as same text"
for d in "$MNT/clusters"/*/ "$MNT/duplicates"/*/; do
	for e in "$d"*; do [ -f "$e" ] || fail "group entry dangles: $e"; done
done

say "status, errors, xattr id, lookup/"
grep -q '"books":7' "$MNT/.simbookfs/status" || fail "status: $(cat "$MNT/.simbookfs/status")"
grep -q "^broken.epub	" "$MNT/.simbookfs/errors" || fail "errors: $(cat "$MNT/.simbookfs/errors")"
if command -v getfattr >/dev/null; then
	id=$(getfattr --only-values -n user.simbookfs.id "$MNT/a/base1.txt")
else
	id=$(python3 -c 'import os,sys; print(os.getxattr(sys.argv[1], "user.simbookfs.id").decode())' "$MNT/a/base1.txt")
fi
[[ $id =~ ^[0-9a-f]{32}$ ]] || fail "bad id '$id'"
ls "$MNT/lookup/$id" | grep -q " - base1.txt$" || fail "lookup: $(ls "$MNT/lookup/$id")"
ls "$MNT/lookup/$id" | grep -q " - base1-near.txt$" || fail "lookup misses the near duplicate"
[ ! -e "$MNT/lookup/nothex" ] || fail "lookup accepts a bad id"

say "read-only: writes fail with EROFS"
! touch "$MNT/similar/x" 2>"$T/err" && grep -qi "read-only" "$T/err" || fail "touch in a view: $(cat "$T/err")"
! mkdir "$MNT/clusters/x" 2>/dev/null || fail "mkdir in a view"
! cp "$LIB/base3.txt" "$MNT/similar/a/base1.txt/" 2>/dev/null || fail "cp into a view"

say "no loops, no dangling: find -L, du -L, rsync -aL"
timeout 30 find -L "$MNT" >"$T/find.out" 2>"$T/find.err" || fail "find -L: $(head -n 3 "$T/find.err")"
timeout 30 du -sL "$MNT/similar" >/dev/null 2>"$T/du.err" || fail "du -sL: $(head -n 3 "$T/du.err")"
mkdir "$T/dest"
timeout 30 rsync -aL "$MNT/similar/a/base1.txt/" "$T/dest/" || fail "rsync -aL failed"
cmp -s "$T/dest/$(entry_for a/base1.txt b/base1-near.txt)" "$LIB/b/base1-near.txt" || fail "rsync copy differs"
[ "$(find "$T/dest" -type f ! -name .similar.tsv | wc -l)" -eq 2 ] || fail "rsync copied: $(ls -a "$T/dest")"

say "not a duplicate: unlinking an entry exempts the pair everywhere"
rm "$MNT/similar/c/base1-vol1.txt/$(entry_for c/base1-vol1.txt b/base1-near.txt)"
no_entry c/base1-vol1.txt b/base1-near.txt || fail "exempted entry still listed"
until_ok 3 no_entry b/base1-near.txt c/base1-vol1.txt || fail "exemption not applied both ways"
has_entry c/base1-vol1.txt a/base1.txt || fail "exemption removed too much"
! rm "$MNT/similar/a/base1.txt/.similar.tsv" 2>/dev/null || fail "listing file removable"
rc=0; "$SIMBOOK_BUILD/simbook" not-duplicate "$MNT/base2.txt" "$MNT/base2.epub" || rc=$?
[ "$rc" -eq 0 ] || fail "simbook not-duplicate on the mount gave $rc"
no_entry base2.txt base2.epub || fail "not-duplicate through the mount not applied"
# base2.epub stays in the duplicates group through base2-copy.txt until
# that pair is exempted too
ls -R "$MNT/duplicates" | grep -qE "$(dup_re 'base2\.epub')" || fail "group split too early"
"$SIMBOOK_BUILD/simbook" not-duplicate "$MNT/base2-copy.txt" "$MNT/base2.epub" || fail "second not-duplicate"
until_ok 3 sh -c "! ls -R '$MNT/duplicates' | grep -qE '$(dup_re 'base2\.epub')'" || fail "exemption not applied to duplicates/"
printf 'b/base1-near.txt\tc/base1-vol1.txt\nbase2-copy.txt\tbase2.epub\nbase2.epub\tbase2.txt\n' >"$T/nd.want"
until_ok 3 cmp -s "$MNT/.simbookfs/not-duplicates" "$T/nd.want" ||
	fail "not-duplicates listing: $(cat "$MNT/.simbookfs/not-duplicates")"
(cd "$MNT/a" && "$SIMBOOK_BUILD/simbook" not-duplicate --list) >"$T/nd.cli" || fail "--list on the mount"
cmp -s "$T/nd.cli" "$T/nd.want" || fail "--list on the mount: $(cat "$T/nd.cli")"

say "writes through the mount: overwrite, rename, delete"
t0=$(stat -c %Y "$MNT/clusters")
[ "$t0" -ge "$(($(date +%s) - 600))" ] || fail "clusters/ mtime $t0 is not the index's last change"
sleep 1.1
start=$(date +%s%N)
cat "$LIB/a/base1.txt" >"$MNT/base3.txt"
until_ok 3 has_entry base3.txt a/base1.txt || fail "overwritten book not re-indexed"
[ "$(stat -c %Y "$MNT/clusters")" -gt "$t0" ] || fail "clusters/ mtime did not move with the index"
echo "# overwrite visible after $(( ($(date +%s%N) - start) / 1000000 )) ms"
mv "$MNT/b/base1-near.txt" "$MNT/b/renamed.txt"
until_ok 2 has_entry a/base1.txt b/renamed.txt || fail "rename not followed"
no_entry a/base1.txt b/base1-near.txt || fail "old name still listed"
[ -d "$MNT/similar/b/renamed.txt" ] || fail "renamed book has no folder"
no_entry c/base1-vol1.txt b/renamed.txt || fail "exemption lost on rename"
rm "$MNT/c/base1-vol1.txt"
until_ok 2 no_entry a/base1.txt c/base1-vol1.txt || fail "deleted book still listed"
until_ok 2 test ! -e "$MNT/similar/c/base1-vol1.txt" || fail "deleted book's folder remains"
timeout 30 find -L "$MNT/similar" >/dev/null 2>"$T/find.err" || fail "find -L after changes: $(head -n 3 "$T/find.err")"
mv "$MNT/a" "$MNT/a2"
until_ok 2 has_entry a2/base1.txt base3.txt || fail "folder rename not followed"
has_entry a2/base1.txt b/renamed.txt || fail "folder rename lost relations"
mv "$MNT/a2" "$MNT/a"
until_ok 2 has_entry a/base1.txt base3.txt || fail "folder rename back not followed"

say "persistence across a remount"
before=$(ls -R "$MNT/similar" | md5sum)
umount_fs
mount_fs -o rescan=0
wait_idle 60
grep -q '"indexed_since_mount":0' "$MNT/.simbookfs/status" || fail "remount re-indexed: $(cat "$MNT/.simbookfs/status")"
[ "$(ls -R "$MNT/similar" | md5sum)" = "$before" ] || fail "views differ after remount"
# without idxattr (the default) the daemon has no xattr handlers at all
! python3 -c 'import os,sys; os.getxattr(sys.argv[1], "user.simbookfs.id")' "$MNT/a/base1.txt" \
	2>/dev/null || fail "id xattr served without -o idxattr"
no_entry b/renamed.txt c/base1-vol1.txt || true
umount_fs

say "changes made while unmounted are found by the scan"
mkdir -p "$SRC/d"
cp "$LIB/a/base1.txt" "$SRC/d/offline.txt"
rm "$SRC/b/renamed.txt"
mount_fs -o rescan=0
wait_idle 60
until_ok 3 has_entry a/base1.txt d/offline.txt || fail "file added offline not seen"
no_entry a/base1.txt b/renamed.txt || fail "file removed offline still listed"

say "changes behind the mount's back while mounted (inotify)"
cp "$LIB/a/base1.txt" "$SRC/d/behind.txt"
until_ok 3 has_entry a/base1.txt d/behind.txt || fail "file added behind the mount not seen"
rm "$SRC/d/behind.txt"
until_ok 3 no_entry a/base1.txt d/behind.txt || fail "file removed behind the mount still listed"
grep -q '"watch":"on"' "$MNT/.simbookfs/status" || fail "watch: $(cat "$MNT/.simbookfs/status")"
grep -q '"rebuilt":{"how":"no","kept_files":0,"kept_marks":0},' "$MNT/.simbookfs/status" &&
	grep -q '"index":{"state":"open",' "$MNT/.simbookfs/status" ||
	fail "rebuilt: $(cat "$MNT/.simbookfs/status")"

say "simbook not-duplicate on SRC, without a mount"
umount_fs
sbx "$SRC" not-duplicate "$SRC/a/base1.txt" "$SRC/d/offline.txt" || fail "not-duplicate failed"
sbx "$SRC" not-duplicate --list "$SRC/d" >"$T/nd.src" || fail "--list on SRC"
grep -qx 'a/base1.txt	d/offline.txt' "$T/nd.src" || fail "--list on SRC: $(cat "$T/nd.src")"
mount_fs -o rescan=0
wait_idle 60
no_entry a/base1.txt d/offline.txt || fail "CLI exemption not applied"
umount_fs
sbx "$SRC" not-duplicate --undo "$SRC/a/base1.txt" "$SRC/d/offline.txt" || fail "--undo failed"
rc=0; sbx "$SRC" not-duplicate "$SRC/a/base1.txt" "$SRC/nope.txt" 2>/dev/null || rc=$?
[ "$rc" -eq 1 ] || fail "missing file gave $rc"
mount_fs -o rescan=0
wait_idle 60
has_entry a/base1.txt d/offline.txt || fail "--undo not applied"

say "a reserved top-level name stays reachable with viewprefix"
umount_fs
mkdir -p "$SRC/similar"
echo "mine" >"$SRC/similar/note.txt"
VP=@
mount_fs -o rescan=0,viewprefix=@
wait_idle 60
[ "$(cat "$MNT/similar/note.txt")" = mine ] || fail "SRC's similar/ not reachable"
has_entry_p() { [ -n "$(ls "$MNT/@similar/a/base1.txt")" ]; }
until_ok 3 has_entry_p || fail "@similar/ empty"
umount_fs
VP=

if [ -d "${SIMBOOK_BOOKS:-}/texts" ]; then
	say "real books from $SIMBOOK_BOOKS"
	mount_fs -o rescan=0
	mkdir "$MNT/real"
	for f in pg36-the-war-of-the-worlds.txt pg11-alice-in-wonderland.txt \
		pg28885-alice-in-wonderland-rackham.txt pg35-the-time-machine.txt; do
		[ -f "$SIMBOOK_BOOKS/texts/$f" ] && cp "$SIMBOOK_BOOKS/texts/$f" "$MNT/real/"
	done
	[ -f "$SIMBOOK_BOOKS/epub/pg36-war-of-the-worlds.epub" ] &&
		rsync -a "$SIMBOOK_BOOKS/epub/pg36-war-of-the-worlds.epub" "$MNT/real/"
	wait_idle 120
	ls -R "$MNT/similar/real"
	if [ -f "$MNT/real/pg36-war-of-the-worlds.epub" ]; then
		has_entry real/pg36-war-of-the-worlds.epub real/pg36-the-war-of-the-worlds.txt ||
			fail "EPUB and text of the same book not related"
	fi
	has_entry real/pg11-alice-in-wonderland.txt real/pg28885-alice-in-wonderland-rackham.txt ||
		fail "Alice editions not related"
	no_entry real/pg35-the-time-machine.txt real/pg11-alice-in-wonderland.txt ||
		fail "unrelated books related"
	umount_fs
else
	say "SIMBOOK_BOOKS not present: real-book part skipped"
fi
echo "ok"
