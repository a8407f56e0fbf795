#!/bin/bash
# The two toolstack patches cannot drift: the lines that
# tools/libxl-phy1.patch and tools/libxl-phy1-upstream.patch add and remove
# (with the files they touch) must differ exactly as
# tools/libxl-phy1-upstream.delta documents, nothing more, nothing less.
# Last line: "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
t=$top/tools
pass=0 fail=0
changed() { grep -E '^(\+|-|\+\+\+ |--- )' "$1"; }
want=$(grep -v '^#' "$t/libxl-phy1-upstream.delta")
# Line numbers left out: a change elsewhere in both patches moves them.
got=$(diff --unchanged-line-format= --old-line-format='< %L' --new-line-format='> %L' \
	<(changed "$t/libxl-phy1.patch") <(changed "$t/libxl-phy1-upstream.patch"))
if [ "$got" = "$want" ]; then
	echo "ok   the patches differ only as libxl-phy1-upstream.delta says"
	pass=$((pass + 1))
else
	echo "FAIL the patches drifted apart; their changed lines differ by:"
	echo "$got" | sed 's/^/    /'
	echo "  want (tools/libxl-phy1-upstream.delta):"
	echo "$want" | sed 's/^/    /'
	fail=$((fail + 1))
fi
# Both patches touch the same files.
a=$(grep '^+++ ' "$t/libxl-phy1.patch")
b=$(grep '^+++ ' "$t/libxl-phy1-upstream.patch")
if [ "$a" = "$b" ]; then
	echo "ok   both patches touch the same $(echo "$a" | wc -l) files"
	pass=$((pass + 1))
else
	echo "FAIL the patches touch different files:"
	diff <(echo "$a") <(echo "$b") | sed 's/^/    /'
	fail=$((fail + 1))
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
