#!/bin/bash
# Host-side tests of the phy1 (fipc) xl disk type; no Xen needed.
#
#   tests/xl/run-tests.sh                        # Xen 4.17 (Debian 12)
#   FIPC_XEN_SERIES=4.20 tests/xl/run-tests.sh   # Xen 4.20 (Debian 13)
#
# 1. builds (or reuses from the cache) xl/libxl with the phy1: patch:
#    tools/build-xl-phy1.sh.  4.20 is built in the trixie chroot
#    (scripts/trixie-root.sh), and 2. and 3. run there too, with Debian
#    trixie's own Xen 4.20 runtime libraries (downloaded once into
#    $FIPC_CACHE/xl-phy1/src/debian-libs-<version>/) behind ours.  No Xen 4.20
#    source (build exit 3): "skipped: ...", exit 77.
# 2. drives the patched libxlutil disk parser (xlu_disk_parse) from a C
#    program, twice: against the shared libraries that xl uses, and
#    statically linked to check libxl's vdev -> devid decoding
# 3. checks the install tree (xl links and starts with the patched libs)
# 4. tests the hotplug script tools/hotplug/block-fipc (dash and bash)
#
# Prints one line per test and "N passed, N failed"; exits 1 on failure.
set -u
shopt -s lastpipe

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
series=${FIPC_XEN_SERIES:-4.17}
export FIPC_XEN_SERIES=$series
passed=0
failed=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

count() {   # reads PASS/FAIL lines, echoes them and counts them
    local line
    while IFS= read -r line; do
        echo "$line"
        case $line in
        PASS*) passed=$((passed + 1)) ;;
        FAIL*) failed=$((failed + 1)) ;;
        esac
    done
}

pass() { count <<< "PASS $*"; }
fail() { count <<< "FAIL $*"; }
# none FOUND PASS-TEXT FAIL-TEXT: passes if FOUND is empty, else fails
# with FAIL-TEXT and FOUND.
none() { if [ -z "$1" ]; then pass "$2"; else fail "$3$1"; fi; }

summary() {
    echo "$passed passed, $failed failed"
    [ "$failed" = 0 ]
    exit
}

# --- 1. build ----------------------------------------------------------------
"$top/tools/build-xl-phy1.sh" > "$work/build.out" 2> "$work/build.log"
rc=$?
out=$(tail -n 1 "$work/build.out")
if [ $rc = 3 ]; then
    sed -n '/^build-xl-phy1: error/,$p' "$work/build.log"
    echo "skipped: no Xen $series source (tools/build-xl-phy1.sh exit 3; see above)"
    echo "$passed passed, $failed failed, 1 skipped"
    exit 77
elif [ $rc = 0 ] && [ -e "$out/.complete" ]; then
    pass "build: patched xl, libxenlight, libxlutil, Xen $series ($(sed -n 's/^xen_source_used=//p' "$out/BUILD-INFO"))"
else
    tail -n 40 "$work/build.log" >&2
    fail "build: tools/build-xl-phy1.sh (Xen $series) failed"
    summary
fi
B=$out/build/xen
multiarch=$(sed -n 's/^multiarch=//p' "$out/BUILD-INFO")

# Where the tests compile and run: here for 4.17 (with this host's Debian
# 12 Xen libraries), in the trixie chroot for 4.20 (its gcc-14 and glibc
# built the libraries).  deblibs: the directory of Debian's own runtime
# libraries of the series, searched after ours.
deblibs=
debroot=
if [ "$series" = 4.17 ]; then
    in_root() { "$@"; }
    # This host's Debian 12 libxenmisc4.17, when installed.
    [ -e "/usr/lib/$multiarch/libxenlight.so.4.17.0" ] && debroot=/
