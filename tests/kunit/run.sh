#!/bin/bash
# Build and run the fipc KUnit suites under UML with kunit.py from Debian's
# linux-source-6.1 (or FIPC_KTARGET's source, below; make kunit,
# scripts/test-all.sh): "fipc_duplex" (the duplex ring,
# tests/ring/duplex_test.c), the same source the userspace build runs,
# through tests/ring/ring_test.h; "fipc" (the pollers,
# fipc_kunit.c); "fipcblk_validate" (the backend's request
# validation, fipcblk_validate_kunit.c); and "fipcblk_limit" (its I/O
# limits, fipcblk_limit_kunit.c).
#
# The extracted kernel tree ($FIPC_CACHE/linux-source-<ver>, see
# scripts/linux-src.sh) stays pristine: a hard-link copy of it made once,
# $FIPC_CACHE/kunit-<ver>/src, gets our lib/fipc/ (and its headers again
# as include/fipc/ for <fipc/fipc.h>), tests/kunit/fipc_kunit.c as
# lib/fipc/fipc_kunit.c and tests/ring/duplex_test.c as
# lib/fipc/fipc_duplex_kunit.c with tests/ring/ring_test.h beside them
# (the library's own lib/fipc/Kbuild lists the two suites' objects), a
# lib/fipcblk/ made of tests/kunit/fipcblk/
# (Kconfig, Kbuild), fipcblk_validate_kunit.c, fipcblk_limit_kunit.c,
# the driver's unchanged back_validate.[ch] and back_limit.[ch] and
# xen/include/public/io/fipcblk.h (as lib/fipcblk/include/xen/interface/
# io/, where a Linux tree has Xen's public headers), and the lib/Makefile
# and lib/Kconfig hooks of both directories.
# Files are replaced (never written through a hard link) and only when
# their content changed, so the UML build in $FIPC_CACHE/kunit-<ver>/build
# stays incremental.
#
# Prints one line per test case (per parameter of a parameterised case,
# named <suite>.<case>.<description>) and ends with "N passed, N failed"
# (", N skipped" if any); full output in build/kunit/kunit.log.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
here="$top/tests/kunit"
cache=${FIPC_CACHE:-/var/cache/fipc}
out="$top/build/kunit"
log="$out/kunit.log"
json="$out/results.json"
mkdir -p "$out"
: >"$log"

# The cases the suites declare, as <suite>.<case>: any that gives no
# result counts as failed.
suites="fipc_kunit.c fipcblk_validate_kunit.c fipcblk_limit_kunit.c"
shared="$top/tests/ring/duplex_test.c"
expected=$(for f in $suites; do
	# the .name of the file's struct kunit_suite, not of other structs
	s=$(sed -n '/^static struct kunit_suite /,/^};/s/^[[:space:]]*\.name = "\([a-z0-9_]*\)",.*/\1/p' \
		"$here/$f" | head -n 1)
	sed -n "s/^[[:space:]]*KUNIT_CASE[A-Z_]*(\([a-z0-9_]*\).*/${s:-$f}.\1/p" \
		"$here/$f"
done
for f in $shared; do
	s=$(sed -n 's/^RT_SUITE(\([a-z0-9_]*\),.*/\1/p' "$f" | head -n 1)
	sed -n "s/^[[:space:]]*RT_CASE(\([a-z0-9_]*\)).*/${s:-$f}.\1/p" "$f"
done)
nexpected=$(echo "$expected" | grep -c . || true)

fail_all() {
	for t in $expected; do
		echo "FAIL $t (not run)"
	done
	echo "0 passed, $nexpected failed"
	exit 1
}

