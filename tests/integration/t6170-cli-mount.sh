#!/usr/bin/env bash
# t6170-cli-mount: the simbook queries on a mount read its daemon's index
# (read-only, found through .simbookfs/status), over SRC and elsewhere,
# with the answers the views give; simbook index refuses a served library
# saying there is nothing to do; a copy of a mount's .simbookfs folder in
# the library is never indexed; clusters/duplicates JSON carries each
# member's relation, score, size and mtime.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/viewlib.sh"
command -v python3 >/dev/null || skip "no python3"
SB=$SIMBOOK_BUILD/simbook
FS_ARGS=()

mkdir -p "$SRC/a" "$SRC/b" "$SRC/old/.simbookfs"
python3 - "$(dirname "$0")" "$SRC" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import wordgen
d, g = sys.argv[2], wordgen.Gen(7)
wordgen.put(d, "a/base.txt", g.text(1, 3000))
wordgen.put(d, "a/copy.txt", g.text(1, 3000))
wordgen.put(d, "b/near.txt", g.text(1, 3000, 100, 0.03))
wordgen.put(d, "other.txt", g.text(2, 3000))
# a copy of a mount's status folder: reports, not books
wordgen.put(d, "old/.simbookfs/status", g.text(3, 3000))
PY
src_sums=$(cd "$SRC" && find . -path ./.simbookfs-index -prune -o -type f -print0 | sort -z | xargs -0 sha256sum)

say "mounted over SRC: the queries need no simbook index"
mount_fs "$SRC" "$SRC" -o rescan=0
MNT=$SRC
wait_idle
grep -q '"library":{"src":"'"$SRC"'","index":"'"$SRC"'/.simbookfs-index","reader":"/proc/[0-9]*/fd/[0-9]*/.simbookfs-index"' \
	"$SRC/.simbookfs/status" || fail "status has no library: $(cat "$SRC/.simbookfs/status")"
rc=0; "$SB" similar "$SRC/a/base.txt" --tsv >"$T/sim" 2>"$T/err" || rc=$?
[ "$rc" -eq 0 ] || fail "similar over SRC: rc $rc: $(cat "$T/err")"
diff <(tail -n +2 "$SRC/similar/a/base.txt/.similar.tsv") <(tail -n +2 "$T/sim") >/dev/null ||
	fail "similar differs from the view: $(cat "$T/sim") / $(cat "$SRC/similar/a/base.txt/.similar.tsv")"
grep -Eq $'\tidentical-file\t.*\ta/copy.txt\t\t[a-z]+$' "$T/sim" || fail "copy not listed: $(cat "$T/sim")"
(cd "$SRC/b" && "$SB" similar near.txt >/dev/null 2>"$T/err") || fail "similar from a relative path: $(cat "$T/err")"
rc=0; "$SB" similar "$SRC/other.txt" >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 1 ] || fail "nothing similar: rc $rc"

say "duplicates and clusters --json: relation, score, size, mtime per member"
"$SB" duplicates "$SRC" --json >"$T/dup" 2>"$T/err" || fail "duplicates: $(cat "$T/err")"
python3 - "$T/dup" "$SRC" <<'PY' || fail "duplicates JSON: $(cat "$T/dup")"
import json, os, sys
gs = [json.loads(l) for l in open(sys.argv[1])]
assert len(gs) == 1, gs
m = gs[0]["members"]
assert sorted(x["path"] for x in m) == ["a/base.txt", "a/copy.txt"], m
assert m[0]["relation"] is None and m[0]["score"] is None, m[0]
assert m[1]["relation"] == "identical-file" and m[1]["score"] == 100, m[1]
for x in m:
    st = os.stat(os.path.join(sys.argv[2], x["path"]))
    assert x["size"] == st.st_size and x["mtime"] == int(st.st_mtime), (x, st)
PY
"$SB" clusters "$SRC" --json >"$T/cl" 2>"$T/err" || fail "clusters: $(cat "$T/err")"
python3 - "$T/cl" <<'PY' || fail "clusters JSON: $(cat "$T/cl")"
import json, sys
g = [json.loads(l) for l in open(sys.argv[1])]
m = {x["path"]: x for x in g[0]["members"]}
assert set(m) == {"a/base.txt", "a/copy.txt", "b/near.txt"}, m
near = m["b/near.txt"]
assert near["relation"] == "near-duplicate" and 50 <= near["score"] < 100, near
PY

say "duplicates/ entry names show the relation to the first member"
names=$(ls "$SRC"/duplicates/*/ | sort | tr '\n' '|')
[ "$names" = "base.txt|identical file - copy.txt|" ] || fail "duplicates/ names: $names"

say "the copy of a status folder is not a book"
grep -q '"files":4,' "$SRC/.simbookfs/status" || fail "status: $(cat "$SRC/.simbookfs/status")"
rc=0; "$SB" similar "$SRC/old/.simbookfs/status" >/dev/null 2>"$T/err" || rc=$?
[ "$rc" -eq 2 ] && grep -q "not in the index" "$T/err" || fail "status copy: rc $rc $(cat "$T/err")"

say "simbook index on the served library: nothing to do, exit 3"
rc=0; "$SB" index "$SRC" >/dev/null 2>"$T/err" || rc=$?
[ "$rc" -eq 3 ] && grep -q "nothing to do" "$T/err" || fail "index over the mount: rc $rc: $(cat "$T/err")"
rc=0; "$SB" index "$SRC" --index "$T/idx2" >/dev/null 2>"$T/err" || rc=$?
[ "$rc" -eq 3 ] && [ ! -e "$T/idx2" ] || fail "index with --index through the mount: rc $rc: $(cat "$T/err")"

say "another user cannot read the daemon's index: a clear error"
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	chmod 755 "$T"
	rc=0; su nobody -s /bin/sh -c "'$SB' similar '$SRC/a/base.txt'" >/dev/null 2>"$T/err" || rc=$?
	[ "$rc" -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] || fail "other user: rc $rc: $(cat "$T/err")"
	chmod 700 "$T"
fi
umount_fs
MNT=$T/mnt

say "nothing in SRC changed"
[ "$(cd "$SRC" && find . -path ./.simbookfs-index -prune -o -type f -print0 | sort -z | xargs -0 sha256sum)" = "$src_sums" ] ||
	fail "SRC changed"

say "mounted elsewhere: the same answers through MNT, and from SRC while served"
mount_fs -o rescan=0
wait_idle
"$SB" similar "$MNT/a/base.txt" --tsv >"$T/sim2" 2>"$T/err" || fail "similar on MNT: $(cat "$T/err")"
diff "$T/sim" "$T/sim2" >/dev/null || fail "MNT answer differs: $(cat "$T/sim2")"
"$SB" similar "$SRC/a/base.txt" --tsv >"$T/sim3" 2>"$T/err" || fail "similar on SRC while served: $(cat "$T/err")"
diff "$T/sim" "$T/sim3" >/dev/null || fail "SRC answer differs: $(cat "$T/sim3")"
rc=0; "$SB" index "$SRC" >/dev/null 2>"$T/err" || rc=$?
[ "$rc" -eq 3 ] && grep -q "nothing to do" "$T/err" || fail "index of served SRC: rc $rc: $(cat "$T/err")"
umount_fs
exit 0
