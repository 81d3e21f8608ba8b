#!/usr/bin/env bash
# t3232-group-titles-perms: a metadata.opf title of a book a user may not
# reach never shows to that user.  Mounted by root with allow_other, in
# links and files mode: private/ (0700, root's) holds a copy of two public
# books with a metadata.opf; root sees the group of the three titled from
# it and the entry named by it (clusters/, duplicates/, lookup/), nobody
# (su nobody) sees the group of the two public books named from them and
# no word of the title anywhere in the views, also right after root
# listed them (the kernel's cache is shared by all users).
export SIMBOOK_CASE_TIMEOUT=240
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/viewlib.sh"
nobody_setup
command -v python3 >/dev/null || skip "no python3"
command -v getfattr >/dev/null 2>&1 || skip "no getfattr"

mkdir -m 755 "$SRC/public"
mkdir -m 700 "$SRC/private"
python3 - "$SRC" <<'PY'
import random, sys
src = sys.argv[1]
rng = random.Random(3232)
vocab = [''.join(rng.choice('abcdefghijklmnoprstuvwy') for _ in range(rng.randint(2, 9)))
         for _ in range(4000)]
text = '\n\n'.join(' '.join(rng.choice(vocab) for _ in range(rng.randint(40, 90))).capitalize() + '.'
                   for _ in range(120)) + '\n'
for p in ('public/p1.txt', 'public/p2.txt', 'private/s.txt'):
    open(src + '/' + p, 'w').write(text)
open(src + '/private/metadata.opf', 'w').write(
    '<?xml version="1.0" encoding="utf-8"?>\n'
    '<package xmlns="http://www.idpf.org/2007/opf" version="2.0">\n'
    '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:opf="http://www.idpf.org/2007/opf">\n'
    '<dc:title>Secret Title</dc:title><dc:creator opf:role="aut">Hidden Author</dc:creator>\n'
    '</metadata></package>\n')
PY

views_of() { echo "cd '$MNT' && find clusters duplicates 2>&1; ls -la 'lookup/$id/' 2>&1"; }

one_mode() { # links|files
	local mode=$1 out
	say "=== viewmode=$mode"
	FS_ARGS=(-o "viewmode=$mode,rescan=0,idxattr,allow_other")
	mount_fs
	until_ok 120 grep -q '"state":"idle","books":3,' "$MNT/.simbookfs/status" ||
		fail "not idle with 3 books: $(cat "$MNT/.simbookfs/status")"
	id=$(getfattr --only-values -n user.simbookfs.id "$MNT/public/p1.txt")
	[ ${#id} -eq 32 ] || fail "no id for public/p1.txt"
	out=$(sh -c "$(views_of)")
	say "--- root sees"
	echo "$out"
	for v in clusters duplicates; do
		echo "$out" | grep -qx "$v/Secret Title - Hidden Author (3)" || fail "root: $v/ group"
	done
	echo "$out" | grep -q "^clusters/Secret Title - Hidden Author (3)/Secret Title - Hidden Author.txt$" ||
		fail "root: the private book's entry"
	echo "$out" | grep -q " - Secret Title - Hidden Author.txt" || fail "root: lookup/ entry"

	out=$(as_nobody "$(views_of)")
	say "--- nobody sees"
	echo "$out"
	! echo "$out" | grep -Eq "Secret|Hidden" || fail "nobody sees the private title"
	for v in clusters duplicates; do
		echo "$out" | grep -Eqx "$v/p[12] \(2\)" || fail "nobody: no $v/ group of the two"
		echo "$out" | grep -Eqx "$v/p[12] \(2\)/(identical file - )?p1.txt" ||
			fail "nobody: $v/ p1.txt"
	done
	echo "$out" | grep -q " - p2.txt$" || fail "nobody: lookup/ of p2.txt"
	umount_fs
}

one_mode links
one_mode files
echo "ok"
