#!/usr/bin/env bash
# t1100-views-perms: the views show a book only to a caller who could look
# it up through the passthrough.  Mounted by root with allow_other over a
# library with public/ (0755) and private/ (0700, root's), in links and in
# files mode: root sees every book; nobody (su nobody) sees no name, entry,
# listing line, group title, lookup hit, error or not-duplicate mark of a
# book in private/, not even by its exact name right after root looked it
# up (the kernel's cache is shared by all users), until private/ is opened
# while mounted (through the mount), and again not once it is closed
# (behind the mount).  The transcripts of both users go to the log.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/viewlib.sh"
nobody_setup
command -v getfattr >/dev/null 2>&1 || skip "no getfattr"
BOOKS=${SIMBOOK_BOOKS:-$top/../shared/books}
[ -d "$BOOKS/texts" ] || skip "no shared books"
A=$BOOKS/texts/pg1952-the-yellow-wallpaper.txt
B=$BOOKS/texts/pg932-the-fall-of-the-house-of-usher.txt
[ -f "$A" ] && [ -f "$B" ] || skip "books missing"
mkdir -m 755 "$SRC/public"
mkdir -m 700 "$SRC/private"
cp "$A" "$SRC/public/a.txt"
cp "$A" "$SRC/public/a2.txt"
# identical to public/a.txt; first of the group and without a metadata
# title, so root's group of the three is named after it
cp "$A" "$SRC/private/secret-copy.txt"
cp "$B" "$SRC/private/aaa-secret-usher.txt"
cp "$B" "$SRC/public/usher1.txt"
cp "$B" "$SRC/public/usher2.txt"
printf 'PK\003\004broken' >"$SRC/private/secret-broken.epub"	# in errors
printf 'PK\003\004broken' >"$SRC/public/public-broken.epub"

# every name nobody finds under the views (find, ls, the generated files)
nobody_sees() {
	as_nobody "cd '$MNT' && find similar clusters duplicates .simbookfs 2>/dev/null;
		cat similar/public/a.txt/.similar.tsv similar/public/usher1.txt/.similar.tsv \
			.simbookfs/errors .simbookfs/not-duplicates 2>&1;
		ls -la similar/public/a.txt/ 'lookup/$ida/' 2>&1"
}
root_sees() {
	(cd "$MNT" && find similar clusters duplicates .simbookfs;
	 cat similar/public/a.txt/.similar.tsv .simbookfs/errors .simbookfs/not-duplicates;
	 ls -la similar/public/a.txt/ "lookup/$ida/")
}

