#!/bin/bash
# Build Xen's libxl, libxlutil and xl with the phy1: disk type (fipcblk)
# and libxenstat and xentop that show those disks, for one Debian Xen
# series, and cache the result outside the repo.
#
#   tools/build-xl-phy1.sh                        # Xen 4.17 (Debian 12)
#   FIPC_XEN_SERIES=4.20 tools/build-xl-phy1.sh   # Xen 4.20 (Debian 13)
#
# The patches of the series come from tools/xl-patches.py (its header says
# how: the series tools/libxl-phy1/*.patch, for 4.20 concatenated with
# tools/libxl-phy1-4.20.fixup, and tools/xenstat-fipcblk[-4.20].patch).
# 4.17: Debian bookworm's xen source (apt-get source, Debian's series
#   applied), built on this (bookworm) host.
# 4.20: Xen 4.20's source, built in the trixie chroot of scripts/trixie-root.sh
#   (trixie's gcc-14 and glibc, so that it runs on a Debian 13 dom0).  The
#   source, in this order:
#     1. Debian trixie's xen source package, by apt in the chroot with a
#        deb-src list of our own (a failure is remembered for a day:
#        $FIPC_CACHE/xl-phy1/src/.debian-<version>.unavailable);
#     2. an upstream release tarball: FIPC_XEN_SRC_TARBALL=path, else the
#        newest $FIPC_CACHE/xen-src/xen-4.20.*.tar.* (top directory
#        xen-4.20.N/: a xenbits release or a git archive of RELEASE-4.20.N);
#     3. neither: a message naming both, exit status 3 (callers report
#        "skipped: no Xen 4.20 source").
#
# Output: ${FIPC_CACHE:-/var/cache/fipc}/xl-phy1/<hash>/ holding
#   install/      tree to copy over a Debian dom0 (see docs/xl-phy1.md)
#   build/xen/    the patched, built Xen source (the host tests link to it)
#   BUILD-INFO    series, source versions, hashes, compiler flags
#   libxl-phy1-<series>.patch   the libxl patch as applied
# The hash covers the patches' inputs (xl-patches.py inputs), this script,
# the hotplug script and the source (4.17: the Debian source version; 4.20:
# the series, the source's identity, the Debian version it is to replace and
# the chroot's compiler and libc), so any change rebuilds.  The last line printed is the output
# directory.  Exit status: 0 built or cached, 3 no source (4.20), 1 other.
#
# Environment:
#   FIPC_XEN_SERIES           4.17 (default) or 4.20
#   FIPC_CACHE                cache root (default /var/cache/fipc)
#   FIPC_XEN_SRC_VERSION      Debian source version of xen to build; default:
#                             4.17: the installed xen-utils-4.17, else its
#                             candidate; 4.20: the trixie chroot's candidate
#                             of xen-utils-4.20
#   FIPC_XEN_SRC_TARBALL      4.20: the upstream tarball to use when Debian's
#                             source cannot be downloaded
#   FIPC_NO_APT=1             never run apt-get (fail if something is missing;
#                             4.20: go straight to the tarball)
#   FIPC_JOBS                 make -j value (default: number of CPUs)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
self=$here/$(basename "$0")
series=${FIPC_XEN_SERIES:-4.17}
case $series in
4.17|4.20) ;;
*)
    echo "build-xl-phy1: error: FIPC_XEN_SERIES=$series: use 4.17 (Debian 12) or 4.20 (Debian 13)" >&2
    exit 1 ;;
esac
hotplug=$here/hotplug/block-fipc
patches=$here/xl-patches.py
trixie_root=$here/../scripts/trixie-root.sh
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

