#!/bin/sh
# Run each COMMAND (a shell command line: a test program, or a program
# with its arguments), every one even if another fails, and close with
# one "N passed, N failed" line summing their own last such lines
# (scripts/test-all.sh counts a suite by its last such line).  Used by
# check-user-unit (the ring test programs) and check-fuzz (the fuzzers).
# usage: run-summed.sh COMMAND...
pass=0
fail=0
rc=0
for t in "$@"; do
	out=$(sh -c "$t" 2>&1) || rc=1
	printf '%s\n' "$out"
	line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
	if [ -z "$line" ]; then
		echo "run-summed: '$t' printed no summary"
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
