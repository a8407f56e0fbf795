#!/bin/bash
# The fipc-xen-tools package (scripts/make-deb-xen-tools.sh), installed
# and removed with dpkg --root in a Debian system with Debian's Xen:
#   FIPC_XEN_SERIES=4.17 (default): a copy of the testbed's dom0 image (a
#     Debian 12 system with Debian's Xen 4.17 packages; this host has none);
#   FIPC_XEN_SERIES=4.20: an overlay of the trixie chroot
#     (scripts/trixie-root.sh) in which apt installs Debian 13's
#     xen-utils-4.20 and libxenmisc4.20 (of the version the package is
#     built for; the .debs are kept in $FIPC_CACHE/xl-phy1/src/trixie-xen-debs),
#     in a private mount namespace; nothing of it stays.
#   1. make deb builds it; it depends on exactly that Xen version;
#   2. dpkg -i: Debian's xl, libraries, xentop and man page are diverted
#      to /usr/lib/fipc-xen-tools/distrib/ and ours are in their place, the
#      libraries' soname links name ours, block-fipc installed;
#   3. dpkg -P: Debian's files are back, byte for byte, with their links,
#      no diversion, nothing left of ours;
#   4. a package built for another Xen version is refused (dependency).
# Needs root; the dom0 image comes from `fipc-testbed build` (cached; its
# "artifact dom0 cached/built ... PATH" line names it, cold or warm).
# No Xen 4.20 source (make-deb-xen-tools.sh exit 3): "skipped: ...", exit 77.
# Last line: "N passed, N failed".
set -u
# shellcheck source=tests/pkg/lib.sh
. "$(dirname "$0")/lib.sh"
S=${FIPC_XEN_SERIES:-4.17}
export FIPC_XEN_SERIES=$S
root= tmpd=
where="the dom0 image"
[ "$S" = 4.20 ] && where="the trixie overlay"
finish() {
	if [ -n "$tmpd" ]; then
		# The overlay (4.20): unmounted before anything is removed.
		umount -R "$root" 2>/dev/null
		grep -q " $tmpd" /proc/self/mounts || rm -rf "$tmpd"
	elif [ -n "$root" ]; then
		rm -rf "$root"
	fi
	echo "$pass passed, $fail failed"
	[ "$fail" = 0 ]
	exit $?
}

[ "$(id -u)" = 0 ] || { bad "running as root"; finish; }
case $S in
4.17|4.20) ;;
*) bad "FIPC_XEN_SERIES=$S: 4.17 or 4.20"; finish ;;
esac
# 4.20's overlay lives in a mount namespace of its own.
if [ "$S" = 4.20 ] && [ "${FIPC_PKG_NS:-}" != 1 ]; then
	exec env FIPC_PKG_NS=1 unshare -m --propagation private "$0" "$@"
fi

debout=$(mktemp)
FIPC_DEB_VERSION=0.0.1+test "$top/scripts/make-deb-xen-tools.sh" > "$debout"
rc=$?
deb=$(tail -n 1 "$debout")
rm -f "$debout"
if [ "$rc" = 3 ]; then
	echo "skipped: no Xen $S source (tools/build-xl-phy1.sh exit 3: see docs/xl-phy1.md, Build)"
	echo "$pass passed, $fail failed, 1 skipped"
	exit 77
fi
check "make deb builds fipc-xen-tools for Xen $S" test -f "$deb"
[ -f "$deb" ] || finish

if [ "$S" = 4.17 ]; then
	dom0=$("$top/tests/testbed/fipc-testbed" build 2>&1 | sed -n 's/.*artifact dom0 .* \(\/.*\)$/\1/p' | tail -n 1)
	[ -d "$dom0/rootfs" ] || { bad "the testbed's dom0 image (fipc-testbed build)"; finish; }
	root=$(mktemp -d /tmp/fipc-pkg-root.XXXXXX)
	cp -a "$dom0/rootfs/." "$root/" || { bad "copying the dom0 image"; finish; }
	xenv=$(dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Version}' xen-utils-4.17)
	check "the dom0 image has Debian's xen-utils-4.17 ($xenv)" test -n "$xenv"
