#!/usr/bin/env python3
"""Snapshots of a folder for the simbook dedup tests.

  ddsnap.py snap DIR          every entry below DIR (but .simbookfs-index):
                              one JSON object {path: [type, sha256 or link
                              target, inode]}
  ddsnap.py diff BEFORE AFTER what changed, one sorted line per path:
                              gone P | new P | link P -> TARGET |
                              ino P (same bytes, another inode) | content P
"""
import hashlib
import json
import os
import sys


def snap(top):
    out = {}
    for d, dirs, files in os.walk(top):
        dirs[:] = [x for x in dirs if not (d == top and x == ".simbookfs-index")]
        for name in files + [x for x in dirs if os.path.islink(os.path.join(d, x))]:
            p = os.path.join(d, name)
            rel = os.fsdecode(os.path.relpath(p, top))
            st = os.lstat(p)
            if os.path.islink(p):
                out[rel] = ["link", os.readlink(p), st.st_ino]
            else:
                h = hashlib.sha256()
                with open(p, "rb") as f:
                    for b in iter(lambda: f.read(1 << 16), b""):
                        h.update(b)
                out[rel] = ["file", h.hexdigest(), st.st_ino]
    return out


def diff(a, b):
    lines = []
    for p in sorted(set(a) | set(b)):
        if p not in b:
            lines.append("gone " + p)
        elif p not in a:
            lines.append("new " + p)
        elif b[p][0] == "link" and a[p][0] != "link":
            lines.append("link %s -> %s" % (p, b[p][1]))
        elif a[p][:2] != b[p][:2]:
            lines.append("content " + p)
        elif a[p][2] != b[p][2]:
            lines.append("ino " + p)
    return lines


if __name__ == "__main__":
    sys.stdout.reconfigure(errors="surrogateescape")
    if sys.argv[1] == "snap":
        json.dump(snap(sys.argv[2]), sys.stdout, ensure_ascii=True)
    else:
        with open(sys.argv[2]) as f:
            a = json.load(f)
        with open(sys.argv[3]) as f:
            b = json.load(f)
        for line in diff(a, b):
            print(line)
