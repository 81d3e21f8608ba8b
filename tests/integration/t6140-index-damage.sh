#!/usr/bin/env bash
# t6140-index-damage: a damaged index file never crashes or hangs `simbook
# index` or the daemon, at this run or the next.  A small library is indexed,
# then its data file is damaged in several deterministic ways (truncated,
# page headers zeroed, LMDB's meta pages zeroed, the page holding the
# schema record zeroed, the schema value zeroed, bytes flipped with a fixed
# seed, garbage, empty) and put back as data.mdb or as the data.mdb.prev a
# rebuild leaves; `simbook index` must exit 0 without a signal within the
# time limit, report every damaged file (all kinds but the flips, which may
# miss every structure) as unreadable, keep it as data.mdb.damaged, leave
# SRC as it was, and the next run must not rebuild again.  The daemon mounts over one damaged
# index and serves the views.  An index from a newer schema is refused by
# both with a clear message and left untouched (the daemon still serves the
# files, its views empty, .simbookfs/status "failed" with the message).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/viewlib.sh"
command -v python3 >/dev/null || skip "no python3"
SB=$SIMBOOK_BUILD/simbook
FS_ARGS=()
IDX=$SRC/.simbookfs-index

python3 "$(dirname "$0")/genlib.py" "$T/lib"
cp -r "$T/lib/a" "$T/lib/b" "$T/lib/c" "$T/lib/base2.txt" "$T/lib/base2-copy.txt" "$SRC/"
sums() { (cd "$SRC" && find . -path ./.simbookfs-index -prune -o -type f -print0 | sort -z |
	xargs -0 sha256sum); }
before=$(sums)

"$SB" index "$SRC" >/dev/null 2>"$T/err" || fail "first index: $(cat "$T/err")"
cp "$IDX/data.mdb" "$T/good.mdb"

