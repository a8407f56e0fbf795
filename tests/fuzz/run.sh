#!/bin/sh
# Run a fipc fuzzer: replay its committed seed corpus, then fuzz for a
# bounded time.  New inputs go to the build directory, never into the
# committed corpus; a crash leaves its input under artifacts/.
# usage: run.sh BINARY SECONDS BUILD_DIR [SEEDS_DIR [NAME]]
# (defaults: tests/fuzz/corpus-duplex, the duplex ring's fuzzer, named
# "fuzz-duplex")
set -u
bin=$1
secs=$2
out=$3
seeds=${4:-$(dirname "$0")/corpus-duplex}
name=${5:-fuzz-duplex}
mkdir -p "$out/corpus" "$out/artifacts"
pass=0
fail=0
log="$out/fuzz.log"

nseeds=$(find "$seeds" -type f | wc -l)
if "$bin" -runs=0 -artifact_prefix="$out/artifacts/" "$seeds" \
	>"$log" 2>&1 && [ "$nseeds" -gt 0 ]; then
	pass=$((pass + 1))
	echo "ok   $name: seed corpus replay ($nseeds inputs)"
else
	fail=$((fail + 1))
	echo "FAIL $name: seed corpus replay ($nseeds inputs)"
	tail -n 30 "$log" | sed 's/^/    /'
fi

if "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
	-max_len=4096 -print_final_stats=1 \
	-artifact_prefix="$out/artifacts/" "$out/corpus" "$seeds" \
	>"$log" 2>&1; then
	pass=$((pass + 1))
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	cov=$(grep -E '^#[0-9]+' "$log" | tail -n 1 | \
		sed -E 's/.* cov: ([0-9]+).*/\1/')
	echo "ok   $name: ${secs} s, ${execs:-?} runs, coverage ${cov:-?}," \
		"corpus $(find "$out/corpus" -type f | wc -l) inputs"
else
	fail=$((fail + 1))
	echo "FAIL $name: ${secs} s run (log: $log)"
	grep -E 'invariant failed|ERROR|SUMMARY|Test unit written' "$log" | \
		head -n 20 | sed 's/^/    /'
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
