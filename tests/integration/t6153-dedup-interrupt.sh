#!/usr/bin/env bash
# t6153-dedup-interrupt: a file changed between the plan and the act is
# skipped (--pause-before-act stops simbook dedup there; the test changes a
# copy through the mount, then continues it), for byte copies and for
# same-text groups; SIGINT before acting changes nothing (exit 130); SIGINT
# in the middle of deleting 60 groups leaves every group a member.
. "$(dirname "$0")/deduplib.sh"
# 60 groups of 3 copies each, for the interrupted deletion
many() {
	python3 - "$(dirname "$0")" "$1/many" <<'PY'
import os, sys
sys.path.insert(0, sys.argv[1])
import wordgen
g = wordgen.Gen(11)
for i in range(60):
    t = g.text(100 + i, 800)
    for c in range(3):
        os.makedirs(os.path.join(sys.argv[2], "g%02d" % i), exist_ok=True)
        wordgen.put(sys.argv[2], "g%02d/copy%d.txt" % (i, c), t)
PY
}
dd_setup many
until_ok 20 test "$(ls "$MNT/duplicates" | wc -l)" -ge 63 || fail "duplicates/: $(ls "$MNT/duplicates" | wc -l) groups"
cd "$MNT"

# paused ARGS...: starts simbook dedup ARGS --pause-before-act in the
# background and waits until it has stopped itself; its pid in DPID.
paused() {
	"$SB" dedup --pause-before-act "$@" >"$T/out" 2>"$T/err" &
	DPID=$!
	local i st
	for i in $(seq 1 200); do
		st=$(cat "/proc/$DPID/stat" 2>/dev/null) || break
		st=${st##*) }
		[ "${st%% *}" = T ] && return 0
		sleep 0.05
	done
	fail "simbook dedup did not pause: $(cat "$T/err")"
}
resume() { kill -CONT "$DPID"; wait_exit "$DPID" 30; }

snap "$SRC" >"$T/before"
paused --delete a
echo "one more line" >>"$MNT/x/y/wallpaper-second-copy.txt"
resume
snap "$SRC" >"$T/after"
[ "$EXIT_RC" -eq 0 ] || fail "exit $EXIT_RC: $(cat "$T/err")"
[ "$(changes "$T/before" "$T/after")" = "gone a/wallpaper.txt
content x/y/wallpaper-second-copy.txt" ] || fail "changes: $(changes "$T/before" "$T/after")"
grep -qx "skipped	delete	$MNT/x/y/wallpaper-second-copy.txt	(changed since the plan: not the same bytes as the kept file)" "$T/out" ||
	fail "no skip line: $(cat "$T/out")"
say "a byte copy changed after the plan is skipped"

snap "$SRC" >"$T/before"
paused --delete --relation same-text --yes-different-bytes --prefer-format epub base2.epub
python3 -c "import sys; p=sys.argv[1]; open(p,'a').write('A new closing paragraph, not in the other copies at all.\n')" "$MNT/base2-copy.txt"
resume
snap "$SRC" >"$T/after"
[ "$(changes "$T/before" "$T/after")" = "content base2-copy.txt
gone base2.txt" ] || fail "same-text changes: $(changes "$T/before" "$T/after")"
grep -q "^skipped	delete	$MNT/base2-copy.txt	(changed since the plan)" "$T/out" || fail "same-text skip: $(cat "$T/out")"
say "a same-text copy changed after the plan is skipped"

snap "$SRC" >"$T/before"
paused --delete many
kill -INT "$DPID"
resume
snap "$SRC" >"$T/after"
[ "$EXIT_RC" -eq 130 ] || fail "SIGINT before acting: exit $EXIT_RC"
[ -z "$(changes "$T/before" "$T/after")" ] || fail "SIGINT before acting changed: $(changes "$T/before" "$T/after")"
grep -q "0 done (delete).*; interrupted$" "$T/out" || fail "summary: $(tail -n 1 "$T/out")"
say "SIGINT before acting: nothing changed, exit 130"

paused --delete many
kill -CONT "$DPID"
sleep 0.03
kill -INT "$DPID" 2>/dev/null || true
wait_exit "$DPID" 30
snap "$SRC" >"$T/after"
say "exit $EXIT_RC after SIGINT mid-way: $(grep -c '^done' "$T/out") files deleted"
[ "$EXIT_RC" -eq 130 ] || [ "$EXIT_RC" -eq 0 ] || fail "SIGINT mid-way: exit $EXIT_RC: $(cat "$T/err")"
python3 - "$T/before" "$T/after" <<'PY' || fail "a group lost every member"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
groups = {}
for p, v in a.items():
    if p.startswith("many/"):
        groups.setdefault(v[1], set()).add(p)
left = {v[1] for p, v in b.items() if p.startswith("many/")}
lost = [g for g in groups if g not in left]
changed = [p for p in b if p in a and b[p][:2] != a[p][:2]]
assert len(groups) == 60 and not lost and not changed, (len(groups), lost, changed)
PY
cd /
umount_fs
