#!/bin/bash
# make deb (second package): build/deb/fipc-xen-tools_<version>_amd64.deb
# from the patched toolstack of tools/build-xl-phy1.sh (cached by its
# inputs): xl, libxenlight, libxlutil (phy1: disks), libxenstat and xentop
# (xentop shows them), the block-fipc hotplug script, the
# xl-disk-configuration man page, the admin command fipc
# (tools/admin/fipc.py as /usr/sbin/fipc: status, diagnose; bench from
# /usr/share/fipc: fipc_bench.py, run-fio.sh, report.py) and a
# modules-load.d entry that loads xen-fipc-back at boot.  Files Debian's Xen packages own are
# diverted (packaging/xen-tools/preinst, postrm); the package depends on
# exactly the Debian Xen version the build was made for (BUILD-INFO's
# xen_source_wanted; FIPC_XEN_DEPENDS_VERSION overrides it, for tests).
# Version as scripts/make-deb.sh.  The last line printed is the path.
#
# FIPC_XEN_SERIES=4.17 (default, Debian 12) or 4.20 (Debian 13): the Xen
# series to build for.  A 4.20 package is fipc-xen-tools_<version>+xen4.20,
# depends on xen-utils-4.20 and diverts the 4.20 paths; a 4.17 one keeps
# the plain <version>.  Same package name (a dom0 has one Xen series),
# never the same file or version.  Exit status 3: no Xen 4.20 source
# (tools/build-xl-phy1.sh).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/deb

series=${FIPC_XEN_SERIES:-4.17}
case $series in
4.17|4.20) ;;
*) echo "make-deb-xen-tools: FIPC_XEN_SERIES=$series: use 4.17 or 4.20" >&2; exit 1 ;;
esac

rc=0
build=$(FIPC_XEN_SERIES=$series "$top/tools/build-xl-phy1.sh" | tail -n 1) || rc=$?
[ "$rc" = 0 ] || { echo "make-deb-xen-tools: tools/build-xl-phy1.sh (Xen $series) failed (exit $rc)" >&2; exit "$rc"; }
[ -f "$build/.complete" ] || { echo "make-deb-xen-tools: no complete toolstack build" >&2; exit 1; }
built=$(sed -n 's/^series=//p' "$build/BUILD-INFO")
[ "${built:-4.17}" = "$series" ] ||
	{ echo "make-deb-xen-tools: $build is a Xen ${built:-4.17} build, not $series" >&2; exit 1; }
xenversion=${FIPC_XEN_DEPENDS_VERSION:-$(sed -n 's/^xen_source_wanted=//p' "$build/BUILD-INFO")}
[ -n "$xenversion" ] || { echo "make-deb-xen-tools: no xen version in $build/BUILD-INFO" >&2; exit 1; }

# Where the source came from (BUILD-INFO: a Debian version, or "upstream
# 4.20.N tarball sha256 ..." when Debian's could not be downloaded).
xensource=$(sed -n 's/^xen_source_used=//p' "$build/BUILD-INFO")
case $xensource in [0-9]*) xensource="Debian's source $xensource" ;; esac

version=$("$top/scripts/fipc-version.sh" tools packaging bench/fio tests/testbed/lib/summarize.py)
# The 4.20 package's version says so (once: the testbed's +next upgrade
# passes a version that has it already).
case $series:$version in
4.17:*|4.20:*+xen4.20*) ;;
4.20:*) version=$version+xen4.20 ;;
esac

stage=$out/fipc-xen-tools_$version
rm -rf "$stage"
mkdir -p "$stage/DEBIAN"
# Regular files only: the .so.<series> links Debian ships already name them.
(cd "$build/install" && find . -type f) | sed 's|^\.||' | sort > "$out/.xen-tools-files"
(cd "$build/install" && find . -type f -exec cp --parents -p {} "$stage/" \;)
# Every file but our own hotplug script replaces one of Debian's.
diverted=$(grep -v '^/etc/xen/scripts/block-fipc$' "$out/.xen-tools-files" | tr '\n' ' ')
rm -f "$out/.xen-tools-files"
# Ours alone: the admin command and the backend's load at boot.
install -D -m 0755 "$top/tools/admin/fipc.py" "$stage/usr/sbin/fipc"
install -D -m 0644 "$top/tools/admin/fipc_bench.py" "$stage/usr/share/fipc/fipc_bench.py"
install -D -m 0644 "$top/bench/fio/run-fio.sh" "$stage/usr/share/fipc/bench/run-fio.sh"
install -D -m 0755 "$top/bench/fio/report.py" "$stage/usr/share/fipc/bench/report.py"
install -D -m 0644 "$top/tests/testbed/lib/summarize.py" "$stage/usr/share/fipc/bench/summarize.py"
install -D -m 0644 "$top/packaging/xen-tools/modules-load.conf" \
	"$stage/usr/lib/modules-load.d/fipc-xen-tools.conf"
for f in control preinst postinst postrm; do
	in=$top/packaging/xen-tools/$f
	[ -f "$in" ] || in=$in.in
	sed -e "s/@VERSION@/$version/g" -e "s/@XENVERSION@/$xenversion/g" \
		-e "s/@XENSERIES@/$series/g" -e "s|@XENSOURCE@|$xensource|g" \
		-e "s|@DIVERTED@|$diverted|g" "$in" > "$stage/DEBIAN/$f"
done
chmod 755 "$stage/DEBIAN/preinst" "$stage/DEBIAN/postinst" "$stage/DEBIAN/postrm"
echo /etc/xen/scripts/block-fipc > "$stage/DEBIAN/conffiles"
find "$stage" -type d -exec chmod 755 {} +
deb=$out/fipc-xen-tools_${version}_amd64.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
rm -rf "$stage"
echo "make-deb-xen-tools: fipc-xen-tools $version for Debian's Xen $xenversion (xen-utils-$series)"
echo "$deb"
