#!/bin/bash
# Build the cached domU initramfs: busybox + fio (with its libraries) + a few
# stock modules + a tiny /init.  Binaries come from the dom0 root tree, fio
# as its source (the same version and Debian patches as dom0's, without
# the engines that load ceph, gluster and rdma: build-guest-fio.sh), so the
# domU runs the same fio as dom0.
#
# Usage: build-domU.sh DOM0_ROOT KDIR KVER MODLIST INIT OUTDIR
# Output: OUTDIR/domU.cpio (uncompressed newc; Xen PV guests load it as ramdisk)
set -euo pipefail
src=$1 kdir=$2 kver=$3 modlist=$4 init=$5 out=$6
t=$out/tree
rm -rf "$t"
mkdir -p "$t"/{bin,sbin,usr/bin,usr/sbin,lib64,proc,sys,dev,tmp,run,fipc,etc}

copy() { # copy a file from the dom0 tree to the same path, following symlinks
    mkdir -p "$t$(dirname "$2")"
    cp -L "$src$1" "$t$2"
}
copy /usr/bin/busybox /bin/busybox
# fio: the dom0 tree's version, built without the engines whose libraries
# the guests never use (build-guest-fio.sh); where it cannot be, or does
# not run in the tree, Debian's binary with all its libraries (~85 MB).
guest_fio() { # guest_fio BINARY LDD_OUTPUT: install it, its libraries, say its version
    install -D -m 0755 "$1" "$t/usr/bin/fio"
    for lib in $(awk '/=>/ {print $3} /^\t\/lib/ {print $1}' <<<"$2"); do
        copy "$lib" "$lib"
    done
    chroot "$t" /usr/bin/fio --version 2>&1
}
fio_v=$(chroot "$src" dpkg-query -W -f='${Version}' fio)
got=
if ! { lean=$("$(dirname "$0")/build-guest-fio.sh" "$fio_v") &&
       got=$(guest_fio "$lean" "$(ldd "$lean")") &&
       [ "$got" = "fio-${fio_v%%-*}" ]; }; then
    echo "build-domU: no lean fio $fio_v that runs in the guest tree (${got:-not built}): Debian's fio" >&2
    got=$(guest_fio "$src/usr/bin/fio" "$(chroot "$src" ldd /usr/bin/fio)")
fi
echo "build-domU: guest fio: $got, $(chroot "$t" /usr/bin/fio --enghelp | grep -c .) engine lines"

# Stock modules and their dependencies.
mdst=$t/lib/modules/$kver
msrc=$kdir/lib/modules/$kver
mkdir -p "$mdst"
cp "$msrc"/modules.order "$msrc"/modules.builtin* "$mdst/"
for m in $(sed 's/#.*//' "$modlist"); do
    for f in $(modprobe -d "$kdir" -S "$kver" --show-depends "$m" | awk '$1 == "insmod" {print $2}'); do
        rel=${f#"$kdir"}
        mkdir -p "$t$(dirname "$rel")"
        cp "$f" "$t$rel"
    done
done
depmod -b "$t" "$kver"

install -m 0755 "$init" "$t/init"
echo fipc-domU > "$t/etc/hostname"
(cd "$t" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) > "$out/domU.cpio.tmp"
mv "$out/domU.cpio.tmp" "$out/domU.cpio"
rm -rf "$t"
echo "build-domU: done: $(du -sh "$out/domU.cpio" | cut -f1)"
