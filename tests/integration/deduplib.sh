# deduplib.sh - helpers of the simbook dedup tests (t615x), sourced first
# (it sources lib.sh and viewlib.sh).  make_lib DIR fills DIR with a
# library of real books (../shared/books; skips without them) holding byte
# copies with known mtimes, plus genlib.py's generated same-text and
# near-duplicate books; dd_setup mounts it.
# many dedup runs, each reading every member: slow on a loaded machine
SIMBOOK_CASE_TIMEOUT=${SIMBOOK_CASE_TIMEOUT:-400}
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/viewlib.sh"
SB=$SIMBOOK_BUILD/simbook
BOOKS=${SIMBOOK_BOOKS:-$top/../shared/books}
[ -d "$BOOKS/texts" ] || skip "no shared books in $BOOKS"
[ -x "$SB" ] || fail "$SB is not built"
command -v python3 >/dev/null || skip "no python3"
SNAP=$top/tests/integration/ddsnap.py

make_lib() { # DIR
	local d=$1 w=$BOOKS/texts/pg1952-the-yellow-wallpaper.txt
	local u=$BOOKS/texts/pg932-the-fall-of-the-house-of-usher.txt
	python3 "$top/tests/integration/genlib.py" "$d"
	rm -f "$d/broken.epub"
	mkdir -p "$d/copies" "$d/x/y" "$d/keep"
	cp "$w" "$d/a/wallpaper.txt"
	cp "$w" "$d/copies/wallpaper.txt"
	cp "$w" "$d/x/y/wallpaper-second-copy.txt"
	cp "$u" "$d/usher.txt"
	cp "$u" "$d/keep/usher-copy.txt"
	cp "$BOOKS/texts/pg7193-tom-sawyer-part1.txt" "$d/tom.txt"
	touch -d '2005-01-01' "$d/a/wallpaper.txt"
	touch -d '2001-01-01' "$d/copies/wallpaper.txt"
	touch -d '2010-01-01' "$d/x/y/wallpaper-second-copy.txt"
	touch -d '2003-01-01' "$d/usher.txt"
	touch -d '2002-01-01' "$d/keep/usher-copy.txt"
	touch -d '2004-01-01' "$d/base2.txt"
	touch -d '2006-01-01' "$d/base2-copy.txt"
}

# dd_setup [FN]: make_lib in SRC (then FN SRC adds to it), mounted with no
# option, indexed, its groups listed in duplicates/.
dd_setup() {
	FS_ARGS=()
	make_lib "$SRC"
	[ $# -eq 0 ] || "$1" "$SRC"
	mount_fs
	wait_idle 90
	until_ok 20 test -n "$(ls "$MNT/duplicates")"
}

snap() { python3 "$SNAP" snap "$1"; } # DIR > FILE
# changes BEFORE AFTER: the sorted changes, one line each (ddsnap.py)
changes() { python3 "$SNAP" diff "$1" "$2"; }

# run_dd ARGS...: runs simbook dedup, stdout in $T/out, stderr in $T/err, RC.
run_dd() {
	RC=0
	"$SB" dedup "$@" >"$T/out" 2>"$T/err" || RC=$?
}

# kept_of OUT PATTERN: the path kept in the group (of --json output) that
# has a member matching PATTERN.
kept_of() {
	python3 - "$1" "$2" <<'PY'
import json, re, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
for r in recs:
    if "group" in r and re.search(sys.argv[2], r["path"]):
        g = r["group"]
        print([x["path"] for x in recs if x.get("group") == g and x["result"] == "keep"][0])
        break
PY
}
