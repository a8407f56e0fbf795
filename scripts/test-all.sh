#!/bin/bash
# The whole test suite (README's test command, CI).  Runs each suite,
# logs it to build/test-logs/, and sums every suite's
# "N passed, N failed[, N skipped]" line; a suite without such a line
# counts as one test by its exit status.  Exit 77 means the suite could
# not run here (it says why): skipped, not failed.  Last line: the totals.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
logs="$top/build/test-logs"
mkdir -p "$logs"

# name|command: order matters, cheap host tests first.
suites=(
	"checkpatch|scripts/checkpatch.sh"
	"modules|scripts/build-modules.sh"
)
# shellcheck source=/dev/null
[ -f scripts/test-suites.sh ] && . scripts/test-suites.sh

total_pass=0 total_fail=0 total_skip=0
failed_suites=()
start_all=$(date +%s)

# judge NAME RC SECONDS: count suite NAME's tests from its log.
judge() {
	local name=$1 rc=$2 dt=$3 log="$logs/$1.log" line pyline counts p f s
	line=$(grep -E '^([A-Za-z0-9_-]+: )?[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$log" | tail -n 1)
	if [ -z "$line" ]; then
		# pytest's summary, e.g. "3 failed, 40 passed, 2 skipped in 1.2s"
		pyline=$(grep -E '^=* ?[0-9]+ (passed|failed|skipped|error).* in [0-9.]+s' "$log" | tail -n 1)
		if [ -n "$pyline" ]; then
			num() { echo "$pyline" | grep -oE "[0-9]+ $1" | grep -oE '^[0-9]+' || echo 0; }
			line="$(num passed) passed, $(( $(num failed) + $(num error) )) failed, $(num skipped) skipped"
		fi
	fi
	if [ -n "$line" ]; then
		counts=${line#*: }
		p=$(echo "$counts" | sed -E 's/^([0-9]+) passed.*/\1/')
		f=$(echo "$counts" | sed -E 's/.* ([0-9]+) failed.*/\1/')
		s=0
		case "$counts" in *skipped*) s=$(echo "$counts" | sed -E 's/.* ([0-9]+) skipped.*/\1/');; esac
		# Exit 77: the suite could not run here and said why (skipped).
		if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ] && [ "$f" -eq 0 ]; then f=1; fi
	else
		s=0
		if [ "$rc" -eq 0 ]; then p=1 f=0; elif [ "$rc" -eq 77 ]; then p=0 f=0 s=1; else p=0 f=1; fi
	fi
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	total_skip=$((total_skip + s))
	printf '    %s: %d passed, %d failed, %d skipped (exit %d, %ds, log %s)\n' \
		"$name" "$p" "$f" "$s" "$rc" "$dt" "${log#"$top"/}"
	if [ "$f" -ne 0 ]; then
		failed_suites+=("$name")
		echo "    --- last 40 lines of $name ---"
		tail -n 40 "$log" | sed 's/^/    | /'
	fi
}

# A suite whose name ends in "&" runs beside the suites after it, up to
# and including the next one without "&"; each is judged, in the list's
# order, once that one has ended.  For pairs of suites that are mostly
# one process each (no timed test among them): on 2 cores they take the
# time of the longer, not of both.
beside=()
for entry in "${suites[@]}"; do
	name=${entry%%|*}
	cmd=${entry#*|}
	bg=0
	case $name in *'&') bg=1 name=${name%'&'} ;; esac
	printf '=== %-16s %s%s\n' "$name" "$cmd" "$([ $bg = 1 ] && echo '   (beside the next)')"
	if [ $bg = 1 ]; then
		(t0=$(date +%s); bash -c "$cmd" >"$logs/$name.log" 2>&1 </dev/null
		 echo "$? $(( $(date +%s) - t0 ))" > "$logs/$name.status") &
		beside+=("$name")
		continue
	fi
	t0=$(date +%s)
	bash -c "$cmd" >"$logs/$name.log" 2>&1 </dev/null
	rc=$?
	dt=$(( $(date +%s) - t0 ))
	wait
	for b in "${beside[@]}"; do
		read -r brc bdt < "$logs/$b.status" || { brc=1 bdt=0; }
		rm -f "$logs/$b.status"
		judge "$b" "$brc" "$bdt"
	done
	beside=()
	judge "$name" "$rc" "$dt"
done
echo "=== total time $(( $(date +%s) - start_all ))s"
if [ ${#failed_suites[@]} -ne 0 ]; then
	echo "=== failed suites: ${failed_suites[*]}"
	# What each failed suite said went wrong, repeated here at the end,
	# where a CI log that keeps only its tail still shows it.
	for name in "${failed_suites[@]}"; do
		echo "    --- failures reported by $name (first 15) ---"
		grep -E '@@FIPC-FAIL|^not ok|FAIL[: ]|FAILED|[Ee]rror:' \
			"$logs/$name.log" | head -n 15 | cut -c1-300 | sed 's/^/    | /'
	done
fi
if [ "$total_skip" -gt 0 ]; then
	echo "$total_pass passed, $total_fail failed, $total_skip skipped"
else
	echo "$total_pass passed, $total_fail failed"
fi
[ "$total_fail" -eq 0 ]
