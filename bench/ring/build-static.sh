#!/bin/sh
# Build a statically linked ring benchmark, to carry to a machine that has
# no compiler and no libraries (a lent machine, a bare-metal host).
#
#   bench/ring/build-static.sh            this work tree
#   bench/ring/build-static.sh REV        any commit, for an A/B beside it
#
# Writes build/bench/ring-bench-static-LABEL, where LABEL is the short
# commit (with -dirty when the work tree's library or benchmark differ
# from it), and prints that path.  Run the result on several CPU pairs
# with bench/ring/pairs.sh; docs/benchmarks.md, "On a lent machine".
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
rev=${1:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

if [ -n "$rev" ]; then
	label=$(git rev-parse --short "$rev")
	src=$tmp/src
	mkdir "$src"
	git archive "$label" | tar -x -C "$src"
else
	label=$(git rev-parse --short HEAD)
	git diff --quiet HEAD -- lib bench/ring || label="$label-dirty"
	src=$top
fi

# The tree's own rules build the benchmark (its flags and sources, as
# they were at that commit), linked static through CC, in a build folder
# of its own so that build/bench/ring-bench stays as make bench-ring
# left it.
make -s -C "$src" BUILD="$tmp/build" CC="${CC:-cc} -static" \
	"$tmp/build/bench/ring-bench" >&2
out=$top/build/bench/ring-bench-static-$label
mkdir -p "$(dirname "$out")"
cp "$tmp/build/bench/ring-bench" "$out"
echo "$out"
