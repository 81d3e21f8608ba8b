#!/usr/bin/env bash
# t5030-views-files: -o viewmode=files.  Every book entry of similar/,
# clusters/, duplicates/ and lookup/ is a read-only regular file with the
# content, size and mtime of its target; writes fail with EROFS; inode
# numbers are stable; rsync -a (no -L) copies books, not links; an entry
# goes with its target, while an already open one stays readable; and, as
# root with allow_other, another user reads an entry only where the target
# itself would let them (its mode), and sees it only where the folders
# above it would let them look it up.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "no python3"
command -v rsync >/dev/null || skip "no rsync"
FS_ARGS=(-o viewmode=files,rescan=0,idxattr)
export LC_ALL=C

python3 "$(dirname "$0")/genlib.py" "$SRC"
root=0
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
	root=1
	chmod 755 "$T"
	chmod 600 "$SRC/b/base1-near.txt"	# only root may read it
	chmod 700 "$SRC/c"			# only root may reach c/base1-vol1.txt
	FS_ARGS+=(-o allow_other)
fi
mount_fs
for i in $(seq 1 600); do
	grep -q '"state":"idle"' "$MNT/.simbookfs/status" && break
	sleep 0.1
done
grep -q '"books":7' "$MNT/.simbookfs/status" || fail "status: $(cat "$MNT/.simbookfs/status")"

# same_file ENTRY TARGET: a regular file (not a link) with TARGET's content,
# size and mtime.
same_file() {
	[ -f "$1" ] && [ ! -L "$1" ] || fail "not a regular file: $1"
	! readlink "$1" >/dev/null || fail "readlink works on $1"
	cmp -s "$1" "$2" || fail "content differs: $1 vs $2"
	[ "$(stat -c '%s %Y' "$1")" = "$(stat -c '%s %Y' "$2")" ] ||
		fail "size/mtime: $(stat -c '%s %Y' "$1") vs $(stat -c '%s %Y' "$2") ($1)"
	case $(stat -c %A "$1") in -r?-r?-r?-|-r--------) ;; *) fail "mode $(stat -c %A "$1"): $1" ;; esac
}

say "similar/: entries are the books (checked against .similar.tsv)"
d=$MNT/similar/a/base1.txt
tsv=$d/.similar.tsv
head -n 1 "$tsv" | grep -q "^rank	score	relation	" || fail "listing header: $(head -n 1 "$tsv")"
mapfile -t names < <(ls "$d")
mapfile -t paths < <(tail -n +2 "$tsv" | cut -f 9)
[ "${#names[@]}" -eq 2 ] && [ "${#paths[@]}" -eq 2 ] || fail "entries: ${names[*]} / ${paths[*]}"
# ranked by the percentage (VIEWS.md, "The percentage"): both are listed
case "${names[*]}" in *"near duplicate - base1-near.txt"*"part of this - base1-vol1.txt"* | \
	*"part of this - base1-vol1.txt"*"near duplicate - base1-near.txt"*) ;;
*) fail "entries: ${names[*]}" ;; esac
near_i=0 other_i=1	# the near duplicate's entry and the other one
[ "${paths[0]}" = b/base1-near.txt ] || near_i=1 other_i=0
for i in 0 1; do
	same_file "$d/${names[$i]}" "$MNT/${paths[$i]}"
done
ino1=$(stat -c %i "$d/${names[$near_i]}")
echo 3 >/proc/sys/vm/drop_caches 2>/dev/null || true
[ "$(stat -c %i "$d/${names[$near_i]}")" = "$ino1" ] || fail "inode number changed"
[ "$ino1" != "$(stat -c %i "$SRC/b/base1-near.txt")" ] || fail "entry shares the target's inode number"
e2=$(ls "$MNT/similar/base2.txt" | grep " - base2-copy.txt$") || fail "similar/base2.txt: $(ls "$MNT/similar/base2.txt")"
same_file "$MNT/similar/base2.txt/$e2" "$MNT/base2-copy.txt"

