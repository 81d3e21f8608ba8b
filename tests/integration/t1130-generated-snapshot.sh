#!/usr/bin/env bash
# A generated file (.similar.tsv, .simbookfs/status, errors,
# not-duplicates) reads as what stat said, under churn: books are renamed
# and deleted through the mount every 0.2 s while stat+open+fstat+read
# loops compare sizes (snapread.py) and rsync -aL copies the listings
# without "read errors mapping" (the file changing under it).
# SIMBOOK_VIEWMODE=files runs it with -o viewmode=files (t1131).
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "no python3"
command -v rsync >/dev/null || skip "no rsync"
FS_ARGS=(-o "viewmode=${SIMBOOK_VIEWMODE:-links}")

LIB=$T/lib
python3 "$(dirname "$0")/genlib.py" "$LIB" --variants 4
mount_fs -o rescan=0
cp -r "$LIB/." "$MNT/"
. "$(dirname "$0")/viewlib.sh"
wait_idle 90

(
	end=$((SECONDS + ${CHURN_SECS:-20}))
	while [ $SECONDS -lt $end ] && [ -d "$LIB" ]; do
		rm -f "$MNT/base2-copy.txt"
		mv "$MNT/b/base1-near.txt" "$MNT/b/moving.txt" 2>/dev/null || true
		sleep 0.2
		cp "$LIB/base2-copy.txt" "$MNT/base2-copy.txt"
		mv "$MNT/b/moving.txt" "$MNT/b/base1-near.txt" 2>/dev/null || true
		rm -f "$MNT/near/001-base1.txt"
		sleep 0.2
		cp "$LIB/near/001-base1.txt" "$MNT/near/001-base1.txt"
	done
) &
churn=$!

timeout 60 python3 "$(dirname "$0")/snapread.py" "$MNT" "${CHURN_SECS:-20}" >"$T/snapread.out" 2>&1 &
reader=$!
rounds=0
while kill -0 "$churn" 2>/dev/null; do
	rounds=$((rounds + 1))
	rm -rf "$T/dest"
	rc=0
	timeout 30 rsync -aL --include='*/' --include='.similar.tsv' --exclude='*' \
		"$MNT/similar/" "$T/dest/" >/dev/null 2>"$T/rsync.err" || rc=$?
	if grep -E "read errors mapping|changed|verification" "$T/rsync.err"; then
		fail "rsync -aL round $rounds (exit $rc) met a changing file"
	fi
	case $rc in 0 | 23 | 24) ;; *) fail "rsync -aL exit $rc: $(head -n 5 "$T/rsync.err")" ;; esac
	[ $rounds -lt 40 ] || break
done
wait "$churn"
wait "$reader" || fail "stat and read disagree: $(cat "$T/snapread.out")"
say "$(cat "$T/snapread.out"); rsync rounds: $rounds"
umount_fs
echo ok
