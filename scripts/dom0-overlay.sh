#!/bin/bash
# Fill build/dom0-overlay/ with what the testbed's dom0 needs beyond the
# Debian image: the xl/libxl/libxlutil built with tools/libxl-phy1.patch
# and the block-fipc hotplug script (tools/build-xl-phy1.sh, cached in
# $FIPC_CACHE/xl-phy1 by its inputs).  The testbed copies the overlay over
# dom0's / at boot (tests/testbed/dom0/boot.sh), so every scenario runs the
# toolstack we ship.
#
#   scripts/dom0-overlay.sh        # make dom0-overlay
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
overlay=$top/build/dom0-overlay
stamp=$top/build/dom0-overlay.from   # which build it holds (not copied to dom0)

out=$("$top/tools/build-xl-phy1.sh" | tail -n 1)
[ -f "$out/.complete" ] && [ -d "$out/install" ] || {
	echo "dom0-overlay: no complete xl-phy1 build in '$out'" >&2
	exit 1
}
# Rebuilt only when the build it comes from changed.
if [ -d "$overlay" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$out" ]; then
	echo "dom0-overlay: up to date (xl-phy1 build ${out##*/})"
	exit 0
fi
rm -rf "$overlay.tmp"
mkdir -p "$overlay.tmp"
cp -a "$out/install/." "$overlay.tmp/"
rm -rf "$overlay"
mv "$overlay.tmp" "$overlay"
echo "$out" > "$stamp"
echo "dom0-overlay: patched xl (phy1) from ${out##*/}: $(grep -c . "$out/MANIFEST") files"
