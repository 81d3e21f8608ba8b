#!/usr/bin/env bash
# t7205: a mount whose index is on a Redis server that goes away.
#  1. Mid-run: the server is killed (kill -9); books are copied in, one is
#     renamed, one deleted through the mount.  Every file is still served
#     (cp, cat, ls, stat) at once, .simbookfs/status says the index is
#     "unavailable" with the connection error and since when, the views
#     answer (empty) without waiting, and the changes wait in the journal.
#     The server comes back: within a bounded time the new books are in
#     similar/, the renamed one under its new name, the deleted one gone,
#     the journal empty.
#  2. Killed again, a book copied in, the daemon stopped: the journal is on
#     disk.  A daemon started while the server is still down serves the
#     files and says "unavailable"; another book is copied in.  The server
#     comes back: both books are listed, the journal is empty.
# The server keeps an append-only file, as a production one would, so a
# restart finds the index it had.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/viewlib.sh"
REDIS_CASE_TIMEOUT=300
SIMBOOK_CASE_TIMEOUT=300
. "$(dirname "$0")/redislib.sh"
trap '_rc=$?; set +e; ( (exit $_rc); lib_cleanup ); (exit $_rc); redis_cleanup' EXIT
command -v python3 >/dev/null || skip "no python3"
FS_ARGS=()

mkdir -p "$T/gen"
python3 - "$(dirname "$0")" "$T/gen" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import wordgen
d, g = sys.argv[2], wordgen.Gen(7205)
wordgen.put(d, "base.txt", g.text(1, 4000))
for i in range(6):
    wordgen.put(d, "near-%02d.txt" % i, g.text(1, 4000, 100 + i, 0.01 + 0.002 * i))
wordgen.put(d, "other.txt", g.text(2, 4000))
PY
head -c $((32 << 20)) /dev/urandom >"$T/gen/big.bin"

REDIS_PORT=$(redis_free_port)
redis_start_node "$REDIS_PORT" --cluster-enabled no --appendonly yes --appendfsync always
URI="redis://127.0.0.1:$REDIS_PORT/down"
STATE=$T/state
ST=$MNT/.simbookfs/status

cp "$T/gen/base.txt" "$T/gen/near-00.txt" "$T/gen/near-05.txt" "$T/gen/other.txt" \
	"$T/gen/big.bin" "$SRC/"
mount_fs -o "index=$URI" -o "state_dir=$STATE" -o rescan=0
wait_idle 60
until_ok 20 has_entry base.txt near-00.txt || fail "near-00.txt not listed before the outage"
until_ok 20 has_entry base.txt near-05.txt || fail "near-05.txt not listed before the outage"

# seconds to read the big file through the mount
read_secs() {
	local t0 t1
	t0=$(date +%s.%N)
	cat "$MNT/big.bin" >/dev/null
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc -l
}
command -v bc >/dev/null || skip "no bc"
up_secs=$(read_secs)

unavailable() { grep -q '"state":"unavailable"' "$ST"; }
journal_entries() { sed -n 's/.*"journal":{[^}]*"entries":\([0-9]*\).*/\1/p' "$ST"; }

# ---- 1. the server goes away mid-run ----
say "killing the server"
redis_kill "$REDIS_PORT"
# the status is read at once, not an error, even while the client still
# retries (the first read after the kill)
timeout 10 cat "$ST" >/dev/null || fail "status unreadable as the server went away"
cp "$T/gen/near-01.txt" "$MNT/" || fail "copy near-01 while down"
cp "$T/gen/near-02.txt" "$MNT/tmp-02.part" || fail "copy tmp-02 while down"
mv "$MNT/tmp-02.part" "$MNT/near-02.txt" || fail "rename into place while down"
mv "$MNT/near-00.txt" "$MNT/renamed-00.txt" || fail "rename near-00 while down"
rm "$MNT/near-05.txt" || fail "delete near-05 while down"
until_ok 30 unavailable || fail "status does not say unavailable: $(cat "$ST")"
grep -q '"reason":"[^"]*[Cc]onnection refused' "$ST" || fail "no reason in: $(cat "$ST")"
grep -q '"since":"20[0-9-]*T[0-9:]*Z"' "$ST" || fail "no since in: $(cat "$ST")"
# the passthrough serves every file, at once
timeout 5 cmp "$T/gen/near-01.txt" "$MNT/near-01.txt" || fail "cat of a book while down"
timeout 5 cmp "$T/gen/near-02.txt" "$MNT/near-02.txt" || fail "cat of a renamed book while down"
timeout 5 stat "$MNT/renamed-00.txt" >/dev/null || fail "stat while down"
[ "$(timeout 5 ls "$MNT" | grep -c '\.txt$')" -eq 5 ] || fail "ls while down: $(ls "$MNT")"
timeout 5 cp "$MNT/other.txt" "$T/other.copy" && cmp "$T/other.copy" "$T/gen/other.txt" ||
	fail "cp out of the mount while down"
