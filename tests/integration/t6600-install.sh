#!/usr/bin/env bash
# make install / make uninstall into temporary DESTDIRs: the files, their
# modes and substitutions, the man pages (render without warnings, cover
# every option of --help), then the installed system in use: in a private
# mount namespace the DESTDIR is bound over /usr/local and /sbin, so mount(8)
# finds the installed helper exactly as on a real system while nothing
# outside the temp dir is written.  There: mount -t fuse.simbookfs, -t
# simbookfs, an fstab line (mount -a twice mounts once), the old
# 'simbookfs#SRC' form through mount.fuse3, a failing mount's status, umount,
# and the systemd unit's own command lines (start, stop, restart after a
# crash), with the daemon's system calls checked against the unit's filter.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
SIMBOOK_BUILD=${SIMBOOK_BUILD:-$top/build}
fail() { echo "FAIL: $*" >&2; exit 1; }
say() { echo "# $*"; }

# ---------------------------------------------------------------------------
# Part 2, run by part 1 as: unshare -m bash $0 --namespace T D
# ---------------------------------------------------------------------------
if [ "${1:-}" = --namespace ]; then
	T=$2 D=$3
	SRC=$T/src MNT=$T/mnt
	daemon_pids() { pgrep -f "^[^ ]*simbookfs (-f )?$T/" || true; }
	is_mounted() { findmnt -n -M "$1" >/dev/null 2>&1; }
	ns_cleanup() {
		local rc=$? p
		trap - EXIT
		set +e
		for m in "$T/mnt" "$T/mnt2" "$SRC.sim"; do
			if is_mounted "$m"; then umount -l "$m" 2>/dev/null || true; fi
		done
		for p in $(daemon_pids); do kill "$p" 2>/dev/null || true; done
		exit "$rc"
	}
	trap ns_cleanup EXIT
	trap 'echo "FAIL: namespace part interrupted" >&2; exit 124' TERM INT
	# Wait until no daemon serves $T any more (umount ends it).
	wait_daemons_gone() {
		local _
		for _ in $(seq 1 100); do
			[ -z "$(daemon_pids)" ] && return 0
			sleep 0.05
		done
		fail "daemon still running after unmount: $(daemon_pids)"
	}
	check_mount() { # mnt source: mounted as fuse.simbookfs, usable both ways
		local got
		got=$(findmnt -n -o FSTYPE,SOURCE -M "$1") || fail "$1 not mounted"
		[ "$got" = "fuse.simbookfs $2" ] || fail "mount at $1 is '$got', expected 'fuse.simbookfs $2'"
		[ "$(cat "$1/hello.txt")" = "hello from SRC" ] || fail "read through $1"
		echo "written through $1" >"$1/new.txt"
		[ "$(cat "$SRC/new.txt")" = "written through $1" ] || fail "write through $1"
		rm "$1/new.txt"
	}
	unmount() { # mnt
		umount "$1" || fail "umount $1"
		is_mounted "$1" && fail "$1 still mounted after umount"
		wait_daemons_gone
	}

	mount --bind "$D/usr/local" /usr/local
	mount --bind "$T/sbin" /sbin
	[ -x /sbin/mount.fuse.simbookfs ] && [ -x /usr/local/bin/simbookfs ] ||
		fail "bind mounts of the installed tree"

	say "mount -t fuse.simbookfs (mount.fuse.simbookfs), umount"
	mount -t fuse.simbookfs -o allow_other,defaults "$SRC" "$MNT"
	check_mount "$MNT" "$SRC"
	grep -q "^/usr/local/bin/simbookfs $SRC $MNT " <(ps -o args= -p "$(daemon_pids)") ||
		fail "the helper did not run the installed daemon: $(ps -o args= -p "$(daemon_pids)")"
	unmount "$MNT"

	say "mount -t simbookfs (mount.simbookfs) with daemon options, umount"
	mount -t simbookfs -o ro,cache_timeout=5,nofail "$SRC" "$MNT"
	findmnt -n -o OPTIONS -M "$MNT" | grep -q '^ro,' || fail "ro not applied"
	[ "$(cat "$MNT/hello.txt")" = "hello from SRC" ] || fail "read through the ro mount"
	unmount "$MNT"

	say "fstab line: mount MNT, then mount -a twice mounts once"
	mkdir "$T/mnt2"
	{
		echo "# temporary fstab of the install test"
		echo "$SRC $MNT fuse.simbookfs allow_other,noauto,x-systemd.automount,_netdev 0 0"
		# a second mount of one library serves it without an index
		# (one daemon per index)
		echo "$SRC $T/mnt2 fuse.simbookfs allow_other,nofail,noindex,x-systemd.requires-mounts-for=$SRC 0 0"
	} >"$T/fstab"
	mount -T "$T/fstab" "$MNT"
	check_mount "$MNT" "$SRC"
	mount -T "$T/fstab" -a
	mount -T "$T/fstab" -a
	[ "$(findmnt -n -M "$T/mnt2" | wc -l)" = 1 ] || fail "mount -a mounted $T/mnt2 more than once"
	check_mount "$T/mnt2" "$SRC"
	umount "$T/mnt2"
	unmount "$MNT"

	say "old form simbookfs#SRC with type fuse (mount.fuse3 and the shell's PATH)"
	if [ -x /sbin/mount.fuse ]; then
		echo "simbookfs#$SRC $MNT fuse allow_other 0 0" >"$T/fstab.old"
		mount -T "$T/fstab.old" "$MNT"
		[ "$(cat "$MNT/hello.txt")" = "hello from SRC" ] || fail "read through the old form"
		unmount "$MNT"
	else
		say "(no mount.fuse3 on this system: old form not checked)"
	fi

	say "a failing mount: status 32, nothing left mounted"
	rc=0
	mount -t fuse.simbookfs -o no_such_option "$SRC" "$MNT" 2>"$T/err" || rc=$?
	[ "$rc" -eq 32 ] || fail "mount with a bad option exited $rc, expected 32"
	grep -q no_such_option "$T/err" || fail "no message naming the bad option: $(cat "$T/err")"
	is_mounted "$MNT" && fail "mounted despite the error"
	wait_daemons_gone

	# The systemd unit: systemd is not running here, so its command lines
	# are run the way systemd would (specifiers, Environment=, $$), which
	# checks the lines themselves; systemd-analyze checks the rest.
	unit_src=$D/usr/local/lib/systemd/system/simbookfs@.service
	if ! command -v systemd-escape >/dev/null 2>&1; then
		say "(no systemd tools on this system: the unit is not checked)"
		echo "namespace part done"
		exit 0
	fi
	inst=$(systemd-escape --path "$SRC")
	if command -v systemd-analyze >/dev/null 2>&1; then
		say "systemd-analyze verify simbookfs@$inst.service"
		mkdir "$T/units"
		cp "$unit_src" "$T/units/simbookfs@$inst.service"
		# --man=no: the man pages are not in man's path here.
		systemd-analyze verify --man=no "$T/units/simbookfs@$inst.service" >"$T/verify" 2>&1 ||
			fail "systemd-analyze verify: $(cat "$T/verify")"
		[ ! -s "$T/verify" ] || fail "systemd-analyze verify: $(cat "$T/verify")"
	fi
	declare -A env=()
	while IFS= read -r line; do
		line=${line#Environment=}
		line=${line#\"}; line=${line%\"}
		env[${line%%=*}]=${line#*=}
	done < <(grep '^Environment=' "$unit_src")
	unit_line() { # key: the command of that Exec line, systemd-expanded
		local l k v
		grep "^$1=" "$unit_src" | while IFS= read -r l; do
			l=${l#*=}
			l=${l//%f/$SRC}
			l=${l//\$\$/$'\x01'}
			for k in "${!env[@]}"; do
				v=${env[$k]//%f/$SRC}
				l=${l//\$\{$k\}/$v}
				l=${l//\$$k/$v}
			done
			printf '%s\n' "${l//$'\x01'/\$}"
		done
	}
	[ "${env[SIMBOOKFS_MOUNTPOINT]}" = "%f.sim" ] || fail "unit's default mount point"
	UMNT=$SRC.sim
	run_pre() { local c; while IFS= read -r c; do eval "$c" || fail "ExecStartPre: $c"; done < <(unit_line ExecStartPre); }
	start_unit() { # prefix...: runs ExecStart in the background, then ExecStartPost
		local c
		run_pre
		c=$(unit_line ExecStart)
		eval "$* $c" >"$T/unit.log" 2>&1 &
		UNIT_PID=$!
		c=$(unit_line ExecStartPost)
		timeout 40 bash -c "$c" || fail "ExecStartPost: the mount did not appear: $(cat "$T/unit.log")"
	}
	unit_stop() { # signal: sends it to the daemon, waits (bounded) for ExecStart to end
		local d i t
		d=$(daemon_pids)
		kill -"$1" $d
		for i in $(seq 1 400); do kill -0 "$UNIT_PID" 2>/dev/null || break; sleep 0.05; done
		if kill -0 "$UNIT_PID" 2>/dev/null; then
			for t in /proc/$d/task/*; do
				echo "thread ${t##*/} $(cat "$t/comm") $(cat "$t/wchan")"; cat "$t/stack"
			done 2>/dev/null
			fail "daemon $d still running 20 s after SIG$1"
		fi
		UNIT_RC=0; wait "$UNIT_PID" 2>/dev/null || UNIT_RC=$?
	}
	say "unit: start (ExecStartPre, ExecStart, ExecStartPost), stop with SIGTERM"
	strace_ok=0
	if command -v strace >/dev/null 2>&1 && ! grep -q -a __asan_init /usr/local/bin/simbookfs; then
		strace_ok=1
	fi
	if [ "$strace_ok" -eq 1 ]; then
		start_unit strace -f -qq -o "$T/strace.log"
	else
		say "(sanitizer build or no strace: the system call check is left out)"
		start_unit
	fi
	check_mount "$UMNT" simbookfs
	(cd "$UMNT" && mkdir d && touch d/f && ln d/f d/g && ln -s f d/s && mv d/g d/h &&
		chmod 600 d/f && truncate -s 10 d/f && ls -lR >/dev/null && rm -r d) ||
		fail "file operations through the unit's mount"
	unit_stop TERM
	[ "$UNIT_RC" -eq 0 ] || fail "daemon stopped by SIGTERM exited $UNIT_RC: $(cat "$T/unit.log")"
	is_mounted "$UMNT" && fail "still mounted after SIGTERM"
	if [ "$strace_ok" -eq 1 ] && command -v systemd-analyze >/dev/null 2>&1; then
		say "every system call the daemon made is allowed by the unit's SystemCallFilter"
		filter=$(sed -n 's/^SystemCallFilter=//p' "$unit_src")
		expand() { # group: its system calls, nested groups expanded
			systemd-analyze syscall-filter --no-pager "$1" | sed -n '2,$p' | sed 's/#.*//' |
				awk 'NF { print $1 }' | while read -r s; do
					case $s in @*) expand "$s" ;; *) echo "$s" ;; esac
				done
		}
		for g in $filter; do expand "$g"; done | sort -u >"$T/allowed"
		sed -n 's/^[0-9]* *\([a-z_0-9]*\)(.*/\1/p' "$T/strace.log" | sort -u >"$T/used"
		[ "$(wc -l <"$T/used")" -gt 20 ] || fail "strace saw too few calls: $(head "$T/strace.log")"
		extra=$(comm -23 "$T/used" "$T/allowed" | grep -v -x -e execve -e exit -e exit_group || true)
		[ -z "$extra" ] || fail "system calls outside SystemCallFilter: $extra"
		say "($(wc -l <"$T/used") distinct system calls seen, all allowed)"
	fi
	say "unit: restart after a crash (ExecStartPre lifts the dead mount)"
	start_unit
	unit_stop KILL
	is_mounted "$UMNT" || fail "no dead mount left by the crash (test premise)"
	start_unit
	check_mount "$UMNT" simbookfs
	unit_stop TERM
	[ "$UNIT_RC" -eq 0 ] || fail "daemon exited $UNIT_RC after SIGTERM"
	is_mounted "$UMNT" && fail "still mounted after SIGTERM"
	echo "namespace part done"
	exit 0
fi

# ---------------------------------------------------------------------------
# Part 1
# ---------------------------------------------------------------------------
[ -x "$SIMBOOK_BUILD/simbookfs" ] && [ -x "$SIMBOOK_BUILD/simbook" ] || fail "not built: $SIMBOOK_BUILD"
T=$(mktemp -d "${TMPDIR:-/tmp}/simbookfs-install.XXXXXX")
daemon_pids() { pgrep -f "^[^ ]*simbookfs (-f )?$T/" || true; }
cleanup() {
	local rc=$? p
	trap - EXIT TERM INT
	set +e	# every step below must run, whatever fails
	[ -n "${WATCHDOG:-}" ] && kill "$WATCHDOG" 2>/dev/null
	[ -n "${NS_PID:-}" ] && kill "$NS_PID" 2>/dev/null
	# A daemon left in the namespace unmounts itself on SIGTERM.
	for p in $(daemon_pids); do kill "$p" 2>/dev/null || true; done
	sleep 0.2
	for p in $(daemon_pids); do kill -9 "$p" 2>/dev/null || true; done
	rm -rf "$T" 2>/dev/null || true
	exit "$rc"
}
trap cleanup EXIT
trap 'echo "FAIL: interrupted or timed out" >&2; exit 124' TERM INT
(sleep "${SIMBOOK_CASE_TIMEOUT:-240}"; kill -TERM $$ 2>/dev/null) >/dev/null 2>&1 &
WATCHDOG=$!

# A clean sub-make: not the caller's jobserver or command-line variables.
mk() { env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C "$top" -o all BUILD="$SIMBOOK_BUILD" "$@"; }
version=$(cat "$top/VERSION")
files() { (cd "$1" && find . ! -type d | sed 's|^\./||' | LC_ALL=C sort); }

say "make install DESTDIR (default PREFIX=/usr/local, SBINDIR=/sbin)"
D=$T/dest
mk install DESTDIR="$D" >"$T/install.log" 2>&1 || fail "make install: $(tail "$T/install.log")"
expected="sbin/mount.fuse.simbookfs
sbin/mount.simbookfs
usr/local/bin/simbook
usr/local/bin/simbookfs
usr/local/lib/systemd/system/simbookfs@.service
$(for f in README.md docs/VIEWS.md; do
	if [ -f "$top/$f" ]; then echo "usr/local/share/doc/simbookfs/${f#docs/}"; fi
done)
usr/local/share/doc/simbookfs/USAGE.md
usr/local/share/doc/simbookfs/LICENSE
usr/local/share/man/man1/simbook.1
usr/local/share/man/man1/simbookfs.1
usr/local/share/man/man8/mount.fuse.simbookfs.8
usr/local/share/man/man8/mount.simbookfs.8"
expected=$(echo "$expected" | sed '/^$/d' | LC_ALL=C sort)
[ "$(files "$D")" = "$expected" ] || fail "installed files differ:
$(diff <(echo "$expected") <(files "$D"))"
for f in usr/local/bin/simbook usr/local/bin/simbookfs sbin/mount.simbookfs; do
	[ "$(stat -c %a "$D/$f")" = 755 ] || fail "$f mode $(stat -c %a "$D/$f")"
done
for f in usr/local/share/man/man1/simbook.1 usr/local/share/man/man8/mount.simbookfs.8 \
	usr/local/lib/systemd/system/simbookfs@.service usr/local/share/doc/simbookfs/USAGE.md; do
	[ "$(stat -c %a "$D/$f")" = 644 ] || fail "$f mode $(stat -c %a "$D/$f")"
done
[ "$(readlink "$D/sbin/mount.fuse.simbookfs")" = mount.simbookfs ] || fail "mount.fuse.simbookfs link"
if grep -l -E '@(BINDIR|SBINDIR|VERSION)@' -r "$D"; then fail "placeholders left in installed files"; fi
grep -q "^bindir='/usr/local/bin'$" "$D/sbin/mount.simbookfs" || fail "helper's bindir"
grep -q '^ExecStart=/usr/local/bin/simbookfs ' "$D/usr/local/lib/systemd/system/simbookfs@.service" ||
	fail "unit's ExecStart"
[ "$("$D/usr/local/bin/simbookfs" --version | cut -d' ' -f1,2)" = "simbookfs $version" ] || fail "simbookfs --version"
[ "$("$D/usr/local/bin/simbook" --version)" = "simbook $version" ] || fail "simbook --version"

say "man pages render without warnings"
command -v man >/dev/null 2>&1 && command -v groff >/dev/null 2>&1 ||
	fail "man and groff are needed (scripts/install-deps.sh installs man-db and groff-base)"
render() { # page: plain text, no hyphenation or justification
	LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings --nh --nj -l "$1" 2>"$T/man.err"
	[ ! -s "$T/man.err" ] || fail "$1: warnings: $(cat "$T/man.err")"
}
for p in "$D"/usr/local/share/man/man*/*; do
	[ "${p##*/}" = mount.fuse.simbookfs.8 ] && continue	# .so, below
	render "$p" >"$T/page"
	[ "$(wc -l <"$T/page")" -gt 15 ] || fail "$p renders almost empty"
	grep -q "$version" "$T/page" || fail "$p does not show version $version"
done
(cd "$D/usr/local/share/man" && render man8/mount.fuse.simbookfs.8) | grep -q 'mount(8) helper' ||
	fail "mount.fuse.simbookfs(8) does not lead to mount.simbookfs(8)"

say "the man pages cover every option and command of --help"
render "$D/usr/local/share/man/man1/simbookfs.1" >"$T/simbookfs.txt"
"$SIMBOOK_BUILD/simbookfs" --help | sed -e 1d -e '/^libfuse options:/,$d' >"$T/help"
opts=$(grep -o -E -- '-o (\[no\])?[a-z_]+' "$T/help" | sed -E 's/^-o (\[no\])?//' | sort -u)
flags=$(grep -o -E -- '^ +-[a-zA-Z](, --?[a-z-]+)?' "$T/help" | tr ',' '\n' | tr -d ' ' | sort -u)
[ -n "$opts" ] && [ -n "$flags" ] || fail "could not read the options from simbookfs --help"
for o in $opts; do grep -q -w -- "$o" "$T/simbookfs.txt" || fail "simbookfs(1) lacks -o $o"; done
for f in $flags; do grep -q -- "$f\b" "$T/simbookfs.txt" || fail "simbookfs(1) lacks $f"; done
# Numeric defaults: "-o NAME... (default N" in --help, "default N" in the
# page's paragraph on -o NAME.
awk '/^  -o [a-z_]/ { split($2, a, "="); o = a[1] } /^  -[^o]/ { o = "" }
	o != "" && match($0, /\(default [0-9]+/) { print o, substr($0, RSTART + 9, RLENGTH - 9); o = "" }' \
	"$T/help" >"$T/defaults"
[ -s "$T/defaults" ] || fail "no defaults read from simbookfs --help"
while read -r o v; do
	awk -v o="$o" '/^       -/ { on = ($0 ~ ("^       -o " o "([= ,]|$)")) } on' "$T/simbookfs.txt" |
		grep -q "default $v\b" || fail "simbookfs(1) does not give -o $o's default $v"
done <"$T/defaults"
render "$D/usr/local/share/man/man1/simbook.1" >"$T/simbook.txt"
cmds=$("$SIMBOOK_BUILD/simbook" --help | sed -n '/^commands:/,/^$/p' | sed 1d | awk '{ print $1 }')
for c in $cmds; do
	grep -q -E "^ +(simbook )?$c\b" "$T/simbook.txt" || fail "simbook(1) lacks the command '$c'"
done

say "mount.simbookfs -f (fake) shows the translated options"
out=$("$D/sbin/mount.simbookfs" "$T/src" "$T/mnt" -f -o rw,defaults,noauto,user,nofail,_netdev,x-systemd.automount,comment=x,relatime,allow_other,cache_timeout=5 2>&1) ||
	fail "mount.simbookfs -f: $out"
[ "$out" = "mount.simbookfs: /usr/local/bin/simbookfs $T/src $T/mnt -o rw,allow_other,cache_timeout=5,fsname=$T/src" ] ||
	fail "mount.simbookfs -f printed: $out"
out=$("$D/sbin/mount.fuse.simbookfs" "simbookfs#$T/a,b" "$T/mnt" -fv -o ro,fsname=books -t fuse.simbookfs 2>&1)
[ "$out" = "mount.fuse.simbookfs: /usr/local/bin/simbookfs $T/a,b $T/mnt -o ro,fsname=books" ] ||
	fail "mount.fuse.simbookfs -fv printed: $out"
out=$("$D/sbin/mount.simbookfs" "$T/a,b" "$T/mnt" -f 2>&1)
[ "$out" = "mount.simbookfs: /usr/local/bin/simbookfs $T/a,b $T/mnt -o fsname=$T/a\\,b" ] ||
	fail "comma in SRC not escaped for fsname: $out"
rc=0; "$D/sbin/mount.simbookfs" "$T/src" 2>/dev/null || rc=$?
[ "$rc" -eq 1 ] || fail "helper usage error exited $rc, expected 1"
rc=0; "$D/sbin/mount.simbookfs" "$T/src" "$T/mnt" -t ext4 2>/dev/null || rc=$?
[ "$rc" -eq 1 ] || fail "helper with a foreign type exited $rc, expected 1"

say "make uninstall leaves no file behind"
mk uninstall DESTDIR="$D" >"$T/uninstall.log" 2>&1 || fail "make uninstall: $(tail "$T/uninstall.log")"
[ -z "$(files "$D")" ] || fail "left after uninstall: $(files "$D")"
[ ! -e "$D/usr/local/share/doc/simbookfs" ] || fail "doc directory left after uninstall"

say "PREFIX=/usr SBINDIR= (no mount helper), install and uninstall"
D2=$T/dest2
mk install DESTDIR="$D2" PREFIX=/usr SBINDIR= >"$T/install2.log" 2>&1 || fail "make install PREFIX=/usr: $(tail "$T/install2.log")"
files "$D2" | grep -q -E 'sbin|man8' && fail "SBINDIR= still installed the helper: $(files "$D2")"
[ -x "$D2/usr/bin/simbookfs" ] && [ -f "$D2/usr/lib/systemd/system/simbookfs@.service" ] ||
	fail "PREFIX=/usr layout: $(files "$D2")"
grep -q '^ExecStart=/usr/bin/simbookfs ' "$D2/usr/lib/systemd/system/simbookfs@.service" || fail "unit's ExecStart for /usr"
mk uninstall DESTDIR="$D2" PREFIX=/usr SBINDIR= >/dev/null 2>&1 || fail "make uninstall PREFIX=/usr"
[ -z "$(files "$D2")" ] || fail "left after uninstall: $(files "$D2")"

# The installed system in use, through mount(8).
why=""
if [ "$(id -u)" -ne 0 ]; then why="not root"
elif [ ! -c /dev/fuse ]; then why="no /dev/fuse"
elif ! command -v unshare >/dev/null 2>&1; then why="no unshare"
elif ! unshare -m --propagation private true 2>/dev/null; then why="cannot make a private mount namespace"
elif [ ! -d /usr/local ] || [ ! -d /sbin ]; then why="no /usr/local or /sbin to bind over"
fi
if [ -n "$why" ]; then
	echo "skip: mounting through mount(8) not tested ($why); install, uninstall and man pages passed"
	exit 77
fi
mk install DESTDIR="$D" >"$T/install.log" 2>&1 || fail "make install: $(tail "$T/install.log")"
mkdir -p "$T/src" "$T/mnt" "$T/sbin"
echo "hello from SRC" >"$T/src/hello.txt"
# What mount(8) will see as /sbin: the installed helpers, and mount.fuse3
# for the old form.
ln -s "$D/sbin/mount.simbookfs" "$D/sbin/mount.fuse.simbookfs" "$T/sbin/"
if [ -x /sbin/mount.fuse3 ]; then
	cp /sbin/mount.fuse3 "$T/sbin/"
	ln -s mount.fuse3 "$T/sbin/mount.fuse"
fi
# In the background so that the watchdog's signal is handled at once.
unshare -m --propagation private bash "$0" --namespace "$T" "$D" &
NS_PID=$!
wait "$NS_PID" || fail "mounting through mount(8) (above)"
NS_PID=
[ -z "$(daemon_pids)" ] || fail "daemon left running: $(daemon_pids)"
mk uninstall DESTDIR="$D" >/dev/null 2>&1 || fail "make uninstall"
[ -z "$(files "$D")" ] || fail "left after uninstall: $(files "$D")"
echo "all install checks passed"
