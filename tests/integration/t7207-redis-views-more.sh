#!/usr/bin/env bash
# t7207: more view tests with their index on one Redis node, as t7200 (the
# end-to-end views, clusters/ and its chains; simbook on SRC names the
# index, viewlib.sh's sbx).
REDIS_CASE_TIMEOUT=${REDIS_CASE_TIMEOUT:-900}
. "$(dirname "$0")/t7200-redis-views.sh"
redis_single
export SIMBOOK_TEST_INDEX=redis://127.0.0.1:$REDIS_PORT
redis_views_run "${REDIS_VIEW_TESTS2[@]}"
n=$(rcli "$REDIS_PORT" --scan --pattern '{simbookfs-test.*}:v' | wc -l)
[ "$n" -ge "${#REDIS_VIEW_TESTS2[@]}" ] || fail "only $n libraries in Redis"
echo "ok - $n libraries indexed in Redis"
