#!/bin/bash
# Print the path of the cached trixie build userland, making it once:
# a debootstrap (minbase) of Debian 13 with the compiler and the kernel
# headers of trixie (6.12) and trixie-backports (mainline) that
# scripts/trixie-packages.txt lists.  Keyed by that list and $layout
# (raise it when make_root changes what it makes);
# the packages' versions are those the archive served when it was made
# (scripts/ktarget.sh prints them).  $FIPC_CACHE/trixie-root/<key>/.
#
# Run a command in it with scripts/trixie-root.sh [--bind DIR]... --run
# CMD... (a private mount namespace with /proc, /dev, /sys and each DIR at
# its own path; nothing stays mounted).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${FIPC_CACHE:-/var/cache/fipc}
list=$top/scripts/trixie-packages.txt
layout=1
key=$( (echo "$layout"; cat "$list") | sha256sum | cut -c1-16)
root=$cache/trixie-root/$key

# The host's mirror (its deb822 or one-line apt sources).
host_mirror() {
	local m
	m=$(sed -n 's/^URIs: *\([^ ]*debian\)\/*$/\1/p' \
		/etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
	[ -n "$m" ] || m=$(sed -n 's/^deb \(\[[^]]*\] \)\{0,1\}\([^ ]*debian\)\/* .*/\2/p' \
		/etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		head -n 1)
	echo "${m:-http://deb.debian.org/debian}"
}

binds=
in_root() {
	unshare -m --propagation private sh -c '
		r=$1; binds=$2; shift 2
		mount -t proc proc "$r/proc" &&
		mount --rbind /dev "$r/dev" &&
		mount -t sysfs sys "$r/sys" || exit 1
		for d in $binds; do
			mkdir -p "$r$d" && mount --bind "$d" "$r$d" || exit 1
		done
		exec chroot "$r" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
	' in_root "$root" "$binds" "$@"
}

make_root() {
	local tmp=$root.tmp mirror pkgs bpkgs
	mirror=$(host_mirror)
	pkgs=$(sed -e 's/#.*//' -e '/^@backports/d' "$list" | xargs)
	bpkgs=$(sed -n 's/^@backports //p' "$list" | xargs)
	echo "trixie-root: debootstrap trixie from $mirror into $root (a few minutes, once)" >&2
	rm -rf "$tmp"
	mkdir -p "$tmp"
	debootstrap --variant=minbase \
		--keyring=/usr/share/keyrings/debian-archive-trixie-stable.gpg \
		trixie "$tmp" "$mirror" >"$tmp.log" 2>&1 || {
		tail -n 20 "$tmp.log" >&2
		echo "trixie-root: debootstrap failed (log $tmp.log)" >&2
		return 1
	}
	cat >"$tmp/etc/apt/sources.list" <<-EOS
	deb $mirror trixie main
	deb $mirror trixie-updates main
	deb $mirror trixie-backports main
	EOS
	printf '#!/bin/sh\nexit 101\n' >"$tmp/usr/sbin/policy-rc.d"
	chmod +x "$tmp/usr/sbin/policy-rc.d"
	local saved=$root
	root=$tmp
	{
		in_root apt-get -q update &&
		in_root apt-get -q install -y --no-install-recommends $pkgs &&
		in_root apt-get -q install -y --no-install-recommends \
			-t trixie-backports $bpkgs &&
		in_root apt-get clean
	} >>"$tmp.log" 2>&1 || {
		tail -n 30 "$tmp.log" >&2
		echo "trixie-root: installing packages failed (log $tmp.log)" >&2
		root=$saved
		return 1
	}
	root=$saved
	# gcc-14 is the compiler trixie's kbuild calls; the kernels' own
	# Makefiles name it, nothing else needs a default cc.
	mv "$tmp.log" "$tmp/fipc-build.log"
	mv "$tmp" "$root"
}

mkdir -p "$cache/trixie-root"
exec 9>"$cache/trixie-root/lock"
flock -w 1800 9 || { echo "trixie-root: $cache/trixie-root is locked" >&2; exit 1; }
[ -f "$root/fipc-build.log" ] || make_root
# Older keys are other inputs' userlands: remove them (1-2 GB each).
for d in "$cache"/trixie-root/*/; do
	d=${d%/}
	[ "$d" = "$root" ] || [ ! -d "$d" ] || rm -rf "$d"
done
flock -u 9

while [ "${1:-}" = --bind ]; do
	binds="$binds $(cd "$2" && pwd)"
	shift 2
done
if [ "${1:-}" = --run ]; then
	shift
	in_root "$@"
else
	echo "$root"
fi
