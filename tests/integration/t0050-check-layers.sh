#!/usr/bin/env bash
# scripts/check-layers: passes on the tree as it is, and fails, naming the
# file, on each kind of violation added to a copy of the tree: a back-edge
# between layers, a sideways edge between fs and cli, LMDB or FUSE in the
# core or in the index's table logic (outside the LMDB backend), the
# index's private headers (idx_i.h, kvs.h) outside the index, the
# evaluation code in the product, a header of no known layer, an oversized file and function.
set -u
top=${SIMBOOK_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # description, command...
	local d=$1; shift
	if "$@"; then echo "ok - $d"; else echo "not ok - $d"; fail=1; fi
}

fresh() { # a copy of the parts of the tree the check reads
	rm -rf "$tmp/t"
	mkdir -p "$tmp/t/tests"
	cp -r "$top/src" "$top/include" "$top/scripts" "$tmp/t/"
	cp -r "$top/tests/eval" "$tmp/t/tests/"
}

# violates DESCRIPTION EXPECTED-TEXT: the check fails and names the problem
violates() {
	local out rc
	out=$("$tmp/t/scripts/check-layers" "$tmp/t" 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ]; then
		echo "  check-layers passed: $1"
		return 1
	fi
	if ! grep -qF -- "$2" <<<"$out"; then
		echo "  expected \"$2\" in:"; sed 's/^/    /' <<<"$out"
		return 1
	fi
}

add_include() { # file header-line: put an #include after the file's first one
	sed -i "0,/^#include/s||$2\n#include|" "$1"
}

fresh
check "the tree as it is passes" "$tmp/t/scripts/check-layers" "$tmp/t"

fresh
add_include "$tmp/t/src/core/norm.c" '#include "idx.h"'
check "core including the index is a back-edge" \
	violates "core -> index" 'src/core/norm.c (core): includes "idx.h" of layer index'

fresh
add_include "$tmp/t/src/base/sbuf.c" '#include "norm.h"'
check "base including core is a back-edge" \
	violates "base -> core" 'src/base/sbuf.c (base): includes "norm.h" of layer core'

fresh
add_include "$tmp/t/include/extract.h" '#include "views.h"'
check "a header is checked too" \
	violates "header back-edge" 'include/extract.h (core): includes "views.h" of layer fs'

fresh
add_include "$tmp/t/src/cli/cli_fp.c" '#include "views.h"'
check "cli including fs is refused" \
	violates "cli -> fs" 'src/cli/cli_fp.c (cli): includes "views.h" of layer fs'

fresh
add_include "$tmp/t/src/core/fp.c" '#include <lmdb.h>'
check "LMDB in the core" \
	violates "core lmdb" 'src/core/fp.c (core): includes <lmdb.h> outside the LMDB backend'

fresh
add_include "$tmp/t/src/index/scan.c" '#include <lmdb.h>'
check "LMDB in the index outside the backend" \
	violates "scan lmdb" 'src/index/scan.c (index): includes <lmdb.h> outside the LMDB backend'

fresh
add_include "$tmp/t/src/index/idx_near.c" '#include <lmdb.h>'
check "LMDB in the index's table logic (it sees kvs.h only)" \
	violates "idx_near lmdb" 'src/index/idx_near.c (index): includes <lmdb.h> outside the LMDB backend'

fresh
add_include "$tmp/t/src/index/idx_rel.c" '#include "kvs_lmdb.h"'
check "the LMDB store's header in the table logic" \
	violates "idx_rel kvs_lmdb.h" 'src/index/idx_rel.c (index): includes "kvs_lmdb.h" outside the LMDB backend'

fresh
add_include "$tmp/t/src/fs/views.c" '#include "kvs.h"'
check "the store interface is private to the index" \
	violates "fs kvs.h" 'src/fs/views.c (fs): includes "kvs.h", private to the index'

fresh
add_include "$tmp/t/src/core/txt.c" '#include <fuse.h>'
check "FUSE in the core" \
	violates "core fuse" 'src/core/txt.c (core): includes <fuse.h>'

fresh
add_include "$tmp/t/src/fs/views.c" '#include "idx_i.h"'
check "fs including the index's private header" \
	violates "fs idx_i" 'src/fs/views.c (fs): includes "idx_i.h", private to the index'

fresh
add_include "$tmp/t/src/index/indexer.c" '#include "acc.h"'
check "the product including the evaluation library" \
	violates "eval" 'src/index/indexer.c (index): includes "acc.h" of the evaluation library'

fresh
add_include "$tmp/t/src/index/queue.c" '#include "nowhere.h"'
check "a header of no known layer" \
	violates "unknown header" 'includes "nowhere.h", a header of no known layer'

fresh
cp "$tmp/t/src/base/sbuf.c" "$tmp/t/src/stray.c"
check "a module outside the layer folders" \
	violates "stray" 'src/stray.c: outside the layer folders'

fresh
{
	printf 'static int big(void);\n\nstatic int big(void)\n{\n\tint x = 0;\n\n'
	for i in $(seq 1 151); do printf '\tx += %d;\n' "$i"; done
	printf '\treturn x;\n}\n'
} >>"$tmp/t/src/base/grow.c"
check "a function over 150 lines" \
	violates "long function" 'src/base/grow.c:'

fresh
for i in $(seq 1 1500); do echo "/* line $i */"; done >>"$tmp/t/src/base/rsort.c"
check "a file over 1,500 lines" \
	violates "long file" 'src/base/rsort.c: '

exit $fail
