#!/usr/bin/env bash
# t5010-views-churn: the views while books are deleted, renamed and written
# again: find -L, du -L, rsync -aL and os.walk(followlinks=True) over them
# always terminate, never meet a loop, and never follow a link into a
# folder.  A file that vanishes between the listing and the copy (rsync exit
# 24) is expected while books move; so is, rarely, a link whose target goes
# between rsync following it and reading it (counted and printed).  A book
# deleted while rsync copies it, and its .similar.tsv, stay readable and
# fstat()-able through rsync's fd (exit 11 fails: ESTALE, or ENOENT from
# an open .similar.tsv whose book has gone, which t5012 checks directly).
# Once the churn stops, every entry resolves.  SIMBOOK_VIEWMODE=files runs
# it all with -o viewmode=files (t5011), where every entry is a read-only
# file and rsync -a copies books.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "no python3"
command -v rsync >/dev/null || skip "no rsync"
MODE=${SIMBOOK_VIEWMODE:-links}
FS_ARGS=(-o "viewmode=$MODE")
say "view mode: $MODE"

LIB=$T/lib
python3 "$(dirname "$0")/genlib.py" "$LIB"
for i in 1 2 3; do cp "$LIB/a/base1.txt" "$LIB/copy$i.txt"; done
mount_fs -o rescan=0
cp -r "$LIB/." "$MNT/"
for i in $(seq 1 600); do
	grep -q '"state":"idle"' "$MNT/.simbookfs/status" && break
	sleep 0.1
done

# Churn in the background for 5 s, and on until the readers below have
# made two rounds over the views (a slow, busy machine takes longer per
# round), at most 120 s.
(
	end=$((SECONDS + 5)) hard=$((SECONDS + 120))
	while { [ $SECONDS -lt $end ] || [ ! -e "$T/enough" ]; } && [ $SECONDS -lt $hard ] &&
		[ -d "$LIB" ]; do
		for i in 1 2 3; do
			rm -f "$MNT/copy$i.txt"
			mv "$MNT/b/base1-near.txt" "$MNT/b/moving.txt" 2>/dev/null || true
			cp "$LIB/a/base1.txt" "$MNT/copy$i.txt"
			mv "$MNT/b/moving.txt" "$MNT/b/base1-near.txt" 2>/dev/null || true
		done
	done
) &
churn=$!

rounds=0 vanished=0 dangling=0
while kill -0 "$churn" 2>/dev/null; do
	rounds=$((rounds + 1))
	timeout 20 find -L "$MNT/similar" "$MNT/clusters" "$MNT/duplicates" >/dev/null 2>"$T/find.err" || true
	grep -qi "loop" "$T/find.err" && fail "find -L: $(cat "$T/find.err")"
	rm -rf "$T/dest"
	rc=0
	timeout 20 rsync -aL "$MNT/similar/" "$T/dest/" >/dev/null 2>"$T/rsync.err" || rc=$?
	case $rc in
	0) ;;
	23 | 24)
		# A link's target can go between following it and reading it
		# (a symlink cannot be atomic with its target): counted.
		dangling=$((dangling + $(grep -c "no referent" "$T/rsync.err" || true)))
		vanished=$((vanished + 1)) ;;
	*) fail "rsync -aL exit $rc: $(grep -v "has vanished" "$T/rsync.err" | head -n 10) $(head -n 3 "$T/rsync.err")" ;;
	esac
	timeout 20 du -sL "$MNT/similar" >/dev/null 2>&1 || true
	timeout 20 python3 - "$MNT" <<'PY' || fail "os.walk(followlinks=True) failed"
import os, sys
mnt = sys.argv[1]
for view in ("similar", "clusters", "duplicates"):
    for d, ds, fs in os.walk(os.path.join(mnt, view), followlinks=True):
        for x in ds:
            p = os.path.join(d, x)
            if os.path.islink(p):
                sys.exit("link to a folder: " + p)
PY
	# nothing in the copies is a folder reached through a link
	[ -z "$(find "$T/dest" -mindepth 2 -type d -path '*/*% *' 2>/dev/null)" ] || fail "rsync followed a link into a folder"
	[ "$rounds" -ge 2 ] && : >"$T/enough"
done
wait "$churn"
say "$rounds rounds over the churning views, $vanished with a file vanishing mid-copy, $dangling links whose target went while rsync followed them"
[ "$rounds" -ge 2 ] || fail "too few rounds"

# After the churn settles, every listed entry resolves.
sleep 1
entries=0
for e in "$MNT"/similar/*/ "$MNT"/similar/*/*/; do
	for l in "$e"*; do
		[ -e "$l" ] || [ -L "$l" ] || continue	# an empty folder's glob
		if [ "$MODE" = files ]; then
			[ -d "$l" ] && continue
			[ -f "$l" ] && [ ! -L "$l" ] || fail "not a regular file in files mode: $l"
		else
			[ -L "$l" ] || continue
			[ -f "$l" ] || fail "dangling after the churn: $l"
		fi
		entries=$((entries + 1))
	done
done
[ "$entries" -ge 3 ] || fail "only $entries entries after the churn"
timeout 20 rsync -aL "$MNT/similar/" "$T/dest2/" || fail "rsync -aL after the churn"
# Without -L: links stay links in links mode; files mode copies the books.
timeout 20 rsync -a "$MNT/similar/" "$T/dest3/" || fail "rsync -a after the churn"
links=$(find "$T/dest3" -type l | wc -l)
files=$(find "$T/dest3" -type f ! -name .similar.tsv | wc -l)
say "rsync -a copied $files files and $links links"
if [ "$MODE" = files ]; then
	[ "$links" -eq 0 ] && [ "$files" -eq "$entries" ] || fail "rsync -a in files mode: $files files, $links links, $entries entries"
else
	[ "$files" -eq 0 ] && [ "$links" -eq "$entries" ] || fail "rsync -a in links mode: $files files, $links links, $entries entries"
fi
# Books deleted while open lived on under .fuse_hidden names: gone with the
# last close, and never shown by a view.
[ -z "$(find "$SRC" -name '.fuse_hidden*')" ] || fail "hidden files left: $(find "$SRC" -name '.fuse_hidden*')"
! find "$T/dest" "$T/dest2" "$MNT/similar" "$MNT/clusters" "$MNT/duplicates" -name '*fuse_hidden*' 2>/dev/null | grep -q . ||
	fail "a view showed a hidden file"
echo ok
