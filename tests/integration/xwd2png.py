#!/usr/bin/env python3
"""xwd2png.py IN.xwd OUT.png [WIDTHxHEIGHT+X+Y] - converts an X window dump
(e.g. the Xvfb_screen0 file that `Xvfb -fbdir DIR` keeps up to date) to an
RGB PNG, optionally cropped to a rectangle (as xwininfo prints it).

Only the TrueColor/DirectColor ZPixmap dumps of 24/32 bits per pixel that
Xvfb writes are supported; anything else is refused with a clear error.
Standard library only, so the file-manager test needs no image package.
"""
import re
import struct
import sys
import zlib


def read_xwd(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 100:
        raise ValueError("%s: too short for an XWD header" % path)
    h = struct.unpack(">25I", data[:100])
    (header_size, version, pixmap_format, _depth, width, height, _xoff, byte_order,
     _unit, _bit_order, _pad, bpp, bytes_per_line, visual_class, rmask, gmask, bmask,
     _bits_rgb, _cmap_entries, ncolors) = h[:20]
    if version != 7 or pixmap_format != 2:
        raise ValueError("%s: not an XWD v7 ZPixmap dump" % path)
    if visual_class not in (4, 5) or bpp not in (24, 32):
        raise ValueError("%s: visual class %d, %d bpp: only true colour is supported"
                         % (path, visual_class, bpp))
    off = header_size + 12 * ncolors
    if off + bytes_per_line * height > len(data):
        raise ValueError("%s: pixel data truncated" % path)
    return data[off:], width, height, bpp // 8, bytes_per_line, byte_order, (rmask, gmask, bmask)


def shift_of(mask):
    s = 0
    while mask and not mask & 1:
        mask >>= 1
        s += 1
    return s


def to_png(pixels, width, height, bypp, bpl, byte_order, masks, rect, out):
    w, h, x0, y0 = rect if rect else (width, height, 0, 0)
    x0, y0 = max(0, x0), max(0, y0)
    w, h = min(w, width - x0), min(h, height - y0)
    if w <= 0 or h <= 0:
        raise ValueError("empty crop rectangle")
    shifts = [shift_of(m) for m in masks]
    endian = "little" if byte_order == 0 else "big"
    raw = bytearray()
    for y in range(y0, y0 + h):
        raw.append(0)  # PNG filter: none
        row = pixels[y * bpl:(y + 1) * bpl]
        for x in range(x0, x0 + w):
            p = int.from_bytes(row[x * bypp:(x + 1) * bypp], endian)
            raw += bytes(((p & m) >> s) & 0xff for m, s in zip(masks, shifts))

    def chunk(kind, body):
        c = struct.pack(">I", len(body)) + kind + body
        return c + struct.pack(">I", zlib.crc32(kind + body) & 0xffffffff)

    with open(out, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(bytes(raw), 9)))
        f.write(chunk(b"IEND", b""))


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: xwd2png.py IN.xwd OUT.png [WIDTHxHEIGHT+X+Y]")
    rect = None
    if len(sys.argv) == 4:
        m = re.fullmatch(r"(\d+)x(\d+)\+(-?\d+)\+(-?\d+)", sys.argv[3])
        if not m:
            sys.exit("xwd2png: bad rectangle %r" % sys.argv[3])
        rect = tuple(int(g) for g in m.groups())
    try:
        to_png(*read_xwd(sys.argv[1]), rect, sys.argv[2])
    except (OSError, ValueError) as e:
        sys.exit("xwd2png: %s" % e)


main()
