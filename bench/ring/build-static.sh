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

if [ -n "$rev" ]; then
	label=$(git rev-parse --short "$rev")
	src=$(mktemp -d)
	trap 'rm -rf "$src"' EXIT INT TERM
	git archive "$label" | tar -x -C "$src"
else
	label=$(git rev-parse --short HEAD)
	git diff --quiet HEAD -- lib bench/ring || label="$label-dirty"
	src=$top
fi

# The library's own rules build libfipc.a; the benchmark's sources are
# every C file in bench/ring of that tree (the set grew over time).
make -s -C "$src" lib >&2
out=$top/build/bench/ring-bench-static-$label
mkdir -p "$(dirname "$out")"
# shellcheck disable=SC2046
${CC:-cc} -std=gnu11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE \
	-Wno-unused-parameter -pthread -static \
	-I"$src/lib/fipc/include" -o "$out" \
	$(ls "$src"/bench/ring/*.c) "$src/build/user/libfipc.a"
echo "$out"
