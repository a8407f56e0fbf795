#!/bin/sh
# Print the path of Debian's linux-source-6.1 tree, extracting it once into
# $FIPC_CACHE keyed by the package version (checkpatch, KUnit, in-tree builds).
set -eu
cache=${FIPC_CACHE:-/var/cache/fipc}
ver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) || {
	echo "linux-src: linux-source-6.1 is not installed (run scripts/deps.sh)" >&2
	exit 1
}
dir="$cache/linux-source-$ver"
if [ ! -f "$dir/.extracted" ]; then
	echo "linux-src: extracting linux-source-6.1 $ver into $dir" >&2
	rm -rf "$dir" "$dir.tmp"
	mkdir -p "$dir.tmp"
	tar -C "$dir.tmp" -xf /usr/src/linux-source-6.1.tar.xz
	mv "$dir.tmp/linux-source-6.1" "$dir"
	rmdir "$dir.tmp"
	touch "$dir/.extracted"
fi
echo "$dir"
