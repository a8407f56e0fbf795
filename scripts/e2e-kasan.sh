#!/bin/sh
# make e2e-kasan: fipc's drivers under KASAN (issue 12).  Linux 6.1 cannot
# run KASAN in a Xen PV domain, and the testbed's dom0 is PV, so KASAN runs
# in PVH domUs (fipc-testbed --kasan; the KASAN kernel is the debug kernel's
# configuration plus tests/testbed/image/kasan.config, compiled from
# linux-source-6.1 and cached, about an hour cold on 2 cores):
#   fipc-hostile           -o BACKEND=dd: xen-fipc-back in a PVH driver
#                          domain with KASAN, attacked by a hostile PV
#                          guest while an honest PV guest verifies its data
#                          on the same backend;
#   fipc-hostile-backend   xen-fipc-front in a PVH guest with KASAN against
#                          the hostile backend (the memshare linger round
#                          needs a PV guest and is left out).
# A KASAN kernel under emulation is several times slower than Debian's:
# the attacker's waits for the backend and fipc-hostile's time bounds
# are scaled by 10 (-o ATTACK_TIME_SCALE; functional bounds, not speed).
# A scenario passes only if its own checks pass, each KASAN domain's kernel
# log shows KASAN initialised and has no report other than the stock
# kernel's known ones (tests/testbed/lib/kernel_reports.py).  Not part of
# `make test`.  E2E_KASAN_SCENARIOS and E2E_KASAN_TIMEOUT_SCALE override
# the defaults below.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
tb=tests/testbed/fipc-testbed
scale=${E2E_KASAN_TIMEOUT_SCALE:-2}
pvh="--kasan --cpu-model qemu64,+svm,+npt --timeout-scale $scale"

echo "=== e2e-kasan: KASAN kernel artifacts (cached; a cold build compiles the kernel)"
kdir=$($tb kdir --kasan --timeout-scale "$scale" | tee /dev/stderr | sed -n 's/^kdir: //p')
[ -n "$kdir" ] || { echo "e2e-kasan: no kernel tree" >&2; exit 1; }
echo "=== e2e-kasan: modules against $kdir"
FIPC_KDIR=$kdir FIPC_KMOD_OUT=$top/build/kmod-kasan scripts/build-modules.sh

pass=0 fail=0 failed=
run() {
	echo "=== e2e-kasan: $*"
	# shellcheck disable=SC2086
	if $tb run "$@" $pvh; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		failed="$failed $1"
	fi
}
for s in ${E2E_KASAN_SCENARIOS:-fipc-hostile fipc-hostile-backend}; do
	case $s in
	fipc-hostile) run "$s" -o BACKEND=dd -o DD_TYPE=pvh-kasan -o ATTACK_TIME_SCALE=10 ;;
	fipc-hostile-backend) run "$s" -o GUEST_TYPE=pvh-kasan -o LINGER=0 ;;
	*) run "$s" ;;
	esac
done
[ -z "$failed" ] || echo "e2e-kasan: failed:$failed"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
