#!/usr/bin/env python3
"""genlib.py DIR - writes a small library with known relations for the view
tests (deterministic: fixed seed).

  a/base1.txt              a book of 12,000 words
  b/base1-near.txt         base1 with 1% of its words replaced   (near duplicate)
  c/base1-vol1.txt         the first third of base1               (part of base1)
  base2.txt                another book
  base2-copy.txt           a byte copy of base2                   (identical file)
  base2.epub               base2's text in an EPUB                (same/near text)
  base3.txt                a book related to nothing
  notbook.bin              random bytes                           (not a book)
  broken.epub              a zip that is not an EPUB              (fails: listed in errors)

genlib.py DIR --variants N  also writes near/NNN-base1.txt: N further near
duplicates of base1 (each with its own 0.5..2% of the words replaced), so
similar/a/base1.txt/ has N + 2 entries with distinct scores.
"""
import os
import random
import sys
import zipfile

rng = random.Random(20261125)
SYL = ["ka", "lo", "mi", "ra", "te", "su", "no", "vi", "da", "pe", "zu", "ri", "mo", "la",
       "fen", "tor", "bal", "quin", "shar", "wel", "dor", "ny", "gre", "ost"]
VOCAB = sorted({"".join(rng.choice(SYL) for _ in range(rng.randint(1, 3))) for _ in range(6000)})


def words(n, seed):
    r = random.Random(seed)
    return [r.choice(VOCAB) for _ in range(n)]


def text(ws, title):
    out = [title, "", ""]
    for i in range(0, len(ws), 120):
        para = ws[i:i + 120]
        s = " ".join(para)
        out.append(s[0].upper() + s[1:] + ".")
        out.append("")
    return "\n".join(out) + "\n"


def write(path, data, mode="w"):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, mode) as f:
        f.write(data)


def epub(path, title, body_text):
    paras = [p for p in body_text.split("\n\n") if p.strip()]
    xhtml = ('<?xml version="1.0" encoding="utf-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml">'
             "<head><title>%s</title></head><body>%s</body></html>"
             % (title, "".join("<p>%s</p>" % p.strip() for p in paras)))
    opf = ('<?xml version="1.0" encoding="utf-8"?>\n<package xmlns="http://www.idpf.org/2007/opf" '
           'version="3.0" unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/">'
           '<dc:identifier id="id">urn:uuid:simbook-test</dc:identifier><dc:title>%s</dc:title>'
           "<dc:language>en</dc:language></metadata><manifest>"
           '<item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/></manifest>'
           '<spine><itemref idref="c1"/></spine></package>' % title)
    container = ('<?xml version="1.0"?><container version="1.0" '
                 'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
                 '<rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
                 "</rootfiles></container>")
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        z.writestr("META-INF/container.xml", container, compress_type=zipfile.ZIP_DEFLATED)
        z.writestr("OEBPS/content.opf", opf, compress_type=zipfile.ZIP_DEFLATED)
        z.writestr("OEBPS/c1.xhtml", xhtml, compress_type=zipfile.ZIP_DEFLATED)


def main():
    d = sys.argv[1]
    variants = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[2] == "--variants" else 0
    b1 = words(12000, 1)
    near = list(b1)
    r = random.Random(7)
    for i in r.sample(range(len(near)), len(near) // 100):
        near[i] = r.choice(VOCAB)
    b2 = words(9000, 2)
    b3 = words(8000, 3)
    write(os.path.join(d, "a/base1.txt"), text(b1, "The First Book"))
    write(os.path.join(d, "b/base1-near.txt"), text(near, "The First Book"))
    write(os.path.join(d, "c/base1-vol1.txt"), text(b1[:4000], "The First Book"))
    t2 = text(b2, "The Second Book")
    write(os.path.join(d, "base2.txt"), t2)
    write(os.path.join(d, "base2-copy.txt"), t2)
    epub(os.path.join(d, "base2.epub"), "The Second Book", t2)
    write(os.path.join(d, "base3.txt"), text(b3, "The Third Book"))
    write(os.path.join(d, "notbook.bin"), bytes(random.Random(9).randrange(256) for _ in range(5000)), "wb")
    write(os.path.join(d, "broken.epub"), b"PK\x03\x04" + bytes(200), "wb")
    for k in range(variants):
        v = list(b1)
        r = random.Random(100 + k)
        for i in r.sample(range(len(v)), len(v) * (5 + k % 16) // 1000):
            v[i] = r.choice(VOCAB)
        write(os.path.join(d, "near/%03d-base1.txt" % k), text(v, "The First Book"))


main()
