#!/bin/bash
# Give the testbed's dom0 our toolstack as a Debian package: build
# fipc-xen-tools (scripts/make-deb-xen-tools.sh: xl/libxl/libxlutil with
# phy1:, libxenstat/xentop, the block-fipc hotplug script; the toolstack
# build is cached in $FIPC_CACHE/xl-phy1 by its inputs) into
# build/dom0-packages/.  The testbed installs it with dpkg at boot
# (tests/testbed/dom0/boot.sh), as an administrator would, so every
# scenario runs the toolstack we ship, from the package we ship.
#
#   scripts/dom0-overlay.sh                       # make dom0-overlay
#   FIPC_XEN_SERIES=4.20 scripts/dom0-overlay.sh  # a Debian 13 dom0's
#
# FIPC_XEN_SERIES=4.17 (default, a Debian 12 dom0): build/dom0-packages/;
# 4.20 (Debian 13): build/dom0-packages-4.20/.  Exit status 3: no Xen 4.20
# source (tools/build-xl-phy1.sh), the directory left as it was.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
series=${FIPC_XEN_SERIES:-4.17}
case $series in
4.17) pkgs=$top/build/dom0-packages ;;
4.20) pkgs=$top/build/dom0-packages-4.20 ;;
*) echo "dom0-overlay: FIPC_XEN_SERIES=$series: use 4.17 or 4.20" >&2; exit 1 ;;
esac

rc=0
deb=$(FIPC_XEN_SERIES=$series "$top/scripts/make-deb-xen-tools.sh" | tail -n 1) || rc=$?
[ "$rc" = 0 ] || exit "$rc"
[ -f "$deb" ] || { echo "dom0-overlay: no fipc-xen-tools package" >&2; exit 1; }
# The copied install tree of earlier versions of this script.
rm -rf "$top/build/dom0-overlay" "$top/build/dom0-overlay.from"
rm -rf "$pkgs"
mkdir -p "$pkgs"
cp "$deb" "$pkgs/"
echo "dom0-overlay: the testbed's Xen $series dom0 installs ${pkgs#"$top"/}/${deb##*/}"
