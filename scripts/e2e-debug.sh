#!/bin/sh
# make e2e-debug: the hostile-peer scenarios (and the memshare unload
# round) on the testbed's debug kernel: lockdep, KFENCE, SLUB and page
# poisoning, debug objects, UBSAN bounds, in dom0 and in every guest
# (tests/testbed/image/debug.config).  A scenario passes only if its own
# checks pass and no kernel log has a report other than the stock
# kernel's known ones (tests/testbed/lib/kernel_reports.py).  Not part of
# `make test`: the debug kernel is compiled from linux-source-6.1 (59 min
# the first time here, sharing 2 cores with testbed runs; cached in
# $FIPC_CACHE/testbed-debug), and its runs are slower.  E2E_DEBUG_SCENARIOS and E2E_DEBUG_TIMEOUT_SCALE override the
# defaults below.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
tb="tests/testbed/fipc-testbed --kernel debug"
scenarios=${E2E_DEBUG_SCENARIOS:-fipc-hostile-backend fipc-hostile fipc-memshare}
scale=${E2E_DEBUG_TIMEOUT_SCALE:-2}

echo "=== e2e-debug: debug kernel artifacts (cached; a cold build compiles the kernel)"
kdir=$($tb kdir --timeout-scale "$scale" | tee /dev/stderr | sed -n 's/^kdir: //p')
[ -n "$kdir" ] || { echo "e2e-debug: no kernel tree" >&2; exit 1; }
echo "=== e2e-debug: modules against $kdir"
FIPC_KDIR=$kdir FIPC_KMOD_OUT=$top/build/kmod-debug scripts/build-modules.sh

pass=0 fail=0 failed=
for s in $scenarios; do
	echo "=== e2e-debug: $s"
	if $tb run "$s" --timeout-scale "$scale"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		failed="$failed $s"
	fi
done
[ -z "$failed" ] || echo "e2e-debug: failed:$failed"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
