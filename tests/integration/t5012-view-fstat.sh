#!/usr/bin/env bash
# t5012-view-fstat: an fd open on a book or a view file stays fstat()-able
# while its book is deleted, written again and renamed: fstat() sends
# GETATTR without a handle, by path, so a book's .similar.tsv must still be
# found after the book has gone (rsync -aL in t5010 reports "fstat failed:
# No such file or directory" otherwise).  fstatchurn.py opens
# the books, their similar/ links and .similar.tsv files in three threads
# while a fourth churns the names; any fstat() or read() error fails.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "no python3"
FS_ARGS=()

python3 "$(dirname "$0")/genlib.py" "$T/lib"
mount_fs -o rescan=0
cp -r "$T/lib/." "$MNT/"
for i in 1 2 3; do cp "$T/lib/a/base1.txt" "$MNT/copy$i.txt"; done
for i in $(seq 1 300); do
	grep -q '"state":"idle"' "$MNT/.simbookfs/status" && break
	sleep 0.1
done
out=$(timeout 60 python3 "$(dirname "$0")/fstatchurn.py" "$MNT" "${SIMBOOK_CHURN_SECONDS:-8}") ||
	fail "fstat or read failed on an open fd: $out"
say "$out"
umount_fs
