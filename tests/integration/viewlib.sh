# viewlib.sh - helpers of the tests that read the views; sourced after
# lib.sh, with MNT mounted.  VP: the views' prefix (-o viewprefix), "" by
# default.

# wait_idle [SECONDS]: until .simbookfs/status says idle (default 60 s).
wait_idle() {
	local i
	for i in $(seq 1 $((${1:-60} * 10))); do
		grep -q "\"state\":\"idle\"" "$MNT/${VP:-}.simbookfs/status" 2>/dev/null && return 0
		sleep 0.1
	done
	fail "not idle after ${1:-60}s: $(cat "$MNT/${VP:-}.simbookfs/status")"
}

# until_ok SECONDS CMD...: retries CMD until it succeeds (views follow
# changes asynchronously); its last try's status and output otherwise.
until_ok() {
	local t=$1 i
	shift
	for i in $(seq 1 $((t * 10))); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	"$@"
}

# entry_for BOOK TARGET: the name of the entry of similar/BOOK/ whose link
# resolves to TARGET (both relative to MNT); status 1 when there is none.
entry_for() {
	local e
	for e in "$MNT/similar/$1"/*; do
		[ -L "$e" ] || continue
		[ "$(cd "$(dirname "$e")" && realpath -m "$(readlink "$e")")" = "$MNT/$2" ] && {
			basename "$e"
			return 0
		}
	done
	return 1
}
has_entry() { entry_for "$1" "$2" >/dev/null; }
no_entry() { ! entry_for "$1" "$2" >/dev/null; }

# set_schema N: writes schema version N into the meta table of the index
# in $IDX (unmounted; needs mdb_load), as an older release would have left
# it; schema: the stored version, 8 hex digits.
set_schema() {
	printf 'VERSION=3\nformat=bytevalue\ntype=btree\nHEADER=END\n 736368656d61\n %08x\nDATA=END\n' \
		"$1" | mdb_load -s meta "$IDX" || fail "mdb_load of the schema failed"
}
schema() { mdb_dump -s meta "$IDX" | grep -A1 '^ 736368656d61$' | tail -n 1 | tr -d ' '; }

# view_groups [VIEW]: the groups of clusters/ (default) or duplicates/ as
# sorted lines "member member ...", members by the real path their links
# resolve to.
view_groups() {
	local g e
	for g in "$MNT/${1:-clusters}"/*/; do
		[ -d "$g" ] || continue
		for e in "$g"*; do realpath --relative-to="$MNT" "$e"; done | sort | tr '\n' ' '
		echo
	done | sort
}

# as_nobody CMD: CMD run by sh as the user nobody.
as_nobody() { su nobody -s /bin/sh -c "$1"; }

# nobody_setup: for the tests that look at root's mount (allow_other) as a
# second user, nobody (as_nobody): skips unless run as root with a working
# `su nobody`, sets LC_ALL=C, and lets nobody reach the mount ($T 0755;
# skips when a folder above it is not searchable by others).
nobody_setup() {
	local d=$T x
	[ "$(id -u)" -eq 0 ] || skip "needs root"
	command -v su >/dev/null 2>&1 || skip "no su"
	su nobody -s /bin/sh -c true 2>/dev/null || skip "su nobody does not work here"
	export LC_ALL=C
	chmod 755 "$T"
	while [ "$d" != / ]; do
		d=$(dirname "$d")
		x=$(stat -c %A "$d" | cut -c10)
		[ "$x" = x ] || [ "$x" = t ] || skip "$d is not searchable by others"
	done
}

# opf DIR TITLE CREATOR: a calibre metadata.opf in DIR (CREATOR "" for none)
opf() {
	python3 - "$@" <<'PY'
import sys
from xml.sax.saxutils import escape
d, title, creator = sys.argv[1:]
cr = '<dc:creator opf:role="aut">%s</dc:creator>' % escape(creator) if creator else ''
open(d + '/metadata.opf', 'w', encoding='utf-8').write(
    '<?xml version="1.0" encoding="utf-8"?>\n'
    '<package xmlns="http://www.idpf.org/2007/opf" unique-identifier="uuid_id" version="2.0">\n'
    '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:opf="http://www.idpf.org/2007/opf">\n'
    '<dc:title>%s</dc:title>%s<dc:language>eng</dc:language>\n'
    '</metadata><guide/></package>\n' % (escape(title), cr))
PY
}

# sbx SRC COMMAND ARGS...: simbook COMMAND on the library SRC without the
# mount, with its index: a folder index is found from the paths; the Redis
# one of SIMBOOK_TEST_INDEX (lib.sh's test_index_args) must be named.
sbx() {
	local src=$1 cmd=$2 uri
	shift 2
	test_index_args "$src"
	if [ ${#TEST_INDEX_ARGS[@]} -eq 0 ]; then
		"$SIMBOOK_BUILD/simbook" "$cmd" "$@"
		return
	fi
	uri=${TEST_INDEX_ARGS[1]#index=}
	uri=${uri//\\,/,}
	case $cmd in
	not-duplicate) "$SIMBOOK_BUILD/simbook" "$cmd" --index "$uri" --src "$src" "$@" ;;
	*) "$SIMBOOK_BUILD/simbook" "$cmd" "$@" --index "$uri" --root "$src" ;;
	esac
}
