#!/bin/bash
# The toolstack patch is written once (tools/xl-patches.py, header): per
# other series a fix-up of the series tools/libxl-phy1/ (its patches
# concatenated: the base), which must
#   - apply to the base (no fuzz);
#   - change no line the patch adds or removes, nor the files it touches,
#     beyond the differences listed below for the series;
#   - stay small and be what `xl-patches.py fixup` makes of the series'
#     patch (its own hunk headers aside: they move with the base);
# and each series' patches must apply, without a reject, to its source
# where $FIPC_CACHE holds it (tools/build-xl-phy1.sh fetched it; else skip).
# Last line: "N passed, N failed[, N skipped]".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
xlp=$top/tools/xl-patches.py
cache=${FIPC_CACHE:-/var/cache/fipc}
max_fixup_lines=150
pass=0 fail=0 skip=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ok() { echo "ok   $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

# The lines only one of base ("<") and series patch (">") adds or removes.
declare -A allowed
allowed[4.20]='< -phy, qdisk, standalone
< +phy, qdisk, standalone, phy1
> -phy, qdisk, standalone, tap
> +phy, qdisk, standalone, tap, phy1
< +    (18, "FIPCBLK"),
> +    (21, "FIPCBLK"),'

changed() { grep -E '^(\+|-|\+\+\+ |--- )' "$1"; }

# The series: git format-patch files, one concern each, short.
max_patch_lines=800
for f in "$top"/tools/libxl-phy1/*.patch; do
	n=$(wc -l < "$f")
	if ! head -n 1 "$f" | grep -qE '^From [0-9a-f]{40} ' || ! grep -q '^Subject: \[PATCH' "$f"; then
		bad "libxl-phy1/$(basename "$f"): no git format-patch header (From, Subject)"
	elif [ "$n" -gt "$max_patch_lines" ]; then
		bad "libxl-phy1/$(basename "$f"): $n lines (at most $max_patch_lines): split it"
	else
		ok "libxl-phy1/$(basename "$f"): a format-patch of $n lines"
	fi
done

base=$work/base.patch
if "$xlp" print 4.17 > "$base" 2> "$work/base.err" && [ -s "$base" ]; then
	ok "4.17: xl-patches.py print makes the base of the series in tools/libxl-phy1/"
else
	bad "4.17: xl-patches.py print 4.17 failed: $(cat "$work/base.err")"
fi

for s in "${!allowed[@]}"; do
	fixup=$top/tools/libxl-phy1-$s.fixup
	if ! "$xlp" print "$s" > "$work/$s.patch" 2> "$work/$s.err"; then
		bad "$s: the fix-up does not apply to the base: $(cat "$work/$s.err")"
		continue
	fi
	ok "$s: $(basename "$fixup") applies to the base"
	# Line numbers left out: a change elsewhere in the patch moves them.
	got=$(diff --unchanged-line-format= --old-line-format='< %L' \
		--new-line-format='> %L' <(changed "$base") <(changed "$work/$s.patch"))
	if [ "$got" = "${allowed[$s]}" ]; then
		ok "$s: the fix-up changes the feature only as allowed (backend list, kind number)"
	else
		bad "$s: the fix-up changes what the patch adds or removes by:"
		echo "$got" | sed 's/^/    /'
		echo "  allowed (tests/xl/patch-drift.sh):"
		echo "${allowed[$s]}" | sed 's/^/    /'
	fi
	n=$(sed -n '/^--- /,$p' "$fixup" | wc -l)
	if [ "$n" -le "$max_fixup_lines" ]; then
		ok "$s: the fix-up is small ($n diff lines, at most $max_fixup_lines)"
	else
		bad "$s: the fix-up has $n diff lines (at most $max_fixup_lines): is the feature in it?"
	fi
	# The fix-up's own hunk headers move when the base grows before them.
	unnumbered() { sed -E 's/^@@ -[0-9]+(,[0-9]+)? \+[0-9]+(,[0-9]+)? @@$/@@/' "$1"; }
	if "$xlp" fixup "$s" "$work/$s.patch" > "$work/$s.fixup" 2> "$work/$s.err" &&
	   cmp -s <(unnumbered "$work/$s.fixup") <(unnumbered "$fixup"); then
		ok "$s: the fix-up is canonical (xl-patches.py fixup remakes it)"
	else
		bad "$s: xl-patches.py fixup makes another fix-up of its own result:"
		diff <(unnumbered "$fixup") <(unnumbered "$work/$s.fixup") |
			head -n 20 | sed 's/^/    /'
		cat "$work/$s.err"
	fi
done

# The pristine source of a series in the cache: Debian's (the newest
# source package) or, for 4.20, an upstream tarball.
source_of() {
	ls -1 "$cache"/xl-phy1/src/*/xen_"$1".*.dsc 2> /dev/null | sort -V | tail -n 1
	[ "$1" = 4.17 ] ||
		ls -1 "$cache"/xen-src/xen-"$1".*.tar.* 2> /dev/null | sort -V | tail -n 1
}

for s in 4.17 "${!allowed[@]}"; do
	src=$(source_of "$s" | head -n 1)
	if [ -z "$src" ]; then
		echo "skip $s: no Xen $s source in $cache (tools/build-xl-phy1.sh fetches it)"
		skip=$((skip + 1))
		continue
	fi
	t=$work/src-$s
	case $src in
	*.dsc) dpkg-source -q -x "$src" "$t" > /dev/null 2>&1 ;;
	*) mkdir -p "$t" && tar -xf "$src" -C "$t" --strip-components=1 ;;
	esac || { bad "$s: cannot unpack $src"; continue; }
	if ! "$xlp" apply "$s" "$t" > "$work/apply.log" 2>&1; then
		bad "$s: the patches do not apply to $(basename "$src"):"
		sed 's/^/    /' "$work/apply.log"
	elif [ -n "$(find "$t" -name '*.rej' -o -name '*.orig' | head -n 1)" ] ||
	     ! grep -q FIPCBLK "$t/tools/libs/light/libxl_types_internal.idl"; then
		bad "$s: applying to $(basename "$src") left .rej/.orig files or no FIPCBLK kind"
	else
		ok "$s: the patches apply to $(basename "$src") without a reject"
	fi
	rm -rf "$t"
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
