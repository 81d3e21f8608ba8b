#!/usr/bin/env bash
# Runs each extraction libFuzzer target (tests/fuzz/fuzz_*.c) for a bounded
# time, from small generated seeds: any crash, leak, timeout (10 s per input)
# or RSS over 1 GB fails.  Skips when clang or its libFuzzer runtime is
# missing, and in the sanitizer pass (build-san), which would only repeat it.
# SIMBOOK_FUZZ_SECONDS sets the time per target (default 15; fuzz_pdf:
# SIMBOOK_FUZZ_PDF_SECONDS, default 5).
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

# Seeds: a small valid EPUB, its OPF, an HTML page, two texts (MOBI below).
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

# PDF: one-page PDFs written here, and the first 64 KiB of the shared
# PDFs when present (poppler rebuilds their cut cross-reference tables).
mkdir -p "$work/seeds-pdf"
c='BT /F1 11 Tf 72 700 Td (Hyphen some-) Tj 0 -14 Td (thing here.) Tj ET'
o1='<</Type/Catalog/Pages 2 0 R>>'
o2='<</Type/Pages/Kids[3 0 R]/Count 1>>'
o3='<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Resources<</Font<</F1 4 0 R>>>>/Contents 5 0 R>>'
o4='<</Type/Font/Subtype/Type1/BaseFont/Helvetica/Encoding/WinAnsiEncoding>>'
o5="<</Length ${#c}>>stream
$c
endstream"
{
	printf '%%PDF-1.4\n'; i=1
	for o in "$o1" "$o2" "$o3" "$o4" "$o5"; do printf '%s 0 obj\n%s\nendobj\n' $i "$o"; i=$((i + 1)); done
	printf 'trailer\n<</Size 6/Root 1 0 R>>\n%%%%EOF\n'
} >"$work/seeds-pdf/pdf"
for f in "${SIMBOOK_BOOKS:-$top/../shared/books}"/formats/*.pdf; do
	[ -f "$f" ] && head -c 65536 "$f" >"$work/seeds-pdf/$(basename "$f")"
done
# A whole PDF in pdfscan.c's case (cross-reference table, Type0 font with a
# ToUnicode map and widths, Flate content, an ActualText span, TJ).
command -v python3 >/dev/null && python3 - "$work/seeds-pdf/type0" <<'PY'
import sys, zlib
def hx(s): return "<" + "".join("%04X" % (ord(c) - 0x1F) for c in s) + ">"
cmap = (b"begincmap 1 begincodespacerange <0000> <FFFF> endcodespacerange\n"
        b"2 beginbfchar <0001> <0020> <0060> <00660069> endbfchar\n"
        b"1 beginbfrange <0002> <005F> <0021> endbfrange endcmap\n")
c = ("BT /F1 12 Tf 14 TL 72 700 Td %s Tj T* [%s -250 %s] TJ\n/Span<</ActualText <FEFF000A>>> BDC %s Tj EMC\n"
     "0 -30 Td 0.5 Tc 2 Tw 90 Tz 1 Ts %s ' 1 0 %s \" ET" % (hx("Some words here, and-"), hx("hyphen"), hx("ated ok."),
     hx(" "), hx("Next line"), hx("end."))).encode()
objs = [b"<</Type/Catalog/Pages 2 0 R>>",
        b"<</Type/Pages/MediaBox[0 0 612 792]/Kids[3 0 R]/Count 1>>",
        b"<</Type/Page/Parent 2 0 R/Resources<</Font<</F1 4 0 R>>>>/Contents 7 0 R>>",
        b"<</Type/Font/Subtype/Type0/BaseFont/T/Encoding/Identity-H/DescendantFonts[5 0 R]/ToUnicode 6 0 R>>",
        b"<</Type/Font/Subtype/CIDFontType2/BaseFont/T/CIDSystemInfo<</Registry(Adobe)/Ordering(Identity)/Supplement 0>>"
        b"/DW 500/W[1 [250] 10 20 600]/FontDescriptor 8 0 R>>",
        b"<</Length %d>>stream\n" % len(cmap) + cmap + b"\nendstream",
        b"<</Length %d/Filter/FlateDecode>>stream\n" % len(zlib.compress(c)) + zlib.compress(c) + b"\nendstream",
        b"<</Type/FontDescriptor/FontName/T/Ascent 900/Descent -200>>"]
out, off = bytearray(b"%PDF-1.4\n"), []
for i, o in enumerate(objs):
    off.append(len(out)); out += b"%d 0 obj\n" % (i + 1) + o + b"\nendobj\n"
x = len(out)
out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1) + b"".join(b"%010d 00000 n \n" % o for o in off)
out += b"trailer\n<</Size %d/Root 1 0 R>>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, x)
open(sys.argv[1], "wb").write(out)
PY

# FB2 (plain and zipped), DOCX and ODT seeds.
mkdir -p "$work/seeds-fb2" "$work/seeds-docx" "$work/seeds-odt"
fb2='<?xml version="1.0" encoding="windows-1251"?><FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0"><description><title-info><author><first-name>A</first-name><last-name>B</last-name></author><book-title>T</book-title><lang>ru</lang></title-info><publish-info><isbn>9780306406157</isbn></publish-info></description><body><title><p>T</p></title><section><p>One <emphasis>two</emphasis></p><poem><stanza><v>v</v></stanza></poem></section><section><p>Three</p></section></body><body name="notes"><section><p>n</p></section></body><binary id="i">AAAA</binary></FictionBook>'
printf '%s' "$fb2" >"$work/seeds-fb2/fb2"
command -v python3 >/dev/null && python3 - "$work" "$fb2" <<'PY'
import sys, zipfile
w, fb2 = sys.argv[1], sys.argv[2]
def z(path, entries, stored=()):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as f:
        for n, d in entries:
            f.writestr(zipfile.ZipInfo(n, (2020, 1, 1, 0, 0, 0)), d,
                       zipfile.ZIP_STORED if n in stored else zipfile.ZIP_DEFLATED)
z(w + "/seeds-fb2/zip", [("b.fb2", fb2)])
W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
z(w + "/seeds-docx/docx", [("[Content_Types].xml", "<Types/>"),
    ("docProps/core.xml", '<cp:coreProperties xmlns:cp="c" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>T</dc:title><dc:creator>A</dc:creator></cp:coreProperties>'),
    ("word/styles.xml", '<w:styles %s><w:style w:styleId="H"><w:name w:val="heading 1"/></w:style></w:styles>' % W),
    ("word/document.xml", '<w:document %s><w:body><w:p><w:pPr><w:pStyle w:val="H"/></w:pPr><w:r><w:t>Head</w:t></w:r></w:p><w:p><w:r><w:t xml:space="preserve">a </w:t><w:tab/><w:br/><w:instrText>X</w:instrText></w:r><w:del><w:r><w:delText>d</w:delText></w:r></w:del></w:p></w:body></w:document>' % W)])
O = 'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"'
z(w + "/seeds-odt/odt", [("mimetype", "application/vnd.oasis.opendocument.text"),
    ("content.xml", '<office:document-content %s><office:body><office:text><text:h text:outline-level="1">H</text:h><text:p>a<text:s text:c="2"/>b<text:tab/><text:line-break/><text:span>c</text:span><office:annotation><text:p>x</text:p></office:annotation></text:p></office:text></office:body></office:document-content>' % O),
    ("meta.xml", '<office:document-meta %s xmlns:dc="http://purl.org/dc/elements/1.1/"><office:meta><dc:title>T</dc:title></office:meta></office:document-meta>' % O)],
  stored=("mimetype",))
PY

# MOBI: a PalmDOC database built here, and the shared calibre-made books.
mkdir -p "$work/seeds-mobi"
command -v python3 >/dev/null && python3 - "$work/seeds-mobi/pdb" <<'PY'
import struct, sys
t = "".join("Line %d of the caf\xe9 story.\r\n" % i for i in range(200)).encode("latin-1")
recs = [struct.pack(">HHIHHHH", 1, 0, len(t), 2, 4096, 0, 0), t[:4096], t[4096:]]
hdr = bytearray(78); hdr[0:4] = b"test"; hdr[60:68] = b"TEXtREAd"; struct.pack_into(">H", hdr, 76, 3)
off, lst = 78 + 8 * 3 + 2, b""
for i, r in enumerate(recs):
    lst += struct.pack(">IBBH", off, 0, 0, 2 * i); off += len(r)
open(sys.argv[1], "wb").write(bytes(hdr) + lst + b"\0\0" + b"".join(recs))
PY
for f in "${SIMBOOK_BOOKS:-/nonexistent}"/formats/*.mobi "${SIMBOOK_BOOKS:-/nonexistent}"/formats/*.azw3; do
	[ -f "$f" ] && cp "$f" "$work/seeds-mobi/"
done

# RTF: every kind of token, and the real calibre file when the books are here.
mkdir -p "$work/seeds-rtf"
printf '%s' '{\rtf1\ansi\ansicpg1252\deff0\deflang1033{\fonttbl{\f0\froman Times;}}{\info{\title T}{\author A}}{\*\generator g;}{\pict\pngblip 89504e47}{\b Caf\'"'"'e9 \u8212?\uc2\u-10179\'"'"'3f\'"'"'3f\u-8704??}\par{\field{\*\fldinst HYPERLINK "x"}{\fldrslt link}}\~\-\_\{\}\\{\footnote note}\page{\pict\bin3 {}x}{\upr{a}{\*\ud{u}}}\line end}' >"$work/seeds-rtf/rtf"
printf '%s' '{\rtf1\ansi\ansicpg932 \'"'"'82\'"'"'a0{\ansicpg1251\'"'"'cf}\mac\'"'"'8e\sect x}' >"$work/seeds-rtf/cp"
books=${SIMBOOK_BOOKS:-$top/../shared/books}
[ -f "$books/formats/wotw.rtf" ] && head -c 65536 "$books/formats/wotw.rtf" >"$work/seeds-rtf/wotw"

rc=0
for t in txt html epub opf norm pdf fb2 docx odt mobi rtf; do
	bin=build-fuzz/fuzz/fuzz_$t
	seeds=$work/seeds-$t
	[ $t = norm ] && seeds=$work/seeds-txt
	mkdir -p "$work/corpus-$t"
	# poppler takes milliseconds per input: a short run is enough here
	tsecs=$secs
	[ $t = pdf ] && tsecs=${SIMBOOK_FUZZ_PDF_SECONDS:-5}
	if ! "$bin" -max_total_time="$tsecs" -timeout=10 -rss_limit_mb=1024 -max_len=65536 \
		-print_final_stats=0 "$work/corpus-$t" "$seeds" >"$work/log-$t" 2>&1; then
		echo "FAIL fuzz_$t:"; tail -n 40 "$work/log-$t"
		rc=1
	else
		echo "ok fuzz_$t: $(grep -o 'Done [0-9]* runs' "$work/log-$t" | head -1)"
	fi
done
exit $rc