# keep_source V WANTED TMP DIR: TMP holds the downloaded source package
# of version V (WANTED was asked for): it becomes DIR, marked complete.
keep_source() {
    [ "$1" = "$2" ] ||
        log "WARNING: source $2 could not be downloaded; using $1"
    rm -rf "$4"
    echo "$1" > "$3/version"
    touch "$3/$1.ok"
    mv "$3" "$4"
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
            keep_source "$v" "$wanted" "$tmp" "$dir"
            return 0
        fi
        rm -f "$tmp"/*
    done
    rm -rf "$tmp"
    die "could not download any xen source package"
}

# --- Xen 4.20: the trixie chroot, Debian's trixie source or a tarball ------

in_trixie() {   # in_trixie CMD...: CMD in the trixie chroot, cache and repo bound
    "$trixie_root" --bind "$cache_root" --bind "$here/.." --run "$@"
}

# Debian trixie's xen source (the wanted version first, then any other the
# archive indexes), by apt in the trixie chroot with a deb-src list,
# lists and cache of our own in $cache_root/src/.apt-trixie.  Returns 1
# if none could be downloaded, and remembers that for a day.
fetch_debian_source_420() {
    local wanted=$1 dir=$cache_root/src/$1 v tmp aptdir mirror sec
    local memo=$cache_root/src/.debian-$1.unavailable
    if [ -s "$dir/version" ] && [ -e "$dir/$(cat "$dir/version").ok" ]; then
        return 0
    fi
    [ "${FIPC_NO_APT:-0}" = 1 ] && return 1
    if [ -n "$(find "$memo" -mmin -1440 2>/dev/null)" ]; then
        log "Debian's xen $wanted source was not downloadable $(( ($(date +%s) - $(stat -c %Y "$memo")) / 60 )) min ago (rm $memo to retry now)"
        return 1
    fi
    aptdir=$cache_root/src/.apt-trixie
    mkdir -p "$aptdir/lists/partial" "$aptdir/cache/archives/partial"
    mirror=$(sed -n 's/^deb \([^ ]*\) trixie main$/\1/p' \
             "$("$trixie_root")/etc/apt/sources.list" | head -n 1)
    mirror=${mirror:-http://deb.debian.org/debian}
    sec=
    case $mirror in */debian) sec="deb-src ${mirror}-security trixie-security main" ;; esac
    printf 'deb-src %s trixie main\ndeb-src %s trixie-updates main\n%s\n' \
        "$mirror" "$mirror" "$sec" > "$aptdir/sources.list"
    local aptopts=(-q -o "Dir::Etc::SourceList=$aptdir/sources.list"
                   -o Dir::Etc::SourceParts=/nonexistent
                   -o "Dir::State::Lists=$aptdir/lists"
                   -o "Dir::Cache=$aptdir/cache")
    mkdir -p "$cache_root/src"
    tmp=$(mktemp -d "$cache_root/src/.dl.XXXXXX")
    chmod 755 "$tmp"
    log "trying Debian's trixie source of xen $wanted (apt in the trixie chroot)"
    if in_trixie apt-get "${aptopts[@]}" update >&2; then
        for v in "$wanted" $(in_trixie apt-cache "${aptopts[@]}" showsrc xen |
                             sed -n 's/^Version: //p' | sort -Vr | grep -vxF "$wanted"); do
            case $v in 4.20.*) ;; *) continue ;; esac
            log "downloading xen source $v"
            if in_trixie sh -c 'cd "$1" && shift && apt-get "$@" source --download-only "xen=$0"' \
                   "$v" "$tmp" "${aptopts[@]}" >&2; then
                keep_source "$v" "$wanted" "$tmp" "$dir"
                rm -f "$memo"
                return 0
            fi
            rm -f "$tmp"/*
        done
    fi
    rm -rf "$tmp"
    touch "$memo"
    log "Debian's trixie source of xen could not be downloaded"
    return 1
}

# The upstream tarball to use, if any: FIPC_XEN_SRC_TARBALL, else the
# newest $FIPC_CACHE/xen-src/xen-4.20.*.tar.*.
find_tarball_420() {
    local t
    if [ -n "${FIPC_XEN_SRC_TARBALL:-}" ]; then
        [ -r "$FIPC_XEN_SRC_TARBALL" ] || return 1
        echo "$FIPC_XEN_SRC_TARBALL"
        return 0
    fi
    t=$(ls -1 "${FIPC_CACHE:-/var/cache/fipc}"/xen-src/xen-4.20.*.tar.* 2>/dev/null |
        sort -V | tail -n 1)
    [ -n "$t" ] || return 1
    echo "$t"
}

no_source_420() {
    log "error: no Xen 4.20 source.  Either way gives one:
  1. Debian's trixie source package xen (= $1) by apt (deb-src of the
     trixie chroot's mirror: not downloadable now, or FIPC_NO_APT=1), or
  2. an upstream release tarball: put xen-4.20.N.tar.{gz,xz} (top directory
     xen-4.20.N/, from xenbits or 'git archive --prefix=xen-4.20.N/
     RELEASE-4.20.N') in ${FIPC_CACHE:-/var/cache/fipc}/xen-src/, or set
     FIPC_XEN_SRC_TARBALL=path${FIPC_XEN_SRC_TARBALL:+ (now $FIPC_XEN_SRC_TARBALL: not readable)}."
    exit 3
}

# --- the build proper: configure, make, install tree ------------------------
# In the patched source tree (the current directory); on the host (4.17)
# or in the trixie chroot (4.20: build-xl-phy1.sh --compile OUT LABEL LEAF).
compile_tree() {
    local out=$1 label=$2 leaf=$3 multiarch
    multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
    # Debian's series deletes the configure output and config.{guess,sub};
    # regenerate and copy them as debian/rules does.  Upstream tarballs
    # ship them.
    if [ ! -e configure ]; then
        log "autoconf"
        cp /usr/share/misc/config.sub /usr/share/misc/config.guess .
        ./autogen.sh >&2
    fi

    # As debian/rules builds the tools, so that the result can replace Debian's.
    # Without remus network buffering (CONFIG_LIBNL=n): Debian's libxenlight
    # does not link libnl-3/libnl-route-3, and neither Debian's packages nor
    # ours depend on them (tests/xl/run-tests.sh compares the libraries').
    export WGET=/bin/false GIT=/bin/false
    local make_args=(
        XEN_TARGET_ARCH=x86_64 V=0 CONFIG_LIBNL=n
        "EXTRA_CFLAGS_XEN_TOOLS=$(dpkg-buildflags --get CFLAGS) $(dpkg-buildflags --get CPPFLAGS)"
        "PREPEND_LDFLAGS_XEN_TOOLS=$(dpkg-buildflags --get LDFLAGS)"
    )
    # Debian's series adds --with-libexec-libdir-suffix (libfsimage's
    # multiarch directory; nothing built here uses it); upstream lacks it.
    local suffix=()
    grep -q libexec-libdir-suffix m4/paths.m4 &&
        suffix=(--with-libexec-libdir-suffix="/$multiarch")
    log "configure"
    ./configure -q \
        --disable-docs --disable-stubdom --disable-qemu-traditional \
        --disable-rombios --disable-seabios --disable-ipxe --disable-ovmf \
        --disable-xsmpolicy --disable-ocamltools --disable-golang --disable-pvshim \
        --prefix=/usr --includedir=/usr/include --libdir="/usr/lib/$multiarch" \
        "${suffix[@]}" \
        --mandir=/usr/share/man --sysconfdir=/etc --localstatedir=/var \
        --with-libexec-leaf-dir="$leaf" \
        --with-system-qemu=/usr/libexec/xen-qemu-system-i386 \
        --with-system-ovmf=/usr/share/ovmf/OVMF.fd \
        --with-system-seabios=/usr/share/seabios/bios-256k.bin >&2

    log "make (-j$jobs)"
    make -s -j"$jobs" -C tools/include "${make_args[@]}" >&2
    make -s -j"$jobs" -C tools/libs "${make_args[@]}" >&2
    make -s -j"$jobs" -C tools/xl "${make_args[@]}" >&2
    make -s -j"$jobs" -C tools/xentop "${make_args[@]}" >&2

    # The install tree: only what differs from Debian's packages.
    local inst=$out/install lib d n real
    local libdir=$inst/usr/lib/$multiarch bindir=$inst/usr/lib/$leaf/bin
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
        pod2man --section=5 --center="Xen" --release="$label+fipc-phy1" \
                --name=XL-DISK-CONFIGURATION > "$inst/usr/share/man/man5/xl-disk-configuration.5"
    gzip -9n "$inst/usr/share/man/man5/xl-disk-configuration.5"

    {
        echo "multiarch=$multiarch"
        echo "libexec_dir=/usr/lib/$leaf"
        echo "cflags=$(dpkg-buildflags --get CFLAGS)"
        echo "compiler=$(gcc --version | head -n 1)"
        echo "needed_by_xl=$(readelf -d tools/xl/xl | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' ')"
    } > "$out/BUILD-INFO.compile"
}

if [ "${1:-}" = --compile ]; then
    cd "$2/build/xen"
    compile_tree "$2" "$3" "$4"
    exit 0
fi

mkdir -p "$cache_root"
exec 9>"$cache_root/.lock"
flock 9

mapfile -t patch_inputs < <("$patches" inputs "$series")
[ ${#patch_inputs[@]} -gt 0 ] || die "$patches inputs $series failed"
for f in "${patch_inputs[@]}" "$hotplug"; do
    [ -r "$f" ] || die "missing $f"
done

if [ "$series" = 4.17 ]; then
    ensure_packages
    wanted=$(wanted_version)
    fetch_source "$wanted"
    srcdir=$cache_root/src/$wanted
    version=$(cat "$srcdir/version")
    upstream=$(echo "$version" | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')
    used=$version
    hash=$( { echo "source $version"; cat "${patch_inputs[@]}" | sha256sum;
              sha256sum < "$0"; sha256sum < "$hotplug"; } |
            sha256sum | cut -c1-16)
else
    upstream=4.20
    # One call into the chroot (made or checked here): the Debian version
    # to replace and the toolchain that builds.
    facts=$(in_trixie sh -c 'apt-cache policy xen-utils-4.20 | sed -n "s/^ *Candidate: /wanted=/p"
        dpkg-query -W -f="\${Package}=\${Version} " gcc-14 libc6-dev') ||
        die "the trixie chroot (scripts/trixie-root.sh) does not work"
    wanted=${FIPC_XEN_SRC_VERSION:-$(sed -n 's/^wanted=//p' <<< "$facts")}
    toolchain=$(sed '/^wanted=/d' <<< "$facts" | xargs)
    [ -n "$wanted" ] && [ "$wanted" != "(none)" ] ||
        die "the trixie chroot's apt knows no xen-utils-4.20"
    if fetch_debian_source_420 "$wanted"; then
        srcdir=$cache_root/src/$wanted
        version=$(cat "$srcdir/version")
        used="Debian $version"
        source_id="debian $version"
    else
        tarball=$(find_tarball_420) || no_source_420 "$wanted"
        tarball=$(readlink -f "$tarball")
        tarsum=$(sha256sum < "$tarball" | cut -d' ' -f1)
        version=$(basename "$tarball" | sed -E 's/^xen-(4\.20\.[0-9]+)\.tar\..*/\1/')
        case $version in 4.20.*) ;; *) die "$tarball: not named xen-4.20.N.tar.*" ;; esac
        used="upstream $version tarball sha256 $tarsum ($(basename "$tarball"))"
        source_id="tarball $tarsum"
        log "Debian's source unavailable: using upstream tarball $tarball"
    fi
    hash=$( { echo "series $series"; echo "source $source_id";
              echo "wanted $wanted"; echo "toolchain $toolchain";
              cat "${patch_inputs[@]}" | sha256sum;
              sha256sum < "$0"; sha256sum < "$hotplug"; } |
            sha256sum | cut -c1-16)
