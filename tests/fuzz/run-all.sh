#!/bin/sh
# Run every fipc fuzzer (tests/fuzz/run.sh each: its seed corpus, then
# SECONDS of fuzzing), every one even if another fails, and close with one
# "N passed, N failed" line over all of them (scripts/test-all.sh counts a
# suite by its last such line).
# usage: run-all.sh SECONDS BUILD_DIR
secs=$1
build=$2
here=$(dirname "$0")
pass=0
fail=0
rc=0
# name binary seeds out
for f in "fuzz fuzz-rx $here/corpus fuzz" \
	 "fuzz-duplex fuzz-duplex $here/corpus-duplex fuzz-duplex"; do
	set -- $f
	out=$("$here/run.sh" "$build/fuzz/$2" "$secs" "$build/$4" "$3" "$1" 2>&1) || rc=1
	printf '%s\n' "$out"
	line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
	if [ -z "$line" ]; then
		echo "run-all: $1 printed no summary"
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
