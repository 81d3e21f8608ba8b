#!/usr/bin/env bash
# Hard links with the default (long) attribute cache: a link, unlink,
# rename over a name, chmod, chown, utime, write or truncate through one
# name of a file shows at once through its other names (link count, ctime,
# mode, owner, times, size), for regular files, FIFOs, sockets and (as
# root) device nodes; and, as a control, the same checks fail with the
# tracking of names out of the way only if the daemon has it: the mount is
# the default one (cache_timeout=3600).
. "$(dirname "$0")/lib.sh"

mount_fs
timeout 60 python3 "$top/tests/integration/hardlinks.py" "$MNT" "$SRC" ops || fail "hard-link checks"
umount_fs
echo ok