else
	# A trixie system: an overlay of the trixie chroot, /proc and a /dev
	# of its own (no bind of the host's), and apt installs the Xen the
	# package was built for.
	check "its version says Xen 4.20 (+xen4.20)" bash -c \
		'dpkg-deb -f "$1" Version | grep -qx "0.0.1+test+xen4.20" && [ "${1##*_}" = amd64.deb ] &&
		 case $1 in *+xen4.20_amd64.deb) ;; *) exit 1 ;; esac' _ "$deb"
	want=$(dpkg-deb -f "$deb" Depends | sed -n 's/.*xen-utils-4.20 (= \([^)]*\)).*/\1/p')
	lower=$("$top/scripts/trixie-root.sh")
	tmpd=$(mktemp -d /tmp/fipc-pkg-root.XXXXXX)
	root=$tmpd/merged
	debs=${FIPC_CACHE:-/var/cache/fipc}/xl-phy1/src/trixie-xen-debs
	mkdir -p "$tmpd/upper" "$tmpd/work" "$root" "$debs"
	if mount -t overlay overlay -o "lowerdir=$lower,upperdir=$tmpd/upper,workdir=$tmpd/work" "$root" &&
	   mount -t proc proc "$root/proc" && mount -t tmpfs -o mode=755 tmpfs "$root/dev" &&
	   mknod -m 666 "$root/dev/null" c 1 3 && mknod -m 666 "$root/dev/zero" c 1 5 &&
	   mknod -m 666 "$root/dev/urandom" c 1 9 &&
	   mount --bind "$debs" "$root/var/cache/apt/archives"; then
		ok "an overlay of the trixie chroot"
	else
		bad "an overlay of the trixie chroot"; finish
	fi
	check "apt installs Debian's xen-utils-4.20 and libxenmisc4.20 ($want) there" bash -c \
		'chroot "$1" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
		   apt-get -q install -y --no-install-recommends "xen-utils-4.20=$2" "libxenmisc4.20=$2" \
		   >/tmp/fipc-pkg-xt.log 2>&1 || { tail -n 20 /tmp/fipc-pkg-xt.log; exit 1; }' _ "$root" "$want"
	# Its archives stay for the next run; nothing else of apt's.
	umount "$root/var/cache/apt/archives"
	xenv=$(dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Version}' xen-utils-4.20 2>/dev/null)
fi
check "it depends on xen-utils-$S (= $xenv)" bash -c \
	'[ -n "$3" ] && dpkg-deb -f "$1" Depends | grep -qF "xen-utils-$2 (= $3), libxenmisc$2 (= $3)"' _ "$deb" "$S" "$xenv"
check "its diversions name the Xen $S paths only" bash -c \
	'dpkg-deb -I "$1" preinst | grep "for f in" | tr " " "\n" | grep ^/ | grep -v "/xen-$2/\|\.so\.$2\.0\$\|/man5/" | grep -q . && exit 1
	 dpkg-deb -I "$1" preinst | grep -q "/usr/lib/xen-$2/bin/xl "' _ "$deb" "$S"

files=("/usr/lib/x86_64-linux-gnu/libxenlight.so.$S.0"
	"/usr/lib/x86_64-linux-gnu/libxlutil.so.$S.0"
	"/usr/lib/x86_64-linux-gnu/libxenstat.so.$S.0"
	"/usr/lib/xen-$S/bin/xl" "/usr/lib/xen-$S/bin/xentop"
	/usr/share/man/man5/xl-disk-configuration.5.gz)
check "the package holds exactly those files and block-fipc" bash -c \
	'[ "$(dpkg-deb -c "$1" | awk "/^-/ { print substr(\$6, 2) }" | sort)" = \
	   "$(printf "%s\n" /etc/xen/scripts/block-fipc /usr/sbin/fipc \
	      /usr/lib/modules-load.d/fipc-xen-tools.conf /usr/share/fipc/fipc_bench.py \
	      /usr/share/fipc/bench/run-fio.sh /usr/share/fipc/bench/report.py \
	      /usr/share/fipc/bench/summarize.py "${@:2}" | sort)" ]' _ "$deb" "${files[@]}"