fi
leaf=xen-$upstream

out=$cache_root/$hash
if [ -e "$out/.complete" ]; then
    log "cached build for xen $used"
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
if [ -n "${srcdir:-}" ]; then
    log "unpacking xen $version (with Debian's patch series)"
    (cd "$out/build" && dpkg-source -q -x "$srcdir/xen_$version.dsc" xen >&2)
else
    log "unpacking $tarball"
    mkdir -p "$out/build/xen"
    tar -xf "$tarball" -C "$out/build/xen" --strip-components=1
    # The tarball's name is only a name: check what it holds.
    sub=$(sed -n 's/^export XEN_SUBVERSION *:\{0,1\}= *//p' "$out/build/xen/xen/Makefile")
    [ "$(sed -n 's/^export XEN_VERSION *:\{0,1\}= *//p' "$out/build/xen/xen/Makefile").$sub" = 4.20 ] ||
        die "$tarball does not hold Xen 4.20 (xen/Makefile)"
fi
cd "$out/build/xen"

log "applying the patches of Xen $series (tools/xl-patches.py)"
"$patches" print "$series" > "$out/libxl-phy1-$series.patch" &&
    "$patches" apply "$series" . ||
    die "the patches of Xen $series do not apply to xen $version"

# The disk spec lexer is generated by flex; drop the shipped output so that
# it is always regenerated from the patched libxlu_disk_l.l.
rm -f tools/libs/util/libxlu_disk_l.c tools/libs/util/libxlu_disk_l.h

