#!/bin/bash
# make deb (second package): build/deb/fipc-xen-tools_<version>_amd64.deb
# from the patched toolstack of tools/build-xl-phy1.sh (cached by its
# inputs): xl, libxenlight, libxlutil (phy1: disks), libxenstat and xentop
# (xentop shows them), the block-fipc hotplug script and the
# xl-disk-configuration man page.  Files Debian's Xen packages own are
# diverted (packaging/xen-tools/preinst, postrm); the package depends on
# exactly the Debian Xen version the build was made for (BUILD-INFO's
# xen_source_wanted; FIPC_XEN_DEPENDS_VERSION overrides it, for tests).
# Version as scripts/make-deb.sh.  The last line printed is the path.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/deb

build=$("$top/tools/build-xl-phy1.sh" | tail -n 1)
[ -f "$build/.complete" ] || { echo "make-deb-xen-tools: no complete toolstack build" >&2; exit 1; }
xenversion=${FIPC_XEN_DEPENDS_VERSION:-$(sed -n 's/^xen_source_wanted=//p' "$build/BUILD-INFO")}
[ -n "$xenversion" ] || { echo "make-deb-xen-tools: no xen version in $build/BUILD-INFO" >&2; exit 1; }

version=$("$top/scripts/fipc-version.sh" tools packaging)

stage=$out/fipc-xen-tools_$version
rm -rf "$stage"
mkdir -p "$stage/DEBIAN"
# Regular files only: the .so.4.17 links Debian ships already name them.
(cd "$build/install" && find . -type f) | sed 's|^\.||' | sort > "$out/.xen-tools-files"
(cd "$build/install" && find . -type f -exec cp --parents -p {} "$stage/" \;)
# Every file but our own hotplug script replaces one of Debian's.
diverted=$(grep -v '^/etc/xen/scripts/block-fipc$' "$out/.xen-tools-files" | tr '\n' ' ')
rm -f "$out/.xen-tools-files"
for f in control preinst postinst postrm; do
	in=$top/packaging/xen-tools/$f
	[ -f "$in" ] || in=$in.in
	sed -e "s/@VERSION@/$version/g" -e "s/@XENVERSION@/$xenversion/g" \
		-e "s|@DIVERTED@|$diverted|g" "$in" > "$stage/DEBIAN/$f"
done
chmod 755 "$stage/DEBIAN/preinst" "$stage/DEBIAN/postinst" "$stage/DEBIAN/postrm"
echo /etc/xen/scripts/block-fipc > "$stage/DEBIAN/conffiles"
find "$stage" -type d -exec chmod 755 {} +
deb=$out/fipc-xen-tools_${version}_amd64.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
rm -rf "$stage"
echo "make-deb-xen-tools: fipc-xen-tools $version for Debian's Xen $xenversion"
echo "$deb"