check "it loads xen-fipc-back at boot (modules-load.d) and installs fipc executable" bash -c \
	'list=$(dpkg-deb -c "$1") && grep -q "^-rwxr-xr-x .* \./usr/sbin/fipc$" <<< "$list" &&
	 [ "$(dpkg-deb --fsys-tarfile "$1" | tar xO ./usr/lib/modules-load.d/fipc-xen-tools.conf | grep -v "^#")" = xen-fipc-back ]' _ "$deb"
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

check "dpkg -i in $where" bash -c \
	'dpkg --root="$1" --force-not-root -i "$2" >/tmp/fipc-pkg-xt.log 2>&1 || { cat /tmp/fipc-pkg-xt.log; exit 1; }' _ "$root" "$deb"
for f in "${files[@]}"; do
	check "installed: ours at $f, Debian's diverted" bash -c \
		'[ "$(digest "$1$2")" = "$3" ] &&
		 [ "$(digest "$1/usr/lib/fipc-xen-tools/distrib$2")" = "$4" ] &&
		 dpkg-divert --admindir="$1/var/lib/dpkg" --listpackage "$2" | grep -qx fipc-xen-tools' \
		_ "$root" "$f" "$(ours "$f")" "${debian[$f]}"
done
check "installed: block-fipc" test -x "$root/etc/xen/scripts/block-fipc"
# The admin command runs with the image's own python3 (nothing to read:
# it says the backend is not loaded).
check "installed: fipc status runs in $where" bash -c \
	'out=$(chroot "$1" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin FIPC_ADMIN_XENSTORE=/dev/null \
	       FIPC_ADMIN_SYSFS=/nonexistent fipc status 2>&1) &&
	 grep -q "xen-fipc-back is not loaded" <<< "$out" || { echo "$out"; exit 1; }' _ "$root"
# links SONAME...: each soname link (after ldconfig) names FILE.
links() {
	local l
	for l in libxenlight libxlutil libxenstat; do
		[ "$(readlink -f "$root/usr/lib/x86_64-linux-gnu/$l.so.$S")" = \
		  "$(readlink -f "$root/usr/lib/x86_64-linux-gnu/$l.so.$S.0")" ] ||
			{ echo "$l.so.$S -> $(readlink "$root/usr/lib/x86_64-linux-gnu/$l.so.$S")"; return 1; }
	done
}
check "installed: the soname links name our libraries" links
# Run as the dom0 runs it (no LD_LIBRARY_PATH): ours and the system's
# other Xen libraries resolve, and xl gets as far as the hypervisor.
check "installed: xl starts with the system's libraries, ours first" bash -c \
	'out=$(chroot "$1" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "/usr/lib/xen-$2/bin/xl" list 2>&1)
	 libs=$(chroot "$1" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin ldd "/usr/lib/xen-$2/bin/xl" 2>&1)
	 ! grep -q "not found" <<< "$libs" &&
	 grep -q "libxlutil.so.$2 => \(/usr\)\{0,1\}/lib/x86_64-linux-gnu/libxlutil.so.$2 " <<< "$libs" &&
	 grep -q "cannot init xl context\|libxl_ctx_alloc" <<< "$out" ||
	 { echo "$libs"; echo "$out"; exit 1; }' _ "$root" "$S"
check "installed: the man page documents phy1" bash -c \
	'zcat "$1/usr/share/man/man5/xl-disk-configuration.5.gz" | grep -q phy1' _ "$root"

check "dpkg -P in $where" bash -c \
	'dpkg --root="$1" --force-not-root -P fipc-xen-tools >/tmp/fipc-pkg-xt.log 2>&1 || { cat /tmp/fipc-pkg-xt.log; exit 1; }' _ "$root"
for f in "${files[@]}"; do
	check "removed: Debian's $f back, no diversion" bash -c \
		'[ "$(digest "$1$2")" = "$3" ] && [ ! -e "$1/usr/lib/fipc-xen-tools/distrib$2" ] &&
		 [ -z "$(dpkg-divert --admindir="$1/var/lib/dpkg" --listpackage "$2")" ]' \
		_ "$root" "$f" "${debian[$f]}"
done
check "removed: no block-fipc, fipc, modules-load entry, /usr/share/fipc or /usr/lib/fipc-xen-tools" bash -c \
	'[ ! -e "$1/etc/xen/scripts/block-fipc" ] && [ ! -e "$1/usr/lib/fipc-xen-tools" ] &&
	 [ ! -e "$1/usr/share/fipc" ] &&
	 [ ! -e "$1/usr/sbin/fipc" ] && [ ! -e "$1/usr/lib/modules-load.d/fipc-xen-tools.conf" ]' _ "$root"
check "removed: the soname links name Debian's libraries" links

other=$(FIPC_DEB_VERSION=0.0.2+test FIPC_XEN_DEPENDS_VERSION=$S.0-1 "$top/scripts/make-deb-xen-tools.sh" | tail -n 1)
check "a package for another Xen version is refused" bash -c \
	'! dpkg --root="$1" --force-not-root -i "$2" >/tmp/fipc-pkg-xt.log 2>&1 &&
	 grep -q "depends on xen-utils-$3 (= $3.0-1)" /tmp/fipc-pkg-xt.log' _ "$root" "$other" "$S"
rm -f "$deb" "$other"
finish
