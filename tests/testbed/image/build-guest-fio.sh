#!/bin/bash
# Build the guests' fio: Debian's fio source package of the version the
# dom0 tree holds, configured without the engines that link ceph, gluster,
# rdma, pmem, nfs, numa and http (the testbed's jobs use libaio, io_uring
# and sync only).  Debian's binary loads 64 shared libraries (~85 MB); under
# TCG a PV guest spent 1.0-1.3 s in `fio --version` alone, before any job
# (2026-11-30, Debian 12 testbed); this one loads five.
#
# Usage: build-guest-fio.sh VERSION
# Prints the path of the binary, cached under $FIPC_CACHE/guest-fio (keyed
# by VERSION and this script); exits non-zero, saying why, where the source
# of VERSION cannot be had (no deb-src for its suite: the caller then
# takes the dom0 tree's fio as it is).
set -euo pipefail
v=$1
here=$(cd "$(dirname "$0")" && pwd)
key=$(sha256sum "$here/build-guest-fio.sh" | cut -c1-12)
dir=${FIPC_CACHE:-/var/cache/fipc}/guest-fio/$v-$key
log() { echo "build-guest-fio: $*" >&2; }

if [ -x "$dir/fio" ]; then
    echo "$dir/fio"
    exit 0
fi
for p in gcc make; do
    command -v "$p" >/dev/null || { log "no $p"; exit 1; }
done
for h in libaio.h zlib.h; do
    [ -e "/usr/include/$h" ] || { log "no /usr/include/$h (libaio-dev, zlib1g-dev)"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! (cd "$tmp" && apt-get source -q "fio=$v" >"$tmp/source.log" 2>&1); then
    log "no source of fio $v: $(tail -n 1 "$tmp/source.log")"
    exit 1
fi
src=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d -name 'fio-*' | head -n 1)
[ -n "$src" ] || { log "fio $v: no source tree unpacked"; exit 1; }
log "building fio $v without the ceph, gluster, rdma, pmem, nfs, numa and http engines"
(cd "$src" &&
    ./configure --disable-native --disable-numa --disable-rdma \
        --disable-rados --disable-rbd --disable-http --disable-gfapi \
        --disable-libnfs --disable-pmem --disable-xnvme --disable-libzbc \
        --disable-tcmalloc --disable-dfs >"$tmp/configure.log" 2>&1 &&
    make -j"$(nproc)" fio >"$tmp/make.log" 2>&1) ||
    { log "fio $v did not build: $(tail -n 3 "$tmp/make.log" "$tmp/configure.log" 2>/dev/null)"; exit 1; }
mkdir -p "$dir.tmp"
install -m 0755 "$src/fio" "$dir.tmp/fio"
rm -rf "$dir"
mv "$dir.tmp" "$dir"
echo "$dir/fio"
