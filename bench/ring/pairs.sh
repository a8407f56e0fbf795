#!/bin/sh
# Run one or more ring benchmark builds on several CPU pairs, interleaved,
# so that builds compare run by run on the same CPUs in the same minute.
#
#   bench/ring/pairs.sh [-p PAIRS] [-k RUNS] [-o DIR] [-a ARGS] LABEL=BINARY...
#
#   -p PAIRS  CPU pairs, e.g. "0,1 2,9 5,14" (default: those three on a
#             machine with 15 or more CPUs, "0,1" on a smaller one)
#   -k RUNS   runs of each build on each pair (default 3)
#   -o DIR    where the results go (default build/bench/pairs)
#   -a ARGS   ring-bench arguments (default: its own defaults)
#
# Each run writes DIR/LABEL-A_B-K.json and .txt; DIR/machine.txt records
# the CPU, kernel and load.  Summarise with bench/ring/pairs.py DIR.
# Needs only a POSIX shell and the (static) binaries: it runs on a
# machine without a compiler; see docs/benchmarks.md, "On a lent machine".
set -eu

usage() {
	sed -n '4,13p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

ncpu=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
if [ "$ncpu" -ge 15 ]; then
	pairs="0,1 2,9 5,14"
else
	pairs="0,1"
fi
runs=3
dir=build/bench/pairs
args=

while getopts p:k:o:a:h opt; do
	case $opt in
	p) pairs=$OPTARG ;;
	k) runs=$OPTARG ;;
	o) dir=$OPTARG ;;
	a) args=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || usage
case $runs in
'' | *[!0-9]* | 0) echo "pairs.sh: -k wants a positive number" >&2; exit 2 ;;
esac

for build in "$@"; do
	label=${build%%=*}
	bin=${build#*=}
	if [ "$label" = "$build" ] || [ -z "$label" ]; then
		echo "pairs.sh: '$build' is not LABEL=BINARY" >&2
		exit 2
	fi
	case $label in
	*[!A-Za-z0-9._+]*)
		echo "pairs.sh: label '$label': letters, digits, . _ + only" >&2
		exit 2 ;;
	esac
	if [ ! -x "$bin" ]; then
		echo "pairs.sh: $bin: not an executable" >&2
		exit 2
	fi
done
for pair in $pairs; do
	case $pair in
	[0-9]*,[0-9]*) ;;
	*) echo "pairs.sh: pair '$pair' is not CPU,CPU" >&2; exit 2 ;;
	esac
	for cpu in $(echo "$pair" | tr , ' '); do
		if [ "$cpu" -ge "$ncpu" ]; then
			echo "pairs.sh: CPU $cpu of pair $pair: only $ncpu online" >&2
			exit 2
		fi
	done
done

mkdir -p "$dir"
{
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "kernel: $(uname -srm)"
	echo "cpus online: $ncpu"
	grep -m1 'model name' /proc/cpuinfo || true
	echo "loadavg: $(cat /proc/loadavg)"
	echo "pairs: $pairs; runs: $runs; args: ${args:-(defaults)}"
	for build in "$@"; do
		echo "build: $build"
	done
} > "$dir/machine.txt"

total=$(($# * runs * $(echo "$pairs" | wc -w)))
n=0
k=1
while [ "$k" -le "$runs" ]; do
	for pair in $pairs; do
		for build in "$@"; do
			label=${build%%=*}
			bin=${build#*=}
			base=$dir/$label-$(echo "$pair" | tr , _)-$k
			n=$((n + 1))
			echo "[$n/$total] $label on CPUs $pair, run $k" \
				"(loadavg $(cut -d' ' -f1 /proc/loadavg))"
			# shellcheck disable=SC2086
			if ! "$bin" -c "$pair" -g "$label" -j "$base.json" \
				$args > "$base.txt" 2>&1; then
				echo "pairs.sh: $label on $pair failed:" >&2
				tail -5 "$base.txt" >&2
				exit 1
			fi
		done
	done
	k=$((k + 1))
done
echo "loadavg at end: $(cat /proc/loadavg)" >> "$dir/machine.txt"
echo "wrote $n runs to $dir; summarise with bench/ring/pairs.py $dir"
