#!/bin/bash
# Build the cached kernel artifact (used for dom0 and domUs) from the Debian package.
# Usage: build-kernel.sh KERNEL_DEB KVER OUTDIR
# Output: OUTDIR/vmlinuz, OUTDIR/vmlinux (the uncompressed ELF kernel inside
#         vmlinuz), OUTDIR/config, OUTDIR/System.map and the complete
#         module tree OUTDIR/lib/modules/KVER with modules.dep generated
#         (the .deb ships none: its postinst runs depmod).
set -euo pipefail
deb=$1 kver=$2 out=$3
dpkg-deb -x "$deb" "$out/.x"
mv "$out/.x/boot/vmlinuz-$kver" "$out/vmlinuz"
mv "$out/.x/boot/config-$kver" "$out/config"
mv "$out/.x/boot/System.map-$kver" "$out/System.map"
mkdir -p "$out/lib/modules"
# Debian 6.1 is not merged-/usr inside the package: modules live in /lib/modules.
if [ -d "$out/.x/lib/modules/$kver" ]; then
    mv "$out/.x/lib/modules/$kver" "$out/lib/modules/$kver"
else
    mv "$out/.x/usr/lib/modules/$kver" "$out/lib/modules/$kver"
fi
rm -rf "$out/.x"

# Debian's bzImage carries an xz-compressed kernel.  Xen (dom0) and libxc
# (domU, in dom0 user space) would decompress it at every boot, which takes
# a minute under TCG; both load the plain ELF just as well.
off=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$out/vmlinuz" | awk -F: 'NR == 1 { print $1 }')
[ -n "$off" ] || { echo "build-kernel: no xz payload in vmlinuz" >&2; exit 1; }
# (no pipe: xz stops after the stream and tail would die of SIGPIPE)
tail -c +$((off + 1)) "$out/vmlinuz" > "$out/vmlinux.xz"
xz -dc --single-stream < "$out/vmlinux.xz" > "$out/vmlinux"
rm "$out/vmlinux.xz"
[ "$(head -c 4 "$out/vmlinux" | od -An -c | tr -d ' ')" = '177ELF' ] ||
    { echo "build-kernel: decompressed kernel is not ELF" >&2; exit 1; }

depmod -b "$out" "$kver"
test -s "$out/lib/modules/$kver/modules.dep"
