#!/usr/bin/env bash
# t6300-filemanager: a real file manager on the views.  Mounts a generated
# library, waits until the index is idle, opens similar/a/base1.txt/ in
# Debian's pcmanfm on a private Xvfb display (its own HOME and XDG dirs, so
# no user configuration is read or written), waits for its window, takes a
# screenshot of it (Xvfb's -fbdir dump, converted by xwd2png.py) and checks
# under strace that pcmanfm looked at every entry of the folder and read
# its link.  Skips when Xvfb, pcmanfm, xwininfo or strace is missing.
# SIMBOOK_SCREENSHOT=FILE keeps the PNG (docs/similar-pcmanfm.png is made
# so); SIMBOOK_FM_VARIANTS=N lists N + 2 entries (default 8) to count the
# calls per entry on a larger folder.
SIMBOOK_CASE_TIMEOUT=${SIMBOOK_CASE_TIMEOUT:-60}
. "$(dirname "$0")/lib.sh"
for c in python3 Xvfb pcmanfm xwininfo strace setsid; do
	command -v "$c" >/dev/null 2>&1 || skip "no $c"
done
FS_ARGS=()
BOOK=a/base1.txt
DIR=$MNT/similar/$BOOK
XVFB_PID= PCM_PID=

# The GUI goes first: pcmanfm keeps the folder open, and Xvfb goes with it.
# Each runs in its own session, so killing the group takes its children.
fm_cleanup() {
	local rc=$? p
	set +e
	for p in $PCM_PID $XVFB_PID; do
		kill -TERM -- "-$p" 2>/dev/null
	done
	sleep 0.2
	for p in $PCM_PID $XVFB_PID; do
		kill -KILL -- "-$p" 2>/dev/null
	done
	PCM_PID= XVFB_PID=
	(exit "$rc")
	lib_cleanup
}
trap fm_cleanup EXIT

python3 "$(dirname "$0")/genlib.py" "$SRC" --variants "${SIMBOOK_FM_VARIANTS:-8}"
mount_fs -o rescan=0
for i in $(seq 1 300); do
	grep -q '"state":"idle"' "$MNT/.simbookfs/status" 2>/dev/null && break
	sleep 0.1
done
grep -q '"state":"idle"' "$MNT/.simbookfs/status" || fail "not idle: $(cat "$MNT/.simbookfs/status")"
mapfile -t names < <(ls "$DIR")
[ "${#names[@]}" -ge 9 ] || fail "similar/$BOOK has ${#names[@]} entries: ${names[*]}"
# Name order is rank order: best match first.
i=0
for n in "${names[@]}"; do
	i=$((i + 1))
	[ "$((10#${n%% *}))" -eq "$i" ] || fail "entry $i in name order has rank ${n%% *}: $n"
done
case "${names[*]}" in *"near duplicate - "*) ;; *) fail "no near duplicate: ${names[*]}" ;; esac
say "${#names[@]} entries in similar/$BOOK"

say "Xvfb on a free display"
mkdir -p "$T/fb" "$T/home/.config/pcmanfm/default" "$T/run"
chmod 700 "$T/run"
setsid Xvfb -displayfd 9 -screen 0 1000x620x24 -fbdir "$T/fb" -nolisten tcp -nocursor \
	9>"$T/display" >"$T/xvfb.log" 2>&1 &
XVFB_PID=$!
for i in $(seq 1 100); do
	[ -s "$T/display" ] && break
	kill -0 "$XVFB_PID" 2>/dev/null || skip "Xvfb does not start: $(tail -n 3 "$T/xvfb.log")"
	sleep 0.1
done
[ -s "$T/display" ] || fail "Xvfb gave no display number"
DISP=:$(head -n 1 "$T/display")

say "pcmanfm on $DISP, list view sorted by name"
cat >"$T/home/.config/pcmanfm/default/pcmanfm.conf" <<EOF
[ui]
win_width=1000
win_height=470
view_mode=list
show_hidden=0
sort=name;ascending;
EOF
env -i PATH=/usr/bin:/bin HOME="$T/home" XDG_CONFIG_HOME="$T/home/.config" \
	XDG_CACHE_HOME="$T/home/.cache" XDG_DATA_HOME="$T/home/.local/share" \
	XDG_RUNTIME_DIR="$T/run" DISPLAY="$DISP" NO_AT_BRIDGE=1 LANG=C.UTF-8 \
	setsid strace -f -qq -o "$T/strace.txt" -e trace=%file,getdents64 pcmanfm "$DIR" \
	>"$T/pcmanfm.log" 2>&1 &
PCM_PID=$!

geom=
for i in $(seq 1 200); do
	geom=$(DISPLAY=$DISP xwininfo -name base1.txt 2>/dev/null |
		awk '/Absolute upper-left X/ {x = $NF} /Absolute upper-left Y/ {y = $NF}
		     /^  Width/ {w = $NF} /^  Height/ {h = $NF}
		     END { if (w) printf "%dx%d+%d+%d", w, h, x, y }') || true
	[ -n "$geom" ] && break
	kill -0 "$PCM_PID" 2>/dev/null || fail "pcmanfm exited: $(tail -n 5 "$T/pcmanfm.log")"
	sleep 0.1
done
[ -n "$geom" ] || fail "no pcmanfm window titled base1.txt"
say "window $geom"

say "every entry looked at (lstat/statx) and its link read"
missing=()
for i in $(seq 1 150); do
	missing=()
	for n in "${names[@]}"; do
		grep -qF "stat(\"$DIR/$n\"" "$T/strace.txt" ||
			grep -qF "statx(AT_FDCWD, \"$DIR/$n\"" "$T/strace.txt" ||
			{ missing+=("$n"); continue; }
		grep -qF "readlink(\"$DIR/$n\"" "$T/strace.txt" || missing+=("$n (readlink)")
	done
	[ "${#missing[@]}" -eq 0 ] && break
	sleep 0.1
done
[ "${#missing[@]}" -eq 0 ] || fail "pcmanfm did not list: ${missing[*]}"
grep -q 'getdents64(' "$T/strace.txt" || fail "no directory read in the trace"
calls=$(grep -F "$DIR/" "$T/strace.txt" | grep -c -E '(stat|statx|readlink|access)\(')
say "pcmanfm: $calls calls on ${#names[@]} entries ($(awk -v c="$calls" -v n="${#names[@]}" 'BEGIN { printf "%.2f", c / n }') per entry)"

say "screenshot"
sleep 1	# let the list finish drawing
python3 "$(dirname "$0")/xwd2png.py" "$T/fb/Xvfb_screen0" "$T/shot.png" "$geom"
size=$(stat -c %s "$T/shot.png")
[ "$(head -c 8 "$T/shot.png" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] || fail "not a PNG"
[ "$size" -gt 5000 ] || fail "screenshot of $size bytes: blank window?"
[ -n "${SIMBOOK_SCREENSHOT:-}" ] && cp "$T/shot.png" "$SIMBOOK_SCREENSHOT"
say "screenshot $size bytes"
echo "ok"