down_secs=$(read_secs)
say "reading 32 MiB through the mount: $up_secs s with the server, $down_secs s without"
# the views answer at once, empty (no half-known list)
[ -z "$(timeout 5 ls "$MNT/similar")" ] || fail "similar/ not empty while down"
timeout 5 ls "$MNT/clusters" >/dev/null || fail "clusters/ hangs while down"
until_ok 20 test "$(journal_entries)" -ge 3 || fail "the journal has not the changes: $(cat "$ST")"

say "the server is back"
redis_restart "$REDIS_PORT"
t_back=$(date +%s.%N)
until_ok 60 has_entry base.txt near-01.txt || fail "near-01.txt not listed after the outage"
until_ok 30 has_entry base.txt near-02.txt || fail "near-02.txt not listed after the outage"
until_ok 30 has_entry base.txt renamed-00.txt || fail "renamed-00.txt not listed after the outage"
t_listed=$(date +%s.%N)
until_ok 30 no_entry base.txt near-00.txt || fail "near-00.txt still listed after its rename"
until_ok 30 no_entry base.txt near-05.txt || fail "near-05.txt still listed after its delete"
! unavailable || fail "status still unavailable: $(cat "$ST")"
[ "$(journal_entries)" = 0 ] || fail "the journal was not emptied: $(cat "$ST")"
say "server back to books listed: $(echo "$t_listed - $t_back" | bc -l) s"
grep -q '"failed":0' "$ST" || fail "books failed: $(cat "$ST")"

# ---- 2. a daemon stopped and started while the server is away ----
say "killing the server again"
redis_kill "$REDIS_PORT"
cp "$T/gen/near-03.txt" "$MNT/" || fail "copy near-03 while down"
until_ok 30 unavailable || fail "status does not say unavailable: $(cat "$ST")"
until_ok 20 test "$(journal_entries)" -ge 1 || fail "near-03 not in the journal: $(cat "$ST")"
jpath=$(sed -n 's/.*"journal":{"path":"\([^"]*\)".*/\1/p' "$ST")
case $jpath in "$STATE"/down-*.journal) ;; *) fail "journal path $jpath not in $STATE" ;; esac
umount_fs
[ "$(stat -c %s "$jpath")" -gt 8 ] || fail "the journal is empty on disk after the stop"
mount_fs -o "index=$URI" -o "state_dir=$STATE" -o rescan=0
until_ok 30 unavailable || fail "a mount while down does not say unavailable: $(cat "$ST")"
timeout 5 cmp "$T/gen/near-03.txt" "$MNT/near-03.txt" || fail "cat after a restart while down"
cp "$T/gen/near-04.txt" "$MNT/" || fail "copy near-04 into a mount started while down"
[ -z "$(timeout 5 ls "$MNT/similar")" ] || fail "similar/ not empty while down"
say "the server is back"
redis_restart "$REDIS_PORT"
t_back=$(date +%s.%N)
until_ok 60 has_entry base.txt near-03.txt || fail "near-03.txt (before the restart) not listed"
until_ok 30 has_entry base.txt near-04.txt || fail "near-04.txt (after the restart) not listed"
t_listed=$(date +%s.%N)
say "server back to books listed, daemon started while down: $(echo "$t_listed - $t_back" | bc -l) s"
has_entry base.txt near-01.txt || fail "near-01.txt lost"
until_ok 10 test "$(journal_entries)" = 0 || fail "the journal was not emptied: $(cat "$ST")"
[ "$(stat -c %s "$jpath")" -eq 8 ] || fail "the journal file was not emptied"
echo "ok - files served while the index server was away; changes journaled, kept across a restart and applied when it came back"
umount_fs
