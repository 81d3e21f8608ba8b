#!/usr/bin/env bash
# Hard links the kernel learnt from a listing with attributes (ls -l: no
# lookup), names below a folder renamed while cached, and names at the
# path length limits stay coherent; a file with one name keeps its long
# attribute cache (a change behind the mount is not seen until it ends).
. "$(dirname "$0")/lib.sh"

mount_fs
timeout 60 python3 "$top/tests/integration/hardlinks.py" "$MNT" "$SRC" listed || fail "listed hard links"
timeout 60 python3 "$top/tests/integration/hardlinks.py" "$MNT" "$SRC" single || fail "single-name cache"
umount_fs
echo ok
