#!/usr/bin/env bash
# t6200-syncthing: Debian's syncthing on the mount, in both view modes.
# Syncthing runs with its own temporary home, its GUI/REST API on a free
# 127.0.0.1 port with an API key, listening on 127.0.0.1 only, with global
# and local discovery, relays, NAT traversal (and STUN), usage reporting,
# crash reporting and upgrades off.  Send-only folders on the mount root, on
# similar/<book>/ and on clusters/ (the views with markerName "."; a view
# folder with the default marker shows why) are scanned through the REST
# API; the test asserts zero folder errors and the file counts that find(1)
# sees: links mode gives symlinks, files mode the books.  Syncthing is
# killed and the mount unmounted on every exit path; the whole case is
# bounded to 60 s.
SIMBOOK_CASE_TIMEOUT=${SIMBOOK_CASE_TIMEOUT:-60}
. "$(dirname "$0")/lib.sh"
command -v syncthing >/dev/null 2>&1 || skip "no syncthing (apt-get install syncthing)"
command -v python3 >/dev/null || skip "no python3"
export LC_ALL=C
FS_ARGS=()

# syncthing serve is a monitor process and the syncthing it starts.
ST_PID=
st_pids() {
	if [ -n "$ST_PID" ]; then
		echo "$ST_PID" $(ps -o pid= --ppid "$ST_PID" 2>/dev/null)
	fi
}
st_stop() {
	local pids p
	pids=$(st_pids)
	[ -n "$pids" ] || return 0
	kill $pids 2>/dev/null
	for _ in $(seq 1 50); do
		p=
		for q in $pids; do kill -0 "$q" 2>/dev/null && p=1; done
		[ -n "$p" ] || break
		sleep 0.1
	done
	kill -9 $pids 2>/dev/null || true
	ST_PID=
}
trap 'rc=$?; set +e; st_stop; (exit $rc); lib_cleanup' EXIT

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# The REST driver (one python per step: the machine is slow to start them).
#   st.py hello                      waits for the API, prints the device id
#   st.py folders ID ID:PATH:MARKER...  sets the send-only folders (no
#                                    watcher, no periodic scan), waits for
#                                    their first scans, prints the ms
#   st.py scan ID...                 scans each through the API, waits until
#                                    idle; prints per folder: id ms state
#                                    errors files dirs links bytes "error"
#   st.py stopped ID                 waits for the folder's error, prints it
cat >"$T/st.py" <<'PY'
import json, os, sys, time, urllib.request

