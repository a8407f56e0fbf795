#!/bin/bash
# Give the testbed's dom0 our toolstack as a Debian package: build
# fipc-xen-tools (scripts/make-deb-xen-tools.sh: xl/libxl/libxlutil with
# phy1:, libxenstat/xentop, the block-fipc hotplug script; the toolstack
# build is cached in $FIPC_CACHE/xl-phy1 by its inputs) into
# build/dom0-packages/.  The testbed installs it with dpkg at boot
# (tests/testbed/dom0/boot.sh), as an administrator would, so every
# scenario runs the toolstack we ship, from the package we ship.
#
#   scripts/dom0-overlay.sh        # make dom0-overlay
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
pkgs=$top/build/dom0-packages

deb=$("$top/scripts/make-deb-xen-tools.sh" | tail -n 1)
[ -f "$deb" ] || { echo "dom0-overlay: no fipc-xen-tools package" >&2; exit 1; }
# The copied install tree of earlier versions of this script.
rm -rf "$top/build/dom0-overlay" "$top/build/dom0-overlay.from"
rm -rf "$pkgs"
mkdir -p "$pkgs"
cp "$deb" "$pkgs/"
echo "dom0-overlay: the testbed's dom0 installs ${deb##*/}"
