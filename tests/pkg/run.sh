#!/bin/bash
# The fipc-dkms package (scripts/make-deb.sh) on this host, for the
# testbed's kernel (Debian's linux-headers-amd64, scripts/kdir.sh):
#   1. make deb builds it; its contents and control fields are right;
#   2. dpkg -i installs it (dkms added by its postinst);
#   3. dkms build and dkms install for that kernel: the three modules land
#      in /lib/modules/<kernel>/updates/dkms and modinfo reads them;
#   4. an upgrade: version N+1 (FIPC_DEB_VERSION) installed over N
#      replaces it in DKMS (N's modules and sources gone), N+1 builds;
#   5. dpkg -r removes it: no sources, no DKMS entry, no modules left;
#   6. fipc-modules-<kernel> (scripts/make-deb-modules.sh) from build/kmod:
#      contents, version, dpkg -i and depmod, the conflict with
#      fipc-dkms, dpkg -r; and make deb's own, built without the test
#      build's request injector.
# Needs root and dkms (installed from Debian's archive if missing).
# Leaves the host as it found it.  Last line: "N passed, N failed".
set -u
# shellcheck source=tests/pkg/lib.sh
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" != 0 ]; then
	echo "pkg: needs root (dpkg -i, dkms install)"
	bad "running as root"
	finish
fi
if ! command -v dkms >/dev/null; then
	apt-get -o DPkg::Lock::Timeout=900 install -y --no-install-recommends dkms >/dev/null ||
		{ bad "installing dkms"; finish; }
