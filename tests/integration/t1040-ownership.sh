#!/usr/bin/env bash
# Mounted by root with allow_other: what a user creates belongs to that user
# (and to the group of a setgid directory), and permission checks are the
# underlying filesystem's (default_permissions).
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root"
command -v setpriv >/dev/null 2>&1 || skip "no setpriv"
U=65534 G=65534
as_user() { setpriv --reuid=$U --regid=$G --clear-groups -- "$@"; }
chmod 755 "$T"
mkdir "$SRC/pub" "$SRC/sgid" "$SRC/closed"
chmod 1777 "$SRC/pub"
chgrp 100 "$SRC/sgid"; chmod 2777 "$SRC/sgid"
chmod 700 "$SRC/closed"
echo secret >"$SRC/secret"; chmod 600 "$SRC/secret"
echo rootfile >"$SRC/pub/rootfile"; chmod 644 "$SRC/pub/rootfile"
mount_fs -o allow_other

owner() { stat -c '%u:%g' "$1"; }
as_user sh -c "umask 022; echo x >'$MNT/pub/f'; mkdir '$MNT/pub/d'; ln -s f '$MNT/pub/s'; mkfifo '$MNT/pub/p'; ln '$MNT/pub/f' '$MNT/pub/h'"
for n in f d s p h; do
	[ "$(owner "$SRC/pub/$n")" = "$U:$G" ] || fail "pub/$n owned by $(owner "$SRC/pub/$n")"
	[ "$(owner "$MNT/pub/$n")" = "$U:$G" ] || fail "mount pub/$n owned by $(owner "$MNT/pub/$n")"
done
[ "$(stat -c %a "$SRC/pub/f")" = 644 ] && [ "$(stat -c %a "$SRC/pub/d")" = 755 ] || fail "umask not applied"

say "setgid directory: new nodes take its group, new dirs stay setgid"
as_user sh -c "echo y >'$MNT/sgid/f'; mkdir '$MNT/sgid/d'"
[ "$(owner "$SRC/sgid/f")" = "$U:100" ] || fail "sgid/f owned by $(owner "$SRC/sgid/f")"
[ "$(owner "$SRC/sgid/d")" = "$U:100" ] || fail "sgid/d owned by $(owner "$SRC/sgid/d")"
[ "$(stat -c %A "$SRC/sgid/d" | cut -c7)" = s ] || fail "sgid/d lost setgid: $(stat -c %A "$SRC/sgid/d")"

say "permission checks as on SRC"
expect_denied() { # errtext cmd...
	local want=$1; shift
	if as_user "$@" 2>"$T/err"; then fail "allowed: $*"; fi
	grep -q "$want" "$T/err" || fail "$*: $(cat "$T/err")"
}
expect_denied "Permission denied" cat "$MNT/secret"
expect_denied "Permission denied" ls "$MNT/closed"
expect_denied "Permission denied" touch "$MNT/newfile"
expect_denied "Permission denied" sh -c "echo z >>'$MNT/pub/rootfile'"
expect_denied "Operation not permitted" rm "$MNT/pub/rootfile"
expect_denied "Operation not permitted" chmod 777 "$MNT/pub/rootfile"
expect_denied "Operation not permitted" chown $U "$MNT/pub/rootfile"
as_user chmod 600 "$MNT/pub/f"
[ "$(stat -c %a "$SRC/pub/f")" = 600 ] || fail "owner chmod"
as_user rm "$MNT/pub/f" "$MNT/pub/h"
[ ! -e "$SRC/pub/f" ] || fail "owner rm"
[ "$(cat "$MNT/secret")" = secret ] || fail "root read"
umount_fs
echo ok
