#!/bin/sh
# Run every fipc fuzzer (tests/fuzz/run.sh each: its seed corpus, then
# SECONDS of fuzzing), every one even if another fails, with one closing
# "N passed, N failed" line over all of them (tests/user/run-summed.sh),
# all at once: each fuzzer is one single-threaded process.
# usage: run-all.sh SECONDS BUILD_DIR
secs=$1
build=$2
here=$(dirname "$0")
# run.sh BINARY SECONDS OUT SEEDS NAME
exec "$here/../user/run-summed.sh" -j \
	"$here/run.sh $build/fuzz/fuzz-duplex $secs $build/fuzz-duplex $here/corpus-duplex fuzz-duplex"
