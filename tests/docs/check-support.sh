#!/bin/bash
# README.md's support table against the test command: every suite a row
# names is one the test command runs (scripts/test-all.sh's own two and
# scripts/test-suites.sh), every kernel target of scripts/ktarget.sh has
# a row, and every target's suites are in the test command (kbuild and
# linux-patches-<target> for the targets beside 6.1).  One line per
# check, then "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
readme=${1:-$top/README.md}
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

suites=()
. "$top/scripts/test-suites.sh"
have=" checkpatch modules "
for e in "${suites[@]}"; do
	n=${e%%|*}
	# A name ending in "&" runs beside the next suite (test-all.sh).
	have="$have${n%&} "
done

# The table: the rows under the header that names the suites.
rows=$(awk '/^\| platform \| Xen \| kernel/ { on = 1; next }
	on && /^\|---/ { next }
	on && /^\|/ { print; next }
	on { exit }' "$readme")
[ -n "$rows" ] && ok "README.md has the support table" ||
	bad "README.md: no support table (| platform | Xen | kernel ...)"

while IFS= read -r row; do
	[ -n "$row" ] || continue
	platform=$(echo "$row" | cut -d'|' -f2 | sed 's/^ *//; s/ *$//')
	named=$(echo "$row" | cut -d'|' -f5 | grep -o '`[^`]*`' | tr -d '`')
	[ -n "$named" ] || { bad "$platform: names no suite"; continue; }
	for n in $named; do
		case $have in
		*" $n "*) ok "$platform: suite $n is in the test command" ;;
		*) bad "$platform: suite $n is not in the test command" ;;
		esac
	done
done <<<"$rows"

for t in $("$top/scripts/ktarget.sh" --list); do
	if grep -q "^| .*| [^|]*\b${t//./\\.}\b[^|]*|" <<<"$rows"; then
		ok "target $t has a row"
	else
		bad "target $t has no row in README.md's support table"
	fi
	[ "$t" = 6.1 ] && continue
	for n in kbuild "linux-patches-$t"; do
		case $have in
		*" $n "*) ok "target $t: $n runs" ;;
		*) bad "target $t: $n is not in the test command" ;;
		esac
	done
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