one_mode() { # links|files
	local mode=$1 e sec out
	say "=== viewmode=$mode"
	FS_ARGS=(-o "viewmode=$mode,rescan=0,idxattr,allow_other")
	mount_fs
	wait_idle 60
	ida=$(getfattr --only-values -n user.simbookfs.id "$MNT/public/a.txt")
	[ ${#ida} -eq 32 ] || fail "no id for public/a.txt"
	# root: the private books are there
	until_ok 10 sh -c "ls '$MNT/similar/public/a.txt/' | grep -q 'secret-copy.txt'" ||
		fail "root does not see secret-copy.txt in similar/public/a.txt/"
	root_sees >"$T/root.txt" 2>&1
	say "--- root sees ($mode)"
	cat "$T/root.txt"
	grep -q "secret-copy.txt" "$T/root.txt" || fail "root: no secret-copy.txt"
	grep -q "private/secret-broken.epub" "$T/root.txt" || fail "root: no error of private/"
	grep -q "^duplicates/secret-copy (3)$" "$T/root.txt" ||
		fail "root: the group of a.txt is not named after the private book"
	[ -e "$MNT/similar/private/secret-copy.txt/.similar.tsv" ] || fail "root: no similar/private/secret-copy.txt/"
	printf 'not-duplicate\tpublic/usher1.txt\tprivate/aaa-secret-usher.txt\n' \
		>"$MNT/.simbookfs/control" || fail "root: control"
	printf 'not-duplicate\tpublic/usher1.txt\tpublic/usher2.txt\n' \
		>"$MNT/.simbookfs/control" || fail "root: control (public pair)"
	until_ok 10 grep -q "aaa-secret-usher" "$MNT/.simbookfs/not-duplicates" || fail "root: mark not listed"

	# root looks up the entry, then nobody asks for it by its exact name
	e=$(ls "$MNT/similar/public/a.txt/" | grep "secret-copy.txt$")
	sec="$MNT/similar/public/a.txt/$e"
	stat "$sec" >/dev/null && ls -la "$MNT/similar/public/a.txt/" >/dev/null
	! as_nobody "stat '$sec'" >/dev/null 2>&1 || fail "nobody stats root's cached entry $e"
	! as_nobody "cat '$sec'" >/dev/null 2>&1 || fail "nobody reads root's cached entry $e"
	if [ "$mode" = files ]; then	# root's open entry is not found by path for nobody
		exec 3<"$sec"
		! as_nobody "stat '$sec'" >/dev/null 2>&1 || fail "nobody stats root's open entry $e"
		exec 3<&-
	fi
	stat "$MNT/similar/private/secret-copy.txt" >/dev/null
	! as_nobody "ls '$MNT/similar/private/'" >/dev/null 2>&1 || fail "nobody lists similar/private/"
	! as_nobody "stat '$MNT/similar/private/secret-copy.txt'" >/dev/null 2>&1 ||
		fail "nobody reaches similar/private/secret-copy.txt/"

	out=$(nobody_sees)
	say "--- nobody sees ($mode)"
	echo "$out"
	echo "$out" | grep -q "usher1.txt" || fail "nobody: no public book"
	echo "$out" | grep -q "public/public-broken.epub" || fail "nobody: no error of public/"
	echo "$out" | grep -q "usher1.txt.*usher2.txt" || fail "nobody: public mark not listed"
	! echo "$out" | grep -q "secret" || fail "nobody sees a private name: $(echo "$out" | grep secret)"
	# ranked among what nobody may see: no gap where the hidden book ranks
	echo "$out" | grep -q " 01 100% identical file - a2.txt" || fail "nobody: a2.txt not ranked first"
	echo "$out" | grep -q " 01 d0 - a.txt" || fail "nobody: lookup/ not ranked for nobody"
	echo "$out" | grep -q "^duplicates/a (2)$" ||
		fail "nobody: the group of a.txt is not named after what nobody may see"
	echo "$out" | grep -q "^clusters/a (2)/a2.txt$" || fail "nobody: clusters/a (2)/a2.txt"

	say "private/ opened through the mount: nobody sees its books"
	chmod 755 "$MNT/private"
	until_ok 10 as_nobody "ls '$MNT/similar/public/a.txt/' | grep -q 'secret-copy.txt$'" ||
		fail "nobody does not see secret-copy.txt after chmod 755"
	until_ok 10 as_nobody "stat '$sec'" || fail "nobody cannot stat the entry after chmod 755"
	until_ok 10 as_nobody "grep -q secret-copy '$MNT/similar/public/a.txt/.similar.tsv'" ||
		fail "nobody: .similar.tsv without secret-copy after chmod 755"
	as_nobody "ls '$MNT/duplicates/'" | grep -q "^secret-copy (3)$" ||
		fail "nobody: the group of a.txt not whole after chmod 755"
	say "private/ closed behind the mount: hidden again, the cached entry too"
	chmod 700 "$SRC/private"
	until_ok 10 sh -c "! su nobody -s /bin/sh -c \"stat '$sec'\"" ||
		fail "nobody still stats $e after chmod 700 behind the mount"
	! as_nobody "ls '$MNT/similar/public/a.txt/'" | grep -q secret || fail "nobody lists it after chmod 700"
	! as_nobody "ls '$MNT/duplicates/'" | grep -q secret || fail "nobody: private title after chmod 700"
	stat "$sec" >/dev/null || fail "root lost the entry"
	printf 'undo-not-duplicate\tpublic/usher1.txt\tprivate/aaa-secret-usher.txt\n' >"$MNT/.simbookfs/control"
	umount_fs
}

one_mode links
one_mode files
echo ok
