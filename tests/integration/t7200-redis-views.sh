#!/usr/bin/env bash
# t7200: the view tests with their index on one Redis node: each mount of
# them gets -o index=redis://127.0.0.1:PORT/NS (lib.sh, SIMBOOK_TEST_INDEX)
# and must pass as with LMDB (similar/, clusters/, duplicates/, lookup/,
# .simbookfs/status, the files view mode, the control file, churn).
REDIS_CASE_TIMEOUT=${REDIS_CASE_TIMEOUT:-900}
. "$(dirname "$0")/redislib.sh"
[ -d "$rtop/../shared/books" ] || skip "no ../shared/books"

redis_views_run() { # tests...
	local t rc fails=0
	for t in "$@"; do
		rc=0
		SIMBOOK_BUILD=$SIMBOOK_BUILD bash "$rtop/tests/integration/$t.sh" >"$RT/$t.log" 2>&1 ||
			rc=$?
		case $rc in
		0) echo "ok - $t on $SIMBOOK_TEST_INDEX" ;;
		77) echo "ok - $t # SKIP $(grep -m1 '^skip' "$RT/$t.log" || true)" ;;
		*) echo "not ok - $t (exit $rc)"; tail -n 25 "$RT/$t.log"; fails=$((fails + 1)) ;;
		esac
	done
	[ "$fails" -eq 0 ] || fail "$fails view tests failed on $SIMBOOK_TEST_INDEX"
}

REDIS_VIEW_TESTS=(t1130-generated-snapshot t3200-formats-similar t5010-views-churn t5012-view-fstat
	t5030-views-files t5060-copies t5070-control t5085-view-shares)
# run by t7207 (one node) and t7208 (a cluster): with them this list took
# more than the runner's 10 minutes a test on a busy machine
REDIS_VIEW_TESTS2=(t5000-views t5040-clusters t5041-clusters-chain)

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	redis_single
	export SIMBOOK_TEST_INDEX=redis://127.0.0.1:$REDIS_PORT
	redis_views_run "${REDIS_VIEW_TESTS[@]}"
	# every mount really kept its index there
	n=$(rcli "$REDIS_PORT" --scan --pattern '{simbookfs-test.*}:v' | wc -l)
	[ "$n" -ge "${#REDIS_VIEW_TESTS[@]}" ] || fail "only $n libraries in Redis"
	echo "ok - $n libraries indexed in Redis"
fi