if [ "$series" = 4.17 ]; then
    compile_tree "$out" "$version" "$leaf"
else
    log "building in the trixie chroot ($toolchain)"
    in_trixie env FIPC_XEN_SERIES="$series" FIPC_JOBS="$jobs" \
        FIPC_CACHE="${FIPC_CACHE:-/var/cache/fipc}" \
        bash "$self" --compile "$out" "$version" "$leaf" ||
        die "the build in the trixie chroot failed"
fi

{
    echo "series=$series"
    echo "xen_source_wanted=$wanted"
    echo "xen_source_used=$used"
    [ "$series" = 4.17 ] || echo "build_root=trixie chroot (scripts/trixie-root.sh): $toolchain"
    for f in "${patch_inputs[@]}"; do
        echo "patch_input=$(basename "$f") sha256 $(sha256sum < "$f" | cut -d' ' -f1)"
    done
    echo "patch=libxl-phy1-$series.patch (as applied) sha256 $(sha256sum < "$out/libxl-phy1-$series.patch" | cut -d' ' -f1)"
    echo "hotplug_sha256=$(sha256sum < "$hotplug" | cut -d' ' -f1)"
    cat "$out/BUILD-INFO.compile"
    echo "built=$(date -u +%Y-%m-%dT%H:%M:%SZ) in $(( $(date +%s) - start ))s"
} > "$out/BUILD-INFO"
rm -f "$out/BUILD-INFO.compile"
(cd "$out/install" && find . \( -type f -o -type l \) | sort) > "$out/MANIFEST"

# Drop what nothing uses any more, keeping the tools tree for the tests.
rm -rf stubdom tools/firmware tools/qemu-xen* .git

touch "$out/.complete"

# Keep the three newest builds of each series (builds without a series
# line are 4.17's).
ls -1dt "$cache_root"/*/.complete 2>/dev/null |
    while read -r done; do
        [ -f "${done%/.complete}/BUILD-INFO" ] || continue
        s=$(sed -n 's/^series=//p' "${done%/.complete}/BUILD-INFO")
        if [ "${s:-4.17}" = "$series" ]; then echo "$done"; fi
    done | tail -n +4 |
    while read -r done; do rm -rf "${done%/.complete}"; done
log "built xen $used + phy1 in $(( $(date +%s) - start ))s"
echo "$out"
