# redislib.sh - Redis servers for the client tests (source it first).
#
# Skips (exit 77) without redis-server and redis-cli.  Makes a private temp
# dir $RT, arms a watchdog (REDIS_CASE_TIMEOUT seconds, default 120) and an
# EXIT/INT/TERM/HUP/PIPE trap that kills every server it started (SIGCONT
# first, for a stopped one) and every program it left in the background,
# and removes $RT.  Servers listen on 127.0.0.1 only, on free ports, with
# no persistence.
#   redis_single            one node: $REDIS_PORT, $REDIS_URI
#   redis_cluster           3 masters + 3 replicas: $CLUSTER_PORTS (array),
#                           $CLUSTER_URI (two seeds)
#   rcli PORT ARGS...       redis-cli on 127.0.0.1:PORT
#   redis_masters           the ports of the cluster's masters now
#   redis_kill PORT         kill -9 the node on PORT
#   redis_restart PORT      start it again on the same port and dir
# $RCLTEST is the client driver (tests/prog/rcltest.c) of the build tested.
set -euo pipefail

rtop=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SIMBOOK_BUILD=${SIMBOOK_BUILD:-$rtop/build}
RCLTEST=$SIMBOOK_BUILD/tests/rcltest

skip() { echo "skip: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
say() { echo "# $*"; }

command -v redis-server >/dev/null 2>&1 || skip "no redis-server (apt-get install redis-server)"
command -v redis-cli >/dev/null 2>&1 || skip "no redis-cli (apt-get install redis-tools)"
[ -x "$RCLTEST" ] || fail "$RCLTEST is not built"

RT=$(mktemp -d "${TMPDIR:-/tmp}/simbook-redis.XXXXXX")
declare -A REDIS_PIDS=()
CLUSTER_PORTS=()

redis_cleanup() {
	local rc=$? p
	set +e
	trap - EXIT TERM INT HUP PIPE
	[ -n "${RWATCHDOG:-}" ] && kill "$RWATCHDOG" 2>/dev/null
	# the test's own background programs (drivers, coprocesses)
	for p in $(jobs -p); do
		[[ " ${REDIS_PIDS[*]} " == *" $p "* ]] || kill -9 "$p" 2>/dev/null
	done
	for p in "${REDIS_PIDS[@]}"; do
		kill -CONT "$p" 2>/dev/null
		kill -9 "$p" 2>/dev/null
	done
	for p in "${REDIS_PIDS[@]}"; do
		wait "$p" 2>/dev/null
	done
	if [ "$rc" -ne 0 ]; then
		for f in "$RT"/n*/log; do
			[ -s "$f" ] && { echo "--- $f (tail)"; tail -n 2 "$f"; }
		done
	fi
	rm -rf "$RT"
	exit "$rc"
}
trap redis_cleanup EXIT
trap 'echo "FAIL: interrupted or timed out" >&2; exit 124' TERM INT HUP PIPE
(
	trap 'kill $! 2>/dev/null; exit 0' TERM
	sleep "${REDIS_CASE_TIMEOUT:-120}" &
	wait $!
	echo "FAIL: watchdog: more than ${REDIS_CASE_TIMEOUT:-120} s" >&2
	kill -TERM $$
) &
RWATCHDOG=$!

rcli() { # port args...
	local p=$1; shift
	timeout 10 redis-cli -h 127.0.0.1 -p "$p" "$@"
}

# A port with its cluster bus port (+10000) free: nothing answers on either
# (a race with another program is possible, and then the start fails).
redis_free_port() {
	local p i
	for i in $(seq 200); do
		# below the kernel's ephemeral ports (32768-), bus port included
		p=$((20000 + RANDOM % 2700))
		{ (exec 3<>"/dev/tcp/127.0.0.1/$p") || (exec 3<>"/dev/tcp/127.0.0.1/$((p + 10000))"); } \
			2>/dev/null && continue
		[ -z "${REDIS_PIDS[$p]:-}" ] && { echo "$p"; return 0; }
	done
	fail "no free port"
}

# Starts (or restarts) the node on port with its extra arguments saved in
# its dir, and waits until it answers PING.
redis_start_node() { # port [args...]
	local port=$1 d=$RT/n$1 i
	shift
	mkdir -p "$d"
	[ $# -gt 0 ] && printf '%s\n' "$@" >"$d/args"
	mapfile -t args <"$d/args"
	(cd "$d" && exec redis-server --bind 127.0.0.1 --port "$port" --save '' \
		--appendonly no --daemonize no --protected-mode yes --dir "$d" \
		"${args[@]}" >>"$d/log" 2>&1) &
	REDIS_PIDS[$port]=$!
	for i in $(seq 300); do
		[ "$(rcli "$port" ping 2>/dev/null)" = PONG ] && return 0
		kill -0 "${REDIS_PIDS[$port]}" 2>/dev/null || fail "redis-server on port $port exited"
		sleep 0.05
	done
	fail "redis-server on port $port did not answer within 15 s"
}

redis_kill() { # port
	local p=${REDIS_PIDS[$1]}
	kill -9 "$p" 2>/dev/null || true
	wait "$p" 2>/dev/null || true
}

redis_restart() { # port
	redis_start_node "$1"
}

redis_single() {
	REDIS_PORT=$(redis_free_port)
	redis_start_node "$REDIS_PORT" --cluster-enabled no
	REDIS_URI="redis://127.0.0.1:$REDIS_PORT"
}

cluster_ok() { # port
	rcli "$1" cluster info 2>/dev/null | grep -q '^cluster_state:ok'
}

redis_cluster() {
	local i p addrs=()
	for i in 1 2 3 4 5 6; do
		p=$(redis_free_port)
		CLUSTER_PORTS+=("$p")
		redis_start_node "$p" --cluster-enabled yes --cluster-node-timeout 1000 \
			--cluster-config-file nodes.conf --cluster-replica-validity-factor 0 \
			--repl-diskless-sync-delay 0
		addrs+=("127.0.0.1:$p")
	done
	timeout 60 redis-cli --cluster create "${addrs[@]}" --cluster-replicas 1 \
		--cluster-yes >"$RT/create.log" 2>&1 || { cat "$RT/create.log"; fail "cluster create"; }
	for i in $(seq 200); do
		local all=1
		for p in "${CLUSTER_PORTS[@]}"; do
			cluster_ok "$p" || { all=0; break; }
		done
		[ $all -eq 1 ] && break
		sleep 0.1
	done
	[ $all -eq 1 ] || fail "the cluster did not reach cluster_state:ok"
	# every replica in sync (a failover needs one that has the data)
	for i in $(seq 200); do
		local up=0
		for p in "${CLUSTER_PORTS[@]}"; do
			rcli "$p" info replication | grep -q '^master_link_status:up' && up=$((up + 1))
		done
		[ $up -eq 3 ] && break
		sleep 0.1
	done
	[ $up -eq 3 ] || fail "the replicas did not sync"
	CLUSTER_URI="redis://127.0.0.1:${CLUSTER_PORTS[0]},127.0.0.1:${CLUSTER_PORTS[1]}"
}

redis_masters() {
	local p
	for p in "${CLUSTER_PORTS[@]}"; do
		rcli "$p" role 2>/dev/null | head -1 | grep -qx master && echo "$p"
	done
	return 0
}

redis_node_id() { # port
	rcli "$1" cluster myid
}
