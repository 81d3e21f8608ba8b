#!/usr/bin/env bash
# Hard links with the default (long) attribute cache: a link, unlink,
# rename over a name, chmod, chown, utime, write or truncate through one
# name of a file shows at once through its other names (link count, ctime,
# mode, owner, times, size), for regular files, FIFOs, sockets and (as
# root) device nodes.  The mount has the default options (cache_timeout
# 3600): without the daemon's tracking of names the other names keep their
# old attributes for an hour, and the checks fail (as they did before it).
. "$(dirname "$0")/lib.sh"

mount_fs
timeout 60 python3 "$top/tests/integration/hardlinks.py" "$MNT" "$SRC" ops || fail "hard-link checks"
umount_fs
echo ok
