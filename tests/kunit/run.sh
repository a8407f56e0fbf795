#!/bin/bash
# Build and run the fipc KUnit suites under UML with kunit.py from Debian's
# linux-source-6.1 (or FIPC_KTARGET's source, below; make kunit,
# scripts/test-all.sh), configured by tests/kunit/.kunitconfig.  The
# suites live beside the code they test and build in place from their
# own Kbuild and Kconfig: lib/fipc/tests/ ("fipc", the pollers, and
# "fipc_duplex", the duplex ring: duplex_test.c, the source the
# userspace build runs too) and linux/drivers/block/xen-fipc-back/tests/
# ("fipcblk_validate", the backend's request validation,
# "fipcblk_limit", its I/O limits, and "fipcblk_rxq", its queue of
# requests taken from a ring, built without Xen).
#
# The extracted kernel tree ($FIPC_CACHE/linux-source-<ver>, see
# scripts/linux-src.sh) stays pristine: a hard-link copy of it made once,
# $FIPC_CACHE/kunit-<ver>/src, gets our directories where the in-tree
# series puts them (scripts/linux-patches.sh), each file under its own
# name: lib/fipc/ (its headers also as include/fipc/),
# drivers/block/xen-fipc-back/ and xen/include/public/io/fipcblk.h as
# include/xen/interface/io/fipcblk.h, and the lib/ and drivers/block/
# Makefile and Kconfig hooks.  The files are made this kernel's native
# code on the way in (scripts/kcompat-native.sh), as in the series.
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
# result counts as failed.  A suite is a file with a struct kunit_suite
# (its .name, not that of other structs), the ring tests' RT_SUITE() or
# the backend's XFB_KUNIT_SUITE() (tests/back_kunit.h); its cases are
# its KUNIT_CASE*() and RT_CASE() lines.
expected=$(for f in "$top"/lib/fipc/tests/*.c \
	"$top"/linux/drivers/block/xen-fipc-*/tests/*.c; do
	s=$(sed -n 's/^\(RT\|XFB_KUNIT\)_SUITE(\([a-z0-9_]*\),.*/\2/p' "$f" |
		head -n 1)
	[ -n "$s" ] ||
		s=$(sed -n '/^static struct kunit_suite /,/^};/s/^[[:space:]]*\.name = "\([a-z0-9_]*\)",.*/\1/p' \
			"$f" | head -n 1)
	[ -n "$s" ] || continue
	sed -n "s/^[[:space:]]*\(RT_CASE\|KUNIT_CASE[A-Z_]*\)(\([a-z0-9_]*\).*/$s.\2/p" \
		"$f"
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

# What goes into the tree: a repository path (a directory: every file
# the repository tracks under it) and where the in-tree series puts it.
places="lib/fipc lib/fipc
lib/fipc/include/fipc include/fipc
linux/drivers/block/xen-fipc-back drivers/block/xen-fipc-back
xen/include/public/io/fipcblk.h include/xen/interface/io/fipcblk.h"

# Append a line to a (hard-linked) file once, or take it out, by
# replacing the file.
add_line() {
	grep -qxF "$2" "$1" && return 0
	{ cat "$1"; printf '%s\n' "$2"; } >"$1.fipc-tmp" && mv -f "$1.fipc-tmp" "$1"
}
drop_line() {
	grep -qxF "$2" "$1" || return 0
	grep -vxF "$2" "$1" >"$1.fipc-tmp" && mv -f "$1.fipc-tmp" "$1"
}

# Stage the files under their tree paths, make them native, then replace
# those of the tree that differ and remove the tree's files we no longer
# have.
sync_tree() {
	local stage=$work/stage from to f

	rm -rf "$stage" && mkdir -p "$stage" || return 1
	while read -r from to; do
		(cd "$top" && git ls-files -co --exclude-standard -- "$from") |
		while read -r f; do
			[ -f "$top/$f" ] || continue
			mkdir -p "$(dirname "$stage/$to${f#"$from"}")" &&
			cp "$top/$f" "$stage/$to${f#"$from"}" || exit 1
		done || return 1
	done <<<"$places"
	find "$stage" -name '*.[ch]' -print0 |
		xargs -0 "$top/scripts/kcompat-native.sh" \
		"$kprobes/fipc_kcompat_probes.h" "$kprobes/unused.h" || return 1
	(cd "$stage" && find . -type f | sed 's|^\./||') | while read -r f; do
		cmp -s "$stage/$f" "$tree/$f" && continue
		mkdir -p "$(dirname "$tree/$f")" &&
		cp "$stage/$f" "$tree/$f.fipc-tmp" &&
		mv -f "$tree/$f.fipc-tmp" "$tree/$f" || exit 1
	done || return 1
	while read -r from to; do
		[ -d "$tree/$to" ] || continue
		(cd "$tree" && find "$to" -type f) | while read -r f; do
			[ -f "$stage/$f" ] || rm -f "$tree/$f"
		done
	done <<<"$places"
	# What the runner put in before the suites moved beside the code
	# (issue 47; the cache is shared with older trees' runs).
	rm -rf "$tree/lib/fipcblk"
	drop_line "$tree/lib/Makefile" \
		'obj-$(CONFIG_FIPCBLK_VALIDATE_KUNIT_TEST) += fipcblk/' &&
	drop_line "$tree/lib/Kconfig" 'source "lib/fipcblk/Kconfig"' &&
	add_line "$tree/lib/Makefile" 'obj-$(CONFIG_FIPC) += fipc/' &&
	add_line "$tree/lib/Kconfig" 'source "lib/fipc/Kconfig"' &&
	add_line "$tree/drivers/block/Makefile" \
		'obj-$(CONFIG_XEN_FIPC_BACK) += xen-fipc-back/' &&
	add_line "$tree/drivers/block/Makefile" \
		'obj-$(CONFIG_XEN_FIPC_BACK_KUNIT_TEST) += xen-fipc-back/tests/' &&
	add_line "$tree/drivers/block/Kconfig" \
		'source "drivers/block/xen-fipc-back/Kconfig"'
}
sync_tree || {
	echo "kunit: could not sync our directories into $tree" >&2
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
