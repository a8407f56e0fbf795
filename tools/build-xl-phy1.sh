#!/bin/bash
# Build Debian's Xen 4.17 libxl, libxlutil and xl with tools/libxl-phy1.patch
# (the phy1: / fipcblk disk type), and libxenstat and xentop with
# tools/xenstat-fipcblk.patch (xentop shows phy1: disks), and cache the
# result outside the repo.
#
#   tools/build-xl-phy1.sh            # build (or reuse the cached build)
#
# Output: ${FIPC_CACHE:-/var/cache/fipc}/xl-phy1/<hash>/ holding
#   install/      tree to copy over a Debian dom0 (see docs/xl-phy1.md)
#   build/xen/    the patched, built Xen source (the host tests link to it)
#   BUILD-INFO    source versions, hashes, compiler flags
# The hash covers the patches, this script, the hotplug script and the
# Debian source version, so any change rebuilds.  The last line printed is the
# output directory.
#
# Environment:
#   FIPC_CACHE                cache root (default /var/cache/fipc)
#   FIPC_XEN_SRC_VERSION      Debian source version of xen to build; default:
#                             the installed xen-utils-4.17, else its candidate
#   FIPC_NO_APT=1             never run apt-get (fail if something is missing)
#   FIPC_JOBS                 make -j value (default: number of CPUs)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
patch_file=$here/libxl-phy1.patch
xenstat_patch=$here/xenstat-fipcblk.patch
hotplug=$here/hotplug/block-fipc
pkgs_file=$here/apt-packages.txt
cache_root=${FIPC_CACHE:-/var/cache/fipc}/xl-phy1
jobs=${FIPC_JOBS:-$(nproc)}
srclist=/etc/apt/sources.list.d/fipc-xen-src.sources

log() { echo "build-xl-phy1: $*" >&2; }
die() { log "error: $*"; exit 1; }

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

apt_install() {
    [ "${FIPC_NO_APT:-0}" = 1 ] && die "missing packages: $* (FIPC_NO_APT=1)"
    log "installing: $*"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get \
        -o DPkg::Lock::Timeout=900 install -y --no-install-recommends "$@" >&2
}

