#!/bin/sh
# Print the path of a Debian kernel source tree, extracting it once into
# $FIPC_CACHE keyed by the package version (checkpatch, KUnit, in-tree
# builds).  TARGET (scripts/ktarget.sh; default 6.1): 6.1 is the host's
# linux-source-6.1; 6.12 and mainline are the linux-source package of the
# trixie userland's headers' series (trixie's 6.12, trixie-backports'
# 7.3 now), downloaded there.
#
# usage: linux-src.sh [TARGET]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${FIPC_CACHE:-/var/cache/fipc}
target=${1:-6.1}
case $target in
6.1)
	pkg=linux-source-6.1
	ver=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null) || {
		echo "linux-src: $pkg is not installed (run scripts/deps.sh)" >&2
		exit 1
	}
	deb=
	;;
*)
	where=$("$top/scripts/ktarget.sh" "$target")
	# linux-headers-7.3.4+deb13-amd64: series 7.3
	series=$(echo "${where##*/linux-headers-}" | sed -n 's/^\([0-9]*\.[0-9]*\)\..*/\1/p')
	pkg=linux-source-$series
	debs=$cache/debs
	mkdir -p "$debs"
	ver=$("$top/scripts/trixie-root.sh" --run apt-cache show "$pkg" |
		sed -n 's/^Version: //p' | sort -V | tail -n 1)
	[ -n "$ver" ] || { echo "linux-src: no $pkg in the trixie userland's suites" >&2; exit 1; }
	deb=$debs/${pkg}_$(echo "$ver" | sed 's/:/%3a/')_all.deb
	;;
esac
dir="$cache/linux-source-$ver"
# One extraction at a time (the test command runs some suites side by
# side: scripts/test-all.sh).
mkdir -p "$cache"
exec 8>"$dir.lock"
flock -w 3600 8 || { echo "linux-src: $dir.lock is held by another run" >&2; exit 1; }
if [ ! -f "$dir/.extracted" ]; then
	if [ -n "$deb" ] && [ ! -s "$deb" ]; then
		echo "linux-src: downloading $pkg $ver" >&2
		"$top/scripts/trixie-root.sh" --bind "$debs" --run sh -c \
			'cd "$1" && apt-get -q download "$2=$3"' sh "$debs" "$pkg" "$ver" >&2
		[ -s "$deb" ] || { echo "linux-src: no $deb after the download" >&2; exit 1; }
	fi
	echo "linux-src: extracting $pkg $ver into $dir" >&2
	rm -rf "$dir" "$dir.tmp"
	mkdir -p "$dir.tmp"
	if [ -n "$deb" ]; then
		dpkg-deb --fsys-tarfile "$deb" |
			tar -xO "./usr/src/$pkg.tar.xz" | tar -C "$dir.tmp" -xJf -
	else
		tar -C "$dir.tmp" -xf "/usr/src/$pkg.tar.xz"
	fi
	mv "$dir.tmp/$pkg" "$dir"
	[ -z "$deb" ] || rm -f "$deb"
	rmdir "$dir.tmp"
	touch "$dir/.extracted"
fi
echo "$dir"