else
    in_root() {
        "$top/scripts/trixie-root.sh" --bind "$work" --bind "$out" \
            --bind "$here" --bind "$cache" --run "$@"
    }
    cache=${FIPC_CACHE:-/var/cache/fipc}/xl-phy1
    wanted=$(sed -n 's/^xen_source_wanted=//p' "$out/BUILD-INFO")
    d=$cache/src/debian-libs-$wanted
    fetch_deblibs() {
        local deb
        rm -rf "$d" && mkdir -p "$d/debs" || return 1
        in_root sh -c 'cd "$1" && shift && apt-get -q download "$@"' _ "$d/debs" \
            libxenmisc4.20="$wanted" libxencall1="$wanted" \
            libxendevicemodel1="$wanted" libxenevtchn1="$wanted" \
            libxenforeignmemory1="$wanted" libxengnttab1="$wanted" \
            libxenhypfs1="$wanted" libxenstore4="$wanted" \
            libxentoollog1="$wanted" libxentoolcore1="$wanted" || return 1
        for deb in "$d"/debs/*.deb; do dpkg-deb -x "$deb" "$d/root" || return 1; done
        touch "$d/.complete"
    }
    [ -e "$d/.complete" ] || fetch_deblibs > "$work/debs.log" 2>&1
    if [ -e "$d/.complete" ]; then
        deblibs=$d/root/usr/lib/$multiarch
        debroot=$d/root
    else
        # Without them (no network): the build tree's own libraries.
        cat "$work/debs.log" >&2
        echo "note: Debian's Xen $wanted libraries could not be downloaded; using the build tree's" >&2
        for l in "$B"/tools/libs/*/; do deblibs+=${deblibs:+:}${l%/}; done
    fi
fi

# --- 2. parser tests ---------------------------------------------------------
libdirs=()
rpathlink=
for d in toollog ctrl store guest evtchn hypfs devicemodel toolcore call \
         foreignmemory gnttab; do
    libdirs+=("-L$B/tools/libs/$d")
    rpathlink+=${rpathlink:+:}$B/tools/libs/$d
done
# The libraries libxenlight.so needs, at link time, from the build tree
# (the trixie chroot has no Xen libraries of its own).
libdirs+=("-Wl,-rpath-link,$rpathlink")
cflags=(-std=gnu99 -O1 -g -Wall -Werror -I"$B/tools/include")

if in_root gcc "${cflags[@]}" -o "$work/parse-shared" "$here/disk-parse-test.c" \
       -L"$B/tools/libs/util" -L"$B/tools/libs/light" "${libdirs[@]}" \
       -lxlutil -lxenlight -lxentoollog \
       -Wl,-rpath,"$B/tools/libs/util:$B/tools/libs/light" \
       2> "$work/cc1.log"; then
    pass "compile: parser test against libxlutil.so/libxenlight.so"
    in_root env ${deblibs:+LD_LIBRARY_PATH="$B/tools/libs/util:$B/tools/libs/light:$deblibs"} \
        "$work/parse-shared" > "$work/parse1.out" 2>&1
    rc=$?
    count < "$work/parse1.out"
    [ $rc = 0 ] || grep -q ^FAIL "$work/parse1.out" ||
        fail "parser test (shared) exited $rc: $(tail -n 3 "$work/parse1.out")"
else
    cat "$work/cc1.log" >&2
    fail "compile: parser test against libxlutil.so/libxenlight.so"
fi

if in_root gcc "${cflags[@]}" -DWITH_DEVNUM -o "$work/parse-static" \
       "$here/disk-parse-test.c" \
       "$B/tools/libs/util/libxlutil.a" "$B/tools/libs/light/libxenlight.a" \
       "${libdirs[@]}" -lxentoollog -lxenctrl -lxenstore -lxenguest \
       -lxenevtchn -lxenhypfs -lxendevicemodel -lxentoolcore \
       -lxenforeignmemory -lxengnttab -lxencall -lyajl -luuid \
       -lnl-route-3 -lnl-3 -lpthread -lutil -lz -llzma -lbz2 -lzstd \
       2> "$work/cc2.log"; then
    pass "compile: parser + vdev test against libxlutil.a/libxenlight.a"
    in_root env ${deblibs:+LD_LIBRARY_PATH="$deblibs"} \
        "$work/parse-static" > "$work/parse2.out" 2>&1
    rc=$?
    # The spec lines repeat the shared run; count only the vdev ones here.
    grep '^\(PASS\|FAIL\) parse: vdev .* -> devid ' "$work/parse2.out" | count
    if grep -v '^\(PASS\|FAIL\) parse: vdev .* -> devid ' "$work/parse2.out" |
       grep -q '^FAIL'; then
        fail "static parser run disagrees with the shared one: $(grep '^FAIL' "$work/parse2.out" | head -n 3)"
    fi
    [ $rc = 0 ] || grep -q ^FAIL "$work/parse2.out" ||
        fail "parser test (static) exited $rc: $(tail -n 3 "$work/parse2.out")"
else
    cat "$work/cc2.log" >&2
    fail "compile: parser + vdev test against libxlutil.a/libxenlight.a"
fi

# --- 3. install tree ---------------------------------------------------------
inst=$out/install
S=$series
missing=
for f in "usr/lib/xen-$S/bin/xl" "usr/lib/xen-$S/bin/xentop" \
         etc/xen/scripts/block-fipc \
         "usr/lib/$multiarch/libxenlight.so.$S" \
         "usr/lib/$multiarch/libxenlight.so.$S.0" \
         "usr/lib/$multiarch/libxlutil.so.$S" \
         "usr/lib/$multiarch/libxlutil.so.$S.0" \
         "usr/lib/$multiarch/libxenstat.so.$S" \
         "usr/lib/$multiarch/libxenstat.so.$S.0" \
         usr/share/man/man5/xl-disk-configuration.5.gz; do
    [ -e "$inst/$f" ] || missing+=" $f"
done
none "$missing" \
    "install tree: xl, xentop, libxenlight, libxlutil, libxenstat (.so.$S), block-fipc, man page" \
    "install tree lacks:"

if cmp -s "$inst/etc/xen/scripts/block-fipc" "$top/tools/hotplug/block-fipc" &&
   [ -x "$inst/etc/xen/scripts/block-fipc" ]; then
    pass "install tree: block-fipc is the repo's script, executable"
else
    fail "install tree: block-fipc differs from tools/hotplug/block-fipc"
fi

if strings "$inst/usr/lib/$multiarch/libxenlight.so.$S.0" | grep -qx fipcblk &&
   strings "$inst/usr/lib/$multiarch/libxenlight.so.$S.0" | grep -qx block-fipc; then
    pass "install tree: libxenlight knows device kind fipcblk and script block-fipc"
else
    fail "install tree: libxenlight lacks fipcblk/block-fipc strings"
fi

if strings "$inst/usr/lib/$multiarch/libxenstat.so.$S.0" | grep -qx 'fipcblk' &&
   strings "$inst/usr/lib/xen-$S/bin/xentop" | grep -qx 'FipcBlk'; then
    pass "install tree: libxenstat reads fipcblk devices, xentop names them FipcBlk"
else
    fail "install tree: libxenstat/xentop lack the fipcblk/FipcBlk strings"
fi

# Ours need no library that Debian's own copies do not (the package's
# dependencies are Debian's: xen-utils-<series>, libxenmisc<series>).
if [ -n "$debroot" ]; then
    needed() { readelf -d "$1" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | sort; }
    extra=
    for l in libxenlight libxlutil libxenstat; do
        more=$(comm -23 <(needed "$inst/usr/lib/$multiarch/$l.so.$S.0") \
                        <(needed "$debroot/usr/lib/$multiarch/$l.so.$S.0") | tr '\n' ' ')
        [ -z "$more" ] || extra+=" $l: $more"
    done
    none "$extra" \
        "install tree: our libraries need no library Debian's $S ones do not" \
        "install tree: our libraries need more than Debian's:"
fi

# xl from the install tree, with its libraries first, gets as far as
# opening the hypervisor interface (there is none here).
ldpath=$inst/usr/lib/$multiarch${deblibs:+:$deblibs}
xlout=$(in_root env LD_LIBRARY_PATH="$ldpath" \
        "$inst/usr/lib/xen-$S/bin/xl" list 2>&1)
libs=$(in_root env LD_LIBRARY_PATH="$ldpath" \
       ldd "$inst/usr/lib/xen-$S/bin/xl" 2>&1)
if grep -q "not found" <<< "$libs"; then
    fail "install tree: xl has unresolved libraries: $(grep 'not found' <<< "$libs" | tr '\n' ' ')"
elif ! grep -q "$inst/usr/lib/$multiarch/libxenlight.so" <<< "$libs" ||
     ! grep -q "$inst/usr/lib/$multiarch/libxlutil.so" <<< "$libs"; then
    fail "install tree: xl does not use the installed libxenlight/libxlutil"
elif grep -q "cannot init xl context\|libxl_ctx_alloc" <<< "$xlout"; then
    pass "install tree: xl links against the patched libraries and starts"
else
    fail "install tree: xl did not start as expected: $xlout"
fi

# --- 4. hotplug script -------------------------------------------------------
for sh in sh bash; do
    if command -v "$sh" > /dev/null; then
        "$here/hotplug-test.sh" "$sh" 2>&1 | sed "s/^\(PASS\|FAIL\) hotplug:/\1 hotplug ($sh):/" | count
    fi
done

if sh -n "$top/tools/hotplug/block-fipc" 2> "$work/shn.log"; then
    pass "hotplug: block-fipc parses as POSIX sh"
else
    fail "hotplug: block-fipc: $(cat "$work/shn.log")"
fi

summary
