#!/usr/bin/env bash
# t3233-group-names-perms: the names in clusters/ and duplicates/ say
# nothing of books a user may not reach.  Mounted by root with
# allow_other, in links and files mode, private/ (0700, root's) holds
#  - a whole group, dup.txt and sub/dup.txt, named like the public group
#    of public/dup.txt and public/sub/dup.txt: root sees "dup (2)" and
#    "dup (2) (2)", nobody only "dup (2)";
#  - one of three copies named book.txt: root sees "book (3)" with
#    book.txt, "book (2).txt" and "book (3).txt", nobody sees "book (2)"
#    with book.txt and "book (2).txt", and in duplicates/ the relation
#    given to the first public copy, not to the hidden one.
# Then private/ is opened (0755): nobody sees what root sees.
export SIMBOOK_CASE_TIMEOUT=240
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/viewlib.sh"
nobody_setup
command -v python3 >/dev/null || skip "no python3"

mkdir -p -m 755 "$SRC/public/sub" "$SRC/public/a" "$SRC/public/b"
mkdir -m 700 "$SRC/private"
mkdir -m 755 "$SRC/private/sub"
python3 - "$SRC" <<'PY'
import random, sys
src = sys.argv[1]
rng = random.Random(3233)
vocab = [''.join(rng.choice('abcdefghijklmnoprstuvwy') for _ in range(rng.randint(2, 9)))
         for _ in range(4000)]
def text():
    return '\n\n'.join(' '.join(rng.choice(vocab) for _ in range(rng.randint(40, 90))).capitalize()
                       + '.' for _ in range(120)) + '\n'
for paths in (('private/dup.txt', 'private/sub/dup.txt'),
              ('public/dup.txt', 'public/sub/dup.txt'),
              ('private/book.txt', 'public/a/book.txt', 'public/b/book.txt')):
    t = text()
    for p in paths:
        open(src + '/' + p, 'w').write(t)
PY

list() { echo "cd '$MNT' && find clusters duplicates -mindepth 1 | sort"; }
# the book each entry of nobody's names stands for (links mode: the link)
targets() { echo "cd '$MNT' && for e in 'clusters/book (2)/book.txt' 'clusters/book (2)/book (2).txt' 'duplicates/book (2)/identical file - book.txt'; do printf '%s -> %s\n' \"\$e\" \"\$(readlink \"\$e\")\"; done"; }

root_names="clusters/book (3)
clusters/book (3)/book (2).txt
clusters/book (3)/book (3).txt
clusters/book (3)/book.txt
clusters/dup (2)
clusters/dup (2) (2)
clusters/dup (2) (2)/dup (2).txt
clusters/dup (2) (2)/dup.txt
clusters/dup (2)/dup (2).txt
clusters/dup (2)/dup.txt
duplicates/book (3)
duplicates/book (3)/book.txt
duplicates/book (3)/identical file - book (2).txt
duplicates/book (3)/identical file - book.txt
duplicates/dup (2)
duplicates/dup (2) (2)
duplicates/dup (2) (2)/dup.txt
duplicates/dup (2) (2)/identical file - dup.txt
duplicates/dup (2)/dup.txt
duplicates/dup (2)/identical file - dup.txt"
nobody_names="clusters/book (2)
clusters/book (2)/book (2).txt
clusters/book (2)/book.txt
clusters/dup (2)
clusters/dup (2)/dup (2).txt
clusters/dup (2)/dup.txt
duplicates/book (2)
duplicates/book (2)/book.txt
duplicates/book (2)/identical file - book.txt
duplicates/dup (2)
duplicates/dup (2)/dup.txt
duplicates/dup (2)/identical file - dup.txt"

nobody_sees_all() { [ "$(as_nobody "$(list)")" = "$root_names" ]; }

one_mode() { # links|files
	local mode=$1 out
	say "=== viewmode=$mode"
	chmod 700 "$SRC/private"
	FS_ARGS=(-o "viewmode=$mode,rescan=0,allow_other")
	mount_fs
	until_ok 120 grep -q '"state":"idle","books":7,' "$MNT/.simbookfs/status" ||
		fail "not idle with 7 books: $(cat "$MNT/.simbookfs/status")"
	out=$(sh -c "$(list)")
	say "--- root sees"
	echo "$out"
	[ "$out" = "$root_names" ] || fail "root's names"

	out=$(as_nobody "$(list)")
	say "--- nobody sees"
	echo "$out"
	[ "$out" = "$nobody_names" ] || fail "nobody's names tell of hidden books"
	if [ "$mode" = links ]; then
		out=$(as_nobody "$(targets)")
		echo "$out"
		echo "$out" | grep -q "^clusters/book (2)/book.txt -> .*/public/a/book.txt$" &&
			echo "$out" | grep -q "^clusters/book (2)/book (2).txt -> .*/public/b/book.txt$" &&
			echo "$out" | grep -q "^duplicates/book (2)/identical file - book.txt -> .*/public/b/book.txt$" ||
			fail "nobody's entries point at the wrong books"
	fi

	# opened: the caller's names are made again (the permission watch)
	chmod 755 "$MNT/private"
	until_ok 20 nobody_sees_all ||
		fail "nobody's names once private/ is open: $(as_nobody "$(list)")"
	umount_fs
}

one_mode links
one_mode files
echo "ok"