# FIPC_KTARGET (scripts/ktarget.sh): the kernel source to run in, Debian
# 12's linux-source-6.1 by default, or 6.12 or mainline (trixie's and
# trixie-backports' sources, built with the host's compiler).
target=${FIPC_KTARGET:-6.1}
src=$("$top/scripts/linux-src.sh" "$target") || fail_all
ver=${src##*/linux-source-}
work="$cache/kunit-$ver"
tree="$work/src"
bdir="$work/build"
mkdir -p "$work"

# One build at a time per cache (other engineers, the test runner).
exec 9>"$work/lock"
if ! flock -w 1800 9; then
	echo "kunit: $work is locked by another run" >&2
	fail_all
fi

if [ ! -f "$tree/.fipc-overlay" ]; then
	echo "kunit: creating overlay tree $tree (hard links to $src)" >&2
	rm -rf "$tree" "$tree.tmp"
	cp -al "$src" "$tree.tmp" || fail_all
	mv "$tree.tmp" "$tree"
	touch "$tree/.fipc-overlay"
fi

# The sources are written against mainline's API: each C file and
# header goes in as this kernel's native code (scripts/kcompat-native.sh,
# with the probes' results for this kernel series' headers).
kprobes="$work/kcompat"
"$top/scripts/kcompat-probe.sh" --target "$target" "$kprobes" || fail_all

# Replace dst by src (made native) if they differ, breaking any hard link.
put() {
	local from=$1
	case $1 in
	*.c | *.h)
		cp "$1" "$kprobes/stage" &&
		"$top/scripts/kcompat-native.sh" "$kprobes/fipc_kcompat_probes.h" \
			"$kprobes/unused.h" "$kprobes/stage" || return 1
		from=$kprobes/stage
		;;
	esac
	if [ -f "$2" ] && cmp -s "$from" "$2"; then
		return 0
	fi
	mkdir -p "$(dirname "$2")"
	cp "$from" "$2.fipc-tmp" && mv -f "$2.fipc-tmp" "$2"
}

# Append a line to a (hard-linked) file once, by replacing the file.
add_line() {
	grep -qxF "$2" "$1" && return 0
	{ cat "$1"; printf '%s\n' "$2"; } >"$1.fipc-tmp" && mv -f "$1.fipc-tmp" "$1"
}

sync_tree() {
	local f want

	want=$(mktemp)
	(cd "$top" && git ls-files -co --exclude-standard -- lib/fipc) |
	while read -r f; do
		[ -f "$top/$f" ] || continue
		put "$top/$f" "$tree/$f" || return 1
		echo "$f"
		case "$f" in
		lib/fipc/include/fipc/*.h)
			put "$top/$f" "$tree/include/fipc/${f##*/}" || return 1
			echo "include/fipc/${f##*/}"
			;;
		esac
	done >"$want" || return 1
	put "$here/fipc_kunit.c" "$tree/lib/fipc/fipc_kunit.c" || return 1
	echo lib/fipc/fipc_kunit.c >>"$want"
	put "$top/tests/ring/ring_test.h" "$tree/lib/fipc/ring_test.h" ||
		return 1
	echo lib/fipc/ring_test.h >>"$want"
	put "$top/tests/ring/duplex_test.c" \
		"$tree/lib/fipc/fipc_duplex_kunit.c" || return 1
	echo lib/fipc/fipc_duplex_kunit.c >>"$want"
	# lib/fipcblk/: destination, then source in the repository.
	while read -r f from; do
		put "$top/$from" "$tree/lib/fipcblk/$f" || return 1
		echo "lib/fipcblk/$f"
	done >>"$want" <<-EOT || return 1
	Kconfig tests/kunit/fipcblk/Kconfig
	Kbuild tests/kunit/fipcblk/Kbuild
	fipcblk_validate_kunit.c tests/kunit/fipcblk_validate_kunit.c
	back_validate.c linux/drivers/block/xen-fipc-back/back_validate.c
	back_validate.h linux/drivers/block/xen-fipc-back/back_validate.h
	fipcblk_limit_kunit.c tests/kunit/fipcblk_limit_kunit.c
	back_limit.c linux/drivers/block/xen-fipc-back/back_limit.c
	back_limit.h linux/drivers/block/xen-fipc-back/back_limit.h
	include/xen/interface/io/fipcblk.h xen/include/public/io/fipcblk.h
	EOT
	# Files since removed from the repository go away from the overlay too.
	(cd "$tree" && find lib/fipc include/fipc lib/fipcblk -type f) |
	while read -r f; do
		grep -qxF "$f" "$want" || rm -f "$tree/$f"
	done
	rm -f "$want"
	add_line "$tree/lib/Makefile" 'obj-$(CONFIG_FIPC) += fipc/' &&
	add_line "$tree/lib/Kconfig" 'source "lib/fipc/Kconfig"' &&
	add_line "$tree/lib/Makefile" \
		'obj-$(CONFIG_FIPCBLK_VALIDATE_KUNIT_TEST) += fipcblk/' &&
	add_line "$tree/lib/Kconfig" 'source "lib/fipcblk/Kconfig"'
}
sync_tree || {
	echo "kunit: could not sync lib/fipc and lib/fipcblk into $tree" >&2
	fail_all
}

