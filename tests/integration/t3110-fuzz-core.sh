#!/usr/bin/env bash
# Runs the libFuzzer targets of the fingerprint record decoder, the record
# line decoder of bulk fingerprinting (fuzz_fpline), the names sketch and
# the language of a text (fuzz_names), the
# fingerprint families, the index's value decoding and its open over a
# damaged data file (fuzz_idx_open) for a bounded time
# each: any crash, leak, timeout or RSS over 1 GB fails.  Skips like t3100
# (no clang or libFuzzer runtime; the sanitizer pass).
# SIMBOOK_FUZZ_SECONDS sets the time per target (default 10).
set -u
top=${SIMBOOK_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top" || exit 2
case ${SIMBOOK_BUILD:-} in *-san) echo "skip: fuzzing runs in the plain pass only"; exit 77 ;; esac
command -v clang >/dev/null || { echo "skip: clang not installed"; exit 77; }
[ -f "$(clang -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null)" ] ||
	{ echo "skip: clang's libFuzzer runtime is missing"; exit 77; }
secs=${SIMBOOK_FUZZ_SECONDS:-10}
make -s -j2 fuzz >/dev/null || { echo "FAIL: make fuzz"; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rc=0
for t in record fpline fp names idx_values idx_open; do
	seeds=()
	[ $t = record ] && seeds=(tests/fuzz/corpus_record)
	[ $t = fpline ] && seeds=(tests/fuzz/corpus_fpline)
	mkdir -p "$work/corpus-$t"
	if ! (cd "$work" && TMPDIR="$work" "$top/build-fuzz/fuzz/fuzz_$t" -max_total_time="$secs" -timeout=10 \
		-rss_limit_mb=1024 -max_len=65536 -print_final_stats=0 \
		"corpus-$t" "${seeds[@]/#/$top/}") >"$work/log-$t" 2>&1; then
		echo "FAIL fuzz_$t:"; tail -n 40 "$work/log-$t"
		rc=1
	else
		echo "ok fuzz_$t: $(grep -o 'Done [0-9]* runs' "$work/log-$t" | head -1)"
	fi
done
exit $rc