ensure_packages() {
    local missing=() pkgs=() p
    while read -r p; do
        case $p in ''|'#'*) continue ;; esac
        pkgs+=("$p")
    done < "$pkgs_file"
    # One dpkg-query for all: this runs on every (cached) build.
    mapfile -t missing < <(
        { dpkg-query -W -f='${Package} ${Status}\n' "${pkgs[@]}" 2>/dev/null |
              awk '$NF == "installed" { print $1 }'
          printf '%s\n' "${pkgs[@]}"; } | sed 's/:.*//' | sort | uniq -u)
    [ ${#missing[@]} -eq 0 ] && return 0
    apt_install "${missing[@]}" || {
        as_root apt-get -o DPkg::Lock::Timeout=900 update >&2
        apt_install "${missing[@]}"
    }
}

# Adds deb-src entries for bookworm and bookworm-security, copying the URIs
# of the host's own Debian sources, in a file of our own.
ensure_deb_src() {
    local main_uri sec_uri want
    if [ -z "$(apt-cache showsrc xen 2>/dev/null | sed -n 's/^Version: //p')" ] ||
       [ ! -e "$srclist" ]; then
        [ "${FIPC_NO_APT:-0}" = 1 ] && die "no deb-src for xen (FIPC_NO_APT=1)"
        [ -r /etc/apt/sources.list.d/debian.sources ] ||
            die "no /etc/apt/sources.list.d/debian.sources to copy URIs from"
        main_uri=$(awk '/^URIs:/{u=$2} /^Suites:/{for(i=2;i<=NF;i++) if($i=="bookworm") print u}' \
                   /etc/apt/sources.list.d/debian.sources | head -n1)
        sec_uri=$(awk '/^URIs:/{u=$2} /^Suites:/{for(i=2;i<=NF;i++) if($i=="bookworm-security") print u}' \
                  /etc/apt/sources.list.d/debian.sources | head -n1)
        [ -n "$main_uri" ] || die "no bookworm URI in debian.sources"
        want="# deb-src for building Xen's xl with the fipc phy1 patch
Types: deb-src
URIs: $main_uri
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
"
        [ -n "$sec_uri" ] && want+="
Types: deb-src
URIs: $sec_uri
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
"
        if [ ! -e "$srclist" ] || [ "$(cat "$srclist")" != "${want%$'\n'}" ]; then
            printf '%s' "$want" | as_root tee "$srclist" >/dev/null
        fi
        as_root apt-get -o DPkg::Lock::Timeout=900 update >&2
    fi
}

# The Debian source version to build: an explicit choice, else the
# installed xen-utils-4.17, else its candidate.
wanted_version() {
    local v
    if [ -n "${FIPC_XEN_SRC_VERSION:-}" ]; then
        echo "$FIPC_XEN_SRC_VERSION"; return
    fi
    v=$(dpkg-query -W -f='${Status} ${Version}' xen-utils-4.17 2>/dev/null |
        sed -n 's/^install ok installed //p')
    if [ -z "$v" ]; then
        # apt-cache policy is slow; reuse its answer until apt's cache changes.
        local memo=$cache_root/src/.candidate
        if [ -s "$memo" ] && [ "$memo" -nt /var/cache/apt/pkgcache.bin ]; then
            v=$(cat "$memo")
        else
            v=$(apt-cache policy xen-utils-4.17 2>/dev/null |
                sed -n 's/^ *Candidate: //p')
            mkdir -p "$cache_root/src"
            [ -n "$v" ] && echo "$v" > "$memo"
        fi
    fi
    if [ -z "$v" ] || [ "$v" = "(none)" ]; then
        ensure_deb_src
        v=$(apt-cache showsrc xen | sed -n 's/^Version: //p' | sort -V | tail -n1)
    fi
    [ -n "$v" ] || die "cannot tell which xen source version to build"
    echo "$v"
}

# Downloads the source package once per wanted version into
# $cache_root/src/<wanted>/, falling back to the newest other version the
# archive serves if the wanted one cannot be downloaded (the security
# archive may index sources that it does not serve).
fetch_source() {
    local wanted=$1 dir=$cache_root/src/$1 v tmp
    if [ -s "$dir/version" ] && [ -e "$dir/$(cat "$dir/version").ok" ]; then
        return 0
    fi
    ensure_deb_src
    mkdir -p "$cache_root/src"
    tmp=$(mktemp -d "$cache_root/src/.dl.XXXXXX")
    chmod 755 "$tmp"
    for v in "$wanted" $(apt-cache showsrc xen | sed -n 's/^Version: //p' |
                         sort -Vr | grep -vxF "$wanted"); do
        log "downloading xen source $v"
        if (cd "$tmp" && apt-get -q source --download-only "xen=$v" >&2); then
            [ "$v" = "$wanted" ] ||
                log "WARNING: source $wanted could not be downloaded; using $v"
            rm -rf "$dir"
            echo "$v" > "$tmp/version"
            touch "$tmp/$v.ok"
            mv "$tmp" "$dir"
            return 0
        fi
        rm -f "$tmp"/*
    done
    rm -rf "$tmp"
    die "could not download any xen source package"
}

mkdir -p "$cache_root"
exec 9>"$cache_root/.lock"
flock 9

[ -r "$patch_file" ] || die "missing $patch_file"
[ -r "$xenstat_patch" ] || die "missing $xenstat_patch"
[ -r "$hotplug" ] || die "missing $hotplug"

ensure_packages
wanted=$(wanted_version)
fetch_source "$wanted"
srcdir=$cache_root/src/$wanted
version=$(cat "$srcdir/version")
upstream=$(echo "$version" | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)

hash=$( { echo "source $version"; sha256sum < "$patch_file";
          sha256sum < "$xenstat_patch";
          sha256sum < "$0"; sha256sum < "$hotplug"; } |
        sha256sum | cut -c1-16)
out=$cache_root/$hash
if [ -e "$out/.complete" ]; then
    log "cached build for xen $version"
    echo "$out"
    exit 0
fi

start=$(date +%s)
# Builds that did not complete (we hold the lock) are leftovers.
for d in "$cache_root"/*/; do
    [ -e "$d/build" ] && [ ! -e "$d/.complete" ] && rm -rf "$d"
done
rm -rf "$out"
mkdir -p "$out/build"
log "unpacking xen $version (with Debian's patch series)"
(cd "$out/build" && dpkg-source -q -x "$srcdir/xen_$version.dsc" xen >&2)
cd "$out/build/xen"

log "applying $(basename "$patch_file")"
patch -p1 --no-backup-if-mismatch -s < "$patch_file" ||
    die "libxl-phy1.patch does not apply to xen $version"
log "applying $(basename "$xenstat_patch")"
patch -p1 --no-backup-if-mismatch -s < "$xenstat_patch" ||
    die "xenstat-fipcblk.patch does not apply to xen $version"

# The disk spec lexer is generated by flex; drop the shipped output so that
# it is always regenerated from the patched libxlu_disk_l.l.
rm -f tools/libs/util/libxlu_disk_l.c tools/libs/util/libxlu_disk_l.h

# Debian's series deletes the configure output and config.{guess,sub};
# regenerate and copy them as debian/rules does.
log "autoconf"
cp /usr/share/misc/config.sub /usr/share/misc/config.guess .
./autogen.sh >&2

# As debian/rules builds the tools, so that the result can replace Debian's.
export WGET=/bin/false GIT=/bin/false
make_args=(
    XEN_TARGET_ARCH=x86_64 V=0
    "EXTRA_CFLAGS_XEN_TOOLS=$(dpkg-buildflags --get CFLAGS) $(dpkg-buildflags --get CPPFLAGS)"
    "PREPEND_LDFLAGS_XEN_TOOLS=$(dpkg-buildflags --get LDFLAGS)"
)
log "configure"
./configure -q \
    --disable-docs --disable-stubdom --disable-qemu-traditional \
    --disable-rombios --disable-seabios --disable-ipxe --disable-ovmf \
    --disable-xsmpolicy --disable-ocamltools --disable-golang --disable-pvshim \
    --prefix=/usr --includedir=/usr/include --libdir="/usr/lib/$multiarch" \
    --with-libexec-libdir-suffix="/$multiarch" \
    --mandir=/usr/share/man --sysconfdir=/etc --localstatedir=/var \
    --with-libexec-leaf-dir="xen-$upstream" \
    --with-system-qemu=/usr/libexec/xen-qemu-system-i386 \
    --with-system-ovmf=/usr/share/ovmf/OVMF.fd \
    --with-system-seabios=/usr/share/seabios/bios-256k.bin >&2

log "make (-j$jobs)"
make -s -j"$jobs" -C tools/include "${make_args[@]}" >&2
make -s -j"$jobs" -C tools/libs "${make_args[@]}" >&2
make -s -j"$jobs" -C tools/xl "${make_args[@]}" >&2
make -s -j"$jobs" -C tools/xentop "${make_args[@]}" >&2

# The install tree: only what differs from Debian's packages.
inst=$out/install
libdir=$inst/usr/lib/$multiarch
bindir=$inst/usr/lib/xen-$upstream/bin
mkdir -p "$libdir" "$bindir" "$inst/etc/xen/scripts" "$inst/usr/share/man/man5"
for lib in light:xenlight util:xlutil stat:xenstat; do
    d=${lib%%:*} n=${lib#*:}
    real=$(cd "tools/libs/$d" && ls "lib$n.so."*.*.*)
    install -m 644 "tools/libs/$d/$real" "$libdir/$real"
    ln -sf "$real" "$libdir/${real%.*}"
done
install -m 755 tools/xl/xl "$bindir/xl"
install -m 755 tools/xentop/xentop "$bindir/xentop"
install -m 755 "$hotplug" "$inst/etc/xen/scripts/block-fipc"
sed -e "s|@XEN_CONFIG_DIR@|/etc/xen|g" -e "s|@XEN_SCRIPT_DIR@|/etc/xen/scripts|g" \
    -e 's|@[A-Z_]*@||g' docs/man/xl-disk-configuration.5.pod.in |
    pod2man --section=5 --center="Xen" --release="$version+fipc-phy1" \
            --name=XL-DISK-CONFIGURATION > "$inst/usr/share/man/man5/xl-disk-configuration.5"
gzip -9n "$inst/usr/share/man/man5/xl-disk-configuration.5"

{
    echo "xen_source_wanted=$wanted"
    echo "xen_source_used=$version"
    echo "patch_sha256=$(sha256sum < "$patch_file" | cut -d' ' -f1)"
    echo "xenstat_patch_sha256=$(sha256sum < "$xenstat_patch" | cut -d' ' -f1)"
    echo "hotplug_sha256=$(sha256sum < "$hotplug" | cut -d' ' -f1)"
    echo "multiarch=$multiarch"
    echo "cflags=$(dpkg-buildflags --get CFLAGS)"
    echo "built=$(date -u +%Y-%m-%dT%H:%M:%SZ) in $(( $(date +%s) - start ))s"
    echo "needed_by_xl=$(readelf -d tools/xl/xl | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' ')"
} > "$out/BUILD-INFO"
(cd "$inst" && find . \( -type f -o -type l \) | sort) > "$out/MANIFEST"

# Drop what nothing uses any more, keeping the tools tree for the tests.
rm -rf stubdom tools/firmware tools/qemu-xen* .git

touch "$out/.complete"

# Keep the three newest builds.
ls -1dt "$cache_root"/*/.complete 2>/dev/null | tail -n +4 |
    while read -r done; do rm -rf "${done%/.complete}"; done
log "built xen $version + phy1 in $(( $(date +%s) - start ))s"
echo "$out"
