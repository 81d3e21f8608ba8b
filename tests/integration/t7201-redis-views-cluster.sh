#!/usr/bin/env bash
# t7201: t7200's view tests with their index on a 3-master 3-replica Redis
# Cluster (two seeds in the URI; each library one hash tag, one master).
REDIS_CASE_TIMEOUT=${REDIS_CASE_TIMEOUT:-900}
. "$(dirname "$0")/t7200-redis-views.sh"
redis_cluster
export SIMBOOK_TEST_INDEX=$CLUSTER_URI
redis_views_run "${REDIS_VIEW_TESTS[@]}"
# the libraries spread over the masters
n=0
for p in $(redis_masters); do
	k=$(rcli "$p" dbsize)
	say "master $p: $k keys"
	[ "$k" -gt 0 ] && n=$((n + 1))
done
[ "$n" -ge 2 ] || fail "the libraries all went to one master"
echo "ok - the libraries spread over $n masters"
