#!/usr/bin/env bash
# t7208: t7207's view tests with their index on a 3-master 3-replica Redis
# Cluster, as t7201.
REDIS_CASE_TIMEOUT=${REDIS_CASE_TIMEOUT:-900}
. "$(dirname "$0")/t7200-redis-views.sh"
redis_cluster
export SIMBOOK_TEST_INDEX=$CLUSTER_URI
redis_views_run "${REDIS_VIEW_TESTS2[@]}"
n=0
for p in $(redis_masters); do
	n=$((n + $(rcli "$p" --scan --pattern '{simbookfs-test.*}:v' | wc -l)))
done
[ "$n" -ge "${#REDIS_VIEW_TESTS2[@]}" ] || fail "only $n libraries in the cluster"
echo "ok - $n libraries indexed in the cluster"
