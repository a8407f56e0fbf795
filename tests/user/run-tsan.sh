#!/bin/sh
# Run the ThreadSanitizer build of the stress test.  TSan keeps going
# after a report and exits with 66 at the end; a report fails the suite
# even if every message arrived intact, and the closing line counts it.
# usage: run-tsan.sh BINARY MSGS
set -u
bin=$1
msgs=$2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
TSAN_OPTIONS="halt_on_error=0 exitcode=66 ${TSAN_OPTIONS:-}" \
	"$bin" --suite user-tsan --msgs "$msgs" >"$log" 2>&1
rc=$?
races=$(grep -c '^WARNING: ThreadSanitizer' "$log")
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
grep -v -E '^[0-9]+ passed, [0-9]+ failed$' "$log"
pass=$(echo "${summary:-0 passed, 0 failed}" | sed -E 's/^([0-9]+) passed.*/\1/')
fail=$(echo "${summary:-0 passed, 0 failed}" | sed -E 's/.* ([0-9]+) failed$/\1/')
if [ "$races" -gt 0 ]; then
	echo "FAIL user-tsan: ThreadSanitizer reported $races problem(s)"
	fail=$((fail + 1))
elif [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then
	echo "FAIL user-tsan: exit status $rc"
	fail=$((fail + 1))
else
	echo "ok   user-tsan: no ThreadSanitizer reports"
	pass=$((pass + 1))
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
