#!/usr/bin/env bash
# simbook text / meta: output, JSON, exit codes and one-line reasons.
set -u
bin=${SIMBOOK_BUILD:-build}/simbook
[ -x "$bin" ] || { echo "skip: $bin not built"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

printf '<html lang="de"><head><title>Ein Titel</title></head><body><h1>Kapitel&nbsp;1</h1><p>Stra&szlig;e, don&#8217;t to-\nday!</p></body></html>' >"$work/b.html"
out=$("$bin" text "$work/b.html") || fail "text exit $?"
[ "$out" = "$(printf 'Kapitel\xc2\xa01\n\nStra\xc3\x9fe, don\xe2\x80\x99t to- day!')" ] || fail "text: $out"
out=$("$bin" text --normalized "$work/b.html") || fail "text --normalized exit $?"
[ "$out" = "kapitel strasse dont to day" ] || fail "normalized: $out"
out=$("$bin" meta "$work/b.html") || fail "meta exit $?"
if command -v python3 >/dev/null; then
	printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["format"]=="html" and d["title"]=="Ein Titel" and d["language"]=="de" and d["chunks"]==[0], d' \
		|| fail "meta JSON: $out"
fi

head -c 4096 /dev/zero >"$work/zeros.txt"
err=$("$bin" text "$work/zeros.txt" 2>&1 >/dev/null) && fail "binary accepted"
[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "reason not one line: $err"
case $err in *"zeros.txt: not a book (binary content)"*) ;; *) fail "reason: $err" ;; esac
err=$("$bin" meta "$work/missing.epub" 2>&1 >/dev/null) && fail "missing file accepted"
case $err in *"missing.epub: No such file or directory"*) ;; *) fail "reason: $err" ;; esac
"$bin" text >/dev/null 2>&1; [ $? -eq 2 ] || fail "usage exit code"
echo ok
