#!/usr/bin/env bash
# cache_timeout=0: changes made to SRC behind the mount's back (new, grown,
# replaced and removed files) show through the mount at once; with the
# default long timeout, an unchanged file's cached pages survive re-opens
# while a file changed through the mount is re-read.
. "$(dirname "$0")/lib.sh"

printf 'one\n' >"$SRC/a"
mount_fs -o cache_timeout=0
[ "$(cat "$MNT/a")" = one ] || fail "initial read"
printf 'one\ntwo\nthree\n' >>"$SRC/a"
[ "$(stat -c %s "$MNT/a")" = 18 ] || fail "grown size not seen: $(stat -c %s "$MNT/a")"
[ "$(cat "$MNT/a")" = "$(printf 'one\none\ntwo\nthree')" ] || fail "grown content not seen"
printf 'new\n' >"$SRC/b"
[ "$(cat "$MNT/b")" = new ] || fail "new file not seen"
printf 'replaced\n' >"$SRC/b.tmp"; mv "$SRC/b.tmp" "$SRC/b"
[ "$(cat "$MNT/b")" = replaced ] || fail "replaced file not seen"
rm "$SRC/b"
[ ! -e "$MNT/b" ] || fail "removed file still seen"
umount_fs

mount_fs
printf 'cached\n' >"$MNT/c"
[ "$(cat "$MNT/c")" = cached ] || fail "read back"
printf 'changed through the mount\n' >"$MNT/c"
[ "$(cat "$MNT/c")" = "changed through the mount" ] || fail "stale data after a write through the mount"
truncate -s 3 "$MNT/c"
[ "$(cat "$MNT/c")" = cha ] || fail "stale data after truncate"
umount_fs
echo ok