fi
kdir=$("$top/scripts/kdir.sh") || { bad "linux headers"; finish; }
kver=${kdir#/usr/src/linux-headers-}
[ -e "/lib/modules/$kver/build" ] || { bad "/lib/modules/$kver/build (the headers' link)"; finish; }

# Nothing of an earlier run or an installed copy: this test owns fipc-dkms.
if dpkg-query -W fipc-dkms >/dev/null 2>&1; then
	dpkg -r fipc-dkms >/dev/null 2>&1
fi

v1=0.0.1+test v2=0.0.2+test
deb1=$(FIPC_DEB_VERSION=$v1 "$top/scripts/make-deb.sh" | tail -n 1)
check "make deb builds fipc-dkms $v1" test -f "$deb1"
deb2=$(FIPC_DEB_VERSION=$v2 "$top/scripts/make-deb.sh" | tail -n 1)
check "make deb builds fipc-dkms $v2" test -f "$deb2"

list=$(dpkg-deb -c "$deb1" | awk '{ print $6 }')
for f in dkms.conf Kbuild fipc/ring/fipc_duplex_ring.c xen-fipc-front/front_main.c \
	xen-fipc-back/back_main.c include/fipc/fipc.h include/xen/interface/io/fipcblk.h \
	kcompat-probe.sh compat/include/linux/blkdev.h compat/probes/bdev_file_open.c; do
	check "package holds /usr/src/fipc-$v1/$f" grep -qx "./usr/src/fipc-$v1/$f" <<<"$list"
done
check "package holds the modprobe example" \
	grep -qx ./usr/share/doc/fipc-dkms/examples/modprobe-fipc.conf <<<"$list"
check "no dot files in the package" bash -c '! grep -q "/\.[^/]*$" <<<"$1"' _ "$list"
check "no KUnit suites (tests/) in the package" \
	bash -c '! grep -q "/tests/" <<<"$1"' _ "$list"
check "control: arch all, depends on dkms" bash -c \
	'dpkg-deb -f "$1" Architecture | grep -qx all && dpkg-deb -f "$1" Depends | grep -q "^dkms"' _ "$deb1"
check "dkms.conf names version $v1 and three modules" bash -c \
	'c=$(dpkg-deb --fsys-tarfile "$1" | tar xO "./usr/src/fipc-$2/dkms.conf") &&
	 grep -qx "PACKAGE_VERSION=\"$2\"" <<<"$c" && [ "$(grep -c "^BUILT_MODULE_NAME" <<<"$c")" = 3 ]' \
	_ "$deb1" "$v1"
# The kernels it declares (BUILD_EXCLUSIVE_KERNEL): 6.1 and later.
range_ok() {
	local c re k
	c=$(dpkg-deb --fsys-tarfile "$1" | tar xO "./usr/src/fipc-$2/dkms.conf") || return 1
	re=$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\(.*\)"$/\1/p' <<<"$c")
	[ -n "$re" ] && grep -qx 'BUILD_EXCLUSIVE_CONFIG="CONFIG_XEN"' <<<"$c" || return 1
	for k in 6.1.0-56-amd64 6.12.117+deb13-amd64 7.3.4+deb13-amd64 6.19.1 10.0.1; do
		[[ $k =~ $re ]] || { echo "    $k refused"; return 1; }
	done
	for k in 5.10.0-30-amd64 6.0.12 4.19.0; do
		[[ ! $k =~ $re ]] || { echo "    $k taken"; return 1; }
	done
}
check "dkms.conf: kernels 6.1 and later, with CONFIG_XEN" range_ok "$deb1" "$v1"

mods=/lib/modules/$kver/updates/dkms
# dkms install for KVER: the three modules, each readable by modinfo.
installed_for() {
	local v=$1 m
	dkms build -m fipc -v "$v" -k "$kver" >/tmp/fipc-pkg-build.log 2>&1 ||
		{ tail -n 30 /tmp/fipc-pkg-build.log; return 1; }
	dkms install -m fipc -v "$v" -k "$kver" >/tmp/fipc-pkg-install.log 2>&1 ||
		{ tail -n 30 /tmp/fipc-pkg-install.log; return 1; }
	for m in fipc xen-fipc-front xen-fipc-back; do
		modinfo -F filename "$mods/$m.ko"* >/dev/null 2>&1 ||
			{ echo "no $m in $mods"; ls "$mods"; return 1; }
	done
	dkms status -m fipc -v "$v" -k "$kver" | grep -q installed
}

check "dpkg -i fipc-dkms $v1" bash -c 'dpkg -i "$1" >/tmp/fipc-pkg-dpkg.log 2>&1 || { cat /tmp/fipc-pkg-dpkg.log; exit 1; }' _ "$deb1"
check "dkms knows fipc $v1" bash -c 'dkms status -m fipc -v "$1" | grep -q .' _ "$v1"
check "dkms build + install for $kver (fipc $v1)" installed_for "$v1"

check "dpkg -i fipc-dkms $v2 over $v1" bash -c 'dpkg -i "$1" >/tmp/fipc-pkg-dpkg.log 2>&1 || { cat /tmp/fipc-pkg-dpkg.log; exit 1; }' _ "$deb2"
check "upgrade: $v1 gone from dkms and /usr/src" bash -c \
	'! dkms status -m fipc -v "$1" 2>/dev/null | grep -q . && [ ! -e "/usr/src/fipc-$1" ]' _ "$v1"
check "dkms build + install for $kver (fipc $v2)" installed_for "$v2"
check "modinfo reads xen-fipc-back's parameters" bash -c \
	'modinfo -p "$1"/xen-fipc-back.ko* | grep -q "^memshare_max_mib:"' _ "$mods"

check "dpkg -r fipc-dkms" bash -c 'dpkg -r fipc-dkms >/tmp/fipc-pkg-dpkg.log 2>&1 || { cat /tmp/fipc-pkg-dpkg.log; exit 1; }'
check "removed: no sources, no dkms entry, no modules" bash -c \
	'[ ! -e "/usr/src/fipc-$1" ] && ! dkms status -m fipc 2>/dev/null | grep -q . &&
	 ! ls "$2"/fipc.ko* "$2"/xen-fipc-*.ko* >/dev/null 2>&1' _ "$v2" "$mods"
rm -f "$deb1" "$deb2"

# fipc-modules-<kernel> (scripts/make-deb-modules.sh): the modules of
# build/kmod as a binary package (what the testbed's dom0 installs).
kmod=$top/build/kmod
[ -f "$kmod/xen-fipc-back/xen-fipc-back.ko" ] || "$top/scripts/build-modules.sh" >/dev/null
mver=$(modinfo -F version "$kmod/xen-fipc-back/xen-fipc-back.ko")
mdeb=$("$top/scripts/make-deb-modules.sh" "$kmod" | tail -n 1)
check "make-deb-modules builds fipc-modules-${kver}_${mver}" \
	test "$(basename "$mdeb")" = "fipc-modules-${kver}_${mver}_amd64.deb"
upd=/lib/modules/$kver/updates/fipc
list=$(dpkg-deb -c "$mdeb" | awk '{ print $6 }')
for m in fipc xen-fipc-front xen-fipc-back; do
	check "fipc-modules holds $upd/$m.ko" grep -qx ".$upd/$m.ko" <<<"$list"
done
check "fipc-modules: version field is the modules' version" \
	test "$(dpkg-deb -f "$mdeb" Version)" = "$mver"
check "fipc-modules conflicts with fipc-dkms" bash -c 'dpkg-deb -f "$1" Conflicts | grep -qw fipc-dkms' _ "$mdeb"
check "dpkg -i fipc-modules" bash -c 'dpkg -i "$1" >/tmp/fipc-pkg-dpkg.log 2>&1 || { cat /tmp/fipc-pkg-dpkg.log; exit 1; }' _ "$mdeb"
check "depmod: modprobe finds xen-fipc-back $mver in $upd" bash -c \
	'[ "$(modinfo -k "$1" -F filename xen-fipc-back)" = "$2/xen-fipc-back.ko" ] &&
	 [ "$(modinfo -k "$1" -F version xen-fipc-back)" = "$3" ]' _ "$kver" "$upd" "$mver"
check "installed modules are stripped and keep their version" bash -c \
	'! readelf -S "$1/fipc.ko" | grep -q "\.debug_info" && [ "$(modinfo -F version "$1/fipc.ko")" = "$2" ]' \
	_ "$upd" "$mver"
deb1=$(FIPC_DEB_VERSION=$v1 "$top/scripts/make-deb.sh" | tail -n 1)
check "fipc-dkms refused beside fipc-modules (Conflicts)" bash -c '! dpkg -i "$1" >/dev/null 2>&1' _ "$deb1"
dpkg -r fipc-dkms >/dev/null 2>&1
check "dpkg -r fipc-modules: no module left, depmod forgets it" bash -c \
	'dpkg -r "fipc-modules-$1" >/tmp/fipc-pkg-dpkg.log 2>&1 && [ ! -e "$2" ] &&
	 ! modinfo -k "$1" xen-fipc-back >/dev/null 2>&1' _ "$kver" "$upd"
rm -f "$deb1" "$mdeb"
# make deb's own: the modules as shipped, without the test build's
# request injector (CONFIG_XEN_FIPC_FRONT_INJECT).
rdeb=$("$top/scripts/make-deb-modules.sh" | tail -n 1)
check "make deb's fipc-modules is built as shipped (no request injector)" bash -c \
	'test -f "$1" && nm "$2" | grep -q " xff_inject_add$" &&
	 ! nm "$3" | grep -q xff_inject' _ "$rdeb" \
	"$kmod/xen-fipc-front/xen-fipc-front.ko" "$top/build/deb/kmod/xen-fipc-front/xen-fipc-front.ko"
rm -f "$rdeb"
finish
