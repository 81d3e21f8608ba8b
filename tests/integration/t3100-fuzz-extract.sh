#!/usr/bin/env bash
# Runs each extraction libFuzzer target (tests/fuzz/fuzz_*.c) for a bounded
# time, from small generated seeds: any crash, leak, timeout (10 s per input)
# or RSS over 1 GB fails.  Skips when clang or its libFuzzer runtime is
# missing, and in the sanitizer pass (build-san), which would only repeat it.
# SIMBOOK_FUZZ_SECONDS sets the time per target (default 15).
set -u
top=${SIMBOOK_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top" || exit 2
case ${SIMBOOK_BUILD:-} in *-san) echo "skip: fuzzing runs in the plain pass only"; exit 77 ;; esac
command -v clang >/dev/null || { echo "skip: clang not installed"; exit 77; }
rt=$(clang -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null)
if [ ! -f "$rt" ] && ! ls "$(dirname "$(clang -print-libgcc-file-name 2>/dev/null)")"/libclang_rt.fuzzer*.a >/dev/null 2>&1; then
	echo "skip: clang's libFuzzer runtime is missing"; exit 77
fi
secs=${SIMBOOK_FUZZ_SECONDS:-15}
make -s -j2 fuzz >/dev/null || { echo "FAIL: make fuzz"; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Seeds: a small valid EPUB, its OPF, an HTML page, two texts.
mkdir -p "$work/seeds-epub" "$work/seeds-opf" "$work/seeds-html" "$work/seeds-txt"
opf='<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="2.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>T</dc:title><dc:creator>A</dc:creator><dc:identifier>urn:isbn:9780306406157</dc:identifier></metadata><manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/><item id="c2" href="a%20b.html" media-type="text/html"/></manifest><spine><itemref idref="c1"/><itemref idref="c2"/></spine></package>'
printf '%s' "$opf" >"$work/seeds-opf/opf"
html='<!DOCTYPE html><html lang="en"><head><title>T</title><style>p{}</style></head><body><h1>One</h1><p>Caf&eacute; &amp; cr&#232;me<br/>x</p><pre>a
b</pre></body></html>'
printf '%s' "$html" >"$work/seeds-html/html"
printf '\xef\xbb\xbfThe Project Gutenberg\r\n*** START OF THE PROJECT GUTENBERG EBOOK X ***\r\nIt don\xe2\x80\x99t to-\r\nday \xc3\x89t\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac\r\n*** END OF THE PROJECT GUTENBERG EBOOK X ***\r\n' >"$work/seeds-txt/utf8"
printf 'Caf\xe9 \x93na\xefve\x94\r\n' >"$work/seeds-txt/latin1"
command -v python3 >/dev/null && python3 - "$work/seeds-epub/epub" "$opf" "$html" <<'PY' || cp "$work/seeds-html/html" "$work/seeds-epub/"
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip", zipfile.ZIP_STORED)
    z.writestr("META-INF/container.xml", '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OPS/p.opf" media-type="application/oebps-package+xml"/></rootfiles></container>')
    z.writestr("OPS/p.opf", sys.argv[2])
    z.writestr("OPS/c1.xhtml", sys.argv[3])
    z.writestr("OPS/a b.html", "<p>second</p>")
PY

# RTF: every kind of token, and the real calibre file when the books are here.
mkdir -p "$work/seeds-rtf"
printf '%s' '{\rtf1\ansi\ansicpg1252\deff0\deflang1033{\fonttbl{\f0\froman Times;}}{\info{\title T}{\author A}}{\*\generator g;}{\pict\pngblip 89504e47}{\b Caf\'"'"'e9 \u8212?\uc2\u-10179\'"'"'3f\'"'"'3f\u-8704??}\par{\field{\*\fldinst HYPERLINK "x"}{\fldrslt link}}\~\-\_\{\}\\{\footnote note}\page{\pict\bin3 {}x}{\upr{a}{\*\ud{u}}}\line end}' >"$work/seeds-rtf/rtf"
printf '%s' '{\rtf1\ansi\ansicpg932 \'"'"'82\'"'"'a0{\ansicpg1251\'"'"'cf}\mac\'"'"'8e\sect x}' >"$work/seeds-rtf/cp"
books=${SIMBOOK_BOOKS:-$top/../shared/books}
[ -f "$books/formats/wotw.rtf" ] && head -c 65536 "$books/formats/wotw.rtf" >"$work/seeds-rtf/wotw"

rc=0
for t in txt html epub opf norm rtf; do
	bin=build-fuzz/fuzz/fuzz_$t
	seeds=$work/seeds-$t
	[ $t = norm ] && seeds=$work/seeds-txt
	mkdir -p "$work/corpus-$t"
	if ! "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 -max_len=65536 \
		-print_final_stats=0 "$work/corpus-$t" "$seeds" >"$work/log-$t" 2>&1; then
		echo "FAIL fuzz_$t:"; tail -n 40 "$work/log-$t"
		rc=1
	else
		echo "ok fuzz_$t: $(grep -o 'Done [0-9]* runs' "$work/log-$t" | head -1)"
	fi
done
exit $rc
