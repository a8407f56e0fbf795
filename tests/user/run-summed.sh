#!/bin/sh
# Run each COMMAND (a shell command line: a test program, or a program
# with its arguments), every one even if another fails, and close with
# one "N passed, N failed" line summing their own last such lines
# (scripts/test-all.sh counts a suite by its last such line).  Used by
# check-user-unit (the ring test programs) and check-fuzz (the fuzzers).
# With -j, all COMMANDs run at once (the fuzzers: one single-threaded
# process each); their outputs are still printed one after the other.
# usage: run-summed.sh [-j] COMMAND...
together=0
if [ "${1:-}" = -j ]; then
	together=1
	shift
fi
outs=$(mktemp -d)
trap 'rm -rf "$outs"' EXIT
# run_to N COMMAND: run COMMAND, its output to $outs/N, its status to N.rc.
run_to() {
	sh -c "$2" > "$outs/$1" 2>&1
	echo $? > "$outs/$1.rc"
}
i=0
for t in "$@"; do
	i=$((i + 1))
	if [ $together = 1 ]; then
		run_to $i "$t" &
	else
		run_to $i "$t"
	fi
done
wait
pass=0
fail=0
rc=0
i=0
for t in "$@"; do
	i=$((i + 1))
	[ "$(cat "$outs/$i.rc")" = 0 ] || rc=1
	cat "$outs/$i"
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$outs/$i" | tail -n 1)
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
