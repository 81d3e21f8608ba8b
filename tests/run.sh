#!/usr/bin/env bash
# Runs every unit test program and every integration script against the
# binaries in BUILD (default: build), each under a timeout, and prints one
# closing line: "N passed, N failed, N skipped".  Exit code 77 from a test
# means skipped.  Set TESTS to a glob to run a subset (e.g. TESTS='*mount*').
set -u
BUILD=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
export SIMBOOK_BUILD="$top/$BUILD"
export SIMBOOK_TOP="$top"
export SIMBOOK_BOOKS="${SIMBOOK_BOOKS:-$top/../shared/books}"
pattern=${TESTS:-*}
timeout_unit=${TEST_TIMEOUT_UNIT:-300}
timeout_integ=${TEST_TIMEOUT_INTEG:-600}
pass=0 fail=0 skip=0 failed_names=()
log_dir="$top/$BUILD/test-logs"
mkdir -p "$log_dir"

# hang_report pid: what the processes under pid (the timeout of a test
# about to be stopped) and every process of BUILD's programs are doing:
# state, kernel wait, command; for our programs every thread's kernel
# stack and backtrace.  A hang seen once in CI then says where it was.
hang_report() {
	local p t exe todo=("$1") all=()
	while [ ${#todo[@]} -gt 0 ]; do
		p=${todo[0]}
		todo=("${todo[@]:1}" $(ps -o pid= --ppid "$p" 2>/dev/null))
		all+=("$p")
	done
	for exe in /proc/[0-9]*/exe; do
		p=${exe#/proc/}
		p=${p%/exe}
		case $(readlink "$exe" 2>/dev/null) in "$SIMBOOK_BUILD"/*) all+=("$p") ;; esac
	done
	echo "=== the time limit is near: the test's processes"
	ps -o pid,ppid,stat,wchan:32,etime,args -p "$(IFS=,; echo "${all[*]}")"
	for p in $(printf '%s\n' "${all[@]}" | sort -un); do
		case $(readlink "/proc/$p/exe" 2>/dev/null) in "$SIMBOOK_BUILD"/*) ;; *) continue ;; esac
		echo "--- threads of $p"
		for t in /proc/"$p"/task/*; do
			echo "thread ${t##*/} $(cat "$t/comm" 2>/dev/null) wchan=$(cat "$t/wchan" 2>/dev/null)"
			sed 's/^/    /' "$t/stack" 2>/dev/null
		done
		command -v gdb >/dev/null && timeout 30 gdb -p "$p" -batch -ex 'thread apply all bt' 2>/dev/null |
			grep -E '^(Thread|#)'
	done
}

# hang_watch timeout log: 20 s before the time limit of the test this
# shell runs now, its hang_report() into log.hang (killed when the test
# ends first).
hang_watch() {
	local i tpid
	for ((i = 20; i < $1; i++)); do sleep 1; done
	tpid=$(ps -o pid=,comm= --ppid $$ | awk '$2 == "timeout" { print $1 }')
	[ -n "$tpid" ] && hang_report "$tpid" >"$2.hang" 2>&1
}

run_one() { # name timeout cmd...
	local name=$1 t=$2; shift 2
	local log="$log_dir/$name.log" rc start end w
	start=${EPOCHREALTIME/./}
	rm -f "$log.hang"
	hang_watch "$t" "$log" &
	w=$!
	timeout -k 10 "$t" "$@" >"$log" 2>&1
	rc=$?
	kill "$w" 2>/dev/null
	wait "$w" 2>/dev/null
	end=${EPOCHREALTIME/./}
	local ds=$(((end - start) / 100000)) secs
	secs="$((ds / 10)).$((ds % 10))"
	case $rc in
	0) pass=$((pass + 1)); printf 'PASS  %-40s %6ss\n' "$name" "$secs" ;;
	77) skip=$((skip + 1)); printf 'SKIP  %-40s (%s)\n' "$name" "$(grep -m1 -i 'skip' "$log" | cut -c1-80)" ;;
	124|137)
		fail=$((fail + 1)); failed_names+=("$name")
		printf 'FAIL  %-40s timed out after %ss\n' "$name" "$t"
		tail -n 30 "$log" | sed 's/^/    /'
		[ -s "$log.hang" ] && head -n 600 "$log.hang" | sed 's/^/    /'
		;;
	*) fail=$((fail + 1)); failed_names+=("$name"); printf 'FAIL  %-40s exit %s\n' "$name" "$rc"; tail -n 40 "$log" | sed 's/^/    /' ;;
	esac
}

for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	# shellcheck disable=SC2053
	[[ $name == $pattern ]] || continue
	run_one "$name" "$timeout_unit" "$t"
done
for t in tests/integration/t[0-9]*.sh; do
	[ -f "$t" ] || continue
	name=$(basename "$t" .sh)
	# shellcheck disable=SC2053
	[[ $name == $pattern ]] || continue
	run_one "$name" "$timeout_integ" bash "$t"
done

# A test must never leave a mount behind: count any that did as a failure.
if grep -q "simbookfs" /proc/mounts 2>/dev/null && grep " fuse" /proc/mounts | grep -q "$top"; then
	fail=$((fail + 1)); failed_names+=("stale-mount")
	echo "FAIL  stale simbookfs mount left behind:"; grep " fuse" /proc/mounts | grep "$top"
fi
[ ${#failed_names[@]} -gt 0 ] && echo "failed: ${failed_names[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
