#!/bin/bash
# Build one of the testbed's checking kernels from Debian's
# linux-source-6.1: Debian's configuration, trimmed by localmodconfig to the
# modules in MODLIST, plus the checkers in FRAGMENT: debug.config (the debug
# kernel, dom0 and domUs) or debug.config:kasan.config (the KASAN kernel,
# PVH domUs).  Several fragments, separated by ':', are merged in order; a
# later setting of an option replaces an earlier one.
# Usage: build-kernel-debug.sh SRC BASE_CONFIG FRAGMENT[:FRAGMENT...] MODLIST OUTDIR
# Output, as build-kernel.sh's: OUTDIR/vmlinuz, vmlinux, config, System.map,
# lib/modules/KVER (with modules.dep), OUTDIR/kver, and OUTDIR/build: the
# object tree after `make clean`, which is what out-of-tree modules build
# against (KDIR).  SRC is only read.
set -euo pipefail
src=$1 base=$2 frags=$3 modlist=$4 out=$5
b=$out/build
jobs=$(nproc)
mkdir -p "$b"
log() { echo "build-kernel-debug: $(date +%T) $*"; }

# One fragment: the options of all of them, the last setting of each.
frag=$out/fragment.config
IFS=: read -r -a fraglist <<< "$frags"
awk '{ opt = "" }
     /^CONFIG_[A-Za-z0-9_]+=/ { opt = $0; sub(/=.*/, "", opt) }
     /^# CONFIG_[A-Za-z0-9_]+ is not set/ { opt = $2 }
     opt != "" { last[opt] = NR; line[NR] = $0 }
     END { for (o in last) keep[last[o]] = 1
           for (i = 1; i <= NR; i++) if (i in keep) print line[i] }' \
    "${fraglist[@]}" > "$frag"
local_version=$(sed -n 's/^CONFIG_LOCALVERSION="\(.*\)"$/\1/p' "$frag")
[ -n "$local_version" ] || { echo "build-kernel-debug: no CONFIG_LOCALVERSION in $frags" >&2; exit 1; }

log "configure from $base + $frags"
cp "$base" "$b/.config"
# localmodconfig reads lsmod's format: keep only these modules.
lsmod_file=$out/lsmod.txt
{ echo "Module Size Used by"
  sed 's/#.*//' "$modlist" | awk 'NF { print $1, 0, 0 }'; } > "$lsmod_file"
make -s -C "$src" O="$b" olddefconfig
{ yes '' || true; } | make -s -C "$src" O="$b" LSMOD="$lsmod_file" localmodconfig >/dev/null 2>&1
"$src/scripts/kconfig/merge_config.sh" -m -O "$b" "$b/.config" "$frag" >/dev/null
make -s -C "$src" O="$b" olddefconfig
# Every line of the fragment must have survived (a dependency can drop one
# silently).
miss=0
while read -r line; do
    case $line in
    CONFIG_*=*) grep -qxF "$line" "$b/.config" || { echo "not in .config: $line"; miss=1; } ;;
    "# CONFIG_"*" is not set")
        opt=${line#"# "}; opt=${opt%% *}
        ! grep -q "^$opt=" "$b/.config" || { echo "still set: $opt"; miss=1; } ;;
    esac
done < "$frag"
[ $miss = 0 ] || { echo "build-kernel-debug: $frag did not apply" >&2; exit 1; }
rm -f "$lsmod_file"

# KASAN: a PVH domain runs C code before kasan_early_init() has mapped
# the shadow (xen_prepare_pvh() and what it calls, from the 32-bit entry
# on the early page tables), and an instrumented access there is a triple
# fault.  Those files are built without instrumentation; kbuild reads
# KASAN_SANITIZE_<object> per file, so a command-line setting reaches
# every object of that name (arch/x86/platform/pvh/enlighten.o and
# arch/x86/xen/enlighten.o; arch/x86/xen/efi.o and drivers/xen/efi.o, whose
# xen_efi_init()/xen_efi_probe() xen_pvh_init() calls).
nosan=()
if grep -qx CONFIG_KASAN=y "$b/.config"; then
    for o in enlighten enlighten_pvh efi; do
        nosan+=("KASAN_SANITIZE_$o.o=n")
    done
    log "KASAN: not instrumented: ${nosan[*]}"
fi

log "build with $jobs jobs"
make -s -C "$src" O="$b" -j"$jobs" "${nosan[@]}" bzImage modules
# (known only now: kernelrelease reads CONFIG_LOCALVERSION from auto.conf)
kver=$(make -s -C "$src" O="$b" kernelrelease)
case $kver in *"$local_version") ;; *) echo "build-kernel-debug: release $kver, not *$local_version" >&2; exit 1 ;; esac
make -s -C "$src" O="$b" INSTALL_MOD_PATH="$out" INSTALL_MOD_STRIP=1 \
    DEPMOD=/bin/true modules_install
rm -f "$out/lib/modules/$kver/build" "$out/lib/modules/$kver/source"
cp "$b/arch/x86/boot/bzImage" "$out/vmlinuz"
# The ELF that dom0 and libxc load: stripped as the bzImage's payload is
# (objcopy -R .comment -S), without symbols and relocations.
objcopy -R .comment -S "$b/vmlinux" "$out/vmlinux"
cp "$b/.config" "$out/config"
cp "$b/System.map" "$out/System.map"
echo "$kver" > "$out/kver"
# Keep what an out-of-tree module build needs (config, generated headers,
# scripts, Module.symvers), drop the objects.
make -s -C "$src" O="$b" clean

# Lockdep reports its first problem only, then switches itself off.  The
# stock xen-gntdev takes its priv->lock both inside and outside mmap_lock
# (a known inversion, image/debug-known-reports.txt) whenever xenstored
# maps a guest's ring, i.e. at every boot: lockdep would be off before our
# modules connect anything.  So xen-gntdev is built once more, out of
# tree, with that one lock kept out of validation.
log "xen-gntdev: priv->lock outside lockdep validation"
g=$out/.gntdev
mkdir -p "$g"
cp "$src"/drivers/xen/gntdev.c "$src"/drivers/xen/gntdev-common.h \
    "$src"/drivers/xen/gntdev-dmabuf.h "$g/"
sed -i 's/^\tmutex_init(&priv->lock);$/&\n\tlockdep_set_novalidate_class(\&priv->lock);/' "$g/gntdev.c"
[ "$(grep -c 'lockdep_set_novalidate_class(&priv->lock);' "$g/gntdev.c")" = 1 ] ||
    { echo "build-kernel-debug: gntdev.c changed, cannot exempt priv->lock" >&2; exit 1; }
printf 'obj-m := xen-gntdev.o\nxen-gntdev-y := gntdev.o\n' > "$g/Kbuild"
make -s -C "$b" M="$g" modules
strip --strip-debug -o "$out/lib/modules/$kver/kernel/drivers/xen/xen-gntdev.ko" "$g/xen-gntdev.ko"
rm -rf "$g"
depmod -b "$out" "$kver"
test -s "$out/lib/modules/$kver/modules.dep"
log "done: $kver, $(du -sh "$out" | cut -f1)"
