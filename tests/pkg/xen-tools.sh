#!/bin/bash
# The fipc-xen-tools package (scripts/make-deb-xen-tools.sh), installed
# and removed with dpkg --root in a copy of the testbed's dom0 image (a
# Debian 12 system with Debian's Xen 4.17 packages; this host has none):
#   1. make deb builds it; it depends on exactly the dom0's Xen version;
#   2. dpkg -i: Debian's xl, libraries, xentop and man page are diverted
#      to /usr/lib/fipc-xen-tools/distrib/ and ours are in their place, the
#      libraries' soname links name ours, block-fipc installed;
#   3. dpkg -P: Debian's files are back, byte for byte, with their links,
#      no diversion, nothing left of ours;
#   4. a package built for another Xen version is refused (dependency).
# Needs root; the dom0 image comes from `fipc-testbed build` (cached; its
# "artifact dom0 cached/built ... PATH" line names it, cold or warm).
# Last line: "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
pass=0 fail=0
ok() { echo "ok   $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else bad "$what"; fi; }
root=
finish() {
	[ -n "$root" ] && rm -rf "$root"
	echo "$pass passed, $fail failed"
	[ "$fail" = 0 ]
	exit $?
}

[ "$(id -u)" = 0 ] || { bad "running as root"; finish; }
dom0=$("$top/tests/testbed/fipc-testbed" build 2>&1 | sed -n 's/.*artifact dom0 .* \(\/.*\)$/\1/p' | tail -n 1)
[ -d "$dom0/rootfs" ] || { bad "the testbed's dom0 image (fipc-testbed build)"; finish; }
root=$(mktemp -d /tmp/fipc-pkg-root.XXXXXX)
cp -a "$dom0/rootfs/." "$root/" || { bad "copying the dom0 image"; finish; }
xenv=$(dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Version}' xen-utils-4.17)
check "the dom0 image has Debian's xen-utils-4.17 ($xenv)" test -n "$xenv"

deb=$(FIPC_DEB_VERSION=0.0.1+test "$top/scripts/make-deb-xen-tools.sh" | tail -n 1)
check "make deb builds fipc-xen-tools" test -f "$deb"
check "it depends on xen-utils-4.17 (= $xenv)" bash -c \
	'dpkg-deb -f "$1" Depends | grep -qF "xen-utils-4.17 (= $2)"' _ "$deb" "$xenv"

files=(/usr/lib/x86_64-linux-gnu/libxenlight.so.4.17.0
	/usr/lib/x86_64-linux-gnu/libxlutil.so.4.17.0
	/usr/lib/x86_64-linux-gnu/libxenstat.so.4.17.0
	/usr/lib/xen-4.17/bin/xl /usr/lib/xen-4.17/bin/xentop
	/usr/share/man/man5/xl-disk-configuration.5.gz)
# digest FILE: its sha256, or "absent" (the image leaves out man pages).
digest() {
	if [ -f "$1" ]; then sha256sum < "$1" | cut -d' ' -f1; else echo absent; fi
}
export -f digest
declare -A debian
for f in "${files[@]}"; do
	debian[$f]=$(digest "$root$f")
done
ours() { dpkg-deb --fsys-tarfile "$deb" | tar xO ".$1" | sha256sum | cut -d' ' -f1; }

check "dpkg -i in the dom0 image" bash -c \
	'dpkg --root="$1" --force-not-root -i "$2" >/tmp/fipc-pkg-xt.log 2>&1 || { cat /tmp/fipc-pkg-xt.log; exit 1; }' _ "$root" "$deb"
for f in "${files[@]}"; do
	check "installed: ours at $f, Debian's diverted" bash -c \
		'[ "$(digest "$1$2")" = "$3" ] &&
		 [ "$(digest "$1/usr/lib/fipc-xen-tools/distrib$2")" = "$4" ] &&
		 dpkg-divert --admindir="$1/var/lib/dpkg" --listpackage "$2" | grep -qx fipc-xen-tools' \
		_ "$root" "$f" "$(ours "$f")" "${debian[$f]}"
done
check "installed: block-fipc" test -x "$root/etc/xen/scripts/block-fipc"
# links SONAME...: each soname link (after ldconfig) names FILE.
links() {
	local l
	for l in libxenlight libxlutil libxenstat; do
		[ "$(readlink -f "$root/usr/lib/x86_64-linux-gnu/$l.so.4.17")" = \
		  "$(readlink -f "$root/usr/lib/x86_64-linux-gnu/$l.so.4.17.0")" ] ||
			{ echo "$l.so.4.17 -> $(readlink "$root/usr/lib/x86_64-linux-gnu/$l.so.4.17")"; return 1; }
	done
}
check "installed: the soname links name our libraries" links
check "installed: the man page documents phy1" bash -c \
	'zcat "$1/usr/share/man/man5/xl-disk-configuration.5.gz" | grep -q phy1' _ "$root"

check "dpkg -P in the dom0 image" bash -c \
	'dpkg --root="$1" --force-not-root -P fipc-xen-tools >/tmp/fipc-pkg-xt.log 2>&1 || { cat /tmp/fipc-pkg-xt.log; exit 1; }' _ "$root"
for f in "${files[@]}"; do
	check "removed: Debian's $f back, no diversion" bash -c \
		'[ "$(digest "$1$2")" = "$3" ] && [ ! -e "$1/usr/lib/fipc-xen-tools/distrib$2" ] &&
		 [ -z "$(dpkg-divert --admindir="$1/var/lib/dpkg" --listpackage "$2")" ]' \
		_ "$root" "$f" "${debian[$f]}"
done
check "removed: no block-fipc, no /usr/lib/fipc-xen-tools" bash -c \
	'[ ! -e "$1/etc/xen/scripts/block-fipc" ] && [ ! -e "$1/usr/lib/fipc-xen-tools" ]' _ "$root"
check "removed: the soname links name Debian's libraries" links

other=$(FIPC_DEB_VERSION=0.0.2+test FIPC_XEN_DEPENDS_VERSION=4.17.0-1 "$top/scripts/make-deb-xen-tools.sh" | tail -n 1)
check "a package for another Xen version is refused" bash -c \
	'! dpkg --root="$1" --force-not-root -i "$2" >/tmp/fipc-pkg-xt.log 2>&1 &&
	 grep -q "depends on xen-utils-4.17 (= 4.17.0-1)" /tmp/fipc-pkg-xt.log' _ "$root" "$other"
rm -f "$deb" "$other"
finish
