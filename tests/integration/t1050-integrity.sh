#!/usr/bin/env bash
# Data integrity: fsx.py's random writes, reads, truncates, mmap, hole
# punching and copy_file_range through the mount, checked against a shadow
# copy; several seeds run concurrently on their own files.  Afterwards SRC
# must equal, byte for byte, what the exerciser wrote.
. "$(dirname "$0")/lib.sh"

here=$(dirname "$0")
OPS=${SIMBOOK_FSX_OPS:-10000}
SEED=${SIMBOOK_FSX_SEED:-$RANDOM}
mount_fs
mkdir "$T/expect"
pids=()
for k in 0 1 2; do
	mkdir "$MNT/run$k" "$T/expect/run$k"
	python3 "$here/fsx.py" "$MNT/run$k" "$T/expect/run$k" --seed $((SEED + k)) --ops "$OPS" &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || fail "fsx failed (base seed $SEED: rerun with SIMBOOK_FSX_SEED=$SEED)"; done
diff -r "$T/expect" "$MNT" || fail "mount differs from the shadow copies"
umount_fs
diff -r "$T/expect" "$SRC" || fail "SRC differs from the shadow copies"
say "SRC matches byte for byte (base seed $SEED)"
echo ok