say "clusters/, duplicates/, lookup/"
n=0
for e in "$MNT"/clusters/*/* "$MNT"/duplicates/*/*; do
	b=$(basename "$e"); b=${b#identical file - }; b=${b#same text - }
	t=$(find "$SRC" -name "$b" ! -path '*/.simbookfs-index/*' | head -n 1)
	same_file "$e" "$MNT/${t#"$SRC"/}"
	n=$((n + 1))
done
[ "$n" -ge 4 ] || fail "only $n group entries: $(ls -R "$MNT/clusters" "$MNT/duplicates")"
id=$(python3 -c 'import os,sys; print(os.getxattr(sys.argv[1], "user.simbookfs.id").decode())' "$MNT/a/base1.txt")
e=$(ls "$MNT/lookup/$id" | grep " - base1.txt$") || fail "lookup: $(ls "$MNT/lookup/$id")"
same_file "$MNT/lookup/$id/$e" "$MNT/a/base1.txt"

say "read-only: EROFS"
e=$d/${names[$other_i]}
for cmd in "echo x >>'$e'" "truncate -s 0 '$e'" "touch '$e'" "chmod 644 '$e'" "ln '$e' '$MNT/hard'"; do
	! sh -c "$cmd" 2>"$T/err" || fail "allowed: $cmd"
	grep -qi "read-only" "$T/err" || fail "$cmd: $(cat "$T/err")"
done
cmp -s "$e" "$MNT/${paths[$other_i]}" || fail "a write got through"

say "rsync -a (no -L) copies the books"
timeout 30 rsync -a "$MNT/similar/a/base1.txt/" "$MNT/duplicates/" "$T/dest/" || fail "rsync -a"
[ -z "$(find "$T/dest" -type l)" ] || fail "rsync -a copied links: $(find "$T/dest" -type l)"
cmp -s "$T/dest/${names[$near_i]}" "$SRC/b/base1-near.txt" || fail "rsync copy differs"
[ "$(find "$T/dest" -type f | wc -l)" -ge 5 ] || fail "rsync copied: $(find "$T/dest")"

if [ "$root" = 1 ]; then
	say "another user: the target's permissions hold"
	as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"; }
	as_user cat "$MNT/similar/base2.txt/$e2" >/dev/null || fail "a readable book denied"
	# the user's own names: ranked among the books they may see
	en=$(as_user ls "$d" | grep " - base1-near.txt$") || fail "the user has no entry for b/base1-near.txt"
	! as_user cat "$d/$en" 2>"$T/err" || fail "read a 0600 book of root through the view"
	grep -q "Permission denied" "$T/err" || fail "0600: $(cat "$T/err")"
	e=$(ls "$d" | grep " - base1-vol1.txt$") || fail "no entry for c/base1-vol1.txt"
	[ "$(stat -c %a "$d/$e")" = 444 ] || fail "mode of the entry: $(stat -c %a "$d/$e")"
	# a book the user could not look up is not there for them at all
	! as_user cat "$d/$e" 2>"$T/err" || fail "read a book in a 0700 folder of root through the view"
	grep -q "No such file or directory" "$T/err" || fail "0700 folder: $(cat "$T/err")"
	! as_user ls "$d" | grep -q " - base1-vol1.txt$" || fail "the user lists a book of a 0700 folder"
	cat "$d/$e" >/dev/null || fail "root denied"
fi

say "an entry goes with its target; an open one stays readable"
e=$MNT/similar/base2.txt/$e2
python3 - "$e" "$MNT/base2-copy.txt" <<'PY' || fail "open entry after its target went"
import os, sys
entry, target = sys.argv[1], sys.argv[2]
want = open(target, "rb").read()
fd = os.open(entry, os.O_RDONLY)
ino = os.fstat(fd).st_ino
os.unlink(target)
# The kernel may show the cached entry for the few milliseconds until the
# daemon invalidates it, but opening it already fails.
try:
    os.close(os.open(entry, os.O_RDONLY))
    sys.exit("entry still opens after its target was removed")
except FileNotFoundError:
    pass
st = os.fstat(fd)
if st.st_ino != ino or st.st_size != len(want):
    sys.exit("fstat changed: %r" % (st,))
# Once the views have dropped the entry (and the kernel its attributes),
# fstat() reaches the daemon by path: the open entry still answers.
import time
for _ in range(50):
    if os.path.basename(entry) not in os.listdir(os.path.dirname(entry)):
        break
    time.sleep(0.1)
time.sleep(0.3)
try:
    st = os.fstat(fd)
except OSError as e:
    sys.exit("fstat of an open entry after its target went: %s" % e)
if st.st_ino != ino or st.st_size != len(want):
    sys.exit("fstat changed after the entry went: %r" % (st,))
got = b""
while True:
    b = os.read(fd, 65536)
    if not b:
        break
    got += b
os.close(fd)
if got != want:
    sys.exit("content differs after the target went")
PY
for i in $(seq 1 30); do
	[ -e "$e" ] || ls "$MNT/similar/base2.txt" | grep -q "base2-copy" || break
	sleep 0.1
done
say "entry gone after $(( (i - 1) * 100 )) ms at most"
[ ! -e "$e" ] || fail "entry of a deleted book"
! ls "$MNT/similar/base2.txt" | grep -q "base2-copy" || fail "deleted book still listed"
umount_fs
echo ok
