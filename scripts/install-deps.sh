#!/bin/sh
# Installs the Debian packages simbookfs needs to build and test, when missing.
# Run as root (or with sudo).  Set SIMBOOK_DEPS_EXTRA to add packages.
set -eu
pkgs="build-essential pkg-config clang fuse3 libfuse3-dev liblmdb-dev lmdb-utils
libxxhash-dev libzip-dev zip libxml2-dev libutf8proc-dev libuchardet-dev
libpoppler-glib-dev libmobi-dev zlib1g-dev
rsync python3 attr acl strace ${SIMBOOK_DEPS_EXTRA:-}"
# man and groff render the man pages in the install test; libclang-rt has
# the libFuzzer runtime for the bounded fuzz runs; jq checks JSON output.
pkgs="$pkgs man-db groff-base libclang-rt-14-dev jq"
# GNU parallel: t7100 fingerprints a library over 4 shards with it (docs/BULK.md).
pkgs="$pkgs parallel"
# syncthing: t6200 runs it on the mount (localhost only, networking off).
pkgs="$pkgs syncthing"
# The file-manager test (t6300) runs pcmanfm on an Xvfb display; xwininfo
# (x11-utils) finds its window.  Measured: 12 s to install here (15
# packages; GTK 2 was already present).  From a bare Debian the closure
# with GTK 2 and the X libraries is at most ~140 MB to download.
pkgs="$pkgs xvfb pcmanfm x11-utils"
# The Redis index transport (src/index/rcl.c) builds on hiredis; its
# integration tests (t7000-t7009) start their own redis-server nodes and
# build a cluster with redis-cli.
pkgs="$pkgs libhiredis-dev redis-server redis-tools"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
if [ -z "$missing" ]; then
	echo "install-deps: all packages present"
	exit 0
fi
echo "install-deps: installing:$missing"
if [ "$(id -u)" -ne 0 ]; then
	exec sudo "$0" "$@"
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
