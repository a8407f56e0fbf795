#!/bin/sh
# Build fipc.ko, the xen-fipc drivers and the test-only fipc_attack.ko out
# of tree, at W=1, against Debian 12's 6.1 headers or another target of
# scripts/ktarget.sh (FIPC_KTARGET=6.12 or mainline: built in the trixie
# userland, into build/kmod-<target>).  Sources are copied to build/kmod
# so the tree stays clean; any compiler warning fails the build.
# FIPC_KDIR and FIPC_KMOD_OUT build against another kernel tree into another
# directory (the testbed's debug kernel: make e2e-debug).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
target=${FIPC_KTARGET:-6.1}
if [ -z "${FIPC_KDIR:-}" ] && [ "$target" != 6.1 ]; then
	where=$("$top/scripts/ktarget.sh" "$target")
	out=${FIPC_KMOD_OUT:-$top/build/kmod-$target}
	mkdir -p "$out"
	binds="--bind $top"
	case $out in "$top"/*) ;; *) binds="$binds --bind $out" ;; esac
	# The same script in the trixie userland, with what it cannot find
	# there (git for the version) worked out here.
	exec "$top/scripts/trixie-root.sh" $binds --run \
		env FIPC_KDIR="${where#trixie }" FIPC_KMOD_OUT="$out" \
		FIPC_TEST_BUILD="${FIPC_TEST_BUILD:-1}" \
		FIPC_VERSION="${FIPC_VERSION:-$("$top/scripts/fipc-version.sh" lib linux xen)}" \
		"$top/scripts/build-modules.sh"
fi
kdir=${FIPC_KDIR:-$("$top/scripts/kdir.sh")}
out=${FIPC_KMOD_OUT:-$top/build/kmod}
mkdir -p "$out"
find "$out" -mindepth 1 -maxdepth 1 -exec rm -rf {} +
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
# The compatibility layer (linux/compat/README): the drivers are written
# against mainline's API; the headers of linux/compat/include/, ahead of
# the kernel's, fill it in on older kernels from compile probes against
# $kdir (-nostdinc is kbuild's own NOSTDINC_FLAGS).
"$top/scripts/kcompat-probe.sh" "$kdir" "$out/gen"
log="$out/build.log"
make -C "$kdir" M="$out" W=1 \
	NOSTDINC_FLAGS="-nostdinc -I$top/linux/compat/include" \
	CONFIG_FIPC=m CONFIG_XEN_FIPC_FRONT=m CONFIG_XEN_FIPC_BACK=m $test_opts \
	KCFLAGS="-I$out/gen -I$top/lib/fipc/include ${test_cflags:-}" \
	modules >"$log" 2>&1 || {
	cat "$log"
	echo "modules: build failed against $kdir" >&2
	exit 1
}
if grep -E 'warning:|error:' "$log"; then
	echo "modules: compiler warnings (W=1) are errors here" >&2
	exit 1
fi
find "$out" -name '*.ko' | sed "s|^$top/||"
