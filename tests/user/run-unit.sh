#!/bin/sh
# Run the userspace ring test programs (tests/ring/*_test.c built with
# tests/ring/ring_test.h), every one even if another fails, and close with
# one "N passed, N failed" line over all of them (scripts/test-all.sh
# counts a suite by its last such line).
# usage: run-unit.sh PROGRAM...
pass=0
fail=0
rc=0
for t in "$@"; do
	out=$("$t" 2>&1) || rc=1
	printf '%s\n' "$out"
	line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
	if [ -z "$line" ]; then
		echo "run-unit: $t printed no summary"
		fail=$((fail + 1))
		rc=1
		continue
	fi
	pass=$((pass + ${line%% passed*}))
	f=${line#* passed, }
	fail=$((fail + ${f%% failed*}))
done
echo "$pass passed, $fail failed"
[ $rc = 0 ] && [ $fail = 0 ]
