#!/bin/bash
# make deb: build build/deb/fipc-dkms_<version>_all.deb from this tree.
#   /usr/src/fipc-<version>/   fipc.ko, xen-fipc-front and xen-fipc-back
#                              sources with dkms.conf (packaging/dkms/)
#   /usr/share/doc/fipc-dkms/examples/modprobe-fipc.conf
# DKMS builds the modules at install time for the running and the newest
# installed kernel with headers, and again for each kernel installed
# later (AUTOINSTALL).  No debhelper: dpkg-deb only.
#
# Version: 0.<commits>+g<hash> (commits on HEAD: a later commit gives a
# higher version, so packages upgrade in order), with +dirty for a tree
# with uncommitted changes; FIPC_DEB_VERSION overrides it.  The last line
# printed is the package's path.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/deb

version=$("$top/scripts/fipc-version.sh" lib linux xen packaging)

stage=$out/fipc-dkms_$version
rm -rf "$stage"
src=$stage/usr/src/fipc-$version
mkdir -p "$src/include/xen/interface/io" "$stage/DEBIAN" \
	"$stage/usr/share/doc/fipc-dkms/examples"
cp -r "$top/lib/fipc" "$src/fipc"
cp -r "$top/lib/fipc/include/fipc" "$src/include/fipc"
rm -rf "$src/fipc/include"
cp "$top/xen/include/public/io/fipcblk.h" "$src/include/xen/interface/io/"
# MODULE_VERSION of the three modules: this package's version.
"$top/scripts/fipc-version-header.sh" "$version" > "$src/include/fipc/fipc_version.h"
for d in xen-fipc-front xen-fipc-back; do
	cp -r "$top/linux/drivers/block/$d" "$src/$d"
done
# The compatibility layer (linux/compat/README): its headers, the probes
# and the script that runs them before each build (PRE_BUILD).
cp -r "$top/linux/compat" "$src/compat"
cp "$top/scripts/kcompat-probe.sh" "$src/kcompat-probe.sh"
# Editor and checkpatch leftovers (dot files) stay out, and so do the
# KUnit suites beside the code (lib/fipc/tests/, xen-fipc-back/tests/):
# the package builds the modules only.
find "$src" -name '.*' -type f -delete
rm -rf "$src/fipc/tests" "$src"/xen-fipc-*/tests
cp "$top/packaging/dkms/Kbuild" "$src/Kbuild"
sed "s/@VERSION@/$version/g" "$top/packaging/dkms/dkms.conf.in" > "$src/dkms.conf"
cp "$top/packaging/dkms/modprobe-fipc.conf" \
	"$stage/usr/share/doc/fipc-dkms/examples/modprobe-fipc.conf"
for f in control postinst prerm; do
	in=$top/packaging/dkms/$f
	[ -f "$in" ] || in=$in.in
	sed "s/@VERSION@/$version/g" "$in" > "$stage/DEBIAN/$f"
done
chmod 755 "$stage/DEBIAN/postinst" "$stage/DEBIAN/prerm"
find "$stage" -type d -exec chmod 755 {} +
find "$stage/usr" -type f -exec chmod 644 {} +
chmod 755 "$src/kcompat-probe.sh"
deb=$out/fipc-dkms_${version}_all.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
rm -rf "$stage"
echo "make-deb: fipc-dkms $version"
echo "$deb"
