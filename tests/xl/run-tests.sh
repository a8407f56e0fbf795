#!/bin/bash
# Host-side tests of the phy1 (fipc) xl disk type; no Xen needed.
#
#   tests/xl/run-tests.sh
#
# 1. builds (or reuses from the cache) Debian's xl/libxl with
#    tools/libxl-phy1.patch: tools/build-xl-phy1.sh
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

summary() {
    echo "$passed passed, $failed failed"
    [ "$failed" = 0 ]
    exit
}

# --- 1. build ----------------------------------------------------------------
if out=$("$top/tools/build-xl-phy1.sh" 2> "$work/build.log" | tail -n 1) &&
   [ -e "$out/.complete" ]; then
    pass "build: patched xl, libxenlight, libxlutil ($(sed -n 's/^xen_source_used=//p' "$out/BUILD-INFO"))"
else
    tail -n 40 "$work/build.log" >&2
    fail "build: tools/build-xl-phy1.sh failed"
    summary
fi
B=$out/build/xen

# --- 2. parser tests ---------------------------------------------------------
libdirs=()
for d in toollog ctrl store guest evtchn hypfs devicemodel toolcore call \
         foreignmemory gnttab; do
    libdirs+=("-L$B/tools/libs/$d")
done
cflags=(-std=gnu99 -O1 -g -Wall -Werror -I"$B/tools/include")

if gcc "${cflags[@]}" -o "$work/parse-shared" "$here/disk-parse-test.c" \
       -L"$B/tools/libs/util" -L"$B/tools/libs/light" "${libdirs[@]}" \
       -lxlutil -lxenlight -lxentoollog \
       -Wl,-rpath,"$B/tools/libs/util:$B/tools/libs/light" \
       2> "$work/cc1.log"; then
    pass "compile: parser test against libxlutil.so/libxenlight.so"
    "$work/parse-shared" > "$work/parse1.out" 2>&1
    rc=$?
    count < "$work/parse1.out"
    [ $rc = 0 ] || grep -q ^FAIL "$work/parse1.out" ||
        fail "parser test (shared) exited $rc: $(tail -n 3 "$work/parse1.out")"
else
    cat "$work/cc1.log" >&2
    fail "compile: parser test against libxlutil.so/libxenlight.so"
fi

if gcc "${cflags[@]}" -DWITH_DEVNUM -o "$work/parse-static" \
       "$here/disk-parse-test.c" \
       "$B/tools/libs/util/libxlutil.a" "$B/tools/libs/light/libxenlight.a" \
       "${libdirs[@]}" -lxentoollog -lxenctrl -lxenstore -lxenguest \
       -lxenevtchn -lxenhypfs -lxendevicemodel -lxentoolcore \
       -lxenforeignmemory -lxengnttab -lxencall -lyajl -luuid \
       -lnl-route-3 -lnl-3 -lpthread -lutil -lz -llzma -lbz2 -lzstd \
       2> "$work/cc2.log"; then
    pass "compile: parser + vdev test against libxlutil.a/libxenlight.a"
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
multiarch=$(sed -n 's/^multiarch=//p' "$out/BUILD-INFO")
missing=
for f in usr/lib/xen-4.17/bin/xl etc/xen/scripts/block-fipc \
         "usr/lib/$multiarch/libxenlight.so.4.17" \
         "usr/lib/$multiarch/libxenlight.so.4.17.0" \
         "usr/lib/$multiarch/libxlutil.so.4.17" \
         "usr/lib/$multiarch/libxlutil.so.4.17.0" \
         usr/share/man/man5/xl-disk-configuration.5.gz; do
    [ -e "$inst/$f" ] || missing+=" $f"
done
if [ -z "$missing" ]; then
    pass "install tree: xl, libxenlight, libxlutil, block-fipc, man page"
else
    fail "install tree lacks:$missing"
fi

if cmp -s "$inst/etc/xen/scripts/block-fipc" "$top/tools/hotplug/block-fipc" &&
   [ -x "$inst/etc/xen/scripts/block-fipc" ]; then
    pass "install tree: block-fipc is the repo's script, executable"
else
    fail "install tree: block-fipc differs from tools/hotplug/block-fipc"
fi

if strings "$inst/usr/lib/$multiarch/libxenlight.so.4.17.0" | grep -qx fipcblk &&
   strings "$inst/usr/lib/$multiarch/libxenlight.so.4.17.0" | grep -qx block-fipc; then
    pass "install tree: libxenlight knows device kind fipcblk and script block-fipc"
else
    fail "install tree: libxenlight lacks fipcblk/block-fipc strings"
fi

# xl from the install tree, with its libraries first, gets as far as
# opening the hypervisor interface (there is none here).
xlout=$(LD_LIBRARY_PATH="$inst/usr/lib/$multiarch" \
        "$inst/usr/lib/xen-4.17/bin/xl" list 2>&1)
libs=$(LD_LIBRARY_PATH="$inst/usr/lib/$multiarch" \
       ldd "$inst/usr/lib/xen-4.17/bin/xl" 2>&1)
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
