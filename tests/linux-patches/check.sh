#!/bin/bash
# The in-tree patch series (make linux-patches) against a Debian kernel
# source: linux-source-6.1, or with FIPC_KTARGET=6.12 or mainline
# (scripts/ktarget.sh) trixie's 6.12 or trixie-backports' (7.3 now),
# built here with the host's compiler.  The series is native code for
# its kernel: no FIPC_HAVE_ test is left, and on 6.12 and mainline no
# compatibility header either.  Each patch passes the tree's checkpatch.pl --strict,
# applies in order to a pristine copy of the tree, the Kconfig hooks make
# every option selectable (x86_64 defconfig plus Xen, with FIPC,
# XEN_FIPC_FRONT, XEN_FIPC_BACK and the KUnit suites' options as modules
# and XEN_FIPC_FRONT_INJECT on), and the three directories with the
# backend's tests/ (and
# drivers/xen/mem-reservation.o, which patch 0003 changes) build in the
# tree at W=1 with no warning, every object there; the tree's object
# exports the mem-reservation notifier and the frontend's gfn watch calls
# it instead of kprobes.
#
# The tree is a hard-link copy of $FIPC_CACHE/linux-source-<ver> made
# afresh each run (patch replaces files, so the extracted tree stays
# pristine); the build directory $FIPC_CACHE/linux-patches-<ver>/build
# is kept, so later runs rebuild only what changed.  One line per check,
# then "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${FIPC_CACHE:-/var/cache/fipc}
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
finish() {
	echo "$pass passed, $fail failed"
	[ "$fail" = 0 ]
	exit
}