def call(method, path, body=None):
    req = urllib.request.Request(os.environ["ST_URL"] + path, method=method,
                                 data=None if body is None else json.dumps(body).encode(),
                                 headers={"X-API-Key": os.environ["ST_KEY"],
                                          "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        data = r.read().decode()
    return json.loads(data) if data.strip() else {}

def retry(fn, secs=10):
    end = time.time() + secs
    while True:
        try:
            return fn()
        except Exception:
            if time.time() > end:
                raise
            time.sleep(0.1)

cmd, args = sys.argv[1], sys.argv[2:]
if cmd == "hello":
    retry(lambda: call("GET", "/rest/system/ping"))
    print(call("GET", "/rest/system/status")["myID"])
elif cmd == "folders":
    me, folders = args[0], []
    for spec in args[1:]:
        fid, path, marker = spec.split(":", 2)
        folders.append({"id": fid, "label": fid, "path": path, "type": "sendonly",
                        "devices": [{"deviceID": me}], "fsWatcherEnabled": False,
                        "rescanIntervalS": 3600, "markerName": marker})
    t0 = time.time()
    call("PUT", "/rest/config/folders", folders)
    # Each new folder starts with a full scan (hashing every file).
    end = time.time() + 20
    for f in folders:
        while time.time() < end:
            try:
                st = call("GET", "/rest/db/status?folder=" + f["id"])
            except Exception:
                st = {}
            if st.get("error") or (st.get("state") == "idle" and st.get("sequence", 0) > 0):
                break
            time.sleep(0.05)
    print(int((time.time() - t0) * 1000))
elif cmd == "scan":
    for fid in args:
        t0 = time.time()
        retry(lambda: call("POST", "/rest/db/scan?folder=" + fid))
        end = time.time() + 20
        while True:
            st = call("GET", "/rest/db/status?folder=" + fid)
            if st.get("state") == "idle" or time.time() > end:
                break
            time.sleep(0.05)
        ms = int((time.time() - t0) * 1000)
        errs = call("GET", "/rest/folder/errors?folder=" + fid).get("errors") or []
        for e in errs:
            print("# %s: %s: %s" % (fid, e.get("path"), e.get("error")), file=sys.stderr)
        print(fid, ms, st.get("state"), len(errs), st.get("localFiles"), st.get("localDirectories"),
              st.get("localSymlinks"), st.get("localBytes"), json.dumps(st.get("error") or ""))
elif cmd == "stopped":
    end = time.time() + 10
    while True:
        err = call("GET", "/rest/db/status?folder=" + args[0]).get("error") or ""
        if err or time.time() > end:
            break
        time.sleep(0.1)
    print(err)
PY
st() { python3 "$T/st.py" "$@"; }

# st_start: a fresh syncthing home with everything networked off.
st_start() {
	local home=$T/st-$MODE gui listen
	mkdir -p "$home"
	HOME=$home syncthing generate --home="$home/cfg" --no-default-folder --skip-port-probing \
		>"$home/generate.log" 2>&1 || fail "syncthing generate: $(cat "$home/generate.log")"
	gui=$(free_port)
	listen=$(free_port)
	export ST_URL=http://127.0.0.1:$gui ST_KEY=simbookfs-test-$RANDOM$RANDOM
	python3 - "$home/cfg/config.xml" "127.0.0.1:$gui" "tcp://127.0.0.1:$listen" "$ST_KEY" <<'PY'
import sys, xml.etree.ElementTree as ET
path, gui, listen, key = sys.argv[1:5]
tree = ET.parse(path)
root = tree.getroot()
root.find("gui").find("address").text = gui
root.find("gui").find("apikey").text = key
opts = root.find("options")
for k, v in {"listenAddress": listen, "globalAnnounceEnabled": "false",
             "localAnnounceEnabled": "false", "relaysEnabled": "false",
             "natEnabled": "false", "stunKeepaliveStartS": "0", "stunKeepaliveMinS": "0",
             "urAccepted": "-1", "autoUpgradeIntervalH": "0", "crashReportingEnabled": "false",
             "startBrowser": "false", "announceLANAddresses": "false"}.items():
    el = opts.find(k)
    if el is None:
        el = ET.SubElement(opts, k)
    el.text = v
tree.write(path)
PY
	HOME=$home STNOUPGRADE=1 STNORESTART=1 syncthing serve --home="$home/cfg" --no-browser \
		--no-restart --no-upgrade --logflags=0 >"$home/serve.log" 2>&1 &
	ST_PID=$!
	ST_ID=$(st hello) || fail "syncthing API not up: $(tail -n 5 "$home/serve.log")"
	if command -v ss >/dev/null 2>&1; then
		# Every socket it listens on is on 127.0.0.1.
		ss -Hltunp 2>/dev/null >"$T/ss.all" || true
		: >"$T/ss.out"
		for p in $(st_pids); do grep "pid=$p," "$T/ss.all" >>"$T/ss.out" || true; done
		[ -s "$T/ss.out" ] || fail "no listening sockets of syncthing seen"
		! awk '{ print $5 }' "$T/ss.out" | grep -qv '^127\.0\.0\.1:' ||
			fail "syncthing listens beyond 127.0.0.1: $(cat "$T/ss.out")"
	fi
}

# counts DIR: files, folders and symlinks under DIR as find(1) sees them
# (Syncthing's own .stfolder left out).
counts() {
	echo "$(find "$1" -type f ! -path "$1/.stfolder/*" | wc -l)" \
		"$(find "$1" -mindepth 1 -type d ! -path "$1/.stfolder" ! -path "$1/.stfolder/*" | wc -l)" \
		"$(find "$1" -type l | wc -l)"
}

python3 "$(dirname "$0")/genlib.py" "$SRC"
for MODE in links files; do
	say "view mode $MODE"
	mount_fs -o "viewmode=$MODE,rescan=0"
	for _ in $(seq 1 300); do
		grep -q '"state":"idle"' "$MNT/.simbookfs/status" && break
		sleep 0.1
	done
	grep -q '"books":7' "$MNT/.simbookfs/status" || fail "status: $(cat "$MNT/.simbookfs/status")"
	st_start
	SIM=$MNT/similar/a/base1.txt
	ms=$(st folders "$ST_ID" "root:$MNT:.stfolder" "sim:$SIM:." "clu:$MNT/clusters:." \
		"nomark:$MNT/duplicates:.stfolder") || fail "setting the folders"
	say "$MODE: first scan of the folders (hashing everything): $ms ms"
	st scan root sim clu >"$T/scan.out" || fail "scan through the API"
	while read -r id ms state errs files dirs links bytes error; do
		case $id in root) dir=$MNT ;; sim) dir=$SIM ;; clu) dir=$MNT/clusters ;; esac
		[ "$state $errs $error" = 'idle 0 ""' ] || fail "folder $id: state $state, $errs errors, $error"
		want=$(counts "$dir")
		[ "$files $dirs $links" = "$want" ] ||
			fail "folder $id: syncthing counts '$files $dirs $links' (files dirs links), find '$want'"
		say "$MODE: folder $id: $files files, $dirs folders, $links symlinks, $bytes bytes, 0 errors, rescan $ms ms"
		eval "c_$id='$files $links'"
	done <"$T/scan.out"
	[ "$(wc -l <"$T/scan.out")" = 3 ] || fail "scan results: $(cat "$T/scan.out")"
	read -r f_root l_root <<<"$c_root"
	read -r f_clu l_clu <<<"$c_clu"
	if [ "$MODE" = links ]; then
		[ "$c_sim" = "1 2" ] || fail "similar/ in links mode: $c_sim"
		[ "$f_clu" = 0 ] && [ "$l_clu" -ge 2 ] || fail "clusters/ in links mode: $c_clu"
		[ "$l_root" -ge 4 ] || fail "root in links mode: $c_root"
	else
		[ "$c_sim" = "3 0" ] || fail "similar/ in files mode: $c_sim"
		[ "$l_clu" = 0 ] && [ "$f_clu" -ge 2 ] || fail "clusters/ in files mode: $c_clu"
		[ "$l_root" = 0 ] || fail "root in files mode: $c_root"
		bytes=$(awk '$1 == "sim" { print $8 }' "$T/scan.out")
		[ "$bytes" = "$(find "$SIM" -type f -printf '%s\n' | awk '{ s += $1 } END { print s }')" ] ||
			fail "similar/ bytes: $bytes"
	fi
	# The default marker cannot be made in a read-only view: such a folder
	# stops, which is why view folders take markerName ".".
	err=$(st stopped nomark)
	[[ $err == *"marker missing"* ]] || fail "a view with the default marker: '$err'"
	st_stop
	umount_fs
done
echo ok
