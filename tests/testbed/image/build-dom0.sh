#!/bin/bash
# Build the cached dom0 root filesystem.
#
# Usage: build-dom0.sh OUTDIR
# Environment (all required; fipc-testbed derives them from the host):
#   MIRROR       Debian mirror URI (read from the host's apt configuration)
#   SUITE        Debian codename (bookworm, trixie)
#   KEYRING      keyring debootstrap checks SUITE with (optional)
#   SOURCES      apt sources.list text for the chroot (same archives as the host)
#   LISTS_DIR    host apt lists dir; copied so that the chroot resolves exactly
#                the package versions the host sees (no "apt-get update")
#   XENVER       version of the Xen hypervisor package we boot
#   XENSERIES    its series (4.17, 4.20): the toolstack is xen-utils-XENSERIES
#   KDIR, KVER   kernel artifact dir and kernel version (modules come from there)
#   PKGLIST, MODLIST, INIT   dom0-packages.txt, dom0-modules.txt, dom0-init
#
# Output: OUTDIR/rootfs/ (the tree; the domU image is made from it)
#         OUTDIR/dom0.cpio (uncompressed newc initramfs: loads fastest under TCG)
set -euo pipefail
out=$1
root=$out/rootfs
: "${MIRROR:?}" "${SUITE:?}" "${SOURCES:?}" "${LISTS_DIR:?}" "${XENVER:?}" "${XENSERIES:?}"
: "${KDIR:?}" "${KVER:?}" "${PKGLIST:?}" "${MODLIST:?}" "${INIT:?}"

log() { echo "build-dom0: $*"; }
cleanup() {
    # Never leave a mount behind inside the cache (a later rm -rf would
    # otherwise walk into it).
    if mountpoint -q "$root/proc" 2>/dev/null; then umount -l "$root/proc" || true; fi
}
trap cleanup EXIT
trap 'exit 143' TERM INT

log "debootstrap $SUITE (minbase)"
debootstrap --variant=minbase ${KEYRING:+--keyring="$KEYRING"} "$SUITE" "$root" "$MIRROR"

log "apt sources and lists from the host"
rm -f "$root/etc/apt/sources.list"
printf '%s\n' "$SOURCES" > "$root/etc/apt/sources.list.d/fipc-host.list"
mkdir -p "$root/var/lib/apt/lists"
find "$LISTS_DIR" -maxdepth 1 -type f \( -name '*_Packages*' -o -name '*Release' -o -name '*Release.gpg' \) \
    -exec cp {} "$root/var/lib/apt/lists/" \;
# Services must not start inside the chroot.
printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
chmod +x "$root/usr/sbin/policy-rc.d"

pkgs=$(sed -e 's/#.*//' -e "s/@XENVER@/$XENVER/g" -e "s/@XENSERIES@/$XENSERIES/g" "$PKGLIST" | xargs)
log "apt-get install $pkgs"
mount -t proc proc "$root/proc"
chroot "$root" env DEBIAN_FRONTEND=noninteractive LC_ALL=C \
    apt-get install -y --no-install-recommends -o Dpkg::Use-Pty=0 $pkgs
umount "$root/proc"

have=$(chroot "$root" dpkg-query -W -f '${Version}' "xen-utils-$XENSERIES")
[ "$have" = "$XENVER" ] || { echo "build-dom0: xen-utils-$XENSERIES is $have, hypervisor is $XENVER" >&2; exit 1; }

log "trim"
chroot "$root" apt-get clean
rm -rf "$root"/var/lib/apt/lists/* "$root"/usr/share/doc "$root"/usr/share/man \
       "$root"/usr/share/info "$root"/usr/share/locale "$root"/var/cache/debconf/*-old \
       "$root"/var/log/*.log "$root"/var/log/apt

log "kernel modules $KVER"
src=$KDIR/lib/modules/$KVER
dst=$root/lib/modules/$KVER
mkdir -p "$dst/kernel"
cp "$src"/modules.order "$src"/modules.builtin* "$dst/"
for part in $(sed 's/#.*//' "$MODLIST"); do
    [ -e "$src/kernel/$part" ] || { echo "build-dom0: no $part in kernel $KVER" >&2; exit 1; }
    mkdir -p "$dst/kernel/$(dirname "$part")"
    cp -a "$src/kernel/$part" "$dst/kernel/$part"
done
depmod -b "$root" "$KVER"
# The kernel image too, so that dom0 can start domUs with it without the
# testbed's shares (e.g. from the shell).
mkdir -p "$root/boot"
cp "$KDIR/vmlinuz" "$root/boot/vmlinuz-$KVER"

log "init"
install -m 0755 "$INIT" "$root/init"
echo fipc-dom0 > "$root/etc/hostname"

log "cpio"
(cd "$root" && find . -xdev | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) > "$out/dom0.cpio.tmp"
mv "$out/dom0.cpio.tmp" "$out/dom0.cpio"
log "done: $(du -sh "$out/dom0.cpio" | cut -f1)"