target=${FIPC_KTARGET:-6.1}
suffix=
[ "$target" = 6.1 ] || suffix=-$target
src=$("$top/scripts/linux-src.sh" "$target") || { bad "$target: kernel source"; finish; }
ver=${src##*/linux-source-}
work=$cache/linux-patches-$ver
tree=$work/src
bdir=$work/build
log=$top/build/linux-patches-check$suffix.log
mkdir -p "$work" "$top/build"
: > "$log"

exec 9>"$work/lock"
flock -w 1800 9 || { bad "$work is locked by another run"; finish; }

patches=$top/build/linux-patches$suffix
if FIPC_KTARGET=$target "$top/scripts/linux-patches.sh" "$patches" >>"$log" 2>&1; then
	ok "make linux-patches for $(basename "$src"): $(ls "$patches"/0*.patch | wc -l) files"
else
	bad "make linux-patches for $(basename "$src") (see $log)"
	finish
fi
series=$(ls "$patches"/0*.patch | grep -v 0000-cover-letter)
# Native code: the probes' tests resolved, mainline's API rewritten.
probe_re=$(cd "$top/linux/compat/probes" && ls ./*.c | sed 's|^\./||; s|\.c$||' |
	tr '[:lower:]' '[:upper:]' | sed 's/^/FIPC_HAVE_/' | paste -sd'|')
if grep -lE "$probe_re" $series >/dev/null; then
	bad "a FIPC_HAVE_ probe test is left in $(grep -lE "$probe_re" $series | xargs -n1 basename | xargs)"
else
	ok "no FIPC_HAVE_ test left in the series"
fi
if [ "$target" = 6.1 ]; then
	if grep -q '^+++ b/include/fipc/fipc_kcompat.h' $series; then
		ok "6.1: include/fipc/fipc_kcompat.h carries what 6.1 lacks"
	else
		bad "6.1: no include/fipc/fipc_kcompat.h, which 6.1 needs"
	fi
elif grep -q 'fipc_kcompat\|fipc_compat_' $series; then
	bad "$target: compatibility code in the series"
else
	ok "$target: no compatibility code in the series"
fi

rm -rf "$tree" "$tree.old"
cp -al "$src" "$tree" || { bad "copy of $src"; finish; }
# checkpatch of every patch on the pristine tree, $(nproc) at a time (a
# single-threaded perl run each), its output kept for the loop below.
# In the tree (not --no-tree), so it also checks what only a tree shows
# (an <asm/*.h> with a <linux/*.h> wrapper).  Left to make checkpatch,
# which checks every file: CamelCase (it seeds the kernel's XenbusState*
# names, which checkpatch's own seed misses, being enum constants) and,
# for the OS-neutral public header, C99 integer types.  FILE_PATH_CHANGES
# asks whether MAINTAINERS needs updating; the series does not touch it.
cpout=$work/checkpatch
rm -rf "$cpout"
mkdir -p "$cpout"
export cpout
# shellcheck disable=SC2016,SC2086
(cd "$tree" && printf '%s\n' $series | xargs -r -P "$(nproc)" -n 1 sh -c '
	ignore=FILE_PATH_CHANGES,CAMELCASE
	case $1 in *-xen-add-the-fipcblk-*) ignore=$ignore,PREFER_KERNEL_TYPES ;; esac
	scripts/checkpatch.pl --strict --quiet --ignore "$ignore" "$1" \
		> "$cpout/${1##*/}" 2>&1
	exit 0' sh)
for p in $series; do
	name=${p##*/}
	out=$(cat "$cpout/$name" 2>/dev/null) || out="no checkpatch output"
	if [ -z "$out" ]; then
		ok "checkpatch --strict $name"
	else
		bad "checkpatch --strict $name"
		echo "$out" | head -n 40 | sed 's/^/    /'
	fi
	if (cd "$tree" && patch -p1 -s --no-backup-if-mismatch) < "$p" >>"$log" 2>&1; then
		ok "applies: $name"
	else
		bad "applies: $name (see $log)"
		finish
	fi
done

# Configure: defconfig once, then the options, then olddefconfig.
kmake() { make -C "$tree" O="$bdir" "$@" >>"$log" 2>&1; }
if [ ! -f "$bdir/.config" ]; then
	kmake x86_64_defconfig || { bad "x86_64_defconfig (see $log)"; finish; }
fi
"$tree/scripts/config" --file "$bdir/.config" \
	-e HYPERVISOR_GUEST -e PARAVIRT -e XEN -e XEN_PV -e XEN_PV_DOM0 \
	-e XEN_PVH -e XEN_BACKEND -e XEN_BLKDEV_FRONTEND -e DEBUG_FS \
	-e KUNIT -m FIPC -m XEN_FIPC_FRONT -m XEN_FIPC_BACK \
	-m FIPC_KUNIT_TEST -m XEN_FIPC_BACK_VALIDATE_KUNIT_TEST \
	-m XEN_FIPC_BACK_LIMIT_KUNIT_TEST -m XEN_FIPC_BACK_RXQ_KUNIT_TEST \
	-e XEN_FIPC_FRONT_INJECT
kmake olddefconfig || { bad "olddefconfig (see $log)"; finish; }
for want in FIPC=m XEN_FIPC_FRONT=m XEN_FIPC_BACK=m FIPC_KUNIT_TEST=m \
	XEN_FIPC_BACK_VALIDATE_KUNIT_TEST=m XEN_FIPC_BACK_LIMIT_KUNIT_TEST=m \
	XEN_FIPC_BACK_RXQ_KUNIT_TEST=m XEN_FIPC_FRONT_INJECT=y; do
	if grep -qx "CONFIG_$want" "$bdir/.config"; then
		ok "Kconfig: CONFIG_$want"
	else
		bad "Kconfig: CONFIG_$want not kept ($(grep "CONFIG_${want%=*}[= ]" "$bdir/.config"))"
	fi
done

# Build the three directories in the tree, W=1, and the backend's KUnit
# suites (hooked into drivers/block/Makefile on their own).
dirs="lib/fipc/ drivers/block/xen-fipc-front/ drivers/block/xen-fipc-back/ "
dirs+="drivers/block/xen-fipc-back/tests/ "
blog=$top/build/linux-patches-build$suffix.log
t0=$(date +%s)
stamp=$work/build-start
touch "$stamp"
sleep 1
# shellcheck disable=SC2086
if make -C "$tree" O="$bdir" -j"$(nproc)" W=1 $dirs \
	drivers/xen/mem-reservation.o >"$blog" 2>&1; then
	ok "in-tree build of ${dirs}drivers/xen/mem-reservation.o ($(($(date +%s) - t0)) s)"
else
	bad "in-tree build (see $blog)"
	tail -n 30 "$blog" | sed 's/^/    /'
	finish
fi
# Every file of the series is new in the fresh tree, so this build
# compiled all of them: its log has all their warnings.
if grep -E '(lib/fipc|xen-fipc-(front|back)|mem-reservation)[/.].*warning:' "$blog"; then
	bad "W=1 warnings in the series' files"
else
	ok "no W=1 warning in the series' files"
fi
for o in lib/fipc/fipc.o lib/fipc/tests/fipc_poller_kunit.o \
	lib/fipc/tests/fipc_duplex_kunit.o \
	drivers/block/xen-fipc-back/tests/xen-fipc-back-kunit.o \
	drivers/block/xen-fipc-front/xen-fipc-front.o \
	drivers/block/xen-fipc-front/front_inject.o \
	drivers/block/xen-fipc-back/xen-fipc-back.o \
	drivers/xen/mem-reservation.o; do
	if [ -s "$bdir/$o" ] && [ "$bdir/$o" -nt "$stamp" ]; then
		ok "built $o"
	else
		bad "not built by this run: $o"
	fi
done
# The mem-reservation patch: the tree exports the notifier and the
# frontend's gfn watch uses it, not kprobes (front_gfn_watch.c).
syms() { nm "$bdir/$1" 2>/dev/null | awk -v t="$2" '$(NF - 1) == t { print $NF }'; }
if syms drivers/xen/mem-reservation.o T | grep -qx xenmem_reservation_register_notifier; then
	ok "mem-reservation.o defines xenmem_reservation_register_notifier"
else
	bad "mem-reservation.o does not define xenmem_reservation_register_notifier"
fi
w=drivers/block/xen-fipc-front/front_gfn_watch.o
if syms "$w" U | grep -qx xenmem_reservation_register_notifier &&
	! syms "$w" U | grep -qx register_kprobes; then
	ok "in the tree the frontend's gfn watch uses the notifier, not kprobes"
else
	bad "$w: want the notifier, not kprobes (undefined: $(syms "$w" U | grep -E 'kprobe|xenmem' | tr '\n' ' '))"
fi
finish
