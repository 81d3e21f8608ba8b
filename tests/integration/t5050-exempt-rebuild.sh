#!/usr/bin/env bash
# t5050-exempt-rebuild: "not a duplicate" marks survive a rebuild of the
# index.  Pairs marked through the view (rm of an entry) and with `simbook
# not-duplicate` on the mount stay hidden after the stored schema version is
# set back (as the next schema bump does for every user), while the books
# are fingerprinted again; `--undo` still works afterwards.  An index LMDB
# cannot read is rebuilt empty and the daemon's log says the marks are lost.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/viewlib.sh"
command -v python3 >/dev/null || skip "no python3"
command -v mdb_load >/dev/null || skip "no mdb_load (lmdb-utils)"
SB=$SIMBOOK_BUILD/simbook
FS_ARGS=()
IDX=$SRC/.simbookfs-index

python3 "$(dirname "$0")/genlib.py" "$T/lib"
cp -r "$T/lib/a" "$T/lib/b" "$T/lib/c" "$T/lib/base2.txt" "$T/lib/base2-copy.txt" "$SRC/"


exempt() { no_entry "$1" "$2" && no_entry "$2" "$1"; }
related() { has_entry "$1" "$2" && has_entry "$2" "$1"; }


mount_fs -o rescan=0
wait_idle
related a/base1.txt b/base1-near.txt || fail "near pair not listed"
related a/base1.txt c/base1-vol1.txt || fail "volume not listed"
related base2.txt base2-copy.txt || fail "identical files not listed"

say "mark two pairs: rm in similar/ and simbook not-duplicate on the mount"
rm "$MNT/similar/a/base1.txt/$(entry_for a/base1.txt b/base1-near.txt)"
"$SB" not-duplicate "$MNT/c/base1-vol1.txt" "$MNT/a/base1.txt" >/dev/null || fail "not-duplicate"
exempt a/base1.txt b/base1-near.txt || fail "rm did not exempt the pair"
exempt a/base1.txt c/base1-vol1.txt || fail "not-duplicate did not exempt the pair"
umount_fs

say "another schema version: rebuilt, the marks kept"
cur=$(schema)
[[ $cur =~ ^[0-9a-f]{8}$ ]] && [ "$cur" != 00000002 ] || fail "stored schema: '$cur'"
set_schema 2	# a real older version, older than any in-place upgrade
[ "$(schema)" = 00000002 ] || fail "schema not changed"
: >"$FS_LOG"
mount_fs -o rescan=0
wait_idle
[ "$(schema)" = "$cur" ] || fail "index not rebuilt (schema $(schema))"
grep -q 'another version: rebuilding it; kept 5 files.* ids and 2 "not a duplicate" marks' "$FS_LOG" ||
	fail "log: $(cat "$FS_LOG")"
[ ! -e "$IDX/data.mdb.prev" ] || fail "old data file left"
grep -q '"books":5' "$MNT/.simbookfs/status" || fail "not fingerprinted again: $(cat "$MNT/.simbookfs/status")"
grep -q '"rebuilt":{"how":"kept","kept_files":5,"kept_marks":2}' "$MNT/.simbookfs/status" ||
	fail "status: $(cat "$MNT/.simbookfs/status")"
related base2.txt base2-copy.txt || fail "identical files not listed after the rebuild"
exempt a/base1.txt b/base1-near.txt || fail "view mark lost in the rebuild"
exempt a/base1.txt c/base1-vol1.txt || fail "CLI mark lost in the rebuild"
umount_fs

say "simbook not-duplicate --undo after the rebuild"
"$SB" not-duplicate --undo "$SRC/a/base1.txt" "$SRC/b/base1-near.txt" >/dev/null || fail "--undo"
mount_fs -o rescan=0
wait_idle
related a/base1.txt b/base1-near.txt || fail "--undo not applied"
exempt a/base1.txt c/base1-vol1.txt || fail "the other mark went with --undo"
umount_fs

say "an unreadable index: rebuilt, the log says the marks are lost"
printf 'not an lmdb file, only text, long enough for a header check.....' >"$IDX/data.mdb"
: >"$FS_LOG"
mount_fs -o rescan=0
wait_idle
grep -q 'unreadable: rebuilding it; its "not a duplicate" marks are lost' "$FS_LOG" ||
	fail "log: $(cat "$FS_LOG")"
grep -q '"rebuilt":{"how":"lost",' "$MNT/.simbookfs/status" || fail "status: $(cat "$MNT/.simbookfs/status")"
related a/base1.txt c/base1-vol1.txt || fail "pair not listed after the marks were lost"
umount_fs
echo "ok"
