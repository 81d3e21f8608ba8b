#!/usr/bin/env bash
# rclbench.sh - round trip of the Redis client (src/index/rcl.c) on loopback:
# microseconds per SET, one at a time and pipelined 100 to a round trip, on
# a single node and on a 3+3 cluster, each beside redis-benchmark (the
# server's own C client, one connection) run in the same place and time.
#   bench/rclbench.sh [BUILD] [N]       (default: build 20000)
set -euo pipefail
export SIMBOOK_BUILD=$(cd "${1:-build}" && pwd)
n=${2:-20000}
export REDIS_CASE_TIMEOUT=600
source "$(dirname "$0")/../tests/integration/redislib.sh"
command -v redis-benchmark >/dev/null || skip "no redis-benchmark"

baseline() { # port pipeline -> microseconds per request
	local rps
	rps=$(redis-benchmark -h 127.0.0.1 -p "$1" -c 1 -n "$n" -P "$2" -t set -q --csv |
		awk -F'"' '/SET/ { print $4 }')
	awk -v r="$rps" 'BEGIN { printf "%.2f", 1e6 / r }'
}

report() { # name port uri
	local out cmd pip b1 b100
	out=$("$RCLTEST" "$3" bench "$n")
	cmd=$(sed -n 's/.*command_us=\([0-9.]*\).*/\1/p' <<<"$out")
	pip=$(sed -n 's/.*pipelined_us=\([0-9.]*\).*/\1/p' <<<"$out")
	b1=$(baseline "$2" 1)
	b100=$(baseline "$2" 100)
	printf '| %s | %s | %s | %.2f | %s | %s | %.2f |\n' "$1" "$cmd" "$b1" \
		"$(awk -v a="$cmd" -v b="$b1" 'BEGIN { print a / b }')" "$pip" "$b100" \
		"$(awk -v a="$pip" -v b="$b100" 'BEGIN { print a / b }')"
}

echo "| server | rcl us/command | redis-benchmark us | ratio | rcl us/pipelined | redis-benchmark -P 100 us | ratio |"
echo "|---|---|---|---|---|---|---|"
redis_single
report "single node" "$REDIS_PORT" "$REDIS_URI"
redis_cluster
# redis-benchmark's key (key:__rand_int__, not replaced without -r) goes to
# the master that owns it: the one that takes a SET of it
owner=$(for p in $(redis_masters); do
	[ "$(rcli "$p" set key:__rand_int__ 1 2>/dev/null)" = OK ] && echo "$p"; done)
report "cluster (3+3)" "$owner" "$CLUSTER_URI"