# kunit.py needs only the standard library; prefer Debian's interpreter.
py=/usr/bin/python3
[ -x "$py" ] || py=python3

t0=$(date +%s)
rm -f "$json"
touch "$out/.started"
(cd "$tree" && PYTHONDONTWRITEBYTECODE=1 "$py" tools/testing/kunit/kunit.py \
	run --kunitconfig="$here/.kunitconfig" --build_dir="$bdir" --jobs=2 \
	--timeout=300 --json="$json") >"$log" 2>&1
rc=$?
echo "kunit: kunit.py exit $rc after $(( $(date +%s) - t0 ))s, log ${log#"$top"/}" >&2
# The kernel's own console output goes into the log too.
if [ "$bdir/test.log" -nt "$out/.started" ]; then
	{ echo "=== raw kernel output ($bdir/test.log) ==="
	  cat "$bdir/test.log"; } >>"$log" 2>/dev/null
	sed -n 's/^ *# ring_test_stress: \(stress: .*\)/kunit: \1/p' \
		"$bdir/test.log" >&2
fi

if [ ! -s "$json" ]; then
	echo "kunit: no results; kernel configuration, build or boot failed:" >&2
	if grep -qE 'error:|Error [0-9]|ERROR|undefined reference' "$log"; then
		grep -E 'error:|Error [0-9]|ERROR|undefined reference|^ +[0-9]+ \|' \
			"$log" | head -n 60 >&2
	else
		tail -n 40 "$log" >&2
	fi
	fail_all
fi

"$py" - "$json" "$expected" <<'EOF'
import json
import sys

with open(sys.argv[1]) as f:
    root = json.load(f)
expected = sys.argv[2].split()  # <suite>.<case>
seen = {}

def walk(group, prefix):
    for case in group.get("test_cases", []):
        seen[prefix + case["name"]] = case["status"]
    for sub in group.get("sub_groups", []):
        walk(sub, prefix + sub["name"] + ".")

walk(root, "")
npass = nfail = nskip = 0
names = list(seen)
# A parameterised case is a group of results, <suite>.<case>.<param>,
# each counted as a case; it ran if any of them did.
for t in expected:
    if t not in seen and not any(k.startswith(t + ".") for k in seen):
        names.append(t)
for name in names:
    status = seen.get(name, "NOT RUN")
    if status == "PASS":
        npass += 1
        print("ok   " + name)
    elif status == "SKIP":
        nskip += 1
        print("skip " + name)
    else:
        nfail += 1
        print("FAIL %s (%s)" % (name, status))
line = "%d passed, %d failed" % (npass, nfail)
if nskip:
    line += ", %d skipped" % nskip
print(line)
sys.exit(1 if nfail or not npass else 0)
EOF
res=$?
if [ "$res" -ne 0 ]; then
	echo "--- kunit.py's report of the failures ---" >&2
	sed -n '/Starting KUnit Kernel/,/Testing complete/p' "$log" |
		grep -vE '\[PASSED\]|====' >&2
fi
if [ "$res" -eq 0 ] && [ "$rc" -ne 0 ]; then
	echo "kunit: kunit.py failed though every case passed, see $log" >&2
	res=1
fi
exit "$res"
