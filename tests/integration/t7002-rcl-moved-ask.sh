#!/usr/bin/env bash
# A slot migrated under a running client: during the migration a new key
# of the slot is answered with ASK by the source (the client must send
# ASKING and the command to the target), afterwards the slot's keys are
# answered with MOVED by the old owner (the client must update its map).
# A session opened on the source before the move ends with EAGAIN at the
# first MOVED; a new one reaches the new owner.  The client keeps one
# process (and its slot map) through the whole move.
source "$(dirname "$0")/redislib.sh"
redis_cluster
p0=${CLUSTER_PORTS[0]}
slot=$(rcli "$p0" cluster keyslot '{mv}')
src=
dst=
for p in $(redis_masters); do
	if rcli "$p" cluster countkeysinslot "$slot" >/dev/null &&
		rcli "$p" cluster nodes | grep myself | awk -v s="$slot" '
			{ for (i = 9; i <= NF; i++) { split($i, r, "-"); if (r[2] == "") r[2] = r[1];
			  if (s >= r[1] && s <= r[2]) f = 1 } } END { exit !f }'; then
		src=$p
	elif [ -z "$dst" ]; then
		dst=$p
	fi
done
[ -n "$src" ] && [ -n "$dst" ] || fail "no source/target for slot $slot"
src_id=$(redis_node_id "$src")
dst_id=$(redis_node_id "$dst")
say "slot $slot: $src -> $dst"

coproc CL { "$RCLTEST" "$CLUSTER_URI" repl 2>&1; }
# bash unsets CL and CL_PID when it reaps the coprocess, which may come
# before the last lines below: keep the pid and the write end
cl_pid=$CL_PID cl_in=${CL[1]}
ask() { # line -> reply
	echo "$1" >&"${CL[1]}"
	read -r -t 30 reply <&"${CL[0]}" || fail "no reply to: $1"
	echo "$reply"
}
[ "$(ask '{mv}a SET {mv}a 1')" = OK ] || fail "SET before"
[ "$(ask '{mv}a GET {mv}a')" = 1 ] || fail "GET before"
# a session opened on the source before the move
[ "$(ask '@open {mv}a')" = OK ] || fail "session open"
[ "$(ask '@cmd GET {mv}a')" = 1 ] || fail "session GET before"

rcli "$dst" cluster setslot "$slot" importing "$src_id" >/dev/null
rcli "$src" cluster setslot "$slot" migrating "$dst_id" >/dev/null
# an existing key is still served by the source; a new one is ASKed away
[ "$(ask '{mv}a GET {mv}a')" = 1 ] || fail "GET during"
r=$(ask '{mv}b SET {mv}b 2')
[ "$r" = OK ] || fail "SET of a new key during the migration (ASK): $r"
[ "$(rcli "$dst" cluster countkeysinslot "$slot")" -eq 1 ] || fail "the ASKed key is not on the target"
# the source has no such key: it sends askers on
rcli "$src" exists '{mv}b' | grep '^ASK ' >/dev/null || fail "the ASKed key is on the source"
[ "$(ask '{mv}b GET {mv}b')" = 2 ] || fail "GET of the ASKed key"

rcli "$src" migrate 127.0.0.1 "$dst" "" 0 5000 keys '{mv}a' >/dev/null
for p in $(redis_masters); do
	rcli "$p" cluster setslot "$slot" node "$dst_id" >/dev/null
done
[ "$(rcli "$src" get '{mv}a' 2>&1 | grep -c MOVED)" -eq 1 ] || fail "the source does not answer MOVED"
# the session is on the old owner: MOVED ends it with EAGAIN, for good
r=$(ask '@cmd GET {mv}a')
[ "$r" = "(errno) EAGAIN" ] || fail "session after the move: $r"
[ "$(ask '@cmd PING')" = "(errno) EAGAIN" ] || fail "a dead session answered"
[ "$(ask '@close')" = OK ] || fail "session close"
# the client still maps the slot to the source: MOVED, then the target
[ "$(ask '{mv}a GET {mv}a')" = 1 ] || fail "GET after the move (MOVED)"
[ "$(ask '{mv}c SET {mv}c 3')" = OK ] || fail "SET after the move"
[ "$(rcli "$dst" cluster countkeysinslot "$slot")" -eq 3 ] || fail "keys not on the new owner"
# a new session goes to the new owner
[ "$(ask '@open {mv}a')" = OK ] || fail "session reopen"
[ "$(ask '@cmd GET {mv}c')" = 3 ] || fail "session on the new owner"
exec {cl_in}>&-
wait "$cl_pid" 2>/dev/null || true
say "ok"