# damage KIND OUT: writes a damaged copy of the good index to OUT.  The
# good file's page layout differs from run to run (the indexing threads'
# order), so each kind finds its target in the file itself and always hits
# it: every page header past the meta pages; LMDB's two meta pages; the
# page (every copy of it) holding the index's schema record, or that
# record's value; flips with a fixed seed that leave the schema value alone
# (a flip there reads as a newer version, refused, not rebuilt).
damage() {
	python3 - "$T/good.mdb" "$2" "$1" <<'EOF'
import random, sys
src, out, kind = sys.argv[1], sys.argv[2], sys.argv[3]
b = bytearray(open(src, 'rb').read())
r = random.Random(6140)
PG = 4096
# the meta table's leaf node: data size 4, flags 0, key size 6, "schema"
node = bytes([4, 0, 0, 0, 0, 0, 6, 0]) + b'schema'
recs = []
at = b.find(node)
while at >= 0:
    recs.append(at + len(node))
    at = b.find(node, at + 1)
if kind in ('schema', 'schemaval', 'flips') and not recs:
    sys.exit('no schema record in the good index')
if kind == 'half':
    b = b[:len(b) // 2]
elif kind == 'headers':
    for pg in range(2, len(b) // PG):
        b[pg * PG:pg * PG + 16] = bytes(16)
elif kind == 'meta':
    b[0:16] = bytes(16)
    b[PG:PG + 16] = bytes(16)
elif kind == 'schema':
    for v in recs:
        pg = v // PG
        b[pg * PG:pg * PG + 16] = bytes(16)
elif kind == 'schemaval':
    for v in recs:
        b[v:v + 4] = bytes(4)
elif kind == 'flips':
    n = 0
    while n < 64:
        at = r.randrange(len(b))
        bit = 1 << r.randrange(8)
        if any(v <= at < v + 4 for v in recs):
            continue
        b[at] ^= bit
        n += 1
elif kind == 'garbage':
    b = bytearray(r.getrandbits(8) for _ in range(65536))
elif kind == 'empty':
    b = bytearray()
else:
    sys.exit('unknown damage ' + kind)
open(out, 'wb').write(b)
EOF
}

# run_index: `simbook index` under a time limit; fails on a signal or a hang.
run_index() {
	local rc=0
	timeout -k 5 60 "$SB" index "$SRC" >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" -lt 124 ] || fail "simbook index died or hung ($rc): $(tail -n 5 "$T/err")"
	INDEX_RC=$rc
}

for kind in half headers meta schema schemaval flips garbage empty; do
	for as in data.mdb data.mdb.prev; do
		say "$kind, as $as"
		rm -f "$IDX"/data.mdb* "$IDX/lock.mdb"
		damage "$kind" "$IDX/$as"
		run_index
		[ "$INDEX_RC" -eq 0 ] || fail "$kind/$as: exit $INDEX_RC: $(cat "$T/err")"
		if grep -q 'was unreadable: rebuilding it' "$T/err"; then
			grep -q "old file is kept as $IDX/data.mdb.damaged" "$T/err" ||
				fail "$kind/$as: message: $(cat "$T/err")"
			[ -s "$IDX/data.mdb.damaged" ] || [ "$kind" = empty ] ||
				fail "$kind/$as: the damaged file was not kept"
		elif [ "$kind" != flips ]; then
			fail "$kind/$as: no rebuild reported: $(cat "$T/err")"
		fi
		[ ! -e "$IDX/data.mdb.prev" ] || fail "$kind/$as: data.mdb.prev left"
		[ "$(sums)" = "$before" ] || fail "$kind/$as: SRC changed"
		run_index
		[ "$INDEX_RC" -eq 0 ] || fail "$kind/$as: second run exit $INDEX_RC: $(cat "$T/err")"
		! grep -q 'rebuilding' "$T/err" || fail "$kind/$as: rebuilt again: $(cat "$T/err")"
		rc=0
		timeout -k 5 60 "$SB" similar "$SRC/a/base1.txt" >"$T/sim" 2>"$T/err" || rc=$?
		[ "$rc" -lt 2 ] || fail "$kind/$as: similar after the rebuild: $rc $(cat "$T/err")"
		# flipped bits inside stored values pass every structural check
		# (LMDB keeps no checksums): the answers may differ, nothing crashes
		[ "$kind" = flips ] || grep -q 'base1-near' "$T/sim" ||
			fail "$kind/$as: pair not found again: $(cat "$T/sim")"
	done
done

say "the daemon over a damaged index"
rm -f "$IDX"/data.mdb* "$IDX/lock.mdb"
damage headers "$IDX/data.mdb"
mount_fs -o rescan=0
wait_idle
grep -Eq 'unreadable: rebuilding it.*; the check: (LMDB refused it|a check of its pages failed)' "$FS_LOG" ||
	fail "log: $(cat "$FS_LOG")"
has_entry a/base1.txt b/base1-near.txt || fail "near pair not listed after the rebuild"
umount_fs
[ "$(sums)" = "$before" ] || fail "SRC changed under the daemon"

if command -v mdb_load >/dev/null; then
	say "an index from a newer schema: refused, untouched"
	printf 'VERSION=3\nformat=bytevalue\ntype=btree\nHEADER=END\n 736368656d61\n %08x\nDATA=END\n' \
		999 | mdb_load -s meta "$IDX" || fail "mdb_load of the schema failed"
	cp "$IDX/data.mdb" "$T/future.mdb"
	run_index
	[ "$INDEX_RC" -ne 0 ] || fail "a newer schema was opened"
	grep -q 'written by a newer version' "$T/err" || fail "message: $(cat "$T/err")"
	cmp -s "$IDX/data.mdb" "$T/future.mdb" || fail "the newer index was changed"
	# the daemon serves the files, its views empty, and says why
	: >"$FS_LOG"
	mount_fs -o rescan=0
	until_ok 10 grep -q 'written by a newer version' "$FS_LOG" || fail "daemon log: $(cat "$FS_LOG")"
	grep -q '"state":"failed",.*"error":"the index was written by a newer version' \
		"$MNT/.simbookfs/status" || fail "status: $(cat "$MNT/.simbookfs/status")"
	cmp -s "$MNT/base2.txt" "$SRC/base2.txt" || fail "files not served over a newer index"
	[ -z "$(ls -A "$MNT/similar")" ] || fail "views over a newer index"
	umount_fs
	cmp -s "$IDX/data.mdb" "$T/future.mdb" || fail "the daemon changed the newer index"
else
	say "no mdb_load (lmdb-utils): the newer-schema case is left to test_idx_damage"
fi
[ "$(sums)" = "$before" ] || fail "SRC changed"
