#!/bin/bash
# Build the cached Xen hypervisor artifact from the Debian package.
# Usage: build-xen.sh XEN_DEB OUTDIR
# Output: OUTDIR/xen (plain ELF32 multiboot image that QEMU's -kernel loads),
#         OUTDIR/xen.config (the hypervisor's build config, for reference).
set -euo pipefail
deb=$1 out=$2
tmp=$out/.x
mkdir -p "$tmp"
dpkg-deb -x "$deb" "$tmp"
gz=$(ls "$tmp"/boot/xen-*-amd64.gz)
# QEMU's multiboot loader cannot read gzip; it wants the ELF32 image itself.
gunzip -c "$gz" > "$out/xen"
cp "${gz%.gz}.config" "$out/xen.config" 2>/dev/null || true
rm -rf "$tmp"
file_type=$(head -c 4 "$out/xen" | od -An -c | tr -d ' ')
[ "$file_type" = '177ELF' ] || { echo "build-xen: $out/xen is not an ELF file" >&2; exit 1; }
