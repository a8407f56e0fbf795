#!/bin/bash
# make deb (third package): fipc-modules-<kernel>, the three modules
# already built for one kernel, for hosts that have no compiler (storage
# appliances, the testbed's dom0).  fipc-dkms builds the same sources on
# the host instead; the two conflict.
#
#   scripts/make-deb-modules.sh [KMOD_DIR [OUT_DIR]]
#
# KMOD_DIR holds fipc/fipc.ko, xen-fipc-front/xen-fipc-front.ko and
# xen-fipc-back/xen-fipc-back.ko (scripts/build-modules.sh).  Without it,
# the modules are built here as shipped (FIPC_TEST_BUILD=0: no request
# injector) into build/deb/kmod (build/deb/kmod-<target> for
# FIPC_KTARGET); the testbed passes build/kmod, its test build.
# The kernel comes from their vermagic, the package version from their
# MODULE_VERSION (scripts/fipc-version.sh at build time), so the package
# says what the modules say.  Installs /lib/modules/<kernel>/updates/fipc/
# and runs depmod.  The last line printed is the package's path, in
# OUT_DIR (default build/deb).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${2:-$top/build/deb}
kmod=${1:-}
if [ -z "$kmod" ]; then
	# FIPC_KTARGET (scripts/ktarget.sh) names another kernel: 6.12 for
	# Debian 13 (make deb FIPC_DIST=trixie).
	kmod=$out/kmod${FIPC_KTARGET:+-$FIPC_KTARGET}
	FIPC_TEST_BUILD=0 FIPC_KMOD_OUT=$kmod "$top/scripts/build-modules.sh" >/dev/null
fi
mods="fipc/fipc.ko xen-fipc-front/xen-fipc-front.ko xen-fipc-back/xen-fipc-back.ko"

version= kver=
for m in $mods; do
	[ -f "$kmod/$m" ] || { echo "make-deb-modules: no $kmod/$m (make modules)" >&2; exit 1; }
	v=$(modinfo -F version "$kmod/$m")
	k=$(modinfo -F vermagic "$kmod/$m" | cut -d' ' -f1)
	[ -n "$version" ] || version=$v
	[ -n "$kver" ] || kver=$k
	if [ "$v" != "$version" ] || [ "$k" != "$kver" ]; then
		echo "make-deb-modules: $m is $v for $k, fipc.ko is $version for $kver" >&2
		exit 1
	fi
done
case $version in
[0-9]*) ;;
*) echo "make-deb-modules: module version '$version' is not a package version" >&2; exit 1 ;;
esac

pkg=fipc-modules-$kver
stage=$out/${pkg}_$version
rm -rf "$stage"
dest=$stage/lib/modules/$kver/updates/fipc
mkdir -p "$dest" "$stage/DEBIAN" "$stage/usr/share/doc/$pkg/examples"
# Stripped of debug information, as Debian's own modules are.
for m in $mods; do
	install -m 644 "$kmod/$m" "$dest/"
	strip --strip-debug "$dest/${m##*/}"
done
cp "$top/packaging/dkms/modprobe-fipc.conf" "$stage/usr/share/doc/$pkg/examples/"
for f in control postinst postrm; do
	sed -e "s/@VERSION@/$version/g" -e "s/@KVER@/$kver/g" \
		"$top/packaging/modules/$f.in" > "$stage/DEBIAN/$f"
done
chmod 755 "$stage/DEBIAN/postinst" "$stage/DEBIAN/postrm"
find "$stage" -type d -exec chmod 755 {} +
mkdir -p "$out"
deb=$out/${pkg}_${version}_amd64.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
rm -rf "$stage"
echo "make-deb-modules: $pkg $version"
echo "$deb"
