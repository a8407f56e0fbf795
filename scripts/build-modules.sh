#!/bin/sh
# Build fipc.ko, the xen-fipc drivers and the test-only fipc_attack.ko out of tree against Debian's 6.1
# headers, at W=1.  Sources are copied to build/kmod so the tree stays
# clean; any compiler warning fails the build.
# FIPC_KDIR and FIPC_KMOD_OUT build against another kernel tree into another
# directory (the testbed's debug kernel: make e2e-debug).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
kdir=${FIPC_KDIR:-$("$top/scripts/kdir.sh")}
out=${FIPC_KMOD_OUT:-$top/build/kmod}
rm -rf "$out"
mkdir -p "$out"
cp -r "$top/lib/fipc" "$out/fipc"
echo "obj-m += fipc/" > "$out/Kbuild"
for d in "$top"/linux/drivers/block/xen-fipc-*; do
	[ -f "$d/Kbuild" ] || continue
	cp -r "$d" "$out/"
	echo "obj-m += $(basename "$d")/" >> "$out/Kbuild"
done
# A test build (the default; FIPC_TEST_BUILD=0 for what is shipped) has
# the frontend's request injector (CONFIG_XEN_FIPC_FRONT_INJECT) and the
# testbed's hostile frontend (tests/attack, scenario fipc-hostile), a
# test module built here so that it reaches the guests like ours.
test_opts=
if [ "${FIPC_TEST_BUILD:-1}" = 1 ]; then
	cp -r "$top/tests/attack" "$out/attack"
	echo "obj-m += attack/" >> "$out/Kbuild"
	test_opts="CONFIG_XEN_FIPC_FRONT_INJECT=y"
	test_cflags="-DCONFIG_XEN_FIPC_FRONT_INJECT=1"
fi
# MODULE_VERSION: this tree's version (scripts/fipc-version.sh; FIPC_VERSION
# overrides it), from a generated header ahead of the tree's default.
version=${FIPC_VERSION:-$("$top/scripts/fipc-version.sh" lib linux xen)}
mkdir -p "$out/gen/fipc" "$out/gen/xen/interface/io"
"$top/scripts/fipc-version-header.sh" "$version" > "$out/gen/fipc/fipc_version.h"
# The public header where a Linux tree has Xen's: <xen/interface/io/>.
cp "$top/xen/include/public/io/fipcblk.h" "$out/gen/xen/interface/io/"
log="$out/build.log"
make -C "$kdir" M="$out" W=1 \
	CONFIG_FIPC=m CONFIG_XEN_FIPC_FRONT=m CONFIG_XEN_FIPC_BACK=m $test_opts \
	KCFLAGS="-I$out/gen -I$top/lib/fipc/include ${test_cflags:-}" modules >"$log" 2>&1 || {
	cat "$log"
	echo "modules: build failed against $kdir" >&2
	exit 1
}
if grep -E 'warning:|error:' "$log"; then
	echo "modules: compiler warnings (W=1) are errors here" >&2
	exit 1
fi
find "$out" -name '*.ko' | sed "s|^$top/||"
