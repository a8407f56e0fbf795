#!/bin/sh
# Run the kernel's checkpatch.pl --strict on every C source, header and
# Kconfig/Kbuild file of the project.  Prints one line per file and a
# closing "N passed, N failed" line.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
src=$("$top/scripts/linux-src.sh")
cd "$top"
pass=0
fail=0
files=$(git ls-files -co --exclude-standard -- '*.c' '*.h' '*Kconfig' \
	'*Kbuild' | grep -v '^build/' || true)
for f in $files; do
	[ -f "$f" ] || continue
	# Xen public headers are OS-neutral and must use C99 integer types
	# (Xen's own convention, also in Linux's include/xen/interface).
	extra=""
	case "$f" in xen/include/public/*) extra="--ignore PREFER_KERNEL_TYPES";; esac
	# shellcheck disable=SC2086
	out=$("$src/scripts/checkpatch.pl" --strict --no-tree --quiet \
		--show-types $extra -f "$f" 2>&1) || true
	if [ -z "$out" ]; then
		pass=$((pass + 1))
		echo "ok   checkpatch $f"
	else
		fail=$((fail + 1))
		echo "FAIL checkpatch $f"
		echo "$out" | sed 's/^/    /'
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
