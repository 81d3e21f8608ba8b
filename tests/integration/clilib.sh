# clilib.sh - sourced by the tests of the simbook command (no mount): the
# absolute path of the binary in SB (skips when it is not built), a temp
# folder T removed at exit, the generated library in LIB, and TAP-style
# checks that set fail=1; a test ends with `exit $fail`.
set -u
BUILD=${SIMBOOK_BUILD:-build}
SB="$BUILD/simbook"
case $SB in /*) ;; *) SB=$PWD/$SB ;; esac
[ -x "$SB" ] || { echo "skip: $SB not built"; exit 77; }
command -v python3 >/dev/null || { echo "skip: python3 missing"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/$(basename "$0" .sh).XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0
ok() { echo "ok - $*"; }
bad() { echo "not ok - $*"; fail=1; }
check() { # description, command...
	local d=$1; shift
	if "$@"; then ok "$d"; else bad "$d"; fi
}
LIB=$T/lib
python3 "$(dirname "$0")/genlib.py" "$LIB"
