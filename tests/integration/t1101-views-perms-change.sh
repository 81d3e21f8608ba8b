#!/usr/bin/env bash
# t1101-views-perms-change: a folder's permission changed through the mount
# while mounted (root, allow_other) is seen by a second user (su nobody)
# at once, with no retry, in links and in files mode: private/ (0700)
# opened with chmod 755 shows its book to nobody in similar/, .similar.tsv
# and by the entry's exact name; closed again with chmod 700 hides them.
# Entries below similar/private/ that point into vault/ (0700, root's)
# were kept in the kernel's cache for root (only root could get through
# similar/private/): once private/ is open, nobody must still not reach
# them, also while private/ is opened behind the mount (the daemon finds
# out within a second).  The transcripts go to the log.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/viewlib.sh"
nobody_setup
BOOKS=${SIMBOOK_BOOKS:-$top/../shared/books}
[ -d "$BOOKS/texts" ] || skip "no shared books"
A=$BOOKS/texts/pg1952-the-yellow-wallpaper.txt
[ -f "$A" ] || skip "books missing"
mkdir -m 755 "$SRC/public"
mkdir -m 700 "$SRC/private" "$SRC/vault"
cp "$A" "$SRC/public/a.txt"
cp "$A" "$SRC/private/secret-copy.txt"
cp "$A" "$SRC/vault/vault-copy.txt"

one_mode() { # links|files
	local mode=$1 e v out
	say "=== viewmode=$mode"
	FS_ARGS=(-o "viewmode=$mode,rescan=0,allow_other")
	mount_fs
	wait_idle 60
	until_ok 10 sh -c "ls '$MNT/similar/private/secret-copy.txt/' | grep -q 'vault-copy.txt$'" ||
		fail "root does not see vault-copy.txt in similar/private/secret-copy.txt/"
	e=$(ls "$MNT/similar/public/a.txt/" | grep "secret-copy.txt$")
	v=$(ls "$MNT/similar/private/secret-copy.txt/" | grep "vault-copy.txt$")
	# root's listings and looked-up entries are in the kernel's cache
	ls -la "$MNT/similar/public/a.txt/" "$MNT/similar/private/secret-copy.txt/"
	stat "$MNT/similar/public/a.txt/$e" "$MNT/similar/private/secret-copy.txt/$v" >/dev/null
	cat "$MNT/similar/public/a.txt/.similar.tsv" >/dev/null
	! as_nobody "stat '$MNT/similar/public/a.txt/$e'" >/dev/null 2>&1 ||
		fail "nobody stats $e before the change"

	say "chmod 755 private/ through the mount: nobody sees its book at once"
	chmod 755 "$MNT/private"
	out=$(as_nobody "cd '$MNT/similar' && ls -la public/a.txt/ private/secret-copy.txt/;
		cat public/a.txt/.similar.tsv; stat -c '%N' 'public/a.txt/$e'" 2>&1) || true
	echo "$out"
	echo "$out" | grep -q " - secret-copy.txt" || fail "nobody: no $e in the listing after chmod 755"
	as_nobody "cat '$MNT/similar/public/a.txt/.similar.tsv'" | grep -q "	private/secret-copy.txt" ||
		fail "nobody: .similar.tsv without it after chmod 755"
	echo "$out" | grep -q "^'public/a.txt/$e'" || fail "nobody cannot stat $e after chmod 755"
	echo "$out" | grep -q "vault" && fail "nobody sees vault/ after chmod 755: $(echo "$out" | grep vault)"
	! as_nobody "stat '$MNT/similar/private/secret-copy.txt/$v'" >/dev/null 2>&1 ||
		fail "nobody stats root's cached $v (vault/ is 0700) once private/ is open"
	! as_nobody "cat '$MNT/similar/private/secret-copy.txt/$v'" >/dev/null 2>&1 ||
		fail "nobody reads root's cached $v once private/ is open"

	say "chmod 700 private/ through the mount: hidden from nobody at once"
	stat "$MNT/similar/public/a.txt/$e" >/dev/null
	as_nobody "stat '$MNT/similar/public/a.txt/$e'" >/dev/null || fail "nobody lost $e while open"
	chmod 700 "$MNT/private"
	out=$(as_nobody "cd '$MNT/similar' && ls -la public/a.txt/; cat public/a.txt/.similar.tsv;
		stat -c '%N' 'public/a.txt/$e'; ls private/" 2>&1) || true
	echo "$out"
	echo "$out" | grep -q "^stat: cannot statx 'public/a.txt/$e': No such file" ||
		fail "nobody stats $e after chmod 700"
	! echo "$out" | grep -v "^stat: cannot statx" | grep -q "secret" ||
		fail "nobody still sees it after chmod 700: $(echo "$out" | grep secret)"
	stat "$MNT/similar/public/a.txt/$e" >/dev/null || fail "root lost $e"
	stat "$MNT/similar/private/secret-copy.txt/$v" >/dev/null || fail "root lost $v"

	say "chmod 755 private/ behind the mount: $v stays out of nobody's reach meanwhile"
	ls -la "$MNT/similar/private/secret-copy.txt/" >/dev/null
	chmod 755 "$SRC/private"
	for i in $(seq 1 15); do
		! as_nobody "stat '$MNT/similar/private/secret-copy.txt/$v'" >/dev/null 2>&1 ||
			fail "nobody stats root's cached $v after private/ opened behind the mount (try $i)"
		sleep 0.2
	done
	until_ok 10 as_nobody "ls '$MNT/similar/private/secret-copy.txt/'" >/dev/null 2>&1 ||
		fail "nobody cannot list similar/private/secret-copy.txt/ after it opened behind the mount"
	! as_nobody "ls '$MNT/similar/private/secret-copy.txt/'" | grep -q vault ||
		fail "nobody lists vault/'s book"
	chmod 700 "$SRC/private"
	umount_fs
}

one_mode links
one_mode files
echo ok
