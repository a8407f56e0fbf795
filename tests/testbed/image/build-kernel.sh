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

# Debian's bzImage carries a compressed kernel (xz on 6.1, zstd on 6.12).
# Xen (dom0) and libxc (domU, in dom0 user space) would decompress it at
# every boot, which takes a minute under TCG; both load the plain ELF just
# as well.  (no pipe: the decompressor stops after the stream and tail
# would die of SIGPIPE)
off=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$out/vmlinuz" | awk -F: 'NR == 1 { print $1 }') || true
if [ -n "$off" ]; then
    tail -c +$((off + 1)) "$out/vmlinuz" > "$out/vmlinux.z"
    xz -dc --single-stream < "$out/vmlinux.z" > "$out/vmlinux"
else
    off=$(LC_ALL=C grep -obUaP '\x28\xb5\x2f\xfd' "$out/vmlinuz" | awk -F: 'NR == 1 { print $1 }') || true
    [ -n "$off" ] || { echo "build-kernel: no xz or zstd payload in vmlinuz" >&2; exit 1; }
    tail -c +$((off + 1)) "$out/vmlinuz" > "$out/vmlinux.z"
    # zstd reads on past its frame into the image's trailing bytes and
    # then complains; the frame it wrote is the whole kernel.
    zstd -dcq < "$out/vmlinux.z" > "$out/vmlinux" 2>/dev/null || true
fi
rm "$out/vmlinux.z"
[ "$(head -c 4 "$out/vmlinux" | od -An -c | tr -d ' ')" = '177ELF' ] ||
    { echo "build-kernel: decompressed kernel is not ELF" >&2; exit 1; }

# Modules compressed by the package (.ko.xz on 6.12) are stored plain:
# every copy below (dom0 image, domU image) and busybox's modprobe in the
# guests then deal with .ko only.
find "$out/lib/modules/$kver" -name '*.ko.xz' -exec xz -d {} +

depmod -b "$out" "$kver"
test -s "$out/lib/modules/$kver/modules.dep"
