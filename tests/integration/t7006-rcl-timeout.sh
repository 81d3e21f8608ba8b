#!/usr/bin/env bash
# A server that stops answering (SIGSTOP) makes a command fail with
# ETIMEDOUT within the deadline (no hang) and recover once it runs again;
# a server that is gone gives ECONNREFUSED within the deadline.
source "$(dirname "$0")/redislib.sh"
redis_single
export RCL_TIMEOUT_MS=300 RCL_DEADLINE_MS=1500
coproc CL { "$RCLTEST" "$REDIS_URI" repl 2>&1; }
# bash unsets CL and CL_PID when it reaps the coprocess, which may come
# before the last lines below: keep the pid and the write end
cl_pid=$CL_PID cl_in=${CL[1]}
ask() {
	echo "$1" >&"${CL[1]}"
	read -r -t 30 reply <&"${CL[0]}" || fail "no reply to: $1"
	echo "$reply"
}
[ "$(ask 'k SET k 1')" = OK ] || fail "SET"
kill -STOP "${REDIS_PIDS[$REDIS_PORT]}"
t0=${EPOCHREALTIME/./}
r=$(ask 'k GET k')
t1=${EPOCHREALTIME/./}
ms=$(((t1 - t0) / 1000))
say "stopped server: $r after $ms ms"
[ "$r" = "(errno) ETIMEDOUT" ] || fail "stopped server: $r"
# deadline 1500 ms + one timeout 300 ms, and slack for a loaded machine
[ "$ms" -ge 1400 ] && [ "$ms" -lt 4000 ] || fail "took $ms ms"
kill -CONT "${REDIS_PIDS[$REDIS_PORT]}"
[ "$(ask 'k GET k')" = 1 ] || fail "no recovery after SIGCONT"
redis_kill "$REDIS_PORT"
t0=${EPOCHREALTIME/./}
r=$(ask 'k GET k')
t1=${EPOCHREALTIME/./}
ms=$(((t1 - t0) / 1000))
say "dead server: $r after $ms ms"
[ "$r" = "(errno) ECONNREFUSED" ] || fail "dead server: $r"
[ "$ms" -lt 4000 ] || fail "took $ms ms"
exec {cl_in}>&-
wait "$cl_pid" 2>/dev/null || true
# no server at all: rcl_open gives up at the deadline
t0=${EPOCHREALTIME/./}
out=$("$RCLTEST" "$REDIS_URI" repl </dev/null 2>&1) && fail "connected to nothing"
t1=${EPOCHREALTIME/./}
grep -q ECONNREFUSED <<<"$out" || fail "open: $out"
[ $(((t1 - t0) / 1000)) -lt 4000 ] || fail "open took too long"
say "ok"
