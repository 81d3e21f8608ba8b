#!/usr/bin/env python3
"""Keep one copy per group of duplicate books; by default only say what would change.

usage: dedup-dry-run.py [--apply [--remove]] [--keep-under DIR]
                        [--index IDXDIR] [--root LIBDIR] [DIR]

Reads `simbook duplicates --json DIR` (groups of files with the same
normalised text in any format, from the library's index; no mount needed)
and, per group, chooses the copy to keep:

  1. a member under --keep-under DIR, if given;
  2. the richest format: EPUB, then HTML, then plain text, then the rest
     (an EPUB keeps the structure, metadata and pictures that a text file
     lost; the words are the same, the group says so);
  3. the shallowest, then shortest, then first path in byte order.

Every other member is either
  link    the same bytes as the kept copy: replaced by a hard link to it
          (the name stays, the space is freed);
  remove  the same text in other bytes (another format, other markup):
          deleted, only with --apply --remove.

Without --apply nothing is changed: each decision is printed, one per line
("keep", "link", "remove", then the path relative to the library, shell
quoted), and a summary at the end.  With --apply, each action is checked
again against the files as they are now, not the index: a link only after a
byte-for-byte comparison with the kept copy, a removal only after
`simbook compare` finds the same normalised text in both files.  A file that
changed, vanished, or fails a check is skipped with a message.  Hard links
need the two files on one filesystem; across filesystems the link is
skipped.

Set SIMBOOK to the simbook program to use (default: simbook on PATH).
Exit status: 0 done (or nothing to do), 1 some action was skipped or
failed, 2 error (no index, simbook failed, bad arguments).
"""
import argparse
import filecmp
import json
import os
import shlex
import subprocess
import sys

FORMAT_RANK = {".epub": 0, ".html": 1, ".htm": 1, ".xhtml": 1, ".txt": 2, ".text": 2}


def show(path):
    return shlex.quote(path)


def keep_key(member, keep_under):
    path = member["path"]
    under = keep_under is not None and (member["abs"] == keep_under or
                                        member["abs"].startswith(keep_under.rstrip("/") + "/"))
    ext = os.path.splitext(path)[1].lower()
    return (0 if under else 1, FORMAT_RANK.get(ext, 3), path.count("/"), len(path),
            os.fsencode(path))


def same_text(simbook, a, b):
    """Compares the two files as they are now; True when their texts are equal."""
    try:
        out = subprocess.run([simbook, "compare", "--json", a, b], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, check=False)
    except OSError as e:
        print("dedup: cannot run %s: %s" % (simbook, e), file=sys.stderr)
        return False
    if out.returncode != 0:
        return False
    try:
        res = json.loads(out.stdout)
    except ValueError:
        return False
    return bool(res.get("same_text")) or bool(res.get("same_file"))


def link_over(keep, path):
    """Replaces path by a hard link to keep, atomically (a temporary name in
    the same folder, then rename over)."""
    d, base = os.path.split(path)
    tmp = os.path.join(d, ".%s.dedup-%d" % (base, os.getpid()))
    os.link(keep, tmp)
    try:
        os.replace(tmp, path)
    except OSError:
        os.unlink(tmp)
        raise


def main():
    ap = argparse.ArgumentParser(description="Keep one copy per group of duplicate books "
                                 "(dry run unless --apply).")
    ap.add_argument("dir", nargs="?", default=".", help="library folder or a folder in it")
    ap.add_argument("--apply", action="store_true", help="link identical copies (and remove "
                    "same-text copies with --remove) instead of only printing")
    ap.add_argument("--remove", action="store_true", help="with --apply: also delete copies "
                    "with the same text in other bytes")
    ap.add_argument("--keep-under", help="prefer to keep the copies under this folder")
    ap.add_argument("--index", help="index folder (passed to simbook)")
    ap.add_argument("--root", help="library folder (passed to simbook)")
    args = ap.parse_args()
    if args.remove and not args.apply:
        ap.error("--remove only makes sense with --apply")
    for stream in (sys.stdout, sys.stderr):
        stream.reconfigure(errors="surrogateescape")  # file names are bytes
    simbook = os.environ.get("SIMBOOK", "simbook")
    keep_under = os.path.realpath(args.keep_under) if args.keep_under else None

    cmd = [simbook, "duplicates", "--json"]
    if args.index:
        cmd += ["--index", args.index]
    if args.root:
        cmd += ["--root", args.root]
    cmd += ["--", args.dir]
    try:
        out = subprocess.run(cmd, stdout=subprocess.PIPE, check=False)
    except OSError as e:
        print("dedup: cannot run %s: %s" % (simbook, e), file=sys.stderr)
        return 2
    if out.returncode == 1:
        print("no duplicates")
        return 0
    if out.returncode != 0:
        return 2
    groups = [json.loads(line) for line in out.stdout.decode("utf-8").splitlines() if line]

    counts = {"keep": 0, "link": 0, "remove": 0, "linked": 0, "removed": 0, "skipped": 0}
    freed = 0
    for g in groups:
        members = sorted(g["members"], key=lambda m: keep_key(m, keep_under))
        keep = members[0]
        print("# group %d: %s (%d books)" % (g["group"], g["title"], g["count"]))
        print("keep    %s" % show(keep["path"]))
        counts["keep"] += 1
        for m in members[1:]:
            try:
                ks, ms = os.stat(keep["abs"]), os.stat(m["abs"])
            except OSError as e:
                print("skip    %s  (%s)" % (show(m["path"]), e.strerror))
                counts["skipped"] += 1
                continue
            if (ks.st_dev, ks.st_ino) == (ms.st_dev, ms.st_ino):
                print("same    %s  (already a hard link to %s)" % (show(m["path"]),
                                                                  show(keep["path"])))
                continue
            identical = ks.st_size == ms.st_size and filecmp.cmp(keep["abs"], m["abs"],
                                                                 shallow=False)
            action = "link" if identical else "remove"
            print("%-7s %s  (%s %s)" % (action, show(m["path"]),
                                        "same bytes as" if identical else "same text as",
                                        show(keep["path"])))
            counts[action] += 1
            freed += ms.st_size if ms.st_nlink == 1 else 0
            if not args.apply or (action == "remove" and not args.remove):
                continue
            try:
                if action == "link":
                    if ks.st_dev != ms.st_dev:
                        raise OSError(0, "on another filesystem")
                    link_over(keep["abs"], m["abs"])
                    counts["linked"] += 1
                else:
                    if not same_text(simbook, keep["abs"], m["abs"]):
                        raise OSError(0, "the texts differ now")
                    os.unlink(m["abs"])
                    counts["removed"] += 1
            except OSError as e:
                print("dedup: skipped %s: %s" % (show(m["path"]), e.strerror), file=sys.stderr)
                counts["skipped"] += 1

    summary = ("%d groups: %d kept, %d to link, %d to remove, %d bytes to free"
               % (len(groups), counts["keep"], counts["link"], counts["remove"], freed))
    if args.apply:
        print("%s; done: %d linked, %d removed, %d skipped" % (summary, counts["linked"],
                                                               counts["removed"],
                                                               counts["skipped"]))
        if counts["linked"] or counts["removed"]:
            print("run 'simbook index' on the library (or let the mount see the changes) "
                  "to bring the index up to date")
    else:
        print("%s; dry run, nothing changed (--apply to act)" % summary)
    return 1 if counts["skipped"] else 0


if __name__ == "__main__":
    sys.exit(main())
