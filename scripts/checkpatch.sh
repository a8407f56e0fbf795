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

# CamelCase: checkpatch allows identifiers it finds in its CamelCase cache,
# which it would seed from a kernel tree's include/ (never with --no-tree,
# and never with enum constants).  We seed it with the kernel's own
# CamelCase names from the headers we use, include/xen (XenbusStateConnected
# and the like), so that the code uses the kernel's names and the check
# still catches ours.  The cache's name is checkpatch's, for this cwd.
if [ -e .git ]; then
	cache=.checkpatch-camelcase.git.$(git log --no-merges --pretty=format:%h -1 -- include 2>/dev/null)
else
	cache=.checkpatch-camelcase.date.0
fi
rm -f .checkpatch-camelcase.*
python3 - "$src/include/xen" > "$cache" <<'PY'
import os, re, sys
camel = re.compile(r"(?:[A-Z][a-z]|[a-z][A-Z])")
decl = re.compile(r"^\s*(?:#\s*define\s+|(?:enum|struct|union)\s+|typedef\s.*?\b)?"
                  r"([A-Za-z_]\w*)\s*(?:=|,|;|\{|\(|$)")
names = set()
for d, _, files in os.walk(sys.argv[1]):
    for f in files:
        if f.endswith(".h"):
            for line in open(os.path.join(d, f), errors="replace"):
                m = decl.match(line)
                if m and camel.search(m.group(1)):
                    names.add(m.group(1))
# C11's _Static_assert, which the OS-neutral public header uses where
# the kernel would write static_assert().
names.add("_Static_assert")
print("\n".join(sorted(names)))
PY
files=$(git ls-files -co --exclude-standard -- '*.c' '*.h' '*Kconfig' \
	'*Kbuild' | grep -v '^build/' || true)
# One checkpatch per file, $(nproc) at a time (each one is a single-threaded
# perl run of a second or more); each file's output goes to its own file in
# $outs, then the results are reported in the files' order.
outs=$(mktemp -d)
trap 'rm -rf "$outs"' EXIT
export src outs
# shellcheck disable=SC2016
echo "$files" | xargs -r -P "$(nproc)" -n 1 sh -c '
	f=$1
	[ -f "$f" ] || exit 0
	# Xen public headers are OS-neutral and use C99 integer types, as
	# Xen does and as Linux keeps them in include/xen/interface; so
	# does the test peer written from the public header alone.
	extra=""
	case "$f" in
	xen/include/public/* | tests/user/header_peer.*)
		extra="--ignore PREFER_KERNEL_TYPES";;
	esac
	# shellcheck disable=SC2086
	"$src/scripts/checkpatch.pl" --strict --no-tree --quiet \
		--show-types $extra -f "$f" > "$outs/$(echo "$f" | tr / %)" 2>&1
	exit 0' sh
for f in $files; do
	[ -f "$f" ] || continue
	out=$(cat "$outs/$(echo "$f" | tr / %)" 2>/dev/null) ||
		out="no checkpatch output for $f"
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
